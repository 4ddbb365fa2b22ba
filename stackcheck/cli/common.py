"""Options and steps that several commands share: where the snapshot comes from, the matrix,
the output format, and the exit code.

The heavier modules (models, probes, rules) are imported inside the functions that use them, so
a command loads only what it needs: `stackcheck probe` must start fast on a busy node.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from stackcheck.errors import StackcheckError

if TYPE_CHECKING:
    from collections.abc import Sequence

    from stackcheck.check.model import Finding, Report
    from stackcheck.matrix import Matrix
    from stackcheck.snapshot import Snapshot

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
FAIL_ON = ("error", "warning", "info", "never")
FORMAT_NAMES = ("text", "json")  # stackcheck.formats.FORMAT_NAMES, kept here so --help stays light


def add_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help: str, epilog: str
) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with examples (``epilog``, printed as written), and that
    takes --json and the user matrix directories."""
    parser = commands.add_parser(
        name,
        help=help,
        description=help,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--json", action="store_true", help="print JSON")
    add_matrix_argument(parser)
    return parser


def add_source_arguments(parser: argparse.ArgumentParser, snapshot_argument: bool) -> None:
    group = parser.add_mutually_exclusive_group()
    if snapshot_argument:
        parser.add_argument(
            "snapshot",
            nargs="?",
            metavar="SNAPSHOT.json",
            help="a snapshot written by `stackcheck probe --json` ('-' reads stdin)",
        )
    group.add_argument("--host", action="store_true", help="probe this machine (the default)")
    group.add_argument(
        "--root",
        metavar="DIR",
        help="probe the filesystem tree at DIR (a mounted AMI volume, an extracted rootfs); "
        "nothing in it is run, and live-only sources are not consulted",
    )
    parser.add_argument(
        "--no-network",
        action="store_true",
        help="never ask the EC2 instance metadata service (otherwise asked only on EC2, 1 s max)",
    )


def add_matrix_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--matrix-dir",
        metavar="DIR",
        action="append",
        default=[],
        help="a directory of matrix TOML files laid over the bundled matrix (repeatable)",
    )


def add_report_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--format", choices=FORMAT_NAMES, default="text", help="output format")
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        default="error",
        help="exit 1 when a finding is at least this severe (default: error)",
    )


def snapshot_from(args: argparse.Namespace) -> Snapshot:
    from stackcheck.live.host import LiveHost
    from stackcheck.probes import probe_host, probe_root

    path = getattr(args, "snapshot", None)
    if path is not None:
        return read_snapshot(path)
    if args.root is not None:
        if not Path(args.root).is_dir():
            raise StackcheckError(f"--root {args.root}: not a directory")
        return probe_root(args.root)
    return probe_host(LiveHost(allow_network=not args.no_network))


def read_snapshot(path: str) -> Snapshot:
    """A snapshot from a file written by `stackcheck probe --json`, or stdin for ``-``."""
    from stackcheck.snapshot import load_snapshot

    if path == "-":
        return load_snapshot(sys.stdin.read(), "stdin")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StackcheckError(f"cannot read snapshot {path}: {exc.strerror or exc}") from None
    return load_snapshot(text, path)


def matrix_directories(args: argparse.Namespace) -> list[str]:
    """The user matrix directories laid over the bundled matrix, in order. A configuration file's
    matrix directories, when there is one, belong before the command line's, here."""
    return list(getattr(args, "matrix_dir", []))


def matrix_from(args: argparse.Namespace) -> Matrix:
    from stackcheck.matrix import load_matrix

    return load_matrix(matrix_directories(args))


def warn(message: str) -> None:
    sys.stderr.write(f"stackcheck: warning: {message}\n")


def emit(report: Report, args: argparse.Namespace) -> int:
    """The report on stdout; for text output, its warnings (a stale matrix) on stderr too."""
    from stackcheck.formats import get_format

    if args.format == "text":
        for notice in report.warnings:
            warn(notice.message)
    sys.stdout.write(get_format(args.format).render(report))
    return exit_code(report.findings, args.fail_on)


def exit_code(findings: Sequence[Finding], fail_on: str) -> int:
    from stackcheck.check.model import Severity

    if fail_on == "never":
        return EXIT_CLEAN
    threshold = Severity(fail_on)
    failing = any(f.severity.at_least(threshold) for f in findings)
    return EXIT_FINDINGS if failing else EXIT_CLEAN
