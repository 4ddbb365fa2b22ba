"""Family ``nvlink``: NVLink links down, or fewer than the GPU model has on an NVLink machine.

NCCL routes intra-node traffic over NVLink; with a link down it still runs, over the links left
(or over PCIe), and every collective on the node is slower.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import gpu_label

DCGM_EXPECTED = (
    "aws-samples/awsome-distributed-training@ea22b7f6b69ae5ce598cf270734ec065aa916c3e:"
    "1.architectures/efa-cheatsheet.md (dcgmi diag -p pcie.gpu_nvlinks_expected_up: 12 on "
    "p4de, 18 on p5/p5en/p6)"
)


def _pcie_only(ctx: CheckContext) -> bool:
    """Whether GPUs are shown and the matrix knows each for a PCIe-only model (an L4, a T4):
    they have no NVLink that a report could find down."""
    links = [ctx.matrix.gpu_link(gpu.name) for gpu in ctx.gpus]
    return bool(links) and all(link is not None and link.nvlink_links is None for link in links)


class NvlinkDown(Rule):
    id = "SC1105"
    name = "nvlink-down"
    family = "nvlink"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "NVLink links are down"
    doc = RuleDoc(
        what="Reads each GPU's NVLink link states (NVML `nvmlDeviceGetNvLinkState`, `nvidia-smi "
        "nvlink -s`) and reports links that are inactive, or fewer active links than the GPU "
        "model has (the matrix's `gpu_link`: 12 for A100 SXM4, 18 for H100/H200 SXM) on an "
        "instance type whose GPUs share an NVLink domain, or where NVSwitches are on the bus; "
        "and NCCL's `P2P is disabled between NVLINK connected GPUs` (CUDA refuses peer access "
        "over a link NCCL found), an error: NCCL stops there; and a report's sentence saying an "
        "NVLink is down or unused (a warning; not where every GPU shown is a model the matrix "
        "knows for PCIe only, an L4 or a T4, which has no NVLink).",
        why="Each H100 link carries 50 GB/s of the GPU's 900 GB/s; a GPU with links down talks "
        "to its peers at a fraction of that, and NCCL's rings and trees through it slow the "
        "whole node's collectives. Nothing fails.",
        example="`nvidia-smi nvlink -s` on a p5 shows `Link 7: <inactive>` for GPU 2.",
        fix="Reset the GPUs or reboot; run `dcgmi diag -r 2 -p "
        "pcie.gpu_nvlinks_expected_up=18`. If links stay down, drain the node for service.",
        references=(DCGM_EXPECTED,),
    )

    def _expected(self, ctx: CheckContext, name: str | None) -> int | None:
        snapshot = ctx.snapshot
        instance = ctx.matrix.instance(snapshot.instance.type)
        nvswitches = bool(snapshot.runtime.nvswitch_count) or any(
            d.kind == "nvswitch" for d in snapshot.hardware.devices
        )
        if not nvswitches and (instance is None or (instance.nvlink_domain_gpus or 1) < 2):
            return None
        link = ctx.matrix.gpu_link(name)
        return None if link is None else link.nvlink_links

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for said in ctx.snapshot.observations("nvlink-down-stated")[:1]:
            if _pcie_only(ctx):
                break  # "not using NVLink but PCIe" is what such GPUs do: no link to be down
            yield self.finding(
                f"The report says {said.value}: that GPU's peers are reached at a fraction of "
                "the bandwidth, and NCCL releases before 2.12.7 could corrupt data with LL128 "
                "over a partly-down NVLink set.",
                [said.evidence],
                severity=Severity.WARNING,
            )
        for broken in ctx.snapshot.observations("nvlink-p2p-broken"):
            yield self.finding(
                f"NCCL found NVLink between {broken.value} but CUDA gives no peer-to-peer access "
                "over it: a link or a GPU is faulty, and NCCL stops there.",
                [broken.evidence],
                severity=Severity.ERROR,
            )
        for gpu in ctx.snapshot.hardware.gpus:
            if not gpu.nvlinks:
                continue
            down = [link.link for link in gpu.nvlinks if not link.active]
            active = len(gpu.nvlinks) - len(down)
            expected = self._expected(ctx, gpu.name)
            evidence = [
                e
                for link in gpu.nvlinks
                if not link.active and link.evidence
                for e in [link.evidence]
            ]
            if down:
                yield self.finding(
                    f"{gpu_label(gpu)}: NVLink link{'s' if len(down) > 1 else ''} "
                    f"{', '.join(map(str, down))} down; {active} of {len(gpu.nvlinks)} active.",
                    [*evidence[:2], *gpu.evidence[:1]],
                    severity=Severity.WARNING,
                )
            elif expected is not None and active < expected:
                yield self.finding(
                    f"{gpu_label(gpu)}: {active} NVLink links active, the model has {expected}.",
                    gpu.evidence[:1],
                    severity=Severity.WARNING,
                )
