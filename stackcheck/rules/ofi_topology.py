"""Family ``ofi-nccl``: the topology file aws-ofi-nccl hands NCCL for an instance type.

On the EC2 types it knows, aws-ofi-nccl sets NCCL_TOPO_FILE to an XML file of its own
(``share/aws-ofi-nccl/xml/<platform>-topo.xml``). NCCL reads it in place of the machine's
topology, so a file that lacks an attribute NCCL needs fails every communicator.
"""

from __future__ import annotations

from collections.abc import Iterable

from stackcheck.check.context import CheckContext
from stackcheck.check.model import Finding, Severity
from stackcheck.rules.base import Rule, RuleDoc

_PLUGIN_FILES = "aws-ofi-nccl/xml/"


class OfiTopologyFileInvalid(Rule):
    id = "SC1332"
    name = "ofi-topology-file-invalid"
    family = "ofi-nccl"
    severity = Severity.ERROR
    title = "NCCL rejects the topology file aws-ofi-nccl gave it"
    doc = RuleDoc(
        what="Reads NCCL's `Attribute <name> of node <node> not found` (its topology XML "
        "reader) where the topology file is the OFI plugin's (`NET/OFI ... Setting "
        "NCCL_TOPO_FILE environment variable to .../aws-ofi-nccl/xml/...`, or NCCL_TOPO_FILE "
        "naming such a file), and a report saying that file is malformed.",
        why="NCCL builds its graph from the file instead of the machine; an attribute it needs "
        "(the CPU's `arch` and `vendor`) missing from the plugin's P5 file made "
        "ncclCommInitRank fail with an internal error on p5 nodes (NVIDIA/nccl#1726; "
        "aws/aws-ofi-nccl drops the P5 file in PR 916).",
        example="`Attribute arch of node cpu not found` from a vLLM engine on p5.48xlarge, with "
        "/usr/local/share/aws-ofi-nccl/xml/p5.48xl-topo.xml lacking the cpu node's attributes.",
        fix="Use an aws-ofi-nccl release whose file for the instance type is whole (or none), or "
        "point NCCL_TOPO_FILE at a correct file (an empty value lets NCCL detect the topology).",
        references=("https://github.com/NVIDIA/nccl/issues/1726",),
    )

    def check(self, ctx: CheckContext) -> Iterable[Finding]:
        snapshot = ctx.snapshot
        invalid = snapshot.observations("nccl-topo-invalid")
        if not invalid:
            return
        plugin = [o.evidence for o in snapshot.observations("ofi-topo-file")]
        topo = snapshot.env.get("NCCL_TOPO_FILE")
        if topo is not None and _PLUGIN_FILES in topo.value:
            plugin.append(topo.evidence)
        named = [o for o in invalid if _PLUGIN_FILES in (o.value or "")]
        if not (plugin or named):
            return  # a file of the user's own: not the plugin's fault
        yield self.finding(
            f"NCCL cannot use the topology file aws-ofi-nccl set ({(invalid[0].value or '')[:120]})"
            ": every communicator fails to initialise.",
            [o.evidence for o in invalid[:2]] + plugin[:1],
        )
