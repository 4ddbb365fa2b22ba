"""`stackcheck node-check --drain` on a real Slurm cluster (Debian's slurmctld and three slurmd
instances on this machine, tests/support/slurm.py): a node whose stack is broken is drained with
a `stackcheck:` reason, a healthy node stays idle, a node stackcheck drained is resumed once it
passes, and a node an administrator drained stays drained whatever stackcheck finds. The nodes
share this machine, so each node's stack is a test tree given with --root."""

from __future__ import annotations

import shlex
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from stackcheck.health.slurm import parse_node
from tests.conftest import PROJECT, Outcome, run_stackcheck
from tests.support.slurm import Cluster, slurm_cluster

NODES = 3
BROKEN_REASON = "stackcheck: SC101,SC103,SC401,SC521 Driver too old for the CUDA in use"


@pytest.fixture(scope="module")
def slurm() -> Iterator[Cluster]:
    yield from slurm_cluster(NODES)


def node_check(slurm: Cluster, node: str, tree: Path, *extra: str) -> Outcome:
    return run_stackcheck(
        "node-check", "--drain", "--node", node, "--root", str(tree), *extra, env=slurm.env
    )


def state(slurm: Cluster, node: str) -> tuple[str, str]:
    """sinfo's long state and reason of one node (read independently of stackcheck's parser).
    Right after a resume Slurm shows the node as not responding (`idle*`) until its next ping
    answers, about a second: wait that out."""
    deadline = time.monotonic() + 15
    while True:
        line = slurm.slurm("sinfo", "--noheader", "--Node", f"--nodes={node}", "--format=%T|%200E")
        long_state, _, reason = line.strip().partition("|")
        if not long_state.endswith("*") or time.monotonic() > deadline:
            return long_state, reason.strip()
        time.sleep(0.2)


def test_a_broken_node_is_drained_a_healthy_one_is_not_and_a_fixed_one_resumes(
    slurm: Cluster, p5: dict[str, Path]
) -> None:
    broken = node_check(slurm, "node1", p5["broken"])
    assert broken.code == 1, broken.err
    assert f"Slurm node node1 drained: {BROKEN_REASON}" in broken.err
    assert state(slurm, "node1") == ("drained", BROKEN_REASON)
    healthy = node_check(slurm, "node2", p5["healthy"])
    assert healthy.code == 0, healthy.err
    assert healthy.err == ""
    assert state(slurm, "node2") == ("idle", "none")
    again = node_check(slurm, "node1", p5["broken"])  # same findings: left as it is
    assert again.code == 1 and "Slurm node" not in again.err
    fixed = node_check(slurm, "node1", p5["healthy"])
    assert fixed.code == 0, fixed.err
    assert "Slurm node node1 resumed" in fixed.err
    assert state(slurm, "node1") == ("idle", "none")


def test_an_admins_drain_is_never_undone_nor_overwritten(
    slurm: Cluster, p5: dict[str, Path]
) -> None:
    reason = "bad DIMM, ticket 4711"
    slurm.slurm("scontrol", "update", "NodeName=node3", "State=DRAIN", f"Reason={reason}")
    try:
        healthy = node_check(slurm, "node3", p5["healthy"])
        assert healthy.code == 0, healthy.err
        assert "was drained by root (bad DIMM, ticket 4711); left as it is" in healthy.err
        assert state(slurm, "node3") == ("drained", reason)
        broken = node_check(slurm, "node3", p5["broken"])
        assert broken.code == 1
        assert state(slurm, "node3") == ("drained", reason)
    finally:
        slurm.slurm("scontrol", "update", "NodeName=node3", "State=RESUME")


def test_new_findings_replace_stackchecks_own_reason(
    slurm: Cluster, p5: dict[str, Path], tmp_path: Path
) -> None:
    """A node drained for one reason and now failing for another says the new one; drift from
    the cluster's expected stack drains too."""
    expected = tmp_path / "expected.json"
    probe = run_stackcheck("probe", "--root", str(p5["healthy"]), "--json")
    expected.write_text(probe.out)
    try:
        assert node_check(slurm, "node2", p5["broken"]).code == 1
        older = node_check(slurm, "node2", p5["older-nccl"], "--expected", str(expected))
        assert older.code == 1, older.err
        assert "Slurm node node2 redrained: stackcheck: SC702 NCCL differs" in older.err
        assert state(slurm, "node2") == ("drained", "stackcheck: SC702 NCCL differs between nodes")
    finally:
        assert node_check(slurm, "node2", p5["healthy"]).code == 0
    assert state(slurm, "node2") == ("idle", "none")


