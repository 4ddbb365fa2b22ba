"""The precision a GPU can train in: bf16 and FlashAttention-2 need compute capability 8.0
(Ampere), FP8 needs 8.9 (Ada, Hopper). Asked for more than the GPU has, the plan uses the next
precision it does have, and says so.

Sources: NVIDIA's CUDA C++ Programming Guide, "Compute Capabilities" (bf16 arithmetic from 8.0,
FP8 tensor cores from 8.9); FlashAttention-2's README (Ampere, Ada or Hopper GPUs); Transformer
Engine's FP8 support (Ada and Hopper and newer).
"""

from __future__ import annotations

from dataclasses import dataclass

from stackcheck import versions
from stackcheck.matrix.models import Gpu
from stackcheck.plan.request import Precision

BF16_FROM = "8.0"
FP8_FROM = "8.9"
FLASH_ATTENTION_2_FROM = "8.0"


@dataclass(frozen=True)
class Effective:
    precision: Precision
    notes: tuple[str, ...]


def _below(capability: str, floor: str) -> bool:
    return versions.key(capability) < versions.key(floor)


def effective(asked: Precision, gpu: Gpu | None) -> Effective:
    """What ``asked`` becomes on ``gpu`` (unknown GPU: as asked)."""
    if gpu is None:
        return Effective(asked, ())
    cc, name = gpu.compute_capability, gpu.name
    notes: list[str] = []
    precision = asked
    if precision is Precision.FP8 and _below(cc, FP8_FROM):
        precision = Precision.BF16
        notes.append(f"FP8 needs compute capability {FP8_FROM}; the {name} has {cc}: bf16")
    if precision is Precision.BF16 and _below(cc, BF16_FROM):
        precision = Precision.FP16
        notes.append(
            f"bf16 needs compute capability {BF16_FROM}; the {name} has {cc}: fp16 with loss "
            "scaling (Megatron's fp16 state: 20 bytes per parameter with Adam)"
        )
    if _below(cc, FLASH_ATTENTION_2_FROM) and precision is not Precision.FP32:
        notes.append(
            f"FlashAttention-2 needs compute capability {FLASH_ATTENTION_2_FROM}: on the {name} "
            "attention runs PyTorch SDPA's memory-efficient kernel (no s x s scores kept, slower)"
        )
    return Effective(precision, tuple(notes))
