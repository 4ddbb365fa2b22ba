"""`stackcheck plan`: memory per GPU, a verdict, the instances a job fits on, and layout lint.

With an instance type, the job is judged as given (unset sizes: TP = PP = CP = EP = 1, the
fewest nodes, DP filling them) and, when it does not fit, the smallest change that makes it fit
is searched. Without one, every instance type of the matrix is tried with the fewest instances
and a layout chosen for it (see `search`).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from typing import Any

from stackcheck.check.context import CheckContext
from stackcheck.check.engine import run_rules
from stackcheck.check.model import Finding
from stackcheck.errors import StackcheckError
from stackcheck.matrix.index import MatrixIndex
from stackcheck.matrix.models import Instance, Matrix
from stackcheck.plan.architecture import Architecture, load
from stackcheck.plan.changes import (
    SETTINGS_STEPS,
    SettingsStep,
    State,
    more_hardware,
    same_hardware,
    smallest_change,
)
from stackcheck.plan.formula import Quantity
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.memory import GIB, HEADROOM, Estimate, Settings, estimate
from stackcheck.plan.model import (
    Candidate,
    Change,
    Figure,
    InstanceFacts,
    MemoryBreakdown,
    PlanReport,
    Symbol,
    Verdict,
)
from stackcheck.plan.precision import Effective, effective
from stackcheck.plan.request import PlanRequest
from stackcheck.plan.scale import advise
from stackcheck.plan.search import Fit, Pinned, fewest_nodes, gpu_memory, place, plannable
from stackcheck.plan.shape import derive_shape, shape_of
from stackcheck.plan.steptime import performance, step_or_reason
from stackcheck.rules import RULES
from stackcheck.rules.layout import TensorParallelHeads
from stackcheck.snapshot.model import Instance as SnapshotInstance
from stackcheck.snapshot.model import Snapshot, SnapshotSource

LAYOUT_RULES = tuple(rule for rule in RULES if rule.family == "layout")


_SHAPE_FLAGS = (
    ("--layers", "layers"), ("--hidden", "hidden"), ("--heads", "heads"), ("--vocab", "vocab"),
    ("--moe-experts", "moe_experts"), ("--top-k", "top_k"),
)  # fmt: skip


def _validate(request: PlanRequest) -> None:
    if request.fsdp and request.zero not in (0, 3):
        raise StackcheckError("--fsdp shards like ZeRO stage 3; give one of --fsdp and --zero")
    if request.model is not None:
        for flag, name in _SHAPE_FLAGS:
            if getattr(request, name) is not None:
                raise StackcheckError(f"{flag} comes from the config.json with --model")
        return
    if request.moe_experts is None:
        for flag, value in (("--top-k", request.top_k), ("--ep", request.ep)):
            if value is not None:
                raise StackcheckError(f"{flag} applies to MoE models: give --moe-experts too")
    elif request.top_k is None:
        raise StackcheckError("--moe-experts needs --top-k (the experts each token is routed to)")
    elif request.top_k > request.moe_experts:
        raise StackcheckError(
            f"--top-k {request.top_k} is more than the {request.moe_experts} experts"
        )
    if request.hidden and request.heads and request.hidden % request.heads:
        raise StackcheckError(
            f"--hidden {request.hidden} is not a whole number of --heads {request.heads}"
        )


def _settings(request: PlanRequest, arch: Architecture | None) -> Settings:
    if arch is not None:
        # MTP modules train alongside the model: their state is in memory, as dense weights.
        params, shape, experts = arch.total.value + arch.mtp, shape_of(arch), arch.experts
        top_k, expert_params = arch.top_k or 1, arch.experts_total if arch.experts else None
    else:
        assert request.params is not None
        params, shape, experts = request.params, derive_shape(request), request.moe_experts
        top_k, expert_params = request.top_k or 1, None
    return Settings(
        params=params,
        precision=request.precision,
        optimizer=request.optimizer,
        zero=request.zero_stage,
        checkpointing=request.activation_checkpointing,
        eager_attention=request.eager_attention,
        seq_len=request.seq_len,
        micro_batch=request.micro_batch,
        shape=shape,
        experts=experts,
        top_k=top_k,
        expert_params=expert_params,
        grad_dtype=request.grad_dtype,
        global_batch=request.global_batch,
        virtual_stages=request.virtual_stages,
        tp_comm_overlap=request.tp_comm_overlap,
    )


def _pinned(request: PlanRequest, settings: Settings) -> Pinned:
    pinned = Pinned(**request.model_dump(include={f.name for f in dataclasses.fields(Pinned)}))
    if request.model is not None:  # a real model's layers and heads are facts the rules judge
        shape = settings.shape
        pinned = dataclasses.replace(pinned, layers=shape.layers, heads=shape.heads)
    return pinned


def on_gpu(
    settings: Settings, instance: Instance, index: MatrixIndex
) -> tuple[Settings, Effective]:
    """``settings`` in the precision the instance's GPU can train in."""
    found = effective(settings.precision, index.gpu(instance.gpu))
    return dataclasses.replace(settings, precision=found.precision), found


