"""The GitHub Action's step: turn the action's inputs into one stackcheck command, run it, and
write the step's outputs. Run by action.yml as ``python3 -m stackcheck.ci.action``."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

from stackcheck.cli import main
from stackcheck.cli.common import EXIT_ERROR

TRUE = {"true", "yes", "1", "on"}


class ActionInputError(ValueError):
    pass


def command(inputs: Mapping[str, str], report_json: Path) -> list[str]:
    """The stackcheck command line for the action's inputs."""

    def given(name: str) -> str:
        return inputs.get(name, "").strip()

    if given("image"):
        argv = ["scan", given("image")]
        if given("dockerfile"):
            argv += ["--dockerfile", given("dockerfile")]
        for name in ("host", "driver", "instance"):
            if given(name):
                argv += [f"--{name}", given(name)]
    elif given("snapshot"):
        argv = ["check", given("snapshot")]
    elif given("dockerfile"):
        argv = ["lint-dockerfile", given("dockerfile")]
    else:
        raise ActionInputError("give one of the inputs image, snapshot or dockerfile")
    if given("snapshot") and given("image"):
        raise ActionInputError("give image or snapshot, not both")
    argv += ["--format", "github" if given("annotations").lower() in TRUE else "text"]
    argv += ["--report-json", str(report_json)]
    for name in ("fail-on", "config", "baseline", "sarif"):
        if given(name):
            argv += [f"--{name}", given(name)]
    return argv


def outputs(report_json: Path, sarif: str, code: int) -> dict[str, str]:
    values = {"exit-code": str(code), "report-json": "", "sarif-file": ""}
    if report_json.is_file():
        findings = json.loads(report_json.read_text())["findings"]
        levels = [f["severity"] for f in findings]
        highest = next((s for s in ("error", "warning", "info") if s in levels), "none")
        values.update(
            findings=str(len(findings)),
            errors=str(levels.count("error")),
            warnings=str(levels.count("warning")),
            **{"highest-severity": highest, "report-json": str(report_json)},
        )
        values["sarif-file"] = sarif if sarif and Path(sarif).is_file() else ""
    return values


def run(environ: Mapping[str, str]) -> int:
    inputs = {
        key[len("INPUT_") :].lower().replace("_", "-"): value
        for key, value in environ.items()
        if key.startswith("INPUT_")
    }
    temp = Path(environ.get("RUNNER_TEMP") or environ.get("TMPDIR") or "/tmp")
    report_json = temp / "stackcheck-report.json"
    report_json.unlink(missing_ok=True)
    try:
        argv = command(inputs, report_json)
    except ActionInputError as exc:
        sys.stderr.write(f"stackcheck action: {exc}\n")
        code = EXIT_ERROR
    else:
        if inputs.get("summary", "true").strip().lower() not in TRUE:
            os.environ.pop("GITHUB_STEP_SUMMARY", None)
        sys.stdout.write(f"stackcheck {' '.join(argv)}\n")
        sys.stdout.flush()
        code = main(argv)
    values = outputs(report_json, inputs.get("sarif", "").strip(), code)
    target = environ.get("GITHUB_OUTPUT")
    if target:
        with Path(target).open("a", encoding="utf-8") as handle:
            handle.writelines(f"{key}={value}\n" for key, value in values.items())
    return code


if __name__ == "__main__":
    raise SystemExit(run(os.environ))
