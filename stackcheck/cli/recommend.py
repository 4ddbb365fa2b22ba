"""``stackcheck recommend``: the DLAMI, DLC image and NGC image that fit, best first."""

from __future__ import annotations

import argparse
import json
import sys

from stackcheck.cli.common import EXIT_CLEAN, add_command, read_snapshot, wants_json, warn

HELP = "recommend one stack: the DLAMI, and the AWS DLC and NGC images that run on its driver"
EPILOG = """\
The target comes from --snapshot (a `stackcheck probe --json` file, '-' for stdin) and the
options, which override it. Without either, every DLAMI and image is ranked for any instance.
DLAMIs: instance family and CPU architecture, a driver that supports the GPU, no older PyTorch
than asked, releases without a known issue (warning or error) first, newest first. Images are
ranked for the driver of the first DLAMI (one stack), or for the current driver with
--keep-driver: the GPU's architecture in the image's code, no older PyTorch than asked when an
equal or newer image fits, images the driver runs first, the PyTorch release asked for, no known
issue, still patched (past end of patch only when nothing else fits), native before CUDA
minor-version compatibility, newest first. A driver past the GPU's last branch runs no image:
each says so and what driver to go back to. Each DLAMI says how to get its AMI ID.

examples:
  stackcheck recommend --instance p5.48xlarge --driver 535.161.07 --torch 2.9
  stackcheck recommend --instance p5.48xlarge --driver 535.161.07 --keep-driver
  stackcheck recommend --gpu V100 --torch 2.5 --format json
  stackcheck probe --json | stackcheck recommend --snapshot -"""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(commands, "recommend", HELP, EPILOG)
    parser.add_argument("--instance", metavar="TYPE", help="EC2 instance type, e.g. p5.48xlarge")
    parser.add_argument("--gpu", metavar="NAME", help="GPU model, e.g. H100 or 'NVIDIA A10G'")
    parser.add_argument("--driver", metavar="VER", help="NVIDIA driver version, e.g. 535.161.07")
    parser.add_argument("--torch", metavar="VER", help="PyTorch release wanted, e.g. 2.5")
    parser.add_argument("--snapshot", metavar="FILE", help="start from a snapshot ('-': stdin)")
    parser.add_argument(
        "--keep-driver",
        action="store_true",
        help="keep the current AMI and driver: no DLAMI, images ranked for the current driver",
    )
    parser.add_argument(
        "--limit", type=int, default=3, metavar="N", help="recommendations per kind (default 3)"
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from stackcheck import clock
    from stackcheck.check.context import CheckContext
    from stackcheck.check.engine import matrix_notices
    from stackcheck.cli.common import matrix_from
    from stackcheck.formats.facts import render_recommendations
    from stackcheck.matrix import MatrixIndex
    from stackcheck.recommend import Target, recommend_for, target_from_context, with_overrides

    matrix = matrix_from(args)
    index = MatrixIndex(matrix)
    target = Target()
    if args.snapshot is not None:
        target = target_from_context(CheckContext(read_snapshot(args.snapshot), index))
    target = with_overrides(
        target, index, instance=args.instance, gpu=args.gpu, driver=args.driver, torch=args.torch
    )
    today = clock.today()
    found = recommend_for(
        target, index, today, limit=max(args.limit, 1), keep_driver=args.keep_driver
    )
    notices = matrix_notices(matrix, today)
    if wants_json(args):
        document = {
            "matrix_version": matrix.version,
            "warnings": [n.model_dump() for n in notices],
            "target": {
                "instance_type": target.instance_type,
                "family": target.family,
                "cpu_arch": target.cpu_arch,
                "gpus": [
                    {"name": g.name, "compute_capability": g.compute_capability}
                    for g in target.gpus
                ],
                "driver": target.driver,
                "torch": target.torch,
            },
            "images_for_driver": {
                "driver": found.basis.driver,
                "from": found.basis.origin,
                "keep_driver": args.keep_driver,
            },
            "recommendations": {
                kind: [r.model_dump(mode="json") for r in recs]
                for kind, recs in found.found.items()
            },
        }
        sys.stdout.write(json.dumps(document, indent=2) + "\n")
    else:
        for notice in notices:
            warn(notice.message)
        sys.stdout.write(render_recommendations(target.describe(), found.basis, found.found))
    return EXIT_CLEAN
