"""The prose reader's table of stated versions (stackcheck/ingest/formats/prose.py, _STATED): each
component's names and version shape in the sentences and environment lists reporters write, and
what it leaves alone (a suggestion, a target, a template's placeholder, a package's +cudaX.Y).
Real lines keep their thread; the rest are the shapes of the issue templates named beside them."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix, load_matrix
from stackcheck.snapshot.model import ComponentName


@pytest.fixture(scope="module")
def matrix() -> Matrix:
    return load_matrix()


def said(text: str) -> list[str]:
    return [f.describe() for f in read_report(text, "pasted").facts]


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        # pytorch/pytorch#49846
        ("## Environment\n```\npytorch: 1.4.0\n```\n", "PyTorch 1.4.0 stated=prose"),
        # pytorch/pytorch#3038
        (
            "I'm using pytorch 0.2.0_3, with CUDA 8.0 and cudnn 6.0.20\n",
            "PyTorch 0.2.0 stated=prose",
        ),
        (
            "I'm using pytorch 0.2.0_3, with CUDA 8.0 and cudnn 6.0.20\n",
            "cuDNN 6.0.20 stated=prose",
        ),
        (
            "I'm using pytorch 0.2.0_3, with CUDA 8.0 and cudnn 6.0.20\n",
            "observed version-stated: CUDA 8.0",
        ),
        # vllm-project/vllm#3812: the version run into its name
        (
            "### Your current environment\n\nTesla V100, cuda11.4\n",
            "observed version-stated: CUDA 11.4",
        ),
        # the PyTorch issue template's list
        ("- PyTorch Version (e.g., 1.0): 2.1\n", "PyTorch 2.1 stated=prose"),
        ("- CUDA/cuDNN version: 11.8/8.9\n", "cuDNN 8.9 stated=prose"),
        ("- CUDA/cuDNN version: 11.8/8.9\n", "observed version-stated: CUDA 11.8"),
        # pytorch/pytorch#12857: each named in the pair's answer
        (" - CUDA/cuDNN version:  CUDA: 9.0/cuDNN: 7.0\n", "cuDNN 7.0 stated=prose"),
        # pytorch/pytorch issues: a sentence ending on the version
        (
            "I am using CUDA version 10.0 and torch version 1.5.0. However, "
            "torch.cuda.is_available() returns False.\n",
            "PyTorch 1.5.0 stated=prose",
        ),
        # a Chinese sentence (NVIDIA/gpu-operator#1146, the corpus's 470) and template lines
        (
            "因为我安装的NVIDIA驱动版本是560.35.03\uff0c所以下载对应版本\uff1a\n",
            "NVIDIA driver 560.35.03 stated=prose",
        ),
        ("cuda版本11.0\n", "observed version-stated: CUDA 11.0"),  # the corpus's 452
        # not from a thread: the shape a Japanese list writes ("driver version: ...")
        ("ドライバーバージョン: 535.104.05\n", "NVIDIA driver 535.104.05 stated=prose"),
        # nvcc named with its release: recorded, not checked
        ("nvcc version 11.8 and torch 2.1\n", "observed version-stated: CUDA 11.8"),
        # TGI's system info, in bold
        ("**System's CUDA version:** 11.8\n", "observed version-stated: CUDA 11.8"),
        # a build tag after a colon; Japanese "CUDA's version is 12.1"
        ("* PyTorch: 2.1.0+cu121\n", "PyTorch 2.1.0+cu121 CUDA 12.1 cpu_only=no stated=prose"),
        (
            "CUDA\u306e\u30d0\u30fc\u30b8\u30e7\u30f3\u306f12.1\u3067\u3059\n",
            "observed version-stated: CUDA 12.1",
        ),
    ],
)
def test_a_stated_version_is_read(text: str, reading: str) -> None:
    assert reading in said(text)


@pytest.mark.parametrize(
    "text",
    [
        "#- PyTorch Version (e.g., 1.10):\n#- CUDA/cuDNN version:\n",  # a placeholder left empty
        "Please upgrade to torch 2.1 and cudnn 8.9.\n",  # a suggestion
        "how can I revert back to the PyTorch 0.3.0 version ?\n",  # a target
        "torch 1.13 works fine, the new one does not.\n",  # a comparison
        "since torch 1.8 the default changed\n",  # a range
        "see libcudnn.so.8 and torch.cuda 11.8\n",  # a library's and a module's name
        # a Dockerfile's comment before its FROM (aws-samples/awsome-distributed-training)
        "# First stage - DLC PyTorch 2.6, Python 3.12, CUDA 12.6, Ubuntu 22.04\n",
    ],
)
def test_what_is_not_a_stated_version(text: str) -> None:
    facts = read_report(text, "pasted").facts
    assert not [
        f for f in facts if "stated=prose" in f.describe() or "version-stated" in f.describe()
    ]


@pytest.mark.parametrize(
    ("text", "gpu"),
    [
        # pytorch/pytorch#49846: a count after the name
        ("```\npytorch: 1.4.0\nGPU: Tesla P100-PCIE-16GB * 2\n```\n", "Tesla P100-PCIE-16GB"),
        # the PyTorch / Lightning templates' line
        ("- GPU models and configuration: 8x A100 80GB\n", "A100 80GB"),
        # a Chinese template's graphics-card line (显卡: RTX 3090)
        ("\u663e\u5361: RTX 3090\n", "RTX 3090"),
    ],
)
def test_an_environment_lists_gpu_line(text: str, gpu: str) -> None:
    snapshot = read_report(text, "pasted").snapshot
    assert any(gpu in g.name for g in snapshot.gpus.devices), snapshot.gpus.devices


def test_a_gpu_counted_in_chinese_cards() -> None:
    text = "8\u5361A100\u8bad\u7ec3\u65f6\u62a5\u9519\n"  # "8卡A100训练时报错": 8 A100 cards
    assert any("A100" in g.name for g in read_report(text, "pasted").snapshot.gpus.devices)


def test_a_gpu_counted_with_a_capital_x() -> None:
    # FreedomIntelligence/CMB#4
    text = "基础环境\uff1a4 X NVIDIA A100 (40GB) \uff0caccelerate==0.21.0\n"
    assert any("A100" in g.name for g in read_report(text, "pasted").snapshot.gpus.devices)


@pytest.mark.parametrize(
    "text",
    [
        "I'm using pytorch 0.2.0_3, with CUDA 8.0 and cudnn 6.0.20\n",
        "### Your current environment\n\nTesla V100, cuda11.4\n",
        "## Environment\n```\npytorch: 1.4.0\nGPU: Tesla P100-PCIE-16GB * 2\n```\n",
        "- PyTorch Version (e.g., 1.0): 2.1\n- CUDA/cuDNN version: 11.8/8.9\n"
        "- GPU models and configuration: 8x A100 80GB\n",
    ],
)
def test_stated_versions_are_recognised_and_quiet(matrix: Matrix, text: str) -> None:
    triage = read_report(text, "pasted")
    assert triage.recognised
    loud = [f for f in check(triage.snapshot, matrix).findings if f.severity is not Severity.INFO]
    assert not loud, [(f.id, f.message) for f in loud]


def test_a_prose_cudnn_and_pytorch_are_components_stated_in_prose() -> None:
    snapshot = read_report("I'm using pytorch 1.7.1 and cudnn 8.0.5\n", "pasted").snapshot
    for name in (ComponentName.TORCH, ComponentName.CUDNN):
        assert snapshot.installations(name), name


@pytest.mark.parametrize(
    ("text", "reading"),
    [
        # the catalogue's messages that name no fault of the stack: recognised, and quiet
        (
            "RuntimeError: cuda runtime error (77) : an illegal memory access was encountered at "
            "/home/xuzihao/maskrcnn-benchmark/maskrcnn_benchmark/csrc/cuda/nms.cu:103\n",
            "observed cuda-error: 77",
        ),
        (
            "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions before "
            "calling NumCudaDevices() that might have already set an error? Error 500: named "
            "symbol not found\n",
            "observed cuda-error: 500",
        ),
        (
            "When I set the batch size as 128, there will occurs an problem. "
            "CUDNN_STATUS_NOT_SUPPORTED. This error may appear if you passed in a non-contiguous "
            "input.\n",
            "observed library-status: CUDNN_STATUS_NOT_SUPPORTED",
        ),
        (
            "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 24.71 GiB (GPU 0; "
            "39.41 GiB total capacity)\n",
            "observed program-fault: CUDA out of memory",
        ),
        (
            "utils.h:11:10: fatal error: cudnn_frontend.h: No such file or directory\n",
            "observed program-fault: header not found: cudnn_frontend.h",
        ),
        (
            "`ERROR:  nhc:  Health check failed:  check_nvlink_status: GPU 0 has nvlinks "
            "inactive:     Link 4: Inactive`\n",
            "observed health-check-failed: check_nvlink_status",
        ),
        # Vision-CAIR/MiniGPT-4#89
        (
            "RuntimeError: CUDA error: CUBLAS_STATUS_NOT_INITIALIZED when calling "
            "`cublasCreate(handle)`\n",
            "observed library-status: CUBLAS_STATUS_NOT_INITIALIZED",
        ),
        # XinzeLee/RotateObjectDetection#27
        (
            "RuntimeError: Expected all tensors to be on the same device, but found at least two "
            "devices, cuda:0 and cpu!\n",
            "observed program-fault: tensors on different devices",
        ),
        # NVIDIA/nccl#2076, mila-iqia/milabench#183 (prefixed by the runner)
        (
            "ncclRemoteError: A call failed possibly due to a network error or a remote process "
            "exiting prematurely.\n",
            "observed collective-failed: ncclRemoteError",
        ),
        (
            "opt-1_3b.0 [stderr] ncclInternalError: Internal check failed.\n",
            "observed collective-failed: ncclInternalError",
        ),
        # FreedomIntelligence/LLMZoo#45, and in lower case (Alpha-VLLM/LLaMA2-Accessory, 891)
        (
            "RuntimeError: CUDA error: invalid device ordinal\n",
            "observed cuda-error: invalid device ordinal",
        ),
        (
            "`runtimeerror: cuda error: invalid device ordinal`\n",
            "observed cuda-error: invalid device ordinal",
        ),
        # open-mmlab/mmdetection#2108: a Dockerfile's quoted value, quoted in a sentence
        (
            'In your dockerfile, it is written "ENV TORCH_CUDA_ARCH_LIST="6.0 6.1 7.0+PTX", '
            "which means it doesn't support 7.5.\n",
            "TORCH_CUDA_ARCH_LIST=6.0 6.1 7.0+PTX",
        ),
    ],
)
def test_a_message_of_no_fault_of_the_stack_is_recognised_and_quiet(
    matrix: Matrix, text: str, reading: str
) -> None:
    triage = read_report(text, "pasted")
    assert any(reading in d for d in said(text)), said(text)
    loud = [f for f in check(triage.snapshot, matrix).findings if f.severity is not Severity.INFO]
    assert not loud, [(f.id, f.message) for f in loud]


def test_nvidia_smis_cuda_said_in_a_sentence_is_the_drivers() -> None:
    # NVIDIA/nvidia-docker#1515
    text = (
        "```nvidia-smi``` shows cuda 11.2 version and ```torch.cuda.is_available()``` returns "
        "true in docker container.\n"
    )
    drivers = read_report(text, "pasted").snapshot.installations(ComponentName.DRIVER)
    assert [d.cuda for d in drivers] == ["11.2"]
    assert not read_report("Does nvidia-smi need CUDA 12.2?\n", "pasted").facts


def test_an_indented_list_is_no_torch_config_without_its_heading() -> None:
    # jhj0517/Whisper-WebUI#279: the issue form's answer, one space in
    listed = read_report("**Which OS are you using?**\n - OS: Windows\n", "pasted")
    assert all(p.segment.format.name == "prose" for p in listed.segments)
    shown = read_report("PyTorch built with:\n  - CuDNN 8.0.5\n  - CUDA Runtime 11.1\n", "t")
    assert [p.segment.format.name for p in shown.segments] == ["torch_config"]
    assert any("cuDNN 8.0.5" in d for d in (f.describe() for f in shown.facts))


def test_docker_info_is_read_as_the_daemons_runtimes_and_cgroups() -> None:
    # Leon-Sander/Local-Multimodal-AI-Chat#31: no nvidia runtime registered
    text = (
        "WARNING: daemon is not using the default seccomp profile\n"
        " Runtimes: io.containerd.runc.v2 runc\n Default Runtime: runc\n"
    )
    assert said(text) == [
        "observed docker-daemon: Runtimes: io.containerd.runc.v2 runc; Default Runtime: runc"
    ]
    # NVIDIA/nvidia-docker#1618: an excerpt, cut with "..."
    text = (
        "# docker info\n...\nLogging Driver: json-file\n Cgroup Driver: systemd\n"
        " Cgroup Version: 1\n...\n"
    )
    triage = read_report(text, "pasted")
    assert [f.describe() for f in triage.facts] == [
        "observed docker-daemon: Cgroup Driver: systemd; Cgroup Version: 1"
    ]
    # a sentence that only names a label is prose
    assert not read_report("Note: the Default Runtime is runc here.\n", "t").facts


def test_a_clause_wrapped_onto_the_next_line_keeps_its_doubt() -> None:
    """A sentence a browser wrapped reads as the sentence: "... torch only / supports: ..." names
    what the build supports, not the stack in use, wherever the wrap falls. A short line (a list's,
    a log's) and a list item's next line are not a sentence wrapped."""
    one_line = "The job says: Cuda 11.0 detected but torch only supports: cpu, 10.1, 10.2, 9.2\n"
    wrapped = (
        "When I run the job it fails with this message: Cuda 11.0 detected but torch only\n"
        "supports: cpu, 10.1, 10.2, 9.2 Any idea why?\n"
    )
    for text in (one_line, wrapped):
        assert not any(r.startswith("CUDA toolkit 11.0 stated=prose") for r in said(text)), text
    listed = "- PyTorch Version: 2.1\n- CUDA: 11.8\nrequired: none\n"
    assert "PyTorch 2.1 stated=prose" in said(listed)
    short = "torch 2.1.0\nRTX 50xx requires sm_120\n"
    assert "PyTorch 2.1.0 stated=prose" in said(short)
