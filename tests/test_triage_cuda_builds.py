"""Triage readings of CUDA and the driver, PyTorch's builds, cuDNN and GPU visibility (the
ninth pass): each on the real text of a corpus report (tests/data/reports, source cited there)
and on the other shapes the same kind of text takes, independent of the corpus's expectations."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.check.model import Finding, Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix
from tests.corpus import body
from tests.test_triage_gpu_stack import findings

NOT_COMPILED = "AssertionError: Torch not compiled with CUDA enabled\n"


@pytest.mark.parametrize(
    "said",
    [
        "(I am using CPU only)",
        "I have no GPU, so I should run it with CPU, but it is not right.",
        "I only have a CPU on this box.",
        "I want to run it on the CPU.",
        "I don't have an NVIDIA card.",
        "My laptop has only Intel UHD graphics.",
        "I'm on my MacBook Air.",
        "运行这一步时我使用的是cpu",
        "我的电脑没有独立显卡",
        "GPUがないのでCPUで動かしています",
        "No tengo GPU.",
        "Não tenho placa de vídeo.",
        "Ich habe keine GPU.",
        "У меня нет видеокарты.",  # noqa: RUF001
        "My PC has an AMD Radeon RX 6800.",
        "I am using Intel Arc A770.",
    ],
)
def test_a_machine_said_to_have_no_gpu_makes_not_compiled_advice(matrix: Matrix, said: str) -> None:
    """846, 847: PyTorch's CPU-only verdict where the reporter runs on the CPU by choice; the
    program, not the build, is what needs a CPU path."""
    assert findings(matrix, NOT_COMPILED + said + "\n") == {"SC201": Severity.INFO}


@pytest.mark.parametrize(
    "said",
    [
        "I installed the CPU-only version of pytorch.",
        "I use cpu-only torch from pip.",
        "The model runs on CPU instead of GPU.",
        "It uses CPU only, but I have an RTX 3060.",
        "我安装的是CPU版本",
        "My MAC address is fixed.",
    ],
)
def test_a_cpu_build_or_a_symptom_is_no_cpu_machine(matrix: Matrix, said: str) -> None:
    """The build named, or the CPU as what happened against a GPU: SC201 keeps its error."""
    assert findings(matrix, NOT_COMPILED + said + "\n")["SC201"] is Severity.ERROR


def test_cpu_machine_stays_an_error_where_a_gpu_is_shown(matrix: Matrix) -> None:
    shown = "| NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2     |\n"
    text = body("846") + "\n" + shown
    assert findings(matrix, text)["SC201"] is Severity.ERROR
    assert findings(matrix, body("846"))["SC201"] is Severity.INFO
    assert findings(matrix, body("847"))["SC201"] is Severity.INFO


def test_the_availability_probes_no_driver_warning_is_advice(matrix: Matrix) -> None:
    """871: `UserWarning: CUDA initialization: Found no NVIDIA driver` is what
    torch.cuda.is_available() prints on a machine without a driver (PyTorch 1.5-1.8): the program
    asked and went on. The RuntimeError of `.cuda()` stays a finding (a warning where nothing
    shows a GPU, an error where a driver is shown); a GPU or driver shown, or a container, makes
    the probe's warning a finding again."""
    assert findings(matrix, body("871")) == {"SC532": Severity.INFO}
    failed = "RuntimeError: Found no NVIDIA driver on your system. Please check that you have\n"
    assert findings(matrix, failed) == {"SC532": Severity.WARNING}
    driver = "NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: 11.4\n"
    assert findings(matrix, driver + body("871"))["SC532"] is Severity.ERROR
    assert findings(matrix, driver + failed)["SC532"] is Severity.ERROR
    container = "docker run -it pytorch/pytorch:1.7.1-cuda11.0-cudnn8-runtime python train.py\n"
    assert findings(matrix, container + body("871"))["SC531"] is Severity.ERROR
    observed = read_report(body("871"), "pasted").snapshot.observations("no-gpu-probed")
    assert [o.value for o in observed] == [
        "CUDA initialization: Found no NVIDIA driver on your system"
    ]


