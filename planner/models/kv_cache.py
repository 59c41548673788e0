"""What one sequence keeps between decoding steps, layer by layer: the KV cache of each attention kind and the
fixed-size state of the state-space (Mamba-style) and linear-attention layers.

Kinds (ModelSpec.layer_types; empty means every layer is FULL):
- FULL: every token's keys and values are kept (transformers' DynamicLayer).
- SLIDING / CHUNKED: only the last window - 1 tokens are kept (transformers' DynamicSlidingWindowLayer, which
  serves both; a chunked layer's window is the attention chunk size). The prompt itself passes through the
  layer whole, so the transient of a prefill is the full sequence; what stays is the window.
- STATE: no KV cache; a recurrent state of fixed size per sequence (a Mamba layer's convolution and SSM states,
  a gated-delta-net's recurrent matrix), whatever the sequence length.
- NONE: a layer that keeps nothing (an MLP-only or MoE-only layer of a hybrid stack).

A layer of gemma3n's last num_kv_shared_layers (ModelSpec.kv_shared_layers) attends as its kind says but reads
the cache of the last earlier layer of its kind, keeping none of its own (transformers' DynamicCache builds no
layer for it).

DeepSeek Sparse Attention (deepseek_v32, glm_moe_dsa; DeepSeek-V3.2-Exp report, DeepSeek-AI 2025): a query
attends only the index_topk keys (2048) its lightning indexer picks, and the indexer scores every cached key
with index_heads x index_head_dim per key (attended_tokens, indexer_flops, sparse_attention_share).

The serving model (planner/perf/serving.py) and the memory model both read these figures from here.
"""

from __future__ import annotations

from collections.abc import Iterable

from planner.models.spec import ModelSpec, kv_shared

FULL = "full"
SLIDING = "sliding"
CHUNKED = "chunked"
STATE = "state"
NONE = "none"
ATTENTION_KINDS = (FULL, SLIDING, CHUNKED)


def layer_kinds(spec: ModelSpec) -> tuple[str, ...]:
    """The kind of every decoder layer, in order."""
    return spec.layer_types or (FULL,) * spec.layers


def kv_values_per_token_layer(
    spec: ModelSpec, kv_heads: int | None = None, *, mla_latent: bool = True
) -> int:
    """Values one token adds to the KV cache of one attention layer (of any attention kind).

    Standard attention: K and V, 2 x kv_heads x head_dim (kv_heads: the KV heads one GPU holds under tensor
    parallelism; default all). MLA: with mla_latent (what vLLM, SGLang and transformers 5.22's cache keep) the
    compressed latent plus the shared rotary key, kv_lora_rank + qk_rope_head_dim (DeepSeek-V2 paper, section
    2.1); without it the decompressed K (heads x (qk_nope + qk_rope)) and V (heads x v_head_dim) of engines that
    cache them expanded (transformers before 5).
    """
    if spec.uses_mla:
        if mla_latent:
            return spec.kv_lora_rank + spec.qk_rope_head_dim
        heads = spec.heads if kv_heads is None else kv_heads
        return heads * (spec.qk_nope_head_dim + spec.qk_rope_head_dim + spec.v_head_dim)
    heads = spec.kv_heads if kv_heads is None else kv_heads
    return 2 * heads * spec.head_dim


def cached_tokens(spec: ModelSpec, kind: str, seq_len: int) -> int:
    """Tokens one layer of this kind keeps for a sequence of seq_len tokens."""
    if kind == FULL:
        return seq_len
    if kind == SLIDING:
        return min(seq_len, max(spec.sliding_window - 1, 0))
    if kind == CHUNKED:
        return min(seq_len, max(spec.attention_chunk - 1, 0))
    return 0


def attended_tokens(spec: ModelSpec, kind: str, seq_len: int) -> int:
    """Keys one query of a layer of this kind attends at position seq_len: the cached ones, at most index_topk
    under DeepSeek Sparse Attention."""
    cached = cached_tokens(spec, kind, seq_len)
    return min(cached, spec.index_topk) if spec.index_topk else cached


