"""``stackcheck scan IMAGE``: read an image without running it, check it, optionally against the
host it is meant for."""

from __future__ import annotations

import argparse
import os
import sys
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
    """A report from the result cache where one is kept for this very request, else a scan
    (its output kept for the next time)."""
    request = _request(args)
    if request is None:
        return _scan(args, sys.stderr)
    hit = request.cache.load(request.key)
    if hit is not None:
        return _replay(hit, args)
    return _scan_and_keep(args, request)


class _Request(NamedTuple):
    cache: ResultCache
    key: str
    path: Path  # the image's file or folder
    identity: str  # the SHA-256 of its bytes
    stamp: str  # its files' stamp when hashed


def _request(args: argparse.Namespace) -> _Request | None:
    """The result cache and this request's key, or None where the result is not kept: no
    cache, output written to files besides stdout (--output, --sarif, --report-json,
    --summary, --write-baseline), a format that stamps the time (prometheus), an input read
    from stdin, or an image that is not a local archive or layout."""
    from stackcheck.image.identity import local_path
    from stackcheck.results import ResultCache, request_key

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
        cache = ResultCache(_cache_dir(args))
        known = None if path is None else cache.identity(path)
        if path is None or known is None:
            return None
        identity, stamp = known
        options = {k: v for k, v in vars(args).items() if k not in _NOT_OPTIONS}
        inputs = [p for p in (args.host, args.dockerfile, args.baseline, args.config) if p]
        found = [] if args.config else [os.path.abspath(name) for name in _FOUND_CONFIGS]
        key = request_key(options, identity, inputs, found)
    except (StackcheckError, OSError, RuntimeError):
        return None  # no home, no current directory, a bad argument: the scan says what is wrong
    return None if key is None else _Request(cache, key, path, identity, stamp)


def _cache_dir(args: argparse.Namespace) -> Path:
    from stackcheck.cachedir import default_cache_dir

    return Path(args.cache_dir) if args.cache_dir else default_cache_dir()


def _replay(hit: Result, args: argparse.Namespace) -> int:
    sys.stderr.write(
        f"stackcheck: {args.image} unchanged ({hit.image[:19]}...): the report of its scan at "
        f"{hit.scanned}, from the cache (--no-cache scans again)\n"
    )
    sys.stderr.write(hit.stderr)
    sys.stdout.write(hit.stdout)
    return hit.code


def _scan_and_keep(args: argparse.Namespace, request: _Request) -> int:
    """Scan, and keep the output unless the image changed meanwhile."""
    from stackcheck.cli.common import matrix_directories
    from stackcheck.image.identity import image_stamp
    from stackcheck.matrix_files import bundled_dir
    from stackcheck.results import Result, matrix_of, now, recording

    matrix = matrix_of([bundled_dir(), *map(Path, matrix_directories(args))])
    scanned = now()
    progress = sys.stderr  # the progress line is not part of the output kept
    with recording() as record:
        code = _scan(args, progress)
    after = image_stamp(request.path)
    if matrix is None or after is None or after[0] != request.stamp:
        return code
    directories, digest = matrix
    output = "".join(record.stdout), "".join(record.stderr)
    result = Result(*output, code, request.identity, scanned, directories, digest)
    request.cache.store(request.key, result)
    return code


def _scan(args: argparse.Namespace, progress: TextIO) -> int:
    from stackcheck.check.engine import check
    from stackcheck.image.cache import LayerCache
    from stackcheck.image.progress import Progress
    from stackcheck.image.scan import scan_image
    from stackcheck.image.sources.resolve import open_source
    from stackcheck.matrix.index import MatrixIndex
    from stackcheck.probes import NEEDS
    from stackcheck.snapshot.target import TargetHost, pair_with_target
    from stackcheck.views.needs import CompiledNeeds

    matrix = matrix_from(args)
    host = read_snapshot(args.host) if args.host is not None else None
    dockerfile = None
    if args.dockerfile:
        # Only with --dockerfile: the lint pulls in every triage format (a tenth of a second).
        from stackcheck.dockerfile.lint import read_dockerfile

        dockerfile = read_dockerfile(args.dockerfile)
    target = TargetHost(args.driver, args.gpu, args.instance, host, f"host {args.host}")
    source = open_source(args.image, args.platform, args.insecure)
    cache = None
    if not args.no_cache:
        cache = LayerCache(_cache_dir(args), CompiledNeeds(NEEDS).fingerprint())
    snapshot, _ = scan_image(source, cache, Progress(progress))
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
