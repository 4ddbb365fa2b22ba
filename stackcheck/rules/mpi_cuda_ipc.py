"""Family ``gpu-visibility``: Open MPI's or UCX's CUDA IPC is off, so messages between the GPUs
of one node are staged through host memory."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc


class MpiCudaIpcOff(Rule):
    id = "SC1414"
    name = "mpi-cuda-ipc-off"
    family = "gpu-visibility"
    severity = Severity.WARNING
    lowest = Severity.INFO  # smcuda finding no CUDA context: the application's call order
    title = "MPI's CUDA IPC between the GPUs of a node is off"
    doc = RuleDoc(
        what="Reads Open MPI's smcuda BTL failing for want of a CUDA context (`CUDA: "
        "cuCtxGetCurrent returned NULL context`, then `init of component smcuda returned "
        "failure`), UCX saying its cuda_ipc transport is not available (`UCX  WARN  transport "
        "'cuda_ipc' is not available`) and a report saying UCX's `cuda_ipc` transport (or CUDA "
        "IPC) is disabled or not used. The first is advice (the application called MPI_Init "
        "before any CUDA call; the stack is fine); the others warnings naming the usual causes "
        "(UCX's CUDA module not installed; one GPU per rank, managed memory).",
        why="Without CUDA IPC, CUDA-aware MPI copies every message between two GPUs of the same "
        "node through host memory: it works, at a fraction of NVLink's or PCIe peer-to-peer "
        "bandwidth, and nothing says so. UCX's cuda_ipc needs the peer's GPU visible to the "
        "process, so a launcher that gives each rank only its own GPU through "
        "CUDA_VISIBLE_DEVICES turns it off, and managed memory cannot be shared by IPC "
        "(open-mpi/ompi#10871); smcuda needs a current CUDA context when MPI_Init runs "
        "(open-mpi/ompi#13354).",
        example="`select: init of component smcuda returned failure` after `CUDA: "
        "cuCtxGetCurrent returned NULL context` (open-mpi/ompi#13354).",
        fix="Call cudaSetDevice (or any CUDA call) before MPI_Init; select each rank's GPU with "
        "cudaSetDevice(local_rank) instead of restricting CUDA_VISIBLE_DEVICES to one GPU; pass "
        "device memory, not managed memory, to MPI.",
        references=(
            "https://github.com/open-mpi/ompi/issues/10871",
            "https://github.com/open-mpi/ompi/issues/13354",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        missing = ctx.snapshot.observations("ucx-cuda-ipc-missing")
        stated = ctx.snapshot.observations("mpi-cuda-ipc-off")
        no_context = ctx.snapshot.observations("mpi-cuda-no-context")
        if missing:
            yield self.finding(
                f"UCX has no cuda_ipc transport ({(missing[0].value or '')[:100]}): its CUDA "
                "module (libuct_cuda.so, the ucx-cuda package, a UCX built `--with-cuda`) is "
                "not installed or does not load, so GPU memory between a node's GPUs moves "
                "through host memory or another transport; `ucx_info -d | grep cuda` lists "
                "what it has.",
                [missing[0].evidence],
            )
        elif stated:
            yield self.finding(
                f"The report says MPI's CUDA IPC is off ({(stated[0].value or '')[:100]}): "
                "messages between GPUs of one node go through host memory. UCX's cuda_ipc needs "
                "the peer GPU visible to each rank (not one GPU per rank through "
                "CUDA_VISIBLE_DEVICES) and device memory, not managed memory.",
                [stated[0].evidence],
            )
        elif no_context:
            yield self.finding(
                f"Open MPI's smcuda found no CUDA context at MPI_Init ({no_context[0].value}): "
                "CUDA IPC is off and messages between GPUs of the node are staged through host "
                "memory. The application calls MPI_Init before any CUDA call; select the GPU "
                "(cudaSetDevice) first.",
                [no_context[0].evidence],
                severity=Severity.INFO,
            )
