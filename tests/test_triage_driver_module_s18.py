"""Sprint 18's driver readings: a kernel module that does not run the GPU (SC1327), a firmware
setting behind an uninitialised GPU, and TensorFlow's lookup of the unversioned libcudnn.so;
on shapes of text beyond the corpus reports they were written for (each cited)."""

from __future__ import annotations

import pytest

from stackcheck.check.model import Severity
from stackcheck.matrix import Matrix
from tests.test_triage_gpu_stack import findings, loud

# NVIDIA/open-gpu-kernel-modules#862 (1693): an RTX 5090 the driver could not initialise.
_RM_INIT = (
    "# nvidia-smi\n"
    "No devices were found\n"
    "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: rm_init_adapter failed, device minor "
    "number 0\n"
    "Jul 01 22:55:07 gpu kernel: NVRM: GPU 0000:01:00.0: RmInitAdapter failed! (0x22:0x56:884)\n"
)


@pytest.mark.parametrize(
    "module",
    [
        # NVIDIA/nvidia-docker#481 (1644), kmod with the modules folder
        "modprobe: FATAL: Module nvidia_uvm not found in directory /lib/modules/4.4.0-83-generic",
        # NVIDIA/nvidia-docker#291 (1643), older kmod
        "modprobe: FATAL: Module nvidia not found.",
        "modprobe: FATAL: Module nvidia-drm not found in directory /lib/modules/6.8.0-45-generic",
        "nvidia-docker | 2017/01/16 16:55:02 Error: Could not load UVM kernel module",
        "Error: Could not load UVM kernel module. Is nvidia-modprobe installed?",
        "ERROR: Unable to load the kernel module 'nvidia.ko'.  This happens most frequently when "
        "this kernel module was built against the wrong or improperly configured kernel sources",
        # NVIDIA/open-gpu-kernel-modules#230 (1690), with and without dmesg's clock
        "[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.",
        "NVRM: To force use of Open nvidia.ko on other GPUs, see the",
        # NVIDIA/open-gpu-kernel-modules#322 (1692), wrapped by the kernel and quoted
        "               NVRM: nvidia.ko because it does not include the required GPU",
        "> NVRM: installed in this system is not supported by open nvidia.ko because it does not "
        "include the required GPU System Processor (GSP).",
    ],
)
def test_a_kernel_module_that_does_not_run_is_a_driver_error(matrix: Matrix, module: str) -> None:
    assert findings(matrix, module).get("SC1327") is Severity.ERROR


@pytest.mark.parametrize(
    "other",
    [
        # the peer-memory module has its own reading (gdr), not the driver's
        "modprobe: FATAL: Module nvidia-peermem not found in directory "
        "/lib/modules/6.8.0-1059-azure",
        "modprobe: FATAL: Module nvidia_peermem not found.",
        # a machine without the device: read as such elsewhere
        "modprobe: ERROR: could not insert 'nvidia': No such device",
        "NVRM: GPU 0000:98:00.0: RmInitAdapter failed! (0x62:0x65:1792)",
    ],
)
def test_other_modules_and_refusals_are_not_this_rule(matrix: Matrix, other: str) -> None:
    assert "SC1327" not in findings(matrix, other)


def test_rm_init_failed_is_left_to_the_module_reading_when_the_module_refused(
    matrix: Matrix,
) -> None:
    """1690: the open module refused a GeForce GPU, then RmInitAdapter failed: the driver-cuda
    finding says why; the 'replace the GPU' advice of SC1117 would mislead."""
    text = (
        "[    3.513141] NVRM: Open nvidia.ko is only ready for use on Data Center GPUs.\n"
        "[    3.824916] NVRM: GPU 0000:04:00.0: RmInitAdapter failed! (0x63:0x0:1905)\n"
    )
    got = findings(matrix, text)
    assert got.get("SC1327") is Severity.ERROR
    assert "SC1117" not in got


