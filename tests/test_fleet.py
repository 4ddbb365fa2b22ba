"""`stackcheck fleet` over snapshot files: grouping, drift, nodes that gave nothing, formats and
exit codes. Every snapshot is a real probe of a tree built like a DLAMI p5 host."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import jsonschema
import pytest

from stackcheck.fleet import stacks as stacks_module
from stackcheck.fleet.engine import check_fleet
from stackcheck.fleet.model import FleetReport
from stackcheck.fleet.sources.files import SnapshotFiles
from stackcheck.matrix import Matrix
from stackcheck.snapshot import Snapshot, dump_snapshot
from tests.conftest import PROJECT, Outcome
from tests.support.elfbuild import ElfFactory
from tests.support.fleet import p5_trees, probe_trees, write_fleet

Cli = Callable[..., Outcome]
SCHEMA = PROJECT / "docs" / "fleet-report.schema.json"


@pytest.fixture(scope="module")
def stacks(tmp_path_factory: pytest.TempPathFactory, elves: ElfFactory) -> dict[str, Snapshot]:
    return probe_trees(p5_trees(tmp_path_factory.mktemp("trees"), elves))


def fleet_of(count: int, odd: dict[int, str] | None = None) -> dict[str, str]:
    """p5-001 .. p5-COUNT on the healthy stack, except the numbered ones."""
    odd = odd or {}
    return {f"p5-{i:03d}": odd.get(i, "healthy") for i in range(1, count + 1)}


MIXED = {
    17: "older-nccl",
    42: "older-nccl",
    33: "broken",
    50: "stray-nccl-conf",
    51: "lost-efa-device",
}


def test_a_64_node_fleet_groups_findings_and_names_the_drift(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    write_fleet(tmp_path, stacks, fleet_of(64, MIXED))
    done = cli("fleet", str(tmp_path))
    assert done.code == 1, done.err
    out = " ".join(done.out.split())  # undo the wrapping
    assert "Fleet of 64 nodes: 64 answered with 5 distinct stacks, 0 gave no snapshot" in out
    assert "59 nodes: p5-[001-016,018-032,034-041,043-049,052-064]" in out
    assert (
        "error SC702 NCCL differs between nodes NCCL differs between nodes: 2.27.7 on 62 of 64 "
        "nodes; 2.21.5 on 2: p5-[017,042]." in out
    )
    assert "NVIDIA driver differs between nodes: 580.95.05 on 63 of 64 nodes; 535.161.07" in out
    assert "NCCL_P2P_DISABLE differs between nodes: unset on 63 of 64 nodes; 1 on 1: p5-050." in out
    assert "evidence: file /etc/nccl.conf: NCCL_P2P_DISABLE=1" in out
    assert "4 EFA devices on 63 of 64 nodes; 3 EFA devices on 1: p5-051." in out
    # the broken node's findings: one row each, with the node named
    assert out.count("SC101 Driver too old") == 1
    assert "SC101 Driver too old for the CUDA in use on 1 of 64 nodes: p5-033" in out
    assert done.out.index("Drift:") < done.out.index("Findings on nodes:")


def test_a_finding_on_63_of_64_nodes_is_one_row(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    nodes = dict.fromkeys(fleet_of(64), "broken")
    nodes["p5-064"] = "healthy"
    write_fleet(tmp_path, stacks, nodes)
    done = cli("fleet", str(tmp_path), "--format", "json")
    report = json.loads(done.out)
    sc101 = [f for f in report["findings"] if f["id"] == "SC101"]
    assert len(sc101) == 1
    assert (sc101[0]["count"], sc101[0]["out_of"], sc101[0]["nodes"]) == (63, 64, "p5-[001-063]")
    text = cli("fleet", str(tmp_path)).out
    assert text.count("SC101 Driver too old") == 1 and "on 63 of 64 nodes: p5-[001-063]" in text


def test_a_healthy_fleet_is_clean(cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path) -> None:
    write_fleet(tmp_path, stacks, fleet_of(16))
    done = cli("fleet", str(tmp_path))
    assert done.code == 0, done.out
    assert "16 answered with 1 distinct stack, 0 gave no snapshot" in done.out
    assert "Drift: none" in done.out
    assert "p5-[001-016]" in done.out


def test_the_report_json_replaces_the_old_file_whole(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    """A reader that opened the last report keeps reading it whole: the new one is renamed
    over it, never written into it."""
    write_fleet(tmp_path / "nodes", stacks, fleet_of(4))
    report, reader = tmp_path / "fleet.json", tmp_path / "reader.json"
    report.write_text("last run\n")
    reader.hardlink_to(report)  # the old file, as a reader holds it
    done = cli("fleet", str(tmp_path / "nodes"), "--report-json", str(report))
    assert done.code == 0, done.err
    assert json.loads(report.read_text())["summary"]["answered"] == 4
    assert reader.read_text() == "last run\n"


def test_fleet_rules_say_nothing_about_one_snapshot(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    (tmp_path / "one.json").write_text(dump_snapshot(stacks["broken"]))
    done = cli("check", str(tmp_path / "one.json"), "--format", "json")
    found = {f["id"] for f in json.loads(done.out)["findings"]}
    assert "SC101" in found and not {f for f in found if f.startswith("SC7")}


def test_nodes_that_gave_nothing_are_listed_and_fail_the_fleet(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    write_fleet(tmp_path, stacks, fleet_of(6))
    (tmp_path / "p5-004.json").write_text("Traceback (most recent call last):\n  boom\n")
    (tmp_path / "p5-005.json").write_text("")
    future = json.loads((tmp_path / "p5-006.json").read_text())
    future["schema_version"] = 99
    (tmp_path / "p5-006.json").write_text(json.dumps(future))
    done = cli("fleet", str(tmp_path), "--nodelist", "p5-[001-007]", "--format", "json")
    assert done.code == 1
    report = json.loads(done.out)
    infos = sum(1 for f in report["findings"] if f["severity"] == "info")
    assert report["summary"] | {"stacks": 1} == {
        "nodes": 7,
        "answered": 3,
        "no_answer": 4,
        "stacks": 1,
        "errors": 1,
        "warnings": 0,
        "infos": infos,  # matrix advice on the healthy stack, e.g. known issues fixed later
    }
    silent = {item["nodes"]: (item["reason"], item["detail"]) for item in report["no_answer"]}
    assert silent["p5-004"][0] == "garbage" and "'Traceback" in silent["p5-004"][1]
    assert silent["p5-005"] == ("garbage", "empty output")
    assert silent["p5-006"][0] == "garbage" and "schema_version 99" in silent["p5-006"][1]
    assert silent["p5-007"] == ("missing", "no snapshot file for this node")
    assert report["nodes"]["p5-007"] == "no-answer"
    sc701 = next(f for f in report["findings"] if f["id"] == "SC701")
    assert (sc701["count"], sc701["nodes"]) == (4, "p5-[004-007]")
    text = cli("fleet", str(tmp_path), "--nodelist", "p5-[001-007]").out
    assert "No snapshot from 4 nodes" in text and "missing      p5-007" in text
    never = cli("fleet", str(tmp_path), "--nodelist", "p5-[001-007]", "--fail-on", "never")
    assert never.code == 0


def test_no_node_answering_is_an_error_exit_2_with_the_report(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "a.json").write_text("{}")
    (tmp_path / "b.json").write_text("not json")
    done = cli("fleet", str(tmp_path))
    assert done.code == 2
    assert done.err.strip() == "stackcheck: error: no node gave a snapshot (see the report)"
    assert "No snapshot from 2 nodes" in done.out


def test_json_fleet_report_follows_its_published_schema(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    write_fleet(tmp_path, stacks, fleet_of(64, MIXED))
    (tmp_path / "p5-065.json").write_text("garbage")
    report = json.loads(cli("fleet", str(tmp_path), "--format", "json").out)
    jsonschema.validate(report, json.loads(SCHEMA.read_text()))
    assert (report["kind"], report["schema_version"]) == ("stackcheck-fleet-report", 1)
    assert len(report["nodes"]) == 65
    assert sum(stack["count"] for stack in report["stacks"]) == 64
    majority = report["stacks"][0]
    assert (
        majority["count"] == 59
        and majority["report"]["snapshot"]["source"]["target"] == "ip-10-0-0-0"
    )
    nccl = next(d for d in report["drift"] if d["id"] == "SC702")
    assert nccl["aspect"] == "component nccl"
    assert [(v["value"], v["count"], v["nodes"]) for v in nccl["values"]] == [
        ("2.27.7", 62, "p5-[001-016,018-041,043-064]"),
        ("2.21.5", 2, "p5-[017,042]"),
    ]


def test_published_schema_is_current() -> None:
    expected = json.dumps(FleetReport.model_json_schema(), indent=2) + "\n"
    assert SCHEMA.read_text() == expected, (
        'docs/fleet-report.schema.json is stale: regenerate it with python -c "import json; '
        "from stackcheck.fleet.model import FleetReport; "
        'print(json.dumps(FleetReport.model_json_schema(), indent=2))" > '
        "docs/fleet-report.schema.json"
    )


def test_identical_stacks_are_read_once_whatever_their_layout(
    stacks: dict[str, Snapshot],
    matrix: Matrix,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_fleet(tmp_path, stacks, fleet_of(300, {300: "older-nccl"}))
    compact = json.loads((tmp_path / "p5-001.json").read_text())
    compact["source"]["target"] = "elsewhere"
    (tmp_path / "compact.json").write_text(json.dumps(compact, separators=(",", ":")))
    reordered = {key: compact[key] for key in reversed(list(compact))}
    (tmp_path / "reordered.json").write_text(json.dumps(reordered))
    parsed: list[str] = []
    real_load = stacks_module.load_snapshot

    def counting_load(text: str, origin: str) -> Snapshot:
        parsed.append(origin)
        return real_load(text, origin)

    monkeypatch.setattr(stacks_module, "load_snapshot", counting_load)
    report = check_fleet(SnapshotFiles([str(tmp_path)]), matrix)
    assert [(s.count, s.nodes) for s in report.stacks] == [
        (301, "compact,p5-[001-299],reordered"),
        (1, "p5-300"),
    ]
    # the same text is parsed once; the compact and reordered copies once each, then merged
    assert len(parsed) == 4


def test_two_files_for_one_node_name_keep_their_paths(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    write_fleet(tmp_path / "monday", stacks, fleet_of(2))
    write_fleet(tmp_path / "tuesday", stacks, fleet_of(2, {2: "older-nccl"}))
    done = cli("fleet", str(tmp_path / "monday"), str(tmp_path / "tuesday"), "--format", "json")
    nodes = json.loads(done.out)["nodes"]
    assert str(tmp_path / "tuesday" / "p5-002.json") in nodes
    assert len(nodes) == 4


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((), "give snapshot files or directories, or --slurm"),
        (("--nodes", "3", "x"), "--nodes and --partition need --slurm"),
        (("does-not-exist",), "does-not-exist: no such file or directory"),
        (("--slurm", "--timeout", "0"), "0 is not more than 0"),
        (("--nodelist", "n[1-", "x"), "unbalanced"),
    ],
)
def test_fleet_usage_errors_are_one_line_exit_2(
    cli: Cli, arguments: tuple[str, ...], message: str
) -> None:
    done = cli("fleet", *arguments)
    assert done.code == 2
    assert message in done.err and len(done.err.strip().splitlines()) == 1


def test_a_directory_without_snapshots_is_an_error(cli: Cli, tmp_path: Path) -> None:
    done = cli("fleet", str(tmp_path))
    assert done.code == 2 and "no snapshot files (*.json)" in done.err


def test_snapshot_files_round_trip_what_probe_writes(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    (tmp_path / "node1.json").write_text(dump_snapshot(stacks["healthy"]) + "\n")
    done = cli("fleet", str(tmp_path / "node1.json"), "--format", "json")
    report = json.loads(done.out)
    assert report["stacks"][0]["report"]["snapshot"] == json.loads(dump_snapshot(stacks["healthy"]))


def test_one_row_per_finding_that_reads_the_same_and_stacks_that_differ_say_how(
    cli: Cli, stacks: dict[str, Snapshot], tmp_path: Path
) -> None:
    # The broken stack's aws-ofi-nccl findings read as the healthy stack's, on other evidence
    # (its plugin is off the loader path): one row for all 7 nodes, not 6 of 7 and 1 of 7.
    odd = {2: "older-nccl", 3: "broken", 4: "stray-nccl-conf", 5: "lost-efa-device"}
    write_fleet(tmp_path, stacks, fleet_of(7, odd))
    report = json.loads(cli("fleet", str(tmp_path), "--format", "json").out)
    seen = [(f["id"], f["message"]) for f in report["findings"]]
    assert len(seen) == len(set(seen))
    sc452 = [f for f in report["findings"] if f["id"] == "SC452"]
    assert sc452 and all(f["count"] == 7 and f["nodes"] == "p5-[001-007]" for f in sc452)
    text = cli("fleet", str(tmp_path)).out
    lines = text.split("Stacks\n")[1].split("\n\n")[0]
    headlines = [" ".join(h.split()) for h in re.split(r"\n  \S+  \d+ nodes?: \S+\n", "\n" + lines)]
    headlines = [h for h in headlines if h]
    assert len(headlines) == 5 and len(set(headlines)) == 5
    assert any(h.endswith("differs: NCCL_P2P_DISABLE 1") for h in headlines)  # stray nccl.conf
    assert any(h.endswith("differs: NCCL_P2P_DISABLE unset") for h in headlines)
