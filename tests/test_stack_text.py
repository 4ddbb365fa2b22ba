"""The corpus's mechanical criterion for "holds a version, message or listing" (the denominator of
issue 13's "nothing recognised" goal): each shape on a line of its kind, and prose, code and an
issue template's placeholders holding none."""

from __future__ import annotations

import pytest

from tests.stack_text import holds_stack_text


@pytest.mark.parametrize(
    "text",
    [
        "Tesla V100, cuda11.4",
        "I'm using pytorch 0.2.0_3, with CUDA 8.0 and cudnn 6.0.20",
        "- PyTorch Version (e.g., 1.0): 2.1",
        "RuntimeError: CUDNN_STATUS_NOT_SUPPORTED. This error may appear",
        "[rack1-93-slot7:186363] *** Process received signal ***",
        "open /run/nvidia-persistenced/socket: no such file or directory",
        "host:12:12 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",
        "torch==2.1.0",
        "ii  libnccl2   2.18.3-1+cuda12.2   amd64   NVIDIA Collective Communication Library",
        "libnccl-2.18.3-1+cuda12.2.x86_64",
        "lrwxrwxrwx 1 root root 17 Oct  1 libnccl.so.2 -> libnccl.so.2.18.3",
        "\tlibcuda.so.1 (libc6,x86-64) => /usr/lib/x86_64-linux-gnu/libcuda.so.1",
        "Feb 14 05:03:41 gpu-1 kernel: NVRM: GPU has fallen off the bus.",
    ],
)
def test_each_shape_holds(text: str) -> None:
    assert holds_stack_text(f"Some prose first.\n{text}\n")


@pytest.mark.parametrize(
    "text",
    [
        "I want to run the code on gpu 1. How do I do that?",
        "#- PyTorch Version (e.g., 1.10):\n#- CUDA/cuDNN version:\n"
        "#- GPU models and configuration:",
        "torch.distributed.init_process_group('nccl', init_method='tcp://localhost:9129')",
        "The regression is introduced by a recent commit which removed decode_tp_size.",
    ],
)
def test_prose_code_and_placeholders_hold_none(text: str) -> None:
    assert not holds_stack_text(text)
