"""Package listings, other tools' environment reports and one-liners, each read from real text
posted in a public thread (the thread is named above each sample)."""

from __future__ import annotations

import pytest

from stackcheck.check.engine import check
from stackcheck.ingest import Triage, read_report
from stackcheck.matrix import load_matrix


def described(text: str) -> list[str]:
    return [f.describe() for f in read_report(text, "t.txt").facts]


def formats(triage: Triage) -> set[str]:
    return {p.segment.format.name for p in triage.segments}


def test_dpkg_l_reads_installed_packages_only() -> None:
    # tensorflow/tensorflow#52530: removed (rc) driver packages next to the installed one
    text = (
        "rc  nvidia-compute-utils-450                        450.102.04-0ubuntu0.20.04.1   amd64"
        "        NVIDIA compute utilities\n"
        "rc  nvidia-compute-utils-460                        460.91.03-0ubuntu0.20.04.1   amd64"
        "        NVIDIA compute utilities\n"
        "ii  nvidia-compute-utils-470                        470.57.02-0ubuntu1   amd64"
        "        NVIDIA compute utilities\n"
    )
    assert described(text) == [
        "NVIDIA driver 470.57.02 package=nvidia-compute-utils-470 470.57.02-0ubuntu1"
    ]


def test_dpkg_l_libnccl2_with_its_cuda() -> None:
    # karpathy/llm.c#742
    text = (
        "ii  libvncclient1:amd64                        0.9.13+dfsg-3build2                     "
        "amd64        API to write one's own VNC server - client library\n"
        "ii  libnccl2                                   2.22.3-1+cuda12.2                       "
        "amd64        NVIDIA Collective Communication Library (NCCL) Runtime\n"
    )
    triage = read_report(text, "t.txt")
    assert "system_packages" in formats(triage)
    assert [f.describe() for f in triage.facts] == [
        "NCCL 2.22.3 CUDA 12.2 package=libnccl2 2.22.3-1+cuda12.2",
        "observed nccl-deb: 2.22.3",  # the .deb, whose packaging faults apply
    ]


def test_dpkg_l_transitional_and_never_installed_lines() -> None:
    # NVIDIA/nvidia-container-toolkit#154
    text = (
        "un  libnvidia-ml1                       <none>                       <none>       "
        "(no description available)\n"
        "ii  nvidia-compute-utils-515            520.56.06-0lambda0.22.04.3   amd64        "
        "Transitional package for nvidia-compute-utils-520\n"
        "ii  nvidia-compute-utils-520            520.56.06-0lambda0.22.04.3   amd64        "
        "NVIDIA compute utilities\n"
    )
    versions = {f.split()[2] for f in described(text)}
    assert versions == {"520.56.06"}


def test_apt_search_installed_packages() -> None:
    # NVIDIA/nccl#114
    text = (
        "root@531624e2e79d:/home/hzs# apt search nccl\nSorting... Done\nFull Text Search... Done\n"
        "libnccl-dev/now 2.4.7-1+cuda10.0 amd64 [installed,local]\n"
        "  NVIDIA Collectives Communication Library (NCCL) Development Files\n\n"
        "libnccl2/now 2.4.7-1+cuda10.0 amd64 [installed,local]\n"
        "  NVIDIA Collectives Communication Library (NCCL) Runtime\n"
    )
    assert described(text) == [
        "NCCL 2.4.7 CUDA 10.0 package=libnccl2 2.4.7-1+cuda10.0",
        "observed nccl-deb: 2.4.7",
    ]


def test_rpm_qa() -> None:
    # NVIDIA/nccl#554 and negativo17/nvidia-driver#43
    text = (
        "[root@centos home]# rpm -qa | grep nccl\n"
        "libnccl-2.9.9-1+cuda11.3.x86_64\n"
        "libnccl-static-2.9.9-1+cuda11.3.x86_64\n"
        "libnccl-devel-2.9.9-1+cuda11.3.x86_64\n"
        "nvidia-driver-390.25-1.fc27.x86_64\n"
        "nvidia-driver-cuda-390.25-1.fc27.x86_64\n"
    )
    facts = described(text)
    assert "NCCL 2.9.9 CUDA 11.3 package=libnccl 2.9.9-1+cuda11.3" in facts
    assert "NVIDIA driver 390.25 package=nvidia-driver 390.25-1.fc27" in facts
    assert len(facts) == 3


