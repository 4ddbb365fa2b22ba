"""`stackcheck node-check`: the check, the expected stack, the NPD line and the drain reason,
without Slurm. (Draining on a real Slurm cluster: tests/test_node_check_slurm.py.)"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.check.model import Finding, Severity
from stackcheck.health.slurm import MARKER, MAX_REASON, NodeState, decide, drain_reason
from tests.conftest import Outcome

Cli = Callable[..., Outcome]


@pytest.fixture(scope="module")
def expected(p5: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The cluster's intended stack: the healthy tree's snapshot, as a reference node writes it."""
    from stackcheck.probes import probe_root
    from stackcheck.snapshot import dump_snapshot

    path = tmp_path_factory.mktemp("expected") / "expected.json"
    path.write_text(dump_snapshot(probe_root(str(p5["healthy"]))))
    return path


def test_a_healthy_tree_passes_and_a_broken_one_fails(cli: Cli, p5: dict[str, Path]) -> None:
    healthy = cli("node-check", "--root", str(p5["healthy"]), "--format", "json")
    assert healthy.code == 0, healthy.err
    assert not [f for f in json.loads(healthy.out)["findings"] if f["severity"] == "error"]
    broken = cli("node-check", "--root", str(p5["broken"]))
    assert broken.code == 1
    assert "SC101" in broken.out and "SC401" in broken.out


def test_drift_from_the_expected_stack_is_a_finding(
    cli: Cli, p5: dict[str, Path], expected: Path
) -> None:
    same = cli("node-check", "--root", str(p5["healthy"]), "--expected", str(expected),
               "--format", "json", "--node", "p5-001")  # fmt: skip
    assert same.code == 0, same.err
    assert not [f for f in json.loads(same.out)["findings"] if f["id"].startswith("SC70")]
    older = cli("node-check", "--root", str(p5["older-nccl"]), "--expected", str(expected),
                "--format", "json", "--node", "p5-017")  # fmt: skip
    assert older.code == 1, older.err
    (nccl,) = [f for f in json.loads(older.out)["findings"] if f["id"] == "SC702"]
    assert nccl["severity"] == "error"
    assert "2.21.5 on 1: p5-017" in nccl["message"] and "2.27.7 on 1: expected" in nccl["message"]
    stray = cli("node-check", "--root", str(p5["stray-nccl-conf"]), "--expected",
                str(expected), "--fail-on", "warning", "--format", "npd")  # fmt: skip
    assert stray.code == 1
    # SC601 sees the variable itself; SC704 that only this node sets it (env drift)
    assert stray.out.startswith("SC601,SC704: ")


def test_a_bad_expected_file_is_exit_2_in_one_line(
    cli: Cli, p5: dict[str, Path], tmp_path: Path
) -> None:
    bad = tmp_path / "expected.json"
    bad.write_text('{"schema_version": 99}')
    done = cli("node-check", "--root", str(p5["healthy"]), "--expected", str(bad))
    assert done.code == 2
    assert done.err.startswith("stackcheck: error: ") and done.err.count("\n") == 1
    assert "schema_version 99" in done.err
    npd = cli("node-check", "--root", str(p5["healthy"]), "--expected", str(bad),
              "--format", "npd")  # fmt: skip
    assert npd.code == 2 and npd.out.startswith("stackcheck could not check: ")
    assert npd.out.count("\n") == 1 and len(npd.out) <= 81


def test_an_expected_fifo_is_refused_not_waited_on(
    cli: Cli, p5: dict[str, Path], tmp_path: Path
) -> None:
    """A health check must never hang: a FIFO given as --expected is one line, exit 2."""
    fifo = tmp_path / "expected.json"
    os.mkfifo(fifo)
    done = cli("node-check", "--root", str(p5["healthy"]), "--expected", str(fifo))
    assert done.code == 2 and "FIFO" in done.err and done.err.count("\n") == 1


def test_a_crash_reads_as_unknown_not_as_unhealthy(
    cli: Cli, p5: dict[str, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 1 would set the NPD condition (or drain the node) for a bug of stackcheck's own."""
    import stackcheck.check.engine

    def explode(*_: object, **__: object) -> None:
        raise RuntimeError("a bug")

    monkeypatch.setattr(stackcheck.check.engine, "check", explode)
    done = cli("node-check", "--root", str(p5["healthy"]), "--format", "npd")
    assert done.code == 2
    assert done.out == "stackcheck could not check: node-check failed: RuntimeError('a bug')\n"


def _finding(rule: str, title: str) -> Finding:
    return Finding(
        id=rule, family="f", severity=Severity.ERROR, title=title, message="", fix="", docs=""
    )


def test_the_drain_reason_names_the_rules_first_and_stays_short() -> None:
    reason = drain_reason([_finding("SC101", "Driver too old"), _finding("SC401", "No plugin")])
    assert reason == "stackcheck: SC101,SC401 Driver too old"
    many = [_finding(f"SC{n}", 'a "quoted"\ntitle ' * 20) for n in range(100, 140)]
    long = drain_reason(many)
    assert len(long) <= MAX_REASON and long.startswith(f"{MARKER} SC100,SC101,")
    assert long.endswith("...") and not any(c in long for c in "\"'\n")
    assert drain_reason([_finding("SC101", "x")] * 3) == "stackcheck: SC101 x"


def node(state: str, reason: str = "") -> NodeState:
    return NodeState("n1", state, reason)


@pytest.mark.parametrize(
    ("state", "failing", "action"),
    [
        (node("IDLE"), True, "drained"),
        (node("MIXED"), True, "drained"),
        (node("IDLE"), False, "none"),
        (node("IDLE+DRAIN", "stackcheck: SC101 x"), False, "resumed"),
        (node("MIXED+DRAIN", "stackcheck: SC101 x"), False, "resumed"),  # draining
        (node("IDLE+DRAIN", "stackcheck: SC101 x"), True, "none"),  # same reason: nothing
        (node("IDLE+DRAIN", "stackcheck: SC401 y"), True, "redrained"),  # new reason
        (node("IDLE+DRAIN", "bad DIMM"), False, "none"),  # an admin's drain stays
        (node("IDLE+DRAIN", "bad DIMM"), True, "none"),  # and keeps the admin's reason
        (node("DOWN+DRAIN", "Not responding"), False, "none"),
        (node("DOWN", "Not responding"), True, "drained"),
    ],
)
def test_only_a_node_stackcheck_drained_is_resumed(
    state: NodeState, failing: bool, action: str
) -> None:
    assert decide(state, failing, "stackcheck: SC101 x") == action
