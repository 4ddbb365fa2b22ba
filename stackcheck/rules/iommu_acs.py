"""Family ``iommu-acs``: PCIe ACS redirection and IOMMU translation on the GPU-NIC path of a
bare-metal host. Both send peer-to-peer traffic up to the root complex, so GPUDirect P2P and
RDMA fall back to slower paths or hang."""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.hardware_facts import device_label
from stackcheck.snapshot.model import Evidence, Observation

NCCL_ACS = (
    "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html "
    "(PCI Access Control Services: ACS must be disabled on bare metal for GPU Direct; IOMMU "
    "in passthrough)"
)
NCCL_ISSUES = "NVIDIA/nccl#631 and #304 (P2P hangs and low bandwidth with ACS enabled)"
NCCL_IB_ERROR_4 = (
    "https://github.com/NVIDIA/nccl/issues/928 (sjeaugey, 2023-07-31: 'IB error 4 is usually due "
    "to ACS being enabled and breaking GPU Direct RDMA protocol')"
)


def _bare_metal_gpus(ctx: CheckContext) -> bool:
    hardware = ctx.snapshot.hardware
    return hardware.bare_metal is True and any(d.kind == "gpu" for d in hardware.devices)


class AcsRedirect(Rule):
    id = "SC1125"
    name = "acs-redirect"
    family = "iommu-acs"
    severity = Severity.WARNING
    lowest = Severity.INFO
    title = "PCIe ACS redirects peer-to-peer traffic above a GPU or NIC"
    doc = RuleDoc(
        what="On a bare-metal host, reads the ACS Control register of every bridge above the "
        "GPUs and EFA devices (the ACS extended capability in `/sys/bus/pci/devices/*/config`, "
        "readable by root, or `ACSCtl:` of the bridges in a pasted `lspci -vv`) and reports "
        "bridges with P2P Request or Completion Redirect set. Where whether the host is bare "
        "metal is not known (a pasted `lspci -vv`), it is reported as info. Also reads NCCL's "
        "InfiniBand completion error 4 (`IBV_WC_LOC_PROT_ERR`), which NCCL's maintainers trace "
        "to ACS in most cases (NVIDIA/nccl#928), and a report's sentence that says ACS was "
        "enabled or that disabling it fixed the problem. CUDA's `peer access is not supported "
        "between these two devices` (error 217) is an info: many GPU pairs have no P2P by "
        "design.",
        why="With redirection on, every peer-to-peer transfer between GPUs, or between a GPU "
        "and its NIC, goes up to the root complex and back instead of across the PCIe switch: "
        "NCCL's P2P and GPUDirect RDMA bandwidth drop sharply, or transfers hang; people then "
        "set NCCL_P2P_DISABLE=1 and lose more. In a VM the guest's ACS bits are the "
        "hypervisor's business, so the rule stays silent there.",
        example="A bare-metal 8-GPU server whose PCIe switch ports read `ACSCtl: ... ReqRedir+ "
        "CmpltRedir+` in `lspci -vv`.",
        fix="Disable ACS in the BIOS, or clear it at boot: `setpci -s BRIDGE ECAP_ACS+6.w=0000` "
        "for each bridge (NCCL's troubleshooting guide has a script).",
        references=(NCCL_ACS, NCCL_ISSUES, NCCL_IB_ERROR_4),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        stated = _stated(ctx, "ACS")
        if stated:
            yield self.finding(
                "The report says PCIe ACS was on along the GPUs' path, or that turning it off "
                f"fixed the problem ({stated[0].value}): peer-to-peer traffic then goes up to the "
                "root complex, and NCCL's P2P and GPUDirect RDMA slow down or hang.",
                [o.evidence for o in stated[:2]],
            )
        for error in ctx.snapshot.observations("ib-local-protection-error")[:1]:
            yield self.finding(
                "The InfiniBand NIC got a local protection error (completion error 4) on NCCL's "
                "buffers: in most cases PCIe ACS on the GPU-NIC path breaking GPUDirect RDMA. "
                "NCCL_NET_GDR_LEVEL=0 confirms it (the error goes, and bandwidth with it).",
                [error.evidence],
            )
        for unsupported in ctx.snapshot.observations("p2p-unsupported")[:1]:
            # A pair without NVLink or PCIe P2P by design (GeForce cards, cloud GPUs such as
            # g6's L4s) says the same as ACS blocking it: advice, not a fault.
            yield self.finding(
                "CUDA says two GPUs cannot reach each other peer-to-peer (error 217): the pair "
                "has no NVLink and no PCIe P2P, by design (GeForce cards, cloud instances such "
                "as g6) or because ACS or the IOMMU blocks it on a bare-metal server. Run without "
                "P2P there (NCCL falls back by itself); on a server that should have it, check "
                "ACS.",
                [unsupported.evidence],
                severity=Severity.INFO,
            )
        hardware = ctx.snapshot.hardware
        if hardware.bare_metal is False or not any(d.kind == "gpu" for d in hardware.devices):
            return
        # A paste does not say whether it came from a VM, where the bits are the hypervisor's.
        unknown = hardware.bare_metal is None
        for device in hardware.devices:
            if device.kind in ("gpu", "efa") and device.acs_redirect:
                yield self.finding(
                    f"{device_label(device)}: ACS redirects peer-to-peer traffic at "
                    f"{', '.join(device.acs_redirect)}"
                    + (
                        " (if this host is bare metal; in a VM it is the hypervisor's)."
                        if unknown
                        else "."
                    ),
                    [*device.evidence[:1], *(e for e in device.evidence if _is_acs(e))],
                    severity=Severity.INFO if unknown else Severity.WARNING,
                )


def _stated(ctx: CheckContext, what: str) -> list[Observation]:
    """What the report's sentences say about ``what`` (ACS or the IOMMU) on the hardware path."""
    return [
        o
        for o in ctx.snapshot.observations("iommu-acs-stated")
        if (o.value or "").startswith(f"{what}:")
    ]


def _is_acs(evidence: Evidence) -> bool:
    """An ``ACSCtl:`` line a pasted ``lspci -vv`` gave as evidence."""
    return (evidence.detail or "").startswith("ACSCtl:")


class IommuTranslated(Rule):
    id = "SC1126"
    name = "iommu-translated"
    family = "iommu-acs"
    severity = Severity.WARNING
    title = "The IOMMU translates GPU DMA on a bare-metal host"
    doc = RuleDoc(
        what="On a bare-metal host with GPUs, reads the IOMMU group type of the GPUs "
        "(`/sys/kernel/iommu_groups/N/type`): `DMA` or `DMA-FQ` means translated, `identity` "
        "means passthrough; a report's sentence that says turning the IOMMU off "
        "(`intel_iommu=off`, `iommu=pt`) fixed the problem, or a BIOS setting turning it off "
        "(`IOMMU=Disable`) after which a run succeeded without NCCL_P2P_DISABLE=1; and the AMD "
        "IOMMU's "
        "`IO_PAGE_FAULT` for a device of the nvidia or mlx5_core driver.",
        why="With translation on, peer-to-peer DMA between GPUs and NICs is remapped by the "
        "IOMMU (and with ACS, routed through the root complex): GPUDirect RDMA and P2P slow "
        "down or fail. NCCL's guide asks for the IOMMU off or in passthrough on bare metal.",
        example="A bare-metal host booted without `iommu=pt` whose GPU groups read `DMA-FQ`.",
        fix="Boot with `iommu=pt` (and `intel_iommu=on` or `amd_iommu=on` where needed), or "
        "disable the IOMMU in the BIOS if nothing else needs it.",
        references=(NCCL_ACS,),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        stated = _stated(ctx, "IOMMU")
        faults = [o for o in stated if "IO_PAGE_FAULT" in (o.value or "")]
        if faults:
            yield self.finding(
                f"The IOMMU refused the device's DMA ({(faults[0].value or '')[7:]}): with "
                "translation on, peer-to-peer and GPUDirect RDMA transfers fault and hang.",
                [o.evidence for o in faults[:2]],
            )
            return
        if stated:
            yield self.finding(
                f"The report says turning the IOMMU off fixed the problem ({stated[0].value}): "
                "with translation on, the GPUs' peer-to-peer DMA was remapped and P2P hung or "
                "slowed down.",
                [o.evidence for o in stated[:2]],
            )
            return
        off = ctx.snapshot.observations("iommu-off-set")
        restored = ctx.snapshot.observations("p2p-restored-stated")
        if off and restored:
            yield self.finding(
                f"The report turned the IOMMU off ({off[0].value}) and then ran without "
                f"{restored[0].value}: with translation on, the GPUs' peer-to-peer DMA was "
                "remapped and P2P hung or failed.",
                [off[0].evidence, restored[0].evidence],
            )
            return
        hardware = ctx.snapshot.hardware
        if _bare_metal_gpus(ctx) and hardware.iommu == "translated":
            said = [e for e in hardware.evidence if "iommu" in e.source]
            yield self.finding(
                "The IOMMU translates the GPUs' DMA on this bare-metal host.", said[:2]
            )
