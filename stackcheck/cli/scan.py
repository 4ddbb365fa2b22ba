"""``stackcheck scan IMAGE``: read an image without running it, check it, optionally against the
host it is meant for."""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, TextIO

from stackcheck.cli.common import (
    add_matrix_argument,
    add_report_arguments,
    emit,
    matrix_from,
    read_snapshot,
)
from stackcheck.cli.lint_dockerfile import add_build_arguments
from stackcheck.errors import StackcheckError

if TYPE_CHECKING:
    from stackcheck.matrix_files import MatrixFiles
    from stackcheck.results import Result, ResultCache

HELP = "scan a container image (archive, OCI layout, engine, registry) without running it"
IMAGE_HELP = (
    "docker-archive:PATH, oci-archive:PATH, oci:PATH (each with an optional :TAG), "
    "docker://REF (the engine at DOCKER_HOST, else the registry), registry://REF, "
    "a path, or a bare REF"
)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser("scan", help=HELP, description=HELP)
    parser.add_argument("image", metavar="IMAGE", help=IMAGE_HELP)
    parser.add_argument(
        "--platform",
        default="linux/amd64",
        help="the image of a multi-platform index to scan (default: linux/amd64)",
    )
    parser.add_argument(
        "--insecure",
        action="store_true",
        help="allow plain HTTP and unverified TLS to the registry (always allowed on loopback)",
    )
    cache = parser.add_mutually_exclusive_group()
    cache.add_argument(
        "--cache-dir",
        metavar="DIR",
        type=Path,
        help="where layer indexes, the validated matrix and finished reports are kept between "
        "runs (default: $XDG_CACHE_HOME/stackcheck)",
    )
    cache.add_argument(
        "--no-cache",
        action="store_true",
        help="neither read nor write the cache: every layer is read and the report made anew",
    )
    target = parser.add_argument_group("target host (what the image will run on)")
    target.add_argument(
        "--driver", metavar="VERSION", help="the host's NVIDIA driver, e.g. 550.54.15"
    )
    target.add_argument("--gpu", metavar="NAME", help="the host's GPU model, e.g. 'NVIDIA H100'")
    target.add_argument(
        "--instance", metavar="TYPE", help="the EC2 instance type, e.g. p5.48xlarge"
    )
    target.add_argument(
        "--host",
        metavar="SNAPSHOT.json",
        help="a host snapshot (`stackcheck probe --json`) to take the driver, GPUs, instance "
        "and EFA devices from",
    )
    parser.add_argument(
        "--dockerfile",
        metavar="PATH",
        help="the Dockerfile the image was built from: findings point at its lines, and its "
        "`# stackcheck: ignore[ID]` comments apply",
    )
    add_build_arguments(parser)  # how the image was built from --dockerfile
    add_matrix_argument(parser)
    add_report_arguments(parser)
    parser.set_defaults(run=run)


# Set by main() or by a run, not options: they do not decide the report.
_NOT_OPTIONS = ("run", "started", "loaded_config")
# policy.config's CONFIG_FILE and PYPROJECT, named here so that a cache hit imports no policy.
_FOUND_CONFIGS = (".stackcheck.toml", "pyproject.toml")


def run(args: argparse.Namespace) -> int:
    """A report from the result cache where one is kept for this very request and image, else
    a scan (its output kept for the next time)."""
    from stackcheck.results import result_key

    request = _request(args)
    if request is None:
        return _scan(args, sys.stderr)
    content = request.cache.recall_image(request.path, request.reading, request.stamp[0])
    if content is not None:
        hit = request.cache.load(result_key(request.digest, content))
        if hit is not None:
            return _replay(hit, args)
    return _scan_and_keep(args, request)


class _Request(NamedTuple):
    cache: ResultCache
    digest: str  # what decides the output besides the image (request_digest)
    path: Path  # the image's file or folder
    reading: str  # how it is read: the argument and the platform
    stamp: tuple[str, int]  # its files' stamp, and their latest time (ns)
    stamped_at: int  # when the stamp was taken (ns)


def _request(args: argparse.Namespace) -> _Request | None:
    """The result cache and this request, or None where the result is not kept: no cache,
    output written to files besides stdout (--output, --sarif, --report-json, --summary,
    --write-baseline), a format that stamps the time (prometheus), an input read from stdin,
    or an image that is not a local archive or layout."""
    from stackcheck.image.identity import image_stamp, local_path
    from stackcheck.results import ResultCache

    files = (args.output, args.sarif, args.report_json, args.summary, args.write_baseline)
    if (
        args.no_cache
        or any(files)
        or os.environ.get("GITHUB_STEP_SUMMARY")
        or args.format == "prometheus"
        or "-" in (args.host, args.dockerfile)
    ):
        return None
    try:
        path = local_path(args.image)
        stamped_at = time.time_ns()
        stamp = None if path is None else image_stamp(path)
        if path is None or stamp is None:
            return None
        options = {k: v for k, v in vars(args).items() if k not in _NOT_OPTIONS}
        inputs = [p for p in (args.host, args.dockerfile, args.baseline, args.config) if p]
        found = [] if args.config else [os.path.abspath(name) for name in _FOUND_CONFIGS]
        directory = _cache_dir(args)
        if directory is None:
            return None
        cache = ResultCache(directory)
        digest = cache.request_digest(options, inputs, found)
    except (StackcheckError, OSError, RuntimeError):
        return None  # no home, no current directory, a bad argument: the scan says what is wrong
    if digest is None:
        return None
    reading = repr((args.image, args.platform))
    return _Request(cache, digest, path, reading, stamp, stamped_at)


