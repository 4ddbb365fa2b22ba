"""What PyTorch said about itself in a REPL or ``python -c``: an expression, then its value on a
following line (often across a Markdown fence): ``torch.cuda.nccl.version()`` / ``(2, 19, 3)``."""

from __future__ import annotations

import re
from collections.abc import Sequence

from stackcheck.ingest.facts import ComponentFact, Fact, ObservationFact
from stackcheck.ingest.formats.python_packages import torch_fact
from stackcheck.ingest.lines import Line
from stackcheck.snapshot.model import ComponentName

_EXPRESSION = re.compile(
    r"torch\.(__version__|version\.cuda|cuda\.is_available\(\)|cuda\.nccl\.version\(\)|"
    r"backends\.cudnn\.version\(\))"
)
_VALUE = re.compile(
    r"^\s*(?:Out\[\d{1,5}\]:\s*)?(\(\d{1,2}, \d{1,3}, \d{1,3}\)|\d{4,6}|True|False|None|"
    r"'[\w.+-]{1,40}'|\"[\w.+-]{1,40}\"|\d{1,2}\.\d{1,3}[\w.+-]{0,40})\s*$"
)
LOOKAHEAD = 4  # lines between an expression and its value (fences, a blank, a prompt)


def _value_after(lines: Sequence[Line], index: int) -> tuple[Line, str] | None:
    for line in lines[index + 1 : index + 1 + LOOKAHEAD]:
        if line.fence or line.blank:
            continue
        found = _VALUE.match(line.text)
        return (line, found.group(1).strip("'\"")) if found else None
    return None


def _fact(expression: str, line: Line, value: str) -> Fact | None:
    if expression == "__version__" and value[:1].isdigit():
        return torch_fact(line, value)
    if expression == "version.cuda" and value[:1].isdigit():
        return ComponentFact(line, ComponentName.TORCH, cuda=value)
    if expression == "cuda.is_available()" and value == "False":
        return ObservationFact(line, "cuda-unavailable", "torch.cuda.is_available() is False")
    if expression == "cuda.nccl.version()":
        numbers = re.findall(r"\d+", value)
        if len(numbers) == 3:
            return ObservationFact(line, "nccl-loaded", ".".join(numbers))
    if expression == "backends.cudnn.version()" and value.isdigit():
        number = int(value)
        version = f"{number // 1000}.{(number % 1000) // 100}.{number % 100}"
        return ComponentFact(
            line, ComponentName.CUDNN, version=version, properties={"loaded": "yes"}
        )
    return None


def python_results(lines: Sequence[Line]) -> list[Fact]:
    facts: list[Fact] = []
    for index, line in enumerate(lines):
        if "torch." not in line.text:
            continue
        found = _EXPRESSION.search(line.text)
        if found is None:
            continue
        result = _value_after(lines, index)
        if result is not None:
            fact = _fact(found.group(1), result[0], result[1])
            if fact is not None:
                facts.append(fact)
    return facts
