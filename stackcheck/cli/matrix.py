"""``stackcheck matrix``: what the compatibility matrix covers, and its facts about one key."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

from stackcheck.cli.common import EXIT_CLEAN, add_command, matrix_directories, wants_json, warn

if TYPE_CHECKING:
    from stackcheck.matrix.models import Matrix

HELP = "show what the compatibility matrix covers and how old it is, or its facts about one key"
# stackcheck.matrix.describe.COMMANDS, kept here so --help stays light (a test keeps them equal)
TABLES = (
    "cuda",
    "driver",
    "gpu",
    "torch",
    "cudnn",
    "nccl",
    "ofi-nccl",
    "efa",
    "instance",
    "dlami",
    "dlc",
    "ngc",
)
EPILOG = """\
examples:
  stackcheck matrix                       tables, entry counts, version ranges, age
  stackcheck matrix nccl                  every NCCL release the matrix knows
  stackcheck matrix nccl 2.21.5           its facts, sources, known issues, fitting plugins
  stackcheck matrix cuda 12.4             the 12.4 releases and the 12.x driver floor
  stackcheck matrix gpu H100              compute capability, instances, first NCCL
  stackcheck matrix instance p5.48xlarge  (or a family: instance p5)
  stackcheck matrix dlami "Base OSS"      DLAMIs by release date or name
  stackcheck matrix dlc 2.6.0             images by tag or PyTorch version
  stackcheck matrix efa 1.29.1            libfabric, aws-ofi-nccl, rdma-core it bundles
  stackcheck matrix ngc 24.05             the NGC PyTorch image of that release
  stackcheck matrix --audit               entries by provenance (primary, secondary, unsure)
  stackcheck matrix --audit efa           ... and every EFA installer entry with its class

A key the matrix does not know is an error: one line on stderr, exit code 2."""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = add_command(commands, "matrix", HELP, EPILOG)
    parser.add_argument("table", nargs="?", choices=TABLES, metavar="TABLE", help=", ".join(TABLES))
    parser.add_argument("key", nargs="?", metavar="KEY", help="a version, name, tag or date")
    parser.add_argument(
        "--audit",
        action="store_true",
        help="count entries by provenance (primary, secondary, unsure); with TABLE, list them",
    )
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from stackcheck import clock
    from stackcheck.check.engine import matrix_notices
    from stackcheck.formats.facts import render_answer, render_coverage, render_listing
    from stackcheck.matrix import MatrixIndex, load_matrix
    from stackcheck.matrix.describe import coverage, listing, lookup
    from stackcheck.matrix.freshness import MAX_AGE_DAYS, age_days, stale_warning

    overlays = matrix_directories(args)
    matrix = load_matrix(overlays)
    index = MatrixIndex(matrix)
    today = clock.today()
    stale = stale_warning(matrix, today)
    body: dict[str, Any]
    if args.audit:
        body, text = _audit(matrix, args.table)
    elif args.table is None:
        rows = coverage(index)
        age = age_days(matrix, today)
        body = {
            "tables": [r.model_dump(mode="json") for r in rows],
            "overlays": overlays,
        }
        text = render_coverage(
            matrix.version, str(matrix.built) if matrix.built else None, age, rows, overlays
        )
    elif args.key is None:
        keys = listing(index, args.table)
        body = {"table": args.table, "keys": [{"key": k, "unsure": u} for k, u in keys]}
        text = render_listing(args.table, keys)
    else:
        answer = lookup(index, args.table, args.key)
        body = answer.model_dump(mode="json")
        text = render_answer(answer)
    if wants_json(args):
        meta = {
            "version": matrix.version,
            "built": str(matrix.built) if matrix.built else None,
            "age_days": age_days(matrix, today),
            "max_age_days": MAX_AGE_DAYS,
            "stale": stale is not None,
        }
        warnings = [n.model_dump() for n in matrix_notices(matrix, today)]
        sys.stdout.write(
            json.dumps({"matrix": meta, "warnings": warnings, **body}, indent=2) + "\n"
        )
    else:
        if stale:
            warn(stale)
        sys.stdout.write(text)
    return EXIT_CLEAN


def _audit(matrix: Matrix, command: str | None) -> tuple[dict[str, Any], str]:
    from stackcheck.formats.facts import render_audit
    from stackcheck.matrix.describe import table_named
    from stackcheck.matrix.provenance import audit, audit_entries, primary_share

    rows = audit(matrix)
    share = primary_share(rows)
    fields = table_named(command).fields if command else ()
    entries = [e for e in audit_entries(matrix) if e.table in fields]
    body = {
        "audit": [{**r.model_dump(), "total": r.total} for r in rows],
        "primary_share": round(share, 4),
        "entries": [e.model_dump() for e in entries],
    }
    return body, render_audit(rows, share, entries)
