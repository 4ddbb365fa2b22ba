"""``stackcheck lint-dockerfile PATH|DIR``: check Dockerfiles without building them."""

from __future__ import annotations

import argparse

from stackcheck.cli.common import add_matrix_argument, add_report_arguments, emit, matrix_from

HELP = "check a Dockerfile (or every Dockerfile under a directory) without building it"
DESCRIPTION = f"""\
{HELP}.

The file is read as `docker build` reads it: ARG and ENV in scope and expanded (`--build-arg`
overrides a default), stages as a graph, the stage `docker build` builds (or `--target`). The
base image's stack comes from the matrix (AWS Deep Learning Containers in every registry and tag
form, NGC) or from its tag (nvidia/cuda, pytorch/pytorch); every install step that pins PyTorch,
CUDA, cuDNN, NCCL, the EFA installer, aws-ofi-nccl or libfabric is layered over it, each with
its line. Findings point at the line that caused them. A comment line
`# stackcheck: ignore[SC601]` right above an instruction suppresses that rule there (suppressed
findings are still listed). Given a directory, every Dockerfile under it (Dockerfile,
Dockerfile.*, *.Dockerfile, Containerfile) is checked into one report. A file that does not
parse ends the command with exit 2 and one line naming the file and line."""


def _build_arg(text: str) -> tuple[str, str]:
    name, eq, value = text.partition("=")
    if not eq or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=VALUE, not {text!r}")
    return name, value


def add_build_arguments(parser: argparse.ArgumentParser) -> None:
    """``--build-arg`` and ``--target``, as ``docker build`` takes them."""
    parser.add_argument(
        "--build-arg",
        metavar="NAME=VALUE",
        type=_build_arg,
        action="append",
        default=[],
        help="a build argument, as `docker build --build-arg` (repeatable)",
    )
    parser.add_argument(
        "--target", metavar="STAGE", help="the stage built (default: the last, as docker)"
    )


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "lint-dockerfile",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "dockerfile", metavar="PATH", help="a Dockerfile, a directory, or - for standard input"
    )
    add_build_arguments(parser)
    parser.add_argument(
        "--platform",
        metavar="OS/ARCH",
        help="the target platform, for TARGETPLATFORM/TARGETARCH (default: linux/amd64)",
    )
    add_matrix_argument(parser)
    add_report_arguments(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from stackcheck.dockerfile.build import BuildOptions
    from stackcheck.dockerfile.many import lint_paths
    from stackcheck.matrix.index import MatrixIndex

    matrix = matrix_from(args)
    options = BuildOptions(dict(args.build_arg), args.target, args.platform)
    report, ignores = lint_paths(args.dockerfile, matrix, MatrixIndex(matrix), options)
    return emit(report, args, inline=ignores)
