"""What triage read from each segment of a text: for ``stackcheck triage --show-parsed``."""

from __future__ import annotations

from typing import Any

from stackcheck.ingest import Triage


def parsed_json(triage: Triage) -> list[dict[str, Any]]:
    return [
        {
            "format": part.segment.format.name,
            "title": part.segment.format.title,
            "lines": [part.segment.first, part.segment.last],
            "facts": [{"line": f.line.number, "fact": f.describe()} for f in part.facts],
        }
        for part in triage.segments
        if part.facts or part.segment.format.name != "prose"
    ]


def render_parsed(triage: Triage) -> str:
    lines = ["Parsed:"]
    for part in parsed_json(triage):
        first, last = part["lines"]
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        lines.append(f"  {where}: {part['title']}")
        for fact in part["facts"]:
            lines.append(f"    {fact['line']:>5}  {fact['fact']}")
        if not part["facts"]:
            lines.append("           (nothing the checks use)")
    return "\n".join(lines) + "\n"
