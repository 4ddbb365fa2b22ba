"""A Dockerfile's stack without building it: its base image (through the matrix), its ENV lines,
and the PyTorch its ``pip install`` lines pull, each with the line it came from."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from stackcheck.dockerfile.base_image import BaseStack, resolve_base_image
from stackcheck.errors import StackcheckError
from stackcheck.ingest.assemble import assemble
from stackcheck.ingest.formats.dockerfile import Dockerfile as DockerfileFormat
from stackcheck.ingest.lines import split_lines
from stackcheck.matrix.index import MatrixIndex
from stackcheck.parsers.dockerfile import Dockerfile, Instruction, parse_dockerfile
from stackcheck.snapshot.model import (
    ComponentName,
    Evidence,
    ProbeNote,
    Snapshot,
    SnapshotSource,
)

MAX_DOCKERFILE = 1 << 20
_VARIABLE = re.compile(r"\$(?:\{(\w+)(?::?[-+][^}]*)?\}|(\w+))")
_IGNORE = re.compile(r"#\s*stackcheck:\s*ignore\[([A-Za-z0-9_,\s-]+)\]")


@dataclass
class LintedDockerfile:
    path: str
    dockerfile: Dockerfile
    snapshot: Snapshot
    base: BaseStack | None
    ignores: dict[tuple[str, int], frozenset[str]]  # (file, line) -> rule IDs ignored there


def read_dockerfile(path: str) -> str:
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StackcheckError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(data) > MAX_DOCKERFILE or b"\x00" in data:
        raise StackcheckError(f"{path}: not a Dockerfile (binary, or over 1 MiB)")
    text = data.decode("utf-8", errors="replace")
    if not any(i.keyword == "FROM" for i in parse_dockerfile(text).instructions):
        raise StackcheckError(f"{path}: not a Dockerfile (no FROM instruction)")
    return text


def substitute(text: str, values: dict[str, str]) -> str:
    """``$NAME`` and ``${NAME}`` replaced by known ARG defaults; unknown ones stay as written."""

    def one(match: re.Match[str]) -> str:
        name = match.group(1) or match.group(2)
        return values.get(name, match.group(0))

    return _VARIABLE.sub(one, text)


def final_base(dockerfile: Dockerfile) -> tuple[str, Instruction] | None:
    """The base image of the last stage and the FROM line that names it, following
    ``FROM <earlier stage>`` back to the stage that names an image."""
    args = {
        n: v for n, v, i in dockerfile.args() if v is not None and _before_first_from(i, dockerfile)
    }
    stages: dict[str, tuple[str, Instruction]] = {}
    last: tuple[str, Instruction] | None = None
    for image, stage, instruction in dockerfile.base_images():
        reference = substitute(image, args)
        last = stages.get(reference.lower(), (reference, instruction))
        if stage:
            stages[stage.lower()] = last
    return last


def _before_first_from(instruction: Instruction, dockerfile: Dockerfile) -> bool:
    first = next(dockerfile.of("FROM"), None)
    return first is None or instruction.line < first.line


def inline_ignores(
    text: str, path: str, dockerfile: Dockerfile
) -> dict[tuple[str, int], frozenset[str]]:
    """``# stackcheck: ignore[SC601]`` comment lines directly above an instruction cover all of
    its lines (Dockerfile comments stand on their own lines)."""
    lines = text.splitlines()
    ignores: dict[tuple[str, int], frozenset[str]] = {}
    for instruction in dockerfile.instructions:
        ids: set[str] = set()
        above = instruction.line - 2  # 0-based index of the line above
        while above >= 0 and lines[above].lstrip().startswith("#"):
            match = _IGNORE.search(lines[above])
            if match:
                ids.update(i.strip().upper() for i in match.group(1).split(",") if i.strip())
            above -= 1
        if ids:
            for line in range(instruction.line, instruction.end_line + 1):
                ignores[(path, line)] = frozenset(ids)
    return ignores


def lint_dockerfile(text: str, path: str, index: MatrixIndex) -> LintedDockerfile:
    dockerfile = parse_dockerfile(text)
    lines = split_lines(text)
    snapshot = assemble(DockerfileFormat().parse(lines), path)
    snapshot.source = SnapshotSource(kind="dockerfile", target=path)
    base = None
    found = final_base(dockerfile)
    if found is not None:
        reference, instruction = found
        evidence = Evidence(
            kind="text", source=path, line=instruction.line, detail=f"FROM {reference}"
        )
        base = resolve_base_image(index, reference, evidence)
        installs_torch = bool(snapshot.installations(ComponentName.TORCH))
        for name, installation in base.installations:
            if name is ComponentName.TORCH and installs_torch:
                continue  # a later `pip install torch` replaces the base image's
            snapshot.installations(name).append(installation)
        if base.known_as:
            snapshot.notes.append(_note(f"base image {reference} is {base.known_as} in the matrix"))
        else:
            snapshot.notes.append(
                _note(f"base image {reference} is not in the matrix: its stack was not checked")
            )
    return LintedDockerfile(
        path, dockerfile, snapshot, base, inline_ignores(text, path, dockerfile)
    )


def _note(message: str) -> ProbeNote:
    return ProbeNote(probe="dockerfile", message=message)
