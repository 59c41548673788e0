"""One serving engine step on one replica: a forward pass over the running sequences' next tokens (decode) and a
chunk of arriving prompts (chunked prefill), reading the weights once (at their real bits per weight), the KV
cache of every running sequence, computing attention over their contexts and the prompts' causal attention, with
the tensor-parallel all-reduces and pipeline hops, and, for an eager engine, the host time of launching every
operator. What a replica does at a load over many steps is planner.perf.serving_load; the engines are
planner.perf.engines.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from planner.gpus import GpuSpec
from planner.models import ModelSpec
from planner.models.kv_cache import (
    attended_tokens,
    indexer_flops,
    kv_cache_bytes_per_sequence,
    layer_kinds,
    sparse_attention_share,
    state_bytes_per_sequence,
)
from planner.perf.communication import allreduce_time_s, group_link
from planner.perf.compute import (
    LayerShape,
    WeightStorage,
    attention_forward_seconds,
    causal_attention_flops,
    gemm_seconds,
    layer_gemms_seconds,
    layer_shape,
    roofline,
)
from planner.perf.efficiencies import DEFAULT_INTER_NODE_BYTES_PER_S, SHIPPED, DeviceRates, FittedConstants
from planner.perf.engines import DEFAULT_ENGINE, EAGER_OPERATORS_PER_LAYER, ENGINES, EngineProfile
from planner.perf.expert_parallel import alltoall_seconds, traffic
from planner.perf.formats import WeightFormat, weight_format
from planner.perf.memory_ops import (
    FUSED_MEMORY_KERNELS_PER_LAYER,
    MEMORY_KERNELS_PER_LAYER,
    layer_memory_bytes_per_token,
)


@dataclass(frozen=True, slots=True)
class Replica:
    """One serving replica: the model over tp x pp GPUs, its weight format, KV element size and engine.

    ep > 1 (MoE models): one rank of an expert-parallel group of ep data-parallel attention ranks, each of tp GPUs
    (vLLM --tensor-parallel-size tp --data-parallel-size ep --enable-expert-parallel, whose expert-parallel size is
    tp x ep; SGLang --enable-dp-attention --ep-size): the rank splits its attention and dense weights over its tp
    GPUs and keeps its own sequences' KV cache; the routed experts are whole, E / (ep x tp) on each GPU of the group,
    which the group's tokens reach through an all-to-all dispatch and combine per MoE layer (each GPU of a rank
    dispatching 1 / tp of the rank's tokens). A step's figures are one rank's (its own sequences); the group runs
    ep of them side by side."""

    model: ModelSpec
    gpu: GpuSpec
    rates: DeviceRates
    tp: int = 1
    pp: int = 1
    weights: WeightFormat | None = None
    kv_bytes: float = 2.0
    engine: EngineProfile = ENGINES[DEFAULT_ENGINE]
    gpus_per_node: int | None = None
    inter_node_bytes_per_s: float | None = None
    constants: FittedConstants = SHIPPED
    ep: int = 1

    @property
    def format(self) -> WeightFormat:
        return self.weights or weight_format(None, self.rates.dtype)

    @property
    def shape(self) -> LayerShape:
        if self.ep <= 1 or self.tp <= 1:
            return layer_shape(self.model, self.tp, self.ep)
        split = layer_shape(self.model, self.tp, self.expert_gpus)  # routed experts whole under expert parallelism
        return dataclasses.replace(split, expert_in=split.expert_in * self.tp, expert_out=split.expert_out * self.tp)

    @property
    def expert_gpus(self) -> int:
        """GPUs the routed experts are split over: the expert-parallel group's ep ranks of tp GPUs (1: none)."""
        return self.ep * self.tp if self.ep > 1 else 1

    @property
    def limits(self) -> tuple[int, int]:
        """(most sequences per step, token budget per step) of the engine on this GPU."""
        return self.engine.limits(self.gpu.memory_bytes, self.gpu.name)


