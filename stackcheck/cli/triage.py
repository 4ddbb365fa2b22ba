"""``stackcheck triage``: read pasted output (collect_env, nvidia-smi, NCCL logs, pip lists,
docker/compose/Kubernetes specs, ...) and check the stack it describes."""

from __future__ import annotations

import argparse
import sys

from stackcheck import limits
from stackcheck.cli.common import (
    add_matrix_argument,
    add_report_arguments,
    emit,
    matrix_from,
    warn,
)
from stackcheck.errors import StackcheckError
from stackcheck.inputs import read_regular, read_stream

HELP = "check the stack a pasted report describes (a GitHub issue, a log, a spec); '-' reads stdin"
_CUT = limits.PASTED_TEXT_BYTES >> 20
DESCRIPTION = f"""\
Read text that holds tool output - python -m torch.utils.collect_env (and vLLM/SGLang's),
nvidia-smi (table, -q, nvlink -s, topo -m), lspci -vv, setpci reads of ACS Control,
ibv_devinfo, dmesg Xid lines, nvcc --version, NCCL_DEBUG=INFO logs (and NVIDIA/nccl's and
TensorFlow's issue forms), nccl-tests and p2pBandwidthLatencyTest output, pip/conda lists,
fi_info (-p efa, -v), /opt/amazon/efa_installed_packages, ulimit -a (and a launcher's tasks
answering ulimit -l), lsmod, df, ldconfig -p, docker run lines, Singularity/Apptainer commands,
docker-compose services, Kubernetes specs and GPU Feature Discovery labels, Dockerfiles,
environment dumps, dpkg -l / apt list / rpm -qa, accelerate env / transformers env, ds_report,
torch.__config__.show(), nvidia-container-cli info, python -c one-liners - and several hundred
known error and warning messages (CUDA, cuDNN, NVML, PyTorch, TensorFlow, JAX, NCCL,
aws-ofi-nccl, libfabric, UCX, the fabric manager, the container toolkit, the kernel) - in any
order, with Markdown fences, <details>, tables, quotes, prompts and prose around it. What the
text states
becomes a partial snapshot (what it does not state stays unknown) and the rules run on it.
Only the first {_CUT} MiB is read (a warning says when the rest was cut); secrets in it (tokens,
keys, URL credentials) are masked in every output."""


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "triage",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("report", metavar="FILE", help="the text to read ('-' for stdin)")
    parser.add_argument(
        "--show-parsed",
        action="store_true",
        help="also show each segment found and what was read from it",
    )
    add_matrix_argument(parser)
    add_report_arguments(parser)
    parser.set_defaults(run=run)


def read_text(path: str) -> tuple[str, str]:
    """The report's text (its first ``limits.PASTED_TEXT_BYTES``; a warning says when the rest
    was cut) and the name to cite it by; bad input is a StackcheckError."""
    name = "stdin" if path == "-" else path
    limit = limits.PASTED_TEXT_BYTES
    if path == "-":
        data, more = read_stream(sys.stdin.buffer, limit)
    else:
        data, more = read_regular(path, "report", limit, cut=True)
    if b"\x00" in data:
        raise StackcheckError(f"{name}: binary data, not text")
    if more:
        data = data[: data.rfind(b"\n") + 1] or data  # whole lines only
        warn(f"{name}: only the first {len(data)} bytes were read; the rest was cut")
    return data.decode("utf-8", errors="replace"), name


def run(args: argparse.Namespace) -> int:
    from stackcheck.check.engine import check
    from stackcheck.formats.parsed import parsed_json, render_parsed
    from stackcheck.ingest import read_report
    from stackcheck.ingest.describe import nothing_recognised
    from stackcheck.ingest.lines import split_lines
    from stackcheck.redact import redact_text

    text, name = read_text(args.report)
    triage = read_report(text, name)
    if not triage.recognised:
        # Exit 2 only when nothing at all was read; a part that was not understood next to one
        # that was is ordinary (prose around a log) and costs nothing.
        raise StackcheckError(nothing_recognised(name, split_lines(text)))
    report = check(triage.snapshot, matrix_from(args))
    if not args.show_parsed:
        return emit(report, args)
    if args.format == "json":
        return emit(report, args, json_extra={"parsed": parsed_json(triage)})
    sys.stdout.write(redact_text(render_parsed(triage)) + "\n")
    return emit(report, args)
