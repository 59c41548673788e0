"""Decoder-only LLM architectures and their exact parameter counts.

A ModelSpec holds the architecture numbers of a Hugging Face ``config.json`` (layers, hidden size, heads, KV
heads, head dim, FFN size, vocabulary, tied embeddings, gated MLP, norm type, biases, MoE and MLA shapes). Its
parameter count is computed tensor by tensor, the way the checkpoint stores them, so that it matches the
published figures (see tests/planner/test_models.py, which states each official number and its source).

Presets live in planner/catalog/models.json with the URL of the config.json they were copied from and its date.
Pure functions only; the one file read here is the package's own catalog (cached) and the files a user names
(config.json, *.safetensors headers), read on request.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import math
import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from planner.errors import UserError
from planner.files import open_regular_file, read_user_file
from planner.messages import Message, msg


@dataclass(frozen=True)
class ModelSpec:
    """Architecture of a decoder-only transformer; every size is a count (of layers, features, heads, tokens)."""

    name: str
    family: str  # "llama", "mixtral", "qwen2", "gemma2", "phi3", "deepseek_v3", "gpt2", "generic", ...
    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    ffn: int  # intermediate size of the dense MLP
    vocab: int
    tied_embeddings: bool
    gated_mlp: bool  # SwiGLU/GeGLU (gate, up, down) instead of (fc, proj)
    norm: str  # "rmsnorm" | "layernorm" (layernorm has a bias)
    attn_bias: bool  # biases on the q, k, v projections
    mlp_bias: bool
    experts: int = 0  # routed experts per MoE layer
    experts_per_token: int = 0
    shared_experts: int = 0
    moe_ffn: int = 0  # intermediate size of one routed expert
    dense_layers: int = 0  # MoE models: layers that keep a dense MLP (DeepSeek's first_k_dense_replace)
    q_lora_rank: int = 0  # MLA (DeepSeek-V2/V3); 0 = q projected directly from the hidden state
    kv_lora_rank: int = 0
    qk_rope_head_dim: int = 0
    qk_nope_head_dim: int = 0
    v_head_dim: int = 0
    max_context: int = 4096  # tokens
    source: str = ""
    # Extra fields (beyond the shared contract) needed to count some families exactly.
    id: str = ""  # preset id ("llama-3.1-70b"); empty for imported models
    source_date: str = ""  # ISO date of the source
    attn_out_bias: bool = False  # bias on the attention output projection (gpt2, gpt_neox)
    norms_per_layer: int = 2  # Gemma-2 has four (pre/post attention, pre/post feed-forward)
    learned_positions: bool = False  # gpt2: a max_context x hidden position table
    shared_expert_ffn: int = (
        0  # total intermediate size of the shared expert(s); 0 = shared_experts * moe_ffn
    )
    shared_expert_gate: bool = False  # qwen2_moe: a sigmoid gate (hidden -> 1) on the shared expert
    router_bias: bool = False  # DeepSeek-V3: e_score_correction_bias, one number per expert
    activation: str = "silu"  # "silu" | "gelu" | "gelu_new" (GPT-2's, written out in Python: more saved tensors)
    rotary: bool = True
    exact_params: int = 0  # tensor elements counted in *.safetensors headers (0 = not measured)
    qk_norm: bool = False  # qwen3, qwen3_moe, gemma3: an RMSNorm over head_dim on queries and on keys
    sliding_window: int = 0  # tokens a sliding-window layer attends to (0: none, or null in the config)

    @property
    def is_moe(self) -> bool:
        return self.experts > 0

    @property
    def uses_mla(self) -> bool:
        return self.kv_lora_rank > 0

    @property
    def moe_layers(self) -> int:
        return self.layers - self.dense_layers if self.is_moe else 0

    @property
    def total_params(self) -> int:
        """All parameters (the safetensors count when a model folder was read, else the architecture's)."""
        return self.exact_params or param_counts(self).total

    @property
    def active_params(self) -> int:
        """Parameters touched per token: everything except the routed experts a token does not visit.

        Embedding and LM head included (the convention of Mixtral's 12.9B).
        """
        counts = param_counts(self)
        if not self.is_moe:
            return self.total_params
        return counts.active

    def kv_bytes_per_token(self, kv_bytes_per_element: float) -> float:
        """KV-cache bytes one token occupies across all layers of the whole model (no tensor parallelism).

        Standard attention keeps K and V: 2 x kv_heads x head_dim values per layer. MLA keeps one compressed
        latent plus the shared rotary key: kv_lora_rank + qk_rope_head_dim values per layer (DeepSeek-V2 paper).
        """
        if self.uses_mla:
            return self.layers * (self.kv_lora_rank + self.qk_rope_head_dim) * kv_bytes_per_element
        return 2 * self.layers * self.kv_heads * self.head_dim * kv_bytes_per_element

    @property
    def display_name(self) -> str:
        return self.name or self.id


# ---------------------------------------------------------------------------------------------------------
# Parameter counting
# ---------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParamCounts:
    """Parameters by place in the network (counts, not bytes). Per-layer figures are for one layer."""

    embedding: int  # token embedding (+ learned positions)
    lm_head: int  # 0 when tied to the embedding
    final_norm: int
    attention: int  # one layer: projections, their biases, MLA's internal norms
    layer_norms: int  # one layer: the block's norms
    dense_mlp: int  # one dense layer's MLP
    routed_expert: int  # one routed expert
    shared_expert: int  # the shared expert(s) of one MoE layer
    router: int  # one MoE layer's router (+ correction bias, shared-expert gate)
    dense_layer: int  # a whole dense layer
    moe_layer: int  # a whole MoE layer, all experts
    moe_layer_active: int  # a MoE layer as one token sees it (top-k routed + shared)
    small_per_layer: int  # norms and biases in one layer (kept in 16 bit when weights are quantised)
    total: int
    active: int
    attention_small: int = 0  # of attention: its biases and internal norms (MLA's, q/k norms)
    shared_expert_bias: int = 0  # of shared_expert: its biases

    @property
    def linear_weights_dense_layer(self) -> int:
        """Elements of a dense layer's Linear weight matrices (no biases, no norms)."""
        return self.dense_layer - self.small_per_layer

    @property
    def linear_weights_moe_layer(self) -> int:
        """Elements of an MoE layer's Linear weights outside the routed experts: attention, shared expert(s) and
        the router's matrix (its extra bias and the shared-expert gate included: tiny)."""
        return self.attention - self.attention_small + self.shared_expert - self.shared_expert_bias + self.router

    @property
    def routed_experts_per_layer(self) -> int:
        return self.moe_layer - self.moe_layer_non_expert

    @property
    def moe_layer_non_expert(self) -> int:
        return self.attention + self.layer_norms + self.shared_expert + self.router


def _norm_size(spec: ModelSpec) -> int:
    """Parameters of one norm over the hidden state: weight, plus bias for LayerNorm."""
    return spec.hidden * (2 if spec.norm == "layernorm" else 1)


def _attention_params(spec: ModelSpec) -> tuple[int, int]:
    """(parameters, of which biases and internal norms) of one attention block."""
    h = spec.hidden
    if spec.uses_mla:
        qk_head = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        # attention_bias: q_a_proj, kv_a_proj_with_mqa and o_proj get biases (transformers' DeepseekV2/V3)
        bias = 0
        if spec.attn_bias:
            bias = (spec.q_lora_rank if spec.q_lora_rank else 0) + spec.kv_lora_rank + spec.qk_rope_head_dim + h
        if spec.q_lora_rank:
            q = h * spec.q_lora_rank + spec.q_lora_rank + spec.q_lora_rank * spec.heads * qk_head
            small = spec.q_lora_rank
        else:
            q = h * spec.heads * qk_head
            small = 0
        kv_a = h * (spec.kv_lora_rank + spec.qk_rope_head_dim) + spec.kv_lora_rank  # + kv_a_layernorm
        kv_b = spec.kv_lora_rank * spec.heads * (spec.qk_nope_head_dim + spec.v_head_dim)
        out = spec.heads * spec.v_head_dim * h
        return q + kv_a + kv_b + out + bias, small + spec.kv_lora_rank + bias
    q_width = spec.heads * spec.head_dim
    kv_width = spec.kv_heads * spec.head_dim
    weights = h * q_width + 2 * h * kv_width + q_width * h
    biases = (q_width + 2 * kv_width if spec.attn_bias else 0) + (h if spec.attn_out_bias else 0)
    norms = 2 * spec.head_dim if spec.qk_norm else 0
    return weights + biases + norms, biases + norms


def _mlp_params(spec: ModelSpec, ffn: int, bias: bool) -> tuple[int, int]:
    """(parameters, of which biases) of one MLP with intermediate size ffn."""
    if ffn == 0:
        return 0, 0
    matrices = 3 if spec.gated_mlp else 2
    biases = ((2 * ffn if spec.gated_mlp else ffn) + spec.hidden) if bias else 0
    return matrices * spec.hidden * ffn + biases, biases


@functools.lru_cache(maxsize=4096)
def param_counts(spec: ModelSpec) -> ParamCounts:
    """Count every tensor of the architecture (cached: specs are frozen, planners call this in loops)."""
    h = spec.hidden
    embedding = spec.vocab * h + (spec.max_context * h if spec.learned_positions else 0)
    lm_head = 0 if spec.tied_embeddings else spec.vocab * h
    final_norm = _norm_size(spec)
    attention, attention_small = _attention_params(spec)
    layer_norms = spec.norms_per_layer * _norm_size(spec)
    dense_mlp, dense_mlp_bias = _mlp_params(spec, spec.ffn, spec.mlp_bias)
    routed_expert = shared_expert = router = shared_bias = 0
    if spec.is_moe:
        routed_expert = _mlp_params(spec, spec.moe_ffn, False)[0]
        shared_ffn = spec.shared_expert_ffn or spec.shared_experts * spec.moe_ffn
        # deepseek_v2's mlp_bias reaches the shared experts
        shared_expert, shared_bias = _mlp_params(spec, shared_ffn, spec.mlp_bias)
        router = (
            h * spec.experts
            + (spec.experts if spec.router_bias else 0)
            + (h if spec.shared_expert_gate else 0)
        )
    dense_layer = attention + layer_norms + dense_mlp
    moe_non_expert = attention + layer_norms + shared_expert + router
    moe_layer = moe_non_expert + spec.experts * routed_expert
    moe_layer_active = moe_non_expert + spec.experts_per_token * routed_expert
    n_dense = spec.layers - spec.moe_layers
    ends = embedding + lm_head + final_norm
    total = ends + n_dense * dense_layer + spec.moe_layers * moe_layer
    active = ends + n_dense * dense_layer + spec.moe_layers * moe_layer_active
    return ParamCounts(
        embedding=embedding,
        lm_head=lm_head,
        final_norm=final_norm,
        attention=attention,
        layer_norms=layer_norms,
        dense_mlp=dense_mlp,
        routed_expert=routed_expert,
        shared_expert=shared_expert,
        router=router,
        dense_layer=dense_layer,
        moe_layer=moe_layer,
        moe_layer_active=moe_layer_active,
        small_per_layer=attention_small + layer_norms + dense_mlp_bias,
        attention_small=attention_small,
        shared_expert_bias=shared_bias,
        total=total,
        active=active,
    )


def validate_spec(spec: ModelSpec, where: str = "model") -> ModelSpec:
    """Raise UserError when an architecture number is impossible; return the spec unchanged otherwise."""
    for field in ("layers", "hidden", "heads", "kv_heads", "vocab", "max_context", "norms_per_layer"):
        value = getattr(spec, field)
        if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
            raise UserError.of(msg("error.spec_positive", where=where, field=field, value=value))
    for field in (f.name for f in dataclasses.fields(spec)):
        value = getattr(spec, field)
        if isinstance(value, int) and not isinstance(value, bool) and value < 0:
            raise UserError.of(msg("error.spec_negative", where=where, field=field, value=value))
    if not spec.uses_mla and spec.head_dim <= 0:
        raise UserError.of(msg("error.spec_positive", where=where, field="head_dim", value=spec.head_dim))
    if spec.ffn <= 0 and not (spec.is_moe and spec.dense_layers == 0):
        raise UserError.of(
            msg("error.spec_positive", where=where, field="ffn (intermediate_size)", value=spec.ffn)
        )
    if spec.heads % spec.kv_heads:
        raise UserError.of(msg("error.spec_gqa", where=where, heads=spec.heads, kv_heads=spec.kv_heads))
    if spec.norm not in ("rmsnorm", "layernorm"):
        raise UserError.of(msg("error.spec_norm", where=where, norm=spec.norm))
    if spec.is_moe:
        if not 0 < spec.experts_per_token <= spec.experts:
            raise UserError.of(msg("error.spec_experts_per_token", where=where, experts=spec.experts))
        if spec.moe_ffn <= 0:
            raise UserError.of(msg("error.spec_moe_ffn", where=where))
        if spec.dense_layers >= spec.layers:
            raise UserError.of(
                msg(
                    "error.spec_dense_layers", where=where, dense_layers=spec.dense_layers, layers=spec.layers
                )
            )
    if spec.uses_mla and (spec.v_head_dim <= 0 or spec.qk_nope_head_dim + spec.qk_rope_head_dim <= 0):
        raise UserError.of(msg("error.spec_mla", where=where))
    return spec


# ---------------------------------------------------------------------------------------------------------
# Presets
# ---------------------------------------------------------------------------------------------------------

_SPEC_FIELDS = {f.name for f in dataclasses.fields(ModelSpec)}


def _spec_from_record(record: dict[str, Any]) -> ModelSpec:  # Any: one record of models.json
    values = {key: value for key, value in record.items() if key in _SPEC_FIELDS}
    return validate_spec(ModelSpec(**values), where=f"catalog model {record.get('id')}")


@functools.lru_cache(maxsize=1)
def _presets() -> tuple[ModelSpec, ...]:
    text = resources.files("planner.catalog").joinpath("models.json").read_text(encoding="utf-8")
    return tuple(_spec_from_record(record) for record in json.loads(text)["models"])


def list_presets() -> list[ModelSpec]:
    """The model presets of planner/catalog/models.json, in catalog order."""
    return list(_presets())


def get_preset(name: str) -> ModelSpec:
    """A preset by id ("llama-3.1-70b") or display name ("Llama 3.1 70B"), case-insensitive."""
    wanted = _normalise(name)
    for spec in _presets():
        if wanted in (_normalise(spec.id), _normalise(spec.name)):
            return spec
    known = ", ".join(spec.id for spec in _presets())
    raise UserError.of(msg("error.unknown_preset", name=name, presets=known))


def _normalise(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())


# ---------------------------------------------------------------------------------------------------------
# Generic "N billion parameters" model
# ---------------------------------------------------------------------------------------------------------

GENERIC_VOCAB = 32000  # Llama-2's vocabulary
GENERIC_MIN_BILLIONS = 0.05
GENERIC_MAX_BILLIONS = 10000.0


def _generic_shape(hidden: int) -> tuple[int, int, int]:
    """(layers, heads, kv_heads) of a Llama-like model of this width: about 128 features per layer (Llama-2)."""
    heads = max(1, hidden // 128)
    layers = max(2, round(hidden / 128))
    kv_heads = heads if hidden < 6144 else 8  # Llama-2/3 use GQA-8 from the 70B size up
    return layers, heads, kv_heads


@functools.lru_cache(maxsize=256)
def generic_model(billions: float) -> ModelSpec:
    """A dense Llama-like model with about ``billions`` x 1e9 parameters (within 1%).

    The width is chosen so that layers = hidden / 128 (Llama-2's aspect ratio), then the FFN size is solved
    to land on the requested count.
    """
    if not isinstance(billions, (int, float)) or not math.isfinite(billions):
        raise UserError.of(msg("error.size_not_number", billions=billions))
    if not GENERIC_MIN_BILLIONS <= billions <= GENERIC_MAX_BILLIONS:
        raise UserError.of(
            msg("error.size_range", billions=billions, low=GENERIC_MIN_BILLIONS, high=GENERIC_MAX_BILLIONS)
        )
    target = billions * 1e9
    best: ModelSpec | None = None
    for hidden in range(256, 65536 + 1, 128):
        layers, heads, kv_heads = _generic_shape(hidden)
        if heads % kv_heads:  # grouped-query attention needs whole groups
            continue
        attention = 2 * hidden * hidden + 2 * hidden * kv_heads * 128
        fixed = 2 * GENERIC_VOCAB * hidden + hidden + layers * (attention + 2 * hidden)
        ffn = round((target - fixed) / (3 * hidden * layers) / 64) * 64
        if ffn < hidden:  # this width is already too big for the target
            break
        best = ModelSpec(
            name=f"Generic {billions:g}B",
            family="generic",
            layers=layers,
            hidden=hidden,
            heads=heads,
            kv_heads=kv_heads,
            head_dim=128 if hidden >= 256 else hidden // heads,
            ffn=ffn,
            vocab=GENERIC_VOCAB,
            tied_embeddings=False,
            gated_mlp=True,
            norm="rmsnorm",
            attn_bias=False,
            mlp_bias=False,
            max_context=4096,
            source="synthetic Llama-like shape (layers = hidden/128, SwiGLU, vocabulary 32000)",
            id=f"generic-{billions:g}b",
        )
        if ffn <= 4 * hidden:  # Llama-like FFN ratio (8/3 ... 4) reached: stop widening
            break
    if best is None:
        raise UserError.of(msg("error.size_too_small", billions=billions))
    return validate_spec(best, where=best.name)


# ---------------------------------------------------------------------------------------------------------
# Hugging Face config.json import
# ---------------------------------------------------------------------------------------------------------

SUPPORTED_MODEL_TYPES = (
    "llama",
    "mistral",
    "mixtral",
    "qwen2",
    "qwen2_moe",
    "qwen3",
    "qwen3_moe",
    "gemma",
    "gemma2",
    "gemma3_text",
    "phi3",
    "gpt2",
    "gpt_neox",
    "deepseek_v2",
    "deepseek_v3",
)

# What transformers assumes for a key a config.json leaves out: the defaults of each model type's configuration
# class in transformers 5.24 (transformers/models/<type>/configuration_<type>.py, read 2026-12-01). A config.json
# saved by transformers always writes them; hand-written and trimmed ones do not, and transformers then builds the
# model with these. tests/planner/test_model_import_vs_transformers.py checks them against transformers itself.
HF_DEFAULTS: dict[str, dict[str, Any]] = {  # Any: JSON values
    "llama": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 2048, "tie_word_embeddings": False},
    "mistral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                "tie_word_embeddings": False, "sliding_window": 4096},
    "mixtral": {"vocab_size": 32000, "hidden_size": 4096, "intermediate_size": 14336, "num_hidden_layers": 32,
                "num_attention_heads": 32, "num_key_value_heads": 8, "max_position_embeddings": 131072,
                "tie_word_embeddings": False, "num_local_experts": 8, "num_experts_per_tok": 2},
    "qwen2": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "max_position_embeddings": 32768, "tie_word_embeddings": False},
    "qwen2_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 24,
                  "num_attention_heads": 16, "max_position_embeddings": 32768, "tie_word_embeddings": False,
                  "qkv_bias": True, "num_experts_per_tok": 4, "num_experts": 60, "moe_intermediate_size": 1408,
                  "shared_expert_intermediate_size": 5632, "decoder_sparse_step": 1},
    "qwen3": {"vocab_size": 151936, "hidden_size": 4096, "intermediate_size": 22016, "num_hidden_layers": 32,
              "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 32768,
              "tie_word_embeddings": False},
    "qwen3_moe": {"vocab_size": 151936, "hidden_size": 2048, "intermediate_size": 6144, "num_hidden_layers": 24,
                  "num_attention_heads": 32, "num_key_value_heads": 4, "max_position_embeddings": 32768,
                  "tie_word_embeddings": False, "num_experts_per_tok": 8, "num_experts": 128,
                  "moe_intermediate_size": 768, "decoder_sparse_step": 1},
    "gemma": {"vocab_size": 256000, "hidden_size": 3072, "intermediate_size": 24576, "num_hidden_layers": 28,
              "num_attention_heads": 16, "num_key_value_heads": 16, "head_dim": 256, "max_position_embeddings": 8192,
              "tie_word_embeddings": True},
    "gemma2": {"vocab_size": 256000, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
               "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256, "max_position_embeddings": 8192,
               "tie_word_embeddings": True, "sliding_window": 4096},
    "gemma3_text": {"vocab_size": 262208, "hidden_size": 2304, "intermediate_size": 9216, "num_hidden_layers": 26,
                    "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
                    "max_position_embeddings": 131072, "tie_word_embeddings": True, "sliding_window": 4096},
    "phi3": {"vocab_size": 32064, "hidden_size": 3072, "intermediate_size": 8192, "num_hidden_layers": 32,
             "num_attention_heads": 32, "max_position_embeddings": 4096, "tie_word_embeddings": False},
    "gpt2": {"vocab_size": 50257, "n_embd": 768, "n_layer": 12, "n_head": 12, "n_positions": 1024,
             "tie_word_embeddings": True},
    "gpt_neox": {"vocab_size": 50432, "hidden_size": 6144, "intermediate_size": 24576, "num_hidden_layers": 44,
                 "num_attention_heads": 64, "max_position_embeddings": 2048, "tie_word_embeddings": False,
                 "attention_bias": True},
    "deepseek_v2": {"vocab_size": 102400, "hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                    "num_attention_heads": 32, "max_position_embeddings": 2048, "tie_word_embeddings": False,
                    "moe_intermediate_size": 1407, "n_routed_experts": 64, "n_shared_experts": 2,
                    "first_k_dense_replace": 0, "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64,
                    "qk_nope_head_dim": 128, "v_head_dim": 128},
    "deepseek_v3": {"vocab_size": 129280, "hidden_size": 7168, "intermediate_size": 18432, "num_hidden_layers": 61,
                    "num_attention_heads": 128, "max_position_embeddings": 4096, "tie_word_embeddings": False,
                    "num_experts_per_tok": 8, "moe_intermediate_size": 2048, "n_routed_experts": 256,
                    "n_shared_experts": 1, "first_k_dense_replace": 3, "q_lora_rank": 1536, "kv_lora_rank": 512,
                    "qk_rope_head_dim": 64, "qk_nope_head_dim": 128, "v_head_dim": 128},
}  # fmt: skip
# DeepSeek-V2 routes each token to 6 experts (arXiv 2405.04434, section 4.1); transformers' default is None,
# which counts the same parameters, so this only sets the active count of a config without the key.
DEEPSEEK_V2_EXPERTS_PER_TOKEN = 6

