"""Triage of what reports say about NCCL's results and copies, GPUDirect RDMA and the fabric
manager's version, independent of the report corpus. Every line is copied from the public thread
named beside it (read 2026-12-03); a sentence written here to show what is *not* read says so."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName


def findings(matrix: Matrix, text: str) -> dict[str, Finding]:
    report = check(read_report(text, "pasted").snapshot, matrix)
    return {f.id: f for f in report.findings}


def observed(text: str, kind: str) -> list[str]:
    snapshot = read_report(text, "pasted").snapshot
    return [o.value or "" for o in snapshot.observations(kind)]  # type: ignore[arg-type]


def quiet(matrix: Matrix, texts: tuple[str, ...]) -> None:
    """None of these texts gives a warning or an error."""
    for text in texts:
        loud = [f.id for f in findings(matrix, text).values() if f.severity >= Severity.WARNING]
        assert not loud, (text, loud)


# MiaAI-Lab/DeepSeek-v4.1-Flash-DGX-Sparks#10: an NCCL result quoted in a launcher's bug report.
INVALID_USAGE = "[rank1]: NCCL error ... invalid usage ... ncclCommInitRank\n"
# Lightning-AI/pytorch-lightning#8139 (healthy: a Lightning barrier bug): PyTorch 1.8's form.
SYSTEM_ERROR = (
    "RuntimeError: NCCL error in: /opt/conda/conda-bld/pytorch_1614378062065/…/torch/lib/c10d/"
    "ProcessGroupNCCL.cpp:825, unhandled system error, NCCL version 2.7.8\n"
)
# vllm-project/production-stack#276: PyTorch 2.x adds NCCL 2.13's hint to the string.
SYSTEM_ERROR_HINT = (
    "torch.distributed.DistBackendError: NCCL error in: ../torch/csrc/distributed/c10d/NCCLUtils"
    ".hpp:317, unhandled system error (run with NCCL_DEBUG=INFO for details), NCCL version 2.21.5\n"
)


def test_nccl_result_strings_are_read_and_alone_name_no_layer(matrix: Matrix) -> None:
    assert observed(INVALID_USAGE, "collective-failed") == ["invalid usage"]
    assert observed(SYSTEM_ERROR, "collective-failed") == ["unhandled system error"]
    assert observed(SYSTEM_ERROR_HINT, "collective-failed") == ["unhandled system error"]
    quiet(matrix, (INVALID_USAGE, SYSTEM_ERROR, SYSTEM_ERROR_HINT))


# pytorch/pytorch#42517 (sjeaugey): NCCL linked statically into a second library of torch.
LINKED_TWICE = (
    "When we enable alltoall, it seems we link NCCL statically in libtorch_python.so. So far, "
    "NCCL was only in libtorch_cuda.so. \n"
)


def test_a_report_saying_nccl_is_in_two_libraries_is_two_copies(matrix: Matrix) -> None:
    found = findings(matrix, LINKED_TWICE)["SC302"]
    assert found.severity is Severity.WARNING
    assert "two NCCL copies in one process" in found.message
    # Other phrasings of the same statement (written here), and questions that are not one.
    for said in (
        "We found two copies of NCCL in the process.\n",
        "NCCL is linked statically into both libtorch_cuda.so and libtorch_python.so.\n",
        "It turns out NCCL was loaded twice.\n",
        "So two versions of NCCL are loaded in one process.\n",
    ):
        assert "SC302" in findings(matrix, said), said
    for asked in (
        "Could there be two copies of NCCL?\n",
        "To verify whether NCCL is duplicated or not, run nm on both libraries.\n",
        "Make sure there are not two copies of NCCL on the path.\n",
        "I tried two versions of NCCL, 2.18 and 2.19: both hang.\n",
    ):
        assert "SC302" not in findings(matrix, asked), asked


# NVIDIA/nccl-tests#29: the fix that doubled inter-node all-reduce bandwidth.
GDR_ENABLED_FIX = (
    "- I enable the GPU Direct RDMA and the performance doubled, which I think is very awesome.\n"
)


def test_a_report_saying_gdr_was_off_is_gdr_not_used(matrix: Matrix) -> None:
    found = findings(matrix, GDR_ENABLED_FIX)["SC431"]
    assert found.severity is Severity.WARNING
    for said in (  # written here: the plain statements of the same fact
        "GPUDirect RDMA is not enabled on our IB nodes.\n",
        "It seems GDR was disabled on the workers.\n",
    ):
        assert "SC431" in findings(matrix, said), said
    # NVIDIA/nccl-tests#252: a shell line that prints either answer states neither.
    probe = (
        '$ test -e /sys/kernel/mm/memory_peers/nv_mem/version && echo "GDR is enabled" || echo '
        '"GDR is not enabled"\n'
    )
    quiet(
        matrix,
        (
            probe,
            "Make sure GPUDirect RDMA is enabled.\n",  # written here: advice, not a state
            "GPUDirect RDMA is enabled and working.\n",  # written here
        ),
    )


# dstackai/dstack#2355: a package pin let the driver outrun the fabric manager (wrapped prose).
FM_PINNED = """\
This could lead to a version mismatch when a newer
driver version is installed while Fabric Manager
is pinned to an older version.
"""


def test_a_report_saying_fabric_manager_and_driver_differ(matrix: Matrix) -> None:
    found = findings(matrix, FM_PINNED)["SC522"]
    assert found.severity is Severity.ERROR
    assert "stated: version mismatch" in found.message
    said = "nvidia-fabricmanager 535.154.05 does not match the 535.183.01 driver.\n"  # written here
    assert "SC522" in findings(matrix, said)
    quiet(
        matrix,
        (
            "Make sure the fabric manager version matches the driver version.\n",  # written here
            "Check whether there is a version mismatch between driver and fabric manager.\n",
        ),
    )


# horovod/horovod#2601: NCCL 2.8.3's alltoall hang, fixed in 2.8.4.
HOROVOD = """\
6. NCCL version: 2.8.3-1+cuda11.0
Our custom TensorFlow code that makes use of `hvd.alltoall()` and `hvd.allreduce()` tends to hang \
indefinitely in one of the first training steps, we can reproduce it easily running on four local \
GPUs.
"""


def test_an_alltoall_hang_on_nccl_283_is_its_known_issue(matrix: Matrix) -> None:
    found = findings(matrix, HOROVOD)["SC311"]
    assert found.severity is Severity.WARNING
    assert "2.8.4" in found.message
    # The fixed release, and a hang in another collective on the same release, are not it.
    assert "SC311" not in findings(matrix, HOROVOD.replace("2.8.3-1", "2.8.4-1"))
    other = HOROVOD.replace("`hvd.alltoall()` and ", "")
    assert "SC311" not in findings(matrix, other)


# cupy/cupy#8354: CuPy's wheel preloads its pinned NCCL; the report says what that breaks.
CUPY_PRELOAD = """\
       480:	find library=libnccl.so.2.16.2 [0]; searching
