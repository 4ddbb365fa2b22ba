"""The composite action, run as GitHub's runner would run it: action.yml's steps under bash -e,
the project installed from the action's checkout into a fresh virtualenv."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from stackcheck.probes import probe_root
from stackcheck.snapshot import dump_snapshot
from tests.support import scenarios
from tests.support.actions import ActionRun, run_action
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

PROJECT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def runner_bin(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A fresh virtualenv standing in for the runner's python3 (the action installs into it)."""
    venv = tmp_path_factory.mktemp("runner") / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    return str(venv / "bin")


def action(runner_bin: str, tmp_path: Path, **inputs: str) -> ActionRun:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    temp = tmp_path / "runner-temp"
    temp.mkdir(exist_ok=True)
    return run_action(PROJECT, inputs, workspace, temp, runner_bin)


def snapshot_file(root: Root, tmp_path: Path) -> str:
    path = tmp_path / "snapshot.json"
    path.write_text(dump_snapshot(probe_root(str(root.path))))
    return str(path)


def test_broken_snapshot_fails_the_step_with_outputs(
    runner_bin: str, root: Root, tmp_path: Path
) -> None:
    scenarios.broken_p5(root)
    sarif = tmp_path / "stackcheck.sarif"
    run = action(runner_bin, tmp_path, snapshot=snapshot_file(root, tmp_path), sarif=str(sarif))
    assert run.failed_step == "Run stackcheck", run.log
    assert run.exit_codes == [0, 1]
    assert run.outputs["exit-code"] == "1"
    assert run.outputs["sarif-file"] == str(sarif)
    assert json.loads(sarif.read_text())["runs"][0]["results"]
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    levels = [f["severity"] for f in report["findings"]]
    assert run.outputs["findings"] == str(len(levels))
    assert run.outputs["errors"] == str(levels.count("error"))
    assert run.outputs["warnings"] == str(levels.count("warning"))
    assert run.outputs["highest-severity"] == "error"
    errors = {f["id"] for f in report["findings"] if f["severity"] == "error"}
    assert errors == {"SC101", "SC103", "SC401", "SC521"}
    assert run.log.count("::error ") == len(errors)
    assert run.summary.startswith("## stackcheck: root")


def test_healthy_snapshot_passes_and_switches_are_honoured(
    runner_bin: str, root: Root, tmp_path: Path
) -> None:
    scenarios.dlami_p5(root)
    run = action(
        runner_bin,
        tmp_path,
        snapshot=snapshot_file(root, tmp_path),
        annotations="false",
        summary="false",
    )
    assert run.failed_step is None, run.log
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert run.outputs["exit-code"] == "0"
    assert run.outputs["errors"] == run.outputs["warnings"] == "0"
    assert run.outputs["findings"] == str(len(report["findings"]))
    assert "::" not in run.log
    assert run.summary == ""


def test_missing_inputs_exit_2(runner_bin: str, tmp_path: Path) -> None:
    run = action(runner_bin, tmp_path)
    assert run.outputs["exit-code"] == "2"
    assert "give one of the inputs image, snapshot or dockerfile" in run.log


def test_image_with_its_dockerfile(
    runner_bin: str, root: Root, images: ImageBuilder, tmp_path: Path
) -> None:
    """A real docker-archive (tar layers written by the test) and the Dockerfile it came from."""
    scenarios.dlami_p5(root)  # a whole stack in one layer
    archive = images.docker_archive(
        ImageSpec(
            [images.layer(root.path)],
            env={"NCCL_P2P_DISABLE": "1", "CUDA_LAUNCH_BLOCKING": "1"},
            history=["COPY stack / # buildkit"],
        )
    )
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    (workspace / "Dockerfile").write_text(
        "FROM ubuntu:22.04\n"
        "COPY stack /\n"
        "ENV NCCL_P2P_DISABLE=1\n"
        "# stackcheck: ignore[SC604]\n"
        "ENV CUDA_LAUNCH_BLOCKING=1\n"
    )
    sarif = tmp_path / "image.sarif"
    run = action(
        runner_bin,
        tmp_path,
        image=f"docker-archive:{archive}",
        dockerfile="Dockerfile",
        instance="p5.48xlarge",
        sarif=str(sarif),
        **{"fail-on": "warning"},
    )
    assert run.outputs["exit-code"] == "1", run.log
    assert run.failed_step == "Run stackcheck"
    assert "::warning file=Dockerfile,line=3,title=SC601 " in run.log
    assert "title=SC604 " not in run.log  # ignored inline, so not annotated
    results = json.loads(sarif.read_text())["runs"][0]["results"]
    sc601 = next(r for r in results if r["ruleId"] == "SC601")
    assert sc601["locations"][0]["physicalLocation"] == {
        "artifactLocation": {"uri": "Dockerfile", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 3},
    }
    report = json.loads(Path(run.outputs["report-json"]).read_text())
    assert [s["finding"]["id"] for s in report["suppressed"]] == ["SC604"]
    assert "| 🟠 warning | `SC601`" in run.summary