@pytest.mark.parametrize(
    "said",
    [
        # NVIDIA/open-gpu-kernel-modules#862 (1693)
        "Have you  activated both **Resizable BAR** and **Above 4G Decoding** in the BIOS? ",
        "Above 4G decoding was disabled in the UEFI.",
        "Fixed after I enabled ReBAR and Above 4GB MMIO in the firmware setup.",
        "Re-Size BAR support: off",
    ],
)
def test_a_gpu_not_initialised_with_the_bar_settings_named_is_advice(
    matrix: Matrix, said: str
) -> None:
    text = f"{said}\n\n```\n{_RM_INIT}```\n"
    got = findings(matrix, text)
    assert got.get("SC1117") is Severity.INFO
    assert got.get("SC532") is Severity.INFO
    assert not loud(matrix, text)


def test_a_gpu_not_initialised_without_the_firmware_named_stays_an_error(matrix: Matrix) -> None:
    got = findings(matrix, _RM_INIT)
    assert got.get("SC1117") is Severity.ERROR
    assert got.get("SC532") is Severity.ERROR


def test_the_bar_settings_named_alone_say_nothing(matrix: Matrix) -> None:
    assert not findings(matrix, "Resizable BAR and Above 4G Decoding are enabled in the BIOS.")


# NVIDIA/nvidia-docker#160 (1642): TensorFlow 0.8 opening the bare libcudnn.so.
_TF_BARE = (
    "    I tensorflow/stream_executor/dso_loader.cc:99] Couldn't open CUDA library libcudnn.so. "
    "LD_LIBRARY_PATH: /usr/local/nvidia/lib:/usr/local/nvidia/lib64:\n"
)


@pytest.mark.parametrize(
    "text",
    [
        _TF_BARE
        + "    I tensorflow/stream_executor/cuda/cuda_dnn.cc:1562] Unable to load cuDNN DSO\n",
        _TF_BARE,
        _TF_BARE.replace("dso_loader.cc:99", "dso_loader.cc:108"),
    ],
)
def test_a_lookup_of_the_unversioned_libcudnn_is_advice(matrix: Matrix, text: str) -> None:
    assert findings(matrix, text).get("SC301") is Severity.INFO


@pytest.mark.parametrize(
    "text",
    [
        # tensorflow/tensorflow#62: a versioned name is the runtime of that major, missing
        "I tensorflow/stream_executor/dso_loader.cc:126] Couldn't open CUDA library "
        "libcudnn.so.5. LD_LIBRARY_PATH: /usr/local/cuda-8.0/lib64\n"
        "I tensorflow/stream_executor/cuda/cuda_dnn.cc:1062] Unable to load cuDNN DSO.\n",
        "I tensorflow/stream_executor/cuda/cuda_dnn.cc:1062] Unable to load cuDNN DSO.\n",
        _TF_BARE
        + "Couldn't open CUDA library libcudnn.so.6. LD_LIBRARY_PATH: /usr/local/cuda/lib64\n",
    ],
)
def test_a_missing_cudnn_otherwise_stays_an_error(matrix: Matrix, text: str) -> None:
    assert findings(matrix, text).get("SC301") is Severity.ERROR


# NVIDIA/gpu-operator#389 (1634): nvidia-smi inside the validator image, a K80 on R470.
_SMI = """+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.82.01    Driver Version: 470.82.01    CUDA Version: {cuda}     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|                               |                      |               MIG M. |
|===============================+======================+======================|
|   0  {gpu}           Off  | 00000000:00:1E.0 Off |                    0 |
| N/A   34C    P8    27W / 149W |      0MiB / 11441MiB |      0%      Default |
|                               |                      |                  N/A |
+-------------------------------+----------------------+----------------------+
"""


def test_a_compat_libcuda_past_the_gpus_last_branch_is_an_error(matrix: Matrix) -> None:
    """CUDA 11.6's compat libcuda is R510; a Kepler K80 ends at R470."""
    text = _SMI.format(cuda="11.6", gpu="Tesla K80")
    assert findings(matrix, text).get("SC104") is Severity.ERROR


