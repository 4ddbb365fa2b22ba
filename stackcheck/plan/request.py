"""What a user asks `stackcheck plan`: the model, its precision and optimizer, and the layout."""

from __future__ import annotations

import re
from enum import Enum

from pydantic import BaseModel, ConfigDict, Field, model_validator

_COUNT = re.compile(r"(\d+(?:\.\d+)?)\s*([kmbgt]?)", re.IGNORECASE)
_SCALE = {"": 1, "k": 10**3, "m": 10**6, "b": 10**9, "g": 10**9, "t": 10**12}


def parse_count(text: str) -> int:
    """``70B`` -> 70_000_000_000; ``1.5T``, ``350M``, ``7000000`` alike. ValueError otherwise."""
    match = _COUNT.fullmatch(text.strip())
    if text.strip().startswith("-"):
        raise ValueError(f"{text!r} is not a positive parameter count")
    if match is None:
        raise ValueError(f"{text!r} is not a parameter count (e.g. 7B, 350M, 1.5T)")
    count = round(float(match.group(1)) * _SCALE[match.group(2).lower()])
    if count < 1:
        raise ValueError(f"{text!r} is not a positive parameter count")
    return count


class Precision(str, Enum):
    BF16 = "bf16"
    FP16 = "fp16"
    FP32 = "fp32"
    FP8 = "fp8"


class GradDtype(str, Enum):
    FP32 = "fp32"
    BF16 = "bf16"


class Optimizer(str, Enum):
    ADAM = "adam"
    ADAMW = "adamw"
    SGD = "sgd"
    ADAFACTOR = "adafactor"


class StateBytes(BaseModel):
    """Bytes per parameter the training state keeps, before any sharding."""

    model_config = ConfigDict(frozen=True)

    weights: int
    gradients: int
    main_copies: int  # fp32 main weights (and, for fp16, main gradients) the optimizer steps on


# Megatron-LM's distributed-optimizer table (docs/api-guide/dist_optimizer.md): bf16 parameters
# with fp32 gradients 18 bytes, fp16 with fp16 gradients 20, fp32 16, each with Adam's 8 bytes of
# moments. FP8 training (Transformer Engine) keeps bf16 weights and fp32 main weights: as bf16.
STATE_BYTES: dict[Precision, StateBytes] = {
    Precision.BF16: StateBytes(weights=2, gradients=4, main_copies=4),
    Precision.FP16: StateBytes(weights=2, gradients=2, main_copies=8),
    Precision.FP32: StateBytes(weights=4, gradients=4, main_copies=0),
    Precision.FP8: StateBytes(weights=2, gradients=4, main_copies=4),
}

# fp32 moments per parameter: Adam keeps two, SGD with momentum one, Adafactor factors its second
# moment into row and column sums (Shazeer and Stern 2018), a negligible O(rows + columns).
MOMENT_BYTES: dict[Optimizer, int] = {
    Optimizer.ADAM: 8,
    Optimizer.ADAMW: 8,
    Optimizer.SGD: 4,
    Optimizer.ADAFACTOR: 0,
}


class PlanRequest(BaseModel):
    """The command line of `stackcheck plan`, validated. ``None`` means "choose for me"."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    params: int | None = Field(
        default=None, gt=0, description="Total parameters (all experts included)"
    )
    model: str | None = Field(
        default=None, description="A config.json path, its directory, or a bundled model name"
    )
    precision: Precision = Precision.BF16
    grad_dtype: GradDtype | None = Field(
        default=None, description="Gradient bytes: fp32 (Megatron) or bf16 (FSDP, DeepSpeed)"
    )
    optimizer: Optimizer = Optimizer.ADAMW
    zero: int = Field(default=0, ge=0, le=3, description="ZeRO stage; FSDP full shard is 3")
    fsdp: bool = False
    seq_len: int = Field(default=4096, gt=0)
    micro_batch: int = Field(default=1, gt=0)
    layers: int | None = Field(default=None, gt=0)
    hidden: int | None = Field(default=None, gt=0)
    heads: int | None = Field(default=None, gt=0)
    vocab: int | None = Field(default=None, gt=0)
    activation_checkpointing: bool = False
    eager_attention: bool = Field(
        default=False, description="Attention keeps its s x s score matrices (no fused kernel)"
    )
    moe_experts: int | None = Field(default=None, gt=0)
    top_k: int | None = Field(default=None, gt=0)
    instance: str | None = None
    nodes: int | None = Field(default=None, gt=0)
    tp: int | None = Field(default=None, gt=0)
    pp: int | None = Field(default=None, gt=0)
    cp: int | None = Field(default=None, gt=0)
    dp: int | None = Field(default=None, gt=0)
    ep: int | None = Field(default=None, gt=0)
    max_gpus: int = Field(default=4096, gt=0, description="Largest job the instance search tries")
    global_batch: int | None = Field(
        default=None, gt=0, description="Sequences per optimizer step (default: about 4M tokens)"
    )
    virtual_stages: int = Field(default=1, gt=0, description="Interleaved pipeline stages")
    tp_comm_overlap: bool = False

    @property
    def zero_stage(self) -> int:
        return 3 if self.fsdp else self.zero

    @model_validator(mode="after")
    def _one_model(self) -> PlanRequest:
        if (self.params is None) == (self.model is None):
            raise ValueError("give one of --params and --model")
        return self
