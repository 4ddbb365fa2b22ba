"""Family ``shm``: is /dev/shm big enough for NCCL's shared-memory transport and DataLoader
workers? Docker and Kubernetes give a container 64 MB unless told otherwise."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.gpu_visibility import parallelism
from stackcheck.rules.runtime_facts import (
    DOCKER_DEFAULT_SHM,
    diagnostic_only,
    gpu_image,
    gpu_workload,
    runtime_evidence,
    spec_evidence,
)
from stackcheck.snapshot.model import Evidence, ObservationKind, RunSpec


def _sets_shm(spec: RunSpec) -> bool:
    return (
        spec.shm_bytes is not None
        or spec.ipc == "host"
        or any("/dev/shm" in v for v in spec.volumes)
    )


def _whole(spec: RunSpec) -> bool:
    """Whether the spec is shown whole: a pod's resource list alone, a compose service's
    `deploy:` block alone or a docker run's options named in a sentence without an image does
    not show its volumes or shm_size."""
    if spec.kind in ("kubernetes", "docker-run") and spec.image is None:
        return False
    return not (spec.kind == "compose" and spec.name is None)


# What the text shows running that puts its data in /dev/shm: NCCL (its SHM transport and, from
# 2.24, cuMem host buffers join the GPUs of one container there; a rank prints `via SHM/direct`)
# and DataLoader workers (every batch a worker makes is passed through a shared-memory segment).
_SHM_USERS: tuple[tuple[ObservationKind, str], ...] = (
    ("nccl-loaded", "NCCL, which joins the container's GPUs through /dev/shm"),
    ("net-transport", "NCCL, which joins the container's GPUs through /dev/shm"),
    ("nccl-in-backtrace", "NCCL, which joins the container's GPUs through /dev/shm"),
    ("dataloader-workers", "DataLoader workers, which pass their batches through /dev/shm"),
    ("dataloader-worker-died", "DataLoader workers, which pass their batches through /dev/shm"),
)


def _shm_users(ctx: CheckContext, spec: RunSpec) -> list[tuple[str, Evidence | None]]:
    """Why this container needs more than 64 MB of /dev/shm, with the evidence: several GPUs
    (NCCL's SHM transport joins GPUs of one container), NCCL at work (its log, its settings) or
    DataLoader worker processes. [] when the text shows none: one process on one GPU (a
    `docker run --gpus all image nvidia-smi`-like start, an inference server) uses little. A
    count of GPUs alone is no such sign: a web app or a Dask cluster given two GPUs need not run
    NCCL at all (rapidsai/docker#306)."""
    found: list[tuple[str, Evidence | None]] = []
    ranks = parallelism(spec.command)
    if ranks is not None and ranks >= 2:
        # torchrun's --nproc_per_node, vLLM's tensor x pipeline parallel size: one process per
        # GPU, joined by NCCL (and vLLM's own shared-memory broadcast) in /dev/shm.
        found.append((f"the {ranks} GPU processes its command starts", None))
    for kind, why in _SHM_USERS:
        seen = ctx.snapshot.observations(kind)
        if seen:
            found.append((why, seen[0].evidence))
    settings = sorted(name for name in ctx.snapshot.env if name.startswith("NCCL_"))
    if settings:
        found.append((f"NCCL, set up here ({settings[0]})", None))
    return found


class ShmTooSmall(Rule):
    id = "SC501"
    name = "shm-too-small"
    family = "shm"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "/dev/shm is too small (the 64 MB container default, or less than a program needs)"
    doc = RuleDoc(
        what="Checks /dev/shm's size (statvfs on a host, `df` in a report) and each container spec "
        "that runs GPU work: a `docker run` or compose service without `--shm-size`/`shm_size` or "
        "`--ipc=host`, a pod without a memory-backed /dev/shm mount (a warning where something "
        "fills /dev/shm: a command that starts several GPU processes, NCCL at work, DataLoader "
        "workers; advice where the text shows none of them, however many GPUs it requests); "
        "and reads programs that say /dev/shm is too small for them (Ray: `The object store is "
        "using /tmp instead of /dev/shm`); a sentence naming Docker's default 64 MB /dev/shm is "
        "advice (info).",
        why="NCCL's shared-memory transport and PyTorch DataLoader workers allocate in /dev/shm. "
        "At 64 MB NCCL fails with `posix_fallocate failed` / `Error while creating shared memory "
        "segment` or hangs, and DataLoader workers die with a bus error (NVIDIA/nccl#290, #342).",
        example="`docker run --gpus all image python train.py`, without `--shm-size` or "
        "`--ipc=host`.",
        fix="Start GPU containers with `--ipc=host` (as NVIDIA's NGC images advise) or "
        "`--shm-size=16g` or more; in compose `shm_size: 16gb` or `ipc: host`; on Kubernetes "
        "mount an `emptyDir: {medium: Memory}` volume at /dev/shm.",
        references=(
            "https://github.com/NVIDIA/nccl/issues/290",
            "https://github.com/NVIDIA/nccl/issues/342",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("shm-too-small")
        if said:
            # A program's own verdict (Ray's object store falling back to /tmp), whatever size.
            yield self.finding(
                f"/dev/shm is too small for what runs here, as reported: {said[0].value or ''}.",
                [o.evidence for o in said[:2]],
            )
        default = ctx.snapshot.observations("shm-default-stated")
        if default and not said:
            # A sentence about Docker's default is advice alone; with a crash SC502 names it.
            yield self.finding(
                f"The report names Docker's default /dev/shm of 64 MB ({default[0].value}): "
                "too little for NCCL and DataLoader workers where they run in that container.",
                [default[0].evidence],
                severity=Severity.INFO,
            )
        runtime = ctx.snapshot.runtime
        small = runtime.shm_bytes is not None and runtime.shm_bytes <= DOCKER_DEFAULT_SHM
        if small and runtime.shm_bytes is not None and gpu_workload(ctx):
            yield self.finding(
                f"/dev/shm holds {runtime.shm_bytes >> 20} MiB, the container default: too "
                "little for NCCL and DataLoader workers.",
                runtime_evidence(ctx, "shm")[:2] or runtime.evidence[:1],
            )
        for spec in ctx.snapshot.run_specs:
            if not _whole(spec):
                continue
            if _sets_shm(spec) or diagnostic_only(spec) or spec.gpu_count == 0:
                continue  # (a spec that requests zero GPUs is SC531's: fix that first)
            if spec.gpus or gpu_image(spec):
                need = _shm_users(ctx, spec)
                yield self.finding(
                    f"The {spec.kind} spec for {spec.image or 'the container'} sets no /dev/shm "
                    "size and no host IPC: the container gets 64 MB"
                    + (
                        f", too little for {need[0][0]}."
                        if need
                        else "; enough for one process"
                        + (
                            f" on its {spec.gpu_count} GPUs"
                            if spec.gpu_count is not None and spec.gpu_count >= 2
                            else " on one GPU"
                        )
                        + ", too little once NCCL joins several GPUs or DataLoader workers pass "
                        "batches."
                    ),
                    spec_evidence(spec, "run", "image:")[:2]
                    + [e for _, e in need[1:2] if e is not None],
                    severity=None if need else Severity.INFO,
                )


AMPLE_SHM = 16 << 30  # NVIDIA's advice for GPU containers is --ipc=host or --shm-size=16g


class ShmExhausted(Rule):
    id = "SC502"
    name = "shm-exhausted"
    family = "shm"
    severity = Severity.ERROR
    lowest = Severity.INFO  # the error reported where /dev/shm is known to be ample
    title = "A process reported that shared memory ran out"
    doc = RuleDoc(
        what="Reads the errors of an exhausted /dev/shm: NCCL's `Call to posix_fallocate failed` "
        "and `Error while creating shared memory segment`, and PyTorch's `DataLoader worker ... "
        "is killed by signal: Bus error`; and a process killed by SIGBUS (UCX's `Caught signal 7 "
        "(Bus error`, torchelastic's `Signal 7 (SIGBUS)`) where the backtrace is in NCCL, the "
        "report names Docker's 64 MB default, /dev/shm is small or a GPU container sets no "
        "/dev/shm size (any crash in NCCL's `ncclShmOpen` too; a warning where only NCCL's log "
        "is around it); and a DataLoader worker that `exited unexpectedly` in a container "
        "(a warning). Where /dev/shm is known to hold "
        "16 GiB or more, the error is only noted (info): its size is then not the cause.",
        why="The job failed (or a rank hung) because /dev/shm was too small, usually a "
        "container's 64 MB default, while the host had plenty of memory.",
        example="`include/shm.h:28 NCCL WARN Call to posix_fallocate failed : No space left on "
        "device` in a docker container (NVIDIA/nccl#290).",
        fix="Give the container a bigger /dev/shm: `--ipc=host` or `--shm-size=16g` (compose "
        "`shm_size`, Kubernetes an `emptyDir: {medium: Memory}` at /dev/shm). As a stopgap, "
        "NCCL_SHM_DISABLE=1 avoids the failure at a cost in intra-node bandwidth.",
        references=("https://github.com/NVIDIA/nccl/issues/290",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        errors = ctx.snapshot.observations("shm-exhausted")
        if not errors:
            yield from self._crashed_in_shm(ctx)
            return
        said = "; ".join(dict.fromkeys((o.value or "")[:80] for o in errors[:2]))
        shm = ctx.snapshot.runtime.shm_bytes
        if shm is not None and shm >= AMPLE_SHM:
            # A bus error is only "possibly" shared memory (PyTorch's own words); with this much
            # /dev/shm the cause lies elsewhere (a mounted volume, a failing disk or memory).
            yield self.finding(
                f"A shared-memory error was reported ({said}), but /dev/shm holds "
                f"{shm >> 30} GiB: its size is unlikely to be the cause.",
                [o.evidence for o in errors[:2]] + runtime_evidence(ctx, "shm")[:1],
                severity=Severity.INFO,
            )
            return
        yield self.finding(
            f"Shared memory (/dev/shm) ran out: {said}.",
            [o.evidence for o in errors[:3]],
        )

    def _crashed_in_shm(self, ctx: CheckContext) -> Iterable[Finding]:
        """A process killed by SIGBUS with a sign that /dev/shm could not back it: the crash in
        NCCL's frames (its segments live in /dev/shm), Docker's 64 MB default stated, a small
        /dev/shm, or a GPU container started without a /dev/shm size; any crash in NCCL's
        shared-memory setup (ncclShmOpen). A bus error alone may be a truncated mapped file."""
        snapshot = ctx.snapshot
        crashed = snapshot.observations("process-crashed")
        bus = [o for o in crashed if "bus" in (o.value or "").lower()]
        frames = snapshot.observations("nccl-in-backtrace")
        in_shm = [f for f in frames if "shm" in (f.value or "").lower()]
        shm = snapshot.runtime.shm_bytes
        if shm is not None and shm >= AMPLE_SHM:
            return
        open_specs = [
            spec_evidence(spec, "run", "image:")[:1]
            for spec in snapshot.run_specs
            if (spec.gpus or gpu_image(spec)) and not _sets_shm(spec) and _whole(spec)
        ]
        small = shm is not None and shm <= DOCKER_DEFAULT_SHM
        signs = [
            *(o.evidence for o in frames[:1]),
            *(o.evidence for o in snapshot.observations("shm-default-stated")[:1]),
            *(runtime_evidence(ctx, "shm")[:1] if small else []),
            *(e for found in open_specs for e in found),
        ]
        # NCCL's log around the crash: NCCL ran, and its maintainers' first suspect for a bus
        # error is /dev/shm; without a backtrace a warning.
        ran = snapshot.observations("nccl-loaded", "net-transport", "net-plugin-missing")
        if not ((bus and (signs or ran)) or (crashed and in_shm)):
            yield from self._worker_died(ctx, signs)
            return
        died = (bus or crashed)[0]
        where = f" in NCCL ({frames[0].value})" if frames else ""
        yield self.finding(
            f"A process died of a {died.value or 'signal'}{where}, where /dev/shm is or may be "
            "the container's 64 MB: NCCL's segments and DataLoader batches live there, and a "
            "page the tmpfs cannot back kills the process with SIGBUS.",
            [
                died.evidence,
                *([o.evidence for o in in_shm[:1]] or signs[:2] or [o.evidence for o in ran[:1]]),
            ],
            severity=None if signs or in_shm else Severity.WARNING,
        )

    def _worker_died(self, ctx: CheckContext, signs: list[Evidence]) -> Iterable[Finding]:
        """A DataLoader worker that exited unexpectedly (PyTorch names no signal) in a container
        with, or said to run with, the 64 MB default: the maintainers' first answer is a bigger
        /dev/shm (detectron2#384). Outside a container the cause may as well be host memory or
        the dataset's code, so nothing is said."""
        died = ctx.snapshot.observations("dataloader-worker-died")
        container = ctx.snapshot.platform
        if not died or not (signs or container.container):
            return
        yield self.finding(
            "A DataLoader worker died without a signal PyTorch could name, in a container"
            + (" whose /dev/shm is or may be the 64 MB default" if signs else "")
            + ": its batches pass through /dev/shm, and a container gets 64 MB unless started "
            "with --shm-size or --ipc=host.",
            [died[0].evidence, *(signs[:1] or container.evidence[:1])],
            severity=Severity.WARNING,
        )
