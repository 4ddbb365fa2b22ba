"""The matrix-driven rules (SC31x NCCL, SC32x cuDNN, SC45x aws-ofi-nccl / libfabric / EFA) on
stacks assembled from the versions real images publish."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Report, Severity
from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.probes import probe_root
from stackcheck.snapshot.model import Evidence, Observation
from tests.support import stacks
from tests.support.rootfs import Root

NEW_RULES = ("SC311", "SC312", "SC321", "SC322", "SC451", "SC452", "SC453", "SC454")
CU124_ARCHS = ["sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"]
CU128_ARCHS = ["sm_70", "sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]


def report_of(root: Root, matrix: Matrix) -> Report:
    return check(probe_root(str(root.path)), matrix)


def findings(report: Report, rule: str) -> list[Finding]:
    return [f for f in report.findings if f.id == rule]


def worse_than_info(report: Report) -> list[Finding]:
    return [f for f in report.findings if f.id in NEW_RULES and f.severity is not Severity.INFO]


def dlc_251(root: Root, matrix: Matrix, *, ofi: str = "1.12.1-aws", efa: str = "1.36.0") -> None:
    """The DLC PyTorch 2.5.1 training image's stack on a p5 host: CUDA 12.4.1, NCCL 2.23.4 built
    into /usr/local/lib, EFA installer 1.36.0 (libfabric 1.22.0), aws-ofi-nccl 1.12.1-aws built
    into /opt/aws-ofi-nccl; the versions are the matrix's own DLC entry."""
    [image] = [i for i in matrix.dlc if i.tag == "2.5.1-gpu-py311-cu124-ubuntu22.04-ec2"]
    assert (image.cuda, image.nccl, image.efa, image.ofi_nccl) == (
        "12.4.1",
        "2.23.4",
        "1.36.0",
        "1.12.1",
    )
    stacks.host(root)
    root.toolkit(image.cuda)
    stacks.system_nccl(root, image.nccl)
    stacks.efa_installer(root, efa, libfabric="1.22.0")
    stacks.ofi_plugin(root, ofi, directory="opt/aws-ofi-nccl/lib")
    stacks.torch_venv(root, "2.5.1+cu124", "12.4", CU124_ARCHS)


def test_the_dlc_251_stack_is_clean(root: Root, matrix: Matrix) -> None:
    dlc_251(root, matrix)
    report = report_of(root, matrix)
    assert worse_than_info(report) == []
    # Only advice: plugin leaks fixed in later releases, from aws-ofi-nccl's release notes.
    advice = findings(report, "SC452")
    assert advice and all(f.severity is Severity.INFO for f in advice)
    assert all("1.12.1-aws" in f.message for f in advice)


def test_ofi_nccl_1120_with_efa_135_or_newer(root: Root, matrix: Matrix) -> None:
    dlc_251(root, matrix, ofi="1.12.0-aws")
    [issue] = [f for f in findings(report_of(root, matrix), "SC452") if "VF" in f.message]
    assert issue.severity is Severity.WARNING
    assert "Upgrade aws-ofi-nccl to 1.12.1" in issue.fix
    assert any("efa_installed_packages" in e.source for e in issue.evidence)


def test_ofi_nccl_1120_with_an_older_efa_installer_is_fine(root: Root, matrix: Matrix) -> None:
    dlc_251(root, matrix, ofi="1.12.0-aws", efa="1.34.0")
    assert not [f for f in findings(report_of(root, matrix), "SC452") if "VF" in f.message]


def test_nccl_219_needs_efa_installer_129(root: Root, matrix: Matrix) -> None:
    """The DLC 2.1 image pins EFA 1.27.0 with NCCL 2.18.5 (fine); NCCL 2.21.5 (DLC 2.2's) over
    that installer raises libfabric errors."""
    stacks.host(root)
    stacks.efa_installer(root, "1.27.0", libfabric="1.18.2")
    stacks.ofi_plugin(root, "1.7.3-aws", directory="opt/aws-ofi-nccl/lib")
    stacks.system_nccl(root, "2.18.5")
    assert findings(report_of(root, matrix), "SC454") == []
    root.path.joinpath("usr/local/lib/libnccl.so.2.18.5").unlink()
    stacks.system_nccl(root, "2.21.5")
    [issue] = findings(report_of(root, matrix), "SC454")
    assert issue.severity is Severity.WARNING
    assert "EFA installer 1.27.0" in issue.message and "1.29.0" in issue.fix
    assert "FI_EFA_SET_CUDA_SYNC_MEMOPS=0" in issue.fix


