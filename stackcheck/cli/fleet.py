"""``stackcheck fleet``: probe every node through Slurm, or read snapshots gathered any other way,
and check each node and the fleet as a whole."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from stackcheck.cli.common import (
    EXIT_ERROR,
    add_matrix_argument,
    add_output_file_argument,
    exit_code,
    matrix_from,
    output,
    run_facts,
    write_atomically,
)
from stackcheck.errors import StackcheckError
from stackcheck.policy.levels import FAIL_ON

if TYPE_CHECKING:
    from stackcheck.fleet.sources.base import NodeSource

HELP = "check many nodes: probe each through Slurm (--slurm), or read their snapshot files"
DESCRIPTION = """\
Check every node of a cluster and the cluster as a whole: per-node findings grouped with the
nodes that have them, drift between nodes (fleet-drift rules, SC7xx), and every node that gave
no snapshot. Exit codes as for `stackcheck check`; a node that gave no snapshot counts as an
error (SC701). If no node at all gave a snapshot, the exit code is 2.

  stackcheck fleet --slurm --nodes 64 [-- SRUN_OPTIONS...]
  stackcheck fleet --slurm --partition gpu -- --account=ml --qos=high
  stackcheck fleet snapshots/            (one NODE.json per node, from any tool)

With --slurm, srun runs the remote command once per node, each bounded by --timeout. The
default remote command is this Python with `-m stackcheck probe --json`, which fits a cluster
whose nodes share this install; set --remote-command (or STACKCHECK_REMOTE_COMMAND) otherwise.
See docs/fleet.md."""
REMOTE_ENV = "STACKCHECK_REMOTE_COMMAND"
FORMATS = ("text", "json", "prometheus")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{text} is not more than 0")
    return value


def _count(text: str) -> int:
    value = _positive(text)
    if value != int(value):
        raise argparse.ArgumentTypeError(f"{text} is not a whole number")
    return int(value)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "fleet",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        metavar="DIR_OR_FILE",
        help="snapshot files (stackcheck probe --json), or directories of NODE.json files; "
        "with --slurm, srun options after `--`",
    )
    slurm = parser.add_argument_group("through Slurm")
    slurm.add_argument("--slurm", action="store_true", help="probe the nodes with srun")
    slurm.add_argument("-N", "--nodes", type=_count, metavar="N", help="this many nodes")
    slurm.add_argument(
        "-w",
        "--nodelist",
        metavar="LIST",
        help="these nodes (a Slurm hostlist: node[01-64]); without --slurm, the nodes whose "
        "snapshot files are expected",
    )
    slurm.add_argument("-p", "--partition", metavar="P", help="the nodes of this partition")
    slurm.add_argument(
        "--timeout",
        type=_positive,
        default=60.0,
        metavar="SECONDS",
        help="time each node's probe may take (default: 60)",
    )
    slurm.add_argument(
        "--allocation-wait",
        type=_positive,
        default=300.0,
        metavar="SECONDS",
        help="time to wait for Slurm to allocate the nodes (default: 300)",
    )
    slurm.add_argument(
        "--remote-command",
        metavar="CMD",
        default=os.environ.get(REMOTE_ENV),
        help=f"what each node runs to print its snapshot (default: ${REMOTE_ENV}, else "
        "this Python with -m stackcheck probe --json)",
    )
    add_matrix_argument(parser)
    parser.add_argument("--format", choices=FORMATS, default="text", help="output format")
    add_output_file_argument(parser)
    parser.add_argument(
        "--report-json", metavar="FILE", help="also write the JSON fleet report to FILE"
    )
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="exit 1 when a finding is at least this severe (default: error)",
    )
    parser.set_defaults(run=run)


def _remote_command(args: argparse.Namespace) -> list[str]:
    if args.remote_command:
        try:
            return shlex.split(args.remote_command)
        except ValueError as exc:
            raise StackcheckError(f"--remote-command: {exc}") from None
    return [sys.executable, "-m", "stackcheck", "probe", "--json"]


def _source(args: argparse.Namespace) -> NodeSource:
    if args.slurm:
        from stackcheck.fleet.sources.slurm import SlurmProbe, SlurmSelection

        return SlurmProbe(
            SlurmSelection(args.nodes, args.nodelist, args.partition),
            _remote_command(args),
            timeout=args.timeout,
            allocation_wait=args.allocation_wait,
            srun_options=args.paths,
        )
    if args.nodes is not None or args.partition is not None:
        raise StackcheckError("--nodes and --partition need --slurm")
    if not args.paths:
        raise StackcheckError("give snapshot files or directories, or --slurm")
    from stackcheck.fleet.hostlist import expand
    from stackcheck.fleet.sources.files import SnapshotFiles

    expected = expand(args.nodelist) if args.nodelist else None
    return SnapshotFiles(args.paths, expected)


class _Progress:
    """How many nodes have been heard from, on stderr when it is a terminal."""

    def __init__(self) -> None:
        self.shown = False

    def __call__(self, heard: int) -> None:
        if heard % 50 == 0 or heard < 50:
            sys.stderr.write(f"\rstackcheck fleet: {heard} nodes heard from")
            sys.stderr.flush()
            self.shown = True

    def clear(self) -> None:
        if self.shown:
            sys.stderr.write("\r\033[K")


def run(args: argparse.Namespace) -> int:
    from stackcheck.fleet.engine import check_fleet
    from stackcheck.formats.base import FleetReportFormat
    from stackcheck.formats.fleet_json import FleetJsonFormat
    from stackcheck.formats.fleet_text import FleetTextFormat
    from stackcheck.formats.text import use_colour
    from stackcheck.redact import redact

    source = _source(args)
    matrix = matrix_from(args)
    progress = _Progress() if sys.stderr.isatty() else None
    try:
        report = check_fleet(source, matrix, progress)
    finally:
        if progress is not None:
            progress.clear()
    report = redact(report)  # the one redactor every output goes through (docs/security.md)
    if args.report_json:
        write_atomically(Path(args.report_json), FleetJsonFormat().render(report))
    form: FleetReportFormat
    if args.format == "prometheus":
        from stackcheck.formats.prometheus import PrometheusFormat

        form = PrometheusFormat(run_facts(args))
    elif args.format == "json":
        form = FleetJsonFormat()
    else:
        form = FleetTextFormat(colour=use_colour() and not args.output)
    output(form.render(report), args)
    if report.summary.answered == 0:
        sys.stderr.write("stackcheck: error: no node gave a snapshot (see the report)\n")
        return EXIT_ERROR
    return exit_code(report.all_findings(), args.fail_on)
