"""The architecture of a decoder-only LLM (ModelSpec), its exact parameter count tensor by tensor (param_counts)
and the checks that reject an impossible one (validate_spec).

A ModelSpec holds the architecture numbers of a Hugging Face ``config.json`` (layers, hidden size, heads, KV
heads, head dim, FFN size, vocabulary, tied embeddings, gated MLP, norm type, biases, MoE and MLA shapes). Its
parameter count is computed tensor by tensor, the way the checkpoint stores them, so that it matches the
published figures (see tests/planner/test_models.py, which states each official number and its source).
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Sequence
from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg
from planner.models.lora_modules import gate_in_q_proj


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
    norm: str  # NORM_KINDS: "rmsnorm", "layernorm" (with a bias), "layernorm_nobias", "nonparametric" (OLMo)
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
    activation: str = (
        "silu"  # "silu" | "gelu" | "gelu_new" (GPT-2's, written out in Python: more saved tensors)
    )
    rotary: bool = True
    exact_params: int = 0  # tensor elements counted in *.safetensors headers (0 = not measured)
    qk_norm: bool = False  # qwen3, qwen3_moe, gemma3: an RMSNorm over head_dim on queries and on keys
    sliding_window: int = 0  # tokens a sliding-window layer attends to (0: none, or null in the config)
    # The kind of each layer (planner.models.kv_cache: full, sliding, chunked, state, none); empty: all full.
    layer_types: tuple[str, ...] = ()
    attention_chunk: int = (
        0  # tokens of one attention chunk of a chunked layer (Llama 4's attention_chunk_size)
    )
    state_values_per_layer: int = 0  # values a state-space layer keeps per sequence (convolution + SSM state)
    state_mixer_params: int = 0  # parameters of one state-space layer's mixer (in place of attention)
    qk_norm_full: bool = False  # the q/k norms span all heads (olmo2, cohere: heads x head_dim) not one head
    attention_sinks: bool = False  # gpt-oss: one learned sink logit per head and layer
    expert_bias: bool = False  # gpt-oss: biases on every routed expert's projections
    lm_head_bias: bool = False  # gptj, codegen, phi: a bias on the LM head
    final_norm: bool = True  # a norm after the last layer
    cross_attention: bool = False  # gpt2 with add_cross_attention: a cross-attention block in every layer
    position_offset: int = 0  # opt: its learned position table has max_context + 2 rows
    embedding_norm: bool = False  # bloom: a LayerNorm right after the token embedding
    embed_width: int = (
        0  # opt-350m: embeddings this wide, projected in and out of the hidden size (0: hidden)
    )
    towers_not_counted: str = ""  # a multimodal wrapper's vision/audio configs, left out of every figure
    tower_params: int = 0  # their parameters with the projector (planner/models/hf_towers.py; 0: not counted)
    # qwen3_next, qwen3_5: q_proj also yields a sigmoid gate on the attention output (twice the query width)
    attn_output_gate: bool = False
    # small per-layer tensors no other field covers, counted with the layer's norms (kept in 16 bit):
    # bitnet's sub-norms (hidden + intermediate), apertus' two xIELU scalars
    layer_extra_params: int = 0
    # a pure state-space stack (mamba, falcon_mamba, mamba2): no positions, so no context limit; its max_context
    # is only the default sequence length of a plan
    unbounded_context: bool = False
    # falcon_h1: every attention layer also runs a state-space mixer beside its attention (state_mixer_params
    # more parameters, state_values_per_layer more state)
    parallel_state_mixer: bool = False
    # nemotron_h: each layer either mixes (attention or state space) or runs an MLP / MoE, never both, so a layer
    # that attends or keeps a state has no MLP (its MLP-only and MoE-only layers are of kind "none")
    mixer_or_mlp: bool = False
    # nemotron_h: routed experts work in a latent of this width, projected from and back to the hidden size by two
    # Linears per MoE layer (fc1_latent_proj, fc2_latent_proj; biased with mlp_bias); 0: experts on the hidden size
    moe_latent: int = 0
    # DeepSeek Sparse Attention (deepseek_v32, glm_moe_dsa): a lightning indexer beside MLA in each layer, with
    # index_heads query heads of index_head_dim from the query latent and one key of index_head_dim per token,
    # which the cache keeps; the layers listed here reuse the previous layer's top-k and hold no indexer
    index_heads: int = 0
    index_head_dim: int = 0
    shared_index_layers: tuple[int, ...] = ()
    # DeepSeek Sparse Attention: the keys each query attends (index_topk), chosen by the indexer (0: dense)
    index_topk: int = 0
    # longcat_flash: experts that return their input and compute nothing; its router scores them beside the routed
    # experts (one more row of its classifier each)
    zero_experts: int = 0
    # jetmoe: a mixture of attention heads: attention_experts experts per layer, each with its own q and o
    # projections of kv_heads x head_dim, experts_per_token of them per token (heads = experts_per_token x kv_heads,
    # what a token's attention computes); the keys and values shared. The experts a token does not visit are
    # counted in the total only (idle_attention_params)
    attention_experts: int = 0
    # gemma3n: the last kv_shared_layers layers reuse the keys and values of the last earlier layer of their kind,
    # so they hold no k_proj, v_proj, k_norm and keep no cache of their own
    kv_shared_layers: int = 0
    # gemma3n: parameters used once per token beside the token embedding (its per-layer embeddings, their
    # projection and norm, AltUp's projections in and out), counted with the embedding
    embedding_extra: int = 0
    # gemma3n: each layer's MLP width when they differ (MatFormer's mix-n-match); empty: every layer ffn wide
    ffn_widths: tuple[int, ...] = ()

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
        """KV-cache bytes one token occupies across all attention layers of the whole model (no tensor
        parallelism), before any window: planner.models.kv_cache has each layer kind's figure and window.

        Standard attention keeps K and V: 2 x kv_heads x head_dim values per layer. MLA keeps one compressed
        latent plus the shared rotary key: kv_lora_rank + qk_rope_head_dim values per layer (DeepSeek-V2 paper).
        """
        attending = self.layers - sum(1 for kind in self.layer_types if kind in ("state", "none"))
        attending -= len(kv_shared(self, range(self.layers)))
        if self.uses_mla:
            indexed = (
                (self.layers - len(self.shared_index_layers)) * self.index_head_dim
                if self.index_head_dim
                else 0
            )
            return (attending * (self.kv_lora_rank + self.qk_rope_head_dim) + indexed) * kv_bytes_per_element
        return 2 * attending * self.kv_heads * self.head_dim * kv_bytes_per_element

    def exceeds_context(self, seq_len: int) -> bool:
        """Whether seq_len tokens are more than the model's context (never for an unbounded one)."""
        return not self.unbounded_context and seq_len > self.max_context

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
        return (
            self.attention - self.attention_small + self.shared_expert - self.shared_expert_bias + self.router
        )

    @property
    def routed_experts_per_layer(self) -> int:
        return self.moe_layer - self.moe_layer_non_expert

    @property
    def moe_layer_non_expert(self) -> int:
        return self.attention + self.layer_norms + self.shared_expert + self.router


