"""``stackcheck check``: hold a snapshot (or the host, or a tree) against the matrix and rules."""

from __future__ import annotations

import argparse

from stackcheck.cli.common import (
    add_matrix_argument,
    add_report_arguments,
    add_source_arguments,
    emit,
    matrix_from,
    snapshot_from,
)

HELP = "check a snapshot, the host (default) or a --root tree; exit 1 on findings at --fail-on"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("check", help=HELP, description=HELP)
    add_source_arguments(parser, snapshot_argument=True)
    add_matrix_argument(parser)
    add_report_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from stackcheck.check.engine import check

    matrix = matrix_from(args)
    return emit(check(snapshot_from(args), matrix), args)