def test_invalid_device_ordinal_where_the_gpu_count_is_shown(matrix: Matrix) -> None:
    """859, 891: CUDA's error 101 beside the machine's GPU count said in a sentence; alone it
    says nothing of how many GPUs or ranks there were (890's mark), and under MIG it is
    gpu-mode's (581)."""
    assert findings(matrix, body("859"))["SC1325"] is Severity.WARNING
    assert findings(matrix, body("891"))["SC1325"] is Severity.WARNING
    error = "RuntimeError: CUDA error: invalid device ordinal\n"
    assert "SC1325" not in findings(matrix, error)
    for said in (
        "I only have 1 GPU.",
        "on a single GPU",
        "My workstation has two RTX 3090.",
        "THCudaCheck FAIL file=Module.cpp line=33 error=101 : invalid device ordinal",
    ):
        text = error + said + "\n" if "THCudaCheck" not in said else said + "\nusing 2 GPUs\n"
        assert findings(matrix, text)["SC1325"] is Severity.WARNING, said
    for said in ("we train on 4 nodes", "with 8 workers", "I have 16GB of RAM"):
        assert "SC1325" not in findings(matrix, error + said + "\n"), said
    mig = "I only have 1 GPU. MIG is enabled on one of the GPUs.\n"
    assert "SC1325" not in findings(matrix, error + mig)
    listed = (
        "GPU 0: NVIDIA A10G (UUID: GPU-5c4b3a4e-7d1f-2b7c-7f5e-0c3f8c1f9a11)\n"
        "GPU 1: NVIDIA A10G (UUID: GPU-6d5c4b5f-8e2a-3c8d-8a6f-1d4a9d2a0b22)\n"
    )
    found = check_report(listed + error, matrix)
    assert [f.severity for f in found if f.id == "SC1325"] == [Severity.WARNING]
    assert "with 2 GPU(s)" in next(f.message for f in found if f.id == "SC1325")
    counted = read_report(body("891"), "pasted").snapshot.observations("gpu-count-stated")
    assert [o.value for o in counted] == ["1"]


def test_a_torch_pin_no_variant_of_which_runs_on_the_gpu(matrix: Matrix) -> None:
    """845: `torch==2.1.2` in a Dockerfile's requirements and a 5070 Ti named by its number:
    no CUDA variant of 2.1 carries sm_120, whichever wheel pip picks; 2.9's does."""
    assert findings(matrix, body("845"))["SC202"] is Severity.WARNING
    gpu = "I had to change them to support a 5070 ti GPU.\n"
    assert findings(matrix, "torch==2.1.2\n\n" + gpu)["SC202"] is Severity.WARNING
    assert "SC202" not in findings(matrix, "torch==2.9.0\n\n" + gpu)
    assert "SC202" not in findings(matrix, "torch==2.1.2\n")  # no GPU shown
    older = "torch==2.1.2\n\nI use the RTX3090 for training.\n"  # sm_86: 2.1's cu121 has it
    assert "SC202" not in findings(matrix, older)


def test_driver_library_mismatch_quoted_in_its_other_forms(matrix: Matrix) -> None:
    """884: NVML's mismatch quoted without nvidia-smi's `Failed to initialize NVML:`; also
    nvmlErrorString's and pynvml's names for it; not a condition."""
    assert findings(matrix, body("884"))["SC103"] is Severity.ERROR
    for said in (
        "nvidia-smi then reports `Driver/library version mismatch`",
        "pynvml.nvml.NVMLError_LibRmVersionMismatch: RM has detected an NVML/RM version mismatch.",
    ):
        assert findings(matrix, said + "\n")["SC103"] is Severity.ERROR, said
    condition = "If nvidia-smi says Driver/library version mismatch, reboot the node.\n"
    assert "SC103" not in findings(matrix, condition)


