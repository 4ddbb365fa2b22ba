"""The model's shape: layers, hidden size, attention heads, vocabulary. Given, or derived.

A transformer layer holds about 12·h² parameters (4·h² attention, 8·h² MLP; Kaplan et al. 2020,
"Scaling Laws for Neural Language Models", arXiv:2001.08361, section 2.1); with E experts per MoE
layer, 4·h² + 8·E·h². A missing dimension is solved from the parameter count; with neither layers
nor hidden size, h = 128·L, the aspect ratio of GPT-3 175B (96 layers, 12288 wide) and Llama 2 7B
(32 layers, 4096 wide), and heads of 128 dimensions. Derived values are estimates: the plan says
which ones it derived, and the layout rules judge only what the user gave.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from stackcheck.plan.architecture import Architecture, ParamCount
from stackcheck.plan.request import PlanRequest

HEAD_DIM = 128
ASPECT = 128  # hidden / layers
DEFAULT_VOCAB = (
    128_256  # Llama 3's; the logits term grows with it, so a large one errs on the safe side
)


class ModelShape(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    layers: int
    hidden: int
    heads: int
    vocab: int
    derived: dict[str, str]  # field -> how it was derived (absent: given)
    source: str | None = Field(default=None, description="--model: the config.json or name")
    family: str | None = None  # config.json's model_type
    experts: int | None = None
    top_k: int | None = None
    params: ParamCount | None = None  # total, all experts, without MTP modules
    active_params: ParamCount | None = None  # what one token passes through
    mtp_params: int = 0  # multi-token prediction modules, trained alongside (in memory)
    attention_dim: int | None = None  # d in the attention FLOPs 12*L*s*d; None: the hidden size


def _per_layer_factor(experts: int | None) -> int:
    """Parameters per layer in units of h²: attention 4, MLP 8 per expert."""
    return 4 + 8 * (experts or 1)


def _round_to(value: float, step: int) -> int:
    return max(step, round(value / step) * step)


def _layers_for(params: int, factor: int, hidden: int) -> int:
    layers = params / (factor * hidden**2)
    return _round_to(layers, 8) if layers >= 16 else max(1, round(layers))


def _heads_for(hidden: float) -> int:
    """Heads of HEAD_DIM for a width; a multiple of 8 from 8 heads up, so TP has divisors."""
    heads = hidden / HEAD_DIM
    return _round_to(heads, 8) if heads >= 8 else max(1, round(heads))


def shape_of(arch: Architecture) -> ModelShape:
    """The shape of a real model, from its config.json: nothing derived."""
    return ModelShape(
        layers=arch.layers,
        hidden=arch.hidden,
        heads=arch.heads,
        vocab=arch.vocab,
        derived={},
        source=arch.name,
        family=arch.family,
        experts=arch.experts,
        top_k=arch.top_k,
        params=arch.total,
        active_params=arch.active,
        mtp_params=arch.mtp,
        attention_dim=arch.attention_flops_dim,
    )


def _assumed_counts(
    params: int, experts: int | None, top_k: int | None
) -> tuple[ParamCount, ParamCount]:
    total = ParamCount(value=params, formula="P (given with --params)", expression=f"{params}")
    if not experts:
        return total, total
    k = top_k or 1
    active = round(params * (4 + 8 * k) / (4 + 8 * experts))
    return total, ParamCount(
        value=active,
        formula="P * (4 + 8*k) / (4 + 8*E) (assumed: experts as large as a dense MLP; give "
        "--model for the real share)",
        expression=f"{params} * (4 + 8*{k}) / (4 + 8*{experts})",
    )


def derive_shape(request: PlanRequest) -> ModelShape:
    assert request.params is not None
    total, active = _assumed_counts(request.params, request.moe_experts, request.top_k)
    return _derive(request, request.params).model_copy(
        update={"params": total, "active_params": active}
    )


def _derive(request: PlanRequest, params: int) -> ModelShape:
    factor = _per_layer_factor(request.moe_experts)
    per_layer = f"P ≈ L·{factor}·h²"
    derived: dict[str, str] = {}
    layers, hidden = request.layers, request.hidden
    if hidden is None:
        if layers is None:
            exact = (ASPECT * params / factor) ** (1 / 3)
            derived["hidden"] = f"{per_layer} with h = {ASPECT}·L"
        else:
            exact = (params / (factor * layers)) ** 0.5
            derived["hidden"] = f"{per_layer} with the given layers"
        hidden = _heads_for(exact) * HEAD_DIM
        derived["hidden"] += f", as whole heads of {HEAD_DIM}"
    if layers is None:
        layers = _layers_for(params, factor, hidden)
        derived["layers"] = f"{per_layer} with h = {hidden}, rounded to a multiple of 8"
    heads = request.heads
    if heads is None:
        heads = max(1, hidden // HEAD_DIM)
        derived["heads"] = f"h / {HEAD_DIM}"
    vocab = request.vocab
    if vocab is None:
        vocab = DEFAULT_VOCAB
        derived["vocab"] = f"assumed {DEFAULT_VOCAB} (Llama 3's vocabulary); give --vocab"
    return ModelShape(layers=layers, hidden=hidden, heads=heads, vocab=vocab, derived=derived)