MAX_CONFIG_BYTES = 4 * 2**20  # a config.json is a few KiB; refuse anything that is clearly not one
# Parameter totals an imported config.json or model folder may have: any positive count up to the generic model's
# ceiling. Past that the numbers are a typo or a damaged file (and would pass 2**63 in the JSON).
IMPORTED_MIN_PARAMS = 1  # any positive size: tiny test models (a few million parameters) are real models too
IMPORTED_MAX_PARAMS = int(GENERIC_MAX_BILLIONS * 1e9)  # 10,000B


class _Config:
    """A config.json dict that reports a missing or malformed key as a UserError naming the file and key."""

    def __init__(self, data: dict[str, Any], path: str):  # Any: the JSON values of a config.json
        # keys the file leaves out (or sets to null) take transformers' defaults for the model type
        defaults = HF_DEFAULTS.get(str(data.get("model_type")), {})
        self.data = {**defaults, **{k: v for k, v in data.items() if v is not None}}
        self.raw = data
        self.path = path
        self.model_type = data.get("model_type")

    def int(self, key: str, default: int | None = None, *, allow_zero: bool = False) -> int:
        value = self.data.get(key, default)
        if value is None:
            if default is None:
                raise UserError.of(
                    msg("error.config_missing_key", path=self.path, key=key, model_type=self.model_type)
                )
            value = default
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < 0
            or (value == 0 and not allow_zero)
        ):
            raise UserError.of(msg("error.config_key_int", path=self.path, key=key, value=value))
        return value

    def bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise UserError.of(msg("error.config_key_bool", path=self.path, key=key, value=value))
        return value


