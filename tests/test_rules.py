"""Each rule on trees built to trigger it, and the healthy trees that must stay quiet."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from stackcheck.check.engine import check
from stackcheck.check.model import Report, Severity
from stackcheck.matrix import Matrix, load_matrix
from stackcheck.probes import probe_root
from tests.support import scenarios
from tests.support.recorded import PROC_VERSION_535, PROC_VERSION_580, V100_INFORMATION, h100_gpus
from tests.support.rootfs import Root


def report_of(root: Root, matrix: Matrix, env: Mapping[str, str] | None = None) -> Report:
    return check(probe_root(str(root.path), env=env), matrix)


def ids(report: Report, severity: Severity | None = None) -> set[str]:
    return {f.id for f in report.findings if severity is None or f.severity is severity}


def test_healthy_dlami_host_has_no_warning_or_error(root: Root, matrix: Matrix) -> None:
    scenarios.dlami_p5(root)
    report = report_of(root, matrix)
    assert not [f for f in report.findings if f.severity is not Severity.INFO], report.findings


def test_broken_host_findings(root: Root, matrix: Matrix) -> None:
    scenarios.broken_p5(root)
    report = report_of(root, matrix)
    assert {"SC101", "SC103", "SC401"} <= ids(report, Severity.ERROR)
    sc101 = next(f for f in report.findings if f.id == "SC101")
    assert "needs driver >= 580.65.06" in sc101.message
    assert "535.161.07" in sc101.message
    assert any(e.source == "/proc/driver/nvidia/version" for e in sc101.evidence)
    assert report.findings[0].severity is Severity.ERROR  # most severe first


def test_cu12_wheel_on_r535_runs_by_minor_version_compatibility(root: Root, matrix: Matrix) -> None:
    root.debian_loader()
    root.driver(PROC_VERSION_535, h100_gpus(2))
    site = root.venv("opt/pytorch")
    site.torch("2.7.1+cu128", "12.8", archs="sm_75 sm_80 sm_86 sm_90 sm_100 sm_120 compute_120")
    site.nccl_wheel("2.26.2", 12)
    report = report_of(root, matrix)
    assert ids(report, Severity.ERROR) == set()
    assert "SC102" in ids(report, Severity.INFO)


def cuda13_image(root: Root) -> None:
    """A CUDA 13.0 image carrying cuda-compat's libcuda 580.95.05."""
    root.debian_loader()
    root.toolkit("13.0.2")
    root.elf("usr/local/cuda-13.0/compat/libcuda.so.580.95.05", soname="libcuda.so.1")
    root.venv("opt/pytorch").torch("2.9.0+cu130", "13.0", archs=scenarios.NEW_ARCHS, cuda_major=13)


def test_cuda12_image_on_r535_needs_no_forward_compat(root: Root, matrix: Matrix) -> None:
    scenarios.ngc_image(root)
    root.driver(PROC_VERSION_535, h100_gpus(1))
    report = report_of(root, matrix)
    # CUDA 12.9 on R535: minor-version compatibility; NCCL 2.27.3's symmetric-kernel bug is advice
    assert ids(report) == {"SC102", "SC311"}
    [nccl] = [f for f in report.findings if f.id == "SC311"]
    assert nccl.severity is Severity.INFO and "symmetric kernels" in nccl.message


def test_forward_compat_on_datacenter_gpu_is_info(root: Root, matrix: Matrix) -> None:
    cuda13_image(root)
    root.driver(PROC_VERSION_535, h100_gpus(1))
    report = report_of(root, matrix)
    assert "SC101" not in ids(report)
    assert "SC105" in ids(report, Severity.INFO)


def test_forward_compat_on_a_geforce_is_error_804(root: Root, matrix: Matrix) -> None:
    cuda13_image(root)
    gpu = V100_INFORMATION.replace("Tesla V100-SXM2-16GB", "NVIDIA GeForce RTX 4090")
    root.driver(PROC_VERSION_535, [("0000:06:00.0", gpu)])
    report = report_of(root, matrix)
    assert "SC104" in ids(report, Severity.ERROR)
    assert "SC105" not in ids(report)


def test_v100_with_a_wheel_built_from_sm75(root: Root, matrix: Matrix) -> None:
    root.driver(PROC_VERSION_580, [("0000:06:00.0", V100_INFORMATION)])
    root.venv("opt/pytorch").torch("2.9.0+cu128", "12.8", archs=scenarios.NEW_ARCHS)
    report = report_of(root, matrix)
    finding = next(f for f in report.findings if f.id == "SC202")
    assert finding.severity is Severity.ERROR
    assert "Tesla V100-SXM2-16GB" in finding.message
    assert any("arch list sm_75" in (e.detail or "") for e in finding.evidence)


USER_MATRIX = """
[[torch]]
version = "9.9"
source = "https://example.invalid/internal-wheel-index"
checked = 2026-12-01

[[torch.variants]]
cuda = "12.8"
archs = ["sm_80", "sm_90"]

[[torch]]
version = "9.8"
source = "https://example.invalid/internal-wheel-index"
checked = 2026-12-01
unsure = true

[[torch.variants]]
cuda = "12.8"
archs = ["sm_80", "sm_90"]
"""


