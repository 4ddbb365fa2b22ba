"""`stackcheck plan`: memory per GPU against hand-checked figures, the verdict and the smallest
change, the instances a job fits on, the layout rules, and the command line."""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from stackcheck.check.model import Severity
from stackcheck.errors import StackcheckError
from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.plan.model import Figure, PlanReport
from stackcheck.plan.planner import make_plan
from stackcheck.plan.request import PlanRequest, parse_count
from tests.conftest import Outcome, run_stackcheck

Cli = Callable[..., Outcome]
GIB = 2**30
B = 10**9


def plan(matrix: Matrix, **request: object) -> PlanReport:
    return make_plan(PlanRequest.model_validate(request), matrix)


def figure(report: PlanReport, key: str) -> Figure:
    assert report.memory is not None
    return next(t for t in report.memory.terms if t.key == key)


def state_bytes(report: PlanReport) -> float:
    return sum(figure(report, k).bytes for k in ("parameters", "gradients", "optimizer_states"))


def ids(report: PlanReport) -> dict[str, Severity]:
    return {f.id: f.severity for f in report.findings}


_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul}
_OPERATORS[ast.Div] = operator.truediv
_FUNCTIONS = {"max": max, "ceil": math.ceil}


def evaluate(expression: str) -> float:
    """Arithmetic only: numbers, + - * /, max() and ceil(); anything else fails the test."""

    def walk(node: ast.AST) -> float:
        if isinstance(node, ast.Expression):
            return walk(node.body)
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return float(_OPERATORS[type(node.op)](walk(node.left), walk(node.right)))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            return float(_FUNCTIONS[node.func.id](*(walk(a) for a in node.args)))
        raise AssertionError(f"not arithmetic: {ast.dump(node)}")

    return walk(ast.parse(expression, mode="eval"))


# -- parameter counts -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "count"),
    [("70B", 70 * B), ("1.5T", 1_500 * B), ("350M", 350_000_000), ("7b", 7 * B), ("1000", 1000)],
)
def test_parameter_counts(text: str, count: int) -> None:
    assert parse_count(text) == count


@pytest.mark.parametrize("text", ["70Q", "-7B", "0", "B", "7 billion", ""])
def test_bad_parameter_counts(text: str) -> None:
    with pytest.raises(ValueError):
        parse_count(text)


# -- hand-checked memory ------------------------------------------------------------------------


def test_70b_fp32_with_adam_is_1120_gb_and_does_not_fit_one_8x80_gb_node(matrix: Matrix) -> None:
    # fp32 weights 4 + gradients 4 + Adam's two moments 8 = 16 bytes per parameter.
    given_ = plan(matrix, params=70 * B, precision="fp32", optimizer="adam",
                  instance="p5.48xlarge")  # fmt: skip
    assert state_bytes(given_) == 70 * B * 16 == 1_120 * B
    # Even fully sharded over the node's 8 GPUs, 140 GB each is more than 80 GiB (85.9 GB).
    sharded = plan(matrix, params=70 * B, precision="fp32", optimizer="adam", zero=3,
                   instance="p5.48xlarge")  # fmt: skip
    assert state_bytes(sharded) == 1_120 * B / 8 > 80 * GIB
    assert (
        sharded.memory is not None and sharded.memory.capacity.bytes == 79.65 * GIB
    )  # the driver's 81559 MiB
    for report in (given_, sharded):
        assert report.verdict.status != "fits"
        flags = " ".join(c.flag for c in report.verdict.changes)
        assert "--nodes" in flags or "--instance" in flags, flags  # one node cannot hold it


def test_7b_bf16_adam_fits_one_p5_with_zero3(matrix: Matrix) -> None:
    report = plan(matrix, params=7 * B, optimizer="adam", zero=3, instance="p5.48xlarge")
    assert report.verdict.status == "fits", report.verdict.summary
    assert report.memory is not None and report.memory.layout.dp == 8
    # bf16 weights 2, fp32 gradients 4, fp32 main weights + two moments 12; all sharded 8 ways.
    assert figure(report, "parameters").bytes == 2 * 7 * B / 8
    assert figure(report, "gradients").bytes == 4 * 7 * B / 8
    assert figure(report, "optimizer_states").bytes == 12 * 7 * B / 8
    assert report.memory.total.bytes < report.memory.capacity.bytes


