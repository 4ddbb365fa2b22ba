"""``stackcheck plan``: will a training job fit in GPU memory, where, and with which layout."""

from __future__ import annotations

import argparse
import sys

from stackcheck.cli.common import (
    EXIT_FINDINGS,
    PLAN_FORMAT_NAMES,
    add_matrix_argument,
    add_output_arguments,
    exit_code,
    fail_threshold,
)

HELP = "plan a training job: memory per GPU, a verdict, the instances it fits on, layout lint"
DESCRIPTION = f"""\
{HELP}.

The model: --model reads a Hugging Face config.json (or a bundled model) and counts its
parameters exactly, total and active per token; --params alone derives a shape, and says so.
Memory per GPU is computed term by term (parameters, gradients, optimizer states, activations,
a reserve for the CUDA context, NCCL and fragmentation) against the GPU memory of the instance
type, from the matrix, in the precision the GPU can train in. A job fits with at least 5% of GPU
memory to spare; less is tight. With --instance the job is judged as given (unset sizes: TP = PP
= 1, the fewest nodes, DP filling them) and the smallest change that makes it fit is searched;
without it, every instance type in the matrix is tried and ranked by an estimated time per step
(GPU-hours per million tokens), each with its bottleneck. Exit codes: 0 fits; 1 will OOM as
given, tight with --fail-on warning, or findings at or above --fail-on; 2 bad input."""


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be a positive whole number, got {text!r}")
    return value


def _max_gpus(text: str) -> int:
    from stackcheck.limits import PLAN_MAX_GPUS

    value = _positive(text)
    if value > PLAN_MAX_GPUS:
        raise argparse.ArgumentTypeError(
            f"at most {PLAN_MAX_GPUS} (the search's bound), got {text}"
        )
    return value


def _params(text: str) -> int:
    from stackcheck.plan.request import parse_count

    try:
        return parse_count(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _sizes(parser: argparse.ArgumentParser, title: str, sizes: dict[str, str]) -> None:
    group = parser.add_argument_group(title)
    for flag, text in sizes.items():
        kind = _max_gpus if flag == "--max-gpus" else _positive
        group.add_argument(flag, type=kind, metavar="N", help=text)


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    parser = commands.add_parser(
        "plan",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    model = parser.add_mutually_exclusive_group(required=True)
    model.add_argument(
        "--model",
        metavar="PATH_OR_NAME",
        help="a Hugging Face config.json (or its directory), or a bundled model: "
        "deepseek-v3, llama-3-8b, llama-3-70b, llama-3.1-405b, mixtral-8x7b, qwen2.5-7b, "
        "qwen3-30b-a3b",
    )
    model.add_argument(
        "--params",
        type=_params,
        metavar="COUNT",
        help="parameters: 7B, 350M, 1.5T (the shape is derived, and said so)",
    )
    parser.add_argument(
        "--precision",
        choices=("bf16", "fp16", "fp32", "fp8"),
        default="bf16",
        help="asked for; a GPU without it trains in the next it has (bf16 from compute "
        "capability 8.0, FP8 from 8.9)",
    )
    parser.add_argument(
        "--grad-dtype",
        choices=("fp32", "bf16"),
        help="gradient precision: fp32 main gradients (Megatron, 18 bytes/param with Adam; the "
        "default) or bf16 (FSDP, DeepSpeed: 16)",
    )
    parser.add_argument(
        "--optimizer", choices=("adam", "adamw", "sgd", "adafactor"), default="adamw"
    )
    sharding = parser.add_mutually_exclusive_group()
    sharding.add_argument(
        "--zero", type=int, choices=(0, 1, 2, 3), default=0, help="ZeRO stage (default 0)"
    )
    sharding.add_argument("--fsdp", action="store_true", help="FSDP full sharding (as ZeRO-3)")
    _sizes(
        parser,
        "model and batch (unset: derived from --params, and said so)",
        {
            "--seq-len": "sequence length (default 4096)",
            "--micro-batch": "micro-batch size per GPU (default 1)",
            "--layers": "transformer layers",
            "--hidden": "hidden size",
            "--heads": "attention heads",
            "--vocab": "vocabulary size (default 128256)",
            "--moe-experts": "experts per MoE layer",
            "--top-k": "experts each token is routed to",
        },
    )
    parser.add_argument(
        "--activation-checkpointing",
        action="store_true",
        help="full activation checkpointing (recompute each layer in the backward pass)",
    )
    parser.add_argument(
        "--eager-attention",
        action="store_true",
        help="attention keeps its score matrices (no FlashAttention or fused kernel)",
    )
    parser.add_argument("--instance", metavar="TYPE", help="EC2 instance type, e.g. p5.48xlarge")
    _sizes(
        parser,
        "layout (unset: 1 with --instance, the fewest nodes; chosen by the planner without)",
        {
            "--nodes": "instances",
            "--tp": "tensor-parallel size",
            "--pp": "pipeline-parallel size",
            "--cp": "context-parallel size",
            "--dp": "data-parallel size",
            "--ep": "expert-parallel size",
            "--max-gpus": "largest job the instance search tries (default 4096, at most 131072)",
        },
    )
    _sizes(
        parser,
        "step time (the estimate ranks layouts and instances)",
        {
            "--global-batch": "sequences per optimizer step (default: about 4M tokens)",
            "--virtual-stages": "interleaved pipeline stages per GPU (default 1)",
        },
    )
    parser.add_argument(
        "--tp-comm-overlap",
        action="store_true",
        help="TP traffic overlaps the GEMMs (Transformer Engine userbuffers, NeMo's recipes)",
    )
    add_matrix_argument(parser)
    add_output_arguments(parser, PLAN_FORMAT_NAMES)
    parser.set_defaults(run=run)


_GIVEN = (
    "precision", "optimizer", "zero", "fsdp", "activation_checkpointing", "eager_attention",
    "instance", "tp_comm_overlap",
)  # fmt: skip
_OPTIONAL = (
    "params", "model", "grad_dtype", "seq_len", "micro_batch", "layers", "hidden", "heads",
    "vocab", "moe_experts", "top_k", "global_batch", "virtual_stages", "nodes", "tp", "pp",
    "cp", "dp", "ep", "max_gpus",
)  # fmt: skip


def run(args: argparse.Namespace) -> int:
    from stackcheck.cli.common import matrix_from
    from stackcheck.formats import get_plan_format
    from stackcheck.plan.planner import make_plan
    from stackcheck.plan.request import PlanRequest

    fields = {name: getattr(args, name) for name in _GIVEN}
    fields.update({n: getattr(args, n) for n in _OPTIONAL if getattr(args, n) is not None})
    plan = make_plan(PlanRequest.model_validate(fields), matrix_from(args))
    sys.stdout.write(get_plan_format(args.format).render_plan(plan))
    if plan.verdict.status == "tight":  # a warning: it may run, with no room for what is omitted
        threshold = fail_threshold(args)
        if threshold in ("warning", "info"):
            return EXIT_FINDINGS
    elif plan.verdict.status != "fits":
        return EXIT_FINDINGS
    return exit_code(plan.findings, fail_threshold(args))