@pytest.mark.parametrize(
    ("cuda", "gpu"),
    [
        ("11.4", "Tesla K80"),  # R470's own CUDA: no compat library in use
        ("11.6", "Tesla T4 "),  # a Turing part: R510+ supports it (SC105's case, at most)
    ],
)
def test_the_drivers_own_cuda_or_a_gpu_the_compat_branch_supports_is_not_this(
    matrix: Matrix, cuda: str, gpu: str
) -> None:
    assert "SC104" not in findings(matrix, _SMI.format(cuda=cuda, gpu=gpu))


@pytest.mark.parametrize(
    ("line", "rule"),
    [
        # NVIDIA/nvidia-docker#564 (1641): TensorFlow 0.x refuses another cuDNN patch level
        (
            "tensorflow/stream_executor/cuda/cuda_dnn.cc:346] **Loaded cudnn library: 4008 but "
            "source was compiled against 4007.  If using a binary install, upgrade your cudnn "
            "library to match.",
            "SC301",
        ),
        (
            "E tensorflow/stream_executor/cuda/cuda_dnn.cc:378] Loaded cudnn library: 5005 but "
            "source was compiled against 5110.",
            "SC301",
        ),
        # NVIDIA/apex#1527 (1664): torch 1.12's extension builder predates sm_90
        ("ValueError: Unknown CUDA arch (9.0) or GPU not supported", "SC202"),
        ('    raise ValueError(f"Unknown CUDA arch (12.0) or GPU not supported")', "SC202"),
        ("ValueError: Unknown CUDA arch (8.9+PTX) or GPU not supported", "SC202"),
    ],
)
def test_cudnn_and_arch_refusals_of_older_builds(matrix: Matrix, line: str, rule: str) -> None:
    assert findings(matrix, line).get(rule) is Severity.ERROR


@pytest.mark.parametrize(
    "said",
    [
        # pytorch/test-infra#6530 (1665)
        "trying to upgrade CUDA from 12.4 to 12.6.  It turns out that the NVIDIA driver that we "
        "are currently using `550.54.15` is too old.",
        "The driver we use 535.104 is too old for the CUDA 12.4 image.",
        "Our driver which I installed is outdated for cuda 12.",
    ],
)
def test_a_driver_said_too_old_through_a_relative_clause(matrix: Matrix, said: str) -> None:
    assert findings(matrix, said).get("SC101") is Severity.WARNING


@pytest.mark.parametrize(
    "said",
    [
        "Is the driver that we are using too old for CUDA 12.6?",
        "The driver that we are currently using is not too old for CUDA 12.4, it works fine.",
    ],
)
def test_a_driver_asked_or_denied_too_old_is_not_read(matrix: Matrix, said: str) -> None:
    assert "SC101" not in findings(matrix, said)


@pytest.mark.parametrize(
    "built",
    [
        # NVIDIA/open-gpu-kernel-modules#526
        "Consult /var/lib/dkms/nvidia/390.157/build/make.log for more information.",
        # NVIDIA/open-gpu-kernel-modules#635
        "dkms autoinstall on 6.8.10-300.fc40.x86_64/x86_64 failed for nvidia(10)",
        # microsoft/pai#3413, nvidia-installer through DKMS
        "ERROR: Failed to install the kernel module through DKMS.  No kernel module was "
        "installed; please",
        "> Consult /var/lib/dkms/nvidia-current/367.44/build/make.log for more information.",
    ],
)
def test_a_dkms_build_of_the_nvidia_module_that_failed(matrix: Matrix, built: str) -> None:
    assert findings(matrix, built).get("SC1327") is Severity.ERROR


def test_another_modules_dkms_failure_is_not_the_drivers(matrix: Matrix) -> None:
    """raphael/linux-samus#110: DKMS failing for ndiswrapper says nothing of the GPU driver."""
    other = (
        "Error! Bad return status for module build on kernel: 4.4.1ph+ (x86_64)\n"
        "Consult /var/lib/dkms/ndiswrapper/1.59/build/make.log for more information.\n"
    )
    assert "SC1327" not in findings(matrix, other)
