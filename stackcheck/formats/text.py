"""The human report: the stack, where each version was read, then findings, most severe first."""

from __future__ import annotations

import os
import sys
import textwrap

from stackcheck.check.model import Report, Severity
from stackcheck.formats.base import ReportFormat
from stackcheck.snapshot.model import ComponentName, Evidence, ImageInfo, Installation, Snapshot

_LABEL_WIDTH = 19
_WIDTH = 100
_COLOURS = {Severity.ERROR: "31", Severity.WARNING: "33", Severity.INFO: "36"}


def use_colour(stream: object | None = None) -> bool:
    isatty = getattr(sys.stdout if stream is None else stream, "isatty", None)
    return bool(isatty and isatty()) and "NO_COLOR" not in os.environ


class _Writer:
    def __init__(self, colour: bool) -> None:
        self.lines: list[str] = []
        self.colour = colour

    def paint(self, text: str, code: str) -> str:
        return f"\033[{code}m{text}\033[0m" if self.colour else text

    def row(self, label: str, text: str, indent: int = 2) -> None:
        pad = " " * indent
        self.lines.append(f"{pad}{label:<{_LABEL_WIDTH}} {text}".rstrip())

    def wrapped(self, text: str, indent: int) -> None:
        self.lines.extend(
            textwrap.wrap(text, _WIDTH, initial_indent=" " * indent, subsequent_indent=" " * indent)
        )


def _short(evidence: Evidence) -> str:
    detail = f": {evidence.detail}" if evidence.detail else ""
    if len(detail) > 70:
        detail = detail[:67] + "..."
    layer = f" [layer {evidence.layer[:19]}]" if evidence.layer else ""
    return f"{evidence.kind} {evidence.source}{detail}{layer}"


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


def _render_image(image: ImageInfo, out: _Writer) -> None:
    out.row("Image", image.reference)
    if image.manifest_digest or image.config_digest:
        out.row(
            "", f"  manifest {image.manifest_digest or '-'}, config {image.config_digest or '-'}"
        )
    platform = "/".join(p for p in (image.os, image.architecture) if p) or "unknown"
    out.row("", f"  {platform} · {len(image.layers)} layers · created {image.created or '?'}")
    for label, command in (("entrypoint", image.entrypoint), ("cmd", image.cmd)):
        if command:
            out.row("", f"  {label} {' '.join(command)}")
    for name, value in sorted(image.labels.items()):
        out.row("Label", f"{name}={value}")


def render_stack(snapshot: Snapshot, out: _Writer) -> None:
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
    out.row("Instance", instance.type or f"unknown: {instance.unknown or 'not probed'}")
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
            f"  read from {_short(gpus.devices[0].evidence[0])}"
            if gpus.devices[0].evidence
            else "",
        )
    else:
        out.row("GPUs", f"none found: {gpus.unknown or 'not probed'}")
    for name in ComponentName:
        component = snapshot.components.get(name)
        if component is None:
            continue
        if not component.installations:
            if component.unknown:
                out.row(name.display_name, out.paint(f"unknown: {component.unknown}", "2"))
            continue
        for index, installation in enumerate(component.installations):
            out.row(name.display_name if index == 0 else "", _installation_head(installation))
            for evidence in installation.evidence[:3]:
                out.row("", f"  read from {_short(evidence)}")
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
    for note in snapshot.notes:
        out.row("Note", f"{note.probe}: {note.message}")


def _render_findings(report: Report, out: _Writer) -> None:
    counts = {s: report.count(s) for s in Severity}
    summary = ", ".join(f"{n} {s.value}{'s' if n != 1 else ''}" for s, n in counts.items())
    out.lines.append("")
    out.lines.append(f"Findings: {summary}" if report.findings else "Findings: none")
    for finding in report.findings:
        level = out.paint(f"{finding.severity.value:<7}", _COLOURS[finding.severity])
        out.lines.append(f"  {level} {finding.id} {finding.title}")
        out.wrapped(finding.message, 10)
        for evidence in finding.evidence[:4]:
            out.wrapped(f"evidence: {_short(evidence)}", 10)
        out.wrapped(f"fix: {finding.fix}", 10)
        out.lines.append(f"          docs: {finding.docs}")


def _render_recommendations(report: Report, out: _Writer) -> None:
    out.lines.append("")
    if not report.recommendations:
        out.lines.append(
            "Recommendation: none (the matrix has no AMI or image that fits what was found)"
        )
        return
    top = report.recommendations[0]
    changes = f" ({'; '.join(top.changes)})" if top.changes else ""
    out.lines.append(f"Recommendation: {top.kind.upper()} {top.name}{changes}")
    out.wrapped(top.reason, 2)
    for other in report.recommendations[1:]:
        out.lines.append(f"  also: {other.kind.upper()} {other.name}")


class TextFormat(ReportFormat):
    name = "text"

    def __init__(self, colour: bool = False) -> None:
        self.colour = colour

    def render(self, report: Report) -> str:
        out = _Writer(self.colour)
        out.lines.append(f"stackcheck {report.stackcheck_version} · matrix {report.matrix_version}")
        out.lines.append("")
        render_stack(report.snapshot, out)
        _render_findings(report, out)
        _render_recommendations(report, out)
        return "\n".join(out.lines) + "\n"

    def render_snapshot(self, snapshot: Snapshot) -> str:
        out = _Writer(self.colour)
        render_stack(snapshot, out)
        return "\n".join(out.lines) + "\n"