def test_zero3_gathers_two_layers_of_its_tensor_parallel_share(matrix: Matrix) -> None:
    report = plan(matrix, params=7 * B, layers=32, zero=3, instance="p5.48xlarge", tp=2, pp=2)
    # A layer's 16-bit weights, split by TP but not by PP: 2 layers x 2 bytes x 7B / 2 / 32.
    assert figure(report, "zero3_gather").bytes == 2 * 2 * 7 * B / 2 / 32


def test_7b_without_zero_needs_only_the_optimizer_states_sharded(matrix: Matrix) -> None:
    report = plan(matrix, params=7 * B, instance="p5.48xlarge")
    assert state_bytes(report) == 18 * 7 * B  # Megatron-LM's 18 bytes: nothing sharded
    assert report.verdict.status == "fits-with-changes"
    assert [c.flag for c in report.verdict.changes] == ["--zero 1"]
    assert report.verdict.changes[0].fits and report.verdict.changes[0].total_gib < 80


def test_activations_follow_korthikanti_table_2(matrix: Matrix) -> None:
    shape = {"layers": 32, "hidden": 4096, "heads": 32, "vocab": 32000}
    s, b, h, a, layers, v = 4096, 2, 4096, 32, 32, 32000
    report = plan(matrix, params=7 * B, instance="p5.48xlarge", seq_len=s, micro_batch=b,
                  tp=2, **shape)  # fmt: skip
    assert report.memory is not None
    logits = 4 * s * b * v / 2
    # Sequence parallelism with TP 2: 34·s·b·h/t per layer; full recompute keeps 2·s·b·h.
    kept = layers * s * b * h * 34 / 2 + logits
    recomputed = layers * 2 * s * b * h + s * b * h * 34 / 2 + logits
    assert report.memory.activations_without_checkpointing.bytes == kept
    assert report.memory.activations_with_checkpointing.bytes == recomputed
    assert figure(report, "activations").bytes == kept
    eager = plan(matrix, params=7 * B, instance="p5.48xlarge", seq_len=s, micro_batch=b, tp=2,
                 eager_attention=True, **shape)  # fmt: skip
    scores = layers * 5 * a * s * s * b / 2
    assert figure(eager, "activations").bytes == kept + scores


def test_expert_parallelism_divides_only_the_experts(matrix: Matrix) -> None:
    common = {"params": 47 * B, "moe_experts": 8, "top_k": 2, "instance": "p5.48xlarge",
              "tp": 1}  # fmt: skip
    one, eight = plan(matrix, **common, ep=1), plan(matrix, **common, ep=8)
    experts = 47 * B * 64 / 68  # 8·E·h² of 4·h² + 8·E·h² per layer, E = 8
    assert figure(one, "parameters").bytes == pytest.approx(2 * 47 * B)
    assert figure(eight, "parameters").bytes == pytest.approx(2 * (47 * B - experts * 7 / 8))


@settings(max_examples=60, deadline=None)
@given(
    params=st.integers(1 * B, 500 * B),
    precision=st.sampled_from(["bf16", "fp16", "fp32", "fp8"]),
    optimizer=st.sampled_from(["adam", "adamw", "sgd", "adafactor"]),
    zero=st.integers(0, 3),
    checkpointing=st.booleans(),
    eager=st.booleans(),
    tp=st.sampled_from([1, 2, 4, 8]),
    pp=st.sampled_from([1, 2, 4]),
    cp=st.sampled_from([1, 2]),
    experts=st.sampled_from([None, 8, 16]),
)
def test_every_figure_is_its_formula(
    matrix: Matrix,
    params: int,
    precision: str,
    optimizer: str,
    zero: int,
    checkpointing: bool,
    eager: bool,
    tp: int,
    pp: int,
    cp: int,
    experts: int | None,
) -> None:
    moe = {"moe_experts": experts, "top_k": 2, "ep": 2} if experts else {}
    report = plan(matrix, params=params, precision=precision, optimizer=optimizer, zero=zero,
                  activation_checkpointing=checkpointing, eager_attention=eager, tp=tp, pp=pp,
                  cp=cp, nodes=4, instance="p5.48xlarge", **moe)  # fmt: skip
    memory = report.memory
    assert memory is not None
    symbols = {s.name for s in memory.symbols}
    figures = [*memory.terms, memory.total, memory.capacity]
    figures += [memory.activations_with_checkpointing, memory.activations_without_checkpointing]
    for item in figures:
        assert evaluate(item.expression) == pytest.approx(item.bytes, rel=1e-9), item.key
        assert set(re.findall(r"[A-Za-z_]+", item.formula)) - {"max", "ceil"} <= symbols
    assert memory.total.bytes == pytest.approx(sum(t.bytes for t in memory.terms), rel=1e-12)
    spare = memory.capacity.bytes - memory.total.bytes
    assert memory.fits == (spare >= 0.05 * memory.capacity.bytes)
    assert memory.tight == (0 <= spare < 0.05 * memory.capacity.bytes)


