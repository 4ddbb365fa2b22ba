"""Family ``nccl-version``: NCCL releases the matrix knows to be broken, or too old for the GPU,
and NCCL builds that cannot do what the program asks of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import WithKnownIssues
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.known_issues import KnownIssueRule
from stackcheck.snapshot.model import ComponentName


class NcclKnownIssue(KnownIssueRule):
    id = "SC311"
    name = "nccl-known-issue"
    family = "nccl-version"
    severity = Severity.ERROR
    component = ComponentName.NCCL
    title = "NCCL version with a known issue"
    doc = RuleDoc(
        what="Looks up every NCCL found (wheel, system package, toolkit copy) in the matrix's "
        "known issues, gathered from NCCL's release notes and the aws-ofi-nccl sources, and "
        "reports those that affect its version where the issue's conditions hold (the GPU "
        "architecture, the CPU, a driver or EFA version). Severity is the issue's own; an issue "
        "the matrix marks unsure is at most a warning.",
        why="NCCL bugs rarely crash: a hang appears only at scale, a regression costs bandwidth "
        "without an error, a correctness bug corrupts a reduction now and then. The fix is "
        "usually a patch release that nobody knew to install.",
        example="NCCL 2.19.3 on p5.48xlarge (H100): the NVLS-Tree chunk size was cut to 64 KiB at "
        "four or more nodes, a large allreduce regression on AWS that 2.20.3 made tunable.",
        fix="Upgrade NCCL to the release the finding names (for PyTorch, the nvidia-nccl-cu12/"
        "cu13 wheel, or a newer image), or apply the workaround it gives.",
        references=("https://github.com/NVIDIA/nccl/releases",),
    )

    def table(self, ctx: CheckContext) -> Sequence[WithKnownIssues]:
        return ctx.matrix.matrix.nccl


class NcclTooOldForGpu(Rule):
    id = "SC312"
    name = "nccl-too-old-for-gpu"
    family = "nccl-version"
    severity = Severity.WARNING
    lowest = Severity.WARNING
    title = "NCCL older than the first release that supports the GPU"
    doc = RuleDoc(
        what="Compares each NCCL found with the first NCCL release the matrix names as "
        "supporting the GPUs present (the release's `new_gpus`), and reads NCCL's own word "
        "that its kernels need more shared memory than the GPU gives (`ncclMaxSharedMem 82240 "
        "exceeds device/fn maxSharedMem 79856`), which a GPU newer than the NCCL build prints.",
        why="An NCCL that predates a GPU does not know its topology: on GB200 and GB300 NVL72 "
        "systems it cannot use the multi-node NVLink domain and falls back to slower paths, or "
        "misbehaves in ways NVIDIA does not support.",
        example="PyTorch 2.7 with its NCCL 2.26.2 wheel on a p6e-gb200 (GB200): GB200 support "
        "starts with NCCL 2.27.5.",
        fix="Use an NCCL at least the version named (install a newer nvidia-nccl wheel or "
        "PyTorch build, or an image that ships it).",
        references=("https://docs.nvidia.com/dgx/dgxgb200nvl72-release-notes/nvonline-ids.html",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        said = ctx.snapshot.observations("nccl-gpu-unsupported")
        if said:
            loaded = [(o.value, o.evidence) for o in ctx.snapshot.observations("nccl-loaded")]
            named = f"NCCL {loaded[0][0]}" if loaded else "This NCCL"
            yield self.finding(
                f"{named} does not fit the GPU: {said[0].value}, so its collectives fail: the "
                "release predates the GPU.",
                [said[0].evidence, *(e for _, e in loaded[:1])],
            )
        for gpu in ctx.gpus:
            first = ctx.matrix.nccl_first_for(gpu.known) if gpu.known else None
            if first is None:
                continue
            for nccl in ctx.installations(ComponentName.NCCL):
                if ctx.version_at_least(nccl.version, first.version) is False:
                    yield self.finding(
                        f"NCCL {nccl.version}{f' at {nccl.path}' if nccl.path else ''} predates "
                        f"support for the {gpu.name}, "
                        f"which starts with NCCL {first.version}.",
                        [*nccl.evidence, *gpu.evidence[:1]],
                        fix=f"Use NCCL {first.version} or later: {self.doc.fix}",
                        severity=self.capped(first.unsure),
                    )


# NCCL asks the CUDA runtime it was built with, and the driver, whether a stream is being
# captured; before 11.3 (runtime or driver, R465) it cannot join the graph and refuses
# (NVIDIA/nccl src/misc/strongstream.cc, ncclCudaGetCapturingGraph).
_GRAPH_CUDA = "11.3"
_GRAPH_DRIVER = "465"
NCCL_STRONGSTREAM = (
    "https://github.com/NVIDIA/nccl/blob/master/src/misc/strongstream.cc "
    "(ncclCudaGetCapturingGraph: CUDART_VERSION < 11030 || driver < 11030)"
)


class NcclGraphCaptureUnsupported(Rule):
    id = "SC1335"
    name = "nccl-graph-capture-unsupported"
    family = "nccl-version"
    severity = Severity.ERROR
    title = "The NCCL build cannot be captured in a CUDA graph"
    doc = RuleDoc(
        what="Reads NCCL's `NCCL cannot be captured in a graph if either it wasn't built with "
        "CUDA runtime >= 11.3 or if the installed CUDA driver < R465` and names which of the "
        "two the text shows: an NCCL built for an older CUDA (`NCCL version 2.19.3+cuda11.0`), "
        "or a driver older than R465.",
        why="Programs that capture collectives in CUDA graphs (vLLM's tensor parallelism, "
        "PyTorch's CUDA graphs, Megatron's graph capture) fail at the first captured "
        "collective with ncclInvalidUsage. NCCL's cu11 wheels of some releases were built "
        "with CUDA 11.0, so a cu118 PyTorch can load one.",
        example="vLLM 0.3.2 with --tensor-parallel-size 2 on torch 2.2.0+cu118, whose NCCL is "
        "`2.19.3+cuda11.0`.",
        fix="Install an NCCL built with CUDA 11.3 or later (another nvidia-nccl-cu11 release, "
        "or a cu12 stack), or a driver of R465 or later; meanwhile run without graph capture "
        "(vLLM's --enforce-eager).",
        references=(NCCL_STRONGSTREAM,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        refused = ctx.snapshot.observations("nccl-graph-capture-refused")
        if not refused:
            return
        old = [
            n
            for n in ctx.installations(ComponentName.NCCL)
            if n.cuda and ctx.version_at_least(n.cuda, _GRAPH_CUDA) is False
        ]
        driver = ctx.driver
        if old:
            cause = (
                f"the NCCL loaded ({old[0].version or '?'}) was built for CUDA {old[0].cuda}, "
                "older than 11.3"
            )
            evidence = [*old[0].evidence[:1]]
        elif driver is not None and ctx.version_at_least(driver.version, _GRAPH_DRIVER) is False:
            cause = f"the driver {driver.version} is older than R465"
            evidence = [*driver.evidence[:1]]
        else:
            cause = "the NCCL loaded was built for CUDA before 11.3, or the driver predates R465"
            evidence = []
        yield self.finding(
            f"NCCL refused to be captured in a CUDA graph: {cause}, so every captured collective "
            "fails (ncclInvalidUsage).",
            [refused[0].evidence, *evidence],
        )
