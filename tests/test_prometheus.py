"""`--format prometheus` for check and fleet: the text exposition node_exporter's textfile
collector reads. Every output is parsed by prometheus_client's own parser, and a real
node_exporter (Debian's prometheus-node-exporter, started by scripts/services/node-exporter.sh
on loopback) serves the file over HTTP."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import urllib.request
from collections.abc import Callable, Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families
from prometheus_client.samples import Sample

from stackcheck.check.model import Finding, Severity
from stackcheck.formats.prometheus import PrometheusFormat, RunFacts
from stackcheck.snapshot import Snapshot
from tests.conftest import PROJECT, Outcome, need_service
from tests.support.fleet import probe_trees, write_fleet

Cli = Callable[..., Outcome]
SERVICE = PROJECT / "scripts" / "services" / "node-exporter.sh"


def samples(text: str, name: str) -> list[Sample]:
    """The samples of one metric family, through prometheus_client's parser."""
    found = [s for f in text_string_to_metric_families(text) if f.name == name for s in f.samples]
    assert found, f"{name} not in the output"
    return found


def one(text: str, name: str) -> float:
    (sample,) = samples(text, name)
    return float(sample.value)


def test_a_broken_tree_carries_every_finding_and_every_version(
    cli: Cli, p5: dict[str, Path]
) -> None:
    broken = str(p5["broken"])
    done = cli("check", "--root", broken, "--format", "prometheus")
    assert done.code == 1, done.err
    report = json.loads(cli("check", "--root", broken, "--format", "json").out)
    findings = samples(done.out, "stackcheck_findings")
    expected: dict[tuple[str, str, str], int] = {}
    for f in report["findings"]:
        key = (f["id"], f["family"], f["severity"])
        expected[key] = expected.get(key, 0) + 1
    got = {(s.labels["rule"], s.labels["family"], s.labels["severity"]): s.value for s in findings}
    assert got == expected
    assert ("SC101", "driver-cuda", "error") in got and (
        "SC401",
        "nccl-net-fallback",
        "error",
    ) in got
    by_severity = {
        s.labels["severity"]: s.value for s in samples(done.out, "stackcheck_findings_by_severity")
    }
    assert by_severity == {
        level: sum(1 for f in report["findings"] if f["severity"] == level)
        for level in ("error", "warning", "info")
    }
    versions = {
        (s.labels["component"], s.labels["version"], s.labels["origin"])
        for s in samples(done.out, "stackcheck_component_info")
    }
    snapshot = report["snapshot"]["components"]
    assert versions == {
        (name, i["version"], i["origin"])
        for name, component in snapshot.items()
        for i in component["installations"]
        if i.get("version")
    }
    assert ("driver", "535.161.07", "kernel") in versions
    assert ("nccl", "2.27.7", "pip") in versions
    matrix = samples(done.out, "stackcheck_matrix_info")
    assert matrix[0].labels == {"version": report["matrix_version"]}
    assert 0 < one(done.out, "stackcheck_check_duration_seconds") < 60
    now = datetime.now(timezone.utc).timestamp()
    assert abs(one(done.out, "stackcheck_check_timestamp_seconds") - now) < 60
    built = datetime.fromisoformat(report["matrix_built"]).replace(tzinfo=timezone.utc)
    assert one(done.out, "stackcheck_matrix_built_timestamp_seconds") == built.timestamp()
    assert one(done.out, "stackcheck_matrix_age_seconds") == pytest.approx(
        now - built.timestamp(), abs=60
    )


def test_a_healthy_tree_reports_zero_errors_not_nothing(cli: Cli, p5: dict[str, Path]) -> None:
    done = cli("check", "--root", str(p5["healthy"]), "--format", "prometheus")
    assert done.code == 0, done.err
    by_severity = {
        s.labels["severity"]: s.value for s in samples(done.out, "stackcheck_findings_by_severity")
    }
    assert by_severity["error"] == 0 and by_severity["warning"] == 0
    assert not any(
        s.labels["severity"] == "error" for s in samples(done.out, "stackcheck_findings")
    )