def _cannot_read(path: Path, exc: Exception) -> Message:
    return msg("error.cannot_read", path=str(path), kind=exc.__class__.__name__, reason=str(exc))


def _read_config(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise UserError.of(msg("error.config_too_large", path=str(path), size=size))
    except FileNotFoundError:
        raise UserError.of(msg("error.file_missing", path=str(path))) from None
    except OSError as exc:
        raise UserError.of(_cannot_read(path, exc)) from None
    raw = read_user_file(path, MAX_CONFIG_BYTES)  # a FIFO or /dev/zero is refused, not read forever
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows Notepad) is fine
    except UnicodeDecodeError as exc:
        raise UserError.of(_cannot_read(path, exc)) from None
    data = _parse_untrusted_json(text, path)
    if not isinstance(data, dict):
        raise UserError.of(msg("error.config_not_object", path=str(path), kind=type(data).__name__))
    return data


def _parse_untrusted_json(text: str, path: Path) -> Any:
    """json.loads for a file from anywhere (a hub download): deep nesting (RecursionError) and integers past
    Python's 4,300-digit limit (ValueError) are refused as bad JSON, in one line, like any other damage."""
    try:
        data = json.loads(text)
        json.dumps(data, ensure_ascii=False).encode("utf-8")  # a "\udcff" escape gives text no file can hold
        return data
    except UnicodeEncodeError:
        raise UserError.of(msg("error.config_bad_json", path=str(path), reason="text that is not valid Unicode "
                               "(a lone surrogate escape)", line=1)) from None  # fmt: skip
    except json.JSONDecodeError as exc:
        raise UserError.of(
            msg("error.config_bad_json", path=str(path), reason=exc.msg, line=exc.lineno)
        ) from None
    except RecursionError:
        raise UserError.of(msg("error.config_bad_json", path=str(path), reason="nested too deeply", line=1)) from None
    except ValueError as exc:  # an integer of more than 4,300 digits
        raise UserError.of(msg("error.config_bad_json", path=str(path), reason=str(exc), line=1)) from None


