"""Sprint 17's readings on GPUs missing from machines that have none (gpu-visibility,
driver-cuda), on shapes of text beyond the corpus reports they were written for (each cited)."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from stackcheck.snapshot.model import ComponentName
from tests.test_triage_gpu_stack import findings, loud

# nvidia-container-cli's refusal where the host has no driver (dstackai/dstack#1080, 1538).
_HOOK = (
    "error running hook #0: error running hook: exit status 1, stdout: , stderr: Auto-detected "
    "mode as 'legacy'\n"
    "nvidia-container-cli: initialization error: nvml error: driver not loaded: unknown\n"
)


@pytest.mark.parametrize(
    "said",
    [
        "1. Submit a run to Cudo without GPU.",
        "The job was scheduled on our CPU-only instances.",
        "This machine has no GPU; the scheduler still used the GPU image.",
    ],
)
def test_a_container_on_a_machine_said_to_have_no_gpu_is_advice(matrix: Matrix, said: str) -> None:
    """dstackai/dstack#1080 (1538): a scheduler started a GPU image with the NVIDIA hook on a
    CPU instance; the container shown does not put a GPU in the machine, so neither SC532 nor
    SC531 is loud."""
    text = f"{said}\n\n```\n{_HOOK}```\n"
    got = findings(matrix, text)
    assert got.get("SC532") is Severity.INFO
    assert "SC531" not in loud(matrix, text)


def test_a_gpu_shown_still_makes_the_container_refusal_an_error(matrix: Matrix) -> None:
    """The same words beside a GPU and driver shown (nvidia-smi's header) stay an error: only
    hardware shown contradicts the reporter."""
    smi = (
        "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
        "|   0  NVIDIA A10G                    On  | 00000000:00:1E.0 Off |    0 |\n"
    )
    text = f"1. Submit a run to Cudo without GPU.\n\n```\n{smi}{_HOOK}```\n"
    assert findings(matrix, text).get("SC532") is Severity.ERROR


_NO_DEVICE = "common.cu: 13: no CUDA-capable device is detected\n"


@pytest.mark.parametrize(
    "command", ["CUDA_VISIBLE_DEVICES= python run.py", 'CUDA_VISIBLE_DEVICES="" python run.py']
)
def test_an_empty_assignment_before_a_command_is_an_empty_value(command: str) -> None:
    """dmlc/xgboost#3953 (1510): a shell's `NAME= cmd` sets NAME empty; it is not NAME=cmd."""
    snapshot = read_report(f"```\n{command}\n```\n", "pasted").snapshot
    assert snapshot.env["CUDA_VISIBLE_DEVICES"].value == ""


def test_a_spaced_setting_in_prose_still_reads_its_value() -> None:
    snapshot = read_report("We export NCCL_DEBUG = INFO before the run.\n", "pasted").snapshot
    assert snapshot.env["NCCL_DEBUG"].value == "INFO"


@pytest.mark.parametrize(
    ("line", "name", "value"),
    [
        ('os.environ["NCCL_SOCKET_IFNAME"] = "eth0"', "NCCL_SOCKET_IFNAME", "eth0"),
        ("os.environ['CUDA_VISIBLE_DEVICES']='-1'", "CUDA_VISIBLE_DEVICES", "-1"),
        ('os.environ.setdefault("NCCL_DEBUG", "INFO")', "NCCL_DEBUG", "INFO"),
    ],
)
def test_a_setting_made_from_python_is_read(line: str, name: str, value: str) -> None:
    """Scripts pasted whole set NCCL's and CUDA's variables through `os.environ`."""
    snapshot = read_report(f"```python\nimport os\n{line}\n```\n", "pasted").snapshot
    assert snapshot.env[name].value == value


def test_a_python_setting_in_a_hint_is_not_read() -> None:
    text = 'Try setting os.environ["NCCL_P2P_DISABLE"] = "1" if it hangs.\n'
    assert "NCCL_P2P_DISABLE" not in read_report(text, "pasted").snapshot.env


@pytest.mark.parametrize("value", ["", "-1"])
def test_gpus_hidden_by_cuda_visible_devices_are_named(matrix: Matrix, value: str) -> None:
    """CUDA_VISIBLE_DEVICES empty or `-1` leaves CUDA no device: the no-device message follows
    from the setting (a warning naming it, not the error of a missing GPU); advice where the
    report says the program runs on a CPU machine (1510: `GPU compiled code on CPU system`)."""
    text = f"```\nCUDA_VISIBLE_DEVICES={value} python run.py\n{_NO_DEVICE}```\n"
    assert findings(matrix, text).get("SC532") is Severity.WARNING
    said = "Regression in using GPU compiled code on CPU system.\n"
    assert findings(matrix, said + text).get("SC532") is Severity.INFO
    # An index the machine has hides nothing: the error stays.
    shown = f"```\nCUDA_VISIBLE_DEVICES=0 python run.py\n{_NO_DEVICE}```\n"
    assert findings(matrix, shown).get("SC532") is Severity.ERROR


@pytest.mark.parametrize(
    ("said", "cpu"),
    [
        ("The model trains fine on a CPU machine too.", True),
        ("We build wheels for CPU systems and GPU ones.", False),
        ("It runs on CPU machines and on GPU machines alike.", False),
        ("It runs on CPU system memory when the GPU is full.", False),
    ],
)
def test_a_machine_named_by_its_cpu(said: str, cpu: bool) -> None:
    snapshot = read_report(said + "\n", "pasted").snapshot
    assert bool(snapshot.observations("cpu-intended")) is cpu


def test_a_driver_stated_as_version_n_is_read() -> None:
    """NVIDIA/TensorRT-LLM#331 (1574): "the cluster GPU driver is version 470.82"."""
    for said in ("the cluster GPU driver is version 470.82.", "Our driver was version 535.104.05"):
        snapshot = read_report(said + "\n", "pasted").snapshot
        driver = snapshot.components[ComponentName.DRIVER].installations
        assert [i.version for i in driver] == [said.split("version ")[1].rstrip(".")], said


@pytest.mark.parametrize(
    ("said", "warned"),
    [
        # NVIDIA/TensorRT-LLM#331 (1574), a question in the next sentence of the paragraph.
        (
            "The cluster GPU driver is version 470.82. When compiling the model, it prompts that "
            "the driver version is too low. Is there any way to make it use this driver?",
            True,
        ),
        ("The log shows the driver version is too low for this build.", True),
        ("Does the error say my driver 470.82 is too old?", False),
        ("It prompts that the driver version is too low if CUDA 12 is used.", False),
    ],
)
def test_a_retold_driver_too_low_message(matrix: Matrix, said: str, warned: bool) -> None:
    assert (loud(matrix, said + "\n").get("SC101") is Severity.WARNING) is warned


@pytest.mark.parametrize(
    ("said", "read"),
    [
        # cupy/cupy#4660 (1522), with the condition in another sentence of the paragraph.
        (
            "It would be nice if CuPy said so. I have an old K2000 in my desktop PC, for which "
            "support was dropped in CUDA 11.1, and this code fails:",
            True,
        ),
        ("My GTX 680 is no longer supported by CUDA 11.", True),
        ("CUDA 12 no longer supports our Kepler cards.", True),
        ("Is support for Kepler dropped in CUDA 12? I have a K80.", False),
        ("If support for my card was dropped in CUDA 12, I will buy a new one.", False),
        ("Support for Kepler was dropped in CUDA 12, which we do not use.", False),
    ],
)
def test_the_reporters_gpu_said_dropped_by_cuda(matrix: Matrix, said: str, read: bool) -> None:
    assert (loud(matrix, said + "\n").get("SC202") is Severity.ERROR) is read


_LIGHTNING = (
    "pytorch_lightning.utilities.debugging.MisconfigurationException: \n"
    "            You requested GPUs: [0]\n"
    "            But your machine only has: []\n"
)


@pytest.mark.parametrize(
    "row",
    [
        "_pytorch_select           0.1                       cpu_0  ",  # Lightning#899 (1564)
        "pytorch-mutex             1.0                         cpu    pytorch",
    ],
)
def test_conda_cpu_selector_beside_no_gpu_names_the_build(matrix: Matrix, row: str) -> None:
    """A conda selector metapackage of build `cpu` marks the CPU build, even without the
    pytorch row; beside a program that found no GPU it is SC201's warning."""
    listing = (
        f"```\n# Name                    Version                   Build  Channel\n{row}\n```\n"
    )
    snapshot = read_report(listing, "pasted").snapshot
    torch = snapshot.components[ComponentName.TORCH].installations
    assert [t.properties.get("cpu_only") for t in torch] == ["yes"]
    assert loud(matrix, f"```\n{_LIGHTNING}```\n{listing}").get("SC201") is Severity.WARNING
    # The CUDA variants of the same selectors are not CPU builds.
    gpu = row.replace("cpu_0", "gpu_0").replace(" cpu ", " cuda")
    held = read_report(gpu + "\n", "pasted").snapshot.components[ComponentName.TORCH]
    assert held.installations == []


_NVRM = "kernel: [ 3570.610602] NVRM: The NVIDIA Tesla K80 GPU installed in this system is\n"


def test_the_first_line_of_nvrms_legacy_notice_alone(matrix: Matrix) -> None:
    """charmed-kubernetes/kubernetes-docs#647 (1535): a paste cut after the notice's first
    NVRM line still says the driver's branch ignores the GPU; with its second line the branch
    it names is what the finding says."""
    assert findings(matrix, f"```\n{_NVRM}```\n").get("SC1406") is Severity.ERROR
    whole = f"```\n{_NVRM}NVRM:  supported through the NVIDIA 470.xx Legacy drivers. Please\n```\n"
    report = check(read_report(whole, "pasted").snapshot, matrix)
    assert next(f.message for f in report.findings if f.id == "SC1406").count("R470") == 1
    # Another NVRM line about the GPU is not the notice.
    other = "kernel: NVRM: The NVIDIA GPU 0000:00:1e.0 has fallen off the bus.\n"
    assert "SC1406" not in findings(matrix, f"```\n{other}```\n")


def test_the_toolkits_arch_refusal_is_the_images_requirement(matrix: Matrix) -> None:
    """awslabs/aws-virtual-gpu-device-plugin#7 (1536): an image requiring arch>=7.0 on a K80."""
    refused = (
        "stderr: exec command: [/usr/bin/nvidia-container-cli --load-kmods configure "
        "--device=all --compute --utility --require=arch>=7.0 --pid=32214 /merged]\\\\n"
        "nvidia-container-cli: requirement error: unsatisfied condition: arch >= 7.0\n"
    )
    assert loud(matrix, f"```\n{refused}```\n") == {"SC353": Severity.ERROR}
    # A CUDA condition is the driver's shortfall (SC101's), not the architecture's.
    cuda = "nvidia-container-cli: requirement error: unsatisfied condition: cuda>=12.6\n"
    assert "SC353" not in findings(matrix, f"```\n{cuda}```\n")
