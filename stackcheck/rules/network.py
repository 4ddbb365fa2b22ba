"""Family ``nccl-net-fallback``: will NCCL use EFA, or silently fall back to TCP sockets?"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.runtime_facts import (
    efa_expected,
    efa_invisible,
    infiniband_named,
    infiniband_present,
    nccl_in_use,
    passes_efa,
    rdma_expected,
)
from stackcheck.snapshot.model import ComponentName, Evidence, Installation, Observation


def _uses_nccl(ctx: CheckContext) -> bool:
    return bool(ctx.installations(ComponentName.NCCL) or ctx.torch_cuda_builds)


def _loaded_plugin(ctx: CheckContext) -> Installation | None:
    for plugin in ctx.installations(ComponentName.OFI_NCCL):
        if plugin.properties.get("loaded_by_nccl", "no") != "no":
            return plugin
    return None


def _efa_reason(ctx: CheckContext) -> str:
    """Why EFA is expected, in the words of the evidence: devices seen, or only the instance
    type's EFA interfaces (an image or a text has no device to see)."""
    devices = ctx.snapshot.runtime.efa_devices
    if devices:
        return f"this host has EFA devices ({', '.join(devices)})"
    instance = ctx.matrix.instance(ctx.snapshot.instance.type)
    count = instance.efa_interfaces if instance else 0
    return f"the instance type {ctx.snapshot.instance.type} has {count} EFA interface(s)"


_INSTALL_FIX = (
    "Install aws-ofi-nccl (the EFA installer puts it in /opt/amazon/ofi-nccl; DLAMIs and the "
    "AWS DLC images carry it) and put its lib directory on the loader path; set "
    "NCCL_NET='AWS Libfabric' so a missing plugin fails loudly instead of falling back."
)
_UNSET_FIX = (
    "Unset NCCL_NET_PLUGIN (or, with NCCL >= 2.19 and aws-ofi-nccl >= 1.15, set it to ofi); set "
    "NCCL_NET='AWS Libfabric' so a missing plugin fails loudly instead of falling back."
)


def _efa_evidence(ctx: CheckContext) -> list[Evidence]:
    evidence = [e for e in ctx.snapshot.runtime.evidence if "infiniband" in e.source]
    return evidence or ctx.snapshot.instance.evidence


