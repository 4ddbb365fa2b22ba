"""A private Slurm cluster for the tests: Debian's slurmctld and slurmd instances on this
machine, started by scripts/services/slurm.sh and stopped by PID."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from tests.conftest import PROJECT, Outcome, need_service, run_stackcheck

SERVICE = PROJECT / "scripts" / "services" / "slurm.sh"


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


def slurm_cluster(nodes: int) -> Iterator[Cluster]:
    """A cluster of ``nodes`` nodes (node1..nodeN) for a fixture to yield; required (not
    skipped) when the suite runs as CI runs it."""
    if shutil.which("slurmctld") is None or shutil.which("munged") is None or os.geteuid() != 0:
        need_service("needs root and Slurm (scripts/services/slurm.sh install), as CI has")
    started = subprocess.run(
        [str(SERVICE), "start", str(nodes)], capture_output=True, text=True, timeout=120
    )
    assert started.returncode == 0, f"could not start Slurm: {started.stderr}"
    values = dict(line.split("=", 1) for line in started.stdout.splitlines() if "=" in line)
    state = Path(values["STATE_DIR"])
    try:
        yield Cluster(state, {"SLURM_CONF": values["SLURM_CONF"]})
    finally:
        subprocess.run([str(SERVICE), "stop", str(state)], timeout=120, check=False)
