"""The command line. It only wires sources, checks and formats together; a module per command."""

from __future__ import annotations

import argparse
import importlib
import sys
import time
import warnings
from collections.abc import Sequence
from typing import NoReturn

from stackcheck import __version__
from stackcheck.cli.common import EXIT_CLEAN, EXIT_ERROR
from stackcheck.errors import SeverityOutsideRange, StackcheckError

# Each command's module (stackcheck.cli.<module>, whose register() adds it) and the commands it
# registers, in --help's order. A run imports and registers only the module of its command:
# the others' arguments would cost `stackcheck probe` a hundredth of a second.
COMMANDS = (
    ("check", ("check",)),
    ("probe", ("probe",)),
    ("scan", ("scan",)),
    ("triage", ("triage",)),
    ("lint_dockerfile", ("lint-dockerfile",)),
    ("fleet", ("fleet",)),
    ("rules", ("rules", "explain")),
    ("matrix", ("matrix",)),
    ("recommend", ("recommend",)),
    ("plan", ("plan",)),
    ("node_check", ("node-check",)),
)

DESCRIPTION = """\
Lint the software stack under GPU distributed training: NVIDIA driver, CUDA, cuDNN, NCCL,
EFA/libfabric, aws-ofi-nccl and PyTorch, against a sourced compatibility matrix.

With no command, stackcheck probes this host and checks it (same as `stackcheck check --host`).
Exit codes: 0 nothing at or above --fail-on; 1 findings at or above it; 2 stackcheck could not
do its job (bad arguments, unreadable or refused input, or any failure of its own: one line on
stderr says which input and why; --debug adds the traceback)."""

# The arguments that name what a command reads, in the order a failure names them.
_INPUTS = (
    ("image", "image"),
    ("report", "report"),
    ("dockerfile", "Dockerfile"),
    ("snapshot", "snapshot"),
    ("root", "--root"),
    ("baseline", "--baseline"),
    ("config", "--config"),
)


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line, with exit code 2."""

    def error(self, message: str) -> NoReturn:
        sys.stderr.write(f"{self.prog}: error: {message} (see {self.prog} --help)\n")
        raise SystemExit(EXIT_ERROR)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every command, or of COMMAND alone (where it names one)."""
    parser = _Parser(
        prog="stackcheck",
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"stackcheck {__version__}")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on a failure, print the traceback too (accepted anywhere on the command line)",
    )
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=_Parser)
    chosen = [module for module, names in COMMANDS if command in names]
    for module in chosen or [module for module, _ in COMMANDS]:
        importlib.import_module(f"stackcheck.cli.{module}").register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in arguments
    arguments = [a for a in arguments if a != "--debug"]
    if not arguments or (
        arguments[0].startswith("--") and arguments[0] not in ("--help", "--version")
    ):
        arguments = ["check", *arguments]
    parser = build_parser(arguments[0] if arguments else None)
    args = parser.parse_args(arguments)
    args.started = time.monotonic()  # for the check's duration (prometheus output)
    # A rule's severity outside its declared range is the catalogue's mistake: a user's run prints
    # the finding, not a Python warning, unless the caller set its own filter (the tests: error).
    if not any(entry[2] is SeverityOutsideRange for entry in warnings.filters):
        warnings.filterwarnings("ignore", category=SeverityOutsideRange)
    try:
        return int(args.run(args))
    except StackcheckError as exc:
        from stackcheck.redact import redact_text

        sys.stderr.write(f"stackcheck: error: {redact_text(str(exc))}\n")
        return EXIT_ERROR
    except KeyboardInterrupt:
        sys.stderr.write("stackcheck: interrupted\n")
        return 130
    except BrokenPipeError:
        return EXIT_CLEAN
    except Exception as exc:
        import traceback

        from stackcheck.redact import redact_text

        if debug:
            traceback.print_exc()
        line = f"{_refused(args)}: {_describe(exc)}"
        sys.stderr.write(f"stackcheck: error: {redact_text(line)}")
        sys.stderr.write("" if debug else " (run with --debug for the traceback)")
        sys.stderr.write("\n")
        return EXIT_ERROR


def _refused(args: argparse.Namespace) -> str:
    """What input the failed command was reading, for the one line that reports it."""
    for attribute, label in _INPUTS:
        value = getattr(args, attribute, None)
        if isinstance(value, str) and value:
            return f"cannot read {label} {value}"
    return "internal error"


def _describe(exc: BaseException) -> str:
    if isinstance(exc, RecursionError):
        return "input nested too deeply (RecursionError)"
    if isinstance(exc, MemoryError):
        return "input too large to hold in memory (MemoryError)"
    text = " ".join(str(exc).split())[:300]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__