def load_hf_config(path: str | os.PathLike[str]) -> ModelSpec:
    """Read a Hugging Face config.json (llama, mistral, mixtral, qwen2, qwen2_moe, gemma, gemma2, phi3, gpt2,
    gpt_neox, deepseek_v2, deepseek_v3) into a ModelSpec. UserError names the file and key on bad input."""
    path = Path(path)
    if path.is_dir():
        path = path / "config.json"
    data = _read_config(path)
    model_type = data.get("model_type")
    if model_type is None:
        raise UserError.of(msg("error.config_no_model_type", path=str(path)))
    if model_type not in SUPPORTED_MODEL_TYPES:
        supported = ", ".join(SUPPORTED_MODEL_TYPES)
        raise UserError.of(
            msg("error.config_model_type", path=str(path), model_type=model_type, supported=supported)
        )
    config = _Config(data, str(path))
    name = str(data.get("_name_or_path") or path.parent.name or model_type)
    common = {"name": name, "family": model_type, "source": str(path)}
    if model_type == "gpt2":
        spec = _gpt2(config, common)
    elif model_type == "gpt_neox":
        spec = _gpt_neox(config, common)
    elif model_type in ("deepseek_v2", "deepseek_v3"):
        spec = _deepseek(config, common)
    else:
        spec = _llama_like(config, common)
    validate_spec(spec, where=str(path))
    check_imported_size(spec.total_params, str(path))
    return spec


