"""`stackcheck plan --model`: parameter counts from real config.json files against the published
figures, and verdicts that mean what they say (headroom, the GPU's precision, gradient bytes,
node counts that are not powers of two)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from stackcheck.errors import StackcheckError
from stackcheck.matrix import Matrix
from stackcheck.plan.architecture import BUNDLED, load
from stackcheck.plan.memory import HEADROOM
from stackcheck.plan.model import PlanReport
from stackcheck.plan.planner import make_plan
from stackcheck.plan.request import PlanRequest
from tests.conftest import Outcome

B = 10**9

# Published counts: DeepSeek-V3 README ("671B total parameters with 37B activated for each
# token"; deepseek-ai/DeepSeek-V3@main:README.md); Llama 3 paper (arXiv:2407.21783, table 3:
# 8B, 70B, 405B); Mixtral of Experts (arXiv:2401.04088, section 2: "47B total parameters",
# "13B active"; Mistral's announcement: 46.7B total, 12.9B per token); Qwen3 technical report
# (arXiv:2505.09388, table 2: Qwen3-30B-A3B, 30B total, 3B activated; the model card: 30.5B,
# 3.3B); Qwen2.5 model card (7.61B).
PUBLISHED = {
    "deepseek-v3": (671 * B, 37 * B),
    "llama-3.1-405b": (405 * B, 405 * B),
    "llama-3-70b": (70.6 * B, 70.6 * B),
    "llama-3-8b": (8.03 * B, 8.03 * B),
    "mixtral-8x7b": (46.7 * B, 12.9 * B),
    "qwen3-30b-a3b": (30.5 * B, 3.3 * B),
    "qwen2.5-7b": (7.61 * B, 7.61 * B),
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_published_configs_give_published_counts(name: str) -> None:
    total, active = PUBLISHED[name]
    arch = load(name)
    assert arch.total.value == pytest.approx(total, rel=0.03)
    assert arch.active.value == pytest.approx(active, rel=0.03)


def test_exact_counts_match_the_checkpoints() -> None:
    """The parameter totals of the released safetensors checkpoints (their index files'
    parameter metadata, as the model hubs show it)."""
    assert load("llama-3-8b").total.value == 8_030_261_248
    assert load("llama-3-70b").total.value == 70_553_706_496
    assert load("llama-3.1-405b").total.value == 405_853_388_800
    assert load("mixtral-8x7b").total.value == 46_702_792_704


def test_deepseek_v3_counts_mla_shared_experts_dense_layers_and_mtp_apart() -> None:
    arch = load("deepseek-v3")
    assert arch.moe_layers == 61 - 3  # first_k_dense_replace
    assert "MLA" in arch.total.formula and "shared experts" in arch.total.formula
    # DeepSeek's weight notes: the MTP module has 11.5B unique parameters.
    assert arch.mtp == pytest.approx(11.5 * B, rel=0.03)


def test_a_config_json_path_or_directory_reads_like_a_bundled_name(tmp_path: Path) -> None:
    shutil.copy(BUNDLED / "mixtral-8x7b.json", tmp_path / "config.json")
    for given in (tmp_path, tmp_path / "config.json"):
        arch = load(str(given))
        assert arch.total == load("mixtral-8x7b").total and arch.experts == 8


def test_gpt_neox_counts_biases_and_layer_norm_biases(tmp_path: Path) -> None:
    """GPT-NeoX-20B's shape (EleutherAI, arXiv:2204.06745, table 1: 20.6B parameters) in its
    config.json names."""
    config = {
        "model_type": "gpt_neox", "hidden_size": 6144, "num_hidden_layers": 44,
        "num_attention_heads": 64, "intermediate_size": 24576, "vocab_size": 50432,
        "tie_word_embeddings": False,
    }  # fmt: skip
    (tmp_path / "config.json").write_text(json.dumps(config))
    assert load(str(tmp_path)).total.value == pytest.approx(20.55 * B, rel=0.01)


def test_unreadable_models_are_bad_input(tmp_path: Path) -> None:
    with pytest.raises(StackcheckError, match=r"neither a config\.json file nor a bundled model"):
        load("no-such-model")
    (tmp_path / "config.json").write_text("{not json")
    with pytest.raises(StackcheckError, match="cannot read"):
        load(str(tmp_path))
    (tmp_path / "config.json").write_text(json.dumps({"model_type": "llama"}))
    with pytest.raises(StackcheckError, match="hidden_size"):
        load(str(tmp_path))


def plan(matrix: Matrix, **request: object) -> PlanReport:
    return make_plan(PlanRequest.model_validate(request), matrix)


def test_json_reports_model_params_and_active_params_with_formulas(matrix: Matrix) -> None:
    report = plan(matrix, model="mixtral-8x7b", instance="p5.48xlarge")
    document = json.loads(report.model_dump_json())
    assert document["model"]["params"]["value"] == 46_702_792_704
    assert document["model"]["active_params"]["value"] == 12_879_925_248
    assert "k*3*h*I_moe" in document["model"]["active_params"]["formula"]
    assert document["model"]["derived"] == {}
    # The experts' share is counted, not assumed: the P_E symbol carries it.
    symbols = {s["name"]: s["value"] for s in document["memory"]["symbols"]}
    assert symbols["P_E"] == load("mixtral-8x7b").experts_total


def test_params_alone_says_what_it_assumed(matrix: Matrix) -> None:
    report = plan(matrix, params=671 * B, moe_experts=256, top_k=8, instance="p5.48xlarge")
    assert report.model.derived and "vocab" in report.model.derived
    assert report.model.active_params is not None
    assert "assumed" in report.model.active_params.formula


def test_fits_only_with_five_percent_headroom(matrix: Matrix) -> None:
    """Every verdict of "fits" keeps 5% of GPU memory; a job between is "tight"."""
    seen = set()
    for seq in (2048, 4096, 6144, 8192, 12288, 16384, 24576, 32768):
        for model in ("llama-3-8b", "qwen2.5-7b"):
            report = plan(matrix, model=model, instance="p5.48xlarge", zero=3, seq_len=seq)
            memory = report.memory
            assert memory is not None
            share = memory.headroom_gib / memory.capacity.gib
            seen.add(report.verdict.status)
            if report.verdict.status == "fits":
                assert share >= HEADROOM and memory.fits and not memory.tight
            if report.verdict.status == "tight":
                assert 0 <= share < HEADROOM and memory.tight and not memory.fits
    assert "fits" in seen


def test_tight_is_a_warning_with_what_loosens_it(matrix: Matrix) -> None:
    for seq in range(11264, 12288, 32):
        report = plan(matrix, model="llama-3-8b", instance="p5.48xlarge", zero=3, seq_len=seq)
        if report.verdict.status == "tight":
            break
    else:
        pytest.fail("no sequence length gave a tight fit")
    assert "under the 5%" in report.verdict.summary
    assert report.verdict.changes and report.verdict.changes[-1].fits


def test_v100_plans_in_fp16_and_says_so(matrix: Matrix) -> None:
    report = plan(matrix, params=1 * B, instance="p3dn.24xlarge")
    assert report.effective_precision.value == "fp16"
    assert any("bf16 needs compute capability 8.0" in n for n in report.precision_notes)
    assert any("FlashAttention-2" in n for n in report.precision_notes)
    symbols = {s.name: s.value for s in report.memory.symbols} if report.memory else {}
    assert symbols["o"] == 16  # fp16: fp32 main weights and gradients (8) + Adam (8)
    a100 = plan(matrix, params=1 * B, precision="fp8", instance="p4d.24xlarge")
    assert a100.effective_precision.value == "bf16"
    h100 = plan(matrix, params=1 * B, precision="fp8", instance="p5.48xlarge")
    assert h100.effective_precision.value == "fp8" and not h100.precision_notes


def test_every_candidate_carries_the_precision_its_gpu_trains_in(matrix: Matrix) -> None:
    report = plan(matrix, params=7 * B)
    by_gpu = {c.instance.gpu: c.effective_precision.value for c in report.candidates}
    assert by_gpu.get("V100") == "fp16"
    assert by_gpu.get("H100") == "bf16"


def test_grad_dtype_gives_fsdp_16_and_megatron_18_bytes(matrix: Matrix) -> None:
    def state(grad: str | None) -> float:
        report = plan(matrix, params=7 * B, instance="p5.48xlarge", grad_dtype=grad)
        assert report.memory is not None
        return sum(t.bytes for t in report.memory.terms[:3])

    assert state(None) == pytest.approx(18 * 7 * B)
    assert state("fp32") == pytest.approx(18 * 7 * B)
    assert state("bf16") == pytest.approx(16 * 7 * B)


def test_more_nodes_are_any_count_not_only_doublings(matrix: Matrix) -> None:
    """Llama 3 70B with FSDP and checkpointing on 2 p4d: the fewest that fit is not 4 or 8."""
    report = plan(
        matrix,
        model="llama-3-70b",
        instance="p4d.24xlarge",
        nodes=2,
        fsdp=True,
        activation_checkpointing=True,
    )
    assert report.verdict.status == "fits-with-changes"
    nodes = report.verdict.changes[-1].flag.split("--nodes ")[1].split()[0]
    assert int(nodes) not in (4, 8, 16) and int(nodes) > 2


def test_model_and_shape_flags_exclude_each_other(cli: Callable[..., Outcome]) -> None:
    done = cli("plan", "--model", "llama-3-8b", "--layers", "4")
    assert done.code == 2 and "--layers comes from the config.json" in done.err
    done = cli("plan", "--model", "llama-3-8b", "--params", "8B")
    assert done.code == 2
    done = cli("plan", "--model", "llama-3-8b", "--instance", "p5.48xlarge", "--format", "json")
    assert json.loads(done.out)["model"]["params"]["value"] == 8_030_261_248


def test_a_huge_max_gpus_stays_bounded(matrix: Matrix) -> None:
    """Instances without EFA stop at one NVLink domain, more nodes are tried one by one only for
    a while: a billion GPUs allowed is no slower than a few thousand."""
    report = plan(matrix, params=70 * B, max_gpus=10**9)
    assert report.verdict.status == "fits"
    report = plan(matrix, params=70 * B, precision="fp32", instance="p5.48xlarge", max_gpus=10**9)
    assert report.verdict.status == "fits-with-changes"
