"""``stackcheck scan IMAGE``: read an image without running it, check it, optionally against the
host it is meant for."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from stackcheck.cli.common import (
    add_matrix_argument,
    add_report_arguments,
    emit,
    matrix_from,
    read_snapshot,
)
from stackcheck.cli.lint_dockerfile import add_build_arguments

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
        help="where layer indexes and the validated matrix are kept between runs "
        "(default: $XDG_CACHE_HOME/stackcheck)",
    )
    cache.add_argument("--no-cache", action="store_true", help="neither read nor write the cache")
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


def run(args: argparse.Namespace) -> int:
    from stackcheck.check.engine import check
    from stackcheck.image.cache import LayerCache, default_cache_dir
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
        cache = LayerCache(
            args.cache_dir or default_cache_dir(), CompiledNeeds(NEEDS).fingerprint()
        )
    snapshot, _ = scan_image(source, cache, Progress(sys.stderr))
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
