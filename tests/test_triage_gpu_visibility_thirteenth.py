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


def test_singularity_and_apptainer_without_nv(matrix: Matrix) -> None:
    """apptainer/singularity#6203 (1268): `singularity shell nemo.sif` without `--nv`, then
    Lightning's `But your machine only has: []`. Other tools, subcommands, options and image
    sources of the same kind; `--nv`/`--nvccli` is a GPU request; the tool named in a sentence
    is no command."""
    assert findings(matrix, body("1268")).get("SC531") is Severity.ERROR
    saw_none = "\n\nRuntimeError: No CUDA GPUs are available\n"
    for command in (
        "singularity exec -B /data:/data pytorch_23.10.sif python train.py",
        "apptainer run docker://nvcr.io/nvidia/pytorch:24.01-py3",
        "$ singularity instance start --bind /scratch tf.simg tf1",
        "apptainer exec --cleanenv ./sandbox/ python -c 'import torch'",
    ):
        assert findings(matrix, command + saw_none).get("SC531") is Severity.ERROR, command
    # A GPU image without a process that missed the GPU: a warning; a plain one: nothing.
    assert findings(matrix, "singularity shell nemo.sif\n").get("SC531") is Severity.WARNING
    assert "SC531" not in findings(matrix, "singularity exec alpine_latest.sif echo hey\n")
    for command in (
        "singularity exec --nv pytorch.sif python train.py",
        "apptainer run --nvccli -B /data docker://nvcr.io/nvidia/pytorch:24.01-py3",
    ):
        assert "SC531" not in findings(matrix, command + saw_none), command
        assert findings(matrix, command + saw_none).get("SC532") is Severity.ERROR, command
    # The fix shown beside the failing command, and the tool named in a sentence.
    both = "singularity shell nemo.sif\nsingularity shell --nv nemo.sif\n" + saw_none
    assert "SC531" not in findings(matrix, both)
    said = "it seems like in singularity shell, gpu can't find by the programme" + saw_none
    assert "SC531" not in findings(matrix, said)


def test_singularity_nv_finding_no_driver_files(matrix: Matrix) -> None:
    """apptainer/singularity#6356: `--nv` on a host whose nvliblist.conf names no file found
    (Singularity 3.7's INFO, Apptainer's WARNING): no driver bound in. The command with `--nv`
    beside it is a GPU request (an error); the message alone, a warning."""
    for level in ("INFO:   ", "WARNING:"):
        said = f"{level} Could not find any nv files on this host!\n"
        assert findings(matrix, said).get("SC532") is Severity.WARNING, said
        command = "singularity exec --nv alpine_latest.sif bash -c 'echo hey'\n"
        assert findings(matrix, command + said).get("SC532") is Severity.ERROR, said
    libraries = "WARNING: Could not find any nv libraries on this host!\n"
    assert findings(matrix, libraries).get("SC532") is Severity.WARNING


def test_enroot_nvidia_hook_without_a_driver(matrix: Matrix) -> None:
    """NVIDIA/enroot#105 (1273): enroot's nvidia hook on a host without the driver; the
    toolkit's driver service failing is a GPU request that found no driver (an error), its
    time-out (persistence mode off: 275, 682) is not read as one."""
    assert findings(matrix, body("1273")).get("SC532") is Severity.ERROR
    for line in (
        "nvidia-container-cli: initialization error: driver error: failed to process request",
        "nvidia-container-cli.real: initialization error: driver error: failed to process request",
    ):
        assert findings(matrix, line + "\n").get("SC532") is Severity.ERROR, line
    timed_out = "nvidia-container-cli: initialization error: driver error: timed out\n"
    assert "SC532" not in findings(matrix, timed_out)


def test_lightning_requested_gpus_but_none(matrix: Matrix) -> None:
    """Lightning's device parser, 1.x (`You requested GPUs: [0]`) and 1.7+ (`You requested
    gpu: [0]`), with its second line: an empty list is no GPU (a warning alone: a CPU machine
    prints it too); a shorter list is not read as none."""
    for asked in ("GPUs: [0]", "gpu: [0, 1]"):
        text = (
            "pytorch_lightning.utilities.exceptions.MisconfigurationException: "
            f"You requested {asked}\n But your machine only has: []\n"
        )
        assert findings(matrix, text).get("SC532") is Severity.WARNING, asked
    fewer = (
        "MisconfigurationException: You requested gpu: [0, 1]\n But your machine only has: [0]\n"
    )
    assert "SC532" not in findings(matrix, fewer)


def test_no_driver_on_a_hosted_notebook_is_advice(matrix: Matrix) -> None:
    """openai/jukebox#205 (1232): Colab Pro without a GPU accelerator; the same on Kaggle. A
    hosted notebook's default runtime has no GPU: where nothing shows one, choosing a GPU
    runtime is the advice (info); a GPU shown there keeps the error."""
    assert findings(matrix, body("1232")) == {"SC532": Severity.INFO}
    for said in (
        "I run the notebook on Google Colab.\n\n",
        "Running this in a Kaggle notebook:\n\n",
        "colab pro+ session\n\n",
    ):
        for message in (_NO_DRIVER, _SMI_FAILED):
            assert findings(matrix, said + message) == {"SC532": Severity.INFO}, said
    t4 = (
        "On Colab with a Tesla T4:\n"
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2 |\n"
    )
    assert findings(matrix, t4 + _NO_DRIVER).get("SC532") is Severity.ERROR


def test_a_slurm_gpu_request_means_the_gpu_was_meant(matrix: Matrix) -> None:
    """NVIDIA/enroot#205 (1263: `srun --gpus=2 --container-image=...` then PyTorch's `Found no
    NVIDIA driver`): a job given GPUs is meant to see them, in each of Slurm's forms; zero
    GPUs, another resource or another launcher is no request."""
    assert findings(matrix, body("1263")).get("SC532") is Severity.ERROR
    for command in (
        "srun --nodes=1 --gpus=2 --container-image=myimage python train.py",
        "srun -G 1 python train.py",
        "srun --gres=gpu:a100:4 --pty bash",
        "srun --gres=gpu:a100 python train.py",
        "srun --gpus-per-node 8 torchrun train.py",
    ):
        assert findings(matrix, command + "\n\n" + _NO_DRIVER).get("SC532") is Severity.ERROR
    for command in (
        "srun --gpus=0 python train.py",
        "srun --gres=shard:2 python train.py",
        "mpirun --gpus=2 python train.py",
    ):
        assert findings(matrix, command + "\n\n" + _NO_DRIVER).get("SC532") is Severity.WARNING


def test_a_pod_limit_in_a_sentence_means_the_gpu_was_meant(matrix: Matrix) -> None:
    """scverse/scvi-tools (984: `on GKE with nvidia.com/gpu: 1`): a pod's GPU limit named beside
    the message keeps it an error; a limit of 0 or the vendor alone does not (a node's capacity
    said to be 0 is a device plugin's fault: an error of its own)."""
    assert findings(matrix, body("984")).get("SC532") is Severity.ERROR
    for said in ("Run it on GKE with nvidia.com/gpu: 1", "the pod asks for nvidia.com/gpu=2"):
        assert findings(matrix, said + "\n\n" + _NO_DRIVER).get("SC532") is Severity.ERROR, said
    for said in ("The pod sets nvidia.com/gpu to 0 on purpose", "Do I need an NVIDIA GPU"):
        assert findings(matrix, said + "\n\n" + _NO_DRIVER).get("SC532") is Severity.WARNING
