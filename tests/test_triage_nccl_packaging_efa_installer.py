"""Triage of NCCL named by its package (issue forms, apt pins, .deb files, dpkg lines) and of the
EFA installer named by its tarball or a cluster's `efa_version` setting, and the known packaging
faults those readings make visible (libnccl2 2.29.2's .deb, EFA installer 1.41.0's peermem)."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Finding
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName


def findings(matrix: Matrix, text: str) -> dict[str, Finding]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f for f in report.findings}


def nccl(text: str) -> list[tuple[str, str | None]]:
    snapshot = read_report(text, "pasted").snapshot
    return [(i.version, i.cuda) for i in snapshot.installations(ComponentName.NCCL)]


def efa_installer(text: str) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [i.version for i in snapshot.installations(ComponentName.EFA_INSTALLER)]


@pytest.mark.parametrize(
    ("answer", "version", "cuda"),
    [
        ("libnccl2=2.29.2-1+cuda12.9", "2.29.2", "12.9"),  # NVIDIA/nccl#1991: apt's pin
        ("libnccl2 2.21.5-1+cuda12.4", "2.21.5", "12.4"),  # dpkg's name and version
        ("libnccl-2.21.5-1+cuda12.4", "2.21.5", "12.4"),  # an RPM's name
        ("nvidia-nccl-cu12==2.26.2", "2.26.2", None),  # pip's pin
        ("NCCL version 2.18.3", "2.18.3", None),
        ("`2.27.5+cuda12.4`", "2.27.5", "12.4"),
    ],
)
def test_the_issue_forms_nccl_version_answer_may_name_the_package(
    answer: str, version: str, cuda: str | None
) -> None:
    text = f"### NCCL Version\n\n{answer}\n\n### Your platform details\n\nUbuntu 24.04 docker.\n"
    assert nccl(text) == [(version, cuda)]


def test_libnccl2_2292_deb_without_ldconfig_is_a_known_issue(matrix: Matrix) -> None:
    # NVIDIA/nccl#1991 (the report's own lines): the .deb, apt's pin and the issue form.
    text = """\
This is a bug in the prebuilt mccl packages for Ubuntu 24.04:
- https://developer.download.nvidia.com/compute/cuda/repos/ubuntu2404/x86_64/libnccl2_2.29.2-1+cuda12.9_amd64.deb

### NCCL Version

libnccl2=2.29.2-1+cuda12.9
"""
    found = findings(matrix, text)
    assert "SC311" in found
    assert "ldconfig" in found["SC311"].message
    # The same NCCL from a pip wheel is not that package: no packaging issue.
    wheel = "### NCCL Version\n\nnvidia-nccl-cu12==2.29.2\n"
    assert "SC311" not in findings(matrix, wheel)
    # A fixed package of the same line is quiet.
    fixed = text.replace("2.29.2-1", "2.29.3-1")
    assert "SC311" not in findings(matrix, fixed)


def test_a_dpkg_line_of_libnccl2_names_the_deb() -> None:
    line = "ii  libnccl2  2.29.2-1+cuda12.9  amd64  NVIDIA Collective Communication Library\n"
    snapshot = read_report(line, "pasted").snapshot
    assert [o.value for o in snapshot.observations("nccl-deb")] == ["2.29.2"]


@pytest.mark.parametrize(
    ("line", "version"),
    [
        # aws/aws-parallelcluster-cookbook#458 (sean-smith, comment 2019-12-09)
        (
            "curl -O https://s3-us-west-2.amazonaws.com/aws-efa-installer/"
            "aws-efa-installer-1.7.1.tar.gz",
            "1.7.1",
        ),
        ("tar -xf aws-efa-installer-1.30.0.tar.gz && cd aws-efa-installer", "1.30.0"),
        # aws/aws-parallelcluster#6861: the cookbook's setting, in prose and as YAML
        ("3.13.1 installs `efa_version` `1.41.0`, which is still on the 1.1.1 RPM", "1.41.0"),
        ("efa_version: '1.38.1'", "1.38.1"),
        ('efa_version = "1.47.0"', "1.47.0"),
    ],
)
def test_the_efa_installer_named_by_its_tarball_or_setting(line: str, version: str) -> None:
    assert efa_installer(line + "\n") == [version]


def test_the_latest_tarball_names_no_efa_installer() -> None:
    line = "curl -O https://efa-installer.amazonaws.com/aws-efa-installer-latest.tar.gz\n"
    assert efa_installer(line) == []


def test_efa_installer_1410_peermem_breaks_dkms_kernel_installs_on_rocky9(matrix: Matrix) -> None:
    # aws/aws-parallelcluster#6861 (nyetsche, description).
    text = """\
