"""Values written in source files: Python assignments and C #defines, read without running."""

from __future__ import annotations

import ast
import re


def python_assignments(text: str) -> dict[str, object]:
    """Module-level ``NAME = <literal>`` (and annotated) assignments of a Python file.

    Parsed with ``ast`` and evaluated with ``ast.literal_eval`` only: nothing in the file runs.
    """
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    values: dict[str, object] = {}
    for node in tree.body:
        targets: list[ast.expr]
        if isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        elif isinstance(node, ast.AnnAssign) and node.value is not None:
            targets, value = [node.target], node.value
        else:
            continue
        try:
            literal = ast.literal_eval(value)
        except (ValueError, SyntaxError, TypeError):
            continue
        for target in targets:
            if isinstance(target, ast.Name):
                values[target.id] = literal
    return values


_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(\w+)[ \t]+(.+?)[ \t]*(?://.*|/\*.*)?$", re.M)


def c_defines(text: str) -> dict[str, str]:
    """``#define NAME value`` lines of a C header (values unquoted)."""
    return {m.group(1): m.group(2).strip().strip('"') for m in _DEFINE.finditer(text)}


def c_define(text: str, name: str) -> str | None:
    """``c_defines(text).get(name)`` without reading every line: in a 600 KB header such as
    cuda_runtime_api.h, only the lines that hold NAME are matched (a thousandth of the time)."""
    value = None
    start = text.find(name)
    while start != -1:
        line = text.rfind("\n", 0, start) + 1
        end = text.find("\n", start)
        match = _DEFINE.match(text, line, len(text) if end == -1 else end)
        if match and match.group(1) == name:
            value = match.group(2).strip().strip('"')  # the last definition wins, as in c_defines
        start = text.find(name, start + len(name))
    return value


def os_release(text: str) -> dict[str, str]:
    values = {}
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key.strip():
            values[key.strip()] = value.strip().strip('"').strip("'")
    return values
