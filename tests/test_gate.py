"""The CI gate's parts: SARIF, GitHub annotations, the Markdown summary, config and baselines."""

from __future__ import annotations

import json
import os
import stat
import threading
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.check.model import Finding, Report, Severity
from stackcheck.formats import get_format
from stackcheck.formats.github import PER_LEVEL, annotation
from stackcheck.formats.markdown import SUMMARY_LIMIT
from stackcheck.snapshot import Evidence, Snapshot, SnapshotSource
from tests.conftest import Outcome
from tests.support import scenarios
from tests.support.rootfs import Root

Cli = Callable[..., Outcome]


@pytest.fixture
def broken(root: Root) -> str:
    scenarios.broken_p5(root)
    return str(root.path)


def test_sarif_rules_and_fingerprints_are_stable(cli: Cli, broken: str) -> None:
    # The reference validator's verdict on this output: tests/test_sarif.py.
    first = json.loads(cli("check", "--root", broken, "--format", "sarif").out)
    run = first["runs"][0]
    rules = {r["id"]: r for r in run["tool"]["driver"]["rules"]}
    assert "## Why is this bad?" in rules["SC101"]["help"]["markdown"]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels["SC101"] == "error"
    for result in run["results"]:
        assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"].startswith(
            f"root {broken}"
        )
    second = json.loads(cli("check", "--root", broken, "--format", "sarif").out)
    prints = [r["partialFingerprints"] for r in run["results"]]
    assert prints == [r["partialFingerprints"] for r in second["runs"][0]["results"]]
    assert len({p["stackcheck/v1"] for p in prints}) == len(prints)


def finding(index: int, severity: Severity, line: int | None = None) -> Finding:
    evidence = (
        [Evidence(kind="text", source="Dockerfile", detail="ENV X=1", line=line)] if line else []
    )
    return Finding(
        id="SC101",
        family="driver-cuda",
        severity=severity,
        title="Driver too old",
        message=f"finding {index}: a, b: 100% done\nsecond line",
        evidence=evidence,
        fix="upgrade",
        docs="stackcheck explain SC101",
    )


def report_of(findings: list[Finding]) -> Report:
    return Report(
        matrix_version="test",
        snapshot=Snapshot(source=SnapshotSource(kind="image", target="registry/image:tag")),
        findings=findings,
    )


def test_annotations_stay_within_githubs_limits() -> None:
    findings = [finding(i, Severity.ERROR) for i in range(25)] + [finding(99, Severity.INFO)]
    lines = get_format("github").render(report_of(findings)).splitlines()
    assert sum(line.startswith("::error ") for line in lines) == PER_LEVEL
    assert sum(line.startswith("::notice ") for line in lines) == 1
    assert lines[-1].startswith("stackcheck: 15 more finding(s) not annotated")


def test_annotation_escaping_and_file_line() -> None:
    text = annotation(finding(1, Severity.WARNING, line=12), "img")
    assert text.startswith("::warning file=Dockerfile,line=12,title=SC101 Driver too old::")
    assert "%0Asecond line" in text and "100%25 done" in text and "\n" not in text


def test_markdown_summary_tables_and_limit() -> None:
    summary = get_format("markdown").render(report_of([finding(1, Severity.ERROR)]))
    assert "| severity | rule | finding | fix |" in summary
    assert "\\|" not in summary.split("### Findings")[0]
    big = get_format("markdown").render(
        report_of([finding(i, Severity.ERROR) for i in range(20000)])
    )
    assert len(big.encode()) <= SUMMARY_LIMIT
    assert "cut to fit GitHub's 1 MiB limit" in big


def test_config_ignores_and_overrides(
    cli: Cli, broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / ".stackcheck.toml").write_text(
        'ignore = ["SC103"]\nfail-on = "never"\n[severity]\nSC401 = "warning"\n'
    )
    done = cli("check", "--root", broken, "--format", "json")
    report = json.loads(done.out)
    assert done.code == 0  # fail-on from the config
    assert "SC103" not in {f["id"] for f in report["findings"]}
    assert [s["finding"]["id"] for s in report["suppressed"]] == ["SC103"]
    assert ".stackcheck.toml" in report["suppressed"][0]["reason"]
    assert {f["id"]: f["severity"] for f in report["findings"]}["SC401"] == "warning"
    text = cli("check", "--root", broken, "--show-suppressed").out
    assert "Suppressed: 1" in text and "SC103" in text.split("Suppressed: 1")[1]