This causes issues when using other packages that requires a different version of NCCL. \
See relevant discussion [here](https://github.com/rapidsai/cugraph/issues/4465).
"""


def test_a_preloaded_nccl_that_another_package_cannot_use_warns(matrix: Matrix) -> None:
    warned = [
        f
        for f in check(read_report(CUPY_PRELOAD, "pasted").snapshot, matrix).findings
        if f.id == "SC302" and f.severity is Severity.WARNING
    ]
    assert warned and "needs another NCCL" in warned[0].message
    # The preload alone stays advice; a question, or no conflict, says nothing (written here).
    alone = CUPY_PRELOAD.splitlines()[0] + "\n"
    assert findings(matrix, alone)["SC302"].severity is Severity.INFO
    for text in (
        "Does torch require a different version of NCCL?\n",
        "There is no NCCL version conflict here.\n",
    ):
        assert "SC302" not in findings(matrix, text), text


# ubuntuforums.org/showthread.php?t=2494273 (MAFoElffen, 2024-01-11): apt names the upgrade in
# the bracket; the line is still an installed package.
APT_UPGRADABLE = (
    "nvidia-driver-535/jammy-security,now 535.129.03-0ubuntu0.22.04.1 amd64 "
    "[installed,upgradable to: 535.146.02-0ubuntu0.22.04.1]\n"
)


def test_apt_list_reads_an_installed_package_that_has_an_upgrade() -> None:
    snapshot = read_report("Listing... Done\n" + APT_UPGRADABLE, "pasted").snapshot
    drivers = snapshot.installations(ComponentName.DRIVER)
    assert [d.version for d in drivers] == ["535.129.03"]


def test_the_fabric_manager_rpm_of_rhel_and_amazon_linux_is_read(matrix: Matrix) -> None:
    # Written here from the package names NVIDIA/yum-packaging-fabric-manager builds and AWS
    # ParallelCluster's cookbook installs (nvidia-fabric-manager-<version>-1.x86_64 on RHEL,
    # CentOS 7, Amazon Linux 2), as `rpm -qa` prints them beside the driver's.
    listing = (
        "nvidia-driver-cuda-550.127.05-1.el8.x86_64\nnvidia-fabric-manager-550.90.07-1.x86_64\n"
    )
    found = findings(matrix, listing)["SC522"]
    assert "550.90.07" in found.message and "550.127.05" in found.message
    same = listing.replace("550.90.07", "550.127.05")
    assert "SC522" not in findings(matrix, same)


def test_other_phrasings_of_gdr_off_and_a_fabric_manager_mismatch(matrix: Matrix) -> None:
    # Written here: the same facts as other reports put them, in English and in Chinese.
    for text, rule_id in (
        ("The driver and fabric manager versions differ after the upgrade.\n", "SC522"),
        ("fabricmanager version mismatch with the new driver\n", "SC522"),
        ("升级后 fabricmanager 版本与驱动版本不一致\n", "SC522"),
        ("排查后发现 GDR 未开启，带宽只有一半\n", "SC431"),  # noqa: RUF001
    ):
        assert rule_id in findings(matrix, text), text
    asked = "GDR 是否未开启？\n"  # noqa: RUF001
    quiet(matrix, ("请确保 fabricmanager 版本与驱动版本一致\n", asked))


def test_an_alltoall_hang_on_nccl_2_12_to_2_18_0_is_the_alltoallv_fix_of_2_18_1(
    matrix: Matrix,
) -> None:
    # The horovod#2601 lines with the NCCL of NVIDIA/nccl#788's report (2.16.5) written in.
    on_2165 = HOROVOD.replace("2.8.3-1+cuda11.0", "2.16.5-1+cuda11.8")
    found = findings(matrix, on_2165)["SC311"]
    assert "2.18.1" in found.message
    assert "SC311" not in findings(matrix, HOROVOD.replace("2.8.3-1+cuda11.0", "2.18.1-1+cuda12.1"))


def test_a_hang_on_h100_with_nccl_2_15_1_is_the_ll128_hang_2_15_5_worked_around(
    matrix: Matrix,
) -> None:
    # Written here: NCCL's own version line, an H100 as nvidia-smi -L names it, and a hang.
    text = (
        "host:1:1 [0] NCCL INFO NCCL version 2.15.1+cuda11.8\n"
        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-6d2c2d2a-1b7c-4a0e-9a57-0e6c5c0f1a11)\n"
        "The job hangs after the first all-reduce.\n"
    )
    assert any("2.15.5" in f.message for f in sc311(matrix, text))
    on_a100 = text.replace("H100 80GB HBM3", "A100-SXM4-80GB")
    assert not any("2.15.5" in f.message for f in sc311(matrix, on_a100))


def sc311(matrix: Matrix, text: str) -> list[Finding]:
    """Every known issue SC311 reports (one finding each)."""
    report = check(read_report(text, "pasted").snapshot, matrix)
    return [f for f in report.findings if f.id == "SC311"]


# orimanabu/zenndocs articles/try-rhel-with-nvidia-gpu.md (p5.48xlarge on RHEL 9): the fabric's
# section of `nvidia-smi -q`, alone, before and after the fabric manager was started.
FABRIC_GREP = """\
$ nvidia-smi -q -i 0 | grep -A 2 '^ *Fabric'
    Fabric
        State                             : In Progress
        Status                            : N/A
"""


def test_the_fabric_section_of_nvidia_smi_q_is_read_alone(matrix: Matrix) -> None:
    found = findings(matrix, FABRIC_GREP)["SC521"]
    assert "In Progress" in found.message
    done = FABRIC_GREP.replace("In Progress", "Completed").replace("N/A", "Success")
    assert observed(done, "fabric-state") == ["Completed"]
    assert "SC521" not in findings(matrix, done)