class NetPluginMissing(Rule):
    id = "SC401"
    name = "net-plugin-missing"
    family = "nccl-net-fallback"
    severity = Severity.ERROR
    title = "EFA present but NCCL will not find the aws-ofi-nccl plugin"
    doc = RuleDoc(
        what="On a host (or target instance) with EFA, checks that the NCCL net plugin "
        "(`libnccl-net.so`, or `libnccl-net-<name>.so` for `NCCL_NET_PLUGIN=<name>`) resolves on "
        "the loader path the way NCCL's dlopen would find it.",
        why="NCCL does not fail when its plugin is missing: it logs `NET/Plugin: No plugin found "
        "(libnccl-net.so)` at INFO level and uses TCP sockets. Multi-node collectives then run "
        "at a fraction of EFA's bandwidth; a p5 job can be several times slower with no error.",
        example="An image with aws-ofi-nccl in /opt/amazon/ofi-nccl/lib but no entry for it in "
        "LD_LIBRARY_PATH or /etc/ld.so.conf.d; or NCCL_NET_PLUGIN=none.",
        fix="Put the plugin directory on the loader path (EFA installer >= 1.44: "
        "/opt/amazon/ofi-nccl/lib, or lib64 on AL2023), e.g. `ENV LD_LIBRARY_PATH="
        "/opt/amazon/ofi-nccl/lib:$LD_LIBRARY_PATH`; on NCCL >= 2.19 with aws-ofi-nccl >= 1.15 "
        "set NCCL_NET_PLUGIN=ofi; and set NCCL_NET='AWS Libfabric' so a missing plugin fails "
        "loudly instead of falling back.",
        references=("https://github.com/aws/aws-ofi-nccl",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        if not ctx.efa_available or not _uses_nccl(ctx):
            return
        plugins = ctx.installations(ComponentName.OFI_NCCL)
        if ctx.snapshot.partial:
            # A text that names a plugin without its loader path says nothing about whether
            # NCCL finds it; only resolved discovery counts.
            plugins = [p for p in plugins if "loaded_by_nccl" in p.properties]
        if _loaded_plugin(ctx) is not None:
            return
        reason = _efa_reason(ctx)
        if ctx.snapshot.env_value("NCCL_NET_PLUGIN") == "none":
            yield self.finding(
                f"NCCL_NET_PLUGIN=none disables NCCL's net plugins, but {reason}.",
                [ctx.snapshot.env["NCCL_NET_PLUGIN"].evidence, *_efa_evidence(ctx)],
                fix=_UNSET_FIX,
            )
        elif plugins:
            places = ", ".join(p.path or "?" for p in plugins)
            yield self.finding(
                f"aws-ofi-nccl is installed ({places}) but not on the loader path NCCL searches, "
                f"and {reason}: NCCL will use TCP sockets instead of EFA.",
                [*(e for p in plugins for e in p.evidence), *_efa_evidence(ctx)],
            )
        elif not ctx.snapshot.partial and not ctx.installations(ComponentName.OFI_NCCL):
            yield self.finding(
                f"No NCCL net plugin (aws-ofi-nccl) is installed, and {reason}: NCCL will use "
                "TCP sockets instead of EFA.",
                _efa_evidence(ctx),
                fix=_INSTALL_FIX,
            )


class NetPluginUnresolved(Rule):
    id = "SC402"
    name = "net-plugin-unresolved"
    family = "nccl-net-fallback"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "The NCCL net plugin's own libraries do not resolve"
    doc = RuleDoc(
        what="Resolves every DT_NEEDED library of the net plugin NCCL would load, with the "
        "plugin's RPATH/RUNPATH and the loader path.",
        why="When a dependency is missing, dlopen fails, NCCL logs `Plugin load returned ...: "
        "libhwloc.so.15: cannot open shared object file` at INFO level and falls back to "
        "sockets (PrimeIntellect-ai/prime-rl#3452).",
        example="libnccl-net-ofi.so needs libfabric.so.1 from /opt/amazon/efa/lib, which is not "
        "on LD_LIBRARY_PATH in the container.",
        fix="Add the directories of the missing libraries (usually /opt/amazon/efa/lib and "
        "/opt/amazon/ofi-nccl/lib) to LD_LIBRARY_PATH or /etc/ld.so.conf.d, or install them.",
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        plugin = _loaded_plugin(ctx)
        if plugin is None or "unresolved" not in plugin.properties:
            return
        severity = self.severity if ctx.efa_available else Severity.WARNING
        yield self.finding(
            f"{plugin.path} needs {plugin.properties['unresolved']}, which the loader would not "
            "find: NCCL will skip the plugin and use sockets.",
            plugin.evidence,
            severity=severity,
        )


# The value messages.toml's `nccl-plugin-too-old` gives its observation.
PLUGIN_WITHOUT_API = "the plugin exports no ncclNetPlugin version this NCCL supports"


class NcclSocketFallback(Rule):
    id = "SC413"
    name = "nccl-socket-fallback"
    family = "nccl-net-fallback"
    severity = Severity.ERROR
    lowest = Severity.INFO
    title = "NCCL uses (or will use) TCP sockets where EFA or InfiniBand is meant to be used"
    doc = RuleDoc(
        what="Reads what NCCL logged about its network (`Using network Socket`, channels `via "
        "NET/Socket`, a net plugin that failed to load or initialise, `No plugin found`) and, "
        "without a log, predicts the same from a stack where EFA is meant to be used but cannot "
        "be reached (no EFA provider, no devices passed to the container), or a report's "
        "sentence saying NCCL fell back to sockets on EFA or InfiniBand; `No plugin found` where "
        "only the report's words say EFA is used is a warning. On machines with "
        "InfiniBand or RoCE (mlx5 devices, or the report saying so), `Using network Socket` is a "
        "warning.",
        why="NCCL treats a missing or broken net plugin as a reason to use its socket transport, "
        "not as an error: the job runs, several times slower across nodes. `No plugin found` is "
        "harmless only where there is no EFA or InfiniBand to use, and so is a plugin that "
        "exports no API this NCCL supports (a stray libnccl-net.so, NVIDIA/nccl#1292): info "
        "where nothing says EFA or InfiniBand is meant.",
        example="`NET/Plugin: Plugin load returned 2: libhwloc.so.15: cannot open shared object "
        "file` on p5 (PrimeIntellect-ai/prime-rl#3452), or `NET/OFI aws-ofi-nccl initialization "
        "failed` followed by `NET/Socket : Using [0]eth0` (aws/aws-ofi-nccl#889).",
        fix="Fix what the evidence names (install the plugin's missing library, put the plugin "
        "on the loader path, pass the EFA devices), and set NCCL_NET='AWS Libfabric' (or "
        "NCCL_NET_PLUGIN=ofi with aws-ofi-nccl >= 1.15) so that a broken plugin fails the job "
        "instead of slowing it down.",
        references=(
            "https://github.com/aws/aws-ofi-nccl/issues/889",
            "https://github.com/PrimeIntellect-ai/prime-rl/pull/3452",
        ),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        expected = efa_expected(ctx)
        failed = snapshot.observations("net-plugin-failed")
        sockets = [o for o in snapshot.observations("net-transport") if o.value == "Socket"]
        if failed:
            severity = self._failed_severity(ctx, failed, expected, sockets)
            yield self.finding(
                "The NCCL net plugin was found but did not load or start: NCCL falls back to its "
                "own transport (TCP sockets where there is no InfiniBand)."
                + (
                    " Nothing here says a plugin is meant to carry the traffic: a stray "
                    "libnccl-net.so does no harm."
                    if severity is Severity.INFO
                    else ""
                ),
                [o.evidence for o in failed[:3]] + expected[:1],
                severity=severity,
            )
            return
        stated = snapshot.observations("socket-fallback-stated")
        if stated and not snapshot.observations("net-transport"):
            # No log says which network NCCL used; the report's words are all there is.
            yield self.finding(
                f"The report says NCCL fell back to TCP sockets where {stated[0].value} is meant "
                "to carry the traffic: the net plugin or the verbs stack was not found or did "
                "not start.",
                [stated[0].evidence, *expected[:1]],
                severity=Severity.WARNING,
            )
            return
        missing = snapshot.observations("net-plugin-missing")
        if not expected:
            used = snapshot.observations("efa-use-stated")
            others = [o for o in snapshot.observations("net-transport") if o.value != "Socket"]
            if missing and used and not others:
                # Only the report's words say EFA is meant: a warning, as they may be wrong.
                yield self.finding(
                    "NCCL found no net plugin (no libnccl-net.so) where the report says EFA is "
                    "meant to carry the traffic: NCCL runs it over TCP sockets instead.",
                    [missing[0].evidence, used[0].evidence],
                    severity=Severity.WARNING,
                )
                return
            yield from self._off_infiniband(ctx, sockets)
            return
        if sockets or missing:
            yield self.finding(
                "NCCL runs inter-node traffic over TCP sockets although EFA is meant to be used"
                + (" (no net plugin was found)" if missing else "")
                + ".",
                [o.evidence for o in [*sockets[:2], *missing[:1]]] + expected[:2],
            )
            return
        unreachable = efa_invisible(ctx) + [
            e for s in snapshot.run_specs if passes_efa(s) is False for e in s.evidence[:1]
        ]
        if unreachable and nccl_in_use(ctx) and not snapshot.observations("net-transport"):
            yield self.finding(
                "EFA is meant to be used but cannot be reached here: NCCL will fall back to TCP "
                "sockets.",
                unreachable[:2] + expected[:2],
            )

    @staticmethod
    def _failed_severity(
        ctx: CheckContext,
        failed: list[Observation],
        expected: list[Evidence],
        sockets: list[Observation],
    ) -> Severity:
        """A plugin that exports no API this NCCL supports is what NCCL reports for any stray
        libnccl-net.so on the loader path (NVIDIA/nccl#1292: "not indicative of a failure"):
        a fault only where EFA or InfiniBand is meant to be used or sockets are shown in use.
        A plugin that failed to load for a missing library or symbol was meant to be used."""
        if expected or sockets or infiniband_present(ctx):
            return Severity.ERROR
        if all(o.value == PLUGIN_WITHOUT_API for o in failed):
            return Severity.INFO
        return Severity.ERROR

    def _off_infiniband(self, ctx: CheckContext, sockets: list[Observation]) -> Iterable[Finding]:
        """NCCL on sockets where the machines have InfiniBand or RoCE (non-EFA RDMA devices, or
        the report's words), or where NCCL_IB_HCA names the HCAs to use: a warning, as the text
        may not show why (NCCL_IB_DISABLE, no libibverbs in the container, RDMA not enabled, an
        HCA left out by NCCL_IB_HCA)."""
        named = infiniband_named(ctx)
        # NCCL's IB transport did not start (no libibverbs, no HCA) while its sockets run over
        # IPoIB: InfiniBand is there, and the verbs stack or the devices are not (a container
        # without rdma-core / MLNX_OFED userland, or without /dev/infiniband).
        snapshot = ctx.snapshot
        ipoib = snapshot.observations("ipoib-interface")
        no_verbs = snapshot.observations("ib-transport-unavailable") if ipoib else []
        # NCCL starts its socket transport only where the IB one did not: its interface listed
        # after the verbs library failed is the socket transport in use (sgl-project/sglang#1427).
        # Only where the log names no network of its own: one that says IB is believed.
        if not sockets and not snapshot.observations("net-transport"):
            sockets = ipoib if no_verbs else []
        if not sockets or not (infiniband_present(ctx) or named or no_verbs):
            return
        if infiniband_present(ctx):
            why = "the machines have InfiniBand or RoCE."
        elif named:
            why = "NCCL_IB_HCA names the InfiniBand or RoCE HCAs to use."
        else:
            why = (
                f"the socket interface {ipoib[0].value} is IPoIB: NCCL's InfiniBand transport did "
                f"not start ({no_verbs[0].value}: no verbs library, or no HCA the process sees)."
            )
        if no_verbs and "verbs" not in why:
            why += f" Its InfiniBand transport did not start ({no_verbs[0].value})."
        yield self.finding(
            "NCCL runs inter-node traffic over TCP sockets although " + why,
            [
                *(o.evidence for o in sockets[:1]),
                *(rdma_expected(ctx)[:2] or named or [o.evidence for o in [*no_verbs, *ipoib][:2]]),
            ],
            severity=Severity.WARNING,
        )