def test_apex_mismatch_link_where_the_traceback_stops_before_the_message(matrix: Matrix) -> None:
    """850: apex's check raised, the paste ends at the raise statement's link; the toolkit is the
    nvcc printed before. Beside the full message, one finding, with PyTorch's CUDA."""
    found = check_report(body("850"), matrix)
    sc203 = [f for f in found if f.id == "SC203"]
    assert len(sc203) == 1 and sc203[0].severity is Severity.ERROR
    assert "CUDA 11.0.167 toolkit" in sc203[0].message
    full = (
        "Warning:  Cuda extensions are being compiled with a version of Cuda that does not match "
        "the version used to compile Pytorch binaries.  Pytorch binaries were compiled with Cuda "
        "10.2.\nIn some cases, a minor-version mismatch will not cause later errors:  "
        "https://github.com/NVIDIA/apex/pull/323#discussion_r287021798.\n"
    )
    both = [f for f in check_report(full, matrix) if f.id == "SC203"]
    assert len(both) == 1 and "CUDA 10.2" in both[0].message


def check_report(text: str, matrix: Matrix) -> list[Finding]:
    return check(read_report(text, "pasted").snapshot, matrix).findings


def test_a_node_said_to_advertise_no_gpu(matrix: Matrix) -> None:
    """879: `nvidia.com/gpu: 0` quoted in a sentence about the device plugin; a pod spec's
    request of 0 is no node's capacity."""
    assert findings(matrix, body("879"))["SC532"] is Severity.ERROR
    said = "After the upgrade the node shows nvidia.com/gpu: 0 in kubectl describe.\n"
    assert findings(matrix, said)["SC532"] is Severity.ERROR
    for other in ("It sets nvidia.com/gpu: 0.5 on the node.\n", "nvidia.com/gpu: 1\n"):
        assert "SC532" not in findings(matrix, other), other


def test_cudnn_loaders_that_find_no_cudnn_of_their_major(matrix: Matrix) -> None:
    """cuDNN 9's sub-library loader on Linux and cuDNN's DLL loader on Windows, as the programs
    that bundle them print it (catalogue examples, their threads cited there)."""
    linux = (
        "Unable to load any of {libcudnn_ops.so.9.1.0, libcudnn_ops.so.9.1, libcudnn_ops.so.9, "
        "libcudnn_ops.so}\nInvalid handle. Cannot load symbol cudnnCreateTensorDescriptor\n"
    )
    windows = "Could not load library cudnn_cnn_infer64_8.dll. Error code 126\n"
    for text, major in ((linux, "cuDNN 9"), (windows, "cuDNN 8")):
        found = [f for f in check_report(text, matrix) if f.id == "SC301"]
        assert len(found) == 1 and major in found[0].message, text
    cudnn8 = "nvidia-cudnn-cu11==8.9.6.50\n" + linux.splitlines()[0] + "\n"
    assert "only cuDNN 8 is installed" in next(
        f.message for f in check_report(cudnn8, matrix) if f.id == "SC301"
    )


def test_tensorflows_import_probe_finding_no_driver(matrix: Matrix) -> None:
    """TensorFlow's cudart_stub line is a probe like PyTorch's warning: advice alone, a finding
    where the text shows a driver."""
    line = (
        "2023-05-01 12:17:26.168772: I tensorflow/tsl/cuda/cudart_stub.cc:28] Could not find cuda "
        "drivers on your machine, GPU will not be used.\n"
    )
    assert findings(matrix, line) == {"SC532": Severity.INFO}
    driver = "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
    assert findings(matrix, driver + line)["SC532"] is Severity.ERROR


def test_an_installer_falling_back_to_the_cpu_build_beside_a_cuda_toolkit(matrix: Matrix) -> None:
    """849: R torch found CUDA 11.0, had no LibTorch for it and fetched the CPU one; pip fetching
    from the CPU index reads the same; a CPU build with no toolkit shown says nothing."""
    assert findings(matrix, body("849"))["SC201"] is Severity.WARNING
    pip = (
        "Downloading https://download.pytorch.org/whl/cpu/torch-2.1.0%2Bcpu-cp310-cp310-"
        "linux_x86_64.whl (194.9 MB)\n"
    )
    nvcc = "Cuda compilation tools, release 12.1, V12.1.105\n"
    assert findings(matrix, pip + nvcc)["SC201"] is Severity.WARNING
    assert "SC201" not in findings(matrix, pip)
    assert "SC201" not in findings(matrix, pip + nvcc + "I only have a CPU on this laptop.\n")