def test_scontrols_own_words_are_read_back(slurm: Cluster) -> None:
    """stackcheck's reading of `scontrol --oneliner show node`, on what this Slurm prints."""
    reason = "stackcheck: SC101 a reason [with] brackets"
    slurm.slurm("scontrol", "update", "NodeName=node3", "State=DRAIN", f"Reason={reason}")
    try:
        text = slurm.slurm("scontrol", "--oneliner", "show", "node", "node3")
        node = parse_node("node3", text)
        assert node.drained and node.ours and node.reason == reason and node.reason_user == "root"
    finally:
        slurm.slurm("scontrol", "update", "NodeName=node3", "State=RESUME")
    idle = parse_node("node3", slurm.slurm("scontrol", "--oneliner", "show", "node", "node3"))
    # (just resumed: IDLE, or IDLE+NOT_RESPONDING until the next ping)
    assert idle.state.split("+")[0] == "IDLE" and not idle.drained and idle.reason == ""


def test_a_node_slurm_does_not_know_is_exit_2(slurm: Cluster, p5: dict[str, Path]) -> None:
    done = node_check(slurm, "node99", p5["healthy"])
    assert done.code == 2
    assert done.err.startswith("stackcheck: error: scontrol failed: ") and done.err.count("\n") == 1


def test_slurmd_runs_the_example_as_its_health_check_program(
    slurm: Cluster, p5: dict[str, Path], tmp_path: Path
) -> None:
    """examples/slurm/stackcheck-healthcheck.sh as slurm.conf's HealthCheckProgram, run by
    slurmd itself. Its STACKCHECK is a shim that gives each node its tree; node2's is broken."""
    ran = tmp_path / "ran"
    ran.mkdir()
    tree = {"node1": p5["healthy"], "node2": p5["broken"], "node3": p5["healthy"]}
    cases = "\n".join(f"  {n}) tree={shlex.quote(str(t))} ;;" for n, t in tree.items())
    shim = tmp_path / "stackcheck"
    shim.write_text(
        "#!/bin/sh\n"
        f"env > {ran}/env.$SLURMD_NODENAME\n"
        'case "$SLURMD_NODENAME" in\n'
        f"{cases}\n"
        "esac\n"
        f"export SLURM_CONF={shlex.quote(slurm.env['SLURM_CONF'])}\n"
        f'exec {shlex.quote(sys.executable)} -m stackcheck "$@" --root "$tree"\n'
    )
    shim.chmod(0o755)
    example = (PROJECT / "examples" / "slurm" / "stackcheck-healthcheck.sh").read_text()
    wrapper = tmp_path / "stackcheck-healthcheck"
    wrapper.write_text(
        example.replace("/opt/stackcheck/bin/stackcheck", str(shim))
        .replace("/etc/stackcheck/expected.json", str(tmp_path / "no-expected.json"))
        .replace("/var/log/stackcheck-healthcheck.log", str(tmp_path / "healthcheck.log"))
    )
    wrapper.chmod(0o755)
    conf = Path(slurm.env["SLURM_CONF"])
    original = conf.read_text()
    conf.write_text(
        f"{original}HealthCheckProgram={wrapper}\nHealthCheckInterval=2\nHealthCheckNodeState=ANY\n"
    )
    try:
        slurm.slurm("scontrol", "reconfigure")
        deadline = time.monotonic() + 60
        while state(slurm, "node2")[0] != "drained" and time.monotonic() < deadline:
            time.sleep(0.5)
        assert state(slurm, "node2") == ("drained", BROKEN_REASON)
        assert state(slurm, "node1") == ("idle", "none")
        assert state(slurm, "node3") == ("idle", "none")
        assert "SLURMD_NODENAME=node2" in (ran / "env.node2").read_text().splitlines()
    finally:
        conf.write_text(original)
        slurm.slurm("scontrol", "reconfigure")
        slurm.slurm("scontrol", "update", "NodeName=node2", "State=RESUME")
