"""The human report: the stack, where each version was read, then findings, most severe first."""

from __future__ import annotations

import os
import sys
import textwrap

from stackcheck.check.model import Finding, Report, Severity
from stackcheck.formats.base import ReportFormat
from stackcheck.snapshot.model import (
    ComponentName,
    Evidence,
    ImageInfo,
    Installation,
    RunSpec,
    Snapshot,
)

_LABEL_WIDTH = 19
# Not part of an image: an image's report names them only as the target host's facts.
_HOST_ONLY = (ComponentName.DRIVER, ComponentName.FABRIC_MANAGER)
_WIDTH = 100
_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def use_colour(stream: object | None = None) -> bool:
    isatty = getattr(sys.stdout if stream is None else stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


class Writer:
    def __init__(self, colour: bool) -> None:
        self.lines: list[str] = []
        self.colour = colour

    @classmethod
    def titled(cls, colour: bool, version: str, matrix_version: str) -> Writer:
        """A writer that starts with the banner every report carries."""
        out = cls(colour)
        out.lines += [f"stackcheck {version} · matrix {matrix_version}", ""]
        return out

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def row(self, label: str, text: str, indent: int = 2) -> None:
        pad = " " * indent
        self.lines.append(f"{pad}{label:<{_LABEL_WIDTH}} {text}".rstrip())

    def wrapped(self, text: str, indent: int) -> None:
        """Wrapped at spaces only: a path or a hostlist (p5-[001-016,018-064]) is never cut."""
        pad = " " * indent
        self.lines.extend(
            textwrap.wrap(
                text,
                _WIDTH,
                initial_indent=pad,
                subsequent_indent=pad,
                break_on_hyphens=False,
                break_long_words=False,
            )
        )


def short_evidence(evidence: Evidence) -> str:
    detail = f": {evidence.detail}" if evidence.detail else ""
    if len(detail) > 70:
        detail = detail[:67] + "..."
    layer = f" [layer {evidence.layer[:19]}]" if evidence.layer else ""
    where = evidence.source if evidence.line is None else f"{evidence.source}:{evidence.line}"
    return f"{evidence.kind} {where}{detail}{layer}"


def _installation_head(installation: Installation) -> str:
    parts = [installation.version or "version unknown"]
    extras = []
    if installation.cuda:
        extras.append(f"CUDA {installation.cuda}")
    if installation.properties.get("cpu_only") == "yes":
        extras.append("CPU-only")
    if installation.properties.get("default") == "yes":
        extras.append("default")
    if installation.origin:
        extras.append(installation.origin)
    if extras:
        parts.append(f"({', '.join(extras)})")
    if installation.path:
        parts.append(installation.path)
    return " ".join(parts)


def _spec_summary(spec: RunSpec) -> str:
    parts = [spec.kind, spec.image or "(image not shown)"]
    parts.append(f"gpus {spec.gpus}" if spec.gpus else "no GPU request")
    if spec.shm_bytes is not None:
        parts.append(f"shm {spec.shm_bytes >> 20} MiB")
    if spec.ipc:
        parts.append(f"ipc {spec.ipc}")
    if spec.memlock_bytes is not None:
        parts.append("memlock unlimited" if spec.memlock_bytes < 0 else "memlock limited")
    if spec.efa_requested is not None:
        parts.append(f"efa {spec.efa_requested}")
    if spec.entrypoint:
        parts.append(f"entrypoint {spec.entrypoint}")
    return ", ".join(parts)


def _render_image(image: ImageInfo, out: Writer) -> None:
    out.row("Image", image.reference)
    if image.manifest_digest or image.config_digest:
        out.row(
            "", f"  manifest {image.manifest_digest or '-'}, config {image.config_digest or '-'}"
        )
    platform = "/".join(p for p in (image.os, image.architecture) if p) or "unknown"
    layers = f"{len(image.layers)} layer{'' if len(image.layers) == 1 else 's'}"
    out.row("", f"  {platform} · {layers} · created {image.created or '?'}")
    for label, command in (("entrypoint", image.entrypoint), ("cmd", image.cmd)):
        if command:
            out.row("", f"  {label} {' '.join(command)}")
    for name, value in sorted(image.labels.items()):
        out.row("Label", f"{name}={value}")


def render_stack(snapshot: Snapshot, out: Writer) -> None:
    source = snapshot.source
    out.lines.append(f"Stack of {source.kind} {source.target}")
    if snapshot.image is not None:
        _render_image(snapshot.image, out)
    platform = snapshot.platform
    out.row(
        "Platform",
        " ".join(p for p in (platform.os, platform.kernel, platform.machine) if p) or "unknown",
    )
    instance = snapshot.instance
    # An image has no instance, GPU, kernel module or fabric manager of its own: those lines
    # show only the target host's facts, when --driver, --gpu, --instance or --host gave them.
    image = source.kind == "image"
    if image and not (instance.type or snapshot.gpus.devices):
        out.row("Target host", "none given (--driver, --gpu, --instance or --host pair one)")
    if instance.type or not image:
        described = instance.type or f"unknown: {instance.unknown or 'not probed'}"
        out.row("Instance", described + (f" ({instance.ami})" if instance.ami else ""))
    gpus = snapshot.gpus
    if gpus.devices:
        counts: dict[str, int] = {}
        for gpu in gpus.devices:
            key = gpu.name + (f", CC {gpu.compute_capability}" if gpu.compute_capability else "")
            if gpu.memory_mib:
                key += f", {gpu.memory_mib} MiB"
            counts[key] = counts.get(key, 0) + 1
        out.row("GPUs", "; ".join(f"{n}x {k}" for k, n in counts.items()))
        out.row(
            "",
            f"  read from {short_evidence(gpus.devices[0].evidence[0])}"
            if gpus.devices[0].evidence
            else "",
        )
    elif not image:
        out.row("GPUs", _gpus_on_the_bus(snapshot) or f"none found: {gpus.unknown or 'not probed'}")
    for name in ComponentName:
        component = snapshot.components.get(name)
        if component is None:
            continue
        if not component.installations:
            if component.unknown and not snapshot.partial and not (image and name in _HOST_ONLY):
                out.row(name.display_name, out.paint(f"unknown: {component.unknown}", "2"))
            continue
        for index, installation in enumerate(component.installations):
            out.row(name.display_name if index == 0 else "", _installation_head(installation))
            for evidence in installation.evidence[:3]:
                out.row("", f"  read from {short_evidence(evidence)}")
            if len(installation.evidence) > 3:
                out.row("", f"  (+{len(installation.evidence) - 3} more sources)")
    if snapshot.env:
        shown = [f"{k}={v.value}" for k, v in snapshot.env.items()]
        out.row("Environment", shown[0])
        for item in shown[1:]:
            out.row("", item)
    runtime = snapshot.runtime
    if runtime.efa_devices is not None:
        out.row("EFA devices", ", ".join(runtime.efa_devices) or "none")
    for label, limit in (("/dev/shm", runtime.shm_bytes), ("memlock", runtime.memlock_bytes)):
        if limit is not None:
            out.row(label, "unlimited" if limit < 0 else f"{limit >> 10} KiB")
    for spec in snapshot.run_specs:
        out.row("Container", _spec_summary(spec))
        if spec.evidence:
            out.row("", f"  read from {short_evidence(spec.evidence[0])}")
    for index, observation in enumerate(snapshot.observed):
        said = f": {observation.value}" if observation.value else ""
        out.row("Observed" if index == 0 else "", f"{observation.kind}{said}"[:_WIDTH])
    for note in snapshot.notes:
        out.row("Note", f"{note.probe}: {note.message}")


def render_findings(findings: list[Finding], out: Writer) -> None:
    counts = {s: sum(1 for f in findings if f.severity is s) for s in Severity}
    summary = ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counts.items())
    out.lines.append("")
    out.lines.append(f"Findings: {summary}" if findings else "Findings: none")
    for finding in findings:
        render_finding(finding, out)