def test_nccl_2193_on_hopper_has_the_nvls_tree_regression(root: Root, matrix: Matrix) -> None:
    """PyTorch 2.2's cu121 wheel pins nvidia-nccl-cu12 2.19.3."""
    stacks.host(root)
    stacks.torch_venv(root, "2.2.2+cu121", "12.1", CU124_ARCHS, nccl="2.19.3")
    [issue] = [f for f in findings(report_of(root, matrix), "SC311") if "NVLS" in f.message]
    assert issue.severity is Severity.WARNING
    assert "2.20.3" in issue.fix


def test_the_same_nccl_on_an_a10g_has_no_nvls_finding(root: Root, matrix: Matrix) -> None:
    stacks.host(root, instance="g5.48xlarge", gpus=stacks.gpus_named("NVIDIA A10G", 8))
    stacks.torch_venv(root, "2.2.2+cu121", "12.1", CU124_ARCHS, nccl="2.19.3")
    assert not [f for f in findings(report_of(root, matrix), "SC311") if "NVLS" in f.message]


def test_gb200_needs_nccl_2275(root: Root, matrix: Matrix) -> None:
    """PyTorch 2.7's cu128 wheel brings NCCL 2.26.2; GB200 support starts with 2.27.5."""
    stacks.host(root, instance="p6e-gb200.36xlarge", gpus=stacks.gpus_named("NVIDIA GB200", 4))
    stacks.torch_venv(root, "2.7.1+cu128", "12.8", CU128_ARCHS, nccl="2.26.2")
    [finding] = findings(report_of(root, matrix), "SC312")
    assert finding.severity is Severity.WARNING
    assert "NCCL 2.26.2" in finding.message and "2.27.5" in finding.message


@pytest.mark.parametrize(
    ("torch", "nccl", "flagged"),
    [("2.8.0+cu128", "2.27.3", True), ("2.9.0+cu128", "2.27.5", False)],
)
def test_gb200_support_starts_with_nccl_2275(
    root: Root, matrix: Matrix, torch: str, nccl: str, flagged: bool
) -> None:
    """The NCCL pins of PyTorch 2.8 (2.27.3) and 2.9 (2.27.5) cu128 wheels on GB200."""
    stacks.host(root, instance="p6e-gb200.36xlarge", gpus=stacks.gpus_named("NVIDIA GB200", 4))
    stacks.torch_venv(root, torch, "12.8", CU128_ARCHS, nccl=nccl)
    assert bool(findings(report_of(root, matrix), "SC312")) is flagged


def test_cudnn_917_does_not_support_volta(root: Root, matrix: Matrix) -> None:
    """PyTorch 2.11's cu128 wheel pins cuDNN 9.17.1.4, whose builds start at 7.5."""
    stacks.host(root, instance="p3.16xlarge", gpus=stacks.gpus_named("Tesla V100-SXM2-16GB", 8))
    archs = ["sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"]
    stacks.torch_venv(root, "2.11.0+cu128", "12.8", archs, nccl="2.28.9", cudnn="9.17.1.4")
    report = report_of(root, matrix)
    [finding] = findings(report, "SC321")
    assert finding.severity is Severity.ERROR
    assert "is 7.0" in finding.message and "7.5" in finding.message


def test_cudnn_9102_on_blackwell_needs_driver_570(root: Root, matrix: Matrix) -> None:
    """PyTorch 2.8's cu128 wheel (cuDNN 9.10.2.21) on a B200 with driver R535: CUDA 12.8 runs by
    minor-version compatibility, but cuDNN has Blackwell kernels only in a build needing 570.26."""
    stacks.host(
        root,
        instance="p6-b200.48xlarge",
        driver="535.161.07",
        gpus=stacks.gpus_named("NVIDIA B200", 8),
    )
    stacks.torch_venv(root, "2.8.0+cu128", "12.8", CU128_ARCHS, nccl="2.27.3", cudnn="9.10.2.21")
    report = report_of(root, matrix)
    [finding] = findings(report, "SC322")
    assert finding.severity is Severity.ERROR
    assert "driver >= 570.26" in finding.message and "535.161.07" in finding.message
    assert findings(report, "SC321") == []
    # The driver does run CUDA 12; SC101 speaks only of the GPU, which R535 predates (B200's
    # first CUDA, 12.8, needs 570.26).
    assert [f.severity for f in findings(report, "SC101")] == [Severity.WARNING]
    assert all("predates the GPU" in f.message for f in findings(report, "SC101"))


