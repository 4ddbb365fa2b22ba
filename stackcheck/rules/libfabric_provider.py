"""Family ``libfabric`` (the provider slice): which libfabric provider carries NCCL's traffic,
and the libfabric failures that logs show. Version compatibility from the matrix is elsewhere."""

from __future__ import annotations

import re
from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import component_versions, efa_expected
from stackcheck.snapshot.model import ComponentName


class LibfabricNotEfaProvider(Rule):
    id = "SC421"
    name = "libfabric-not-efa-provider"
    family = "libfabric"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "aws-ofi-nccl runs over a libfabric provider other than EFA"
    doc = RuleDoc(
        what="Reads the provider aws-ofi-nccl selected (`NET/OFI Selected Provider is tcp`), "
        "`FI_PROVIDER` where EFA is meant to be used, and the EFA provider's own warning that it "
        "dropped its device list because one verbs device failed to open "
        "(`efa_device_construct_gid failed for device_idx 0, err=-2`; ofiwg/libfabric#12708), or "
        "crashed doing so (a backtrace through efa_device_destruct; ofiwg/libfabric#7805).",
        why="The `tcp` (or `sockets`) provider moves NCCL's traffic over TCP: no OS bypass, no "
        "GPUDirect RDMA, a fraction of EFA's bandwidth, and no error (aws/aws-ofi-nccl#803).",
        example="`NET/OFI Selected Provider is tcp (found 1 nics)` in a container on p4d.24xlarge.",
        fix="Make the EFA provider available (pass /dev/infiniband/uverbs* into the container, "
        "load the efa kernel module, use the EFA installer's libfabric on the loader path) and "
        "do not set FI_PROVIDER to anything but `efa`.",
        references=("https://github.com/aws/aws-ofi-nccl/issues/803",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        expected = efa_expected(ctx)
        for aborted in ctx.snapshot.observations("efa-device-list-aborted")[:1]:
            if "crashed" in (aborted.value or ""):
                yield self.finding(
                    f"libfabric's EFA provider crashed while listing the verbs devices "
                    f"({aborted.value}): every libfabric program (fi_info, the OFI plugin) aborts "
                    "at start here. A verbs device that is not EFA (mlx5) in the list was enough "
                    "in ofiwg/libfabric#7805; upgrade libfabric.",
                    [aborted.evidence],
                )
                continue
            yield self.finding(
                f"libfabric's EFA provider dropped every device because one verbs device could "
                f"not be opened ({aborted.value}): no EFA provider, although EFA devices may be "
                "there. Another RDMA device the process cannot open (a ConnectX NIC outside a "
                "container's device list) is enough.",
                [aborted.evidence],
            )
        for provider in ctx.snapshot.observations("libfabric-provider"):
            if (provider.value or "").startswith("efa"):
                continue
            yield self.finding(
                f"aws-ofi-nccl selected the libfabric provider {provider.value!r}, not efa: "
                "inter-node traffic goes over TCP.",
                [provider.evidence, *expected[:1]],
            )
        forced = ctx.snapshot.env.get("FI_PROVIDER")
        if forced is not None and forced.value.lower() not in ("efa", "") and expected:
            yield self.finding(
                f"FI_PROVIDER={forced.value} keeps libfabric off the EFA provider where EFA is "
                "meant to be used.",
                [forced.evidence, *expected[:1]],
                severity=Severity.WARNING,
            )


_LIBEFA_FIX = (
    "Install the rdma-core that the EFA installer ships with this libfabric: run the installer "
    "in the image's final stage (it upgrades rdma-core system-wide), not in a stage whose "
    "/opt/amazon alone is copied."
)


class LibfabricTooOldObserved(Rule):
    id = "SC422"
    name = "libfabric-symbol-missing"
    family = "libfabric"
    severity = Severity.ERROR
    title = "The libfabric loaded lacks symbols a library needs"
    doc = RuleDoc(
        what="Reads loader errors such as `libfabric.so.1: version 'FABRIC_1.7' not found "
        "(required by libnccl-net.so)`, and `version 'EFA_1.4' not found (required by "
        "libfabric.so.1)`: a libfabric newer than the rdma-core (libefa) beside it.",
        why="The library (usually the aws-ofi-nccl plugin) was built against a newer libfabric "
        "than the one the loader finds, so it cannot load: NCCL falls back to its own transport.",
        example="aws-ofi-nccl 1.9.0 from conda on a host whose /opt/amazon/efa libfabric is older "
        "than 1.18 (awslabs/awsome-distributed-ai#292).",
        fix="Put a libfabric at least as new as the plugin requires first on the loader path "
        "(upgrade the EFA installer), or install the plugin build that matches the libfabric "
        "you have.",
        references=("https://github.com/awslabs/awsome-distributed-ai/issues/292",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for missing in ctx.snapshot.observations("libfabric-symbol-missing"):
            have = component_versions(ctx, "libfabric")
            shown = f" (libfabric {have[0][0]} in use)" if have else ""
            # EFA_x.y versions are libefa's (rdma-core), which libfabric itself needs.
            libefa = (missing.value or "").startswith("EFA_")
            said = (
                f"libefa (rdma-core) lacks symbol version {missing.value} that libfabric{shown} "
                "needs: libfabric, and the plugin above it, cannot load."
                if libefa
                else f"libfabric lacks symbol version {missing.value}{shown}: the library that "
                "needs it cannot load."
            )
            yield self.finding(
                said,
                [missing.evidence, *(e for _, evidence in have[:1] for e in evidence)],
                fix=_LIBEFA_FIX if libefa else None,
            )


class EfaCudaMemoryRegistration(Rule):
    id = "SC423"
    name = "efa-cuda-memory-registration"
    family = "libfabric"
    severity = Severity.ERROR
    title = "aws-ofi-nccl cannot register CUDA memory with libfabric"
    doc = RuleDoc(
        what="Reads `NET/OFI Unable to register memory (type = 2)` from NCCL logs.",
        why="Type 2 is CUDA memory. NCCL 2.19 and later register CUDA buffers in a way that the "
        "libfabric of EFA installers before 1.29 rejects; collectives fail at start "
        "(aws/aws-ofi-nccl#584).",
        example="NCCL 2.19.3 from a PyTorch 2.2 wheel with EFA installer 1.26 (libfabric 1.18).",
        fix="Upgrade the EFA installer to 1.29 or later; or set FI_EFA_SET_CUDA_SYNC_MEMOPS=0; "
        "or keep NCCL at 2.18.",
        references=("https://github.com/aws/aws-ofi-nccl/issues/584",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        failures = ctx.snapshot.observations("ofi-memory-registration-failed")
        if not failures:
            return
        have = component_versions(ctx, "libfabric")
        shown = f" with libfabric {have[0][0]}" if have else ""
        yield self.finding(
            f"aws-ofi-nccl could not register CUDA memory{shown}: a libfabric older than NCCL "
            ">= 2.19 expects.",
            [failures[0].evidence, *(e for _, evidence in have[:1] for e in evidence)],
        )


class LibfabricGetinfoFailed(Rule):
    id = "SC1410"
    name = "libfabric-getinfo-failed"
    family = "libfabric"
    severity = Severity.WARNING
    title = "libfabric's fi_getinfo failed"
    doc = RuleDoc(
        what="Reads fi_getinfo failing as fabtests and fi_info print it (`fi_getinfo(): 173, "
        "-19 (No such device)`, `fi_getinfo(): common/shared.c:1153, ret=-19 (...)`, "
        "`fi_getinfo: -19 (...)`) and as MPICH and Mercury report it (`OFI fi_getinfo() "
        "failure`, `fi_getinfo failed, rc: -61(...)`), and names libibverbs' warnings that a "
        "device has no "
        "userspace provider (`no userspace device-specific driver found for .../uverbs0`, "
        "`couldn't load driver '...'`) where they stand beside it.",
        why="fi_getinfo is the first call of every libfabric program: when it fails nothing "
        "opens a fabric. One provider failing its own discovery was enough in libfabric 1.x "
        "(the verbs provider's -ENODEV for usNIC devices that libibverbs had no provider for "
        "made the whole call fail, although the usnic provider worked; ofiwg/libfabric#975).",
        example="`libibverbs: Warning: no userspace device-specific driver found for "
        "/sys/class/infiniband_verbs/uverbs2` then `fi_getinfo(): 173, -19 (No such device)`.",
        fix="Run `fi_info -p <provider>` for the provider meant to be used; install the "
        "libibverbs provider of the NIC (rdma-core's libmlx5, libefa) or exclude the failing "
        "provider (`FI_PROVIDER=^verbs`, or the one wanted); upgrade libfabric where one "
        "provider's failure stops the others.",
        references=("https://github.com/ofiwg/libfabric/issues/975",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        failed = ctx.snapshot.observations("libfabric-getinfo-failed")
        if not failed:
            return
        verbs = ctx.snapshot.observations("verbs-provider-missing")
        cause = (
            f"; libibverbs has no userspace provider for {verbs[0].value}, so the verbs "
            "provider cannot open that device: install its provider or exclude verbs "
            "(FI_PROVIDER=^verbs)"
            if verbs
            else ""
        )
        yield self.finding(
            f"libfabric's fi_getinfo failed ({failed[0].value}): no libfabric program can "
            f"open a fabric here{cause}.",
            [failed[0].evidence, *(o.evidence for o in verbs[:1])],
        )


# A version libfabric's configure.ac gives a release candidate (1.12.0rc1) or the development
# branch (1.13.0a1); a vendor's suffix (1.22.0amzn4.0, 1.12.1-aws) is a release.
_UNRELEASED_VERSION = re.compile(r"\d{1,2}\.\d{1,3}(?:\.\d{1,3})?(?:rc|a|b|alpha|beta)\d{1,3}")


class LibfabricUnreleased(Rule):
    id = "SC1411"
    name = "libfabric-unreleased"
    family = "libfabric"
    severity = Severity.WARNING
    title = "libfabric is a release candidate or the development branch"
    doc = RuleDoc(
        what="Reads a libfabric that is not a release: a version of a release candidate or "
        "of the development branch (`libfabric: 1.12.0rc1`, `1.13.0a1`), a build from "
        "ofiwg/libfabric's master or main branch (`Libfabric: https://github.com/ofiwg/"
        "libfabric -b 'master'`), or a report saying it runs a release candidate of libfabric.",
        why="Providers change between release candidates and on the development branch; "
        "hangs found there are fixed before the release (libfabric 1.12.0rc1's EFA/SHM "
        "progress hang, ofiwg/libfabric#6565, fixed by #6561; a master commit that hung "
        "multi-node NCCL over tcp;ofi_rxm, #6441). A hang or crash on such a build is first "
        "the build's.",
        example="NCCL tests hanging across three nodes with libfabric built from master.",
        fix="Use a released libfabric (the EFA installer's, or a tagged ofiwg/libfabric "
        "release); report the failure upstream if the release has it too.",
        references=(
            "https://github.com/ofiwg/libfabric/issues/6565",
            "https://github.com/ofiwg/libfabric/issues/6441",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        for installation in ctx.installations(ComponentName.LIBFABRIC):
            version = installation.version or ""
            if _UNRELEASED_VERSION.fullmatch(version) is not None:
                yield self.finding(
                    f"libfabric {version} is not a release: a release candidate or the "
                    "development branch, whose bugs are fixed before the release.",
                    installation.evidence[:1],
                )
                return
        said = ctx.snapshot.observations("libfabric-unreleased")
        if said:
            yield self.finding(
                f"libfabric is not a release here ({said[0].value}): a release candidate or "
                "the development branch, whose bugs are fixed before the release.",
                [said[0].evidence],
            )