# -- a published configuration -----------------------------------------------------------------


def test_bloom_176b_layout_is_judged_to_fit(matrix: Matrix) -> None:
    """BLOOM-176B trained with this layout on A100 80GB nodes: TP 4, PP 12, 70 layers, hidden
    14336, 112 heads, sequence 2048, micro-batch 2, bf16 with DeepSpeed's ZeRO-1-equivalent bf16
    optimizer and activation checkpointing, vocabulary padded to 250880, 24 nodes of 8 GPUs:
    https://github.com/bigscience-workshop/bigscience/blob/e726b15982fa088fb6d9a4c869c19c3d4dbc84a7/train/tr11-176B-ml/tr11-176B-ml.slurm
    p4de.24xlarge carries the same 8x A100 80GB."""
    report = plan(matrix, params=176 * B, instance="p4de.24xlarge", nodes=24, tp=4, pp=12,
                  zero=1, activation_checkpointing=True, layers=70, hidden=14336, heads=112,
                  seq_len=2048, micro_batch=2, vocab=250880)  # fmt: skip
    assert report.verdict.status == "fits", report.verdict.summary
    assert report.memory is not None and report.memory.layout.dp == 4
    assert not [f for f in report.findings if f.severity.at_least(Severity.WARNING)]
    # 70 layers on 12 stages is even only with the embedding and loss as stages' work (BLOOM's
    # --pp-partition-method 'type:transformer|embedding'): noted, not warned.
    assert ids(report) == {"SC804": Severity.INFO}


# -- verdicts and instance choice --------------------------------------------------------------


def test_without_an_instance_it_lists_where_the_job_fits_cheapest_first(
    matrix: Matrix,
) -> None:
    """Timed candidates by GPU-hours per million tokens; those the matrix cannot time (no
    performance figures for the GPU) after them, fewest GPUs first."""
    report = plan(matrix, params=7 * B, zero=1)
    assert report.verdict.status == "fits"
    timed = [c for c in report.candidates if c.step_time is not None]
    untimed = [c for c in report.candidates if c.step_time is None]
    assert timed and report.candidates == timed + untimed
    cost = [c.step_time.gpu_hours_per_million_tokens for c in timed if c.step_time]
    assert cost == sorted(cost)
    gpus = [c.gpus for c in untimed]
    assert gpus == sorted(gpus)
    index = MatrixIndex(matrix)
    for candidate in report.candidates:
        entry = index.instance(candidate.instance.type)
        assert entry is not None and candidate.instance.source == entry.source
        assert candidate.total_gib <= (entry.gpu_memory_gib or 0)
        assert candidate.layout.ranks == candidate.gpus == candidate.nodes * entry.gpu_count
        assert (entry.nvlink_domain_gpus or 1) % candidate.layout.tp == 0
    assert "p5.48xlarge" in {c.instance.type for c in report.candidates}
    assert report.memory is not None and report.memory.layout == report.candidates[0].layout


def test_nothing_fits_as_given_so_it_says_which_change_would(matrix: Matrix) -> None:
    report = plan(matrix, params=2_000 * B, max_gpus=64)
    assert report.verdict.status in ("fits-with-changes", "will-oom")
    if report.verdict.status == "fits-with-changes":
        assert report.verdict.changes and report.verdict.changes[-1].fits
    tiny = plan(matrix, params=20_000 * B, max_gpus=8)
    assert tiny.verdict.status == "will-oom" and not tiny.candidates and tiny.memory is None


@pytest.mark.parametrize(
    ("request_", "regime"),
    [
        ({"params": 1 * B}, "scale-up"),
        ({"params": 70 * B}, "scale-out"),
        ({"params": 400 * B}, "nvlink-domain"),
        ({"params": 47 * B, "moe_experts": 8, "top_k": 2}, "nvlink-domain"),
    ],
)
def test_scale_up_scale_out_or_an_nvlink_domain(
    matrix: Matrix, request_: dict[str, object], regime: str
) -> None:
    assert plan(matrix, **request_).scale.regime == regime


def test_scale_advice_quotes_the_matrix_bandwidths(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, instance="p5.48xlarge", nodes=2, tp=8, zero=1)
    text = " ".join(report.scale.reasons)
    # 900 GB/s x 8 GPUs = 7,200 GB/s both ways against 3,200 Gbit/s = 400 GB/s each way: 9x.
    assert "7,200 GB/s" in text and "400 GB/s" in text and "about 9x" in text


