"""A model's architecture from its Hugging Face ``config.json``, and its exact parameter count.

Counted per weight matrix and vector as the Transformers implementation of each family builds
them (``modeling_llama``, ``modeling_mistral``, ``modeling_qwen2``, ``modeling_qwen3``,
``modeling_mixtral``, ``modeling_qwen2_moe``, ``modeling_qwen3_moe``, ``modeling_deepseek_v3``,
``modeling_gpt_neox``): attention (grouped-query, or DeepSeek's multi-head latent attention with
its low-rank query and key-value projections), the MLP (gated, three matrices; GPT-NeoX two, with
biases), routed experts, shared experts, routers, layer norms, embeddings and the output head
(shared when ``tie_word_embeddings``). "Active" counts what one token passes through: the dense
parts, the shared experts and ``num_experts_per_tok`` routed experts. DeepSeek-V3's multi-token
prediction (MTP) modules are counted apart, as DeepSeek does (671B without them); they train
alongside the model, so the memory estimate includes them.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict

from stackcheck.errors import StackcheckError

BUNDLED = Path(__file__).parent / "models"
MAX_CONFIG_BYTES = 1 << 20  # a config.json is a few KiB; refuse anything that is not one


class ParamCount(BaseModel):
    """A parameter count with its formula, in the config's names and with the numbers put in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    value: int
    formula: str
    expression: str


@dataclass(frozen=True)
class Architecture:
    """What the planner needs of a model, from its config.json."""

    name: str  # the bundled name, or the path given
    family: str  # config.json's model_type
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    vocab: int
    experts: int | None  # routed experts per MoE layer
    top_k: int | None
    moe_layers: int  # layers with routed experts
    total: ParamCount
    active: ParamCount
    experts_total: int  # the routed experts' parameters, all layers (EP splits them)
    mtp: int  # multi-token prediction modules, trained alongside, not in ``total``
    attention_flops_dim: int  # d in 4*s*d per token per layer for the attention scores (q·k, ·v)


def _int(config: Mapping[str, Any], *keys: str, default: int | None = None) -> int:
    for key in keys:
        value = config.get(key)
        if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
            return value
    if default is not None:
        return default
    raise StackcheckError(f"config.json has no {' or '.join(keys)} (a whole number)")


class _Sum:
    """Terms of a count: name -> (value, formula with the config's names)."""

    def __init__(self) -> None:
        self.terms: list[tuple[str, int, str]] = []

    def add(self, label: str, value: int, formula: str) -> None:
        if value:
            self.terms.append((label, value, formula))

    def count(self) -> ParamCount:
        return ParamCount(
            value=sum(v for _, v, _ in self.terms),
            formula=" + ".join(f"{label} [{formula}]" for label, _, formula in self.terms),
            expression=" + ".join(f"{v:,}" for _, v, _ in self.terms),
        )


def _attention(c: Mapping[str, Any], h: int, heads: int, kv: int, hd: int) -> tuple[int, str]:
    family = str(c.get("model_type", ""))
    if "kv_lora_rank" in c:  # DeepSeek multi-head latent attention
        q_lora = _int(c, "q_lora_rank", default=0)
        nope, rope = _int(c, "qk_nope_head_dim"), _int(c, "qk_rope_head_dim")
        v_dim, kv_lora = _int(c, "v_head_dim"), _int(c, "kv_lora_rank")
        q_head = nope + rope
        q = q_lora * (h + 1) + q_lora * heads * q_head if q_lora else h * heads * q_head
        kv_part = h * (kv_lora + rope) + kv_lora + kv_lora * heads * (nope + v_dim)
        return (
            q + kv_part + heads * v_dim * h,
            "MLA: q_lora*(h+1) + q_lora*a*(nope+rope) + h*(kv_lora+rope) + kv_lora "
            "+ kv_lora*a*(nope+v) + a*v*h",
        )
    if family == "gpt_neox":
        return 4 * h * h + 4 * h, "4*h*h + 4*h (fused QKV and dense, with biases)"
    weights = h * heads * hd + 2 * h * kv * hd + heads * hd * h
    formula = "h*a*d + 2*h*kv*d + a*d*h"
    bias = c.get("attention_bias", family == "qwen2" or family == "qwen2_moe")
    if bias:
        weights += heads * hd + 2 * kv * hd
        formula += " + (a + 2*kv)*d"
    if family.startswith("qwen3"):
        weights += 2 * hd  # q_norm and k_norm over the head dimension
        formula += " + 2*d"
    return weights, formula


def _mlp(c: Mapping[str, Any], h: int, inner: int) -> tuple[int, str]:
    if c.get("model_type") == "gpt_neox":
        return 2 * h * inner + inner + h, "2*h*I + I + h"
    return 3 * h * inner, "3*h*I"


def _layer_norms(c: Mapping[str, Any], h: int) -> int:
    return 4 * h if c.get("model_type") == "gpt_neox" else 2 * h  # GPT-NeoX: LayerNorm has a bias