def step_seconds(
    replica: Replica,
    decode_sequences: float,
    decode_context_tokens: float,
    prefill_tokens: float = 0.0,
    prefill_prompt_len: float = 0.0,
) -> float:
    """One engine step: a forward pass over `decode_sequences` next tokens (whose KV caches hold
    `decode_context_tokens` tokens in all) and `prefill_tokens` prompt tokens of prompts `prefill_prompt_len`
    long, on one replica. Pipeline stages run one after another for a token (a step crosses all of them)."""
    model, rates, c = replica.model, replica.rates, replica.constants
    shape = replica.shape
    fmt = replica.format
    storage = WeightStorage(fmt.bits_per_weight, fmt.integer, c.dequant_ops_per_weight + 2.0)
    tokens = decode_sequences + prefill_tokens
    if tokens <= 0:
        return 0.0
    share, kernel, ridge = c.gemm_serving, c.kernel_s * rates.kernel_scale, c.ridge_overlap
    moe_layers = model.moe_layers
    dense_layers = model.layers - moe_layers
    gemms = dense_layers * layer_gemms_seconds(
        shape, tokens, rates, share, kernel, moe=False, storage=storage, ridge=ridge
    )
    if moe_layers:  # each GPU of a tp-wide expert-parallel rank routes 1 / tp of the rank's tokens
        routed = 1.0 / replica.tp if replica.ep > 1 else 1.0
        gemms += moe_layers * layer_gemms_seconds(
            shape, tokens, rates, share, kernel, moe=True, storage=storage, ridge=ridge, expert_load=routed
        )
    prompts = prefill_tokens / prefill_prompt_len if prefill_prompt_len > 0 else 0.0
    logits_rows = decode_sequences + prompts
    head = gemm_seconds(logits_rows, shape.vocab_shard, shape.hidden, rates, share, kernel,
                        weight_bits=fmt.bits_per_weight, integer_weights=fmt.integer,
                        dequant_ops=storage.dequant_ops, ridge=ridge)  # fmt: skip
    attention = decode_attention_seconds(replica, decode_sequences, decode_context_tokens) + model.layers * (
        _prefill_attention(prefill_tokens, prefill_prompt_len, shape, rates, model) + kernel
    )
    memory_kernels = FUSED_MEMORY_KERNELS_PER_LAYER if replica.engine.fused else MEMORY_KERNELS_PER_LAYER
    per_token = layer_memory_bytes_per_token(shape, replica.tp, sequence_parallel=False)
    memory = model.layers * (tokens * per_token / rates.copy_bytes_per_s + memory_kernels * kernel)
    gpu = gemms + head + attention + memory + _tp_seconds(replica, tokens) + _pp_seconds(replica, tokens)
    gpu += expert_alltoall_seconds(replica, tokens)
    return max(gpu, host_seconds(replica))


