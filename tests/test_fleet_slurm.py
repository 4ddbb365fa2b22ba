"""`stackcheck fleet --slurm` against a real Slurm cluster: Debian's slurmctld and four slurmd
instances on this machine (node1..node4, each `slurmd -N nodeK` on its own port), started by
scripts/services/slurm.sh and stopped by PID.

All four nodes share this machine, so they differ only where the test makes them: each node's
remote command is a small script that, by $SLURMD_NODENAME, runs the real `stackcheck probe
--json` on the host or on one of the test trees, hangs, prints garbage or fails.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import PROJECT, Outcome, need_service, run_stackcheck
from tests.support.elfbuild import ElfFactory
from tests.support.fleet import p5_trees

SERVICE = PROJECT / "scripts" / "services" / "slurm.sh"
NODES = 4


@dataclass
class Cluster:
    state: Path
    env: dict[str, str]

    def fleet(self, *arguments: str, env: Mapping[str, str] | None = None) -> Outcome:
        return run_stackcheck("fleet", "--slurm", *arguments, env={**self.env, **(env or {})})

    def slurm(self, *argv: str) -> str:
        done = subprocess.run(
            argv, env={**os.environ, **self.env}, capture_output=True, text=True, timeout=60
        )
        assert done.returncode == 0, done.stderr
        return done.stdout


@pytest.fixture(scope="module")
def slurm() -> Iterator[Cluster]:
    """A private Slurm cluster; required (not skipped) when the suite runs as CI runs it."""
    if shutil.which("slurmctld") is None or shutil.which("munged") is None or os.geteuid() != 0:
        need_service("needs root and Slurm (scripts/services/slurm.sh install), as CI has")
    started = subprocess.run(
        [str(SERVICE), "start", str(NODES)], capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, f"could not start Slurm: {started.stderr}"
    values = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
    state = Path(values["STATE_DIR"])
    try:
        yield Cluster(state, {"SLURM_CONF": values["SLURM_CONF"]})
    finally:
        subprocess.run([str(SERVICE), "stop", str(state)], timeout=120, check=False)


@pytest.fixture(scope="module")
def trees(tmp_path_factory: pytest.TempPathFactory, elves: ElfFactory) -> dict[str, Path]:
    return p5_trees(tmp_path_factory.mktemp("trees"), elves)


PYTHON = shlex.quote(sys.executable)


def probe_of(tree: Path) -> str:
    return f"{PYTHON} -m stackcheck probe --root {shlex.quote(str(tree))} --json"


def node_script(path: Path, behaviours: Mapping[str, str]) -> str:
    """A remote command that does, on each Slurm node, what ``behaviours`` says for it."""
    lines = ["#!/bin/sh", 'case "$SLURMD_NODENAME" in']
    lines += [f"  {node}) {command} ;;" for node, command in behaviours.items()]
    lines += ['  *) echo "no behaviour for $SLURMD_NODENAME" >&2; exit 9 ;;', "esac", ""]
    path.write_text("\n".join(lines))
    return f"sh {shlex.quote(str(path))}"


def test_every_node_probes_the_real_host_through_srun(slurm: Cluster) -> None:
    """The default remote command: this Python with -m stackcheck probe --json, on each node."""
    done = slurm.fleet("--nodes", str(NODES), "--format", "json")
    report = json.loads(done.out)
    assert report["summary"]["answered"] == NODES, done.out
    assert report["summary"]["stacks"] == 1 and report["drift"] == []
    assert sorted(report["nodes"]) == [f"node{n}" for n in range(1, NODES + 1)]
    assert report["source"].startswith("srun --job-name=stackcheck-fleet")
    assert f"{sys.executable} -m stackcheck probe --json" in report["source"]
    errors = [f for f in report["findings"] if f["severity"] == "error"]
    assert done.code == (1 if errors else 0)


def test_a_node_with_an_older_nccl_is_named_as_drift(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    healthy, older = probe_of(trees["healthy"]), probe_of(trees["older-nccl"])
    remote = node_script(
        tmp_path / "node.sh", {"node1": healthy, "node2": healthy, "node3": healthy, "node4": older}
    )
    done = slurm.fleet("--nodelist", "node[1-4]", "--remote-command", remote, "--format", "json")
    assert done.code == 1, done.err
    report = json.loads(done.out)
    nccl = next(d for d in report["drift"] if d["id"] == "SC702")
    assert [(v["value"], v["nodes"]) for v in nccl["values"]] == [
        ("2.27.7", "node[1-3]"),
        ("2.21.5", "node4"),
    ]
    assert report["summary"]["no_answer"] == 0
    text = slurm.fleet("--nodelist", "node[1-4]", "--remote-command", remote).out
    assert "NCCL differs between nodes: 2.27.7 on 3 of 4 nodes; 2.21.5 on 1: node4." in text


def test_lines_srun_cuts_into_pieces_are_joined_back(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    """srun --label cuts output lines at 1,024 bytes; a 6,000-character value must survive."""
    tree = tmp_path / "tree"
    shutil.copytree(trees["healthy"], tree, symlinks=True)
    long_value = ",".join(f"ens{n}" for n in range(1, 1000))
    assert len(long_value) > 5000
    (tree / "etc" / "nccl.conf").write_text(f"NCCL_SOCKET_IFNAME={long_value}\n")
    remote = node_script(tmp_path / "node.sh", {"node1": probe_of(tree), "node2": probe_of(tree)})
    done = slurm.fleet("--nodelist", "node[1-2]", "--remote-command", remote, "--format", "json")
    report = json.loads(done.out)
    assert report["summary"]["answered"] == 2 and report["summary"]["stacks"] == 1, done.out
    env = report["stacks"][0]["report"]["snapshot"]["env"]
    assert env["NCCL_SOCKET_IFNAME"]["value"] == long_value


def test_a_hung_probe_garbage_and_a_failure_are_each_reported(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    remote = node_script(
        tmp_path / "node.sh",
        {
            "node1": probe_of(trees["healthy"]),
            "node2": "exec sleep 600",
            "node3": "echo 'Traceback (most recent call last):'; echo '  MemoryError'",
            "node4": "echo 'python3: No module named stackcheck' >&2; exit 1",
        },
    )
    done = slurm.fleet("--nodes", "4", "--timeout", "2", "--remote-command", remote)
    assert done.code == 1, done.err
    out = " ".join(done.out.split())
    assert "Fleet of 4 nodes: 1 answered with 1 distinct stack, 3 gave no snapshot" in out
    assert "timeout node2: the probe did not finish within 2 s" in out
    assert "garbage node3: srun task 2 on node3: not JSON" in out and "MemoryError" in out
    assert "failed node4: exit code 1: python3: No module named stackcheck" in out
    assert "SC701 A node gave no snapshot on 3 of 4 nodes: node[2-4]" in out


def test_a_node_missing_from_srun_output_is_named(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    """node4's task dies without a word (its wrapper is killed, as the OOM killer or a node
    crash would) once the other three have answered."""
    flags = tmp_path / "answered"
    flags.mkdir()
    healthy = f"{probe_of(trees['healthy'])}; touch {flags}/$SLURMD_NODENAME"
    vanish = (
        f'while [ "$(ls {flags} | wc -l)" -lt 3 ]; do sleep 0.1; done; sleep 1; '
        "kill -KILL $(cut -d' ' -f4 /proc/$PPID/stat)"  # the wrapper: timeout's parent
    )
    remote = node_script(
        tmp_path / "node.sh",
        {"node1": healthy, "node2": healthy, "node3": healthy, "node4": vanish},
    )
    done = slurm.fleet("--nodes", "4", "--timeout", "60", "--remote-command", remote)
    assert done.code == 1, done.err
    out = " ".join(done.out.split())
    assert "Fleet of 4 nodes: 3 answered with 1 distinct stack, 1 gave no snapshot" in out
    assert "missing node4: nothing from this node in srun's output" in out
    assert "srun: error: node4: task 3: Killed" in out


def test_a_drained_node_is_reported_without_being_asked(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    remote = node_script(
        tmp_path / "node.sh", {f"node{n}": probe_of(trees["healthy"]) for n in (1, 2, 3)}
    )
    slurm.slurm("scontrol", "update", "NodeName=node4", "State=DRAIN", "Reason=stackcheck-test")
    try:
        done = slurm.fleet("--partition", "debug", "--remote-command", remote, "--format", "json")
    finally:
        slurm.slurm("scontrol", "update", "NodeName=node4", "State=RESUME")
    assert done.code == 1, done.err
    report = json.loads(done.out)
    assert report["no_answer"] == [
        {"reason": "unavailable", "detail": "Slurm state drain", "count": 1, "nodes": "node4"}
    ]
    assert report["summary"]["answered"] == 3
    assert "--nodelist=node[1-3]" in report["source"]


def test_srun_failing_outright_is_exit_2_in_one_line(slurm: Cluster) -> None:
    done = slurm.fleet("--nodes", "2", "--partition", "no-such-partition")
    assert done.code == 2
    assert done.err.startswith("stackcheck: error: srun started no probe: srun failed")
    assert "partition" in done.err and len(done.err.strip().splitlines()) == 1


def test_outside_an_allocation_the_nodes_must_be_named(slurm: Cluster) -> None:
    env = dict.fromkeys(("SLURM_JOB_NODELIST", "SLURM_JOB_ID"), "")
    done = slurm.fleet(env=env)
    assert done.code == 2 and "say which nodes" in done.err


def test_the_example_sbatch_script_gates_a_job(
    slurm: Cluster, trees: dict[str, Path], tmp_path: Path
) -> None:
    """examples/slurm/stackcheck-fleet.sbatch, submitted for real: it probes every node of its
    allocation, writes both reports, and fails the job on drift."""
    older = {"node1": probe_of(trees["healthy"]), "node2": probe_of(trees["older-nccl"])}
    remote = node_script(tmp_path / "node.sh", older)
    env = {
        **os.environ,
        **slurm.env,
        "STACKCHECK": f"{sys.executable} -m stackcheck",
        "STACKCHECK_REMOTE_COMMAND": remote,
    }
    script = PROJECT / "examples" / "slurm" / "stackcheck-fleet.sbatch"
    done = subprocess.run(
        ["sbatch", "--wait", "--nodes=2", "--nodelist=node[1-2]", str(script)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 1, done.stderr  # the job failed: NCCL drifts
    job = done.stdout.split()[-1]
    text = (tmp_path / f"stackcheck-fleet-{job}.out").read_text()
    assert "Fleet of 2 nodes: 2 answered with 2 distinct stacks" in text
    assert (
        "NCCL differs between nodes, with no value on most of them: 2.21.5 on 1: node2; "
        "2.27.7 on 1: node1." in " ".join(text.split())
    )
    report = json.loads((tmp_path / f"stackcheck-fleet-{job}.json").read_text())
    assert report["summary"]["nodes"] == 2 and report["drift"][0]["id"] == "SC702"
