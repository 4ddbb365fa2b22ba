"""The step-time model against published training runs (tests/data/plan/published_runs.toml),
and how it ranks layouts: compute, bubble and link terms that move the way they should."""

from __future__ import annotations

from pathlib import Path

import pytest

from stackcheck.formats.plan_text import PlanTextFormat
from stackcheck.matrix import Matrix, MatrixIndex
from stackcheck.plan.planner import make_plan
from stackcheck.plan.request import PlanRequest, Precision
from stackcheck.plan.steptime import StepTime, performance
from tests.support.plan_validation import load_runs, predict, table

RUNS = Path(__file__).parent / "data" / "plan" / "published_runs.toml"
DOCS = Path(__file__).parent.parent / "docs" / "plan.md"


def test_published_runs_are_reproduced_within_25_percent(matrix: Matrix) -> None:
    outcomes = [predict(run, matrix.gpu_performance) for run in load_runs(RUNS)]
    reproduced = [o for o in outcomes if o.run["reproduced"]]
    assert len(reproduced) >= 3
    for outcome in reproduced:
        assert 0.75 <= outcome.ratio <= 1.25, (outcome.run["name"], outcome.ratio)
    for outcome in outcomes:
        if not outcome.run["reproduced"]:  # said so in the data and the docs, and why
            assert not 0.75 <= outcome.ratio <= 1.25, outcome.run["name"]


def test_the_docs_show_the_comparison_as_computed(matrix: Matrix) -> None:
    outcomes = [predict(run, matrix.gpu_performance) for run in load_runs(RUNS)]
    assert table(outcomes) in DOCS.read_text(encoding="utf-8")


def test_more_micro_batches_shrink_the_bubble(matrix: Matrix) -> None:
    def bubble(global_batch: int) -> float:
        report = make_plan(
            PlanRequest(
                model="llama-3-70b",
                instance="p5.48xlarge",
                nodes=4,
                tp=8,
                pp=4,
                global_batch=global_batch,
            ),
            matrix,
        )
        assert report.step_time is not None
        return report.step_time.bubble_s / report.step_time.compute_s

    assert bubble(8) == pytest.approx(3 / 8)
    assert bubble(64) == pytest.approx(3 / 64)


def test_tp_across_instances_goes_over_efa(matrix: Matrix) -> None:
    inside = make_plan(
        PlanRequest(model="llama-3-8b", instance="p5.48xlarge", nodes=2, tp=8), matrix
    )
    assert inside.step_time is not None and inside.step_time.nvlink_s > 0
    index = MatrixIndex(matrix)
    p5 = index.instance("p5.48xlarge")
    assert p5 is not None and p5.nvlink_domain_gpus == 8


def test_every_timed_candidate_names_its_bottleneck_and_the_text_shows_five(
    matrix: Matrix,
) -> None:
    report = make_plan(PlanRequest(model="mixtral-8x7b"), matrix)
    timed = [c for c in report.candidates if c.step_time]
    assert timed
    for candidate in timed:
        assert candidate.step_time is not None
        assert candidate.step_time.bottleneck in ("compute", "bubble", "NVLink", "EFA")
        assert candidate.step_time.seconds > 0 and candidate.step_time.mfu < 1
    text = PlanTextFormat().render_plan(report)
    rows = text.split("fewest GPU-hours per million tokens first", 1)[1].split("Scale:")[0]
    assert sum(1 for line in rows.splitlines() if "GPU-h/Mtok" in line) == min(5, len(timed))


BLACKWELL = ("p6-b200.48xlarge", "p6-b300.48xlarge", "p6e-gb200.36xlarge")


@pytest.mark.parametrize("instance_type", BLACKWELL)
def test_blackwell_instances_are_timed_in_every_precision_the_matrix_has(
    matrix: Matrix, instance_type: str
) -> None:
    instance = MatrixIndex(matrix).instance(instance_type)
    assert instance is not None
    perf = performance(instance, matrix.gpu_performance)
    assert perf is not None and set(perf.dense_tflops) == set(perf.achievable)
    assert {"bf16", "fp8"} <= set(perf.dense_tflops)
    for precision in perf.dense_tflops:
        request = PlanRequest(
            model="llama-3-8b", instance=instance_type, precision=Precision(precision)
        )
        step = make_plan(request, matrix).step_time
        assert step is not None, precision
        assert step.peak_tflops == perf.dense_tflops[precision]
        assert step.achievable == perf.achievable[precision]
        assert 0 < step.mfu <= step.achievable


def test_a_b200_step_beats_the_same_job_on_h100_by_the_tables_ratio(matrix: Matrix) -> None:
    """Llama 3 70B in bf16, TP 8 inside each instance, two instances: the same layout on p5 and
    p6-b200, so the compute terms differ only by peak x share, and TP rides NVLink on both."""

    def step(instance_type: str) -> StepTime:
        request = PlanRequest(model="llama-3-70b", instance=instance_type, nodes=2, tp=8)
        report = make_plan(request, matrix)
        assert report.step_time is not None
        return report.step_time

    h100, b200 = step("p5.48xlarge"), step("p6-b200.48xlarge")
    assert b200.tokens_per_step == h100.tokens_per_step
    assert b200.tokens_per_gpu_s > h100.tokens_per_gpu_s
    speed_up = (b200.peak_tflops * b200.achievable) / (h100.peak_tflops * h100.achievable)
    assert h100.compute_s / b200.compute_s == pytest.approx(speed_up)
    assert b200.nvlink_s > 0 and b200.bottleneck == "compute"


def test_a_link_without_a_figure_leaves_the_step_untimed_and_says_why(matrix: Matrix) -> None:
    """Traffic over a link the matrix gives no bandwidth for is not free: pricing it at zero
    would rank the slowest layout first. The plan says which link is missing."""
    inside = make_plan(PlanRequest(model="llama-3-8b", instance="p3.16xlarge", tp=8), matrix)
    assert inside.step_time is not None and inside.step_time.nvlink_s > 0
    assert inside.step_time.efa_s == 0 and inside.step_time_unknown is None

    across = make_plan(
        PlanRequest(model="llama-3-8b", instance="p3.16xlarge", nodes=2, tp=8, pp=2), matrix
    )
    assert across.step_time is None
    assert across.step_time_unknown is not None and "no EFA" in across.step_time_unknown
    assert "not estimated: this layout spans instances" in PlanTextFormat().render_plan(across)

    no_figure = make_plan(PlanRequest(model="llama-3-8b", instance="p3.8xlarge", tp=4), matrix)
    assert no_figure.step_time is None
    assert no_figure.step_time_unknown is not None
    assert "no NVLink bandwidth for p3.8xlarge" in no_figure.step_time_unknown


def test_traffic_between_gpus_of_an_instance_without_nvlink_is_not_priced(matrix: Matrix) -> None:
    """PCIe inside an instance is not modelled: a p5 laid out as if it had no NVLink (a matrix
    of one's own, --matrix-dir) gets no step time rather than a free TP all-reduce."""
    pcie_only = [
        i.model_copy(update={"nvlink_domain_gpus": 1, "nvlink_bandwidth_gb_s": None})
        if i.type == "p5.48xlarge"
        else i
        for i in matrix.instance
    ]
    own = matrix.model_copy(update={"instance": pcie_only})
    report = make_plan(PlanRequest(model="llama-3-8b", instance="p5.48xlarge", tp=8), own)
    assert report.step_time is None
    assert report.step_time_unknown == (
        "this layout sends traffic over PCIe between the GPUs of p5.48xlarge, which is not modelled"
    )
