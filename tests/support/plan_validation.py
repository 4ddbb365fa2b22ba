"""Holding the step-time model against published training runs: a run's model, layout, batch and
links as published, the model's estimate, and the ratio to what was measured."""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from stackcheck.matrix.models import GpuPerformance, Instance
from stackcheck.plan.architecture import count, load
from stackcheck.plan.layout import JobLayout
from stackcheck.plan.memory import Settings
from stackcheck.plan.request import Optimizer, Precision
from stackcheck.plan.shape import shape_of
from stackcheck.plan.steptime import StepTime, estimate_step, performance

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

MEASURES = {
    "step_s": "s/step",
    "tokens_per_gpu_s": "tokens/s/GPU",
    "model_tflops_per_gpu": "TFLOPS/GPU",
}


@dataclass(frozen=True)
class Outcome:
    run: dict[str, Any]
    step: StepTime
    predicted: float

    @property
    def measured(self) -> float:
        return float(self.run["value"])

    @property
    def ratio(self) -> float:
        return self.predicted / self.measured


def load_runs(path: Path) -> list[dict[str, Any]]:
    runs: list[dict[str, Any]] = tomllib.loads(path.read_text(encoding="utf-8"))["run"]
    return runs


def _instance(run: dict[str, Any]) -> Instance:
    """The run's cluster as an instance type: its GPUs and links."""
    return Instance(
        type=run["name"],
        gpu=run["gpu"],
        gpu_count=run["gpus_per_node"],
        nvlink_domain_gpus=run["gpus_per_node"],
        nvlink_bandwidth_gb_s=run["nvlink_gb_s"],
        efa_interfaces=1,
        efa_bandwidth_gb_s=run["network_gb_s"],
        source=run["source"],
        checked=date(2026, 12, 3),
    )


def predict(run: dict[str, Any], table: list[GpuPerformance]) -> Outcome:
    arch = load(run["config_file"]) if "config_file" in run else count(run["config"], run["name"])
    tp, pp, cp = run["tp"], run["pp"], run["cp"]
    instance = _instance(run)
    gpus, model_parallel = int(run["gpus"]), tp * pp * cp
    settings = Settings(
        params=arch.total.value,
        precision=Precision(run["precision"]),
        optimizer=Optimizer.ADAM,
        zero=1,
        checkpointing=run["activation_checkpointing"],
        eager_attention=False,
        seq_len=run["seq_len"],
        micro_batch=run["micro_batch"],
        shape=shape_of(arch),
        experts=arch.experts,
        top_k=arch.top_k or 1,
        expert_params=arch.experts_total or None,
        global_batch=run["global_batch"],
        virtual_stages=run["virtual_stages"],
        tp_comm_overlap=run["tp_comm_overlap"],
    )
    layout = JobLayout(
        instance=instance.type,
        gpus_per_node=instance.gpu_count,
        nodes=max(1, gpus // instance.gpu_count),
        tp=tp,
        pp=pp,
        cp=cp,
        dp=gpus // model_parallel,
    )
    step = estimate_step(settings, layout, instance, performance(instance, table))
    assert step is not None, run["name"]
    measure = run["measured"]
    if measure == "step_s":
        predicted = step.seconds
    elif measure == "tokens_per_gpu_s":
        predicted = step.tokens_per_gpu_s
    else:
        predicted = step.mfu * step.peak_tflops
    return Outcome(run, step, predicted)


def table(outcomes: list[Outcome]) -> str:
    """The comparison as a Markdown table."""
    lines = [
        "| run | layout | measured | estimated | ratio | bottleneck |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        r = o.run
        layout = f"TP {r['tp']} PP {r['pp']}" + (f" CP {r['cp']}" if r["cp"] > 1 else "")
        layout += f" VP {r['virtual_stages']}" if r["virtual_stages"] > 1 else ""
        unit = MEASURES[r["measured"]]
        lines.append(
            f"| {r['name']} | {layout}, {r['precision']} | {o.measured:g} {unit} | "
            f"{o.predicted:,.4g} {unit} | {o.ratio:.2f} | {o.step.bottleneck} |"
        )
    return "\n".join(lines) + "\n"