def render_finding(finding: Finding, out: Writer, where: str | None = None) -> None:
    """One finding: its level, ID and title, where (a fleet's nodes), message, evidence, fix."""
    level = out.paint(f"{finding.severity.value:<7}", _COLOURS[finding.severity])
    out.lines.append(f"  {level} {finding.id} {finding.title}")
    if where:
        out.wrapped(where, 10)
    out.wrapped(finding.message, 10)
    for evidence in finding.evidence[:4]:
        out.wrapped(f"evidence: {short_evidence(evidence)}", 10)
    out.wrapped(f"fix: {finding.fix}", 10)
    out.lines.append(f"          docs: {finding.docs}")


def _render_suppressed(report: Report, out: Writer, listed: bool) -> None:
    if not report.suppressed:
        return
    out.lines.append("")
    hint = "" if listed else " (--show-suppressed lists them)"
    out.lines.append(f"Suppressed: {len(report.suppressed)}{hint}")
    if listed:
        for item in report.suppressed:
            out.lines.append(
                f"  {item.finding.severity.value:<7} {item.finding.id} {item.finding.title}"
            )
            out.wrapped(f"{item.finding.message} [{item.reason}]", 10)


def _render_recommendations(report: Report, out: Writer) -> None:
    out.lines.append("")
    if not report.recommendations:
        from stackcheck.recommend import no_gpu_stack

        if report.snapshot.partial:
            why = "the text names no instance, GPU or driver to fit one to"
        elif no_gpu_stack(report.snapshot):
            out.lines.append("Recommendation: none (no GPU and no instance type found)")
            out.wrapped(
                "There is no GPU stack to recommend for; `stackcheck recommend --instance TYPE` "
                "fits an AMI and images to an instance type.",
                2,
            )
            return
        else:
            why = "the matrix has no AMI or image that fits what was found"
        out.lines.append(f"Recommendation: none ({why})")
        return
    top = report.recommendations[0]
    changes = f" ({'; '.join(top.changes)})" if top.changes else ""
    out.lines.append(f"Recommendation: {top.kind.upper()} {top.name}{changes}")
    out.wrapped(top.reason, 2)
    for caution in top.cautions:
        out.wrapped(f"caution: {caution}", 2)
    for other in report.recommendations[1:]:
        out.lines.append(f"  also: {other.kind.upper()} {other.name}")


class TextFormat(ReportFormat):
    name = "text"

    def __init__(self, colour: bool = False, show_suppressed: bool = False) -> None:
        self.colour = colour
        self.show_suppressed = show_suppressed

    def render(self, report: Report) -> str:
        out = Writer.titled(self.colour, report.stackcheck_version, report.matrix_version)
        render_stack(report.snapshot, out)
        render_findings(report.findings, out)
        _render_suppressed(report, out, self.show_suppressed)
        _render_recommendations(report, out)
        return out.text()

    def render_snapshot(self, snapshot: Snapshot) -> str:
        out = Writer(self.colour)
        render_stack(snapshot, out)
        return out.text()


def _gpus_on_the_bus(snapshot: Snapshot) -> str | None:
    """GPUs the hardware path names (pasted lspci or topo -m, sysfs) when no GPU list did: the
    report must not say "none found" beside a finding about one of them."""
    on_bus = [d for d in snapshot.hardware.devices if d.kind == "gpu"]
    if not on_bus:
        return None
    names = ", ".join(sorted({d.name or "NVIDIA GPU" for d in on_bus}))
    return f"{len(on_bus)} on the PCIe bus ({names}); model facts (CC, memory) not stated"