def test_tree_listing_of_a_local_nccl() -> None:
    # NVIDIA/nccl#280
    text = (
        "usr/\n├── include\n│   └── nccl.h\n├── lib64\n│   ├── libnccl.so -> libnccl.so.2\n"
        "│   ├── libnccl.so.2 -> libnccl.so.2.5.6\n│   ├── libnccl.so.2.5.6\n"
        "│   └── libnccl_static.a\n"
    )
    assert set(described(text)) == {"NCCL 2.5.6"}


def test_accelerate_env() -> None:
    # huggingface/accelerate#3446
    text = (
        "- `Accelerate` version: 0.34.2\n- Platform: Linux-6.8.0-52-generic-x86_64-with-glibc2.31\n"
        "- Python version: 3.11.10\n- Numpy version: 2.1.1\n"
        "- PyTorch version (GPU?): 2.3.0+cu121 (True)\n- PyTorch XPU available: False\n"
        "- System RAM: 251.53 GB\n- GPU type: NVIDIA RTX A6000\n- `Accelerate` default config:\n"
        "        Not found\n"
    )
    triage = read_report(text, "t.txt")
    assert "hf_env" in formats(triage)
    assert [f.describe() for f in triage.facts] == [
        "PyTorch 2.3.0+cu121 CUDA 12.1 cpu_only=no",
        "GPU: NVIDIA RTX A6000",
    ]


def test_accelerate_env_without_a_gpu() -> None:
    # huggingface/accelerate#280 (the PR adding the command, its sample output)
    text = (
        "- `accelerate` version: 0.6.0.dev0\n"
        "- Platform: Linux-5.13.0-35-generic-x86_64-with-Ubuntu-20.04-focal\n"
        "- Python version: 3.6.15\n- Numpy version: 1.19.5\n"
        "- PyTorch version (GPU?): 1.10.2+cu102 (False)\n"
    )
    assert described(text) == [
        "PyTorch 1.10.2+cu102 CUDA 10.2 cpu_only=no",
        "observed cuda-unavailable: PyTorch sees no GPU (False)",
    ]


def test_ds_report_environment_info() -> None:
    # deepspeedai/DeepSpeed#6762
    text = (
        "DeepSpeed general environment info:\n"
        "torch install path ............... ['/home/deepspeed/test/trans-venv/lib/python3.12/"
        "site-packages/torch']\n"
        "torch version .................... 2.3.0+cu121\n"
        "deepspeed info ................... 0.15.5+unknown, unknown, unknown\n"
        "torch cuda version ............... 12.1\n"
        "torch hip version ................ None\n"
        "nvcc version ..................... 12.0\n"
        "deepspeed wheel compiled w. ...... torch 0.0, cuda 0.0\n"
        "shared memory (/dev/shm) size .... 125.77 GB\n"
    )
    triage = read_report(text, "t.txt")
    assert formats(triage) == {"ds_report"}
    facts = [f.describe() for f in triage.facts]
    assert facts[0] == "PyTorch 2.3.0+cu121 CUDA 12.1 cpu_only=no"
    assert facts[2].startswith("CUDA toolkit 12.0")
    assert facts[3] == f"runtime shm_bytes = {int(125.77 * (1 << 30))}"


def test_ds_report_op_table_is_recognised() -> None:
    # deepspeedai/DeepSpeed#2676
    text = (
        "--------------------------------------------------\n"
        "DeepSpeed C++/CUDA extension op report\n"
        "--------------------------------------------------\n"
        "op name ................ installed .. compatible\n"
        "--------------------------------------------------\n"
        "async_io ............... [NO] ....... [OKAY]\n"
        "cpu_adam ............... [NO] ....... [OKAY]\n"
    )
    assert "ds_report" in formats(read_report(text, "t.txt"))


def test_torch_config_show() -> None:
    # pytorch/pytorch#19110
    text = (
        "PyTorch built with:\n  - GCC 4.8\n  - NNPACK is enabled\n  - CUDA Runtime 9.2\n"
        "  - NVCC architecture flags: -gencode;arch=compute_52,code=sm_52\n"
        "  - CuDNN 7.4.2\n    - Built with CuDNN 7.1.2\n  - Magma 2.5.0\n"
    )
    assert described(text) == [
        "PyTorch (version not stated) CUDA 9.2",
        "PyTorch (version not stated) sm_52",
        "cuDNN 7.4.2 loaded=yes",
    ]


