"""Dockerfiles, instruction by instruction, with the line each one starts on, as the Dockerfile
reference reads them.

Handles parser directives (``# escape=``, ``# syntax=``), line continuations with the escape
character (comments and blank lines inside a continued instruction are dropped, as BuildKit does),
heredocs (``RUN <<EOF``, ``<<-EOF``, quoted delimiters, several per line), JSON (exec) form,
instruction flags (``--from=``, ``--platform=``), and both ``ENV`` forms. Nothing is expanded here:
``$VAR`` stays as written (``stackcheck.dockerfile.build`` expands). A line that is no known
instruction becomes an ``unknown`` instruction (a note for the reader, not a failure); what the
builder itself would refuse raises :class:`DockerfileSyntaxError` with the line.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field

from stackcheck.errors import StackcheckError

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
# Instructions that take no argument-less form (the builder refuses them bare).
_NEED_ARGUMENTS = INSTRUCTIONS - {"MAINTAINER"}
_HEREDOC_INSTRUCTIONS = frozenset(["RUN", "COPY", "ADD"])
_WORD = re.compile(r"^\s*([A-Za-z][A-Za-z0-9_-]{0,30})(?:\s+(.*))?$")
_DIRECTIVE = re.compile(r"^#\s*([A-Za-z]+)\s*=\s*(\S+)\s*$")
_HEREDOC = re.compile(r"(?<!<)<<(-?)([\"']?)([A-Za-z_][\w.-]{0,40})\2")
_FLAG = re.compile(r"^--([a-z][a-z-]*)(?:=(\S*))?$")
_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
MAX_INSTRUCTIONS = 20_000  # a Dockerfile is a recipe: past this it is not one


class DockerfileSyntaxError(StackcheckError):
    """What ``docker build`` would refuse to parse, with the line it is on."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line
        self.reason = message


@dataclass(frozen=True)
class Instruction:
    keyword: str  # upper case: "ENV"; "UNKNOWN" for a line the builder does not know
    arguments: str  # flags removed, continuations joined; heredoc bodies after a newline
    line: int  # the line it starts on, counting from ``first_line``
    end_line: int
    flags: tuple[tuple[str, str], ...] = ()  # ("from", "builder"), ("platform", "linux/amd64")
    exec_form: tuple[str, ...] | None = None  # the JSON array, when written in exec form
    heredocs: tuple[str, ...] = ()
    word: str = ""  # the word as written, for an unknown instruction's note

    def flag(self, name: str) -> str | None:
        return next((v for k, v in self.flags if k == name), None)


@dataclass(frozen=True)
class Dockerfile:
    instructions: tuple[Instruction, ...]
    escape: str = "\\"
    directives: dict[str, str] = field(default_factory=dict)

    def of(self, keyword: str) -> Iterator[Instruction]:
        return (i for i in self.instructions if i.keyword == keyword)

    def env(self) -> Iterator[tuple[str, str, Instruction]]:
        """Every ``ENV`` pair as written, in order, with its instruction."""
        for instruction in self.of("ENV"):
            for name, value in env_pairs(instruction.arguments, instruction.line):
                yield name, value, instruction

    def args(self) -> Iterator[tuple[str, str | None, Instruction]]:
        """Every ``ARG`` with its default as written (None when it has none)."""
        for instruction in self.of("ARG"):
            for name, value in arg_pairs(instruction.arguments, instruction.line):
                yield name, value, instruction

    def base_images(self) -> Iterator[tuple[str, str | None, Instruction]]:
        """``FROM image [AS stage]``: the image as written and its stage name."""
        for instruction in self.of("FROM"):
            image, stage = from_parts(instruction)
            yield image, stage, instruction


def words(text: str) -> list[str]:
    """Shell-like words, quotes removed; unbalanced quotes fall back to blanks."""
    try:
        return shlex.split(text, posix=True)
    except ValueError:
        return text.split()


def env_pairs(arguments: str, line: int = 0) -> list[tuple[str, str]]:
    """``A=1 B="two words"`` or, legacy, ``A one value`` (the rest of the line is the value)."""
    found = words(arguments)
    if not found:
        raise DockerfileSyntaxError(line, "ENV names can not be blank")
    if "=" not in found[0]:
        if len(found) < 2:
            raise DockerfileSyntaxError(line, f"ENV {found[0]} needs a value")
        return [(found[0], " ".join(found[1:]))]  # quotes go, as Docker removes them
    pairs = []
    for word in found:
        name, eq, value = word.partition("=")
        if not eq or not name:
            raise DockerfileSyntaxError(line, f"ENV expects NAME=VALUE pairs, not {word!r}")
        pairs.append((name, value))
    return pairs


def arg_pairs(arguments: str, line: int = 0) -> list[tuple[str, str | None]]:
    pairs: list[tuple[str, str | None]] = []
    for word in words(arguments):
        if word.startswith("#"):
            break  # a trailing comment: written in the wild, and the builder ignores it
        name, eq, value = word.partition("=")
        if not _NAME.match(name):
            raise DockerfileSyntaxError(line, f"ARG name {name!r} is not a valid name")
        pairs.append((name, value if eq else None))
    return pairs


