"""A launcher's tasks answering ``ulimit -l`` (omnivector-solutions/snap-slurm#83: a login
shell's limit is unlimited, the srun job's 16384 KiB): the job's limit is read, the smallest
answer; a script is read only where the text asks no other limit."""

from __future__ import annotations

from stackcheck.check.engine import check
from stackcheck.check.model import Severity
from stackcheck.ingest import read_report
from stackcheck.matrix import Matrix

_SNAP_SLURM = """\
# cat /etc/security/limits.d/30-slurm.conf
* soft memlock unlimited
* hard memlock unlimited

$ ulimit -l
unlimited

# Submitting a srun job
$ srun -N2 ./ulimit.sh
16384
16384

# The script simply lists the ulimit
$ cat ulimit.sh
#!/bin/bash
ulimit -l
"""


def memlock(text: str) -> int | None:
    return read_report(text, "pasted").snapshot.runtime.memlock_bytes


def test_a_jobs_answers_to_ulimit_l_are_its_limit(matrix: Matrix) -> None:
    assert memlock(_SNAP_SLURM) == 16384 * 1024
    found = {
        f.id: f.severity for f in check(read_report(_SNAP_SLURM, "p").snapshot, matrix).findings
    }
    # limits.conf raises the login's limit only: the job's 16 MiB is flagged.
    assert found.get("SC511") is Severity.WARNING
    for asked in (
        "$ srun -N2 bash -c 'ulimit -l'\n64\n8192\n",
        '$ mpirun -np 2 sh -c "ulimit -l"\n```\n8192\n8192\n```\n',
        "kubectl exec trainer-0 -- sh -c 'ulimit -l'\n8192\n",
    ):
        assert memlock(asked) in (64 * 1024, 8192 * 1024), asked
    assert memlock("$ docker run --rm img bash -c 'ulimit -l'\nunlimited\n") == -1


def test_other_limits_and_unanswered_commands_are_not_read() -> None:
    for said in (
        # The script may print another limit: the text asks -s too.
        "$ srun -N2 ./limits.sh\n8192\n8192\n$ cat limits.sh\nulimit -s\nulimit -l\n",
        # No ulimit -l anywhere: a script's numbers are anything's.
        "$ srun -N2 ./check.sh\n8192\n",
        # The answers must follow the command.
        "$ srun -N2 bash -c 'ulimit -l'\nsrun: error: node1: task 0: Exited\n",
    ):
        assert memlock(said) is None, said