def indexer_flops(spec: ModelSpec, keys: float) -> float:
    """Forward FLOPs of the lightning indexers scoring `keys` keys for one query over all indexed layers:
    index_heads dot products of index_head_dim per key (2 FLOPs a multiply-add) and the heads' weighted sum;
    0 without DSA. The query and key projections are in the layer's parameters (counted as GEMMs)."""
    if not spec.index_head_dim:
        return 0.0
    indexed = spec.layers - len(spec.shared_index_layers)
    return indexed * keys * (2.0 * spec.index_heads * spec.index_head_dim + 2.0 * spec.index_heads)


def sparse_attention_share(spec: ModelSpec, seq_len: float) -> float:
    """What a prompt of seq_len tokens costs in attention FLOPs against dense causal attention (s^2 / 2 query-key
    pairs a layer): under DSA each query attends min(position, index_topk) keys (k s - k^2 / 2 pairs once
    s > k) and the indexer scores all earlier keys (its FLOPs per pair against the attention's 4 x heads x
    query-key head dim). 1 for every other model."""
    if not spec.index_topk or seq_len <= 0:
        return 1.0
    k = spec.index_topk
    dense_pairs = seq_len * seq_len / 2.0
    pairs = dense_pairs if seq_len <= k else k * seq_len - k * k / 2.0
    per_pair = 4.0 * spec.heads * (spec.qk_nope_head_dim + spec.qk_rope_head_dim) * spec.layers
    return (pairs * per_pair + dense_pairs * indexer_flops(spec, 1.0)) / (dense_pairs * per_pair)


def kv_cache_bytes_per_sequence(
    spec: ModelSpec,
    seq_len: int,
    bytes_per_value: float,
    *,
    layers: Iterable[int] | None = None,
    kv_heads: int | None = None,
    mla_latent: bool = True,
    read: bool = False,
) -> float:
    """KV-cache bytes of one sequence of seq_len tokens over the given layers (default: all), each layer kept
    as transformers' caches keep it: full layers the whole sequence, sliding and chunked layers their window.
    read: the bytes one decode step reads instead (under DSA the index_topk attended entries and every
    indexer key; otherwise the whole cache)."""
    kinds = layer_kinds(spec)
    chosen = range(spec.layers) if layers is None else layers
    per_token = kv_values_per_token_layer(spec, kv_heads, mla_latent=mla_latent) * bytes_per_value
    chosen = list(chosen)
    indexer_keys = 0.0
    if (
        spec.index_head_dim
    ):  # DSA: each indexer's one key per token (transformers' DynamicIndexedLayer.indexer_keys)
        indexed = sum(1 for i in chosen if i not in spec.shared_index_layers)
        indexer_keys = indexed * seq_len * spec.index_head_dim * bytes_per_value
    shared = set(kv_shared(spec, chosen))  # gemma3n: layers that read an earlier layer's cache keep none
    tokens = attended_tokens if read else cached_tokens
    kept = sum(tokens(spec, kinds[i], seq_len) for i in chosen if i not in shared)
    return kept * per_token + indexer_keys


def state_bytes_per_sequence(
    spec: ModelSpec, bytes_per_value: float, *, layers: Iterable[int] | None = None
) -> float:
    """Recurrent-state bytes of one sequence over the given layers (default: all): a fixed size per layer that
    keeps a state (spec.state_values_per_layer), independent of the sequence length."""
    return (
        state_layers(spec, range(spec.layers) if layers is None else layers)
        * spec.state_values_per_layer
        * bytes_per_value
    )


def state_layers(spec: ModelSpec, layers: Iterable[int]) -> int:
    """How many of the given layers keep a recurrent state: the STATE layers, or every layer of a parallel
    hybrid (falcon_h1: a Mamba-2 mixer beside the attention of each)."""
    kinds = layer_kinds(spec)
    return sum(1 for i in layers if kinds[i] == STATE or spec.parallel_state_mixer)


def attention_layers(spec: ModelSpec) -> int:
    """Layers that attend (and so keep a KV cache of some length)."""
    return sum(1 for kind in layer_kinds(spec) if kind in ATTENTION_KINDS)