def test_arch_list_from_a_user_matrix(root: Root, tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine/torch.toml").write_text(USER_MATRIX)
    extended = load_matrix([tmp_path / "mine"])
    root.driver(PROC_VERSION_580, [("0000:06:00.0", V100_INFORMATION)])
    site = root.venv("opt/pytorch")
    site.torch("9.9.0+cu128", "12.8")  # no arch string in the binary: the matrix says
    [finding] = [f for f in report_of(root, extended).findings if f.id == "SC202"]
    assert finding.severity is Severity.ERROR
    assert any(e.kind == "matrix" and "internal-wheel-index" in e.source for e in finding.evidence)
    # The same facts marked unsure never make an error.
    site.root.write(f"{site.rel}/torch/version.py", "__version__ = '9.8.0+cu128'\ncuda = '12.8'\n")
    [unsure] = [f for f in report_of(root, extended).findings if f.id == "SC202"]
    assert unsure.severity is Severity.WARNING


def test_arch_with_ptx_only_is_a_warning(root: Root, matrix: Matrix) -> None:
    gpu = V100_INFORMATION.replace(
        "Tesla V100-SXM2-16GB", "NVIDIA RTX PRO 6000 Blackwell Server Edition"
    )
    root.driver(PROC_VERSION_580, [("0000:06:00.0", gpu)])
    root.venv("opt/pytorch").torch("2.7.0+cu126", "12.6", archs="sm_80 sm_90 compute_90")
    report = report_of(root, matrix)
    [finding] = [f for f in report.findings if f.id == "SC202"]
    assert finding.severity is Severity.WARNING
    assert "JIT" in finding.message


def test_minor_arch_binary_compatibility_is_not_flagged(root: Root, matrix: Matrix) -> None:
    """An sm_80 cubin runs on an A10G (8.6) and an L4 (8.9): no finding."""
    gpu = V100_INFORMATION.replace("Tesla V100-SXM2-16GB", "NVIDIA L4")
    root.driver(PROC_VERSION_580, [("0000:06:00.0", gpu)])
    root.venv("opt/pytorch").torch("2.7.0+cu126", "12.6", archs="sm_70 sm_80")
    assert "SC202" not in ids(report_of(root, matrix))


def test_cudnn_for_another_cuda_major(root: Root, matrix: Matrix) -> None:
    site = root.venv("opt/pytorch")
    site.torch("2.4.0+cu121", "12.1", archs="sm_80 sm_90")
    site.cudnn_wheel("9.1.0.70", 11)
    report = report_of(root, matrix)
    [finding] = [f for f in report.findings if f.id == "SC301"]
    assert "built for CUDA 11" in finding.message


def test_ld_library_path_shadows_a_runpath_torch(root: Root, matrix: Matrix) -> None:
    root.debian_loader()
    root.toolkit("12.4.1")
    root.elf("usr/local/cuda-12.4/lib64/libnccl.so.2.18.5", soname="libnccl.so.2")
    root.link("usr/local/cuda-12.4/lib64/libnccl.so.2", "libnccl.so.2.18.5")
    site = root.venv("opt/venv")
    site.nccl_wheel("2.21.5", 12)
    # A RUNPATH (not RPATH) torch: LD_LIBRARY_PATH is searched before it.
    site.root.elf(
        f"{site.rel}/torch/lib/libtorch_cuda.so",
        needed=["libnccl.so.2"],
        runpath="$ORIGIN/../../nvidia/nccl/lib",
    )
    site.root.write(f"{site.rel}/torch/version.py", "__version__ = '2.4.0+cu124'\ncuda = '12.4'\n")
    report = report_of(root, matrix, env={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64"})
    [finding] = [f for f in report.findings if f.id == "SC302"]
    assert "NCCL 2.18.5" in finding.message and "2.21.5" in finding.message
    # Without the variable, the wheel's NCCL wins: no finding.
    assert "SC302" not in ids(report_of(root, matrix))


def test_net_plugin_disabled_by_environment(root: Root, matrix: Matrix) -> None:
    scenarios.dlami_p5(root)
    report = report_of(root, matrix, env={"NCCL_NET_PLUGIN": "none"})
    [finding] = [f for f in report.findings if f.id == "SC401"]
    assert "NCCL_NET_PLUGIN=none" in finding.message


def test_net_plugin_dependency_missing(root: Root, matrix: Matrix) -> None:
    scenarios.dlami_p5(root)
    root.path.joinpath("opt/amazon/efa/lib/libfabric.so.1").unlink()
    report = report_of(root, matrix)
    [finding] = [f for f in report.findings if f.id == "SC402"]
    assert finding.severity is Severity.ERROR
    assert "libfabric.so.1" in finding.message


def test_no_efa_means_no_network_finding(root: Root, matrix: Matrix) -> None:
    root.driver(PROC_VERSION_580, h100_gpus(1))
    root.venv("opt/pytorch").torch("2.9.0+cu130", "13.0", archs=scenarios.NEW_ARCHS, cuda_major=13)
    assert not {"SC401", "SC402"} & ids(report_of(root, matrix))


def test_unknown_gpu_is_info_not_a_guess(root: Root, matrix: Matrix) -> None:
    gpu = V100_INFORMATION.replace("Tesla V100-SXM2-16GB", "NVIDIA H20")
    root.driver(PROC_VERSION_580, [("0000:06:00.0", gpu)])
    root.venv("opt/pytorch").torch("2.9.0+cu130", "13.0", archs=scenarios.NEW_ARCHS, cuda_major=13)
    report = report_of(root, matrix)
    assert [f.id for f in report.findings] == ["SC901"]
    assert "NVIDIA H20" in report.findings[0].message