def _context(layout: JobLayout, index: MatrixIndex) -> CheckContext:
    snapshot = Snapshot(
        source=SnapshotSource(kind="plan", target=layout.describe()),
        instance=SnapshotInstance(type=layout.instance),
    )
    return CheckContext(snapshot, index, job=layout)


def _refuse_indivisible_heads(request: PlanRequest, heads: int | None, index: MatrixIndex) -> None:
    """A TP that does not divide the heads leaves memory per GPU undefined: bad input."""
    requested = JobLayout(
        instance=request.instance or "",
        gpus_per_node=1,
        nodes=1,
        tp=request.tp or 1,
        heads=heads,
    )
    rule = TensorParallelHeads()
    for finding in rule.check(_context(requested, index)):
        raise StackcheckError(f"{finding.message.rstrip('.')} ({rule.id} {rule.name})")


def _findings(layout: JobLayout, index: MatrixIndex) -> list[Finding]:
    return run_rules(_context(layout, index), LAYOUT_RULES)


def _facts(instance: Instance) -> InstanceFacts:
    return InstanceFacts.model_validate(
        instance.model_dump(include=set(InstanceFacts.model_fields))
    )


def _figure(key: str, label: str, quantity: Quantity) -> Figure:
    return Figure(
        key=key,
        label=label,
        bytes=quantity.value,
        gib=quantity.value / GIB,
        formula=quantity.symbolic,
        expression=quantity.numeric,
    )


def _breakdown(found: Estimate, layout: JobLayout) -> MemoryBreakdown:
    return MemoryBreakdown(
        layout=layout,
        terms=[_figure(t.key, t.label, t.quantity) for t in found.terms],
        total=_figure("total", "total", found.total),
        capacity=_figure("capacity", "GPU memory", found.capacity),
        headroom_gib=(found.capacity.value - found.total.value) / GIB,
        fits=found.fits,
        tight=found.tight,
        activations_without_checkpointing=_figure(
            "activations",
            "activations without checkpointing",
            found.activations_without_checkpointing,
        ),
        activations_with_checkpointing=_figure(
            "activations",
            "activations with full checkpointing",
            found.activations_with_checkpointing,
        ),
        symbols=[
            Symbol(name=name, value=value, meaning=meaning)
            for name, (value, meaning) in found.symbols.items()
        ],
    )


def _types(count: int) -> str:
    return f"{count} instance type{'s' if count != 1 else ''}"


def _gib(value: float) -> str:
    return f"{value / GIB:,.1f} GiB"