def test_kubernetes_node_without_the_nvidia_runtime(matrix: Matrix) -> None:
    """containerd's CRI refusing a pod whose RuntimeClass is nvidia (catalogue example's thread)."""
    event = (
        "  Warning  FailedCreatePodSandBox  12s (x10 over 2m11s)  kubelet            Failed to "
        "create pod sandbox: rpc error: code = Unknown desc = failed to get sandbox runtime: no "
        "runtime for \u201cnvidia\u201d is configured\n"
    )
    assert findings(matrix, event)["SC532"] is Severity.ERROR


def test_device_count_zero_in_a_container(matrix: Matrix) -> None:
    said = "Inside the container torch.cuda.device_count() returns 0.\n"
    observed = read_report(said, "pasted").snapshot.observations("cuda-unavailable")
    assert len(observed) == 1
    run = "docker run -it --rm pytorch/pytorch:2.1.0-cuda12.1-cudnn8-runtime python\n"
    assert findings(matrix, run + said)["SC531"] is Severity.ERROR
    assert not read_report("torch.cuda.device_count() returns 0.5\n", "pasted").snapshot.observed


def test_tensorflow_without_a_cubin_for_the_gpu(matrix: Matrix) -> None:
    """TensorFlow's PTX-JIT warning: the build lacks the GPU's cubin (a warning, not an error:
    the JIT may still run)."""
    line = (
        "W0000 00:00:1753232013.685876   24341 gpu_device.cc:2431] TensorFlow was not built with "
        "CUDA kernel binaries compatible with compute capability 12.0. CUDA kernels will be "
        "jit-compiled from PTX, which could take 30 minutes or longer.\n"
    )
    assert findings(matrix, line) == {"SC202": Severity.WARNING}


def test_jax_finding_an_older_cudnn(matrix: Matrix) -> None:
    line = (
        "CUDA backend failed to initialize: Found cuDNN version 8600, but JAX was built against "
        "version 8906, which is newer. The copy of cuDNN that is installed must be at least as "
        "new as the version against which JAX was built.\n"
    )
    found = [f for f in check_report(line, matrix) if f.id == "SC301"]
    assert len(found) == 1 and "compiled against 8906, loaded 8600" in found[0].message


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (
            "W1114 22:57:33.949204    32 device_context.h:397] WARNING: device: 0. The installed "
            "Paddle is compiled with CUDNN 8.1, but CUDNN version in your machine is 8.0, which "
            "may cause serious incompatible bug.\n",
            "compiled against 8.1, loaded 8.0",
        ),
        (
            "[cudnn init] libcudnn v5 with header v7 unmatched!\n",
            "compiled against 7, loaded 5",
        ),
    ],
)
def test_paddle_naming_the_cudnn_it_was_built_with(matrix: Matrix, line: str, said: str) -> None:
    """PaddlePaddle's own cuDNN checks (device_context.cc / gpu_resources.cc, hl_cuda_cudnn.cc)."""
    found = [f for f in check_report(line, matrix) if f.id == "SC301"]
    assert len(found) == 1 and said in found[0].message


def test_paddle_naming_the_same_cudnn_twice_is_no_mismatch() -> None:
    """Paddle 3 compares 'X.Y' after integer division and has printed equal numbers."""
    line = (
        "WARNING: The installed Paddle is compiled with CUDNN 8.9, but CUDNN version in your "
        "machine is 8.9\n"
    )
    assert not read_report(line, "pasted").snapshot.observations("cudnn-mismatch")


_ORT_REQUIRES = (
    "[W:onnxruntime:Default, onnxruntime_pybind_state.cc:965 CreateExecutionProviderInstance] "
    "Failed to create CUDAExecutionProvider. Require cuDNN 8.* and CUDA 12.*. Please install all "
    "dependencies as mentioned in the GPU requirements page.\n"
)