def check_imported_size(params: int, where: str, minimum: int = IMPORTED_MIN_PARAMS) -> None:
    """UserError naming `where` when an imported model's parameter count is outside 0.01B..10,000B."""
    if not minimum <= params <= IMPORTED_MAX_PARAMS:
        raise UserError.of(msg(
            "error.imported_size", where=where, billions=params / 1e9, low=minimum / 1e9,
            high=IMPORTED_MAX_PARAMS / 1e9,
        ))  # fmt: skip


def _count_multiples(step: int, start: int, stop: int) -> int:
    """How many i in range(start, stop) are multiples of step (counted, not looped: layers may be absurd)."""
    if stop <= start:
        return 0
    return (stop - 1) // step - (start - 1) // step if start > 0 else (stop - 1) // step + 1


def _llama_like(config: _Config, common: dict[str, str]) -> ModelSpec:
    """llama, mistral, mixtral, qwen2, qwen2_moe, qwen3, qwen3_moe, gemma, gemma2, gemma3_text, phi3: the same
    tensor layout (phi3 fuses qkv and gate/up, same counts) with each type's biases, norms and defaults."""
    t = config.model_type
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    kv_heads = config.int("num_key_value_heads", heads)
    head_dim = config.int("head_dim") if config.data.get("head_dim") is not None else hidden // heads
    layers = config.int("num_hidden_layers")
    gemma = t in ("gemma", "gemma2", "gemma3_text")
    # biases: llama, gemma*, qwen3* put attention_bias on q, k, v and o; qwen2 always biases q, k, v (not o);
    # qwen2_moe's qkv_bias does the same; mistral, mixtral and phi3 have none
    qkv_bias = out_bias = False
    if t in ("llama", "gemma", "gemma2", "gemma3_text", "qwen3", "qwen3_moe"):
        qkv_bias = out_bias = config.bool("attention_bias", False)
    elif t == "qwen2":
        qkv_bias = True
    elif t == "qwen2_moe":
        qkv_bias = config.bool("qkv_bias", True)
    # null means no window (transformers keeps the None); a missing key takes the type's default
    window = config.raw["sliding_window"] if "sliding_window" in config.raw else config.data.get("sliding_window")
    if t in ("qwen2", "qwen2_moe", "qwen3", "qwen3_moe") and not config.bool("use_sliding_window", False):
        window = None
    fields: dict[str, Any] = dict(  # Any: ModelSpec's fields, checked by validate_spec
        common,
        layers=layers,
        hidden=hidden,
        heads=heads,
        kv_heads=kv_heads,
        head_dim=head_dim,
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", gemma),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=qkv_bias,
        attn_out_bias=out_bias,
        mlp_bias=config.bool("mlp_bias", False) if t == "llama" else False,
        max_context=config.int("max_position_embeddings", 4096),
        norms_per_layer=4 if t in ("gemma2", "gemma3_text") else 2,
        activation="gelu" if gemma else "silu",
        qk_norm=t in ("qwen3", "qwen3_moe", "gemma3_text"),
        sliding_window=window if isinstance(window, int) and not isinstance(window, bool) and window > 0 else 0,
    )
    if t == "mixtral":
        fields.update(
            experts=config.int("num_local_experts"),
            experts_per_token=config.int("num_experts_per_tok"),
            moe_ffn=fields["ffn"],
        )
    elif t in ("qwen2_moe", "qwen3_moe"):
        fields.update(_qwen_moe(config, layers, shared=t == "qwen2_moe"))
    return ModelSpec(**fields)