# -- layout rules -------------------------------------------------------------------------------


def test_tp_16_on_p5_is_flagged(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, instance="p5.48xlarge", nodes=2, tp=16)
    assert ids(report)["SC801"] is Severity.WARNING
    finding = next(f for f in report.findings if f.id == "SC801")
    assert "EFA" in finding.message and finding.evidence
    assert "SC801" not in ids(plan(matrix, params=70 * B, instance="p5.48xlarge", nodes=2, tp=8))


def test_tp_groups_straddling_nvlink_domains_are_flagged(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, instance="p5.48xlarge", nodes=3, tp=3)
    assert "straddle" in next(f.message for f in report.findings if f.id == "SC801")


def test_context_parallel_beyond_nvlink_is_info(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, instance="p5.48xlarge", nodes=2, tp=8, cp=2)
    assert ids(report)["SC801"] is Severity.INFO


def test_expert_all_to_all_across_nodes_is_flagged_unless_an_ultraserver(matrix: Matrix) -> None:
    moe = {"params": 400 * B, "moe_experts": 64, "top_k": 2, "tp": 1, "ep": 64}
    assert ids(plan(matrix, **moe, instance="p5.48xlarge", nodes=8))["SC802"] is Severity.WARNING
    inside = plan(matrix, **moe, instance="p6e-gb200.36xlarge", nodes=16)  # 64 of 72 GPUs
    assert "SC802" not in ids(inside) and "SC807" not in ids(inside)


def test_layout_product_against_gpus(matrix: Matrix) -> None:
    short = plan(matrix, params=7 * B, instance="p5.48xlarge", nodes=2, tp=8, pp=2, dp=2)
    assert ids(short)["SC803"] is Severity.ERROR  # 32 ranks, 16 GPUs: cannot start
    idle = plan(matrix, params=7 * B, instance="p5.48xlarge", nodes=2, tp=8, dp=1)
    assert ids(idle)["SC803"] is Severity.WARNING  # 8 ranks on 16 GPUs


def test_pipeline_stages_not_dividing_layers(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, layers=80, instance="p5.48xlarge", nodes=3, tp=8, pp=3)
    assert ids(report)["SC804"] is Severity.WARNING
    even = plan(matrix, params=70 * B, layers=80, instance="p5.48xlarge", nodes=4, tp=8, pp=4)
    assert "SC804" not in ids(even)


def test_expert_parallelism_must_divide_experts(matrix: Matrix) -> None:
    report = plan(matrix, params=47 * B, moe_experts=8, top_k=2, ep=3, instance="p5.48xlarge",
                  nodes=3, tp=8)  # fmt: skip
    assert ids(report)["SC806"] is Severity.ERROR


def test_multi_node_without_efa(matrix: Matrix) -> None:
    assert ids(plan(matrix, params=1 * B, instance="g5.xlarge", nodes=2))["SC807"]
    assert "SC807" not in ids(plan(matrix, params=1 * B, instance="g5.8xlarge", nodes=2))


def test_tp_not_dividing_heads_is_bad_input(matrix: Matrix) -> None:
    with pytest.raises(StackcheckError, match="SC805"):
        plan(matrix, params=70 * B, heads=64, tp=3)


@pytest.mark.parametrize(
    "request_",
    [
        {"params": 7 * B, "top_k": 2},
        {"params": 7 * B, "moe_experts": 8},
        {"params": 7 * B, "moe_experts": 8, "top_k": 9},
        {"params": 7 * B, "hidden": 4096, "heads": 30},
        {"params": 7 * B, "instance": "p9.48xlarge"},
        {"params": 7 * B, "fsdp": True, "zero": 1},
    ],
)
def test_impossible_requests_are_refused(matrix: Matrix, request_: dict[str, object]) -> None:
    with pytest.raises(StackcheckError):
        plan(matrix, **request_)


# -- the command line ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "arguments",
    [
        ["--params", "70Q"],
        ["--params=-7B"],
        ["--params", "7B", "--tp", "-2"],
        ["--params", "7B", "--seq-len", "0"],
        ["--params", "7B", "--micro-batch", "-1"],
        ["--params", "70B", "--heads", "64", "--tp", "3"],
        ["--params", "7B", "--zero", "1", "--fsdp"],
        ["--params", "7B", "--instance", "p9.48xlarge"],
        ["--tp", "8"],
    ],
)
def test_bad_input_is_one_line_and_exit_2(cli: Cli, arguments: list[str]) -> None:
    done = cli("plan", *arguments)
    assert done.code == 2, done.out
    assert done.err.count("\n") == 1 and "Traceback" not in done.err
    assert done.out == ""


