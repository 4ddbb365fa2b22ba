"""What a reviewer reads in a Dockerfile's steps that no installed file shows: NGC's pip
constraint file cleared before installs, and a version specifier the shell takes for a
redirection. Each becomes an observation with the line that shows it."""

from __future__ import annotations

import re
from collections.abc import Iterator

from stackcheck.dockerfile.build import Step
from stackcheck.snapshot.model import Evidence, ObservationKind

_PIP_INSTALL = re.compile(r"(?:\bpip3?|\buv pip|-m pip) install\b")
# Ways of emptying NGC's PIP_CONSTRAINT (/etc/pip/constraint.txt pins torch and what it needs).
_CLEARS = re.compile(
    r"(?:^|[\s;&|])PIP_CONSTRAINT=(?:\"\"|''|(?=\s|$))"
    r"|\bunset PIP_CONSTRAINT\b"
    r"|\brm\s+(?:-\w+\s+)*\S*/etc/pip/constraint\.txt"
    r"|>\s*/etc/pip/constraint\.txt"
)
_SPECIFIER = re.compile(r"[\w\]][<>]=?\s?[\w.*]")


def _segments(text: str) -> Iterator[str]:
    """Shell commands of ``text`` split at unquoted ``;``, ``&&``, ``||``, ``|`` and newlines,
    with quoted parts blanked so nothing inside quotes is read as shell syntax."""
    current: list[str] = []
    quote = ""
    for char in text:
        if quote:
            current.append(" " if char != quote else char)
            if char == quote:
                quote = ""
            continue
        if char in "\"'":
            quote = char
            current.append(char)
        elif char in ";&|\n":
            yield "".join(current)
            current = []
        else:
            current.append(char)
    yield "".join(current)


def _evidence(step: Step, path: str, detail: str) -> Evidence:
    keyword = step.instruction.keyword
    return Evidence(
        kind="text", source=path, line=step.instruction.line, detail=f"{keyword} {detail}"[:200]
    )


def unquoted_specifiers(step: Step) -> list[str]:
    """``pip install pkg>=1.2`` written without quotes: the shell redirects to a file ``=1.2``."""
    if step.instruction.keyword != "RUN" or step.instruction.exec_form is not None:
        return []
    found = []
    for segment in _segments(step.text):
        if not _PIP_INSTALL.search(segment):
            continue
        for word in segment.split():
            if _SPECIFIER.search(word) and not word.startswith(("-", "/", "<", ">")):
                found.append(word)
    return found


def _clears(step: Step) -> re.Match[str] | None:
    if step.instruction.keyword in ("ENV", "ARG"):  # an ARG is in the environment of RUN too
        return re.search(r"(?:^|\s)PIP_CONSTRAINT=(?:\"\"|''|(?=\s|$))", step.text)
    if step.instruction.keyword == "RUN":
        return _CLEARS.search(step.text)
    return None


def review_steps(
    steps: list[Step], path: str, vendor: str | None
) -> list[tuple[ObservationKind, str, Evidence]]:
    found: list[tuple[ObservationKind, str, Evidence]] = []
    cleared: tuple[Step, re.Match[str]] | None = None
    reported = False
    for step in steps:
        for word in unquoted_specifiers(step):
            found.append(("pip-unquoted-specifier", word, _evidence(step, path, step.text)))
        if vendor != "ngc":
            continue
        match = _clears(step)
        if match is not None and cleared is None:
            cleared = (step, match)
        if cleared is None or reported or step.instruction.keyword != "RUN":
            continue
        start = cleared[1].end() if step is cleared[0] else 0
        install = _PIP_INSTALL.search(step.text, start)
        if install is not None:
            then = step.text[install.start() : install.start() + 120].strip()
            found.append(
                (
                    "pip-constraint-cleared",
                    f"line {step.instruction.line}: {then}",
                    _evidence(cleared[0], path, cleared[0].text),
                )
            )
            reported = True
    return found