def kv_bytes_read(replica: Replica, sequences: float, context_tokens: float) -> float:
    """KV-cache bytes a decode step of `sequences` sequences holding `context_tokens` tokens in all reads over
    all layers on one GPU of each stage (stages run in turn), each layer as the reader's cache model keeps it (planner.models.kv_cache:
    sliding and chunked layers only their window; under DeepSeek Sparse Attention the index_topk entries a
    query attends and every indexer key), the KV heads split over tp (a head is never split: at tp
    above the KV heads each GPU keeps one) and MLA's latent whole on every GPU (vLLM and SGLang replicate it
    under tensor parallelism); a state-space layer's recurrent state (its share on this GPU) is read and written
    back whatever the context. An engine without a grouped-query kernel for the model's group reads each KV head
    once per query head of its group (EngineProfile.kv_reads)."""
    if sequences <= 0:
        return 0.0
    model = replica.model
    local_heads = max(1, model.kv_heads // replica.tp)
    per_sequence = kv_cache_bytes_per_sequence(model, round(context_tokens / sequences), replica.kv_bytes,
                                               kv_heads=local_heads, read=True)  # fmt: skip
    if not model.uses_mla:
        per_sequence *= replica.engine.kv_reads(model.heads, model.kv_heads)
    state = 2.0 * state_bytes_per_sequence(model, replica.kv_bytes) / replica.tp
    return sequences * (per_sequence + state)


def decode_attention_seconds(replica: Replica, sequences: float, context_tokens: float) -> float:
    """All layers' attention of a decode step over the KV caches (see kv_bytes_read): every cached key and
    value read once (at the fitted share kv_read of a streaming copy), 4 x cached tokens x width FLOPs; under
    DeepSeek Sparse Attention the index_topk attended tokens, plus the indexer scoring every cached token (its
    few heads whole on every GPU)."""
    if sequences <= 0:
        return 0.0
    model, rates, c = replica.model, replica.rates, replica.constants
    context = round(context_tokens / sequences)
    attended = sequences * sum(attended_tokens(model, kind, context) for kind in layer_kinds(model))
    head_dim = (model.qk_nope_head_dim + model.qk_rope_head_dim) if model.uses_mla else model.head_dim
    flops = 4.0 * attended * (model.heads * head_dim // replica.tp)  # the query width of a layer that attends
    flops += sequences * indexer_flops(model, context)
    memory_s = kv_bytes_read(replica, sequences, context_tokens) / (rates.copy_bytes_per_s * c.kv_read)
    return roofline(flops / rates.attention_fwd_flops_per_s, memory_s, c.ridge_overlap)


def host_seconds(replica: Replica) -> float:
    """Host time of one step of an eager engine (every operator dispatched and launched from Python, its
    layers one after another; pipeline stages' hosts run in parallel but a token crosses them in turn). The GPU
    runs behind the host, so a step takes the longer of the two. Zero for engines that replay CUDA graphs."""
    per_op = replica.engine.host_s_per_op
    return replica.model.layers * EAGER_OPERATORS_PER_LAYER * per_op if per_op else 0.0


def _pp_seconds(replica: Replica, tokens: float) -> float:
    """Stages pass each step's hidden states on: pp - 1 point-to-point sends (latency-bound at decode)."""
    if replica.pp <= 1:
        return 0.0
    network = replica.inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
    per_node = replica.gpus_per_node or replica.gpu.gpus_per_node
    link = group_link(replica.gpu, replica.rates, 2, replica.tp * replica.pp, per_node, network,
                      replica.constants.latency_scale)  # fmt: skip
    message = tokens * replica.model.hidden * 2.0
    return (replica.pp - 1) * (message / link.bus_bytes_per_s + link.latency_s)


def expert_alltoall_seconds(replica: Replica, tokens: float) -> float:
    """An expert-parallel rank's all-to-alls: per MoE layer one dispatch of its tokens' hidden vectors (16-bit; each
    of its tp GPUs sends 1 / tp of them) to the GPUs holding their top-k experts and one combine back (planner.perf.expert_parallel: routing balanced,
    copies to other GPUs of the node over NVLink, to other nodes over the network). At decode sizes each is
    latency-bound, like the tensor-parallel all-reduces it replaces."""
    model = replica.model
    if replica.ep <= 1 or not model.moe_layers:
        return 0.0
    network = replica.inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
    per_node = replica.gpus_per_node or replica.gpu.gpus_per_node
    scale = replica.constants.latency_scale
    group = replica.expert_gpus
    nvlink = group_link(replica.gpu, replica.rates, min(group, per_node), min(group, per_node), per_node,
                        network, scale)  # fmt: skip
    across = group_link(replica.gpu, replica.rates, group, group, per_node, network, scale)
    copies = traffic(model.experts, model.experts_per_token, group, group, per_node, False)
    one = alltoall_seconds(model.hidden * 2.0, tokens / replica.tp, copies, nvlink, across)
    return 2 * model.moe_layers * one


def _prefill_attention(tokens: float, prompt_len: float, shape: LayerShape, rates: DeviceRates,
                       model: ModelSpec) -> float:  # fmt: skip
    """Causal attention of `tokens` prompt tokens belonging to prompts of `prompt_len` tokens (a chunk of a
    prompt attends to the prompt's earlier chunks too: the whole prompt's causal work, pro rata); under
    DeepSeek Sparse Attention its top-k work and indexer (planner.models.kv_cache.sparse_attention_share)."""
    if tokens <= 0 or prompt_len <= 0:
        return 0.0
    flops = causal_attention_flops(tokens / prompt_len, prompt_len, shape.q_width)
    flops *= sparse_attention_share(model, prompt_len)
    return attention_forward_seconds(flops, rates, 0.0)


def _tp_seconds(replica: Replica, tokens: float) -> float:
    """Two all-reduces per layer (after attention and after the MLP) of tokens x hidden 16-bit values: at
    decode sizes they are latency-bound."""
    if replica.tp <= 1:
        return 0.0
    network = replica.inter_node_bytes_per_s or DEFAULT_INTER_NODE_BYTES_PER_S
    per_node = replica.gpus_per_node or replica.gpu.gpus_per_node
    link = group_link(replica.gpu, replica.rates, replica.tp, replica.tp, per_node, network,
                      replica.constants.latency_scale)  # fmt: skip
    message = tokens * replica.model.hidden * 2.0
    return (
        2 * replica.model.layers * allreduce_time_s(message, replica.tp, link.bus_bytes_per_s, link.latency_s)
    )


def max_concurrent_sequences(
    memory_bytes: int, bytes_at_one_sequence: int, kv_bytes_per_sequence: float, kv_share: float = 1.0
) -> int:
    """How many sequences' KV caches fit: kv_share x (GPU memory - everything but one sequence's KV) / KV per
    sequence. kv_share is the part of that free memory the engine gives its KV cache (TensorRT-LLM's
    kv_cache_free_gpu_mem_fraction: 0.9 by default, 0.95 in NVIDIA's throughput tables)."""
    if kv_bytes_per_sequence <= 0:
        return 0
    free = memory_bytes - (bytes_at_one_sequence - kv_bytes_per_sequence)
    return max(0, int(kv_share * free // kv_bytes_per_sequence))


def decode_bound(replica: Replica, batch: float, context: float) -> str:
    """Which roofline a decode step of `batch` sequences sits on: weights + KV bytes vs matmul FLOPs."""
    model, rates = replica.model, replica.rates
    shape = replica.shape
    weights = (model.layers * shape.dense_weights + shape.head_weights) * replica.format.bits_per_weight / 8
    kv = kv_bytes_read(replica, batch, batch * context)
    flops = 2 * batch * (model.layers * shape.dense_weights + shape.head_weights)
    memory_s = (weights + kv) / rates.copy_bytes_per_s
    compute_s = flops / (rates.matmul_flops_per_s * replica.constants.gemm_serving)
    return "compute" if compute_s > memory_s else "memory bandwidth"