NORM_KINDS = {"rmsnorm": 1, "layernorm": 2, "layernorm_nobias": 1, "nonparametric": 0}  # vectors of hidden


def _norm_size(spec: ModelSpec, width: int = 0) -> int:
    """Parameters of one norm over the hidden state (or `width` features): weight, plus bias for LayerNorm."""
    return (width or spec.hidden) * NORM_KINDS[spec.norm]


def _attention_params(spec: ModelSpec) -> tuple[int, int]:
    """(parameters, of which biases and internal norms) of one attention block."""
    h = spec.hidden
    if spec.uses_mla:
        qk_head = spec.qk_nope_head_dim + spec.qk_rope_head_dim
        # attention_bias: q_a_proj, kv_a_proj_with_mqa and o_proj get biases (transformers' DeepseekV2/V3)
        bias = 0
        if spec.attn_bias:
            bias = (
                (spec.q_lora_rank if spec.q_lora_rank else 0) + spec.kv_lora_rank + spec.qk_rope_head_dim + h
            )
        if spec.q_lora_rank:
            q = h * spec.q_lora_rank + spec.q_lora_rank + spec.q_lora_rank * spec.heads * qk_head
            small = spec.q_lora_rank
        else:
            q = h * spec.heads * qk_head
            small = 0
        kv_a = h * (spec.kv_lora_rank + spec.qk_rope_head_dim) + spec.kv_lora_rank  # + kv_a_layernorm
        kv_b = spec.kv_lora_rank * spec.heads * (spec.qk_nope_head_dim + spec.v_head_dim)
        out = spec.heads * spec.v_head_dim * h
        indexer, indexer_norm = indexer_params(spec)
        return q + kv_a + kv_b + out + bias + indexer, small + spec.kv_lora_rank + bias + indexer_norm
    q_width = spec.heads * spec.head_dim
    kv_width = spec.kv_heads * spec.head_dim
    q_out = q_width * (2 if spec.attn_output_gate else 1)
    weights = h * q_out + 2 * h * kv_width + q_width * h
    # a gate of its own (afmoe's gate_proj) has no bias; one out of q_proj (qwen3_next) shares q_proj's
    q_bias = q_out if gate_in_q_proj(spec.family) else q_width
    biases = (q_bias + 2 * kv_width if spec.attn_bias else 0) + (h if spec.attn_out_bias else 0)
    norms = 0
    if spec.qk_norm:
        # per-head norms take the block's norm kind (phi, persimmon: LayerNorm with a bias); norms over all heads
        # carry no bias (stablelm's per-head LayerNorms are bias-free, olmo2's and cohere's RMS or bias-free)
        norms = 2 * spec.head_dim * NORM_KINDS[spec.norm] if not spec.qk_norm_full else q_width + kv_width
    sinks = spec.heads if spec.attention_sinks else 0
    if (
        spec.cross_attention
    ):  # gpt2: q_attn (h -> h), c_attn (h -> 2h), c_proj (h -> h), all biased, + its norm
        weights += 4 * h * h
        biases += 4 * h
        norms += _norm_size(spec)
    return weights + biases + norms + sinks, biases + norms + sinks