def _qwen_moe(config: _Config, layers: int, shared: bool) -> dict[str, Any]:  # Any: ModelSpec fields
    """MoE fields of qwen2_moe / qwen3_moe: layer i is sparse when (i + 1) % decoder_sparse_step == 0 and it is not in
    mlp_only_layers (every layer may be dense); qwen2_moe adds a gated shared expert."""
    experts = config.int("num_experts")
    step = config.int("decoder_sparse_step", 1)
    dense_only = config.data.get("mlp_only_layers") or []
    if not isinstance(dense_only, list):
        raise UserError.of(msg("error.config_mlp_only_layers", path=config.path))
    # counted, not looped over, so an absurd layer count reaches the size check instead of hanging here
    listed = {i for i in dense_only if isinstance(i, int) and 0 <= i < layers and (i + 1) % step == 0}
    moe_layers = _count_multiples(step, 1, layers + 1) - len(listed)
    shared_ffn = config.int("shared_expert_intermediate_size", 0, allow_zero=True) if shared else 0
    if moe_layers <= 0:
        return {}  # every layer dense: a dense model as transformers builds it
    return dict(
        experts=experts,
        experts_per_token=config.int("num_experts_per_tok"),
        moe_ffn=config.int("moe_intermediate_size"),
        dense_layers=layers - moe_layers,
        shared_experts=1 if shared_ffn else 0,
        shared_expert_ffn=shared_ffn,
        shared_expert_gate=shared,  # qwen2_moe builds the gate (hidden -> 1) even for a zero-width shared expert
    )


def _gpt2(config: _Config, common: dict[str, str]) -> ModelSpec:
    hidden = config.int("n_embd")
    heads = config.int("n_head")
    inner = config.data.get("n_inner")
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=config.int("n_layer"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        ffn=config.int("n_inner") if inner is not None else 4 * hidden,
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", True),
        gated_mlp=False,
        norm="layernorm",
        attn_bias=True,
        attn_out_bias=True,
        mlp_bias=True,
        max_context=config.int("n_positions", 1024),
        learned_positions=True,
        activation="gelu_new" if config.data.get("activation_function", "gelu_new") == "gelu_new" else "gelu",
        rotary=False,
    )


def _gpt_neox(config: _Config, common: dict[str, str]) -> ModelSpec:
    hidden = config.int("hidden_size")
    heads = config.int("num_attention_heads")
    bias = config.bool("attention_bias", True)
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=config.int("num_hidden_layers"),
        hidden=hidden,
        heads=heads,
        kv_heads=heads,
        head_dim=hidden // heads,
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=False,
        norm="layernorm",
        attn_bias=bias,
        attn_out_bias=bias,
        mlp_bias=True,
        max_context=config.int("max_position_embeddings", 2048),
        activation="gelu",
    )