def test_nccl_below_the_plugins_floor(root: Root, matrix: Matrix) -> None:
    """DLC 2.0.1 (cu118) builds NCCL 2.16.2; aws-ofi-nccl 1.13.2 supports NCCL >= 2.17.1."""
    stacks.host(root)
    stacks.efa_installer(root, "1.38.1", libfabric="1.22.0")
    stacks.ofi_plugin(root, "1.13.2-aws")
    stacks.system_nccl(root, "2.16.2")
    [finding] = findings(report_of(root, matrix), "SC451")
    assert finding.severity is Severity.ERROR
    assert "older than aws-ofi-nccl 1.13.2-aws supports (NCCL >= 2.17.1)" in finding.message


def test_a_plugin_without_a_net_api_nccl_loads(root: Root, matrix: Matrix) -> None:
    """aws-ofi-nccl 1.4.0 built against NCCL 2.12 exports ncclNetPlugin_v5; NCCL 2.26.2 loads
    v6-v10 (its src/plugin/net.cc). The plugin's entry is unsure, so this is a warning."""
    stacks.host(root)
    stacks.efa_installer(root, "1.38.1", libfabric="1.22.0")
    stacks.ofi_plugin(root, "1.4.0")
    stacks.system_nccl(root, "2.26.2")
    [finding] = findings(report_of(root, matrix), "SC451")
    assert "loads net plugin API v6-v10" in finding.message and "exports v5" in finding.message
    assert finding.severity is Severity.WARNING


@pytest.mark.real_artifacts
def test_debian_libfabric_is_too_old_for_the_plugin(
    root: Root, matrix: Matrix, artifacts: Path
) -> None:
    """Debian 12's real libfabric1 (1.17.0) under aws-ofi-nccl 1.9.1 (requires 1.18.0)."""
    [deb] = list((artifacts / "debs").glob("libfabric1_*.deb"))
    subprocess.run(["dpkg-deb", "-x", str(deb), str(root.path)], check=True, timeout=60)
    stacks.host(root)
    stacks.ofi_plugin(root, "1.9.1-aws")
    stacks.system_nccl(root, "2.21.5")
    [finding] = findings(report_of(root, matrix), "SC453")
    assert "requires libfabric >= 1.18.0" in finding.message and "1.17.0" in finding.message
    assert finding.severity is Severity.ERROR  # a p5: NCCL falls back from EFA to sockets


def test_an_issue_is_never_reported_on_a_guess(root: Root, matrix: Matrix) -> None:
    """Conditions that cannot be checked (no GPU found, no EFA installer record) keep issues
    quiet: NCCL 2.19.3 alone reports neither the Hopper nor the EFA issue."""
    root.debian_loader()
    stacks.system_nccl(root, "2.19.3")
    report = report_of(root, matrix)
    assert findings(report, "SC311") == [] and findings(report, "SC454") == []


def test_behaviours_are_shown_by_the_matrix_not_reported(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    behaviours = [i for i, _ in index.known_issues(matrix.nccl) if i.kind == "behaviour"]
    assert any("NVLS" in i.summary for i in behaviours)


def test_a_known_issue_cites_the_observation_that_matched(root: Root, matrix: Matrix) -> None:
    """aws-ofi-nccl 1.7.1 dlopens libcudart.so; of two plugin failures printed, only the second
    names it, and that one is the evidence."""
    stacks.host(root)
    stacks.efa_installer(root, "1.38.1", libfabric="1.22.0")
    stacks.ofi_plugin(root, "1.7.1-aws")
    stacks.system_nccl(root, "2.18.3")
    snapshot = probe_root(str(root.path))
    lines = ["libefa lacks EFA_1.2 that libfabric needs", "cannot open libcudart.so"]
    snapshot.observed.extend(
        Observation(
            kind="net-plugin-failed",
            value=value,
            evidence=Evidence(kind="text", source="nccl.log", line=number),
        )
        for number, value in enumerate(lines, 1)
    )
    [finding] = [f for f in findings(check(snapshot, matrix), "SC452") if "libcudart" in f.message]
    cited = [e for e in finding.evidence if e.source == "nccl.log"]
    assert [e.line for e in cited] == [2]
