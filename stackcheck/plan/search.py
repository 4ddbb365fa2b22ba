"""Layouts a job could use on an instance type, and the fewest instances it fits on.

What the user pinned (TP, PP, CP, DP, EP, nodes) stays; the rest is chosen. Among layouts that
fit, the least model parallelism wins (TP x PP), then one whose expert all-to-all stays inside the
NVLink domain, then fewer pipeline stages (pipeline bubbles), then less TP. TP is chosen only
dividing the NVLink domain (so no TP group straddles two) and the heads; PP only dividing the
layers. Instances train together over EFA, or without it only inside one NVLink domain.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

from stackcheck.matrix.models import GpuPerformance, Instance
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.memory import GIB, Estimate, Settings, estimate
from stackcheck.plan.steptime import StepTime, estimate_step


@dataclass(frozen=True)
class Pinned:
    """Layout sizes the user gave; None: the planner chooses."""

    tp: int | None = None
    pp: int | None = None
    cp: int | None = None
    dp: int | None = None
    ep: int | None = None
    nodes: int | None = None
    layers: int | None = None  # as given, for the layout rules
    heads: int | None = None


@dataclass(frozen=True)
class Fit:
    instance: Instance
    layout: JobLayout
    estimate: Estimate
    settings: Settings
    step: StepTime | None = None


LAYOUTS_TIMED = 64  # fitting layouts timed per node count, the preferred first: bounds the search


def divisors(number: int) -> list[int]:
    small = [d for d in range(1, math.isqrt(number) + 1) if number % d == 0]
    return sorted({*small, *(number // d for d in small)})


def nvlink_domain(instance: Instance) -> int:
    return instance.nvlink_domain_gpus or 1


def gpu_memory(instance: Instance) -> float:
    assert instance.gpu_memory_gib is not None
    return instance.gpu_memory_gib


def plannable(instance: Instance) -> bool:
    return instance.gpu_count > 0 and instance.gpu_memory_gib is not None


def reaches(instance: Instance, nodes: int) -> bool:
    """Whether ``nodes`` instances can train together: over EFA, or inside one NVLink domain
    (an UltraServer's). Without either, NCCL between instances runs over TCP: no plan to offer."""
    return (
        nodes == 1
        or instance.efa_interfaces > 0
        or nodes * instance.gpu_count <= nvlink_domain(instance)
    )


def place(
    instance: Instance,
    nodes: int,
    sizes: tuple[int, int, int, int, int],
    pinned: Pinned,
    experts: int | None,
) -> JobLayout:
    """A layout of (TP, PP, CP, DP, EP) on ``nodes`` instances, with the model facts given."""
    tp, pp, cp, dp, ep = sizes
    return JobLayout(
        instance=instance.type,
        gpus_per_node=instance.gpu_count,
        nodes=nodes,
        tp=tp,
        pp=pp,
        cp=cp,
        dp=dp,
        ep=ep,
        layers=pinned.layers,
        heads=pinned.heads,
        experts=experts,
    )


def layouts(
    settings: Settings, instance: Instance, nodes: int, pinned: Pinned
) -> Iterator[JobLayout]:
    gpus = nodes * instance.gpu_count
    shape = settings.shape
    cp = pinned.cp or 1
    if gpus % cp:
        return
    tps = (
        [pinned.tp]
        if pinned.tp
        else [
            t
            for t in divisors(gpus // cp)
            if nvlink_domain(instance) % t == 0 and shape.heads % t == 0
        ]
    )
    for tp in tps:
        if gpus % (tp * cp):
            continue
        rest = gpus // (tp * cp)
        pps = (
            [pinned.pp]
            if pinned.pp
            else [p for p in divisors(rest) if p <= shape.layers and shape.layers % p == 0]
        )
        for pp in pps:
            if rest % pp or (pinned.dp and pinned.dp != rest // pp):
                continue
            dp = rest // pp
            if pinned.ep:
                eps = [pinned.ep]
            elif settings.experts:
                eps = divisors(math.gcd(settings.experts, dp * cp))
            else:
                eps = [1]
            for ep in eps:
                yield place(instance, nodes, (tp, pp, cp, dp, ep), pinned, settings.experts)


def preference(layout: JobLayout, domain: int) -> tuple[int, ...]:
    expert_outside = int(layout.ep > 1 and layout.tp * layout.ep > domain)
    return (layout.tp * layout.pp, expert_outside, layout.pp, layout.tp, layout.ep)


def _timed(fit: Fit, perf: GpuPerformance | None) -> Fit:
    step = estimate_step(fit.settings, fit.layout, fit.instance, perf)
    return Fit(fit.instance, fit.layout, fit.estimate, fit.settings, step)


def best_fit(
    settings: Settings,
    instance: Instance,
    nodes: int,
    pinned: Pinned,
    perf: GpuPerformance | None = None,
) -> Fit | None:
    """The fastest layout that fits with headroom (the preferred one when no time can be
    estimated); else the preferred one that fits tightly."""
    domain = nvlink_domain(instance)
    ordered = sorted(
        layouts(settings, instance, nodes, pinned), key=lambda layout: preference(layout, domain)
    )
    tight = None
    fitting: list[Fit] = []
    for layout in ordered:
        found = estimate(settings, layout, gpu_memory(instance))
        if found.fits:
            fit = _timed(Fit(instance, layout, found, settings), perf)
            if fit.step is None:
                return fit
            fitting.append(fit)
            if len(fitting) >= LAYOUTS_TIMED:
                break
        elif tight is None and found.tight:
            tight = Fit(instance, layout, found, settings)
    if fitting:
        # The measure candidates are ranked by: layouts of one node count may train different
        # numbers of tokens a step (the global batch rounds down per DP size).
        return min(fitting, key=lambda f: f.step.gpu_hours_per_million_tokens if f.step else 0.0)
    return _timed(tight, perf) if tight else None


def node_range(settings: Settings, instance: Instance, pinned: Pinned, max_gpus: int) -> range:
    """Node counts worth trying: from where the state could fit at all, to the largest job."""
    if pinned.nodes:
        return range(pinned.nodes, pinned.nodes + 1)
    largest = max(1, max_gpus // instance.gpu_count)
    if not reaches(instance, largest):  # no EFA: as many as one NVLink domain holds
        largest = max(1, min(largest, nvlink_domain(instance) // instance.gpu_count))
    # Every byte of training state lives on some GPU at least once.
    state = settings.params * settings.state_bytes_per_param
    fewest_gpus = math.ceil(state / (gpu_memory(instance) * GIB))
    return range(max(1, math.ceil(fewest_gpus / instance.gpu_count)), largest + 1)


def _most_split(settings: Settings, instance: Instance, nodes: int, pinned: Pinned) -> JobLayout:
    """The most any layout on ``nodes`` instances could split the job, divisibility aside: a
    lower bound on memory per GPU, to skip instance types where nothing can fit."""
    gpus = nodes * instance.gpu_count
    domain = nvlink_domain(instance)
    tp = pinned.tp or max(
        t for t in divisors(domain) if settings.shape.heads % t == 0 and t <= gpus
    )
    pp = pinned.pp or min(settings.shape.layers, max(1, gpus // tp))
    cp = pinned.cp or 1
    dp = pinned.dp or max(1, gpus // (tp * pp * cp))
    ep = pinned.ep or math.gcd(settings.experts or 1, dp * cp)
    return place(instance, nodes, (tp, pp, cp, dp, ep), pinned, settings.experts)


def fewest_nodes(
    settings: Settings,
    instance: Instance,
    pinned: Pinned,
    max_gpus: int,
    perf: GpuPerformance | None = None,
) -> Fit | None:
    nodes = node_range(settings, instance, pinned, max_gpus)
    if not nodes:
        return None
    bound = _most_split(settings, instance, nodes[-1], pinned)
    if estimate(settings, bound, gpu_memory(instance)).headroom < 0:
        return None
    tight = None
    for count in nodes:
        fit = best_fit(settings, instance, count, pinned, perf)
        if fit is not None and fit.estimate.fits:
            return fit
        tight = tight or fit
    return tight
