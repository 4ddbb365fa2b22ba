"""The thirteenth pass's readings on the CPU-only boundary of GPU visibility (SC532) and of
RDMA's 'Cannot allocate memory' (SC512), on shapes of text beyond the corpus reports they were
written for (each cited)."""

from __future__ import annotations

from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.test_triage_gpu_stack import findings

_NO_DRIVER = (
    "RuntimeError: Found no NVIDIA driver on your system. Please check that you have an NVIDIA "
    "GPU and installed a driver from http://www.nvidia.com/Download/index.aspx\n"
)
_SMI_FAILED = (
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure "
    "that the latest NVIDIA driver is installed and running.\n"
)


def test_no_driver_where_nothing_shows_a_gpu_is_a_warning(matrix: Matrix) -> None:
    """googlecolab/colabtools#4425 (1231), openai/jukebox#205 (1232): a notebook on a runtime
    without a GPU prints what a GPU host without its driver prints. Where the text shows no
    GPU, driver, GPU instance, container or GPU request, SC532 is a warning, not a known fault."""
    assert findings(matrix, body("1231")) == {"SC532": Severity.WARNING}
    assert findings(matrix, body("1232")) == {"SC532": Severity.WARNING}
    for message in (_NO_DRIVER, _SMI_FAILED, "bash: nvidia-smi: command not found\n"):
        assert findings(matrix, message) == {"SC532": Severity.WARNING}, message


def test_a_sign_that_the_gpu_was_meant_makes_it_an_error(matrix: Matrix) -> None:
    """The same messages beside a GPU or driver shown, a GPU instance type or a container."""
    signs = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n",
        "GPU 0: Tesla T4 (UUID: GPU-2b1bd2a5-a3b1-5bd4-9dfd-0f1f2a4ac2e1)\n",
        "Instance type: p4d.24xlarge\n",
        "docker run -it --rm pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime python train.py\n",
    )
    for sign in signs:
        for message in (_NO_DRIVER, _SMI_FAILED):
            assert findings(matrix, sign + message).get("SC532") is Severity.ERROR, sign


def test_messages_that_imply_a_gpu_stay_errors_alone(matrix: Matrix) -> None:
    """Messages only a machine with a driver, or a process given a GPU request, prints: NVML's
    `Unknown Error` (a GPU lost from a running container), CUDA's no-device once libcuda loaded,
    PyTorch's `No CUDA GPUs are available`, Docker's device request refused, the container
    toolkit's hook failing."""
    for message in (
        "Failed to initialize NVML: Unknown Error",
        "RuntimeError: CUDA error: no CUDA-capable device is detected",
        "RuntimeError: No CUDA GPUs are available",
        'docker: Error response from daemon: could not select device driver "" with '
        "capabilities: [[gpu]].",
        "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown.",
    ):
        assert findings(matrix, message + "\n").get("SC532") is Severity.ERROR, message


_ENOMEM = "\n\nNCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory\n"


def test_rdma_enomem_where_the_report_rules_the_limit_out_is_advice(matrix: Matrix) -> None:
    """MiaAI-Lab/DeepSeek-v4-Flash-DSpark-2x-DGX-Spark#259 (1208): an ibv_reg_mr ENOMEM the
    kernel's CMA accounting caused, beside a sentence that says the memlock limit showed no
    problem. A limit shown low, or the report saying it had to be raised, keeps the error."""
    assert findings(matrix, body("1208")).get("SC512") is Severity.INFO
    assert findings(matrix, _ENOMEM).get("SC512") is Severity.ERROR
    for said in (
        "Nothing in dmesg, memlock limits or IB port state indicated a problem.",
        "memlock is already unlimited on both nodes.",
        "ulimit -l shows unlimited inside the container.",
        "It is not a memlock issue.",
        "We ruled out the locked memory limit.",
    ):
        assert findings(matrix, said + _ENOMEM).get("SC512") is Severity.INFO, said
    for said in (
        "Is memlock unlimited?",
        "If memlock is unlimited it should work.",
        "We had to raise memlock to unlimited.",
    ):
        assert findings(matrix, said + _ENOMEM).get("SC512") is Severity.ERROR, said
    low = "max locked memory       (kbytes, -l) 64\nmemlock is fine.\n"
    assert findings(matrix, low + _ENOMEM).get("SC512") is Severity.ERROR


def test_a_sentence_naming_docker_run_keeps_its_gpu_request_fix(matrix: Matrix) -> None:
    """tomdbar/ecord#1 (1264): "I solved this by adding "--gpus all" to docker run command." is
    a sentence (its last word keeps the full stop), not a command whose image is `command.`."""
    for said in (
        'docker could not see my GPU. I solved this by adding "--gpus all" to docker run command.',
        "The container saw no GPU; fixed it by adding --gpus all to the docker run command.",
    ):
        assert findings(matrix, said).get("SC531") is Severity.WARNING, said
    assert read_report("docker run -it --rm ecord.", "x").snapshot.run_specs[0].image == "ecord."
