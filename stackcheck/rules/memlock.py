"""Family ``memlock``: may the process pin the memory RDMA needs?"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import (
    MEMLOCK_FLOOR,
    rdma_expected,
    runtime_evidence,
    spec_evidence,
)


def _shown(limit: int) -> str:
    return (
        "unlimited"
        if limit < 0
        else f"{limit >> 10} KiB"
        if limit < 1 << 30
        else f"{limit >> 30} GiB"
    )


class MemlockLimited(Rule):
    id = "SC511"
    name = "memlock-limited"
    family = "memlock"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "The locked-memory limit is too low for RDMA"
    doc = RuleDoc(
        what="Checks RLIMIT_MEMLOCK (getrlimit on a host, `ulimit -a` in a report) and container "
        "specs (`--ulimit memlock`, compose `ulimits.memlock`) where EFA or InfiniBand is used, "
        "or where the report says the limit has to be raised or names slurmd (whose limit every "
        "Slurm job inherits) or shows a limits.conf line raising it (which a container or a "
        "service never reads); the report's word that raising it was needed or fixed it, "
        "alone, is a warning too.",
        why="RDMA pins its buffers. With the usual 64 KiB default the EFA provider fails with "
        "`Libfabric error: (-12) Cannot allocate memory` / `Failure to post internal receive "
        "buffers`, and verbs with `ibv_create_cq ... Cannot allocate memory`.",
        example="`max locked memory (kbytes, -l) 64` in a container on an EFA instance.",
        fix="Raise it to unlimited: `docker run --ulimit memlock=-1:-1`, compose `ulimits: "
        "memlock: -1`, `LimitMEMLOCK=infinity` for systemd services, `* - memlock unlimited` in "
        "/etc/security/limits.conf (Slurm: `PropagateResourceLimits`).",
        references=(
            "https://github.com/awslabs/awsome-distributed-ai/issues/647",
            "https://github.com/aws/aws-ofi-nccl/issues/107",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        runtime = ctx.snapshot.runtime
        rdma = rdma_expected(ctx)
        # The reporter saying the limit must be raised is as good a sign that RDMA needs it.
        # So is a limit shown for slurmd, which every Slurm job inherits (Slurm's FAQ).
        stated = [
            o.evidence
            for o in ctx.snapshot.observations(
                "memlock-raise-stated", "slurmd-named", "memlock-limits-conf"
            )
        ]
        # limits.conf is read by pam_limits at a login: a container's processes and a service's
        # children never see it, however it is written.
        conf = ctx.snapshot.observations("memlock-limits-conf")
        conf_said = (
            " /etc/security/limits.conf raises it, but only for logins through PAM: a container "
            "or a service does not read it."
            if conf
            else ""
        )
        limit = runtime.memlock_bytes
        raised = ctx.snapshot.observations("memlock-raise-stated")
        if raised and limit is None:
            # The report's word that the limit had to be raised (or that raising it fixed it).
            yield self.finding(
                f"The report says the locked-memory limit had to be raised ({raised[0].value}): "
                "RDMA could not pin its buffers under the old one.",
                [raised[0].evidence],
            )
        if limit is not None and 0 <= limit < MEMLOCK_FLOOR:
            evidence = runtime_evidence(ctx, "memlock", "locked")
            if rdma or stated:
                yield self.finding(
                    f"Locked memory is limited to {_shown(limit)}; RDMA needs it unlimited."
                    + conf_said,
                    [*(evidence or runtime.evidence[:1]), *(rdma or stated)[:1]],
                )
            elif ctx.snapshot.partial:
                yield self.finding(
                    f"Locked memory is limited to {_shown(limit)}: too little for RDMA (EFA, "
                    "InfiniBand), if the job uses it.",
                    evidence or runtime.evidence[:1],
                    severity=Severity.INFO,
                )
        if not rdma:
            return
        for spec in ctx.snapshot.run_specs:
            if spec.kind in ("docker-run", "compose") and spec.memlock_bytes is None:
                yield self.finding(
                    f"The {spec.kind} spec for {spec.image or 'the container'} sets no memlock "
                    "ulimit; RDMA inside it may fail to pin memory.",
                    [*spec_evidence(spec, "run", "ulimit", "image:")[:1], *rdma[:1]],
                )
            elif spec.memlock_bytes is not None and 0 <= spec.memlock_bytes < MEMLOCK_FLOOR:
                yield self.finding(
                    f"The {spec.kind} spec limits locked memory to {_shown(spec.memlock_bytes)}.",
                    [*spec_evidence(spec, "memlock")[:1], *rdma[:1]],
                )


class RdmaCannotPinMemory(Rule):
    id = "SC512"
    name = "rdma-cannot-pin-memory"
    family = "memlock"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "RDMA could not pin memory"
    doc = RuleDoc(
        what="Reads the out-of-memory errors of RDMA setup: libfabric's `(-12) Cannot allocate "
        "memory`, the EFA provider's `Failure to post internal receive buffers` or `Unknown error "
        "-12`, verbs' `ibv_create_cq ... Cannot allocate memory`. Where the launcher selected "
        "only transports without RDMA (`--mca pml ob1 --mca btl sm,self`, `UCX_TLS=sm,self`), "
        "the error comes from device discovery and is reported as info; so is it where the "
        "report says the limit was checked and is not at fault (`memlock is already "
        "unlimited`, `nothing in ... memlock limits ... indicated a problem`) and shows no "
        "limit below 16 GiB.",
        why="These come from a locked-memory limit too low for the buffers RDMA pins, almost "
        "never from real memory exhaustion; the job aborts at start.",
        example="`Libfabric error: (-12) Cannot allocate memory` with `ulimit -l` at 65536 "
        "(awslabs/awsome-distributed-ai#647).",
        fix="Raise RLIMIT_MEMLOCK to unlimited where the job runs (`docker run --ulimit "
        "memlock=-1:-1`, limits.conf, the systemd unit of the container runtime or Slurm).",
        references=(
            "https://github.com/awslabs/awsome-distributed-ai/issues/647",
            # UCX made the memlock errors of device opening non-fatal: runs without IB met them.
            "https://github.com/openucx/ucx/pull/8757",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        errors = ctx.snapshot.observations("rdma-enomem")
        if not errors:
            return
        limit = ctx.snapshot.runtime.memlock_bytes
        shown = f" (locked memory limited to {_shown(limit)})" if limit is not None else ""
        unselected = ctx.snapshot.observations("rdma-unselected")
        ruled_out = ctx.snapshot.observations("memlock-ruled-out")
        if (
            ruled_out
            and not ctx.snapshot.observations("memlock-raise-stated")
            and (limit is None or limit < 0 or limit >= MEMLOCK_FLOOR)
        ):
            # The report checked the limit: ENOMEM from pinning then has another cause.
            yield self.finding(
                f"RDMA setup printed 'Cannot allocate memory'{shown}, but the report says the "
                f"locked-memory limit is not at fault ({ruled_out[0].value}): pinning can also "
                "fail on the kernel's own accounting (CMA, huge pages, `vm.max_map_count`) or "
                "the NIC's resources; look there before raising the limit.",
                [errors[0].evidence, ruled_out[0].evidence],
                severity=Severity.INFO,
            )
            return
        if unselected:
            # The run chose transports without RDMA: the error comes from device discovery.
            yield self.finding(
                f"RDMA setup printed 'Cannot allocate memory'{shown}, but the run selected "
                f"transports without RDMA ({unselected[0].value}): the message comes from "
                "probing the RDMA devices; raise the limit only where RDMA is meant to be used.",
                [errors[0].evidence, unselected[0].evidence],
                severity=Severity.INFO,
            )
            return
        yield self.finding(
            f"RDMA setup failed with 'Cannot allocate memory' (-12){shown}: the locked-memory "
            "limit is too low.",
            [o.evidence for o in errors[:2]],
        )


class MlockFailed(Rule):
    id = "SC1321"
    name = "mlock-failed"
    family = "memlock"
    severity = Severity.WARNING
    title = "A process could not lock its memory"
    doc = RuleDoc(
        what="Reads the messages of a process whose `mlock`/`mlockall` failed with `Cannot "
        "allocate memory` (ENOMEM): `mlock failed: Cannot allocate memory`, llama.cpp's "
        "`failed to mlock N-byte buffer`, qdrant's `Failed to lock ... in memory: Cannot "
        "allocate memory (os error 12)`, Elasticsearch's `Unable to lock JVM Memory: error=12`. "
        "Where RDMA setup failed the same way, SC512 says it instead.",
        why="ENOMEM from mlock means the locked-memory limit (RLIMIT_MEMLOCK, `ulimit -l`; "
        "a container's default is 64 KiB or 8 MiB) is below what the process asked to pin: "
        "it runs on with pageable memory (slower, may be swapped) or gives up.",
        example="`ERROR segment::vector_storage::mmap_vectors] Failed to lock deleted flags for "
        "quantized mmap segment in memory: Cannot allocate memory (os error 12)` in docker "
        "(qdrant/qdrant#1885).",
        fix="Raise the limit where the process runs: `docker run --ulimit memlock=-1:-1`, "
        "compose `ulimits: memlock: -1`, `LimitMEMLOCK=infinity` for a systemd unit, or "
        "`* - memlock unlimited` in /etc/security/limits.conf.",
        references=("https://github.com/qdrant/qdrant/pull/1885",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        failed = ctx.snapshot.observations("mlock-failed")
        if not failed or ctx.snapshot.observations("rdma-enomem"):
            return
        limit = ctx.snapshot.runtime.memlock_bytes
        shown = f" (locked memory limited to {_shown(limit)})" if limit is not None else ""
        yield self.finding(
            f"A process could not lock memory{shown}: {(failed[0].value or '')[:100]}; the "
            "locked-memory limit is too low for it.",
            [o.evidence for o in failed[:2]],
        )