def _given_layout(request: PlanRequest, settings: Settings, instance: Instance) -> JobLayout:
    """The job as asked: unset sizes are 1, the fewest nodes, and DP filling them."""
    tp, pp, cp, ep = (request.tp or 1), (request.pp or 1), (request.cp or 1), (request.ep or 1)
    model = tp * pp * cp
    per_node = instance.gpu_count
    nodes = request.nodes or max(1, math.ceil(model * (request.dp or 1) / per_node))
    dp = request.dp or max(1, nodes * per_node // model)
    return place(
        instance, nodes, (tp, pp, cp, dp, ep), _pinned(request, settings), settings.experts
    )


def _verdict_on(state: State, instances: Sequence[Instance], max_gpus: int) -> Verdict:
    found = state.estimate
    need, have = found.total.value, found.capacity.value
    if found.fits:
        return Verdict(
            status="fits",
            summary=f"fits: {_gib(need)} of {_gib(have)} per GPU ({_gib(have - need)} to "
            f"spare) with {state.layout.describe()}",
        )
    options = smallest_change(state, same_hardware(), more_hardware(instances, max_gpus))
    if found.tight:
        loosen = (
            f"; {' '.join(o.flag for o in options)} leaves {_gib(have - options[-1].total)}"
            if options
            else ""
        )
        return Verdict(
            status="tight",
            summary=f"tight: {_gib(need)} of {_gib(have)} per GPU leaves {_gib(have - need)}, "
            f"under the {HEADROOM:.0%} ({_gib(HEADROOM * have)}) a plan keeps for what the "
            f"estimate omits and allocator peaks{loosen}",
            changes=[
                Change(flag=o.flag, reason=o.reason, total_gib=o.total / GIB, fits=o.fits)
                for o in options or []
            ],
        )
    if options is None:
        return Verdict(
            status="will-oom",
            summary=f"will OOM: needs {_gib(need)} of {_gib(have)} per GPU, and no change "
            f"stackcheck tries makes it fit on {state.instance.type}; run `stackcheck plan` "
            "without --instance to see where it fits",
        )
    changes = [
        Change(
            flag=o.flag,
            reason=o.reason,
            total_gib=o.total / GIB,
            fits=o.fits,
        )
        for o in options
    ]
    final = options[-1].state
    return Verdict(
        status="fits-with-changes",
        summary=f"will OOM as given: needs {_gib(need)} of {_gib(have)} per GPU; fits with "
        f"{' '.join(o.flag for o in options)} ({_gib(options[-1].total)} with "
        f"{final.layout.describe()})",
        changes=changes,
    )


def _plan_on(request: PlanRequest, asked: Settings, index: MatrixIndex) -> PlanReport:
    assert request.instance is not None
    instance = index.instance(request.instance)
    if instance is None:
        raise StackcheckError(
            f"instance type {request.instance!r} is not in the matrix; `stackcheck plan` "
            "without --instance tries every one it knows"
        )
    if not plannable(instance):
        raise StackcheckError(f"the matrix has no GPU count or GPU memory for {instance.type}")
    settings, precision = on_gpu(asked, instance, index)
    layout = _given_layout(request, settings, instance)
    state = State(settings, layout, instance)
    estimate = step_or_reason(
        settings, layout, instance, performance(instance, index.matrix.gpu_performance)
    )
    return _report(
        request,
        settings,
        index,
        precision,
        instance=_facts(instance),
        memory=_breakdown(state.estimate, layout),
        step_time=estimate.step,
        step_time_unknown=estimate.unknown,
        verdict=_verdict_on(state, index.matrix.instance, request.max_gpus),
        scale=advise(settings.params, settings.experts, instance, index.matrix.instance),
        findings=_findings(layout, index),
    )


def _representatives(instances: Sequence[Instance]) -> list[tuple[Instance, list[str]]]:
    """One instance type per kind of node: same GPUs, count, NVLink domain and EFA or not."""
    groups: dict[tuple[object, ...], tuple[Instance, list[str]]] = {}
    for instance in instances:
        if not plannable(instance):
            continue
        key = (
            instance.gpu,
            instance.gpu_count,
            instance.gpu_memory_gib,
            instance.nvlink_domain_gpus,
            instance.efa_interfaces > 0,
        )
        if key in groups:
            groups[key][1].append(instance.type)
        else:
            groups[key] = (instance, [])
    return list(groups.values())


def _rank(fit: Fit) -> tuple[object, ...]:
    """Comfortable fits before tight ones; then timed candidates first, by GPU-hours per
    million tokens, then time per step; the rest by GPUs, GPU memory and name."""
    step = fit.step
    timed = (step.gpu_hours_per_million_tokens, step.seconds) if step else (0.0, 0.0)
    return (
        fit.estimate.tight,
        step is None,
        *timed,
        fit.layout.gpus,
        gpu_memory(fit.instance),
        fit.instance.type,
    )


def _candidates(
    settings: Settings, pinned: Pinned, index: MatrixIndex, max_gpus: int
) -> list[Candidate]:
    found: list[tuple[Fit, list[str]]] = []
    for instance, equivalents in _representatives(index.matrix.instance):
        perf = performance(instance, index.matrix.gpu_performance)
        fit = fewest_nodes(on_gpu(settings, instance, index)[0], instance, pinned, max_gpus, perf)
        if fit is not None:
            found.append((fit, equivalents))
    found.sort(key=lambda f: _rank(f[0]))
    return [
        Candidate(
            instance=_facts(fit.instance),
            nodes=fit.layout.nodes,
            gpus=fit.layout.gpus,
            layout=fit.layout,
            total_gib=fit.estimate.total.value / GIB,
            headroom_gib=(fit.estimate.capacity.value - fit.estimate.total.value) / GIB,
            tight=fit.estimate.tight,
            effective_precision=fit.settings.precision,
            step_time=fit.step,
            equivalents=equivalents,
        )
        for fit, equivalents in found
    ]


def _relaxed(
    settings: Settings, pinned: Pinned, index: MatrixIndex, max_gpus: int
) -> tuple[list[tuple[SettingsStep, Settings]], list[Candidate]]:
    """Candidates as given; else with the settings steps taken in order until some fit."""
    steps: list[tuple[SettingsStep, Settings]] = []
    candidates = _candidates(settings, pinned, index, max_gpus)
    for step in SETTINGS_STEPS:
        if candidates:
            break
        relaxed = step.apply(settings)
        if relaxed is not None:
            settings = relaxed
            steps.append((step, settings))
            candidates = _candidates(settings, pinned, index, max_gpus)
    return steps, candidates


def _plan_anywhere(request: PlanRequest, settings: Settings, index: MatrixIndex) -> PlanReport:
    instances = index.matrix.instance
    pinned = _pinned(request, settings)
    steps, candidates = _relaxed(settings, pinned, index, request.max_gpus)
    if not candidates:
        return _report(
            request,
            settings,
            index,
            None,
            verdict=Verdict(
                status="will-oom",
                summary=f"fits on no instance type in the matrix up to {request.max_gpus} "
                "GPUs, even with ZeRO-3 and activation checkpointing",
            ),
            scale=advise(settings.params, settings.experts, None, instances),
        )
    best = candidates[0]
    instance = index.instance(best.instance.type)
    assert instance is not None
    if steps:
        settings = steps[-1][1]
    settings, precision = on_gpu(settings, instance, index)
    state = State(settings, best.layout, instance)
    first = "fewest GPU-hours per token" if best.step_time else "fewest GPUs"
    where = (
        f"{first}: {best.layout.describe()}, {_gib(state.estimate.total.value)} of "
        f"{_gib(state.estimate.capacity.value)} per GPU"
    )
    if steps:
        changes = []
        for step, stepped in steps:
            found = estimate(on_gpu(stepped, instance, index)[0], best.layout, gpu_memory(instance))
            changes.append(
                Change(
                    flag=step.flag,
                    reason=step.reason,
                    total_gib=found.total.value / GIB,
                    fits=found.fits,
                )
            )
        verdict = Verdict(
            status="fits-with-changes",
            summary=f"fits on no instance type as given (up to {request.max_gpus} GPUs); with "
            f"{' '.join(c.flag for c in changes)} it fits on {_types(len(candidates))}; {where}",
            changes=changes,
        )
    elif best.tight:
        verdict = Verdict(
            status="tight",
            summary=f"fits only tightly (under {HEADROOM:.0%} of GPU memory to spare); "
            f"{where}; more instances or --zero / --activation-checkpointing loosen it",
        )
    else:
        verdict = Verdict(status="fits", summary=f"fits on {_types(len(candidates))}; {where}")
    return _report(
        request,
        settings,
        index,
        precision,
        instance=best.instance,
        memory=_breakdown(state.estimate, best.layout),
        step_time=best.step_time,
        verdict=verdict,
        candidates=candidates,
        scale=advise(settings.params, settings.experts, instance, instances),
        findings=_findings(best.layout, index),
    )


def _report(
    request: PlanRequest,
    settings: Settings,
    index: MatrixIndex,
    precision: Effective | None,
    **fields: Any,
) -> PlanReport:
    """A plan's report: what every plan says of its request, model and precision (the asked one
    where no GPU was chosen to judge it on), then the plan's own `fields`."""
    return PlanReport(
        matrix_version=index.version,
        request=request,
        model=settings.shape,
        zero_stage=settings.zero,
        effective_precision=settings.precision if precision is None else precision.precision,
        precision_notes=[] if precision is None else list(precision.notes),
        **fields,
    )


def make_plan(request: PlanRequest, matrix: Matrix) -> PlanReport:
    _validate(request)
    index = MatrixIndex(matrix)
    arch = load(request.model) if request.model is not None else None
    _refuse_indivisible_heads(request, arch.heads if arch else request.heads, index)
    settings = _settings(request, arch)
    if request.instance:
        return _plan_on(request, settings, index)
    return _plan_anywhere(request, settings, index)