def _mlp_params(spec: ModelSpec, ffn: int, bias: bool, width: int = 0) -> tuple[int, int]:
    """(parameters, of which biases) of one MLP with intermediate size ffn over `width` features (0: hidden)."""
    if ffn == 0:
        return 0, 0
    width = width or spec.hidden
    matrices = 3 if spec.gated_mlp else 2
    biases = ((2 * ffn if spec.gated_mlp else ffn) + width) if bias else 0
    return matrices * width * ffn + biases, biases


@functools.lru_cache(maxsize=4096)
def param_counts(spec: ModelSpec) -> ParamCounts:
    """Count every tensor of the architecture (cached: specs are frozen, planners call this in loops)."""
    h = spec.hidden
    positions = (spec.max_context + spec.position_offset) * h if spec.learned_positions else 0
    width = spec.embed_width or h
    projections = 2 * h * spec.embed_width  # project_in and project_out, no biases
    embedding = (
        spec.vocab * width
        + positions
        + projections
        + (_norm_size(spec) if spec.embedding_norm else 0)
        + spec.embedding_extra
    )
    lm_head = (0 if spec.tied_embeddings else spec.vocab * width) + (spec.vocab if spec.lm_head_bias else 0)
    final_norm = _norm_size(spec) if spec.final_norm else 0
    attention, attention_small = _attention_params(spec)
    layer_norms = spec.norms_per_layer * _norm_size(spec) + spec.layer_extra_params
    dense_mlp, dense_mlp_bias = _mlp_params(spec, spec.ffn, spec.mlp_bias)
    routed_expert = shared_expert = router = shared_bias = 0
    if spec.is_moe:
        routed_expert = _mlp_params(spec, spec.moe_ffn, spec.expert_bias, spec.moe_latent)[0]
        shared_ffn = spec.shared_expert_ffn or spec.shared_experts * spec.moe_ffn
        # deepseek_v2's mlp_bias reaches the shared experts
        shared_expert, shared_bias = _mlp_params(spec, shared_ffn, spec.mlp_bias)
        router = (
            (h + (1 if spec.router_bias else 0)) * (spec.experts + spec.zero_experts)
            + (h if spec.shared_expert_gate else 0)
            + (
                2 * h * spec.moe_latent + (spec.moe_latent + h if spec.mlp_bias else 0)
                if spec.moe_latent
                else 0
            )
        )
    dense_layer = attention + layer_norms + dense_mlp
    moe_non_expert = attention + layer_norms + shared_expert + router
    moe_layer = moe_non_expert + spec.experts * routed_expert
    moe_layer_active = moe_non_expert + spec.experts_per_token * routed_expert
    n_dense = spec.layers - spec.moe_layers
    ends = embedding + lm_head + final_norm
    mixers = (
        mixer_difference(spec, attention, range(spec.layers))
        - mlpless_layers(spec, range(spec.layers)) * dense_mlp
    )
    total = (
        ends
        + n_dense * dense_layer
        + spec.moe_layers * moe_layer
        + mixers
        + spec.layers * idle_attention_params(spec)
    )
    active = ends + n_dense * dense_layer + spec.moe_layers * moe_layer_active + mixers
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


def idle_attention_params(spec: ModelSpec) -> int:
    """jetmoe: the q and o projections of the attention experts one token does not visit, in one layer."""
    if not spec.attention_experts:
        return 0
    return (spec.attention_experts - spec.experts_per_token) * 2 * spec.hidden * spec.kv_heads * spec.head_dim


def indexer_params(spec: ModelSpec) -> tuple[int, int]:
    """(parameters, of which its LayerNorm) of one DeepSeek Sparse Attention indexer (transformers'
    DeepseekV32Indexer): wq_b (query latent -> index_heads x index_head_dim), wk (hidden -> index_head_dim), a
    LayerNorm with a bias over the key, weights_proj (hidden -> index_heads); no biases."""
    if not spec.index_head_dim:
        return 0, 0
    d = spec.index_head_dim
    norm = 2 * d
    return (
        spec.q_lora_rank * spec.index_heads * d + spec.hidden * d + norm + spec.hidden * spec.index_heads,
        norm,
    )


