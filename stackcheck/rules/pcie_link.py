"""Family ``pcie-link``: GPU, NVSwitch and EFA links that trained below what they can do.

A GPU or NIC whose PCIe link came up at x8, or at Gen4 on a Gen5 slot, moves host and GPUDirect
RDMA traffic at half the rate, and nothing fails: the kernel notes it once at boot and training
is simply slower on that node.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.parsers.hardware import GEN_SPEED
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import (
    DATA_PATH,
    capability,
    degraded,
    device_label,
    gpu_label,
    link_text,
    serves,
)

LIMITED_BY = (
    "stas00/ml-engineering@62d4359e484937e002469057f809c4149f02734d:compute/accelerator/nvidia/"
    "debug.md (H100s whose Gen4 PCIe switch halves their 504 Gb/s Gen5 x16 link: the kernel's "
    "'limited by 16.0 GT/s PCIe x16 link' line)"
)


class PcieLinkDegraded(Rule):
    id = "SC1101"
    name = "pcie-link-degraded"
    family = "pcie-link"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "A GPU or NIC PCIe link runs below its capability"
    doc = RuleDoc(
        what="Compares each GPU's and EFA device's PCIe link (sysfs "
        "`current_link_speed`/`current_link_width`, NVML, `nvidia-smi -q` GPU Link Info or "
        "`lspci -vv` LnkSta) with what the link can do: the lower of the device's own maximum "
        "and the maximum of the port above it. A GPU at 2.5 GT/s is left alone: NVIDIA GPUs "
        "drop to Gen1 when idle and return to full speed under load. NVSwitch links are read "
        "but not judged: they carry management traffic only. A `LnkSta:` line pasted without "
        "its device is taken at lspci's word (`(downgraded)`): a warning, an info where only "
        "the speed is downgraded and it is 2.5 GT/s, unless the report says the link is "
        "downgraded (`bandwidth is downgraded`, `runs at x8 instead of x16`: a warning, also "
        "alone).",
        why="A link that trained at x8 instead of x16, or Gen4 instead of Gen5, halves the "
        "bandwidth between the GPU and the host and between the GPU and its EFA devices "
        "(GPUDirect RDMA crosses the PCIe switch): a Gen5 x16 link carries about 63 GB/s each "
        "way, x8 or Gen4 about 32. Data loading, checkpointing and inter-node collectives slow "
        "down on that node, and the whole job runs at its pace. Nothing fails; a reseat or "
        "reboot usually restores it, a link that keeps training low is a hardware fault.",
        example="A p5.48xlarge whose GPU 3 reads `16.0 GT/s PCIe` and width `8` against a "
        "maximum of `32.0 GT/s PCIe` x16.",
        fix="Reboot the node (or reset the GPU: `nvidia-smi -r -i N`) and look again with "
        "`nvidia-smi -q -d PCI` under load; if the link stays low, drain the node and have it "
        "serviced (on EC2, stop and start the instance to move to other hardware).",
        references=(LIMITED_BY,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        hardware = ctx.snapshot.hardware
        seen: set[str] = set()
        for device in hardware.devices:
            if device.kind not in DATA_PATH or not degraded(device.link, device.kind == "gpu"):
                continue
            seen.add(device.address)
            speed, width = capability(device.link)
            yield self.finding(
                f"{device_label(device)}: PCIe link at "
                f"{link_text(device.link.speed_gts, device.link.width)}, capable of "
                f"{link_text(speed, width)}{serves(hardware, device)}.",
                device.evidence[:2],
            )
        for gpu in hardware.gpus:
            if gpu.pcie is None or gpu.bus_id in seen or not degraded(gpu.pcie, True):
                continue
            speed, width = capability(gpu.pcie)
            yield self.finding(
                f"{gpu_label(gpu)}: PCIe link at {link_text(gpu.pcie.speed_gts, gpu.pcie.width)}"
                f", capable of {link_text(speed, width)}.",
                gpu.evidence[:2],
            )
        if not hardware.devices and not any(g.pcie for g in hardware.gpus):
            yield from self._lnksta_alone(ctx)

    def _lnksta_alone(self, ctx: CheckContext) -> Iterable[Finding]:
        """lspci's own verdict on a LnkSta line pasted without its device (janhq/jan#183): a
        width below the capability, or a speed downgraded above Gen1, trained low; a speed at
        2.5 GT/s is where an idle GPU rests, so it is advice until read under load, or until
        the report says the link is downgraded (a riser, a slot). A sentence alone that says so
        is a warning too."""
        stated = ctx.snapshot.observations("pcie-downgrade-stated")
        shown = ctx.snapshot.observations("pcie-link-downgraded")
        if stated and not shown:
            yield self.finding(
                f"The report says a PCIe link runs below its capability ({stated[0].value}): "
                "check its LnkSta under load (`lspci -vv`, `nvidia-smi -q` Link Width and PCIe "
                "Generation); a riser, a slot or a BIOS lane setting is the usual cause.",
                [stated[0].evidence],
            )
        for said in shown[:1]:
            value = said.value or ""
            idle = (
                value.startswith("Speed 2.5GT/s")
                and "x16 (downgraded)" not in value
                and ("Width" not in value or "(downgraded)" not in value.split("Width", 1)[1])
            )
            yield self.finding(
                f"lspci marks a PCIe link as downgraded ({value}), its device not shown"
                + (
                    ": at 2.5 GT/s, where an idle GPU rests. Read it again under load."
                    if idle and not stated
                    else ": it trained below what it can do"
                    + (f", as the report says ({stated[0].value})." if stated else ".")
                ),
                [said.evidence, *(o.evidence for o in stated[:1])],
                severity=Severity.INFO if idle and not stated else Severity.WARNING,
            )


class PcieLinkLimited(Rule):
    id = "SC1102"
    name = "pcie-link-limited"
    family = "pcie-link"
    severity = Severity.INFO
    title = "A GPU's PCIe link is limited by the slot or switch above it"
    doc = RuleDoc(
        what="Compares the most a GPU's link can train at (the lower of its own and its port's "
        "maximum) with the PCIe generation and width the GPU model has (the matrix's "
        "`gpu_link` table, from NVIDIA's datasheets).",
        why="An H100 (Gen5 x16) behind a Gen4 switch or slot gets half of its host bandwidth "
        "for as long as it sits there: the link is healthy, the platform is slower. It matters "
        "for data loading, offloading and GPUDirect RDMA through that switch.",
        example="An 8x H100 server whose PCIe switches are Gen4: `max_link_speed` of the port "
        "above each GPU reads `16.0 GT/s PCIe`.",
        fix="Nothing to repair on this node; expect host-bound work to be slower, or place the "
        "GPUs in Gen5 slots.",
        references=(LIMITED_BY,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for device in ctx.snapshot.hardware.devices:
            if device.kind != "gpu":
                continue
            expected = ctx.matrix.gpu_link(device.name)
            speed, width = capability(device.link)
            if expected is None or speed is None:
                continue
            wanted = GEN_SPEED[expected.pcie_gen]
            if speed < wanted or (width is not None and width < expected.pcie_width):
                yield self.finding(
                    f"{device_label(device)} can train at {link_text(speed, width)} where "
                    f"the slot or switch above it allows, but the {expected.gpu} has "
                    f"{link_text(wanted, expected.pcie_width)}.",
                    device.evidence[:1],
                    severity=self.capped(expected.unsure),
                )