def from_parts(instruction: Instruction) -> tuple[str, str | None]:
    parts = words(instruction.arguments)
    if len(parts) == 1:
        return parts[0], None
    if len(parts) == 3 and parts[1].lower() == "as":
        return parts[0], parts[2]
    raise DockerfileSyntaxError(
        instruction.line, "FROM expects `image [AS name]`, not " + repr(instruction.arguments)
    )


def _flags(keyword: str, text: str) -> tuple[tuple[tuple[str, str], ...], str]:
    """Leading ``--name=value`` flags of FROM, COPY, ADD, RUN and HEALTHCHECK."""
    if keyword not in ("FROM", "COPY", "ADD", "RUN", "HEALTHCHECK"):
        return (), text
    flags = []
    rest = text
    while rest.startswith("--"):
        word, _, after = rest.partition(" ")
        match = _FLAG.match(word)
        if match is None:
            break
        flags.append((match.group(1), match.group(2) or ""))
        rest = after.lstrip()
    return tuple(flags), rest


def _exec_form(text: str) -> tuple[str, ...] | None:
    if not text.startswith("["):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None  # not JSON: the builder runs it as a shell command
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _directives(lines: list[str]) -> dict[str, str]:
    """Parser directives: ``# name=value`` comments before anything else."""
    found: dict[str, str] = {}
    for line in lines:
        match = _DIRECTIVE.match(line.strip())
        if match is None or match.group(1).lower() in found:
            break
        found[match.group(1).lower()] = match.group(2)
    escape = found.get("escape", "\\")
    if escape not in ("\\", "`"):
        raise DockerfileSyntaxError(1, f"invalid escape directive {escape!r}: use \\ or `")
    return found


def parse_dockerfile(text: str, first_line: int = 1) -> Dockerfile:
    """Instructions of ``text``. Raises :class:`DockerfileSyntaxError` where ``docker build``
    would fail to parse; an unknown instruction word is kept as ``UNKNOWN``."""
    lines = text.splitlines()
    directives = _directives(lines)
    escape = directives.get("escape", "\\")
    instructions: list[Instruction] = []
    index = 0
    while index < len(lines):
        start = index
        raw = lines[index]
        index += 1
        stripped = raw.strip()
        if not stripped or stripped.startswith("#"):
            continue
        parts = [raw]
        while parts[-1].rstrip().endswith(escape):
            parts[-1] = parts[-1].rstrip()[: -len(escape)]
            # Comments and blank lines inside a continued instruction are dropped.
            while index < len(lines) and (
                not lines[index].strip() or lines[index].lstrip().startswith("#")
            ):
                index += 1
            if index >= len(lines):
                break
            parts.append(lines[index])
            index += 1
        joined = " ".join(p.strip() for p in parts if p.strip())
        if not joined:
            continue  # a lone escape character: a continuation of nothing
        match = _WORD.match(joined)
        number = first_line + start
        if match is None:
            instructions.append(
                Instruction(
                    "UNKNOWN", "", number, first_line + index - 1, word=joined.split()[0][:20]
                )
            )
            continue
        keyword = match.group(1).upper()
        rest = (match.group(2) or "").strip()
        if keyword not in INSTRUCTIONS:
            instructions.append(
                Instruction("UNKNOWN", "", number, first_line + index - 1, word=match.group(1)[:20])
            )
            continue
        flags, rest = _flags(keyword, rest)
        if not rest and keyword in _NEED_ARGUMENTS:
            raise DockerfileSyntaxError(number, f"{keyword} requires at least one argument")
        bodies: list[str] = []
        if keyword in _HEREDOC_INSTRUCTIONS:
            for heredoc in _HEREDOC.finditer(rest):
                strip_tabs = heredoc.group(1) == "-"
                body = []
                while index < len(lines) and lines[index].strip() != heredoc.group(3):
                    body.append(lines[index].lstrip("\t") if strip_tabs else lines[index])
                    index += 1
                if index >= len(lines):
                    raise DockerfileSyntaxError(
                        number, f"heredoc <<{heredoc.group(3)} is never closed"
                    )
                index += 1  # the terminator
                bodies.append("\n".join(body))
        arguments = "\n".join([rest, *bodies]) if bodies else rest
        instructions.append(
            Instruction(
                keyword=keyword,
                arguments=arguments,
                line=number,
                end_line=first_line + min(index, len(lines)) - 1,
                flags=flags,
                exec_form=_exec_form(rest),
                heredocs=tuple(bodies),
                word=match.group(1),
            )
        )
        if len(instructions) > MAX_INSTRUCTIONS:
            raise DockerfileSyntaxError(number, f"more than {MAX_INSTRUCTIONS} instructions")
    return Dockerfile(tuple(instructions), escape, directives)
