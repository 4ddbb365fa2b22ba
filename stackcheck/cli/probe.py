"""``stackcheck probe``: read the stack and print it, or its snapshot as JSON."""

from __future__ import annotations

import argparse
import sys

from stackcheck.cli.common import (
    EXIT_CLEAN,
    add_source_arguments,
    add_text_or_json_arguments,
    snapshot_from,
    wants_json,
)

HELP = "probe the host (or --root DIR) and print every component with where it was read"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("probe", help=HELP, description=HELP)
    add_source_arguments(parser, snapshot_argument=False)
    add_text_or_json_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    snapshot = snapshot_from(args)
    if wants_json(args):
        from stackcheck.snapshot import dump_snapshot

        sys.stdout.write(dump_snapshot(snapshot) + "\n")
    else:
        from stackcheck.formats.text import TextFormat, use_colour
        from stackcheck.redact import redact

        sys.stdout.write(TextFormat(colour=use_colour()).render_snapshot(redact(snapshot)))
    return EXIT_CLEAN
