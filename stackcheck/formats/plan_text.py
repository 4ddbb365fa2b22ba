"""The human plan: the job, memory per GPU term by term, the verdict, where it fits, lint."""

from __future__ import annotations

import textwrap

from stackcheck.formats.base import PlanFormat
from stackcheck.formats.text import Writer, render_findings
from stackcheck.plan.model import InstanceFacts, MemoryBreakdown, PlanReport
from stackcheck.plan.steptime import StepTime

_TERM_WIDTH = 36
CANDIDATES_SHOWN = 5
_FORMULA_INDENT = " " * (2 + _TERM_WIDTH + 10)
_VERDICT_COLOURS = {"fits": "32", "tight": "33", "fits-with-changes": "33", "will-oom": "31"}


def _count(params: int) -> str:
    for scale, suffix in ((10**12, "T"), (10**9, "B"), (10**6, "M"), (10**3, "K")):
        if params >= scale:
            return f"{params / scale:g}{suffix}"
    return str(params)


def _instance_line(facts: InstanceFacts) -> str:
    parts = [f"{facts.gpu_count}x {facts.gpu or 'GPU'}, {facts.gpu_memory_gib:g} GiB each"]
    if facts.nvlink_domain_gpus is not None:
        parts.append(f"NVLink domain {facts.nvlink_domain_gpus} GPUs")
    if facts.efa_interfaces:
        bandwidth = f", {facts.efa_bandwidth_gb_s:g} GB/s" if facts.efa_bandwidth_gb_s else ""
        parts.append(f"EFA x{facts.efa_interfaces}{bandwidth}")
    else:
        parts.append("no EFA")
    unsure = " (matrix entry marked unsure)" if facts.unsure else ""
    return f"{facts.type}: {'; '.join(parts)}{unsure}"


def _row(out: Writer, label: str, gib: float | None, formula: str) -> None:
    lines = textwrap.wrap(formula, 100 - len(_FORMULA_INDENT)) or [""]
    number = f"{gib:>8.2f}" if gib is not None else " " * 8
    out.lines.append(f"  {label:<{_TERM_WIDTH}}{number}  {lines[0]}")
    out.lines.extend(f"{_FORMULA_INDENT}{line}" for line in lines[1:])


def _memory(memory: MemoryBreakdown, out: Writer) -> None:
    out.lines.append("")
    out.lines.append(f"{'Memory per GPU':<{_TERM_WIDTH + 2}}{'GiB':>8}  formula")
    for figure in memory.terms:
        _row(out, figure.label, figure.gib, figure.formula)
        if figure.key == "activations":
            without = memory.activations_without_checkpointing.gib
            with_ = memory.activations_with_checkpointing.gib
            _row(out, "", None, f"({without:,.2f} without checkpointing, {with_:,.2f} with it)")
    _row(out, "total", memory.total.gib, "the terms above")
    _row(out, "GPU memory", memory.capacity.gib, f"of {memory.layout.instance}")
    out.lines.append("  (the symbols, and each formula with its numbers: --format json)")


def _header(plan: PlanReport, out: Writer) -> None:
    request, shape = plan.request, plan.model
    zero = "FSDP" if request.fsdp else f"ZeRO-{plan.zero_stage}"
    total = shape.params.value if shape.params else request.params or 0
    precision = plan.effective_precision.value
    if plan.effective_precision is not request.precision:
        precision += f" (asked {request.precision.value})"
    out.lines.append(
        f"Plan: {shape.source + ', ' if shape.source else ''}{_count(total)} parameters, "
        f"{precision}, {request.optimizer.value}, {zero}"
        + (f", MoE {shape.experts} experts top-{shape.top_k}" if shape.experts else "")
        + (
            f", MoE {request.moe_experts} experts top-{request.top_k}"
            if request.moe_experts
            else ""
        )
    )
    derived = f" (derived: {', '.join(shape.derived)})" if shape.derived else ""
    out.row(
        "Model",
        f"{shape.layers} layers, hidden {shape.hidden}, {shape.heads} heads, vocabulary "
        f"{shape.vocab}{derived}",
    )
    for label, counted in (("Parameters", shape.params), ("Active/token", shape.active_params)):
        if counted is not None and (label == "Parameters" or shape.experts or request.moe_experts):
            out.row(label, f"{counted.value:,} = {counted.formula}")
    if shape.mtp_params:
        out.row("MTP modules", f"{shape.mtp_params:,} more, trained alongside (in memory)")
    for note in plan.precision_notes:
        out.row("Precision", note)
    checkpointing = (
        "full activation checkpointing"
        if request.activation_checkpointing
        else ("no activation checkpointing")
    )
    out.row(
        "Batch",
        f"sequence {request.seq_len}, micro-batch {request.micro_batch}, {checkpointing}",
    )
    if plan.instance is not None:
        out.row("Instance", _instance_line(plan.instance))
        out.row("", f"  source {plan.instance.source}")
        if plan.instance.nvlink_source:
            out.row("", f"  NVLink {plan.instance.nvlink_source}")
    if plan.memory is not None:
        out.row("Layout", plan.memory.layout.describe())