def test_onnxruntime_built_for_another_cudnn_major(matrix: Matrix) -> None:
    """ONNX Runtime names its build's cuDNN major when the CUDA provider fails to load."""
    found = [
        f
        for f in check_report(_ORT_REQUIRES + "The cuda is 12.6 and the cudnn is 9.3.\n", matrix)
        if f.id == "SC301"
    ]
    assert len(found) == 1 and "built for cuDNN 8" in found[0].message
    assert "only cuDNN 9" in found[0].message


@pytest.mark.parametrize("beside", ["", "The cuda is 12.6 and the cudnn is 8.9.\n"])
def test_onnxruntime_naming_its_cudnn_alone_blames_no_cudnn(matrix: Matrix, beside: str) -> None:
    """The message follows any missing dependency (cuBLAS, MSVC): cuDNN is the cause only where
    another major is shown installed."""
    observed = read_report(_ORT_REQUIRES, "pasted").snapshot.observations("cudnn-required")
    assert [o.value for o in observed] == ["8"]
    assert "SC301" not in findings(matrix, _ORT_REQUIRES + beside)


@pytest.mark.parametrize(
    "between",
    [" which depends on ", ' N0Rc\u6b54\u5249!jWW0")n '],  # as written, and as a console garbles it
)
def test_onnxruntime_on_windows_missing_a_cudnn_dll(matrix: Matrix, between: str) -> None:
    line = (
        'FAIL : Error loading "C:\\venv\\Lib\\site-packages\\onnxruntime\\capi\\'
        f'onnxruntime_providers_cuda.dll"{between}"cudnn64_9.dll" which is missing. (Error 126)\n'
    )
    found = [f for f in check_report(line, matrix) if f.id == "SC301"]
    assert len(found) == 1 and "needs cuDNN 9 (cudnn64_9.dll)" in found[0].message
    cublas = line.replace("cudnn64_9.dll", "cublasLt64_12.dll")
    observed = read_report(cublas, "pasted").snapshot.observations("library-missing")
    assert [o.value for o in observed] == ["cublasLt64_12.dll"]
    assert "SC301" not in findings(matrix, cublas)


_TF_DSO = (
    "I tensorflow/stream_executor/dso_loader.cc:126] Couldn't open CUDA library libcudnn.so.5. "
    "LD_LIBRARY_PATH: /usr/local/cuda-8.0/lib64\n"
)
_TF_CUDNN_DSO = "I tensorflow/stream_executor/cuda/cuda_dnn.cc:3517] Unable to load cuDNN DSO\n"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        (_TF_DSO + _TF_CUDNN_DSO, "needs cuDNN 5 (libcudnn.so.5)"),
        (_TF_CUDNN_DSO, "could not load cuDNN"),
    ],
)
def test_tensorflow_0x_not_opening_cudnn(matrix: Matrix, text: str, said: str) -> None:
    """TensorFlow 0.x-1.13's dso_loader and cuda_dnn lines: one finding, the named library's when
    there is one."""
    found = [f for f in check_report(text, matrix) if f.id == "SC301"]
    assert len(found) == 1 and said in found[0].message


def test_tensorflow_0x_not_opening_cupti_or_libcuda_is_no_missing_library() -> None:
    """CUPTI is for profiling only; libcuda.so.1 is the driver probe, read as such."""
    for name in ("libcupti.so.8.0", "libcuda.so.1"):
        line = f"dso_loader.cc:105] Couldn't open CUDA library {name}. LD_LIBRARY_PATH: /x\n"
        assert not read_report(line, "pasted").snapshot.observations("library-missing"), name


def test_the_probes_warning_wrapped_stays_a_probe(matrix: Matrix) -> None:
    wrapped = (
        "When I import it I get UserWarning: CUDA initialization:\n"
        "Found no NVIDIA driver on your system. Please check that you have an NVIDIA GPU\n"
    )
    assert findings(matrix, wrapped) == {"SC532": Severity.INFO}


def test_a_code_block_under_a_reindented_paragraph_keeps_its_reading() -> None:
    """850 re-indented as a whole (under a list item): the nvcc block, four spaces deeper than
    the paragraph before it, is still a block of its own."""
    text = (
        "  Here is the output:\n\n"
        "      nvcc: NVIDIA (R) Cuda compiler driver\n"
        "      Cuda compilation tools, release 11.0, V11.0.167\n"
    )
    toolkits = [
        f for f in read_report(text, "pasted").facts if "CUDA toolkit 11.0.167" in f.describe()
    ]
    assert len(toolkits) == 1


