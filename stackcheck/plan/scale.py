"""Scale up inside an instance, scale out over EFA, or use an UltraServer's NVLink domain.

The field's rules of thumb: up to about 10B parameters a job fits one instance and should keep
every collective there; 10B-100B scale out over EFA with NCCL, tensor parallelism inside the
NVLink domain and data/pipeline parallelism across instances; beyond 100B, and for MoE models
whose all-to-all is latency- and topology-sensitive, a large NVLink domain (a P6e-GB200
UltraServer) pays. The bandwidth figures quoted come from the matrix, with their sources.
"""

from __future__ import annotations

from collections.abc import Sequence

from stackcheck.matrix.models import Instance
from stackcheck.plan.model import ScaleAdvice

SCALE_UP_LIMIT = 10 * 10**9
SCALE_OUT_LIMIT = 100 * 10**9


def _bandwidth(instance: Instance) -> str | None:
    if not (instance.nvlink_bandwidth_gb_s and instance.efa_bandwidth_gb_s):
        return None
    inside = min(instance.nvlink_domain_gpus or 1, instance.gpu_count)
    nvlink = instance.nvlink_bandwidth_gb_s * inside
    efa = instance.efa_bandwidth_gb_s
    # NVIDIA states NVLink both directions together; EC2 states network bandwidth each way.
    return (
        f"On {instance.type}: NVLink {instance.nvlink_bandwidth_gb_s:g} GB/s per GPU x {inside} "
        f"GPUs = {nvlink:,.0f} GB/s inside the instance (both directions, as NVIDIA states it) "
        f"against EFA {efa * 8:,.0f} Gbit/s = {efa:,.0f} GB/s each way: "
        f"about {nvlink / (2 * efa):.0f}x (the matrix entry's sources)."
    )


def advise(
    params: int, experts: int | None, focus: Instance | None, instances: Sequence[Instance]
) -> ScaleAdvice:
    reasons = []
    if focus is not None and (line := _bandwidth(focus)) is not None:
        reasons.append(line)
    if experts or params > SCALE_OUT_LIMIT:
        widest = max(instances, key=lambda i: i.nvlink_domain_gpus or 0, default=None)
        what = "an MoE model" if experts else "beyond 100B parameters"
        summary = (
            f"For {what}, keep tensor parallelism and the expert all-to-all inside one NVLink "
            "domain and let only data and pipeline parallelism cross EFA."
        )
        if widest is not None and (widest.nvlink_domain_gpus or 0) > widest.gpu_count:
            reasons.append(
                f"{widest.type} instances share an NVLink domain of up to "
                f"{widest.nvlink_domain_gpus} GPUs across an UltraServer "
                f"({widest.nvlink_source or widest.source}); an 8-GPU instance's domain ends at "
                "its 8 GPUs, and an all-to-all beyond it runs over EFA."
                + (" The matrix marks that entry unsure." if widest.unsure else "")
            )
        return ScaleAdvice(regime="nvlink-domain", summary=summary, reasons=reasons)
    if params > SCALE_UP_LIMIT:
        return ScaleAdvice(
            regime="scale-out",
            summary="10B-100B parameters: scale out over EFA with NCCL. Keep TP (and sequence "
            "or context parallelism) inside an instance's NVLink domain; data parallelism "
            "(with ZeRO) and pipeline stages cross instances, where each step sends gradients "
            "once or activations between neighbouring stages.",
            reasons=reasons,
        )
    return ScaleAdvice(
        regime="scale-up",
        summary="Up to about 10B parameters: scale up inside one instance. Every collective "
        "stays on NVLink (or PCIe); add instances only for throughput, as data parallelism "
        "over EFA.",
        reasons=reasons,
    )