def test_python_one_liners() -> None:
    # robosense2025/track5#11
    text = (
        '(track5-env) u2025170778@n1:~/jupyterlab/track5$ python -c "import torch; '
        'print(torch.__version__)"\n2.1.0+cu118\n'
        '(track5-env) u2025170778@n1:~/jupyterlab/track5$ python -c "import torch; '
        'print(torch.cuda.is_available())"\nTrue\n'
    )
    assert described(text) == [
        "PyTorch 2.1.0+cu118 CUDA 11.8 cpu_only=no",
        "observed cuda-available: torch.cuda.is_available() is True",
    ]


def test_device_count_in_a_one_liner() -> None:
    # pytorch/pytorch#131667 (the count NVML gives on a MIG host, then a traceback)
    text = (
        'python -c "import torch; import time; print(torch.cuda.device_count()); '
        'print(torch.randn(1).cuda())"\n8 # !!!\n'
    )
    assert described(text) == ["observed cuda-available: torch.cuda.device_count() is 8"]
    assert described(">>> torch.cuda.device_count()\n0\n") == [
        "observed cuda-unavailable: torch.cuda.device_count() is 0"
    ]


def test_get_arch_list_in_a_repl() -> None:
    # pytorch/pytorch#182250
    text = (
        ">>> import torch\n>>> torch.__version__\n'2.11.0+cu126'\n"
        ">>> torch.cuda.get_arch_list()\n"
        "['sm_50', 'sm_60', 'sm_70', 'sm_75', 'sm_80', 'sm_86', 'sm_90']\n"
    )
    assert described(text) == [
        "PyTorch 2.11.0+cu126 CUDA 12.6 cpu_only=no",
        "PyTorch (version not stated) sm_50 sm_60 sm_70 sm_75 sm_80 sm_86 sm_90",
    ]


def test_a_value_told_on_the_same_line() -> None:
    # NVIDIA/nccl#809
    text = (
        'But,When I input `python -c "import torch;print(torch.cuda.nccl.version())"`  in '
        "Terminal, I can see (2, 10, 3)."
    )
    assert described(text) == ["observed nccl-loaded: 2.10.3"]


def test_a_launcher_named_in_a_sentence_keeps_its_settings() -> None:
    """The bug: "torchrun" in a sentence opened a launcher segment that dropped the setting."""
    with_launcher = "We launch with torchrun on 8 GPUs and it only works with NCCL_P2P_DISABLE=1."
    without = "It only works with NCCL_P2P_DISABLE=1."
    assert described(with_launcher) == described(without) == ["environment NCCL_P2P_DISABLE=1"]
    report = check(read_report(with_launcher, "t.txt").snapshot, load_matrix())
    assert "SC601" in {f.id for f in report.findings}


def test_a_launcher_command_still_reads_only_what_it_passes() -> None:
    text = "NCCL_DEBUG=INFO torchrun --nproc_per_node 8 train.py NCCL_P2P_DISABLE=1"
    assert described(text) == ["environment NCCL_DEBUG=INFO"]


def test_prose_states_the_driver_but_not_a_suggested_one() -> None:
    assert described("Our driver is 535.104.05 on all nodes.") == [
        "NVIDIA driver 535.104.05 stated=prose"
    ]
    assert described("Please upgrade the driver to 550.54.15 or later.") == []


def test_transformers_env_inside_details() -> None:
    # huggingface/diffusers#7403 (transformers-cli env, pasted inside <details> and a fence)
    text = (
        "<details>\n  <summary>transformers-cli env</summary>\n\n  ```sh\n"
        "  Copy-and-paste the text below in your GitHub issue and FILL OUT the two last points.\n\n"
        "  - `transformers` version: 4.38.2\n"
        "  - Platform: Linux-6.5.0-26-generic-x86_64-with-glibc2.35\n"
        "  - Python version: 3.10.12\n  - Huggingface_hub version: 0.21.4\n"
        "  - Safetensors version: 0.4.2\n  - Accelerate version: 0.28.0\n"
        "  - Accelerate config:  not found\n  - PyTorch version (GPU?): 2.2.1+cu121 (True)\n"
        "  - Tensorflow version (GPU?): not installed (NA)\n"
        "  - Flax version (CPU?/GPU?/TPU?): 0.8.2 (CPU)\n"
        "  - Using GPU in script?: <fill in>\n"
        "  - Using distributed or parallel set-up in script?: <fill in>\n  ```\n</details>\n"
    )
    triage = read_report(text, "t.txt")
    assert "hf_env" in formats(triage)
    assert [f.describe() for f in triage.facts] == ["PyTorch 2.2.1+cu121 CUDA 12.1 cpu_only=no"]


