"""Family ``efa-devices``: does the process that runs NCCL see the EFA devices?

The EFA provider of libfabric opens ``/dev/infiniband/uverbs*``. A container that is not given
them (``docker run`` without ``--device``, a pod without a ``vpc.amazonaws.com/efa`` request)
sees no EFA; ``fi_info -p efa`` then fails with ``-61`` and aws-ofi-nccl falls back to TCP.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import (
    efa_expected,
    efa_hardware,
    efa_invisible,
    passes_efa,
    spec_evidence,
)


class EfaNotVisible(Rule):
    id = "SC411"
    name = "efa-not-visible"
    family = "efa-devices"
    severity = Severity.ERROR
    lowest = Severity.INFO  # the EFA device plugin finding none on a node that may have none
    title = "EFA devices are not visible to the process"
    doc = RuleDoc(
        what="Looks for signs that libfabric found no EFA device: `fi_info -p efa` failing with "
        "`-61 (No data available)`, aws-ofi-nccl's `No eligible providers were found` or "
        "`Couldn't find any optimal provider`, a current aws-ofi-nccl settling for the `tcp` "
        "provider, an EFA instance whose /dev/infiniband/uverbs* nodes are missing, or a sentence "
        "saying the EFA kernel driver (efa.ko) is not there; and Kubernetes having no "
        "`vpc.amazonaws.com/efa` to give (`Insufficient vpc.amazonaws.com/efa`, a node said not "
        "to advertise it), a warning. The EFA device plugin's `No valid "
        "EFA devices found` is advice unless the machine is shown to have EFA (the DaemonSet "
        "also lands on nodes without it).",
        why="Without the devices, aws-ofi-nccl cannot use EFA: NCCL either fails to start or "
        "quietly runs its traffic over TCP sockets at a fraction of the bandwidth.",
        example="A container on a p4d.24xlarge started without `--device /dev/infiniband/uverbs0` "
        "(aws/aws-ofi-nccl#879): `fi_info -p efa` works on the host and fails inside.",
        fix="Pass the devices into the container: `docker run --device /dev/infiniband/uverbs0 "
        "...` (one per EFA interface), or on Kubernetes request `vpc.amazonaws.com/efa` in the "
        "container's resources (the EFA device plugin mounts them). Check with `fi_info -p efa` "
        "inside the container.",
        references=("https://github.com/aws/aws-ofi-nccl/issues/879",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        invisible = efa_invisible(ctx)
        hardware = efa_hardware(ctx)
        expected = hardware or efa_expected(ctx)
        plugin = ctx.snapshot.observations("efa-plugin-no-devices")
        if plugin and not invisible:
            # The device plugin runs as a DaemonSet wherever its node selector lets it: on a
            # node without EFA its crash loop is a scheduling matter (sagemaker-hyperpod-cli#367).
            yield self.finding(
                "The EFA device plugin found no EFA device on its node"
                + (
                    ", although this machine has EFA: the efa driver is not loaded, or the "
                    "plugin lacks its /dev/infiniband and /sys mounts."
                    if hardware
                    else ": if the node has EFA, load the efa driver and give the plugin "
                    "/dev/infiniband and /sys; if not, keep the plugin off such nodes."
                ),
                [plugin[0].evidence, *hardware[:1]],
                severity=self.severity if hardware else Severity.INFO,
            )
        unadvertised = ctx.snapshot.observations("efa-resource-missing")
        if unadvertised and not (invisible or plugin):
            # A pod asked for EFA and no node offers it: the device plugin is kept off the
            # node (its chart's affinity, a node selector, a taint) or found no device there.
            yield self.finding(
                "Kubernetes has no vpc.amazonaws.com/efa to give the pod "
                f"({(unadvertised[0].value or '')[:100]}): the EFA device plugin does not run on "
                "the node (its DaemonSet's affinity, node selector or tolerations leave it out) "
                "or found no EFA device there, so pods get no EFA devices.",
                [unadvertised[0].evidence, *hardware[:1]],
                severity=Severity.WARNING,
            )
        if not invisible:
            return
        yield self.finding(
            "libfabric found no EFA device here"
            + (", although this machine has EFA" if hardware else "")
            + ": NCCL cannot use EFA from this process.",
            [*invisible, *expected[:2]],
            severity=self.severity if expected else Severity.WARNING,
        )


class EfaDevicesNotPassed(Rule):
    id = "SC412"
    name = "efa-devices-not-passed"
    family = "efa-devices"
    severity = Severity.ERROR
    title = "The container spec does not pass the EFA devices"
    doc = RuleDoc(
        what="Where EFA is meant to be used (an instance type with EFA, `FI_PROVIDER=efa`, an EFA "
        "installer or aws-ofi-nccl in the stack), checks each container spec: a `docker run` or "
        "compose service needs `--device /dev/infiniband/uverbs*` (or the directory mounted, or "
        "`--privileged`); a Kubernetes container needs a `vpc.amazonaws.com/efa` resource.",
        why="Nothing fails at start: the job runs, libfabric finds no EFA provider and NCCL uses "
        "TCP sockets, several times slower across nodes (skypilot-org/skypilot#10055).",
        example='A pod on p5.48xlarge whose limits are `{"nvidia.com/gpu": "8"}` only.',
        fix="Request the EFA devices: `resources.limits: vpc.amazonaws.com/efa: <interfaces>` on "
        "Kubernetes (32 on p5.48xlarge, 4 on p4d.24xlarge), or `--device "
        "/dev/infiniband/uverbs<N>` for each interface with docker.",
        references=("https://github.com/skypilot-org/skypilot/issues/10055",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        expected = efa_expected(ctx)
        if not expected:
            return
        for spec in ctx.snapshot.run_specs:
            if passes_efa(spec) is False:
                what = (
                    "requests no vpc.amazonaws.com/efa"
                    if spec.kind in ("kubernetes", "hyperpod-job")
                    else "passes no /dev/infiniband device"
                )
                yield self.finding(
                    f"The {spec.kind} spec{f' {spec.name}' if spec.name else ''} {what}, but EFA "
                    "is meant to be used: the container will see no EFA device.",
                    [*spec_evidence(spec, "run", "limits", "resources", "gpu")[:2], *expected[:2]],
                )
