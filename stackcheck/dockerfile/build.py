"""A Dockerfile as ``docker build`` would run it: ARG and ENV in scope, variables expanded, stages
as a graph, and the stage that is built.

Follows the Dockerfile reference: an ``ARG`` before the first ``FROM`` is in scope only for
``FROM`` lines, and a stage sees it only after re-declaring it (``ARG NAME``); ``--build-arg``
overrides a declared default; ``ENV`` overrides an ``ARG`` of the same name and later ``ENV``
overrides earlier; a stage built ``FROM`` another stage inherits its ENV, not its ARGs. ``RUN`` is
expanded with what its shell would see (ARG and ENV); a variable nothing sets stays as written, so
that a version it would carry reads as unknown, never as empty.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from stackcheck import limits
from stackcheck.errors import StackcheckError
from stackcheck.parsers.dockerfile import (
    Dockerfile,
    DockerfileSyntaxError,
    Instruction,
    arg_pairs,
    env_pairs,
    from_parts,
)

# Instructions the builder expands itself (RUN is expanded by its shell, with ARG and ENV).
_EXPANDED = frozenset(
    ["ADD", "COPY", "ENV", "EXPOSE", "FROM", "LABEL", "STOPSIGNAL", "USER", "VOLUME", "WORKDIR"]
)
_DEFAULT_PLATFORM = "linux/amd64"
MAX_EXPANSION = 64 * 1024  # a value grown past this by self-reference is not a version string


@dataclass(frozen=True)
class BuildOptions:
    """What ``docker build`` is told besides the file: ``--build-arg``, ``--target``,
    ``--platform``."""

    build_args: dict[str, str] = field(default_factory=dict)
    target: str | None = None  # None: the last stage, as docker builds
    platform: str | None = None  # None: linux/amd64


@dataclass(frozen=True)
class Step:
    """An instruction with its arguments as the builder (or its shell) would see them."""

    instruction: Instruction
    text: str


@dataclass
class Stage:
    index: int
    name: str | None
    reference: str  # the FROM reference, expanded
    instruction: Instruction  # its FROM line
    parent: int | None  # the stage it is built FROM, when it is one
    platform: str | None
    steps: list[Step] = field(default_factory=list)
    env: dict[str, tuple[str, Instruction]] = field(default_factory=dict)  # inherited + own
    unset: tuple[str, ...] = ()  # variables of the FROM line that nothing sets

    @property
    def label(self) -> str:
        return self.name or str(self.index)


@dataclass
class Build:
    dockerfile: Dockerfile
    stages: list[Stage]
    target: Stage
    build_args: dict[str, str]

    def chain(self, stage: Stage | None = None) -> list[Stage]:
        """The stage and those it is built FROM, oldest first."""
        chain = [stage or self.target]
        while chain[0].parent is not None:
            chain.insert(0, self.stages[chain[0].parent])
        return chain

    def stage(self, reference: str) -> Stage | None:
        """A stage by name (case-insensitive) or index, as ``FROM`` and ``COPY --from`` name it."""
        for stage in self.stages:
            if stage.name is not None and stage.name.lower() == reference.lower():
                return stage
        if reference.isdigit() and int(reference) < len(self.stages):
            return self.stages[int(reference)]
        return None


def expand(text: str, values: dict[str, str | None], escape: str = "\\") -> tuple[str, list[str]]:
    """``$NAME``, ``${NAME}``, ``${NAME:-word}``, ``${NAME-word}``, ``${NAME:+word}``,
    ``${NAME+word}`` replaced from ``values``. A name with no value stays as written; the names
    left so are returned. ``\\$`` is a literal dollar."""
    out: list[str] = []
    unset: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        char = text[i]
        if char == escape and i + 1 < n and text[i + 1] == "$":
            out.append("$")
            i += 2
            continue
        if char != "$" or i + 1 >= n:
            out.append(char)
            i += 1
            continue
        if text[i + 1] == "{":
            end, depth = i + 2, 1
            while end < n and depth:
                depth += {"{": 1, "}": -1}.get(text[end], 0)
                end += 1
            if depth:
                out.append(text[i:])
                break
            body = text[i + 2 : end - 1]
            out.append(_braced(body, text[i:end], values, escape, unset))
            i = end
            continue
        j = i + 1
        while j < n and (text[j].isalnum() or text[j] == "_"):
            j += 1
        if j == i + 1:
            out.append(char)
            i += 1
            continue
        name = text[i + 1 : j]
        value = values.get(name)
        if value is None:
            unset.append(name)
            out.append(text[i:j])
        else:
            out.append(value)
        i = j
    result = "".join(out)
    if len(result) > MAX_EXPANSION:
        result = result[:MAX_EXPANSION]
    return result, unset


_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_OPERATORS = (":-", ":+", "-", "+", "//", "/", "##", "#", "%%", "%")


def _glob(pattern: str) -> str:
    """A shell pattern (``*``, ``?``) as a regex body."""
    return "".join(".*" if c == "*" else "." if c == "?" else re.escape(c) for c in pattern)


def _trim(value: str, operator: str, pattern: str) -> str:
    """``${V#p}``, ``${V##p}``, ``${V%p}``, ``${V%%p}``: remove a matching prefix or suffix."""
    body = _glob(pattern)
    if operator.startswith("#"):
        lazy = "" if operator == "##" else "?"
        found = re.match(f"(?s){body.replace('.*', '.*' + lazy)}", value)
        return value[found.end() :] if found else value
    ends = range(len(value) + 1) if operator == "%%" else range(len(value), -1, -1)
    for start in ends:
        if re.fullmatch(f"(?s){body}", value[start:]):
            return value[:start]
    return value


def _braced(
    body: str, written: str, values: dict[str, str | None], escape: str, unset: list[str]
) -> str:
    """One ``${…}``: plain, defaults and alternatives (Dockerfile and shell), and the shell's
    pattern removal and substitution (``${V#v}``, ``${V%.*}``, ``${V//v}``)."""
    match = _NAME.match(body)
    name = match.group(0) if match else body
    rest = body[len(name) :] if match else ""
    operator = next((op for op in _OPERATORS if rest.startswith(op)), "")
    word = rest[len(operator) :]
    value = values.get(name)
    if operator in (":-", "-"):
        empty = value is None or (operator == ":-" and value == "")
        if empty:
            return expand(word, values, escape)[0]
        return value or ""
    if operator in (":+", "+"):
        present = value is not None and (operator == "+" or value != "")
        return expand(word, values, escape)[0] if present else ""
    if value is None or (rest and not operator):
        unset.append(name)
        return written
    if operator in ("#", "##", "%", "%%"):
        return _trim(value, operator, expand(word, values, escape)[0])
    if operator in ("/", "//"):
        pattern, _, replacement = word.partition("/")
        if not pattern:
            return value
        return re.sub(
            f"(?s){_glob(pattern)}",
            replacement.replace("\\", "\\\\"),
            value,
            count=0 if operator == "//" else 1,
        )
    return value


def _platform(platform: str) -> dict[str, str | None]:
    os_, _, rest = platform.partition("/")
    arch, _, variant = rest.partition("/")
    return {
        "TARGETPLATFORM": platform,
        "TARGETOS": os_,
        "TARGETARCH": arch,
        "TARGETVARIANT": variant,
        "BUILDPLATFORM": platform,
        "BUILDOS": os_,
        "BUILDARCH": arch,
    }


def _spend(budget: int, size: int, instruction: Instruction) -> int:
    if size > budget:
        raise DockerfileSyntaxError(
            instruction.line, f"variables expand past {limits.DOCKERFILE_EXPANDED_BYTES >> 20} MiB"
        )
    return budget - size


def plan_build(dockerfile: Dockerfile, options: BuildOptions | None = None) -> Build:
    """Stages with their steps expanded; raises a :class:`StackcheckError` for a target that is
    not a stage, and :class:`DockerfileSyntaxError` for an instruction outside any stage."""
    options = options or BuildOptions()
    given = dict(options.build_args)
    target = options.target
    predefined = _platform(options.platform or _DEFAULT_PLATFORM)
    global_args: dict[str, str | None] = dict(predefined)
    stages: list[Stage] = []
    stage: Stage | None = None
    budget = limits.DOCKERFILE_EXPANDED_BYTES
    args: dict[str, str | None] = {}
    values: dict[str, str | None] = {}
    for instruction in dockerfile.instructions:
        keyword = instruction.keyword
        if keyword == "UNKNOWN":
            if stage is not None:
                stage.steps.append(Step(instruction, instruction.arguments))
            continue
        if keyword == "FROM":
            written, name = from_parts(instruction)
            reference, unset = expand(written, global_args, dockerfile.escape)
            flag = instruction.flag("platform")
            stage_platform = expand(flag, global_args)[0] if flag else None
            parent = None
            for earlier in stages:
                if earlier.name is not None and earlier.name.lower() == reference.lower():
                    parent = earlier.index
            stage = Stage(
                index=len(stages),
                name=name,
                reference=reference,
                instruction=instruction,
                parent=parent,
                platform=stage_platform,
                env=dict(stages[parent].env) if parent is not None else {},
                unset=tuple(unset),
            )
            stages.append(stage)
            args = {}
            # What $NAME expands to in this stage: its ENV over its ARGs, kept up to date as
            # instructions go by (rebuilt per instruction, it made long files quadratic).
            values = {k: v for k, (v, _) in stage.env.items()}
            continue
        if stage is None:
            if keyword != "ARG":
                raise DockerfileSyntaxError(
                    instruction.line, f"{keyword} before the first FROM (only ARG may come first)"
                )
            for arg_name, default in arg_pairs(instruction.arguments, instruction.line):
                value = expand(default, global_args)[0] if default is not None else None
                global_args[arg_name] = given.get(arg_name, value)
            continue
        if keyword == "ARG":
            for arg_name, default in arg_pairs(instruction.arguments, instruction.line):
                if arg_name in given:
                    args[arg_name] = given[arg_name]
                elif default is not None:
                    args[arg_name] = expand(default, values, dockerfile.escape)[0]
                elif arg_name in global_args:
                    args[arg_name] = global_args[arg_name]
                else:
                    args[arg_name] = None
                values[arg_name] = args[arg_name] if arg_name not in stage.env else values[arg_name]
            stage.steps.append(Step(instruction, instruction.arguments))
            continue
        if keyword == "ENV":
            texts = []
            assigned: dict[str, str | None] = {}
            # Every pair of one ENV is expanded with the values from before it, as the
            # reference says (`ENV abc=bye def=$abc` gives def the previous abc).
            for env_name, value in env_pairs(instruction.arguments, instruction.line):
                expanded = expand(value, values, dockerfile.escape)[0]
                stage.env[env_name] = (expanded, instruction)
                assigned[env_name] = expanded
                texts.append(f"{env_name}={expanded}")
            values.update(assigned)
            stage.steps.append(Step(instruction, " ".join(texts)))
            budget = _spend(budget, sum(len(t) for t in texts), instruction)
            continue
        text = instruction.arguments
        if keyword in _EXPANDED or keyword == "RUN":
            text = expand(text, values, dockerfile.escape)[0]
        stage.steps.append(Step(instruction, text))
        budget = _spend(budget, len(text), instruction)
    if not stages:
        raise StackcheckError("no FROM instruction: not a Dockerfile")
    chosen = stages[-1]
    if target is not None:
        found = next(
            (s for s in stages if s.name is not None and s.name.lower() == target.lower()), None
        )
        if found is None:
            names = ", ".join(s.name for s in stages if s.name) or "none"
            raise StackcheckError(f"--target {target}: no such stage (stages: {names})")
        chosen = found
    return Build(dockerfile, stages, chosen, given)
