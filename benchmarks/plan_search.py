"""Time `stackcheck plan`'s search in-process: the plan for a few model sizes, median of runs.

The instance search is the costly part (every kind of instance, node counts and layouts); this
shows how long a plan takes without the interpreter's start-up.

    python benchmarks/plan_search.py --runs 5
"""

from __future__ import annotations

import statistics
import time

from _common import benchmark_parser, print_result  # benchmarks/ is the script's folder

from stackcheck.matrix import load_matrix
from stackcheck.plan.planner import make_plan
from stackcheck.plan.request import PlanRequest, parse_count

REQUESTS: dict[str, dict[str, object]] = {
    "7B anywhere": {"params": "7B"},
    "70B anywhere": {"params": "70B"},
    "405B anywhere": {"params": "405B"},
    "1T MoE (64 experts) anywhere": {"params": "1T", "moe_experts": 64, "top_k": 2},
    "DeepSeek-V3 (--model) anywhere": {"model": "deepseek-v3"},
    "70B fp32 on one p5 (smallest change)": {
        "params": "70B",
        "precision": "fp32",
        "instance": "p5.48xlarge",
    },
}


def main() -> int:
    parser = benchmark_parser(__doc__, runs=5)
    args = parser.parse_args()
    matrix = load_matrix()
    medians: dict[str, float] = {}
    for label, fields in REQUESTS.items():
        counted = {"params": parse_count(str(fields["params"]))} if "params" in fields else {}
        request = PlanRequest.model_validate({**fields, **counted})
        times = []
        for _ in range(args.runs):
            started = time.perf_counter()
            make_plan(request, matrix)
            times.append(time.perf_counter() - started)
        medians[label] = round(statistics.median(times), 3)
    print_result(medians, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