def test_pyproject_tool_table(
    cli: Cli, broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "pyproject.toml").write_text(
        '[project]\nname = "x"\n[tool.stackcheck]\nignore = ["sc101", "SC103", "SC401", "SC521"]\n'
    )
    assert cli("check", "--root", broken).code == 0


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("ignore = [\n", "malformed TOML"),
        ('ignore = ["SC999"]\n', "unknown rule ID 'SC999'"),
        ('ignores = ["SC101"]\n', "unknown key 'ignores'"),
        ('[severity]\nSC101 = "fatal"\n', "severity.SC101: must be one of error, warning or info"),
        ('fail-on = "sometimes"\n', "fail-on: must be one of"),
        ('ignore = "SC101"\nfail-on = 1\n', "ignore: must be a list; fail-on: must be one of"),
        ("[tool]\n", "unknown key 'tool'"),
    ],
)
def test_bad_config_is_one_line_exit_2(
    cli: Cli, broken: str, tmp_path: Path, content: str, message: str
) -> None:
    config = tmp_path / "bad.toml"
    config.write_text(content)
    done = cli("check", "--root", broken, "--config", str(config))
    assert done.code == 2
    assert message in done.err and done.err.count("\n") == 1


def test_baseline_lets_known_findings_pass_and_new_ones_fail(
    cli: Cli, root: Root, tmp_path: Path
) -> None:
    scenarios.broken_p5(root)
    baseline = tmp_path / "baseline.json"
    written = cli("check", "--root", str(root.path), "--write-baseline", str(baseline))
    recorded = len(json.loads(baseline.read_text())["findings"])
    assert written.code == 0 and f"wrote {recorded} finding(s)" in written.err  # a success
    assert recorded >= 3
    assert cli("check", "--root", str(root.path), "--baseline", str(baseline)).code == 0
    # A new problem: the net plugin's dependency disappears.
    root.path.joinpath("opt/amazon/efa/lib/libfabric.so.1").unlink()
    root.ld_conf("100_ofinccl.conf", "/opt/amazon/ofi-nccl/lib")
    again = cli("check", "--root", str(root.path), "--baseline", str(baseline), "--format", "json")
    assert again.code == 1
    assert [f["id"] for f in json.loads(again.out)["findings"]] == ["SC402"]


def test_baseline_of_another_schema_is_refused(cli: Cli, broken: str, tmp_path: Path) -> None:
    baseline = tmp_path / "old.json"
    baseline.write_text(json.dumps({"schema_version": 0, "findings": []}))
    done = cli("check", "--root", broken, "--baseline", str(baseline))
    assert done.code == 2 and "schema_version 0 is not 1" in done.err


def test_side_files_write_through_links_and_into_pipes(
    cli: Cli, broken: str, tmp_path: Path
) -> None:
    """A report named through a symbolic link replaces the file it names and keeps the link; a
    pipe (`--report-json >(jq .)`, /dev/stdout) is written into, never renamed over."""
    target, link, pipe = tmp_path / "sarif.json", tmp_path / "latest.sarif", tmp_path / "pipe"
    target.write_text("last run\n")
    link.symlink_to(target)
    os.mkfifo(pipe)
    received: list[str] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_text()))
    reader.start()
    done = cli("check", "--root", broken, "--sarif", str(link), "--report-json", str(pipe))
    reader.join(timeout=30)
    assert done.code == 1, done.err
    assert link.is_symlink() and json.loads(target.read_text())["version"] == "2.1.0"
    assert stat.S_ISFIFO(pipe.stat().st_mode)
    assert json.loads(received[0])["findings"]


def test_side_files_and_step_summary(
    cli: Cli, broken: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    sarif, report = tmp_path / "out.sarif", tmp_path / "report.json"
    report.write_text("last run\n")
    (tmp_path / "reader.json").hardlink_to(report)  # the old report, as a reader holds it
    done = cli(
        "check",
        "--root",
        broken,
        "--format",
        "github",
        "--sarif",
        str(sarif),
        "--report-json",
        str(report),
    )
    assert done.code == 1
    assert done.out.startswith("::error ")
    assert json.loads(sarif.read_text())["version"] == "2.1.0"
    levels = [f["severity"] for f in json.loads(report.read_text())["findings"]]
    assert levels.count("error") == 4  # SC101, SC103, SC401, SC521
    assert (tmp_path / "reader.json").read_text() == "last run\n"  # replaced whole, not rewritten
    text = summary.read_text()
    assert text.startswith("earlier step\n## stackcheck: root")