def test_tp_not_dividing_heads_names_the_rule(cli: Cli) -> None:
    done = cli("plan", "--params", "70B", "--heads", "64", "--tp", "3")
    assert "SC805" in done.err and "1, 2, 4, 8" in done.err


def test_exit_codes_follow_the_verdict_and_fail_on(cli: Cli) -> None:
    fits = ["plan", "--params", "7B", "--zero", "3", "--instance", "p5.48xlarge"]
    assert cli(*fits).code == 0
    assert cli("plan", "--params", "7B", "--instance", "p5.48xlarge").code == 1  # OOM as given
    flagged = ["plan", "--params", "7B", "--zero", "3", "--instance", "p5.48xlarge", "--nodes",
               "2", "--tp", "16"]  # fmt: skip
    assert cli(*flagged).code == 0  # a warning: below the default --fail-on error
    assert cli(*flagged, "--fail-on", "warning").code == 1


def test_text_output(cli: Cli) -> None:
    done = cli("plan", "--params", "70B", "--instance", "p5.48xlarge", "--nodes", "2", "--tp",
               "16")  # fmt: skip
    for text in ("Memory per GPU", "optimizer states", "w * P / (TP * PP)", "Verdict:",
                 "Scale: scale-out", "SC801", "stackcheck explain SC801"):  # fmt: skip
        assert text in done.out
    anywhere = cli("plan", "--params", "7B")
    assert "Where it fits, fewest GPU-hours per million tokens first" in anywhere.out
    assert "GPU-h/Mtok" in anywhere.out and anywhere.code == 0


def test_json_output_carries_every_number_and_its_formula() -> None:
    done = run_stackcheck("plan", "--params", "70B", "--instance", "p5.48xlarge", "--nodes",
                          "4", "--tp", "8", "--pp", "4", "--format", "json")  # fmt: skip
    report = json.loads(done.out)
    assert done.code == 0, done.err
    assert report["schema_version"] == 2 and report["verdict"]["status"] == "fits"
    assert report["instance"]["source"].startswith("aws/karpenter-provider-aws@")
    assert report["instance"]["nvlink_source"]
    for term in report["memory"]["terms"]:
        assert evaluate(term["expression"]) == pytest.approx(term["bytes"], rel=1e-9)
    assert {s["name"] for s in report["memory"]["symbols"]} >= {"P", "TP", "PP", "DP", "L"}
    assert report["model"]["derived"]  # layers, hidden, heads, vocab: derived, and said so


def test_layout_rules_are_documented_like_the_others(cli: Cli) -> None:
    page = cli("explain", "SC801")
    assert page.code == 0 and "## Why is this bad?" in page.out
    listing = cli("rules").out
    for rule_id in ("SC801", "SC802", "SC803", "SC804", "SC805", "SC806", "SC807"):
        assert f"{rule_id}  layout" in listing
    assert "plan" in cli("--help").out


def test_plan_formats_match_the_report_formats() -> None:
    from stackcheck.cli.common import PLAN_FORMAT_NAMES
    from stackcheck.formats import PLAN_FORMAT_NAMES as REGISTERED

    assert PLAN_FORMAT_NAMES == REGISTERED


def test_pinned_nodes_without_an_instance(matrix: Matrix) -> None:
    report = plan(matrix, params=70 * B, zero=1, nodes=4)
    assert report.candidates and {c.nodes for c in report.candidates} == {4}


def test_the_instance_figures_plan_uses_are_read_not_recalled(matrix: Matrix) -> None:
    index = MatrixIndex(matrix)
    for type_ in ("p4d.24xlarge", "p4de.24xlarge", "p5.48xlarge", "p5e.48xlarge",
                  "p5en.48xlarge", "p6-b200.48xlarge", "p6-b300.48xlarge"):  # fmt: skip
        entry = index.instance(type_)
        assert entry is not None and not entry.unsure, type_
        assert entry.source.startswith("aws/karpenter-provider-aws@"), type_
        assert entry.gpu_count == 8 and entry.gpu_memory_gib and entry.efa_interfaces > 0
    p5 = index.instance("p5.48xlarge")
    assert p5 is not None and p5.gpu_memory_gib == 79.65 and p5.efa_bandwidth_gb_s == 400
    assert p5.nvlink_domain_gpus == 8 and p5.nvlink_bandwidth_gb_s == 900 and p5.nvlink_source