def count(config: Mapping[str, Any], name: str) -> Architecture:
    """The architecture of ``config`` (a parsed config.json) and its parameter counts."""
    c = config
    family = str(c.get("model_type") or "")
    h = _int(c, "hidden_size", "n_embd", "d_model")
    layers = _int(c, "num_hidden_layers", "n_layer", "num_layers")
    heads = _int(c, "num_attention_heads", "n_head")
    kv = _int(c, "num_key_value_heads", default=heads)
    if heads == 0 or h == 0 or layers == 0:
        raise StackcheckError("config.json gives zero heads, hidden size or layers")
    hd = _int(c, "head_dim", default=h // heads)
    vocab = _int(c, "vocab_size")
    inner = _int(c, "intermediate_size", default=4 * h)
    experts = _int(c, "n_routed_experts", "num_local_experts", "num_experts", default=0)
    top_k = _int(c, "num_experts_per_tok", default=0) if experts else 0
    moe_inner = _int(c, "moe_intermediate_size", default=inner)
    shared = _int(c, "n_shared_experts", default=0)
    shared_inner = _int(c, "shared_expert_intermediate_size", default=0)
    first_dense = _int(c, "first_k_dense_replace", default=0)
    step = _int(c, "decoder_sparse_step", "moe_layer_freq", default=1) or 1
    mlp_only = {i for i in c.get("mlp_only_layers") or [] if isinstance(i, int)}
    moe_layers = (
        sum(
            1
            for i in range(layers)
            if i >= first_dense and i not in mlp_only and (i + 1) % step == 0
        )
        if experts
        else 0
    )
    if "first_k_dense_replace" in c and experts:  # DeepSeek: every layer from k on is MoE
        moe_layers = layers - first_dense
    dense_layers = layers - moe_layers

    attention, attention_formula = _attention(c, h, heads, kv, hd)
    mlp, mlp_formula = _mlp(c, h, inner)
    norms = _layer_norms(c, h)
    expert = 3 * h * moe_inner
    router = h * experts + (experts if c.get("topk_method") == "noaux_tc" else 0)
    shared_mlp = shared * 3 * h * moe_inner + (3 * h * shared_inner + h if shared_inner else 0)
    embed = vocab * h
    head = 0 if c.get("tie_word_embeddings", False) else vocab * h
    final_norm = 2 * h if family == "gpt_neox" else h

    def tally(routed_per_layer: int, routed_formula: str) -> ParamCount:
        s = _Sum()
        s.add("embeddings", embed, "V*h")
        s.add("attention", layers * attention, f"L*({attention_formula})")
        s.add("layer norms", layers * norms + final_norm, "L*2*h + h")
        s.add("dense MLPs", dense_layers * mlp, f"L_dense*{mlp_formula}")
        s.add("routers", moe_layers * router, "L_moe*h*E")
        s.add("shared experts", moe_layers * shared_mlp, "L_moe*shared*3*h*I_moe")
        s.add("routed experts", moe_layers * routed_per_layer, f"L_moe*{routed_formula}")
        s.add("output head", head, "V*h (untied)")
        return s.count()

    total = tally(experts * expert, "E*3*h*I_moe")
    active = tally(top_k * expert, "k*3*h*I_moe") if experts else total
    mtp_layers = _int(c, "num_nextn_predict_layers", default=0)
    # An MTP module: one more MoE layer, two RMSNorms and a 2h -> h projection; it shares the
    # embeddings and the output head with the model (DeepSeek-V3 report, section 2.2).
    mtp = mtp_layers * (
        attention + norms + router + shared_mlp + experts * expert + 2 * h * h + 3 * h
    )
    qk_dim = _int(c, "qk_nope_head_dim", default=hd) + _int(c, "qk_rope_head_dim", default=0)
    v_dim = _int(c, "v_head_dim", default=hd)
    return Architecture(
        name=name,
        family=family or "unknown",
        layers=layers,
        hidden=h,
        heads=heads,
        kv_heads=kv,
        head_dim=hd,
        vocab=vocab,
        experts=experts or None,
        top_k=top_k or None,
        moe_layers=moe_layers,
        total=total,
        active=active,
        experts_total=moe_layers * experts * expert,
        mtp=mtp,
        attention_flops_dim=heads * (qk_dim + v_dim) // 2,
    )


def bundled_names() -> list[str]:
    return sorted(p.stem for p in BUNDLED.glob("*.json"))


def load(path_or_name: str) -> Architecture:
    """A bundled model by name (``llama-3-70b``), or a config.json file (or its directory)."""
    path = Path(path_or_name)
    if path.is_dir():
        path = path / "config.json"
    if not path.is_file():
        bundled = BUNDLED / f"{path_or_name.lower()}.json"
        if not bundled.is_file():
            raise StackcheckError(
                f"--model {path_or_name!r} is neither a config.json file nor a bundled model "
                f"({', '.join(bundled_names())})"
            )
        path, name = bundled, path_or_name.lower()
    else:
        name = str(path)
    if path.stat().st_size > MAX_CONFIG_BYTES:
        raise StackcheckError(f"{path} is larger than a config.json ({MAX_CONFIG_BYTES} bytes)")
    try:
        config = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StackcheckError(f"cannot read {path} as JSON: {exc}") from None
    if not isinstance(config, dict):
        raise StackcheckError(f"{path} is not a config.json object")
    text = config.get("text_config")
    return count(text if isinstance(text, dict) else config, name)
