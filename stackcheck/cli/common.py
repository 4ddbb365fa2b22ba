"""Options and steps that several commands share: where the snapshot comes from, the matrix,
the output format, and the exit code.

The heavier modules (models, probes, rules) are imported inside the functions that use them, so
a command loads only what it needs: `stackcheck probe` must start fast on a busy node.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

from stackcheck.errors import StackcheckError
from stackcheck.policy.levels import FAIL_ON

if TYPE_CHECKING:
    from collections.abc import Sequence

    from stackcheck.check.model import Finding, Report
    from stackcheck.formats.base import ReportFormat
    from stackcheck.formats.prometheus import RunFacts
    from stackcheck.matrix import Matrix
    from stackcheck.matrix_files import MatrixFiles
    from stackcheck.policy.apply import InlineIgnores
    from stackcheck.policy.config import Config
    from stackcheck.snapshot import Snapshot

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
# stackcheck.formats.FORMAT_NAMES, repeated here so that --help does not import every format.
FORMAT_NAMES = ("text", "json", "sarif", "github", "markdown", "prometheus")
PLAN_FORMAT_NAMES = ("text", "json")  # stackcheck.formats.PLAN_FORMAT_NAMES, likewise


def add_command(
    commands: argparse._SubParsersAction[argparse.ArgumentParser], name: str, help: str, epilog: str
) -> argparse.ArgumentParser:
    """A subcommand whose --help ends with examples (``epilog``, printed as written), and that
    takes --format text|json (or --json) and the user matrix directories."""
    parser = commands.add_parser(
        name,
        help=help,
        description=help,
        epilog=epilog,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_text_or_json_arguments(parser)
    add_matrix_argument(parser)
    return parser


def add_text_or_json_arguments(parser: argparse.ArgumentParser) -> None:
    """--format text|json, as every command that prints takes it; --json is its older spelling
    (`fleet --slurm` runs `probe --json` on nodes that may have an older stackcheck)."""
    parser.add_argument("--format", choices=("text", "json"), default="text", help="output format")
    parser.add_argument("--json", action="store_true", help="the same as --format json")


def wants_json(args: argparse.Namespace) -> bool:
    return bool(args.json) or args.format == "json"


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
    """Output and gate options of the commands that produce a report (check, scan, triage)."""
    add_output_arguments(parser, FORMAT_NAMES)
    add_gate_arguments(parser)


def add_output_arguments(parser: argparse.ArgumentParser, formats: tuple[str, ...]) -> None:
    parser.add_argument("--format", choices=formats, default="text", help="output format")
    if "prometheus" in formats:
        add_output_file_argument(parser)
    parser.add_argument(
        "--fail-on",
        choices=FAIL_ON,
        help="exit 1 when a finding is at least this severe (default: the config's, else error)",
    )


def add_output_file_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--output",
        metavar="FILE",
        help="write the output to FILE instead of stdout, atomically (a reader such as "
        "node_exporter's textfile collector never sees half a file)",
    )


def add_gate_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--config",
        metavar="FILE",
        help="configuration file (default: .stackcheck.toml, else [tool.stackcheck] in "
        "pyproject.toml, in the current directory)",
    )
    parser.add_argument(
        "--baseline", metavar="FILE", help="findings recorded in FILE do not fail the gate"
    )
    parser.add_argument(
        "--write-baseline", metavar="FILE", help="record the current findings in FILE"
    )
    parser.add_argument(
        "--show-suppressed", action="store_true", help="list suppressed findings in text output"
    )
    parser.add_argument("--sarif", metavar="FILE", help="also write SARIF 2.1.0 to FILE")
    parser.add_argument("--report-json", metavar="FILE", help="also write the JSON report to FILE")
    parser.add_argument(
        "--summary",
        metavar="FILE",
        help="append a Markdown summary to FILE (default: $GITHUB_STEP_SUMMARY when set)",
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
    from stackcheck import limits
    from stackcheck.inputs import decode_utf8, read_regular, read_stream
    from stackcheck.snapshot import load_snapshot

    if path == "-":
        data, more = read_stream(sys.stdin.buffer, limits.JSON_FILE_BYTES)
        if more:
            raise StackcheckError(f"stdin: larger than {limits.JSON_FILE_BYTES} bytes; refused")
        return load_snapshot(decode_utf8(data, "stdin"), "stdin")
    data, _ = read_regular(path, "snapshot", limits.JSON_FILE_BYTES)
    return load_snapshot(decode_utf8(data, path), path)


def config_from(args: argparse.Namespace) -> Config:
    """The configuration, read once per command; its matrix-dirs and fail-on apply."""
    cached: Config | None = getattr(args, "loaded_config", None)
    if cached is None:
        from stackcheck.policy.config import find_config, load_config
        from stackcheck.rules import RULES

        path = find_config(getattr(args, "config", None), Path.cwd())
        cached = load_config(path, {r.id for r in RULES})
        args.loaded_config = cached
    return cached


def matrix_directories(args: argparse.Namespace) -> list[str]:
    """The user matrix directories laid over the bundled matrix, in order: the configuration
    file's first, then the command line's."""
    return [*config_from(args).matrix_dirs, *getattr(args, "matrix_dir", [])]


def matrix_from(args: argparse.Namespace, layers: list[MatrixFiles] | None = None) -> Matrix:
    """The matrix, validated once per content and kept in the cache directory (scan's
    --cache-dir where given; none with --no-cache); from ``layers`` where the caller has read
    the files already (:func:`matrix_layers`)."""
    from stackcheck.cachedir import usable_cache_dir
    from stackcheck.matrix.loader import load_layers

    cache = None
    if not getattr(args, "no_cache", False):
        given = getattr(args, "cache_dir", None)
        cache = Path(given) if given else usable_cache_dir()
    return load_layers(matrix_layers(args) if layers is None else layers, cache)


def matrix_sources(args: argparse.Namespace) -> list[Path]:
    """Every matrix directory read, in order: the bundled one, then the user's."""
    from stackcheck.matrix_files import bundled_dir

    return [bundled_dir(), *map(Path, matrix_directories(args))]


