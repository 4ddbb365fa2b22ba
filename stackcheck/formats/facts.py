"""Text for `stackcheck matrix` and `stackcheck recommend`: coverage, facts with their sources
and unsure marks, and ranked recommendations."""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from typing import Any

from stackcheck.check.model import Recommendation
from stackcheck.matrix.describe import Answer, TableCoverage
from stackcheck.matrix.provenance import AuditEntry, AuditRow
from stackcheck.recommend.images import Basis

_WIDTH = 100
_LABEL = 16
UNSURE = "[unsure]"


def _value(value: Any) -> str:
    if isinstance(value, list):
        return ", ".join(str(v) for v in value)
    if isinstance(value, dict):
        shown = {k: v for k, v in value.items() if v not in (None, [], False)}
        return ", ".join(f"{k}={_value(v)}" for k, v in shown.items())
    return str(value)


def _row(label: str, text: str, indent: int = 2, *, whole: bool = False) -> list[str]:
    """``label`` in a column, ``text`` wrapped beside it (below it when the label is long).
    Wrapped at spaces only, so a URL or path is never cut; ``whole``: a command, kept on one
    line so that it can be copied."""
    pad = " " * (indent + _LABEL + 1)
    head = [" " * indent + label] if len(label) > _LABEL else []
    lead = pad if head else " " * indent + f"{label:<{_LABEL}} "
    if whole:
        return [*head, lead + text]
    wrapped = textwrap.wrap(
        text,
        _WIDTH,
        initial_indent=lead,
        subsequent_indent=pad,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return [*head, *wrapped]


def render_coverage(
    version: str, built: str | None, age: int | None, rows: list[TableCoverage], overlays: list[str]
) -> str:
    lines = [
        f"matrix {version}, built {built or 'unknown'}"
        + (f" ({age} days ago)" if age is not None else "")
    ]
    if overlays:
        lines.append(f"user matrix directories over it: {', '.join(overlays)}")
    lines.append("")
    lines.append(
        f"  {'TABLE':<15}{'COMMAND':<10}{'ENTRIES':>7}  {'UNSURE':>6}  {'CHECKED':<11} RANGE"
    )
    for row in rows:
        span = f"{row.first} ... {row.last}" if row.first != row.last else str(row.first or "")
        lines.append(
            f"  {row.table:<15}{row.command:<10}{row.entries:>7}  {row.unsure:>6}  "
            f"{row.checked or ''!s:<11} {span}"
        )
    lines.append("")
    lines.append(
        "`stackcheck matrix COMMAND` lists a table's keys, `stackcheck matrix COMMAND KEY` "
        "prints the facts."
    )
    return "\n".join(lines) + "\n"


def render_listing(command: str, keys: list[tuple[str, bool]]) -> str:
    return "".join(f"{command} {key}{' ' + UNSURE if unsure else ''}\n" for key, unsure in keys)


def _entry(entry: Mapping[str, Any]) -> list[str]:
    lines = []
    for key, value in entry.items():
        if key in ("source", "checked", "unsure", "note") or value in ([], None):
            continue
        if isinstance(value, list) and isinstance(value[0], dict):
            for item in value:  # torch variants, cuDNN builds: one row each
                lines += _row(key, _value(item))
        else:
            lines += _row(key, _value(value))
    if entry.get("note"):
        lines += _row("note", str(entry["note"]))
    mark = f" {UNSURE}" if entry.get("unsure") else ""
    lines += _row("source", f"{entry['source']} (checked {entry['checked']}){mark}")
    return lines


def render_answer(answer: Answer) -> str:
    lines = []
    for index, entry in enumerate(answer.entries):
        if index:
            lines.append("")
        lines += _entry(entry)
    if answer.related:
        lines.append("")
        for related in answer.related:
            source = f" [{related.source}]" if related.source else ""
            mark = f" {UNSURE}" if related.unsure else ""
            lines += _row(related.label, f"{related.text}{source}{mark}")
    return "\n".join(lines) + "\n"


def render_recommendations(
    described: str, basis: Basis, found: Mapping[str, list[Recommendation]]
) -> str:
    lines = [f"Recommendations for {described}"]
    if basis.driver:
        lines += textwrap.wrap(
            f"Images are ranked for driver {basis.driver} ({basis.origin}).", _WIDTH
        )
    for kind, recommendations in found.items():
        lines.append("")
        lines.append(kind.upper())
        if not recommendations:
            lines.append("  none in the matrix fits")
        for rank, rec in enumerate(recommendations, 1):
            mark = f" {UNSURE}" if rec.unsure else ""
            lines.append(f"  {rank}. {rec.name}{mark}")
            lines += _row("why", rec.reason, 5)
            if rec.changes:
                lines += _row("changes", "; ".join(rec.changes), 5)
            if rec.get:
                lines += _row("get it", rec.get, 5, whole=True)
            for caution in rec.cautions:
                lines += _row("caution", caution, 5)
            if rec.source:
                lines += _row("source", rec.source, 5)
    return "\n".join(lines) + "\n"


def render_audit(rows: list[AuditRow], share: float, entries: list[AuditEntry]) -> str:
    """Counts by provenance per table, the primary share, then (for one table) every entry."""
    lines = [f"  {'TABLE':<15}{'PRIMARY':>8}{'SECONDARY':>10}{'UNSURE':>8}{'TOTAL':>7}"]
    for row in rows:
        lines.append(
            f"  {row.table:<15}{row.primary:>8}{row.secondary:>10}{row.unsure:>8}{row.total:>7}"
        )
    lines += ["", f"primary share: {share:.1%} of {rows[-1].total} entries"]
    if entries:
        lines.append("")
        for entry in entries:
            via = f" via {entry.via}" if entry.via else ""
            lines.append(f"  {entry.provenance:<10} {entry.key}: {entry.source}{via}")
    return "\n".join(lines) + "\n"
