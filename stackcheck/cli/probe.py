"""``stackcheck probe``: read the stack and print it, or its snapshot as JSON."""

from __future__ import annotations

import argparse
import sys

from stackcheck.cli.common import EXIT_CLEAN, add_source_arguments, snapshot_from

HELP = "probe the host (or --root DIR) and print every component with where it was read"


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("probe", help=HELP, description=HELP)
    add_source_arguments(parser, snapshot_argument=False)
    parser.add_argument("--json", action="store_true", help="print the snapshot as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    snapshot = snapshot_from(args)
    if args.json:
        from stackcheck.snapshot import dump_snapshot

        sys.stdout.write(dump_snapshot(snapshot) + "\n")
    else:
        from stackcheck.formats.text import TextFormat, use_colour
        from stackcheck.redact import redact

        sys.stdout.write(TextFormat(colour=use_colour()).render_snapshot(redact(snapshot)))
    return EXIT_CLEAN
