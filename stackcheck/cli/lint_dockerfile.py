"""``stackcheck lint-dockerfile PATH``: check a Dockerfile without building it."""

from __future__ import annotations

import argparse

from stackcheck.cli.common import add_matrix_argument, add_report_arguments, emit, matrix_from

HELP = "check a Dockerfile without building it: its base image, ENV lines and torch installs"
DESCRIPTION = f"""\
{HELP}.

The base image of the last stage resolves through the matrix when it is a known AWS Deep Learning
Container or NGC tag, or by its tag when it is nvidia/cuda; ENV lines go through the
environment-variable rules; `pip install torch` lines say which PyTorch build the image gets.
Findings point at the line that caused them. A comment line `# stackcheck: ignore[SC601]` right
above an instruction suppresses that rule there (suppressed findings are still listed)."""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "lint-dockerfile",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("dockerfile", metavar="PATH", help="the Dockerfile")
    add_matrix_argument(parser)
    add_report_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from stackcheck.check.engine import check
    from stackcheck.dockerfile.lint import lint_dockerfile, read_dockerfile
    from stackcheck.inputs import check_regular
    from stackcheck.matrix.index import MatrixIndex

    check_regular(args.dockerfile, "Dockerfile")  # a FIFO would block the read
    matrix = matrix_from(args)
    linted = lint_dockerfile(read_dockerfile(args.dockerfile), args.dockerfile, MatrixIndex(matrix))
    return emit(check(linted.snapshot, matrix), args, inline=linted.ignores)
