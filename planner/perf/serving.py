"""Serving as an engine at a load: each engine step runs one forward pass over the running sequences' next
tokens (decode) and a chunk of the arriving prompts (chunked prefill), reading the weights once, the KV cache
of every running sequence, and computing attention over their contexts.

For a workload of prompt length p, output length o and N concurrent users (each sends its next request when
the previous one ends), the steady state is solved as a fluid: every request spends `prefill_steps` steps in
prefill and o - 1 steps in decode, so in each step N (o - 1) / S sequences decode and N p / S prompt tokens are
prefilled, S being the steps of one request's life (fixed point, a few iterations). What comes out:
aggregate output tokens/s N o / (S t), per-user tokens/s 1 / TPOT with TPOT the step time t, TTFT the prefill
steps (plus the queue when users exceed the sequences that fit or the engine's batch limit).

Static batching (all B requests prefilled together, then decoded together until the longest is done) is the
other schedule; `static_batching_loss` gives the GPU time lost waiting for the longest output of a batch.

Engines differ in what the published figures show they do: continuous batching or not, the batch and token
limits of a step, fused kernels (fewer kernels per layer). Their profiles are in ENGINES.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.messages import msg
from planner.models import ModelSpec
from planner.perf.communication import allreduce_time_s, group_link
from planner.perf.compute import (
    LayerShape,
    WeightStorage,
    attention_forward_seconds,
    causal_attention_flops,
    decode_attention_seconds,
    gemm_seconds,
    layer_gemms_seconds,
    layer_shape,
)
from planner.perf.efficiencies import DEFAULT_INTER_NODE_BYTES_PER_S, SHIPPED, DeviceRates, FittedConstants
from planner.perf.formats import WeightFormat, weight_format
from planner.perf.memory_ops import (
    FUSED_MEMORY_KERNELS_PER_LAYER,
    MEMORY_KERNELS_PER_LAYER,
    layer_memory_bytes_per_token,
)


@dataclass(frozen=True, slots=True)
class EngineProfile:
    """What an engine does with a load (each figure from the engine's documentation).

    continuous_batching: new requests join a running batch (in-flight batching); max_batch: most sequences in
    one step; step_tokens: the token budget of one step (decode tokens + prefill chunks); fused: norms,
    residual adds and rotary fused (fewer kernels per layer); source: where the figures come from.
    """

    name: str
    continuous_batching: bool
    max_batch: int
    step_tokens: int
    fused: bool
    source: str


ENGINES: dict[str, EngineProfile] = {
    e.name: e
    for e in (
        EngineProfile(
            "vllm", True, 256, 2048, False,
            "vLLM engine arguments: max_num_seqs 256, max_num_batched_tokens 2048 with chunked prefill "
            "(docs.vllm.ai, Engine Arguments); PagedAttention, CUDA graphs for decode",
        ),
        EngineProfile(
            "tensorrt-llm", True, 2048, 8192, True,
            "TensorRT-LLM trtllm-build defaults max_batch_size 2048, max_num_tokens 8192 (TensorRT-LLM docs, "
            "trtllm-build); in-flight batching; fused residual + norm and rotary-in-attention kernels",
        ),
        EngineProfile(
            "llama.cpp", True, 1, 2048, False,
            "llama.cpp server: one parallel sequence by default (-np 1), logical batch 2048 (-b); ggml runs "
            "each op as its own kernel",
        ),
        EngineProfile(
            "gpt-fast", False, 1, 1, True,
            "pytorch-labs/gpt-fast: batch 1, torch.compile (pointwise fusion, CUDA graphs)",
        ),
    )
}
DEFAULT_ENGINE = "vllm"
FIXED_POINT_ITERATIONS = 4


def engine_profile(name: str | None) -> EngineProfile:
    key = (name or DEFAULT_ENGINE).strip().lower().replace("_", "-")
    key = {"trtllm": "tensorrt-llm", "trt-llm": "tensorrt-llm", "llamacpp": "llama.cpp"}.get(key, key)
    found = ENGINES.get(key)
    if found is None:
        choices = ", ".join(ENGINES)
        raise UserError.of(msg("error.unknown_choice", what=msg("choice.engine"), text=name, choices=choices))
    return found


@dataclass(frozen=True, slots=True)
class Replica:
    """One serving replica: the model over tp x pp GPUs, its weight format, KV element size and engine."""

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

    @property
    def format(self) -> WeightFormat:
        return self.weights or weight_format(None, self.rates.dtype)

    @property
    def shape(self) -> LayerShape:
        return layer_shape(self.model, self.tp, 1)


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
    share, kernel, ridge = c.gemm_serving, c.kernel_s, c.ridge_overlap
    moe_layers = model.moe_layers
    dense_layers = model.layers - moe_layers
    gemms = dense_layers * layer_gemms_seconds(
        shape, tokens, rates, share, kernel, moe=False, storage=storage, ridge=ridge
    )
    if moe_layers:
        gemms += moe_layers * layer_gemms_seconds(
            shape, tokens, rates, share, kernel, moe=True, storage=storage, ridge=ridge
        )
    prompts = prefill_tokens / prefill_prompt_len if prefill_prompt_len > 0 else 0.0
    logits_rows = decode_sequences + prompts
    head = gemm_seconds(logits_rows, shape.vocab_shard, shape.hidden, rates, share, kernel,
                        weight_bits=fmt.bits_per_weight, integer_weights=fmt.integer,
                        dequant_ops=storage.dequant_ops, ridge=ridge)  # fmt: skip
    attention = model.layers * (
        decode_attention_seconds(
            decode_context_tokens, decode_sequences, shape, replica.kv_bytes, rates, c.kv_read, ridge
        )
        + _prefill_attention(prefill_tokens, prefill_prompt_len, shape, rates)
        + kernel
    )
    memory_kernels = FUSED_MEMORY_KERNELS_PER_LAYER if replica.engine.fused else MEMORY_KERNELS_PER_LAYER
    per_token = layer_memory_bytes_per_token(shape, replica.tp, sequence_parallel=False)
    memory = model.layers * (tokens * per_token / rates.copy_bytes_per_s + memory_kernels * kernel)
    return gemms + head + attention + memory + _tp_seconds(replica, tokens) + _pp_seconds(replica, tokens)


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


def _prefill_attention(tokens: float, prompt_len: float, shape: LayerShape, rates: DeviceRates) -> float:
    """Causal attention of `tokens` prompt tokens belonging to prompts of `prompt_len` tokens (a chunk of a
    prompt attends to the prompt's earlier chunks too: the whole prompt's causal work, pro rata)."""
    if tokens <= 0 or prompt_len <= 0:
        return 0.0
    flops = causal_attention_flops(tokens / prompt_len, prompt_len, shape.q_width)
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
    return 2 * replica.model.layers * allreduce_time_s(message, replica.tp, link.bus_bytes_per_s, link.latency_s)


# ------------------------------------------------------------------------------------------------ loads


@dataclass(frozen=True, slots=True)
class ServingLoad:
    """What one replica delivers at a load.

    concurrency: sequences in flight (at most what fits and the engine's batch limit); queued: users waiting
    for a slot; output_tokens_per_s: all users; per_user_tokens_per_s: 1 / TPOT while a user's request decodes;
    tpot_s: one decode step; ttft_s: time to the first token (prefill, and the wait for a slot);
    request_s: one request from arrival to its last token; prefill_share: the share of step time spent on
    prompts; decode_bound: "memory bandwidth" or "compute" (the larger of the step's two rooflines).
    """

    concurrency: int
    queued: int
    output_tokens_per_s: float
    per_user_tokens_per_s: float
    tpot_s: float
    ttft_s: float
    request_s: float
    prefill_share: float
    decode_bound: str
    scheduling: str


def continuous_batching(
    replica: Replica, users: int, prompt_len: int, output_len: int, max_sequences: int | None = None
) -> ServingLoad:
    """Steady state of `users` concurrent users on one replica with continuous batching and chunked prefill."""
    if users < 1 or prompt_len < 1 or output_len < 1:
        raise UserError.of(msg("error.batch_positive"))
    engine = replica.engine
    slots = min(users, engine.max_batch, max_sequences if max_sequences else users)
    slots = max(1, slots)
    p, o = float(prompt_len), float(output_len)
    steps = o  # one request's life in steps, refined below
    step = decode = prefill = prefill_steps = 0.0
    for _ in range(FIXED_POINT_ITERATIONS):
        decode = slots * max(o - 1, 0.0) / steps
        prefill = slots * p / steps
        budget = max(1.0, engine.step_tokens - decode)
        prefill_steps = max(1.0, p / budget)
        steps = max(prefill_steps + o - 1, slots * p / budget)
        context = decode * (p + o / 2)
        step = step_seconds(replica, decode, context, prefill, p)
    decode_only = step_seconds(replica, max(decode, 1.0), max(decode, 1.0) * (p + o / 2))
    request = steps * step
    wait = max(0.0, users / slots - 1.0) * request
    overhead = replica.constants.request_overhead_s
    return ServingLoad(
        concurrency=int(slots), queued=max(0, users - int(slots)),
        output_tokens_per_s=slots * o / request, per_user_tokens_per_s=1.0 / step if o > 1 else o / request,
        tpot_s=step, ttft_s=prefill_steps * step + wait + overhead, request_s=request + wait + overhead,
        prefill_share=max(0.0, 1.0 - decode_only / step) if step else 0.0,
        decode_bound=_bound(replica, max(decode, 1.0), p + o / 2), scheduling="continuous",
    )  # fmt: skip


def static_batching(replica: Replica, batch: int, prompt_len: int, output_len: int) -> ServingLoad:
    """A static batch: the B prompts prefilled in one pass, then B sequences decoded for o - 1 steps (the
    first token comes from the prefill) at contexts growing from p to p + o."""
    if batch < 1 or prompt_len < 1 or output_len < 1:
        raise UserError.of(msg("error.batch_positive"))
    b, p, o = float(batch), float(prompt_len), int(output_len)
    prefill = step_seconds(replica, 0.0, 0.0, b * p, p) + replica.constants.request_overhead_s
    decode = _decode_steps_s(replica, b, p, o)
    total = prefill + decode
    tpot = decode / (o - 1) if o > 1 else prefill
    return ServingLoad(
        concurrency=batch, queued=0, output_tokens_per_s=b * o / total, per_user_tokens_per_s=1.0 / tpot,
        tpot_s=tpot, ttft_s=prefill, request_s=total, prefill_share=prefill / total,
        decode_bound=_bound(replica, b, p + o / 2), scheduling="static",
    )  # fmt: skip


def _decode_steps_s(replica: Replica, batch: float, prompt_len: float, output_len: int) -> float:
    """Sum of o - 1 decode steps at contexts p + 1 .. p + o - 1 (Simpson's rule: the step time is piecewise
    linear in the context)."""
    steps = output_len - 1
    if steps <= 0:
        return 0.0

    def at(k: float) -> float:
        return step_seconds(replica, batch, batch * (prompt_len + k))

    first, middle, last = at(1.0), at((1.0 + steps) / 2), at(float(steps))
    return steps * (first + 4 * middle + last) / 6


def single_stream(replica: Replica, prompt_len: int, output_len: int) -> ServingLoad:
    """One user at batch 1 (llama-bench tg, gpt-fast): its prefill, then decode steps at growing context."""
    return static_batching(replica, 1, prompt_len, output_len)


def _bound(replica: Replica, batch: float, context: float) -> str:
    """Which roofline a decode step of `batch` sequences sits on: weights + KV bytes vs matmul FLOPs."""
    model, rates = replica.model, replica.rates
    shape = replica.shape
    weights = (model.layers * shape.dense_weights + shape.head_weights) * replica.format.bits_per_weight / 8
    kv = batch * context * shape.kv_elements_per_token_layer * model.layers * replica.kv_bytes
    flops = 2 * batch * (model.layers * shape.dense_weights + shape.head_weights)
    memory_s = (weights + kv) / rates.copy_bytes_per_s
    compute_s = flops / (rates.matmul_flops_per_s * replica.constants.gemm_serving)
    return "compute" if compute_s > memory_s else "memory bandwidth"


def serve(
    replica: Replica, users: int, prompt_len: int, output_len: int, max_sequences: int | None = None,
    scheduling: str | None = None,
) -> ServingLoad:  # fmt: skip
    """The engine's own schedule: continuous batching where the engine has it, else static batches of what
    fits (users beyond them wait for the next batch)."""
    continuous = replica.engine.continuous_batching if scheduling is None else scheduling == "continuous"
    if continuous:
        return continuous_batching(replica, users, prompt_len, output_len, max_sequences)
    limit = min(users, replica.engine.max_batch if scheduling is None else users, max_sequences or users)
    load = static_batching(replica, max(1, limit), prompt_len, output_len)
    waves = math.ceil(users / max(1, limit))
    if waves <= 1:
        return load
    wait = (waves - 1) / 2 * load.request_s  # on average half the earlier batches
    return ServingLoad(
        concurrency=load.concurrency, queued=users - load.concurrency,
        output_tokens_per_s=load.output_tokens_per_s, per_user_tokens_per_s=load.per_user_tokens_per_s,
        tpot_s=load.tpot_s, ttft_s=load.ttft_s + wait, request_s=load.request_s + wait,
        prefill_share=load.prefill_share, decode_bound=load.decode_bound, scheduling="static",
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ static loss


@dataclass(frozen=True, slots=True)
class BatchingLoss:
    """Static batching against continuous batching for a spread of output lengths.

    lost_fraction: share of decode slot-steps a static batch spends on sequences that already finished
    (waiting for the longest), 1 - mean / max; static_tokens_per_s and continuous_tokens_per_s: useful output
    tokens per second of one replica under each schedule; speedup: continuous / static."""

    lost_fraction: float
    static_tokens_per_s: float
    continuous_tokens_per_s: float
    mean_output_len: float
    max_output_len: int

    @property
    def speedup(self) -> float:
        return self.continuous_tokens_per_s / self.static_tokens_per_s if self.static_tokens_per_s else 0.0


def static_batching_loss(
    replica: Replica, batch: int, prompt_len: int, output_lengths: Sequence[int]
) -> BatchingLoss:
    """GPU time a static batch of `batch` requests loses to the spread of `output_lengths` (a sample of the
    workload's output lengths): every batch runs until its longest member ends, so each step decodes the whole
    batch while only the unfinished sequences produce tokens. Continuous batching refills a finished slot at
    once. The source articles of the issue claim up to 40 % lost to token-length variance."""
    lengths = [max(1, int(n)) for n in output_lengths]
    if not lengths or batch < 1:
        raise UserError.of(msg("error.batch_positive"))
    longest = max(lengths)
    mean = sum(lengths) / len(lengths)
    static = static_batching(replica, batch, prompt_len, longest)
    useful = static.output_tokens_per_s * mean / longest
    continuous = continuous_batching(replica, batch, prompt_len, max(1, round(mean)))
    return BatchingLoss(
        lost_fraction=1.0 - mean / longest, static_tokens_per_s=useful,
        continuous_tokens_per_s=continuous.output_tokens_per_s, mean_output_len=mean, max_output_len=longest,
    )  # fmt: skip


SPREAD_SAMPLES = 16


def uniform_output_lengths(mean: int, samples: int = SPREAD_SAMPLES) -> tuple[int, ...]:
    """A spread of output lengths with the given mean: evenly from 1 to 2 x mean - 1 (an assumption where the
    workload states only a mean; chat outputs spread at least that widely)."""
    top = max(1, 2 * mean - 1)
    return tuple(max(1, round(1 + (top - 1) * i / (samples - 1))) for i in range(samples))


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
