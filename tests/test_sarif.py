"""SARIF that Microsoft's SARIF Multitool, the reference validator, accepts without an error or a
warning, for every kind of target: a host (tree), an image, a Dockerfile and pasted text. The
Multitool is installed by scripts/prepare-artifacts.sh (npm); it checks the SARIF 2.1.0 schema and
its own rules, closer to what GitHub code scanning accepts than a JSON-schema check alone."""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import Outcome, need_service
from tests.support import scenarios
from tests.support.images import ImageBuilder, ImageSpec
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]
REPORTS = Path(__file__).parent / "data" / "reports"
MULTITOOL = Path("sarif-multitool/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool")
DOCKERFILE = """\
FROM nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04
ENV NCCL_P2P_DISABLE=1
RUN pip install torch==2.4.0 --index-url https://download.pytorch.org/whl/cu118
"""


@pytest.fixture(scope="module")
def multitool(artifacts: Path) -> Path:
    tool = artifacts / MULTITOOL
    if not os.access(tool, os.X_OK):
        # As CI runs the suite (root), prepare-artifacts.sh installs it: then it must be there.
        need_service(f"the SARIF Multitool is missing at {tool} (prepare-artifacts.sh needs npm)")
    return tool


def validate(tool: Path, logs: list[Path], out: Path) -> list[str]:
    """The Multitool's errors and warnings on LOGS, read from its own SARIF, one line each."""
    done = subprocess.run(
        [str(tool), "validate", "--output", str(out), *map(str, logs)],
        capture_output=True,
        text=True,
        timeout=300,
        # Its .NET runtime needs ICU unless told to run without it.
        env={**os.environ, "DOTNET_SYSTEM_GLOBALIZATION_INVARIANT": "1"},
        check=False,
    )
    assert out.is_file(), done.stdout + done.stderr
    results = [r for run in json.loads(out.read_text())["runs"] for r in run.get("results", [])]
    return [
        f"{r['locations'][0]['physicalLocation']['artifactLocation']['uri']}: {r['ruleId']} "
        f"{r['level']} {r['message'].get('text') or r['message']['arguments']}"
        for r in results
        if r.get("level", "warning") in ("error", "warning")
    ]


@pytest.fixture
def in_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A working directory standing for a repository's checkout, as in a CI job."""
    repo = tmp_path / "repo"
    repo.mkdir()
    monkeypatch.chdir(repo)
    yield repo


def sarif_logs(cli: Cli, root: Root, images: ImageBuilder, repo: Path) -> dict[str, Path]:
    scenarios.broken_p5(root)
    image_root = Root(repo.parent / "image", root.elves)
    scenarios.ngc_image(image_root)
    archive = images.docker_archive(
        ImageSpec([images.layer(image_root.path)], env={"NCCL_P2P_DISABLE": "1"})
    )
    (repo / "Dockerfile").write_text(DOCKERFILE)
    pasted = REPORTS / "017-docker-env-nccl-2155-vs-torch-2193.txt"
    (repo / "report.txt").write_text(pasted.read_text())
    runs = {
        "host": ["check", "--root", str(root.path)],
        "image": ["scan", str(archive), "--no-cache", "--instance", "p5.48xlarge"],
        "image-dockerfile": ["scan", str(archive), "--no-cache", "--dockerfile", "Dockerfile"],
        "dockerfile": ["lint-dockerfile", "Dockerfile"],
        "triage": ["triage", "report.txt"],
        "triage-elsewhere": ["triage", str(pasted)],
    }
    logs = {}
    for name, arguments in runs.items():
        done = cli(*arguments, "--format", "sarif", "--fail-on", "never")
        assert done.code == 0, done.err
        logs[name] = repo.parent / f"{name}.sarif"
        logs[name].write_text(done.out)
        assert json.loads(done.out)["runs"][0]["results"], f"{name}: no results to check"
    return logs


def test_the_reference_validator_accepts_every_kind_of_target(
    cli: Cli, root: Root, images: ImageBuilder, in_repo: Path, multitool: Path
) -> None:
    logs = sarif_logs(cli, root, images, in_repo)
    assert validate(multitool, list(logs.values()), in_repo.parent / "validation.sarif") == []


def located(log: Path) -> list[tuple[str, object]]:
    """Each result's location, as ("physical", (uri, base, line)) for a repository file or
    ("logical", name) for what is not in the repository."""
    run = json.loads(log.read_text())["runs"][0]
    places: list[tuple[str, object]] = []
    for result in run["results"]:
        [location] = result["locations"]
        if "logicalLocations" not in location:
            physical = location["physicalLocation"]
            artifact = physical["artifactLocation"]
            places.append(
                (
                    "physical",
                    (artifact["uri"], artifact["uriBaseId"], physical["region"]["startLine"]),
                )
            )
        else:
            places.append(("logical", location["logicalLocations"][0]["name"]))
    return places


def test_only_repository_files_are_physical_locations(
    cli: Cli, root: Root, images: ImageBuilder, in_repo: Path
) -> None:
    logs = sarif_logs(cli, root, images, in_repo)
    host = located(logs["host"])
    assert ("logical", "/proc/driver/nvidia/version") in host  # SC101: the kernel module's version
    assert {kind for kind, _ in host + located(logs["image"])} == {"logical"}
    for name in ("dockerfile", "image-dockerfile"):
        lines = [place for kind, place in located(logs[name]) if kind == "physical"]
        assert ("Dockerfile", "%SRCROOT%", 2) in lines  # SC601: ENV NCCL_P2P_DISABLE=1
    assert {kind for kind, _ in located(logs["dockerfile"])} == {"physical"}
    pasted = [place for kind, place in located(logs["triage"]) if kind == "physical"]
    assert pasted and all(uri == "report.txt" for uri, _, _ in pasted)  # type: ignore[misc]
    assert {kind for kind, _ in located(logs["triage-elsewhere"])} == {"logical"}
    base = json.loads(logs["host"].read_text())["runs"][0]["originalUriBaseIds"]["%SRCROOT%"]
    assert base["uri"] == in_repo.resolve().as_uri() + "/"


def test_every_result_has_the_physical_location_github_requires(
    cli: Cli, root: Root, images: ImageBuilder, in_repo: Path
) -> None:
    """GitHub code scanning rejects a whole upload whose result has only a logical location
    ("expected a physical location"); a host path gets a relative name of its own (the source
    kind, then the path)."""
    logs = sarif_logs(cli, root, images, in_repo)
    for name, log in logs.items():
        for result in json.loads(log.read_text())["runs"][0]["results"]:
            [location] = result["locations"]
            artifact = location["physicalLocation"]["artifactLocation"]
            assert artifact["uri"] and not artifact["uri"].startswith("/"), name
            assert ":" not in artifact["uri"], name  # never read as a URI scheme
    host = json.loads(logs["host"].read_text())["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in host}
    assert "root/proc/driver/nvidia/version" in uris  # a --root tree: its kind, then the path