def matrix_layers(args: argparse.Namespace) -> list[MatrixFiles]:
    """The files of :func:`matrix_sources`, read."""
    from stackcheck.matrix_files import read_layers

    return read_layers(matrix_sources(args))


def warn(message: str) -> None:
    sys.stderr.write(f"stackcheck: warning: {message}\n")


def emit(
    report: Report,
    args: argparse.Namespace,
    json_extra: dict[str, Any] | None = None,
    inline: InlineIgnores | None = None,
) -> int:
    """Apply the policy, write the side files, print the chosen format (for text output, the
    report's warnings, such as a stale matrix, go to stderr too), return the exit code.
    ``json_extra`` adds keys to the JSON printed on stdout (triage's ``parsed``); ``inline``
    holds a Dockerfile's inline ignores."""
    report = settle(report, args, inline)
    show(report, args, json_extra)
    if args.write_baseline:
        return EXIT_CLEAN  # recording the findings is the job asked for, and it succeeded
    return exit_code(report.findings, fail_threshold(args))


def settle(report: Report, args: argparse.Namespace, inline: InlineIgnores | None = None) -> Report:
    """The report with the policy applied (config, baseline, inline ignores), and the side files
    (--write-baseline, --sarif, --report-json, --summary) written."""
    from stackcheck.formats import get_format
    from stackcheck.policy.apply import apply_policy
    from stackcheck.policy.baseline import load_baseline, write_baseline
    from stackcheck.redact import redact

    report = redact(report)  # every format, side file and baseline below prints this copy
    config = config_from(args)
    baseline = load_baseline(Path(args.baseline)) if args.baseline else set()
    report = apply_policy(report, config, baseline, args.baseline or "", inline)
    if args.write_baseline:
        count = write_baseline(report, Path(args.write_baseline))
        sys.stderr.write(
            f"stackcheck: wrote {count} finding(s) to baseline {args.write_baseline}\n"
        )
    side_files = {args.sarif: "sarif", args.report_json: "json"}
    for path, name in side_files.items():
        if path:  # replaced whole, so that a reader never sees half a file
            write_atomically(Path(path), get_format(name).render(report))
    summary = args.summary or os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:  # GitHub's step summary is one file each step appends to
        _append(Path(summary), get_format("markdown").render(report))
    return report


def show(
    report: Report,
    args: argparse.Namespace,
    json_extra: dict[str, Any] | None = None,
    form: ReportFormat | None = None,
) -> None:
    """Print the report in --format (or in ``form``, a format the command builds itself)."""
    from stackcheck.formats import get_format
    from stackcheck.formats.text import use_colour
    from stackcheck.redact import redact

    if args.format == "text":
        for notice in report.warnings:
            warn(notice.message)
    if args.format == "json" and json_extra:
        document = {**report.model_dump(mode="json"), **redact(json_extra)}
        output(json.dumps(document, indent=2) + "\n", args)
        return
    if form is None:
        # No colour codes in a file written with --output, whatever stdout is.
        colour = use_colour() and not getattr(args, "output", None)
        form = get_format(args.format, args.show_suppressed, colour, run_facts(args))
    output(form.render(report), args)


def started(args: argparse.Namespace) -> float:
    """When the command started (time.monotonic()), as main() noted it."""
    return float(getattr(args, "started", time.monotonic()))


def run_facts(args: argparse.Namespace) -> RunFacts:
    """When this check ran and how long it took, for the metrics that say so."""
    from stackcheck.formats.prometheus import RunFacts

    return RunFacts(datetime.now(timezone.utc), time.monotonic() - started(args))


def output(text: str, args: argparse.Namespace) -> None:
    """The command's output: to --output FILE (atomically) where given, else stdout."""
    path = getattr(args, "output", None)
    if path:
        write_atomically(Path(path), text)
    else:
        sys.stdout.write(text)


def write_atomically(path: Path, text: str) -> None:
    """--output FILE (and a report's side files), replaced atomically and readable to all (a
    collector such as node_exporter's textfile collector may run as another user). Through a
    symbolic link the file it names is replaced, not the link; what is not a regular file (a
    pipe, /dev/stdout) is written into, since renaming over it would replace the device."""
    from stackcheck.atomic import write_atomically as write

    target = Path(os.path.realpath(path))
    try:
        if target.exists() and not target.is_file():
            with target.open("w", encoding="utf-8") as handle:
                handle.write(text)
        else:
            write(target, text.encode("utf-8"), mode=0o644)
    except OSError as exc:
        raise StackcheckError(f"cannot write {path}: {exc.strerror or exc}") from None


def fail_threshold(args: argparse.Namespace) -> str:
    """--fail-on, else the configuration's fail-on, else error."""
    return str(args.fail_on or config_from(args).fail_on or "error")


def _append(path: Path, text: str) -> None:
    try:
        with path.open("a", encoding="utf-8") as handle:
            handle.write(text)
    except OSError as exc:
        raise StackcheckError(f"cannot write {path}: {exc.strerror or exc}") from None


def exit_code(findings: Sequence[Finding], fail_on: str) -> int:
    from stackcheck.check.model import failing

    return EXIT_FINDINGS if failing(findings, fail_on) else EXIT_CLEAN
