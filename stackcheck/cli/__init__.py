"""The command line. It only wires sources, checks and formats together; a module per command."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import NoReturn

from stackcheck import __version__
from stackcheck.cli import (
    check,
    fleet,
    lint_dockerfile,
    matrix,
    node_check,
    plan,
    probe,
    recommend,
    rules,
    scan,
    triage,
)
from stackcheck.cli.common import EXIT_CLEAN, EXIT_ERROR
from stackcheck.errors import StackcheckError

COMMANDS = (
    check,
    probe,
    scan,
    triage,
    lint_dockerfile,
    fleet,
    rules,
    matrix,
    recommend,
    plan,
    node_check,
)

DESCRIPTION = """\
Lint the software stack under GPU distributed training: NVIDIA driver, CUDA, cuDNN, NCCL,
EFA/libfabric, aws-ofi-nccl and PyTorch, against a sourced compatibility matrix.

With no command, stackcheck probes this host and checks it (same as `stackcheck check --host`).
Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 stackcheck could not
do its job (bad arguments, unreadable input)."""


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line, with exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_ERROR)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="stackcheck",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"stackcheck {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    for module in COMMANDS:
        module.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    if not arguments or (
        arguments[0].startswith("--") and arguments[0] not in ("--help", "--version")
    ):
        arguments = ["check", *arguments]
    parser = build_parser()
    args = parser.parse_args(arguments)
    args.started = time.monotonic()  # for the check's duration (prometheus output)
    try:
        return int(args.run(args))
    except StackcheckError as exc:
        sys.stderr.write(f"stackcheck: error: {exc}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("stackcheck: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