def mixer_difference(spec: ModelSpec, attention: int, layers: range | Sequence[int]) -> int:
    """What the given layers' mixers add to `attention` x their number: a state-space layer holds its own mixer
    (state_mixer_params) instead of attention, a NONE layer (an MLP-only layer of a hybrid stack) none, a layer
    of a parallel hybrid (falcon_h1: every layer attends) a mixer beside its attention, a DSA layer that reuses the
    previous layer's top-k (glm_moe_dsa "shared") no indexer, a layer that reuses an earlier layer's keys and
    values (gemma3n) no key and value projections; and what a layer's own MLP width (gemma3n's per-layer widths)
    adds to a dense MLP of ffn."""
    return _mixers(spec, attention, layers) + _per_layer_shapes(spec, layers)


def _mixers(spec: ModelSpec, attention: int, layers: range | Sequence[int]) -> int:
    if spec.shared_index_layers:
        shared = sum(1 for i in layers if i in spec.shared_index_layers)
        return -shared * indexer_params(spec)[0]
    if spec.parallel_state_mixer:  # falcon_h1: attention and a mixer side by side in every layer
        return len(layers) * spec.state_mixer_params
    if not spec.layer_types:
        return 0
    kinds = [spec.layer_types[i] for i in layers]
    return kinds.count("state") * (spec.state_mixer_params - attention) - kinds.count("none") * attention


def _per_layer_shapes(spec: ModelSpec, layers: range | Sequence[int]) -> int:
    """gemma3n: the key/value projections (and key norm) KV-sharing layers lack, and each layer's MLP width."""
    if not spec.kv_shared_layers and not spec.ffn_widths:
        return 0
    kv_width = spec.kv_heads * spec.head_dim
    key_value = 2 * spec.hidden * kv_width + (2 * kv_width if spec.attn_bias else 0)
    key_value += spec.head_dim * NORM_KINDS[spec.norm] if spec.qk_norm and not spec.qk_norm_full else 0
    dense = _mlp_params(spec, spec.ffn, spec.mlp_bias)[0]
    widths = 0
    if spec.ffn_widths:
        widths = sum(_mlp_params(spec, spec.ffn_widths[i], spec.mlp_bias)[0] - dense for i in layers)
    return widths - len(kv_shared(spec, layers)) * key_value


def kv_shared(spec: ModelSpec, layers: range | Sequence[int]) -> list[int]:
    """Those of the given layers that reuse an earlier layer's keys and values (gemma3n's last kv_shared_layers;
    transformers shares only when at least one layer keeps its own: layer_idx >= first_shared > 0)."""
    first = spec.layers - spec.kv_shared_layers
    if not spec.kv_shared_layers or first <= 0:
        return []
    return [i for i in layers if i >= first]


def mlpless_layers(spec: ModelSpec, layers: range) -> int:
    """How many of the given layers are counted as dense layers but hold no MLP: the attention and state-space
    layers of a stack whose layers either mix or run an MLP (nemotron_h)."""
    if not spec.mixer_or_mlp or not spec.layer_types:
        return 0
    return sum(1 for i in layers if spec.layer_types[i] != "none")


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
    no_mlp = bool(spec.layer_types) and set(spec.layer_types) == {"state"}  # mamba: norm + mixer per layer
    if spec.ffn <= 0 and not (spec.is_moe and spec.dense_layers == 0) and not no_mlp:
        raise UserError.of(
            msg("error.spec_positive", where=where, field="ffn (intermediate_size)", value=spec.ffn)
        )
    if spec.heads % spec.kv_heads:
        raise UserError.of(msg("error.spec_gqa", where=where, heads=spec.heads, kv_heads=spec.kv_heads))
    if spec.norm not in NORM_KINDS:
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
    _validate_layer_types(spec, where)
    if spec.uses_mla and (spec.v_head_dim <= 0 or spec.qk_nope_head_dim + spec.qk_rope_head_dim <= 0):
        raise UserError.of(msg("error.spec_mla", where=where))
    return spec


def _validate_layer_types(spec: ModelSpec, where: str) -> None:
    if not spec.layer_types:
        return
    if len(spec.layer_types) != spec.layers:
        raise UserError.of(
            msg("error.spec_layer_types", where=where, kinds=len(spec.layer_types), layers=spec.layers)
        )
    for kind in spec.layer_types:
        window = {"sliding": spec.sliding_window, "chunked": spec.attention_chunk}.get(kind, 1)
        if kind not in ("full", "sliding", "chunked", "state", "none") or window <= 0:
            raise UserError.of(msg("error.spec_layer_kind", where=where, kind=kind))
