"""The EC2 instance type: DMI first (Nitro instances put it in product_name), then IMDSv2; and
whether the root is a Deep Learning AMI (DLAMIs keep /opt/dlami, e.g. /opt/dlami/nvme)."""

from __future__ import annotations

from stackcheck.probes.base import Probe
from stackcheck.probes.context import ProbeContext
from stackcheck.probes.sysfs import DMI, DMI_PRODUCT
from stackcheck.snapshot.model import Evidence, Snapshot

DLAMI_TRACE = "/opt/dlami"


class InstanceProbe(Probe):
    name = "instance"  # reads DMI through the context, which keeps its files from an image

    def run(self, ctx: ProbeContext, snapshot: Snapshot) -> None:
        instance = snapshot.instance
        if ctx.view.is_dir(DLAMI_TRACE):
            instance.ami = "AWS Deep Learning AMI"
            instance.evidence.append(ctx.file_evidence(DLAMI_TRACE, "present on DLAMIs"))
        vendor, product = ctx.dmi.vendor, ctx.dmi.product
        on_ec2 = "amazon" in vendor.lower()
        if on_ec2 and "." in product:
            instance.type = product
            instance.evidence.append(Evidence(kind="dmi", source=DMI_PRODUCT, detail=product))
            return
        if on_ec2 and ctx.live is not None:
            if not ctx.live.allow_network:
                instance.unknown = "DMI names no instance type and --no-network forbids IMDS"
                return
            found = ctx.live.instance_type()
            if found:
                instance.type = found
                instance.evidence.append(
                    Evidence(kind="imds", source="/latest/meta-data/instance-type", detail=found)
                )
                return
            instance.unknown = "DMI names no instance type and IMDS did not answer within 1 s"
            return
        instance.unknown = (
            f"not an EC2 instance (DMI sys_vendor {vendor!r})"
            if vendor
            else f"no DMI data at {DMI}"
        )