def _cache_dir(args: argparse.Namespace) -> Path | None:
    """--cache-dir, else the user's cache directory; None where there is no home for one (the
    scan then reads every layer, as with --no-cache)."""
    from stackcheck.cachedir import usable_cache_dir

    return Path(args.cache_dir) if args.cache_dir else usable_cache_dir()


def _replay(hit: Result, args: argparse.Namespace) -> int:
    sys.stderr.write(
        f"stackcheck: {args.image} unchanged since its scan at {hit.scanned}: the report "
        "from the cache (--no-cache scans again)\n"
    )
    sys.stderr.write(hit.stderr)
    sys.stdout.write(hit.stdout)
    return hit.code


def _scan_and_keep(args: argparse.Namespace, request: _Request) -> int:
    """Scan, and keep the output (and what the scan read) unless the image changed meanwhile."""
    from stackcheck.cli.common import matrix_sources
    from stackcheck.image.identity import image_stamp
    from stackcheck.matrix_files import read_layers
    from stackcheck.results import Result, matrix_of, now, recording, result_key

    sources = matrix_sources(args)
    try:
        layers = read_layers(sources)  # once: the matrix the scan uses is the one hashed
    except (StackcheckError, OSError):
        layers = None  # the scan reads them again and says what is wrong
    scanned = now()
    read: list[str] = []
    progress = sys.stderr  # the progress line is not part of the output kept
    with recording() as record:
        code = _scan(args, progress, read.append, layers)
    after = image_stamp(request.path)
    if layers is None or not read or after is None or after[0] != request.stamp[0]:
        return code
    directories, digest = matrix_of(sources, layers)
    output = "".join(record.stdout), "".join(record.stderr)
    result = Result(*output, code, read[0], scanned, directories, digest)
    request.cache.store(result_key(request.digest, read[0]), result)
    request.cache.remember_image(
        request.path, request.reading, request.stamp, request.stamped_at, read[0]
    )
    return code


def _scan(
    args: argparse.Namespace,
    progress: TextIO,
    read: Callable[[str], None] | None = None,
    matrix_layers: list[MatrixFiles] | None = None,
) -> int:
    """The scan, its check and report; ``read`` is told what the scan read from the image (the
    snapshot's content digest), before the target host is paired with it; ``matrix_layers``: the
    matrix files, where already read."""
    from stackcheck.check.engine import check
    from stackcheck.image.cache import LayerCache
    from stackcheck.image.progress import Progress
    from stackcheck.image.scan import scan_image
    from stackcheck.image.sources.resolve import open_source
    from stackcheck.matrix.index import MatrixIndex
    from stackcheck.probes import NEEDS
    from stackcheck.snapshot.target import TargetHost, pair_with_target
    from stackcheck.views.needs import CompiledNeeds

    matrix = matrix_from(args, matrix_layers)
    host = read_snapshot(args.host) if args.host is not None else None
    dockerfile = None
    if args.dockerfile:
        # Only with --dockerfile: the lint pulls in every triage format (a tenth of a second).
        from stackcheck.dockerfile.lint import read_dockerfile

        dockerfile = read_dockerfile(args.dockerfile)
    target = TargetHost(args.driver, args.gpu, args.instance, host, f"host {args.host}")
    source = open_source(args.image, args.platform, args.insecure)
    directory = None if args.no_cache else _cache_dir(args)
    cache = None if directory is None else LayerCache(directory, CompiledNeeds(NEEDS).fingerprint())
    snapshot, _ = scan_image(source, cache, Progress(progress))
    if read is not None:
        from stackcheck.snapshot.io import content_digest

        read(content_digest(snapshot))
    index = MatrixIndex(matrix)
    if target.given:
        pair_with_target(snapshot, target, index)
    report = check(snapshot, matrix)
    if dockerfile is None:
        return emit(report, args)
    from stackcheck.dockerfile.anchors import anchor_findings
    from stackcheck.dockerfile.build import BuildOptions
    from stackcheck.dockerfile.lint import lint_dockerfile

    options = BuildOptions(dict(args.build_arg), args.target, args.platform)
    linted = lint_dockerfile(dockerfile, args.dockerfile, index, options)
    layers = snapshot.image.layers if snapshot.image else []
    report = anchor_findings(report, linted, args.dockerfile, layers)
    return emit(report, args, inline=linted.ignores)