The bad news is that just released 3.13.1 installs `efa_version` `1.41.0`, which is still on the \
1.1.1 RPM (ex: `aws-efa-installer/RPMS/ROCKYLINUX9/x86_64/efa-nv-peermem-1.1.1-1.el9.x86_64.rpm`).
"""
    found = findings(matrix, text)
    assert "SC454" in found
    assert "initramfs" in found["SC454"].message
    # Another OS (no DKMS 3.1.4 kernel install named) or another installer: quiet.
    ubuntu = "We install `efa_version` `1.41.0` on Ubuntu 22.04 nodes with EFA.\n"
    assert "SC454" not in findings(matrix, ubuntu)
    assert "SC454" not in findings(matrix, text.replace("1.41.0", "1.42.0"))


@pytest.mark.parametrize(
    ("line", "version"),
    [
        # DeepSpeed#3360: the op builder's JIT build line
        (
            "/usr/local/cuda-12.1/bin/nvcc  -DTORCH_EXTENSION_NAME=transformer_inference "
            "-I/usr/lib/python3.7/site-packages/deepspeed/ops/csrc/includes -c x.cu",
            "12.1",
        ),
        # PyTorch cpp_extension's ninja line
        ("[1/3] /usr/local/cuda-11.8/bin/nvcc --generate-dependencies-with-compile", "11.8"),
        (
            '"C:\\Program Files\\NVIDIA GPU Computing Toolkit\\CUDA\\v11.8\\bin\\nvcc" '
            "-gencode=arch=compute_86,code=sm_86",
            "11.8",
        ),
        # NVlabs/instant-ngp#923: CMake's compiler identification
        ("-- The CUDA compiler identification is NVIDIA 10.2.89", "10.2.89"),
        # ollama/ollama#2040: FindCUDAToolkit; FindCUDA's older line, with a minimum
        (
            "-- Found CUDAToolkit: C:/Program Files/NVIDIA GPU Computing Toolkit/CUDA/v11.3/"
            'include (found version "11.3.109") ',
            "11.3.109",
        ),
        (
            '-- Found CUDA: /usr/local/cuda (found suitable version "11.8", minimum required '
            'is "9.0")',
            "11.8",
        ),
    ],
)
def test_a_build_log_names_the_cuda_toolkit_it_compiles_with(line: str, version: str) -> None:
    snapshot = read_report(line + "\n", "pasted").snapshot
    assert [i.version for i in snapshot.installations(ComponentName.CUDA_TOOLKIT)] == [version]


def test_cmake_that_could_not_identify_nvcc_names_no_toolkit() -> None:
    snapshot = read_report("-- The CUDA compiler identification is unknown\n", "pasted").snapshot
    assert snapshot.installations(ComponentName.CUDA_TOOLKIT) == []


@pytest.mark.parametrize(
    ("line", "value"),
    [
        # XLA's form (tensorflow/tensorflow@052b9e516561e02fc7995ac9097a4d6e275d4d0d:
        # third_party/xla/xla/service/gpu/runtime/nccl_api.cc, ToStatus), as JAX raises it
        (
            "jaxlib.xla_extension.XlaRuntimeError: INTERNAL: external/xla/xla/service/gpu/"
            "nccl_utils.cc:275: NCCL operation ncclCommInitRank(&comm, nranks, id, rank) "
            "failed: unhandled cuda error",
            "ncclCommInitRank: unhandled cuda error",
        ),
        (
            "external/xla/xla/service/gpu/runtime/nccl_api.cc:485: NCCL operation ncclGroupEnd() "
            "failed: unhandled system error (run with NCCL_DEBUG=INFO for details). Last NCCL "
            "warning(error) log entry (may be unrelated) 'socketTryAccept: Accept failed'.",
            "ncclGroupEnd: unhandled system error",
        ),
        # Horovod's NCCLContext::ErrorCheck; horovod/horovod#2259's quoted result
        (
            "[1,0]<stderr>:horovod.common.exceptions.HorovodInternalError: ncclAllReduce failed: "
            "unhandled cuda error",
            "ncclAllReduce: unhandled cuda error",
        ),
        (
            "3. Half the ranks -> `ncclCommInitRank failed: invalid usage`",
            "ncclCommInitRank: invalid usage",
        ),
    ],
)
def test_an_nccl_call_named_with_its_failure_is_a_failed_collective(line: str, value: str) -> None:
    snapshot = read_report(line + "\n", "pasted").snapshot
    assert [o.value for o in snapshot.observations("collective-failed")] == [value]


def test_xla_without_an_nccl_library_says_libnccl_is_missing() -> None:
    # XLA's NCCL stub (tsl/cuda/nccl_stub.cc, ReturnErrorString) answers every error string so.
    line = (
        "INTERNAL: external/xla/xla/service/gpu/nccl_utils.cc:133: NCCL operation "
        "ncclGetUniqueId(&id) failed: Unable to load NCCL library. Multi-GPU collectives will "
        "not work.\n"
    )
    snapshot = read_report(line, "pasted").snapshot
    assert [o.value for o in snapshot.observations("library-missing")] == ["libnccl.so.2"]
    assert snapshot.observations("collective-failed") == []


def test_nccl_before_220_on_a_usb_nic_is_a_known_issue(matrix: Matrix) -> None:
    # pytorch/pytorch#113245: NCCL 2.18.5 bootstrapping on a USB NIC (systemd's enx<MAC> name).
    log = """\
