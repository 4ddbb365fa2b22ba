"""The sixteenth pass's readings on the fabric manager, GPUDirect RDMA, NVLink, GPU visibility
and /dev/shm, on shapes of text beyond the corpus reports they were written for (each cited)."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings

_HOOK = "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown\n"


def test_the_fabric_manager_start_timing_out_is_read(matrix: Matrix) -> None:
    """aws-parallelcluster#6571: Chef's service resource giving up on nvidia-fabricmanager; the
    same hang as systemd logs it."""
    chef = (
        "service[nvidia-fabricmanager] (aws-parallelcluster-platform::nvidia_config line 35) had "
        "an error: Mixlib::ShellOut::CommandTimeout: Command timed out after 900s:\n"
    )
    systemd = (
        "Jan 02 10:00:01 node1 systemd[1]: nvidia-fabricmanager.service: Start operation timed "
        "out. Terminating.\n"
    )
    older = systemd.replace("Start", "start")  # systemd before v246 (lower-case job type)
    for text in (chef, systemd, older):
        assert "SC521" in findings(matrix, text), text
    assert "SC521" not in findings(matrix, "service[nvidia-persistenced] had an error: x\n")


def test_ucx_shared_memory_fifo_failing_is_shm_exhausted(matrix: Matrix) -> None:
    """NVIDIA/ai-cloud-validation#643: UCX's mm transport cannot allocate its FIFO in a pod's
    64Mi /dev/shm."""
    text = (
        "[1700000000.1] [node:42:0] mm_iface.c:818 UCX ERROR mm_iface failed to allocate "
        "receive FIFO\n"
    )
    assert findings(matrix, text).get("SC502") is Severity.ERROR


def test_every_gpu_hidden_on_purpose_is_named(matrix: Matrix) -> None:
    """dmlc/xgboost#3953: `CUDA_VISIBLE_DEVICES= python ...` then "no CUDA-capable device is
    detected": the process was told to see none, so the finding names the setting (a warning,
    not the error of a missing GPU). The same in other spellings; a GPU named is no such
    setting."""
    failure = "common.cu: 13: no CUDA-capable device is detected\n"
    for setting in (
        "CUDA_VISIBLE_DEVICES= python train.py",
        'CUDA_VISIBLE_DEVICES="" python train.py',
        "CUDA_VISIBLE_DEVICES=-1 python train.py",
        'os.environ["CUDA_VISIBLE_DEVICES"] = "-1"',
    ):
        report = check(read_report(setting + "\n" + failure, "pasted").snapshot, matrix)
        (finding,) = [f for f in report.findings if f.id == "SC532"]
        assert finding.severity is Severity.WARNING, setting
        assert "CUDA_VISIBLE_DEVICES" in finding.message, setting
    other = "CUDA_VISIBLE_DEVICES=0 python train.py\n" + failure
    assert findings(matrix, other).get("SC532") is Severity.ERROR


def test_the_toolkit_hook_on_a_machine_said_to_have_no_gpu_is_advice(matrix: Matrix) -> None:
    """dstack#1080: a run placed on an instance without a GPU, where the container toolkit's
    hook then finds no driver: a scheduling slip, not a stack that lost its GPUs; and no
    'started without a GPU request' (the hook runs only for a container given GPUs)."""
    said = "Submit a run to the cloud without GPU.\n"
    found = findings(matrix, said + _HOOK)
    assert found.get("SC532") is Severity.INFO
    assert "SC531" not in found
    # Without the reporter's word the hook's failure keeps its error.
    assert findings(matrix, _HOOK).get("SC532") is Severity.ERROR


def test_a_pod_without_the_nvidia_runtime_class_is_gpu_visibility(matrix: Matrix) -> None:
    """NVIDIA/gpu-operator#1017: the sample pod without `runtimeClassName: nvidia` on a node
    whose default runtime is runc gets no driver, and CUDA's error 35 then says nothing of the
    driver's age: SC531 warns, SC101 is advice. Other phrasings read the same; a question or a
    condition does not."""
    error = (
        "Failed to allocate device vector A (error code CUDA driver version is insufficient for "
        "CUDA runtime version)!\n"
    )
    for said in (
        "The default runtime class is not set to the `nvidia`.",
        "The pod was started without runtimeClassName, so runc ran it.",
        "runtimeClassName was not set in the chart.",
        "Our default container runtime isn't nvidia.",
    ):
        found = findings(matrix, said + "\n" + error)
        assert found.get("SC531") is Severity.WARNING, said
        assert found.get("SC101") is Severity.INFO, said
    for other in ("Is the runtimeClassName not set?", "If runtimeClassName is not set, it fails."):
        assert "SC531" not in findings(matrix, other + "\n"), other
    assert findings(matrix, error).get("SC101") is Severity.ERROR


_MIG = (
    "CUDA_VISIBLE_DEVICES=MIG-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9,"
    "MIG-877ee044-c0f3-54bf-bb04-ef9353d2094c python train.py\n"
)


def test_several_mig_devices_for_one_process(matrix: Matrix) -> None:
    """jax#15843: a CUDA process enumerates one MIG device however many its list names (MIG
    User Guide); a warning where the report says it saw one device, advice for the list alone
    (pytorch#92315 shows it on purpose). The older MIG-GPU-<uuid>/<gi>/<ci> form too."""
    said = "Jax is only seeing a single device.\n"
    assert findings(matrix, _MIG + said).get("SC1121") is Severity.WARNING
    assert findings(matrix, _MIG).get("SC1121") is Severity.INFO
    old = (
        "CUDA_VISIBLE_DEVICES=MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/7/0,"
        "MIG-GPU-5c89852c-d268-c3f3-1b07-005d5ae1dc3f/8/0\n"
    )
    assert findings(matrix, old + said).get("SC1121") is Severity.WARNING
    one = "CUDA_VISIBLE_DEVICES=MIG-ff9ad03d-6c8b-5f72-b0dc-70b79aef1bd9 python train.py\n"
    assert findings(matrix, one + said).get("SC1121") is not Severity.WARNING
