"""Family ``layout``: a planned job's parallel layout against the instance's topology.

These rules judge ``ctx.job`` (set by `stackcheck plan`) with the instance facts of the matrix.
They judge only what the user gave: a layer or head count the planner derived is never flagged.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import Instance
from stackcheck.plan.layout import JobLayout
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.snapshot.model import Evidence

_MEGATRON = "https://github.com/NVIDIA/Megatron-LM"
_KORTHIKANTI = "https://arxiv.org/abs/2205.05198"


def _planned(ctx: CheckContext) -> tuple[JobLayout, Instance] | None:
    job = ctx.job
    if job is None:
        return None
    instance = ctx.matrix.instance(job.instance)
    return None if instance is None else (job, instance)


def _with_domain(ctx: CheckContext) -> tuple[JobLayout, Instance, int] | None:
    planned = _planned(ctx)
    if planned is None or planned[1].nvlink_domain_gpus is None:
        return None
    return planned[0], planned[1], planned[1].nvlink_domain_gpus


def _counts(instance: Instance) -> Evidence:
    return Evidence(
        kind="matrix",
        source=instance.source,
        detail=f"{instance.type}: {instance.gpu_count} GPUs, {instance.efa_interfaces} EFA",
    )


def _nvlink(instance: Instance) -> Evidence:
    return Evidence(
        kind="matrix",
        source=instance.nvlink_source or instance.source,
        detail=f"{instance.type}: NVLink domain {instance.nvlink_domain_gpus} GPUs",
    )


def _link_beyond_nvlink(job: JobLayout, instance: Instance, span: int) -> str:
    if span <= job.gpus_per_node:
        return "PCIe inside the instance"
    return "EFA between instances" if instance.efa_interfaces else "TCP between instances"


class TensorParallelOutsideNvlink(Rule):
    id = "SC801"
    name = "tp-outside-nvlink"
    family = "layout"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "Tensor (or context) parallelism larger than the NVLink domain"
    doc = RuleDoc(
        what="Compares the tensor-parallel group (and TP x CP with context parallelism) with the "
        "GPUs of one NVLink domain of the instance type: 8 on a p5, up to 72 across a P6e-GB200 "
        "UltraServer, 1 where GPUs talk over PCIe. A TP that does not divide the domain is "
        "flagged too: some of its groups straddle two domains.",
        why="Tensor parallelism (with sequence parallelism) all-reduces or all-gathers every "
        "layer's activations several times per micro-batch. Inside NVLink that costs little; "
        "across EFA, roughly a tenth of NVLink's bandwidth, the job runs without error and "
        "several times slower.",
        example="`stackcheck plan --params 70B --instance p5.48xlarge --nodes 2 --tp 16`: a TP "
        "group of 16 spans two p5 instances of 8 GPUs each.",
        fix="Keep TP within the NVLink domain and dividing it (TP 1, 2, 4 or 8 on p5/p5e/p6), "
        "and add pipeline or data parallelism across instances instead; or use an UltraServer "
        "whose NVLink domain spans instances (p6e-gb200).",
        references=(_KORTHIKANTI, _MEGATRON),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        planned = _with_domain(ctx)
        if planned is None:
            return
        job, instance, domain = planned
        evidence = [_nvlink(instance), _counts(instance)]
        if job.tp > domain:
            link = _link_beyond_nvlink(job, instance, job.tp)
            yield self.finding(
                f"TP {job.tp} is larger than the NVLink domain of {instance.type} ({domain} "
                f"GPUs): every layer's tensor-parallel collectives cross {link}.",
                evidence,
            )
        elif domain % job.tp and job.gpus > domain:
            yield self.finding(
                f"TP {job.tp} does not divide the {domain} GPUs of an NVLink domain of "
                f"{instance.type}: some TP groups straddle two domains and cross "
                f"{_link_beyond_nvlink(job, instance, job.gpus)}.",
                evidence,
            )
        elif job.tp * job.cp > domain:
            link = _link_beyond_nvlink(job, instance, job.tp * job.cp)
            yield self.finding(
                f"TP x CP = {job.tp * job.cp} GPUs is larger than the NVLink domain of "
                f"{instance.type} ({domain} GPUs): the context-parallel exchange of keys and "
                f"values crosses {link}; it overlaps with attention only while compute hides it.",
                evidence,
                severity=Severity.INFO,
            )


class ExpertAllToAllOutsideNvlink(Rule):
    id = "SC802"
    name = "ep-outside-nvlink"
    family = "layout"
    severity = Severity.WARNING
    title = "MoE expert all-to-all spans more GPUs than the NVLink domain"
    doc = RuleDoc(
        what="For an MoE model with expert parallelism, compares the GPUs an expert-parallel "
        "group spans (EP groups are strided by TP: TP x EP consecutive GPUs) with the NVLink "
        "domain of the instance type.",
        why="Every MoE layer sends each token to its experts and back with an all-to-all, twice "
        "in the forward pass and twice in the backward. The all-to-all is latency-bound and "
        "sensitive to topology: across EFA it stalls the step, while an UltraServer keeps up to "
        "72 GPUs on NVLink.",
        example="`stackcheck plan --params 400B --moe-experts 64 --top-k 2 --instance "
        "p5.48xlarge --nodes 16 --tp 1 --ep 64`: the all-to-all spans 8 instances over EFA.",
        fix="Keep TP x EP within the NVLink domain (EP <= 8 / TP on an 8-GPU instance), or use a "
        "P6e-GB200 UltraServer, whose NVLink domain spans up to 72 GPUs across instances.",
        references=(_MEGATRON,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        planned = _with_domain(ctx)
        if planned is None:
            return
        job, instance, domain = planned
        span = job.tp * job.ep
        if not job.experts or job.ep < 2 or span <= domain:
            return
        yield self.finding(
            f"EP {job.ep} with TP {job.tp} spans {span} GPUs, more than the NVLink domain of "
            f"{instance.type} ({domain} GPUs): every MoE layer's "
            f"all-to-all crosses {_link_beyond_nvlink(job, instance, span)}.",
            [_nvlink(instance), _counts(instance)],
        )


class LayoutGpuMismatch(Rule):
    id = "SC803"
    name = "layout-gpu-mismatch"
    family = "layout"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "DP x TP x PP (x CP) does not equal the job's GPUs"
    doc = RuleDoc(
        what="Multiplies the data-, tensor-, pipeline- and context-parallel sizes and compares "
        "the product with the GPUs of the job: nodes x GPUs per instance.",
        why="Megatron-LM and NeMo derive DP from the world size and refuse one that TP x PP x CP "
        "does not divide; a layout for more GPUs than the job has cannot start, and one for "
        "fewer leaves GPUs idle while they are paid for.",
        example="`--instance p5.48xlarge --nodes 2 --tp 8 --pp 2 --dp 2`: the layout needs 32 "
        "GPUs, two p5 instances have 16.",
        fix="Choose DP = GPUs / (TP x PP x CP), or the number of nodes that gives the layout "
        "exactly its GPUs.",
        references=(_MEGATRON,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        planned = _planned(ctx)
        if planned is None:
            return
        job, instance = planned
        if job.ranks == job.gpus:
            return
        cp = " x CP" if job.cp > 1 else ""
        blocked = job.ranks > job.gpus or job.gpus % (job.tp * job.pp * job.cp) != 0
        consequence = (
            "the job cannot start with this layout"
            if blocked
            else f"{job.gpus - job.ranks} GPUs would sit idle"
        )
        yield self.finding(
            f"DP x TP x PP{cp} = {job.ranks}, but {job.nodes} x {instance.type} have "
            f"{job.gpus} GPUs: {consequence}.",
            [_counts(instance)],
            severity=self.capped(instance.unsure) if blocked else Severity.WARNING,
        )


class PipelineStagesUneven(Rule):
    id = "SC804"
    name = "pp-uneven-layers"
    family = "layout"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "Pipeline stages do not divide the layers"
    doc = RuleDoc(
        what="Checks that the number of layers the user gave splits evenly into the pipeline "
        "stages.",
        why="With an uneven split one stage carries more layers; every micro-batch waits for "
        "it, so the slowest stage sets the step time, and it also holds the most activations. "
        "Megatron-LM asks for an explicit uneven split rather than guessing one. When the "
        "layers plus the embedding and the loss divide evenly, the split is even if those two "
        "count as stages' work (Megatron-DeepSpeed's `--pp-partition-method "
        "'type:transformer|embedding'`, as BLOOM-176B's 70 layers on 12 stages): an `info`.",
        example="`--layers 80 --pp 3`: stages of 27, 27 and 26 layers.",
        fix="Choose PP among the divisors of the layer count (for 80 layers: 2, 4, 5, 8, 10, "
        "16, 20, 40), or set the first and last stages' layer counts explicitly.",
        references=(_MEGATRON,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        job = ctx.job
        if job is None or job.layers is None or job.layers % job.pp == 0:
            return
        if (job.layers + 2) % job.pp == 0:
            yield self.finding(
                f"{job.layers} layers split into {job.pp} pipeline stages evenly only when the "
                "embedding and the loss count as a layer each on the first and last stage.",
                severity=Severity.INFO,
            )
            return
        widest = -(-job.layers // job.pp)
        yield self.finding(
            f"{job.layers} layers do not split into {job.pp} pipeline stages evenly: some "
            f"stages carry {widest} layers and set the pace for all."
        )


class TensorParallelHeads(Rule):
    id = "SC805"
    name = "tp-heads-indivisible"
    family = "layout"
    severity = Severity.ERROR
    title = "Tensor parallelism does not divide the attention heads"
    doc = RuleDoc(
        what="Checks that the tensor-parallel size divides the number of attention heads.",
        why="Tensor parallelism gives each GPU whole attention heads; Megatron-LM and NeMo assert "
        "that the heads divide by TP and stop at start-up, after the queue wait. `stackcheck "
        "plan` refuses such a layout as bad input (exit 2), since its memory per GPU is not "
        "defined.",
        example="`stackcheck plan --params 70B --heads 64 --tp 3`.",
        fix="Choose TP among the divisors of the head count (for 64 heads: 1, 2, 4, 8).",
        references=(_MEGATRON,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        job = ctx.job
        if job is None or job.heads is None or job.heads % job.tp == 0:
            return
        choices = ", ".join(str(t) for t in range(1, min(job.heads, 16) + 1) if job.heads % t == 0)
        yield self.finding(
            f"--tp {job.tp} does not divide the {job.heads} attention heads; choose TP among "
            f"{choices}."
        )


class ExpertParallelExperts(Rule):
    id = "SC806"
    name = "ep-indivisible"
    family = "layout"
    severity = Severity.ERROR
    title = "Expert parallelism does not divide the experts or the data-parallel ranks"
    doc = RuleDoc(
        what="For an MoE model, checks that EP divides the number of experts and DP x CP, the "
        "ranks expert parallelism is carved from.",
        why="Each expert-parallel rank holds experts / EP whole experts, and the expert-parallel "
        "groups are formed inside the data-parallel ranks; Megatron-LM asserts both at start-up.",
        example="`--moe-experts 8 --ep 3`, or `--ep 16` with DP 8.",
        fix="Choose EP among the common divisors of the expert count and DP x CP.",
        references=(_MEGATRON,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        job = ctx.job
        if job is None or not job.experts or job.ep == 1:
            return
        if job.experts % job.ep:
            yield self.finding(f"EP {job.ep} does not divide the {job.experts} experts.")
        if (job.dp * job.cp) % job.ep:
            yield self.finding(
                f"EP {job.ep} does not divide DP x CP = {job.dp * job.cp}, the ranks expert "
                "parallelism is carved from."
            )


class MultiNodeWithoutEfa(Rule):
    id = "SC807"
    name = "multinode-without-efa"
    family = "layout"
    severity = Severity.WARNING
    title = "A multi-node job on an instance type without EFA"
    doc = RuleDoc(
        what="Flags a job that spans several instances of a type the matrix lists without EFA "
        "interfaces, unless they share one NVLink domain (an UltraServer's).",
        why="Without EFA, NCCL's traffic between instances runs over TCP sockets on the ENA "
        "interface: a fraction of EFA's bandwidth and far more latency, so data-parallel "
        "gradient all-reduces dominate the step.",
        example="`--instance g5.xlarge --nodes 4`.",
        fix="Use an EFA-capable size of the family (g5.8xlarge and larger, g6.8xlarge and "
        "larger) or a P instance, and enable EFA at launch; or keep the job in one instance.",
        references=("https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa.html",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        planned = _planned(ctx)
        if planned is None:
            return
        job, instance = planned
        inside_nvlink = job.gpus <= (instance.nvlink_domain_gpus or 1)
        if job.nodes > 1 and instance.efa_interfaces == 0 and not inside_nvlink:
            yield self.finding(
                f"{job.nodes} x {instance.type} have no EFA: NCCL between them will use TCP "
                "sockets.",
                [_counts(instance)],
            )
