"""GPU memory per GPU of a training job, term by term, each with its formula.

- Parameters, gradients, optimizer states: bytes per parameter from Megatron-LM's distributed
  optimizer table (bf16 2 + 4 + 12 = 18; fp32 16), divided by TP x PP (x EP for experts), and by
  the data-parallel shard degree DP x CP for what ZeRO shards (Rajbhandari et al. 2020, "ZeRO",
  arXiv:1910.02054): stage 1 optimizer states, 2 also gradients, 3 (and FSDP) also parameters.
- Activations: Korthikanti et al. 2022, "Reducing Activation Recomputation in Large Transformer
  Models" (arXiv:2205.05198), table 2, with sequence parallelism alongside TP: s·b·h·34/TP bytes
  per layer with fused attention, plus 5·a·s²·b/TP when attention keeps its score matrices; an MoE
  layer's MLP part (19 of the 34) counts once per routed expert (top-k). Under 1F1B pipelining the
  first stage holds PP micro-batches of L/PP layers: L layers' worth. Full checkpointing keeps
  each layer's 2·s·b·h input and recomputes one layer at a time. The loss adds fp32 logits,
  4·s·b·V/TP, on the last stage.
- A reserve for what no formula gives exactly: the CUDA context, cuBLAS workspaces and NCCL
  buffers (a fixed 2 GiB), and the caching allocator's fragmentation (5% of the rest). These two
  numbers are judgement, not measurement; the report shows them as such.
"""

from __future__ import annotations

from dataclasses import dataclass

from stackcheck.plan.formula import Quantity, total
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.request import (
    MOMENT_BYTES,
    STATE_BYTES,
    GradDtype,
    Optimizer,
    Precision,
    StateBytes,
)
from stackcheck.plan.shape import ModelShape

GIB = 2**30
RESERVE_BYTES = 2 * GIB
FRAGMENTATION = 0.05
# A job "fits" only with this share of GPU memory free beyond the reserve: the estimate's
# omissions (see docs/plan.md) and allocator peaks are of that order. Less is "tight".
HEADROOM = 0.05
ATTENTION_TERMS = 15  # attention block 11 + two layer norms 4, per s·b·h (Korthikanti section 4)
MLP_TERMS = 19  # the MLP block's share of the 34


@dataclass(frozen=True)
class Settings:
    """Everything about the job that is not its layout."""

    params: int
    precision: Precision
    optimizer: Optimizer
    zero: int
    checkpointing: bool
    eager_attention: bool
    seq_len: int
    micro_batch: int
    shape: ModelShape
    experts: int | None
    top_k: int
    expert_params: int | None = None  # counted from the architecture; None: the 8E/(4+8E) share
    grad_dtype: GradDtype | None = None  # None: the precision's default (fp32 for bf16)
    global_batch: int | None = None  # sequences per step; None: about 4M tokens
    virtual_stages: int = 1  # interleaved pipeline schedule
    tp_comm_overlap: bool = False  # Transformer Engine overlaps TP traffic with GEMMs

    @property
    def state(self) -> StateBytes:
        return state_bytes(self.precision, self.grad_dtype)

    @property
    def state_bytes_per_param(self) -> int:
        state = self.state
        return state.weights + state.gradients + state.main_copies + MOMENT_BYTES[self.optimizer]


def state_bytes(precision: Precision, grad_dtype: GradDtype | None) -> StateBytes:
    """Bytes per parameter; bf16 gradients (FSDP's and DeepSpeed's practice) take 2 instead of
    Megatron's fp32 main gradients, 4."""
    state = STATE_BYTES[precision]
    if grad_dtype is GradDtype.BF16 and precision in (Precision.BF16, Precision.FP8):
        return state.model_copy(update={"gradients": 2})
    if grad_dtype is GradDtype.FP32 and precision is Precision.FP16:
        # fp32 gradients replace fp16 ones and the separate fp32 main gradients
        return state.model_copy(update={"gradients": 4, "main_copies": 4})
    return state


@dataclass(frozen=True)
class Term:
    key: str
    label: str
    quantity: Quantity


@dataclass(frozen=True)
class Estimate:
    terms: tuple[Term, ...]
    total: Quantity
    capacity: Quantity
    activations_without_checkpointing: Quantity
    activations_with_checkpointing: Quantity
    symbols: dict[str, tuple[float, str]]

    @property
    def headroom(self) -> float:
        return self.capacity.value - self.total.value

    @property
    def fits(self) -> bool:
        """Fits with at least HEADROOM of the GPU's memory to spare."""
        return self.headroom >= HEADROOM * self.capacity.value

    @property
    def tight(self) -> bool:
        """Fits, but with less than HEADROOM to spare."""
        return 0 <= self.headroom < HEADROOM * self.capacity.value


class _Symbols:
    def __init__(self) -> None:
        self.table: dict[str, tuple[float, str]] = {}

    def __call__(self, name: str, value: float, meaning: str) -> Quantity:
        self.table[name] = (float(value), meaning)
        return Quantity.named(name, value)


