"""Dockerfiles, instruction by instruction, with the line each one starts on.

Handles line continuations (the escape character, ``\\`` unless a ``# escape=`` directive says
otherwise), comments and blank lines inside continued instructions, heredocs (``RUN <<EOF``),
JSON (exec) form, and both ``ENV`` forms (``ENV A=1 B=2`` and the legacy ``ENV A 1``). Nothing is
evaluated: ``$VAR`` stays as written.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass

INSTRUCTIONS = frozenset(
    [
        "ADD",
        "ARG",
        "CMD",
        "COPY",
        "ENTRYPOINT",
        "ENV",
        "EXPOSE",
        "FROM",
        "HEALTHCHECK",
        "LABEL",
        "MAINTAINER",
        "ONBUILD",
        "RUN",
        "SHELL",
        "STOPSIGNAL",
        "USER",
        "VOLUME",
        "WORKDIR",
    ]
)
_INSTRUCTION = re.compile(r"^\s*([A-Za-z]{2,11})(?:\s+(.*))?$")
_DIRECTIVE = re.compile(r"^#\s*(\w+)\s*=\s*(\S+)\s*$")
_HEREDOC = re.compile(r"<<(-?)([\"']?)([A-Za-z_]\w{0,40})\2")


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: "ENV"
    arguments: str  # continuations joined, heredoc bodies appended after a newline
    line: int  # the line it starts on, counting from ``first_line``
    end_line: int


@dataclass(frozen=True)
class Dockerfile:
    instructions: tuple[Instruction, ...]

    def of(self, keyword: str) -> Iterator[Instruction]:
        return (i for i in self.instructions if i.keyword == keyword)

    def env(self) -> Iterator[tuple[str, str, Instruction]]:
        """Every ``ENV`` pair, in order, with its instruction."""
        for instruction in self.of("ENV"):
            for name, value in env_pairs(instruction.arguments):
                yield name, value, instruction

    def args(self) -> Iterator[tuple[str, str | None, Instruction]]:
        """Every ``ARG`` with its default (None when it has none)."""
        for instruction in self.of("ARG"):
            for word in _words(instruction.arguments):
                name, eq, value = word.partition("=")
                yield name, (value if eq else None), instruction

    def base_images(self) -> Iterator[tuple[str, str | None, Instruction]]:
        """``FROM image [AS stage]``: the image and its stage name."""
        for instruction in self.of("FROM"):
            words = [w for w in _words(instruction.arguments) if not w.startswith("--platform")]
            if words:
                stage = words[2] if len(words) >= 3 and words[1].lower() == "as" else None
                yield words[0], stage, instruction


def _words(text: str) -> list[str]:
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return text.split()


def env_pairs(arguments: str) -> list[tuple[str, str]]:
    """``A=1 B="two words"`` or, legacy, ``A one value`` (the rest of the line is the value)."""
    words = _words(arguments)
    if not words:
        return []
    if "=" not in words[0]:
        return [(words[0], " ".join(words[1:]))]  # quotes go, as Docker removes them
    pairs = []
    for word in words:
        name, eq, value = word.partition("=")
        if eq and name:
            pairs.append((name, value))
    return pairs


def parse_dockerfile(text: str, first_line: int = 1) -> Dockerfile:
    """Instructions of ``text``; lines that are no instruction are skipped, never fatal."""
    lines = text.splitlines()
    escape = "\\"
    for line in lines:  # parser directives: comments before the first instruction
        directive = _DIRECTIVE.match(line.strip())
        if directive is None:
            break
        if directive.group(1).lower() == "escape" and directive.group(2) in ("\\", "`"):
            escape = directive.group(2)
    instructions: list[Instruction] = []
    index = 0
    while index < len(lines):
        start = index
        found = _INSTRUCTION.match(lines[index])
        index += 1
        if found is None or found.group(1).upper() not in INSTRUCTIONS:
            continue
        parts = [found.group(2) or ""]
        while parts[-1].rstrip().endswith(escape):
            parts[-1] = parts[-1].rstrip()[:-1]
            # Comments and blank lines inside a continued instruction are dropped.
            while index < len(lines) and (
                not lines[index].strip() or lines[index].lstrip().startswith("#")
            ):
                index += 1
            if index >= len(lines):
                break
            parts.append(lines[index])
            index += 1
        arguments = " ".join(p.strip() for p in parts if p.strip())
        for heredoc in _HEREDOC.finditer(arguments):
            body = []
            while index < len(lines) and lines[index].strip() != heredoc.group(3):
                body.append(lines[index])
                index += 1
            index += 1  # the terminator
            arguments += "\n" + "\n".join(body)
        instructions.append(
            Instruction(
                keyword=found.group(1).upper(),
                arguments=arguments,
                line=first_line + start,
                end_line=first_line + min(index, len(lines)) - 1,
            )
        )
    return Dockerfile(tuple(instructions))
