"""A first-order time per training step for a layout, with every assumption stated.

- Compute: FLOPs per token 6·N_active + 12·L·s·d (Narayanan et al. 2021, arXiv:2104.04473,
  appendix: the weight GEMMs forward and backward, and the attention scores QKᵀ and ·V with d the
  attention width), one more forward with full activation checkpointing (8·N + 16·L·s·d), over
  the GPU's dense peak in the precision trained times the share a tuned step achieves (both from
  the matrix's ``gpu_performance``, sourced).
- Pipeline bubble: 1F1B idles (PP-1)/(v·m) of the compute, m micro-batches per step, v virtual
  stages (interleaved schedule; 1 without).
- Tensor parallelism (sequence parallel, Korthikanti et al. 2022): per layer and micro-batch four
  all-reduce volumes of s·b·h activations forward and backward (six with recomputation), each
  2·(TP-1)/TP of it per GPU, over NVLink at half NVIDIA's bidirectional figure (each way), or
  over EFA when the group leaves the NVLink domain. Exposed unless --tp-comm-overlap.
- Data parallelism: the gradients each GPU holds, ring all-reduced over DP·CP ranks (2·(d-1)/d of
  them per GPU; ZeRO-3 gathers parameters twice more), over EFA's per-GPU share when the job
  spans instances; overlapped with the last micro-batch's backward pass, the rest exposed.
- Pipeline sends: each micro-batch's s·b·h activations forward and its gradient back, split over
  the TP ranks, per stage boundary (v times with interleaving), over EFA when stages sit on
  different instances.
- MoE all-to-all: each MoE layer dispatches and combines each token's k expert inputs forward and
  backward, (EP-1)/EP of them leaving the GPU, over NVLink inside the domain, else EFA.
- Context parallelism's K/V exchange is taken as overlapped with attention (ring attention).
EFA per GPU is the instance's figure (each way) shared by its GPUs. A layout whose traffic
needs a link the matrix gives no bandwidth for is not timed (no NVLink figure, PCIe between GPUs
of an instance without NVLink, no EFA between instances): pricing it at zero would rank the
slowest layout first. Terms add up; nothing else overlaps. The bottleneck is the largest of
compute, bubble, NVLink traffic and EFA traffic.
"""

from __future__ import annotations

import math
from typing import Literal, NamedTuple

from pydantic import BaseModel, ConfigDict

from stackcheck.matrix.models import GpuPerformance, Instance
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.memory import Settings
from stackcheck.plan.request import Precision

GB = 1e9
DEFAULT_BATCH_TOKENS = 4 * 2**20  # Llama 2's 4M-token batch; GPT-3 175B used 3.2M

Bottleneck = Literal["compute", "bubble", "NVLink", "EFA"]

# Why a layout is not timed, by the link its traffic needs and the matrix does not price.
_UNPRICED = {
    "NVLink": "the matrix has no NVLink bandwidth for {0}, which this layout's traffic rides",
    "PCIe": "this layout sends traffic over PCIe between the GPUs of {0}, which is not modelled",
    "EFA": "this layout spans instances and {0} has no EFA (TCP between instances is not modelled)",
}