def _deepseek(config: _Config, common: dict[str, str]) -> ModelSpec:
    layers = config.int("num_hidden_layers")
    experts = config.int("n_routed_experts", 0, allow_zero=True)
    # transformers makes every layer from first_k_dense_replace on an MoE layer (moe_layer_freq is not read)
    first_dense = min(config.int("first_k_dense_replace", 0, allow_zero=True), layers)
    moe_layers = layers - first_dense if experts else 0
    experts = experts if moe_layers else 0
    # an explicit null means "no low-rank query" (DeepSeek-V2-Lite); a missing key takes transformers' default
    q_lora = config.raw["q_lora_rank"] if "q_lora_rank" in config.raw else config.data.get("q_lora_rank")
    heads = config.int("num_attention_heads")
    return ModelSpec(
        name=common["name"],
        family=common["family"],
        source=common["source"],
        layers=layers,
        hidden=config.int("hidden_size"),
        heads=heads,
        kv_heads=heads,  # MLA: every head has its own K and V, decompressed from the shared latent
        head_dim=config.int("v_head_dim"),
        ffn=config.int("intermediate_size"),
        vocab=config.int("vocab_size"),
        tied_embeddings=config.bool("tie_word_embeddings", False),
        gated_mlp=True,
        norm="rmsnorm",
        attn_bias=config.bool("attention_bias", False),
        mlp_bias=config.bool("mlp_bias", False) if config.model_type == "deepseek_v2" else False,
        experts=experts,
        experts_per_token=(
            config.int("num_experts_per_tok", DEEPSEEK_V2_EXPERTS_PER_TOKEN) if experts else 0
        ),
        shared_experts=config.int("n_shared_experts", 0, allow_zero=True) if experts else 0,
        moe_ffn=config.int("moe_intermediate_size") if experts else 0,
        dense_layers=layers - moe_layers if experts else 0,
        q_lora_rank=config.int("q_lora_rank") if q_lora is not None else 0,
        kv_lora_rank=config.int("kv_lora_rank"),
        qk_rope_head_dim=config.int("qk_rope_head_dim"),
        qk_nope_head_dim=config.int("qk_nope_head_dim"),
        v_head_dim=config.int("v_head_dim"),
        max_context=config.int("max_position_embeddings", 4096),
        # e_score_correction_bias (noaux_tc routing) is a buffer in transformers 5, not a parameter
        router_bias=False,
    )


# ---------------------------------------------------------------------------------------------------------
# safetensors headers
# ---------------------------------------------------------------------------------------------------------

# The safetensors format: 8 bytes little-endian header length N, then N bytes of JSON, then tensor data.
# The reference implementation refuses headers over 100 MB; so do we.
MAX_SAFETENSORS_HEADER_BYTES = 100_000_000


MAX_INDEX_BYTES = 64 * 2**20  # model.safetensors.index.json: about 100 KiB even for a 671B model


def safetensors_header(path: str | os.PathLike[str]) -> dict[str, tuple[str, tuple[int, ...]]]:
    """{tensor name: (dtype, shape)} from one .safetensors file's JSON header (tensor data is never read)."""
    path = Path(path)
    try:
        with open_regular_file(path) as handle:  # a FIFO named *.safetensors is refused, not waited on
            prefix = handle.read(8)
            if len(prefix) < 8:
                raise UserError.of(msg("error.safetensors_short", path=str(path)))
            header_bytes = int.from_bytes(prefix, "little")
            file_bytes = os.fstat(handle.fileno()).st_size
            if header_bytes > MAX_SAFETENSORS_HEADER_BYTES or header_bytes > file_bytes - 8:
                raise UserError.of(
                    msg("error.safetensors_header", path=str(path), header=header_bytes, size=file_bytes)
                )
            raw = handle.read(header_bytes)
    except OSError as exc:
        raise UserError.of(_cannot_read(path, exc)) from None
    try:
        header = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):  # ValueError: bad JSON, or a 5,000-digit integer
        raise UserError.of(msg("error.safetensors_not_json", path=str(path))) from None
    if not isinstance(header, dict):
        raise UserError.of(msg("error.safetensors_not_object", path=str(path)))
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    for name, entry in header.items():
        if name == "__metadata__":
            continue
        shape = entry.get("shape") if isinstance(entry, dict) else None
        if not isinstance(shape, list) or not all(isinstance(n, int) and 0 <= n < 2**63 for n in shape):
            raise UserError.of(msg("error.safetensors_shape", path=str(path), tensor=name))
        dtype = entry.get("dtype") if isinstance(entry, dict) else None
        tensors[name] = (str(dtype), tuple(shape))
    return tensors


def count_safetensors_params(path: str | os.PathLike[str], quantization: dict[str, Any] | None = None) -> int:
    """Parameters in one .safetensors file, from its header: every tensor's elements, except that packed
    quantised weights count the values they hold and quantisation metadata (scales, zeros, indices) counts
    nothing (see quantised_param_count)."""
    total = 0
    for name, (dtype, shape) in safetensors_header(path).items():
        total += quantised_param_count(name, dtype, shape, quantization or {})
        if total >= 2**63:  # no file holds that many elements; a bigger int would overflow float() later
            raise UserError.of(msg("error.safetensors_shape", path=str(path), tensor=name))
    return total


# Tensors that quantisation adds beside the weights: GPTQ/AWQ zeros, scales and group indices; bitsandbytes'
# absmax, quantisation maps and states, int8 SCB; fp8 and compressed-tensors scales; none is a model parameter.
_QUANT_METADATA = re.compile(
    r"\.(qzeros|scales|g_idx|absmax|quant_map|nested_absmax|nested_quant_map|quant_state\.[\w.]+|SCB|"
    r"weight_format|weight_scale|weight_scale_inv|input_scale|weight_zero_point|weight_g_idx|weight_shape|"
    r"k_scale|v_scale)$"
)


