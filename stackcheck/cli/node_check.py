"""``stackcheck node-check``: this node's health check, for Slurm's HealthCheckProgram, LBNL NHC
and node-problem-detector: check the host (or a tree), optionally against the cluster's expected
stack, and with --drain drain this Slurm node on failure and resume it once it passes, if
stackcheck was the one that drained it."""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING

from stackcheck.cli.common import (
    add_gate_arguments,
    add_matrix_argument,
    add_output_arguments,
    add_source_arguments,
    exit_code,
    fail_threshold,
    matrix_from,
    settle,
    show,
    snapshot_from,
)
from stackcheck.errors import StackcheckError

if TYPE_CHECKING:
    from stackcheck.check.model import Finding

HELP = "this node's health check for Slurm (HealthCheckProgram, NHC) and node-problem-detector"
DESCRIPTION = """\
Check this node's stack and say, in its exit code, whether it may run jobs: 0 healthy, 1 findings
at --fail-on (default error), 2 the check could not run. With --expected, every difference from
the cluster's intended stack (a reference node's `stackcheck probe --json`) is a finding too.

With --drain, a failing node is drained in Slurm (`scontrol update NodeName=NODE State=DRAIN
Reason="stackcheck: SC101,SC401 ..."`), and a node stackcheck drained is resumed once it passes.
A node drained by anyone else (its reason does not start with "stackcheck:") is left alone.

--format npd prints one line for node-problem-detector's custom plugin protocol (exit 0 OK,
1 problem, 2 unknown). See docs/operations.md."""
FORMATS = ("text", "json", "npd", "prometheus")


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "node-check",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_source_arguments(parser, snapshot_argument=False)
    parser.add_argument(
        "--expected",
        metavar="SNAPSHOT.json",
        help="the stack this node should have (a reference node's `stackcheck probe --json`); "
        "drift from it is reported by the fleet-drift rules (SC702-SC707)",
    )
    parser.add_argument(
        "--drain",
        action="store_true",
        help="drain this Slurm node on findings at --fail-on; resume it when clean if "
        "stackcheck drained it",
    )
    parser.add_argument(
        "--node",
        metavar="NAME",
        help="this node's Slurm name (default: $SLURMD_NODENAME, else the short host name)",
    )
    add_matrix_argument(parser)
    add_output_arguments(parser, FORMATS)
    add_gate_arguments(parser)
    parser.set_defaults(run=run)


def node_name(args: argparse.Namespace) -> str:
    import socket  # here, not at import: only this command needs it

    return str(args.node or os.environ.get("SLURMD_NODENAME") or socket.gethostname().split(".")[0])


def run(args: argparse.Namespace) -> int:
    try:
        return _check(args)
    except StackcheckError as exc:
        problem = exc
    except Exception as exc:  # a crash must read as "unknown" (2), never as "unhealthy" (1)
        problem = StackcheckError(f"node-check failed: {exc!r}")
    if args.format == "npd":  # NPD shows stdout as the condition's message
        from stackcheck.formats.npd import MAX_MESSAGE, one_line

        sys.stdout.write(one_line(f"stackcheck could not check: {problem}", MAX_MESSAGE) + "\n")
    raise problem


def _check(args: argparse.Namespace) -> int:
    from stackcheck.check.engine import check, sort_findings
    from stackcheck.check.model import failing
    from stackcheck.formats.npd import NpdFormat

    node = node_name(args)
    matrix = matrix_from(args)
    expected = None
    if args.expected:
        from stackcheck.health.expected import read_expected

        expected = read_expected(args.expected)  # before probing: a bad file fails fast
    snapshot = snapshot_from(args)
    report = check(snapshot, matrix)
    if expected is not None:
        from stackcheck.health.expected import drift_from_expected

        drift = drift_from_expected(node, snapshot, expected, args.expected, matrix)
        report.findings = sort_findings([*report.findings, *drift])
    report = settle(report, args)
    threshold = fail_threshold(args)
    show(report, args, form=NpdFormat(threshold) if args.format == "npd" else None)
    code = exit_code(report.findings, threshold)
    if args.drain:
        _reconcile(node, failing(report.findings, threshold))
    return code


def _reconcile(node: str, findings: list[Finding]) -> None:
    from stackcheck.health.slurm import SlurmNode, decide, drain_reason

    slurm = SlurmNode(node)
    state = slurm.state()
    reason = drain_reason(findings)
    action = decide(state, bool(findings), reason)
    slurm.apply(action, reason)
    if action != "none":
        said = f": {reason}" if findings else ""
        sys.stderr.write(f"stackcheck: Slurm node {node} {action}{said}\n")
    elif state.drained and not state.ours:
        sys.stderr.write(
            f"stackcheck: Slurm node {node} was drained by {state.reason_user or 'someone else'} "
            f"({state.reason}); left as it is\n"
        )