class StepTime(BaseModel):
    """Estimated seconds per optimizer step, term by term."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    seconds: float
    compute_s: float
    bubble_s: float
    nvlink_s: float
    efa_s: float
    bottleneck: Bottleneck
    micro_batches: int  # m, per data-parallel rank
    tokens_per_step: int
    tokens_per_gpu_s: float
    gpu_hours_per_million_tokens: float
    mfu: float  # model FLOPs over the dense peak
    peak_tflops: float
    achievable: float
    formula: str


class Estimate(NamedTuple):
    """A step time, or why there is none (exactly one of the two is set)."""

    step: StepTime | None
    unknown: str | None = None


def performance(instance: Instance, table: list[GpuPerformance]) -> GpuPerformance | None:
    return next((p for p in table if p.gpu == instance.gpu), None)


def _bytes_per_activation(precision: Precision) -> int:
    return 4 if precision is Precision.FP32 else 2


def estimate_step(
    settings: Settings,
    layout: JobLayout,
    instance: Instance,
    perf: GpuPerformance | None,
) -> StepTime | None:
    """None where :func:`step_or_reason` gives a reason instead."""
    return step_or_reason(settings, layout, instance, perf).step


def step_or_reason(
    settings: Settings,
    layout: JobLayout,
    instance: Instance,
    perf: GpuPerformance | None,
) -> Estimate:
    """The step time, or why it is not estimated: the matrix has no peak or achievable share
    for this GPU and precision, or the layout sends traffic over a link it gives no bandwidth
    for (NVLink on an instance whose figure is not read, PCIe inside an instance without
    NVLink, or between instances without EFA)."""
    global_batch, virtual_stages = settings.global_batch, settings.virtual_stages
    tp_comm_overlap = settings.tp_comm_overlap
    precision = settings.precision.value
    if perf is None or precision not in perf.dense_tflops or precision not in perf.achievable:
        return Estimate(
            None, f"the matrix has no {precision} peak and achievable share for the {instance.gpu}"
        )
    shape = settings.shape
    tp, pp, cp, dp, ep = layout.tp, layout.pp, layout.cp, layout.dp, layout.ep
    gpus = layout.ranks
    s, b, h, layers = settings.seq_len, settings.micro_batch, shape.hidden, shape.layers
    sequences = global_batch or max(1, round(DEFAULT_BATCH_TOKENS / s))
    m = max(1, sequences // (dp * b))
    tokens = m * dp * b * s
    active = shape.active_params.value if shape.active_params else settings.params
    attention = shape.attention_dim or h
    model_flops = 6 * active + 12 * layers * s * attention
    hardware_flops = model_flops * (4 / 3 if settings.checkpointing else 1)
    peak = perf.dense_tflops[precision] * 1e12
    share = perf.achievable[precision]
    compute = tokens * hardware_flops / (gpus * peak * share)
    bubble = compute * (pp - 1) / (virtual_stages * m)

    width = _bytes_per_activation(settings.precision)
    activation = (s / cp) * b * h * width  # one micro-batch's layer input, bytes
    nvlink_each_way = (instance.nvlink_bandwidth_gb_s or 0) / 2 * GB
    per_node = instance.gpu_count
    efa_per_gpu = (instance.efa_bandwidth_gb_s or 0) * GB / per_node
    domain = instance.nvlink_domain_gpus or 1
    nvlink = efa = 0.0
    unpriced: list[str] = []  # links the traffic needs whose bandwidth the matrix does not give

    def over(volume: float, group: int, hidden_behind: float = 0.0) -> None:
        """Adds ``volume`` bytes per GPU to the link a group of ``group`` consecutive GPUs
        rides: NVLink inside the domain, PCIe inside an instance without one, EFA across
        instances. A link without a figure is not free: the step is then not timed."""
        nonlocal nvlink, efa
        if group <= domain and nvlink_each_way:
            nvlink += max(0.0, volume / nvlink_each_way - hidden_behind)
        elif group > per_node and efa_per_gpu:
            efa += max(0.0, volume / efa_per_gpu - hidden_behind)
        else:
            unpriced.append("NVLink" if group <= domain else "PCIe" if group <= per_node else "EFA")

    stage_layers = math.ceil(layers / pp)
    if tp > 1 and not tp_comm_overlap:
        passes = 6 if settings.checkpointing else 4
        volume = passes * 2 * (tp - 1) / tp * activation * stage_layers * m
        over(volume, tp)
    if pp > 1:
        volume = 2 * activation / tp * m * virtual_stages
        over(volume, tp * cp * dp * 2)  # two adjacent stages
    if dp * cp > 1:
        d = dp * cp
        experts = settings.expert_params or 0
        held = (settings.params - experts) / (tp * pp) + experts / (tp * pp * ep)
        volume = 2 * (d - 1) / d * held * settings.state.gradients
        if settings.zero >= 3:
            volume *= 1.5  # parameters gathered forward and backward, gradients reduce-scattered
        over(volume, gpus, hidden_behind=compute / m * 2 / 3)
    if ep > 1 and settings.experts:
        moe_layers = stage_layers  # MoE layers per stage: all of them, an upper bound
        routed = (s / cp) * b / tp * settings.top_k * h * width
        volume = 4 * (ep - 1) / ep * routed * moe_layers * m
        over(volume, tp * ep)

    if unpriced:
        links = dict.fromkeys(unpriced)
        return Estimate(None, "; ".join(_UNPRICED[link].format(instance.type) for link in links))
    parts: dict[Bottleneck, float] = {
        "compute": compute,
        "bubble": bubble,
        "NVLink": nvlink,
        "EFA": efa,
    }
    seconds = sum(parts.values())
    step = StepTime(
        seconds=seconds,
        compute_s=compute,
        bubble_s=bubble,
        nvlink_s=nvlink,
        efa_s=efa,
        bottleneck=max(parts, key=lambda k: parts[k]),
        micro_batches=m,
        tokens_per_step=tokens,
        tokens_per_gpu_s=tokens / seconds / gpus,
        gpu_hours_per_million_tokens=seconds * gpus / 3600 / (tokens / 1e6),
        mfu=tokens * model_flops / seconds / (gpus * peak),
        peak_tflops=perf.dense_tflops[precision],
        achievable=share,
        formula="step = tokens * F / (GPUs * peak * share) * (1 + (PP-1)/(v*m)) + TP + PP + "
        "DP (exposed) + EP traffic / link bandwidth; F = 6*N_active + 12*L*s*d"
        + (" (x 4/3: recomputation)" if settings.checkpointing else ""),
    )
    return Estimate(step)
