"""Drain this Slurm node when its stack fails the check, and resume it once it passes, but only
if stackcheck drained it: a node an administrator drained stays drained, whatever stackcheck
thinks of its stack. What stackcheck drained is known by its reason, which starts with MARKER.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from stackcheck.check.model import Finding
from stackcheck.fleet.sources.slurm import slurm_command

MARKER = "stackcheck:"
# scontrol(1) documents no limit on a node's reason (Slurm 22.05 kept a 600-character one whole),
# but `sinfo -R` shows its first 20 characters and people read it on one line: the rule IDs come
# first and the whole stays short.
MAX_REASON = 120
SCONTROL_TIMEOUT = 10.0  # seconds; a health check must end well inside HealthCheckInterval

Action = Literal["drained", "redrained", "resumed", "none"]

_STATE = re.compile(r"(?:^|\s)State=(\S+)")
# `Reason=TEXT [USER@TIME]`: TEXT may hold spaces; the bracket closes it.
_REASON = re.compile(r"(?:^|\s)Reason=(.*?) \[([^\]@]*)@[^\]]*\]")


@dataclass(frozen=True)
class NodeState:
    name: str
    state: str  # scontrol's State: IDLE, IDLE+DRAIN, MIXED+DRAIN, DOWN+DRAIN+NOT_RESPONDING
    reason: str  # "" when none
    reason_user: str = ""

    @property
    def drained(self) -> bool:
        """Drained or draining: the DRAIN flag, whatever the base state."""
        return "DRAIN" in self.state.upper().split("+")

    @property
    def ours(self) -> bool:
        return self.reason.startswith(MARKER)


def parse_node(name: str, text: str) -> NodeState:
    """A node from `scontrol --oneliner show node NAME`."""
    state = _STATE.search(text)
    reason = _REASON.search(text)
    return NodeState(
        name=name,
        state=state.group(1) if state else "UNKNOWN",
        reason=reason.group(1) if reason else "",
        reason_user=reason.group(2) if reason else "",
    )


def drain_reason(failing: Sequence[Finding]) -> str:
    """``stackcheck: SC101,SC401 Driver too old for the CUDA in use``: every failing rule's ID
    (in the report's order, worst first), then the first one's title, within MAX_REASON."""
    ids = list(dict.fromkeys(f.id for f in failing))
    reason = f"{MARKER} {','.join(ids)} {failing[0].title}" if failing else MARKER
    # Slurm's own syntax would take a quote or a line break in a reason as its end.
    reason = re.sub(r"[\"'\n\r\t]", " ", reason)
    if len(reason) > MAX_REASON:
        reason = reason[: MAX_REASON - 3].rstrip(" ,") + "..."
    return reason


def decide(node: NodeState, failing: bool, reason: str) -> Action:
    """What to do to the node. Never touch a node someone else drained."""
    if failing:
        if not node.drained:
            return "drained"
        return "redrained" if node.ours and node.reason != reason else "none"
    return "resumed" if node.drained and node.ours else "none"


class SlurmNode:
    """This node as slurmctld knows it, through scontrol."""

    def __init__(self, name: str, env: Mapping[str, str] | None = None) -> None:
        self.name = name
        self.env = env

    def _scontrol(self, *argv: str) -> str:
        return slurm_command(["scontrol", *argv], self.env, SCONTROL_TIMEOUT)

    def state(self) -> NodeState:
        return parse_node(self.name, self._scontrol("--oneliner", "show", "node", self.name))

    def apply(self, action: Action, reason: str) -> None:
        if action in ("drained", "redrained"):
            self._scontrol("update", f"NodeName={self.name}", "State=DRAIN", f"Reason={reason}")
        elif action == "resumed":
            self._scontrol("update", f"NodeName={self.name}", "State=RESUME")