def estimate(settings: Settings, layout: JobLayout, gpu_memory_gib: float) -> Estimate:
    sym = _Symbols()
    state = settings.state
    shape = settings.shape
    tp = sym("TP", layout.tp, "tensor-parallel size")
    pp = sym("PP", layout.pp, "pipeline-parallel size")
    shard = sym("DP", layout.dp, "data-parallel size")
    if layout.cp > 1:
        shard = shard * sym("CP", layout.cp, "context-parallel size")

    # Parameters each GPU holds before ZeRO: dense weights split by TP x PP, experts also by EP.
    params = sym("P", settings.params, "parameters, all experts included")
    if settings.experts:
        experts = sym("E", settings.experts, "experts per MoE layer")
        ep = sym("EP", layout.ep, "expert-parallel size")
        if settings.expert_params is not None:
            expert_params = sym(
                "P_E", settings.expert_params, "routed experts' parameters, from the architecture"
            )
        else:
            eight = Quantity.constant(8)
            expert_params = params * (eight * experts / (Quantity.constant(4) + eight * experts))
        dense = (params - expert_params) / (tp * pp)
        routed: Quantity | None = expert_params / (tp * pp * ep)
        expert_shard: Quantity | None = shard / ep
        # One layer's share on one GPU, as ZeRO-3 gathers it: TP (and EP) split it, PP does not.
        layer_share = ((params - expert_params) / tp + expert_params / (tp * ep)) / sym(
            "L", shape.layers, "layers"
        )
    else:
        dense, routed, expert_shard = params / (tp * pp), None, None
        layer_share = params / tp / sym("L", shape.layers, "layers")

    def held(bytes_per_param: Quantity, sharded: bool) -> Quantity:
        dense_part = dense / shard if sharded else dense
        if routed is None or expert_shard is None:
            return bytes_per_param * dense_part
        return bytes_per_param * (dense_part + (routed / expert_shard if sharded else routed))

    zero = settings.zero
    weight_bytes = sym("w", state.weights, "bytes per weight")
    terms = [
        Term("parameters", "parameters", held(weight_bytes, zero >= 3)),
        Term(
            "gradients",
            "gradients",
            held(sym("g", state.gradients, "bytes per gradient"), zero >= 2),
        ),
        Term(
            "optimizer_states",
            "optimizer states",
            held(
                sym(
                    "o",
                    state.main_copies + MOMENT_BYTES[settings.optimizer],
                    f"optimizer bytes per parameter ({settings.optimizer.value}: fp32 main "
                    "copies and moments)",
                ),
                zero >= 1,
            ),
        ),
    ]

    # Activations (Korthikanti et al. 2022), per GPU of the busiest pipeline stage.
    seq = sym("s", settings.seq_len, "sequence length")
    if layout.cp > 1:
        seq = seq / sym("CP", layout.cp, "context-parallel size")
    tokens = seq * sym("b", settings.micro_batch, "micro-batch size")
    hidden = sym("h", shape.hidden, "hidden size")
    if settings.experts:
        per_token = Quantity.constant(ATTENTION_TERMS) + Quantity.constant(MLP_TERMS) * sym(
            "k", settings.top_k, "experts each token is routed to"
        )
    else:
        per_token = Quantity.constant(ATTENTION_TERMS + MLP_TERMS)
    layer = tokens * hidden * per_token / tp
    if settings.eager_attention:
        heads = sym("a", shape.heads, "attention heads")
        layer = layer + Quantity.constant(5) * heads * seq * tokens / tp
    layer_input = Quantity.constant(2) * tokens * hidden
    if settings.precision is Precision.FP32:
        wide = sym("x", 2, "fp32 activations take twice the 16-bit bytes")
        layer, layer_input = layer * wide, layer_input * wide
    layers = sym("L", shape.layers, "layers")
    logits = Quantity.constant(4) * tokens * sym("V", shape.vocab, "vocabulary") / tp
    if layout.pp == 1:
        kept = layers * layer + logits
        checkpointed = layers * layer_input + layer + logits
    else:
        per_stage = (layers / pp).ceil()
        in_flight = per_stage * pp
        kept = (in_flight * layer).at_least(per_stage * layer + logits)
        checkpointed = (in_flight * layer_input + layer).at_least(
            per_stage * layer_input + layer + logits
        )
    terms.append(
        Term("activations", "activations", checkpointed if settings.checkpointing else kept)
    )

    if zero >= 3:
        # ZeRO-3/FSDP gathers each layer's full parameters: the current layer and the prefetched.
        terms.append(
            Term(
                "zero3_gather",
                "ZeRO-3 gather buffers",
                Quantity.constant(2) * weight_bytes * layer_share,
            )
        )
    tensors = sym("T", total([t.quantity for t in terms]).value, "the terms above, summed")
    reserve = (
        sym("R", RESERVE_BYTES, "CUDA context, cuBLAS workspace, NCCL buffers")
        + sym("f", FRAGMENTATION, "allocator fragmentation, share of the tensors") * tensors
    )
    terms.append(Term("reserve", "CUDA context, NCCL, fragmentation", reserve))
    capacity = sym("M", gpu_memory_gib * GIB, "GPU memory in bytes")
    return Estimate(
        terms=tuple(terms),
        total=total([t.quantity for t in terms]),
        capacity=capacity,
        activations_without_checkpointing=kept,
        activations_with_checkpointing=checkpointed,
        symbols=sym.table,
    )