def test_a_conda_cpu_build_row_pasted_alone(matrix: Matrix) -> None:
    row = "pytorch                   1.12.1              py3.9_cpu_0    pytorch\n"
    forge = "pytorch                   2.1.0           cpu_mkl_py310h6a7ea34_100    conda-forge\n"
    cuda = "pytorch                   1.12.1          py3.9_cuda11.3_cudnn8.3.2_0    pytorch\n"
    smi = "NVIDIA-SMI 535.104.05   Driver Version: 535.104.05   CUDA Version: 12.2\n"
    for text in (row, forge):
        assert findings(matrix, text + smi)["SC201"] is Severity.ERROR, text
    assert "SC201" not in findings(matrix, cuda + smi)


def test_xgboost_predicting_cpu_data_on_a_cuda_booster_is_healthy(matrix: Matrix) -> None:
    """XGBoost's mismatched-devices warning says the booster runs on CUDA: read, no finding."""
    warning = (
        "UserWarning: [19:40:06] WARNING: /workspace/src/common/error_msg.cc:41: Falling back to "
        "prediction using DMatrix due to mismatched devices. This might lead to higher memory "
        "usage and slower performance. XGBoost is running on: cuda:0, while the input data is on: "
        "cpu.\n"
    )
    observed = read_report(warning, "pasted").snapshot.observations("cuda-available")
    assert len(observed) == 1
    assert findings(matrix, warning) == {}


@pytest.mark.parametrize(
    ("name", "said"),
    [("cudnn64_8.dll", "needs cuDNN 8 (cudnn64_8.dll)"), ("libcudnn.so", "could not load cuDNN")],
)
def test_paddle_not_finding_its_cudnn(matrix: Matrix, name: str, said: str) -> None:
    """Paddle's dynamic loader names the library; one not of cuDNN is left to other readings."""
    line = (
        f"RuntimeError: (PreconditionNotMet) The third-party dynamic library ({name}) that Paddle "
        "depends on is not configured correctly. (error code is 126)\n"
    )
    found = [f for f in check_report(line, matrix) if f.id == "SC301"]
    assert len(found) == 1 and said in found[0].message
    mkl = line.replace(name, "mklml.dll")
    assert not read_report(mkl, "pasted").snapshot.observations("library-missing")


@pytest.mark.parametrize(
    ("said", "name"),
    [
        ("it will report lost of libcudnn.so.9, which needs cuDNN >=9", "libcudnn.so.9"),
        ("Error: missing libcudnn_cnn_infer.so.8 after the upgrade", "libcudnn_cnn_infer.so.8"),
        ("then libcudnn.so.8 not found at run time", "libcudnn.so.8"),
        ("I cannot find cudnn64_8.dll anywhere", "cudnn64_8.dll"),
    ],
)
def test_a_cudnn_library_said_missing(said: str, name: str) -> None:
    observed = read_report(said + "\n", "pasted").snapshot.observations("library-missing")
    assert [o.value for o in observed] == [name]


def test_a_cudnn_library_asked_about_or_retold_by_its_loader_is_read_once() -> None:
    assert not read_report("is libcudnn.so.8 missing?\n", "pasted").snapshot.observed
    loader = "libcudnn.so.8: cannot open shared object file: No such file or directory\n"
    observed = read_report(loader, "pasted").snapshot.observations("library-missing")
    assert [o.value for o in observed] == ["libcudnn.so.8"]


def test_onnxruntime_needing_cudnn_9_beside_cudnn_8(matrix: Matrix) -> None:
    text = (
        "In my env the default CUDA==12.1 and cuDNN==8.9.\n"
        "it will report lost of libcudnn.so.9, which needs cuDNN >=9\n"
    )
    found = [f for f in check_report(text, matrix) if f.id == "SC301"]
    assert len(found) == 1 and "needs cuDNN 9 (libcudnn.so.9) but only cuDNN 8" in found[0].message