def _verdict(plan: PlanReport, out: Writer) -> None:
    verdict = plan.verdict
    out.lines.append("")
    status = out.paint(verdict.status, _VERDICT_COLOURS[verdict.status])
    out.lines.append(f"Verdict: {status}")
    out.wrapped(verdict.summary, 2)
    for change in verdict.changes:
        out.wrapped(f"{change.flag}: {change.reason} -> {change.total_gib:,.1f} GiB", 4)


def _step(step: StepTime | None) -> str:
    if step is None:
        return "no time (GPU or precision not in gpu_performance)"
    return (
        f"{step.seconds:,.2f} s, {step.gpu_hours_per_million_tokens:,.2f} GPU-h/Mtok, "
        f"{step.bottleneck}"
    )


def _step_time(plan: PlanReport, out: Writer) -> None:
    step = plan.step_time
    if step is None:
        if plan.step_time_unknown:
            out.lines.append("")
            out.wrapped(f"Step time (estimate)  not estimated: {plan.step_time_unknown}", 0)
        return
    out.lines.append("")
    out.lines.append(
        f"Step time (estimate)  {step.seconds:,.2f} s per step of {step.tokens_per_step:,} tokens "
        f"(m = {step.micro_batches} micro-batches), {step.tokens_per_gpu_s:,.0f} tokens/s/GPU, "
        f"MFU {step.mfu:.0%}, bottleneck: {step.bottleneck}"
    )
    parts = (
        ("compute", step.compute_s, f"at {step.achievable:.0%} of {step.peak_tflops:g} TFLOPS"),
        ("pipeline bubble", step.bubble_s, "(PP-1)/(v*m) of the compute"),
        ("NVLink traffic", step.nvlink_s, "TP, and DP inside one instance"),
        ("EFA traffic", step.efa_s, "DP gradients, PP sends, MoE all-to-all across instances"),
    )
    for label, seconds, why in parts:
        out.lines.append(f"  {label:<20}{seconds:>9.2f} s  {why}")
    out.wrapped(step.formula, 2)


def _candidates(plan: PlanReport, out: Writer) -> None:
    if not plan.candidates:
        return
    out.lines.append("")
    out.lines.append(
        "Where it fits, fewest GPU-hours per million tokens first (estimated; untimed GPUs last, "
        "fewest GPUs first):"
    )
    out.lines.append(
        f"  {'GPUS':>5}  {'INSTANCE':<20}{'NODES':>5}  {'LAYOUT':<26}{'PER GPU':<17}STEP"
    )
    for candidate in plan.candidates[:CANDIDATES_SHOWN]:
        layout = candidate.layout
        sizes = f"TP {layout.tp} x PP {layout.pp}" + (f" x CP {layout.cp}" if layout.cp > 1 else "")
        sizes += f" x DP {layout.dp}" + (f", EP {layout.ep}" if layout.experts else "")
        memory = f"{candidate.total_gib:,.1f}/{candidate.instance.gpu_memory_gib:g} GiB"
        memory += " tight" if candidate.tight else ""
        out.lines.append(
            f"  {candidate.gpus:>5}  {candidate.instance.type:<20}{candidate.nodes:>5}  "
            f"{sizes:<26}{memory:<17}{_step(candidate.step_time)}"
        )
    if len(plan.candidates) > CANDIDATES_SHOWN:
        rest = len(plan.candidates) - CANDIDATES_SHOWN
        out.lines.append(f"  (+{rest} more: --format json lists all)")


def _scale(plan: PlanReport, out: Writer) -> None:
    out.lines.append("")
    out.lines.append(f"Scale: {plan.scale.regime}")
    out.wrapped(plan.scale.summary, 2)
    for reason in plan.scale.reasons:
        out.wrapped(reason, 2)


class PlanTextFormat(PlanFormat):
    name = "text"

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def render_plan(self, plan: PlanReport) -> str:
        out = Writer.titled(self.colour, plan.stackcheck_version, plan.matrix_version)
        _header(plan, out)
        if plan.memory is not None:
            _memory(plan.memory, out)
        _step_time(plan, out)
        _verdict(plan, out)
        _candidates(plan, out)
        _scale(plan, out)
        render_findings(plan.findings, out)
        return out.text()