def _quant_bits(quantization: dict[str, Any]) -> int:
    bits = quantization.get("bits") or quantization.get("w_bit")
    if bits is None:  # compressed-tensors: {"config_groups": {"group_0": {"weights": {"num_bits": 4}}}}
        groups = quantization.get("config_groups")
        for group in groups.values() if isinstance(groups, dict) else ():
            weights = group.get("weights") if isinstance(group, dict) else None
            if isinstance(weights, dict) and isinstance(weights.get("num_bits"), int):
                bits = weights["num_bits"]
                break
    return bits if isinstance(bits, int) and 0 < bits <= 32 and 32 % bits == 0 else 4


def quantised_param_count(name: str, dtype: str, shape: tuple[int, ...], quantization: dict[str, Any]) -> int:
    """The model parameters one checkpoint tensor stands for, under the config's quantization_config.

    GPTQ and AWQ pack 32/bits values into each int32 of `*.qweight` (GPTQ along the input rows, AWQ along the
    output columns: the same count); compressed-tensors packs `*.weight_packed` the same way; bitsandbytes 4-bit
    stores two values per uint8 byte; bitsandbytes 8-bit and fp8 store one value per element. Metadata tensors
    (_QUANT_METADATA) hold no parameters. Without a quantization_config every tensor counts its elements.
    """
    elements = math.prod(shape)
    method = str(quantization.get("quant_method", "")).lower()
    if not method:
        return elements
    if _QUANT_METADATA.search(name):
        return 0
    if name.endswith((".qweight", ".weight_packed")) and dtype in ("I32", "U32"):
        return elements * (32 // _quant_bits(quantization))
    four_bit = quantization.get("load_in_4bit") or quantization.get("_load_in_4bit")
    if method == "bitsandbytes" and four_bit and dtype == "U8":
        return elements * 2
    return elements


def model_folder_shards(folder: Path) -> list[Path]:
    """The .safetensors files that make up the model in `folder`: those model.safetensors.index.json names when
    it is there; otherwise every *.safetensors except duplicates (Mistral's consolidated*.safetensors beside the
    shards) and adapters (adapter_model.safetensors and other adapter*/lora* files)."""
    index = folder / "model.safetensors.index.json"
    if index.exists():
        return _indexed_shards(index)
    files = sorted(folder.glob("*.safetensors"))
    adapters = [f for f in files if f.name.lower().startswith(("adapter", "lora"))]
    files = [f for f in files if f not in adapters]
    consolidated = [f for f in files if f.name.lower().startswith("consolidated")]
    rest = [f for f in files if f not in consolidated]
    return rest or consolidated


def _indexed_shards(index: Path) -> list[Path]:
    raw = read_user_file(index, MAX_INDEX_BYTES)  # a FIFO or /dev/zero is refused, not read forever
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError.of(_cannot_read(index, exc)) from None
    data = _parse_untrusted_json(text, index)
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise UserError.of(msg("error.config_not_object", path=str(index), kind="index without a weight_map"))
    names = sorted(set(weight_map.values()))
    shards = [index.parent / name for name in names if Path(name).name == name]  # no paths out of the folder
    return shards


def load_model_folder(path: str | os.PathLike[str]) -> ModelSpec:
    """A local model folder: architecture from config.json, exact count from the safetensors headers of the
    model's own shards (model_folder_shards), packed quantised tensors counted by the values they hold."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError.of(msg("error.not_a_folder", path=str(folder)))
    spec = load_hf_config(folder / "config.json")
    shards = model_folder_shards(folder)
    name = spec.name if spec.name != "" else folder.name
    if not shards:
        return dataclasses.replace(spec, name=name)
    quantization = _read_config(folder / "config.json").get("quantization_config")
    quantization = quantization if isinstance(quantization, dict) else {}
    exact = sum(count_safetensors_params(shard, quantization) for shard in shards)
    # Only the ceiling: a folder holding some of a model's shards counts fewer elements, which is harmless, while
    # a damaged header can claim 10**18 elements and push every figure past 2**63.
    check_imported_size(exact, f"{folder} (*.safetensors)", minimum=0)
    return dataclasses.replace(
        spec, name=name, exact_params=exact, source=f"{folder} ({len(shards)} safetensors)"
    )


# ---------------------------------------------------------------------------------------------------------
# One entry point for what a user types
# ---------------------------------------------------------------------------------------------------------

# A sign is accepted so that "--model=-7b" is refused as a size out of range, not as an unknown preset.
_BILLIONS = re.compile(r"^\s*(?:generic-)?([+-]?\d+(?:\.\d+)?)\s*b\s*$", re.IGNORECASE)


def resolve_model(text: str) -> ModelSpec:
    """A preset id or name, "7b"/"13.5B" (generic), a path to a config.json, or a model folder."""
    if not isinstance(text, str) or not text.strip():
        raise UserError.of(msg("error.no_model"))
    match = _BILLIONS.match(text)
    if match:
        return generic_model(float(match.group(1)))
    wanted = _normalise(text)
    for spec in _presets():
        if wanted in (_normalise(spec.id), _normalise(spec.name)):
            return spec
    path = Path(text).expanduser()
    if path.is_dir():
        return load_model_folder(path)
    if path.is_file():
        return load_hf_config(path)
    if _looks_like_path(text):
        raise UserError.of(_missing_path_message(text))
    known = ", ".join(spec.id for spec in _presets())
    raise UserError.of(msg("error.unknown_model", text=text, presets=known))


def _looks_like_path(text: str) -> bool:
    """A path separator or a .json ending: the user meant a file or folder, not a preset name."""
    return "/" in text or "\\" in text or text.strip().lower().endswith(".json")


def _missing_path_message(text: str) -> Message:
    hub_id = re.fullmatch(r"[\w.-]+/[\w.-]+", text.strip())
    if hub_id and not text.strip().lower().endswith(".json"):
        # "meta-llama/Llama-3.1-8B" is a Hugging Face id; this app never downloads, so say what to do instead.
        return msg("error.no_such_path_hub_id", path=text)
    return msg("error.no_such_path", path=text)
