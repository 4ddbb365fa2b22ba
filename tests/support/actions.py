"""Running a composite GitHub Action the way the runner does, for tests.

Reads action.yml, fills ``${{ inputs.* }}`` (defaults from the file, then the test's values) and
``${{ steps.<id>.outputs.* }}``, sets the runner's variables (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY,
GITHUB_WORKSPACE, GITHUB_ACTION_PATH, RUNNER_TEMP) and runs each step's ``run:`` with
``bash -e``, stopping at the first failing step as the runner does.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*([^}]+?)\s*\}\}")


@dataclass
class ActionRun:
    outputs: dict[str, str]
    summary: str
    log: str
    failed_step: str | None
    exit_codes: list[int] = field(default_factory=list)


def _step_outputs(path: Path) -> dict[str, str]:
    """GITHUB_OUTPUT's ``name=value`` and ``name<<DELIMITER`` blocks."""
    values: dict[str, str] = {}
    lines = path.read_text().splitlines() if path.exists() else []
    index = 0
    while index < len(lines):
        line = lines[index]
        if "<<" in line and "=" not in line.split("<<", 1)[0]:
            name, delimiter = line.split("<<", 1)
            block = []
            index += 1
            while lines[index] != delimiter:
                block.append(lines[index])
                index += 1
            values[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        index += 1
    return values


def run_action(
    action_dir: Path,
    inputs: dict[str, str],
    workspace: Path,
    temp: Path,
    path_prefix: str,
) -> ActionRun:
    spec: dict[str, Any] = yaml.safe_load((action_dir / "action.yml").read_text())
    values = {name: str(meta.get("default", "")) for name, meta in spec["inputs"].items()}
    unknown = set(inputs) - set(values)
    assert not unknown, f"inputs not declared in action.yml: {unknown}"
    values.update(inputs)
    step_outputs: dict[str, dict[str, str]] = {}

    def evaluate(text: str) -> str:
        def one(match: re.Match[str]) -> str:
            expression = match.group(1)
            if expression.startswith("inputs."):
                return values[expression[len("inputs.") :]]
            if expression.startswith("steps."):
                _, step, _, name = expression.split(".", 3)
                return step_outputs.get(step, {}).get(name, "")
            if expression == "github.action_path":
                return str(action_dir)
            raise AssertionError(f"expression the harness does not know: {expression}")

        return _EXPRESSION.sub(one, text)

    summary = temp / "step-summary.md"
    summary.write_text("")
    base_env = {
        **os.environ,
        "PATH": f"{path_prefix}:{os.environ['PATH']}",
        "GITHUB_WORKSPACE": str(workspace),
        "GITHUB_ACTION_PATH": str(action_dir),
        "GITHUB_STEP_SUMMARY": str(summary),
        "RUNNER_TEMP": str(temp),
        "GITHUB_ACTIONS": "true",
    }
    log: list[str] = []
    codes: list[int] = []
    failed = None
    for number, step in enumerate(spec["runs"]["steps"]):
        output_file = temp / f"output-{number}"
        output_file.write_text("")
        env = {**base_env, "GITHUB_OUTPUT": str(output_file)}
        env.update({k: evaluate(str(v)) for k, v in step.get("env", {}).items()})
        assert step.get("shell") == "bash", "composite run steps must name their shell"
        done = subprocess.run(
            ["bash", "-e", "-c", evaluate(step["run"])],
            cwd=workspace,
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        log.append(done.stdout + done.stderr)
        codes.append(done.returncode)
        if "id" in step:
            step_outputs[step["id"]] = _step_outputs(output_file)
        if done.returncode != 0:
            failed = step.get("name", str(number))
            break
    outputs = {name: evaluate(str(meta["value"])) for name, meta in spec.get("outputs", {}).items()}
    return ActionRun(outputs, summary.read_text(), "".join(log), failed, codes)