def _finding(title: str) -> Finding:
    return Finding(
        id="SC999",
        family="test",
        severity=Severity.WARNING,
        title=title,
        message="m",
        fix="f",
        docs="d",
    )


def test_label_values_are_escaped_as_the_format_requires(
    p5: dict[str, Path], matrix: object
) -> None:
    """A backslash, a double quote and a line break in a label value survive the round trip."""
    from stackcheck.check.engine import check
    from stackcheck.matrix import Matrix
    from stackcheck.probes import probe_root

    assert isinstance(matrix, Matrix)
    report = check(probe_root(str(p5["healthy"])), matrix)
    awkward = 'a "quoted" C:\\path\nand a second line'
    report.findings = [_finding(awkward)]
    text = PrometheusFormat(RunFacts(datetime(2026, 12, 3, tzinfo=timezone.utc), 0.25)).render(
        report
    )
    assert r'title="a \"quoted\" C:\\path\nand a second line"' in text
    (sample,) = samples(text, "stackcheck_findings")
    assert sample.labels["title"] == awkward
    assert one(text, "stackcheck_check_duration_seconds") == 0.25
    assert (
        one(text, "stackcheck_check_timestamp_seconds")
        == datetime(2026, 12, 3, tzinfo=timezone.utc).timestamp()
    )


NAME = re.compile(r"^stackcheck_[a-z][a-z0-9_]*$")


def test_names_help_and_types_follow_the_conventions(cli: Cli, p5: dict[str, Path]) -> None:
    text = cli("check", "--root", str(p5["broken"]), "--format", "prometheus").out
    helped = re.findall(r"^# HELP (\S+) \S", text, re.M)
    typed = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    assert helped == [name for name, _ in typed] and len(set(helped)) == len(helped)
    for name, kind in typed:
        assert NAME.match(name), name
        assert kind == "gauge" and not name.endswith("_total"), name  # a gauge is no counter
        if "time" in name or "duration" in name or "age" in name:
            assert name.endswith("_seconds"), name  # base units, named
        if name.endswith("_info"):
            assert {s.value for s in samples(text, name)} == {1.0}
    for line in text.splitlines():  # the textfile collector refuses samples with timestamps
        if not line.startswith("#"):
            assert re.fullmatch(r"\S+(\{.*\})? \S+", line), line