def test_huggingface_cli_env_is_recognised() -> None:
    # huggingface/diffusers#7403 (huggingface-cli env: no PyTorch line, nothing to check)
    text = (
        "- huggingface_hub version: 0.21.4\n"
        "- Platform: Linux-6.5.0-26-generic-x86_64-with-glibc2.35\n"
        "- Python version: 3.10.12\n- Running in iPython ?: No\n- Running in notebook ?: No\n"
    )
    assert formats(read_report(text, "t.txt")) == {"hf_env"}


def test_nvcc_next_to_a_failing_nvidia_smi() -> None:
    # qixuema/envs#4
    text = (
        "```JavaScript\n"
        "NVIDIA-SMI has failed because it couldn\u2018t communicate with the NVIDIA driver.\n"
        "Make sure that the latest NVIDIA driver is installed and running.\n```\n"
        "第二步\uff0c使用 nvcc -V 检查驱动和 cuda\n```JavaScript\n"
        "nvcc: NVIDIA (R) Cuda compiler driver\n"
        "Copyright (c) 2005-2018 NVIDIA Corporation\n"
        "Built on Sat_Aug_25_21:08:01_CDT_2018\n"
        "Cuda compilation tools, release 10.0, V10.0.130\n```\n"
    )
    facts = described(text)
    assert any(f.startswith("CUDA toolkit 10.0.130") for f in facts)
    assert any(f.startswith("observed no-gpu: NVIDIA-SMI has failed") for f in facts)


def test_torch_config_build_settings() -> None:
    # pytorch/pytorch#54829 (torch 1.8.1, its Build settings item cut after USE_CUDA)
    text = (
        "PyTorch built with:\n  - GCC 7.3\n  - CUDA Runtime 11.1\n"
        "  - Build settings: BLAS_INFO=mkl, BUILD_TYPE=Release, CUDA_VERSION=11.1, "
        "CUDNN_VERSION=8.0.5, CXX_COMPILER=/opt/rh/devtoolset-7/root/usr/bin/c++, CXX_FLAGS= "
        "-Wno-deprecated -fvisibility-inlines-hidden -DUSE_PTHREADPOOL -Werror=format, "
        "TORCH_VERSION=1.8.1, USE_CUDA=ON, USE_CUDNN=ON\n"
    )
    assert described(text) == [
        "PyTorch (version not stated) CUDA 11.1",
        "PyTorch 1.8.1",
        "PyTorch (version not stated) CUDA 11.1",
    ]


@pytest.mark.parametrize(
    ("settings", "cpu_only"),
    [
        # Made in the item's shape (no stored thread shows a CPU, ROCm or XPU build's item
        # whole): the keys as the CUDA build above names them; CMake spells off as OFF or 0
        ("BUILD_TYPE=Release, TORCH_VERSION=2.1.0, USE_CUDA=OFF, USE_CUDNN=OFF", True),
        ("BUILD_TYPE=Release, TORCH_VERSION=2.1.0, USE_CUDA=0, USE_CUDNN=0", True),
        # a ROCm or XPU build has no CUDA either, and is no CPU build
        ("TORCH_VERSION=2.5.0, USE_CUDA=OFF, USE_ROCM=ON, USE_XPU=OFF", False),
        ("TORCH_VERSION=2.7.0, USE_CUDA=OFF, USE_ROCM=OFF, USE_XPU=ON", False),
        ("TORCH_VERSION=2.1.0, USE_CUDA=ON, USE_CUDNN=ON", False),
    ],
)
def test_torch_config_build_without_cuda(settings: str, cpu_only: bool) -> None:
    text = f"PyTorch built with:\n  - GCC 9.3\n  - Build settings: {settings}\n"
    said = [d for d in described(text) if "cpu_only=yes" in d]
    assert bool(said) is cpu_only
