"""Families ``ofi-nccl`` and ``libfabric``: do aws-ofi-nccl, NCCL, libfabric and EFA fit?

The facts come from the matrix: the plugin's supported NCCL floor, the ncclNet_vN versions it
exports against those NCCL loads, its libfabric floor, and known issues of plugin and installer.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.matrix.models import OfiNcclRelease, WithKnownIssues
from stackcheck.rules.base import Rule, RuleDoc
from stackcheck.rules.known_issues import KnownIssueRule
from stackcheck.snapshot.model import ComponentName, Installation


def _plugins(ctx: CheckContext) -> Iterator[tuple[Installation, OfiNcclRelease]]:
    """The aws-ofi-nccl NCCL would load (else every one found), with its matrix entry."""
    found = [p for p in ctx.installations(ComponentName.OFI_NCCL) if p.version]
    loaded = [p for p in found if p.properties.get("loaded_by_nccl", "no") != "no"]
    for plugin in loaded or found:
        release = ctx.matrix.ofi_nccl_release(plugin.version)
        if release is not None:
            yield plugin, release


def _api_range(low: int, high: int) -> str:
    return f"v{low}" if low == high else f"v{low}-v{high}"


class OfiNcclNcclMismatch(Rule):
    id = "SC451"
    name = "ofi-nccl-nccl-mismatch"
    family = "ofi-nccl"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "aws-ofi-nccl and NCCL do not fit"
    doc = RuleDoc(
        what="Checks each NCCL against the aws-ofi-nccl plugin: NCCL must be at least the "
        "plugin's supported floor, and the plugin must export a net-plugin API version "
        "(ncclNetPlugin_vN) in the range the NCCL release loads.",
        why="NCCL looks for the newest ncclNetPlugin_vN it knows and falls back a few versions; "
        "when none matches it logs `NET/Plugin: Failed to find ncclNetPlugin symbol` at INFO "
        "level and uses TCP sockets. Below the plugin's NCCL floor the plugin is untested and "
        "may not initialise. Either way EFA sits idle.",
        example="aws-ofi-nccl 1.4.0 (built against NCCL 2.12 headers: ncclNetPlugin_v5 only) "
        "with NCCL 2.26.2, which loads v6-v10.",
        fix="Use an aws-ofi-nccl release that supports this NCCL (`stackcheck matrix ofi-nccl "
        "VERSION` lists its range); the plugin the current EFA installer bundles fits current "
        "NCCL releases.",
        references=("https://github.com/aws/aws-ofi-nccl/blob/master/RELEASENOTES.md",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        severity = self.severity if ctx.efa_available else Severity.WARNING
        for plugin, release in _plugins(ctx):
            for nccl in ctx.installations(ComponentName.NCCL):
                evidence = [*nccl.evidence, *plugin.evidence]
                if ctx.version_at_least(nccl.version, release.nccl_min) is False:
                    yield self.finding(
                        f"NCCL {nccl.version} at {nccl.path} is older than aws-ofi-nccl "
                        f"{plugin.version} supports (NCCL >= {release.nccl_min}).",
                        evidence,
                        severity=self.capped(release.unsure, severity),
                    )
                    continue
                entry = ctx.matrix.nccl_release(nccl.version)
                span = entry.net_api_span() if entry is not None else None
                # A release whose API versions the matrix lacks says nothing: no finding.
                if entry is None or span is None or not release.net_api:
                    continue
                if release.loadable_by(span):
                    continue
                yield self.finding(
                    f"NCCL {nccl.version} loads net plugin API {_api_range(span[0], span[-1])}; "
                    f"aws-ofi-nccl {plugin.version} at {plugin.path} exports "
                    f"{_api_range(min(release.net_api), max(release.net_api))}: NCCL will not "
                    "load it and uses sockets.",
                    evidence,
                    severity=self.capped(release.unsure or entry.unsure, severity),
                )


class OfiNcclKnownIssue(KnownIssueRule):
    id = "SC452"
    name = "ofi-nccl-known-issue"
    family = "ofi-nccl"
    severity = Severity.ERROR
    component = ComponentName.OFI_NCCL
    title = "aws-ofi-nccl version with a known issue"
    doc = RuleDoc(
        what="Looks up the aws-ofi-nccl plugin in the matrix's known issues (from its release "
        "notes) and reports those that affect its version where their conditions hold, such as "
        "the EFA installer version.",
        why="Some plugin releases regress badly in combination with newer EFA drivers or NCCL "
        "releases; the fix is a point release that is easy to miss.",
        example="aws-ofi-nccl 1.12.0-aws with EFA installer 1.36.0: the platform-aws VF sorting "
        "causes significant performance regressions or crashes with EFA installer >= 1.35.0; "
        "1.12.1 reverts it.",
        fix="Upgrade aws-ofi-nccl to the release the finding names (or the EFA installer that "
        "bundles it).",
        references=("https://github.com/aws/aws-ofi-nccl/blob/master/RELEASENOTES.md",),
    )

    def table(self, ctx: CheckContext) -> Sequence[WithKnownIssues]:
        return ctx.matrix.matrix.ofi_nccl


class LibfabricTooOld(Rule):
    id = "SC453"
    name = "libfabric-too-old"
    family = "libfabric"
    severity = Severity.ERROR
    lowest = Severity.WARNING
    title = "libfabric older than aws-ofi-nccl needs"
    doc = RuleDoc(
        what="Compares the libfabric releases found with the minimum the aws-ofi-nccl plugin's "
        "release notes require. It reports only when no libfabric found is new enough.",
        why="The plugin asks libfabric for the API version it was written against; an older "
        "libfabric fails that request, the plugin does not initialise, and NCCL uses TCP "
        "sockets instead of EFA.",
        example="aws-ofi-nccl 1.9.1 (requires libfabric >= 1.18.0) next to Debian's libfabric "
        "1.17.0 and no EFA installer.",
        fix="Install the EFA installer (it brings a matching libfabric under /opt/amazon/efa) and "
        "put /opt/amazon/efa/lib on the loader path, or use a plugin release that supports the "
        "libfabric present.",
        references=("https://github.com/aws/aws-ofi-nccl/blob/master/RELEASENOTES.md",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        fabrics = [f for f in ctx.installations(ComponentName.LIBFABRIC) if f.version]
        if not fabrics:
            return
        severity = self.severity if ctx.efa_available else Severity.WARNING
        for plugin, release in _plugins(ctx):
            if release.libfabric_min is None:
                continue
            if any(ctx.version_at_least(f.version, release.libfabric_min) for f in fabrics):
                continue
            have = ", ".join(f"{f.version} ({f.path})" for f in fabrics)
            yield self.finding(
                f"aws-ofi-nccl {plugin.version} requires libfabric >= {release.libfabric_min}; "
                f"found {have}.",
                [*plugin.evidence, *(e for f in fabrics for e in f.evidence)],
                severity=self.capped(release.unsure, severity),
            )


class EfaInstallerKnownIssue(KnownIssueRule):
    id = "SC454"
    name = "efa-installer-known-issue"
    family = "libfabric"
    severity = Severity.ERROR
    component = ComponentName.EFA_INSTALLER
    title = "EFA installer version with a known issue"
    doc = RuleDoc(
        what="Looks up the EFA installer version (from /opt/amazon/efa_installed_packages or the "
        "installer's banner) in the matrix's known issues and reports those that affect it "
        "where their conditions hold, such as the NCCL version in use; and reads the installer "
        "stopping at its own package check (`Error: unknown package found: "
        "DEBS/UBUNTU2204/x86_64/debug/rdma-core/*.deb`, EFA installer 1.40.0).",
        why="The installer pins libfabric, rdma-core and (from 1.38) aws-ofi-nccl; an old "
        "installer under a new NCCL fails in ways that look like network faults.",
        example="EFA installer 1.27.0 with NCCL 2.21.5: NCCL >= 2.19 raises libfabric errors with "
        "EFA installer < 1.29.0.",
        fix="Upgrade the EFA installer to the version named, or apply the workaround it gives.",
        references=("https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-changelog.html",),
    )

    def table(self, ctx: CheckContext) -> Sequence[WithKnownIssues]:
        return ctx.matrix.matrix.efa_installer

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        yield from super().check(ctx)
        # The installer's own refusal: nothing of libfabric, rdma-core or the plugin was
        # installed (EFA installer 1.40.0 refused the debug rdma-core debs of its own tarball,
        # aws/aws-ofi-nccl#872).
        for failed in ctx.snapshot.observations("efa-installer-failed")[:1]:
            installer = next(
                (i.version for i in ctx.installations(ComponentName.EFA_INSTALLER) if i.version),
                None,
            )
            own = " of its own tarball" if "/debug/" in (failed.value or "") else ""
            yield self.finding(
                f"The EFA installer{f' {installer}' if installer else ''} stopped before "
                f"installing anything ({failed.value}{own}): the image or host has no EFA "
                "libfabric, rdma-core or OFI plugin from it.",
                [failed.evidence],
                fix="Pin an EFA installer release whose package check passes on this OS (1.39.0 "
                "where 1.40.0 stops so), or remove the package it names from its tree.",
            )