def test_output_is_written_atomically_and_readable_by_the_collector(
    cli: Cli, p5: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "stackcheck.prom"
    target.write_text("old\n")
    done = cli(
        "check", "--root", str(p5["healthy"]), "--format", "prometheus", "--output", str(target)
    )
    assert done.code == 0 and done.out == "", done.err
    assert "stackcheck_findings_by_severity" in target.read_text()
    assert target.stat().st_mode & 0o777 == 0o644
    assert [p.name for p in tmp_path.iterdir()] == ["stackcheck.prom"]  # no temporary left
    missing = cli(
        "check",
        "--root",
        str(p5["healthy"]),
        "--format",
        "prometheus",
        "--output",
        str(tmp_path / "no" / "such.prom"),
    )
    assert missing.code == 2
    assert (
        missing.err.startswith("stackcheck: error: cannot write") and missing.err.count("\n") == 1
    )


def test_fleet_metrics_count_nodes_per_rule_drift_and_version(
    cli: Cli, p5: dict[str, Path], tmp_path: Path
) -> None:
    stacks: dict[str, Snapshot] = probe_trees(
        {name: p5[name] for name in ("healthy", "older-nccl", "broken")}
    )
    nodes = {f"n{i}": "healthy" for i in range(1, 9)} | {"n9": "older-nccl", "n10": "broken"}
    write_fleet(tmp_path / "fleet", stacks, nodes)
    (tmp_path / "fleet" / "n11.json").write_text("not json")
    out = tmp_path / "fleet.prom"
    done = cli("fleet", str(tmp_path / "fleet"), "--format", "prometheus", "--output", str(out))
    assert done.code == 1, done.err
    text = out.read_text()
    report = json.loads(cli("fleet", str(tmp_path / "fleet"), "--format", "json").out)
    assert one(text, "stackcheck_fleet_nodes") == 11
    assert one(text, "stackcheck_fleet_answered_nodes") == 10
    assert one(text, "stackcheck_fleet_stacks") == 3
    assert {
        s.labels["reason"]: s.value for s in samples(text, "stackcheck_fleet_no_answer_nodes")
    } == {"garbage": 1}
    per_rule = {s.labels["rule"]: s.value for s in samples(text, "stackcheck_fleet_finding_nodes")}
    assert per_rule["SC101"] == 1 and per_rule["SC701"] == 1
    nccl = {
        s.labels["version"]: s.value
        for s in samples(text, "stackcheck_fleet_component_nodes")
        if s.labels["component"] == "nccl"
    }
    assert nccl == {"2.27.7": 9, "2.21.5": 1}
    drift = {s.labels["rule"]: s for s in samples(text, "stackcheck_fleet_drift_nodes")}
    assert drift["SC702"].value == 1 and drift["SC702"].labels["aspect"] == "component nccl"
    assert {r["id"] for r in report["drift"]} == set(drift)
    rows = {
        s.labels["severity"]: s.value
        for s in samples(text, "stackcheck_fleet_findings_by_severity")
    }
    assert rows["error"] == report["summary"]["errors"]


@pytest.fixture(scope="module")
def node_exporter(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    """A private node_exporter reading a textfile directory; required where CI runs the suite."""
    if shutil.which("prometheus-node-exporter") is None:
        need_service(
            "needs prometheus-node-exporter (scripts/services/node-exporter.sh install, as root)"
        )
    state = tmp_path_factory.mktemp("node-exporter")
    started = subprocess.run(
        [str(SERVICE), "start", str(state)], capture_output=True, text=True, timeout=300
    )
    assert started.returncode == 0, started.stderr
    values = dict(
        line.removeprefix("export ").split("=", 1)
        for line in started.stdout.splitlines()
        if "=" in line
    )
    try:
        yield values
    finally:
        subprocess.run([str(SERVICE), "stop", str(state)], timeout=60, check=False)


def test_a_real_node_exporter_serves_the_findings_and_versions(
    cli: Cli, p5: dict[str, Path], node_exporter: dict[str, str]
) -> None:
    target = Path(node_exporter["STACKCHECK_TEXTFILE_DIR"]) / "stackcheck.prom"
    done = cli(
        "check", "--root", str(p5["broken"]), "--format", "prometheus", "--output", str(target)
    )
    assert done.code == 1, done.err
    with urllib.request.urlopen(node_exporter["STACKCHECK_NODE_EXPORTER"], timeout=10) as reply:
        scraped = reply.read().decode()
    assert one(scraped, "node_textfile_scrape_error") == 0  # the collector took the file
    rules = {
        (s.labels["rule"], s.labels["severity"], s.labels["family"])
        for s in samples(scraped, "stackcheck_findings")
    }
    assert ("SC101", "error", "driver-cuda") in rules and (
        "SC401",
        "error",
        "nccl-net-fallback",
    ) in rules
    written = {
        (s.labels["rule"], s.labels["severity"], s.labels["family"])
        for s in samples(target.read_text(), "stackcheck_findings")
    }
    assert rules == written
    versions = {
        (s.labels["component"], s.labels["version"])
        for s in samples(scraped, "stackcheck_component_info")
    }
    assert ("driver", "535.161.07") in versions and ("torch", "2.9.0+cu130") in versions
    assert one(scraped, "stackcheck_check_duration_seconds") > 0


def test_every_metric_is_listed_in_the_operations_guide(cli: Cli, p5: dict[str, Path]) -> None:
    guide = (PROJECT / "docs" / "operations.md").read_text()
    listed = set(re.findall(r"^\| `(stackcheck_[a-z_]+)` \|", guide, re.M))
    check = cli("check", "--root", str(p5["broken"]), "--format", "prometheus").out
    written = {f.name for f in text_string_to_metric_families(check)}
    from stackcheck.formats import prometheus  # the fleet's families, as the code names them

    source = Path(prometheus.__file__).read_text()
    written |= set(re.findall(r'"(stackcheck_fleet_[a-z_]+)"', source))
    assert written <= listed, written - listed