host:2311505:2311505 [0] NCCL INFO Bootstrap : Using enxb03af2b6059f:169.254.3.1<0>
NCCL version 2.18.5+cuda11.8
"""
    found = findings(matrix, log)
    assert "SC311" in found and "USB" in found["SC311"].message
    # NCCL's own failure on such a NIC says the same, without the interface's name.
    failed = "NCCL WARN Attribute busid of node nic not found\nNCCL version 2.19.3+cuda12.3\n"
    assert "USB" in findings(matrix, failed)["SC311"].message
    # 2.20 handles it; a PCI NIC (ens, eth, ib) is no such device.
    newer = findings(matrix, log.replace("2.18.5", "2.21.5"))
    assert "SC311" not in newer or "USB" not in newer["SC311"].message
    pci = log.replace("enxb03af2b6059f", "ens5f0")
    assert "nccl-nic-without-pci" not in {
        o.kind for o in read_report(pci, "pasted").snapshot.observations()
    }


@pytest.mark.parametrize(
    ("line", "component", "version"),
    [
        # rpm -qa on an EFA node (the installer's RPMS tree: libfabric-aws, libnccl-ofi)
        (
            "libfabric-aws-1.22.0amzn4.0-1.amzn2023.x86_64",
            ComponentName.LIBFABRIC,
            "1.22.0amzn4.0",
        ),
        ("libnccl-ofi-1.13.2-1.amzn2023.x86_64", ComponentName.OFI_NCCL, "1.13.2"),
        (
            "ii  libfabric-aws  1.22.0amzn4.0-1  amd64  libfabric",
            ComponentName.LIBFABRIC,
            "1.22.0amzn4.0",
        ),
        ("libnccl2/unknown,now 2.29.2-1+cuda12.9 amd64 [installed]", ComponentName.NCCL, "2.29.2"),
    ],
)
def test_package_listings_name_the_efa_installers_parts(
    line: str, component: ComponentName, version: str
) -> None:
    snapshot = read_report(line + "\n", "pasted").snapshot
    found = [i.version for i in snapshot.installations(component)]
    assert found == [version]


def test_upstream_libfabric_is_not_the_efa_installers() -> None:
    # Ubuntu's libfabric1 comes with Open MPI on any machine: no EFA libfabric to check.
    line = "ii  libfabric1  1.17.0-3  amd64  libfabric communication library\n"
    assert read_report(line, "pasted").snapshot.installations(ComponentName.LIBFABRIC) == []


def test_apt_lists_libnccl2_as_the_deb() -> None:
    line = "libnccl2/unknown,now 2.29.2-1+cuda12.9 amd64 [installed]\n"
    snapshot = read_report(line, "pasted").snapshot
    assert [o.value for o in snapshot.observations("nccl-deb")] == ["2.29.2"]
