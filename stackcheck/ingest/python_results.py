"""What PyTorch said about itself in a REPL or ``python -c``: an expression, then its value on a
following line (often across a Markdown fence): ``torch.cuda.nccl.version()`` / ``(2, 19, 3)``;
``torch.cuda.get_arch_list()`` / ``['sm_80', 'sm_90']``; ``torch.cuda.is_available()`` /
``True`` and ``torch.cuda.device_count()`` / ``8`` (PyTorch sees a GPU, or none); and the common
one-liner ``print(torch.__version__, torch.version.cuda, torch.cuda.get_arch_list())`` whose
answer is one line of space-separated values. ``torch.version.cuda`` answering ``None`` is a
build without CUDA (a CPU wheel). ``torch.cuda.is_available()`` alone on its line takes a value
the sentence before it ends with ("the following returns false"; not a question)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, ObservationFact
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName, ObservationKind

_EXPRESSION = re.compile(
    r"torch\.(__version__|version\.cuda|cuda\.is_available\(\)|cuda\.nccl\.version\(\)|"
    r"backends\.cudnn\.version\(\)|cuda\.get_arch_list\(\)|cuda\.device_count\(\))"
)
_ARCH_LIST = r"\[(?:'(?:sm|compute)_\d{2,3}[af]?',?\s?){1,24}\]"
_ONE_VALUE = (
    rf"\(\d{{1,2}}, \d{{1,3}}, \d{{1,3}}\)|\d{{4,6}}|True|False|None|{_ARCH_LIST}|"
    r"'[\w.+-]{1,40}'|\"[\w.+-]{1,40}\"|\d{1,2}\.\d{1,3}[\w.+-]{0,40}"
)
# A value alone on its line may be a small count (device_count()'s "8"), and may carry the
# reporter's comment ("8 # !!!"); a small number inside a line is anything's.
_VALUE = re.compile(
    rf"^\s*(?:Out\[\d{{1,5}}\]:\s*)?({_ONE_VALUE}|\d{{1,3}})(?:\s{{1,4}}#[^\n]{{0,60}})?\s*$"
)
# print(a, b, c) answers on one line: "2.1.0+cu121 12.1 ['sm_50', 'sm_60']"
_VALUES = re.compile(rf"^\s*((?:(?:{_ONE_VALUE})\s{{1,4}}){{1,5}}(?:{_ONE_VALUE}))\s*$")
_TOKEN = re.compile(_ONE_VALUE)
_QUOTED = re.compile(r"^[\s>]{0,40}")
LOOKAHEAD = 4  # lines between an expression and its value (fences, a blank, a prompt)


def _values_after(lines: Sequence[Line], index: int, count: int) -> tuple[Line, list[str]] | None:
    """The ``count`` values printed after line ``index`` (one per expression printed)."""
    for line in lines[index + 1 : index + 1 + LOOKAHEAD]:
        if line.fence or line.blank:
            continue
        pattern = _VALUE if count == 1 else _VALUES
        # "8 # !!!" cleans as a root prompt ("host # "): a value alone is also read as pasted,
        # less its quote marks and indentation.
        pasted = _QUOTED.sub("", line.raw)
        found = pattern.match(line.text) or (_VALUE.match(pasted) if count == 1 else None)
        if found is None:
            return None
        said = found.group(1)
        values = (
            [said.strip("'\"")] if count == 1 else [v.strip("'\"") for v in _TOKEN.findall(said)]
        )
        return (line, values) if len(values) == count else None
    return None


_CUDA_SEEN: dict[bool, ObservationKind] = {True: "cuda-available", False: "cuda-unavailable"}


def _fact(expression: str, line: Line, value: str) -> Fact | None:
    if expression == "__version__" and value[:1].isdigit():
        return torch_fact(line, value)
    if expression == "version.cuda" and value[:1].isdigit():
        return ComponentFact(line, ComponentName.TORCH, cuda=value)
    if expression == "version.cuda" and value == "None":
        # No CUDA in the build: a CPU wheel (a ROCm build says so by torch.version.hip, which a
        # text that prints it shows; collect_env reads the same None the same way).
        return ComponentFact(line, ComponentName.TORCH, properties={"cpu_only": "yes"})
    if expression == "cuda.is_available()" and value in ("True", "False"):
        return ObservationFact(
            line, _CUDA_SEEN[value == "True"], f"torch.cuda.is_available() is {value}"
        )
    if expression == "cuda.device_count()" and value.isdigit():
        return ObservationFact(
            line, _CUDA_SEEN[int(value) > 0], f"torch.cuda.device_count() is {value}"
        )
    if expression == "cuda.nccl.version()":
        numbers = re.findall(r"\d+", value)
        if len(numbers) == 3:
            return ObservationFact(line, "nccl-loaded", ".".join(numbers))
    if expression == "cuda.get_arch_list()" and value.startswith("["):
        archs = re.findall(r"sm_\d{2,3}[af]?", value)
        return ComponentFact(line, ComponentName.TORCH, archs=archs) if archs else None
    if expression == "backends.cudnn.version()" and value.isdigit():
        number = int(value)
        version = f"{number // 1000}.{(number % 1000) // 100}.{number % 100}"
        return ComponentFact(
            line, ComponentName.CUDNN, version=version, properties={"loaded": "yes"}
        )
    return None


# Code or advice that names a value without telling it: "if torch.version.cuda is None:",
# "assert torch.version.cuda is None", "torch.version.cuda is not None".
_NOT_TOLD = re.compile(r"\b(?:if|elif|assert|whether|unless)\b|\bis not\b|!=", re.IGNORECASE)


def _values_on(line: Line, expressions: list[str]) -> tuple[Line, list[str]] | None:
    """Values told on the expression's own line ("print(torch.cuda.nccl.version())" in
    Terminal, I can see (2, 10, 3)), where each expression has exactly one."""
    if _NOT_TOLD.search(line.text) is not None:
        return None
    last = 0
    for found in _EXPRESSION.finditer(line.text):
        last = found.end()
    values = [v.strip("'\"") for v in _TOKEN.findall(line.text[last:])]
    return (line, values) if len(values) == len(expressions) else None


# "the following returns false" then the expression on its own line (thuml/Autoformer#25).
_TOLD_BEFORE = re.compile(
    r"\b(?:returns?|returned|gives|gave|prints?|printed|shows?|showed|outputs?)\s(true|false)"
    r"[.:!]{0,2}\s{0,2}$",
    re.IGNORECASE,
)


def _value_before(lines: Sequence[Line], index: int) -> tuple[Line, list[str]] | None:
    """A single value told on the line before the expression, as a sentence ends with it."""
    for line in reversed(lines[max(0, index - LOOKAHEAD) : index]):
        if line.fence or line.blank:
            continue
        found = _TOLD_BEFORE.search(line.text)
        return (line, [found.group(1).capitalize()]) if found is not None else None
    return None


def python_results(lines: Sequence[Line]) -> list[Fact]:
    facts: list[Fact] = []
    for index, line in enumerate(lines):
        if "torch." not in line.text:
            continue
        expressions = [m.group(1) for m in _EXPRESSION.finditer(line.text)][:6]
        if not expressions:
            continue
        result = _values_after(lines, index, len(expressions)) or _values_on(line, expressions)
        if result is None and expressions == ["cuda.is_available()"]:
            result = _value_before(lines, index)
        if result is None:
            continue
        for expression, value in zip(expressions, result[1], strict=True):
            fact = _fact(expression, result[0], value)
            if fact is not None:
                facts.append(fact)
    return facts
