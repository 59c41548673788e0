"""Compute: the GEMMs of one transformer layer at their real shapes, and flash attention.

A GEMM of m x k by k x n takes the longest of its tensor-core time (2mnk FLOPs at the GPU's achievable matmul
rate: MAMF x the fitted share of frameworks or engines), its memory time (the operands and the result at the
achievable copy bandwidth: small GEMMs and decode are memory-bound) and, for weight-only formats, the integer
ALU time of dequantising the weights; plus the fixed time every kernel costs. Small GEMMs therefore fall off
the matmul rate the way they do on the GPU: memory-bound below the ridge point, launch-bound when tiny.

Shapes are per tensor-parallel rank (Megatron's column / row split: q, k, v and the MLP's up and gate columns
are split over tp; the attention output and the MLP's down rows). MoE layers run the routed experts as a
grouped GEMM of m x top-k x ep / experts rows per local expert.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

from planner.models import ModelSpec, param_counts
from planner.models.kv_cache import attention_layers, state_bytes_per_sequence
from planner.models.spec import mixer_difference, mlpless_layers
from planner.perf.efficiencies import DeviceRates

# A weight-only kernel dequantises a weight tile once per block of this many rows (the M tile of the GEMM);
# batch 1 .. 128 pays it once (CUTLASS / Marlin-style mixed-input kernels use 16-128 row tiles).
DEQUANT_ROW_TILE = 128


@dataclass(frozen=True, slots=True)
class LayerShape:
    """One layer's GEMMs on one tensor-parallel rank, as weight elements (n x k) per group, and per-token
    widths. An in-projection has k = hidden (n = elements / hidden); an out-projection has n = hidden."""

    hidden: int
    # query heads x head_dim / tp x the share of layers that attend: the attention FLOPs' width of an average
    # layer (a hybrid's state-space layers do no attention; their mixer weights are in attn_in / attn_out)
    q_width: float
    heads_local: int  # query heads / tp
    attn_in: float  # q, k, v projections (MLA: the low-rank down and up projections)
    attn_out: float  # the output projection
    mlp_in: float  # dense MLP up (+ gate)
    mlp_out: float  # dense MLP down
    expert_in: float  # one routed expert's up (+ gate)
    expert_out: float
    experts_local: int  # routed experts per rank (experts / ep)
    experts_per_token: int
    experts_total: int
    shared_in: float  # shared expert(s) up (+ gate)
    shared_out: float
    mlp_inner: int  # the activation's width per token (dense MLP, or top-k routed + shared for MoE)
    vocab_shard: int  # vocabulary / tp (the LM head)
    kv_elements_per_token_layer: float  # KV-cache elements one token adds to one layer on this rank
    # recurrent-state elements one sequence keeps in an average layer on this rank (state-space layers), read
    # and written back at every decode step whatever the context length
    state_elements_per_sequence_layer: float = 0.0

    @property
    def dense_weights(self) -> float:
        return self.attn_in + self.attn_out + self.mlp_in + self.mlp_out

    @property
    def moe_weights(self) -> float:
        """Matmul weights of an MoE layer on this rank (all local experts)."""
        experts = self.experts_local * (self.expert_in + self.expert_out)
        return self.attn_in + self.attn_out + experts + self.shared_in + self.shared_out

    @property
    def head_weights(self) -> float:
        return float(self.vocab_shard * self.hidden)


@lru_cache(maxsize=512)
def layer_shape(model: ModelSpec, tp: int, ep: int = 1) -> LayerShape:
    """The per-rank GEMMs of `model` at tensor parallel `tp` and expert parallel `ep` (cached)."""
    counts = param_counts(model)
    h = model.hidden
    head_dim = (model.qk_nope_head_dim + model.qk_rope_head_dim) if model.uses_mla else model.head_dim
    out = model.heads * (model.v_head_dim or head_dim) * h
    attending = attention_layers(model) / model.layers
    # an average layer's mixer: attention on the attending layers, a state-space mixer on the others
    mixer = counts.attention + mixer_difference(model, counts.attention, range(model.layers)) / model.layers
    gate_share = 2 / 3 if model.gated_mlp else 1 / 2  # the up (+ gate) share of an MLP's weights
    # an average dense layer's MLP: none on the layers that mix instead (nemotron_h)
    dense_mlp = counts.dense_mlp * (
        1 - mlpless_layers(model, range(model.layers)) / max(1, model.layers - model.moe_layers)
    )
    inner = model.ffn if not model.is_moe else model.moe_ffn * model.experts_per_token
    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    return LayerShape(
        hidden=h,
        q_width=model.heads * head_dim // tp * attending,
        heads_local=max(1, model.heads // tp),
        attn_in=(mixer - out) / tp,
        attn_out=out / tp,
        mlp_in=dense_mlp * gate_share / tp,
        mlp_out=dense_mlp * (1 - gate_share) / tp,
        expert_in=counts.routed_expert * gate_share / tp,
        expert_out=counts.routed_expert * (1 - gate_share) / tp,
        experts_local=max(1, model.experts // ep) if model.is_moe else 0,
        experts_per_token=max(1, model.experts_per_token),
        experts_total=max(1, model.experts),
        shared_in=counts.shared_expert * gate_share / tp,
        shared_out=counts.shared_expert * (1 - gate_share) / tp,
        mlp_inner=max(1, (inner + shared_ffn) // tp),
        vocab_shard=math.ceil(model.vocab / tp),
        kv_elements_per_token_layer=model.kv_bytes_per_token(1.0) / model.layers / tp,
        state_elements_per_sequence_layer=state_bytes_per_sequence(model, 1.0) / model.layers / tp,
    )


def gemm_seconds(
    m: float,
    n: float,
    k: float,
    rates: DeviceRates,
    share: float,
    kernel_s: float,
    *,
    weight_bits: float = 16.0,
    integer_weights: bool = False,
    dequant_ops: float = 0.0,
    activation_bytes: float = 2.0,
    ridge: float = 0.0,
) -> float:
    """One GEMM (m x k) @ (k x n): the longest of tensor-core, memory and dequantisation time, plus the fixed
    kernel time. `share` is the fitted share of the MAMF rate this workload's kernels reach."""
    if m <= 0 or n <= 0 or k <= 0:
        return 0.0
    flops, moved = gemm_work(m, n, k, weight_bits, activation_bytes)
    measured = rates.measured_gemms and _measured_rate(rates, m, n, k)
    rate = measured or rates.matmul_flops_per_s * share
    if rates.flat_mfu is not None:
        rate = rates.peak_flops_per_s * rates.flat_mfu
    memory = moved / rates.copy_bytes_per_s
    compute = flops / rate
    if integer_weights:
        tiles = math.ceil(m / DEQUANT_ROW_TILE)
        compute = max(compute, n * k * dequant_ops * tiles / rates.int_ops_per_s)
    return roofline(compute, memory, ridge) + kernel_s


def gemm_work(
    m: float, n: float, k: float, weight_bits: float = 16.0, activation_bytes: float = 2.0
) -> tuple[float, float]:
    """A GEMM's FLOPs and the bytes it moves (its weights, input and output), which gemm_seconds times: they
    do not depend on the GPU."""
    return 2.0 * m * n * k, n * k * weight_bits / 8.0 + (m * k + m * n) * activation_bytes


GemmWork = tuple[float, float] | None  # gemm_work of one GEMM; None: an empty one (gemm_seconds: no time)


def sized_gemm_work(m: float, n: float, k: float) -> GemmWork:
    """gemm_work of a 16-bit GEMM, None where gemm_seconds times it as nothing (an empty dimension)."""
    return None if m <= 0 or n <= 0 or k <= 0 else gemm_work(m, n, k)


@dataclass(frozen=True, slots=True)
class LayerGemmWork:
    """layer_gemms_seconds' GEMMs of 16-bit weights as gemm_work, in its order of summation: the attention in
    and out projections, then the dense MLP's, or the local routed experts' (one grouped GEMM of
    `experts` experts) and the shared experts'. They depend on the shape and the tokens only, not on the GPU:
    work_seconds gives exactly layer_gemms_seconds' figure for a GPU without probe-measured GEMMs or a user-set
    MFU (the same operations in the same order)."""

    attention: tuple[GemmWork, GemmWork]
    mlp: tuple[GemmWork, GemmWork]  # dense MLP, or one routed expert
    shared: tuple[GemmWork, GemmWork]
    moe: bool
    experts: int

    def seconds(self, rate: float, copy_bytes_per_s: float, kernel_s: float, ridge: float) -> float:
        """layer_gemms_seconds at `rate` FLOP/s (the MAMF x share) and the copy bandwidth."""

        def timed(work: GemmWork) -> float:
            return work_seconds(work, rate, copy_bytes_per_s, kernel_s, ridge)

        seconds = timed(self.attention[0]) + timed(self.attention[1])
        if self.moe:
            seconds += self.experts * (timed(self.mlp[0]) + timed(self.mlp[1]) - 2 * kernel_s) + 2 * kernel_s
            seconds += timed(self.shared[0]) + timed(self.shared[1])
        else:
            seconds += timed(self.mlp[0]) + timed(self.mlp[1])
        return seconds


def work_seconds(
    work: GemmWork, rate: float, copy_bytes_per_s: float, kernel_s: float, ridge: float
) -> float:
    """gemm_seconds of a 16-bit GEMM from its gemm_work, at `rate` FLOP/s (no probe table, no user-set MFU)."""
    if work is None:
        return 0.0
    return roofline(work[0] / rate, work[1] / copy_bytes_per_s, ridge) + kernel_s


def layer_gemm_work(
    shape: LayerShape, tokens: float, *, moe: bool, expert_load: float = 1.0
) -> LayerGemmWork:
    """The GEMMs layer_gemms_seconds times for `tokens` rows (its in_proj / out_proj shapes), as gemm_work;
    expert_load: the routed experts' rows on this rank over the mean (planner.perf.expert_parallel)."""
    h = float(shape.hidden)

    def in_proj(elements: float, rows: float) -> GemmWork:
        return sized_gemm_work(rows, elements / h, h) if elements else None

    def out_proj(elements: float, rows: float) -> GemmWork:
        return sized_gemm_work(rows, h, elements / h) if elements else None

    attention = (in_proj(shape.attn_in, tokens), out_proj(shape.attn_out, tokens))
    if moe:
        rows = tokens * shape.experts_per_token / shape.experts_local * expert_load
        mlp = (in_proj(shape.expert_in, rows), out_proj(shape.expert_out, rows))
        shared = (in_proj(shape.shared_in, tokens), out_proj(shape.shared_out, tokens))
        return LayerGemmWork(attention, mlp, shared, True, shape.experts_local)
    return LayerGemmWork(attention, (in_proj(shape.mlp_in, tokens), out_proj(shape.mlp_out, tokens)), (None, None),
                         False, 0)  # fmt: skip


def roofline(compute_s: float, memory_s: float, ridge: float) -> float:
    """A kernel's time from its compute and memory times: the longer one, plus the `ridge` share of the shorter
    one that the longer does not hide (FittedConstants.ridge_overlap)."""
    return max(compute_s, memory_s) + ridge * min(compute_s, memory_s)


def _measured_rate(rates: DeviceRates, m: float, n: float, k: float) -> float | None:
    """A probe's FLOP/s at the nearest measured shape with the same n and k (m within 2x), else None."""
    table = rates.measured_gemms
    if not table:
        return None
    best: tuple[float, float] | None = None
    for (mm, nn, kk), value in table.items():
        if nn == n and kk == k and 0.5 <= mm / m <= 2.0:
            distance = abs(math.log(mm / m))
            if best is None or distance < best[0]:
                best = (distance, value)
    return best[1] if best else None


def causal_attention_flops(sequences: float, seq_len: float, q_width: float) -> float:
    """Forward FLOPs of causal attention: QK^T and scores x V, 2 x 2 x s^2 x width per sequence, half of it
    computed (flash attention skips the masked blocks; Dao 2023, arXiv 2307.08691)."""
    return sequences * 2.0 * seq_len * seq_len * q_width


def attention_forward_seconds(flops: float, rates: DeviceRates, kernel_s: float) -> float:
    return flops / rates.attention_fwd_flops_per_s + kernel_s if flops > 0 else 0.0


def attention_backward_seconds(forward_flops: float, rates: DeviceRates, kernel_s: float) -> float:
    """The backward of flash attention recomputes the scores and runs five matmuls to the forward's two:
    2.5 x the forward FLOPs (FlashAttention-2, arXiv 2307.08691, section 3.2)."""
    return 2.5 * forward_flops / rates.attention_bwd_flops_per_s + kernel_s if forward_flops > 0 else 0.0


@dataclass(frozen=True, slots=True)
class WeightStorage:
    """How a layer's weights are read by its GEMMs: bits per weight, and whether the kernel dequantises them
    with integer ALU work (`dequant_ops` per weight, planner.perf.efficiencies.FittedConstants)."""

    bits: float = 16.0
    integer: bool = False
    dequant_ops: float = 0.0


def layer_gemms_seconds(
    shape: LayerShape,
    tokens: float,
    rates: DeviceRates,
    share: float,
    kernel_s: float,
    *,
    moe: bool,
    storage: WeightStorage = WeightStorage(),  # noqa: B008 (frozen)
    ridge: float = 0.0,
    expert_load: float = 1.0,
) -> float:
    """Forward seconds of one layer's GEMMs for `tokens` rows on one rank: q/k/v, the attention output, and
    the MLP (dense, or the local routed experts with tokens x top-k / experts rows each, times expert_load, plus
    shared experts).
    """
    h = float(shape.hidden)

    def in_proj(elements: float, rows: float) -> float:
        return _gemm(rows, elements / h, h, rates, share, kernel_s, storage, ridge) if elements else 0.0

    def out_proj(elements: float, rows: float) -> float:
        return _gemm(rows, h, elements / h, rates, share, kernel_s, storage, ridge) if elements else 0.0

    seconds = in_proj(shape.attn_in, tokens) + out_proj(shape.attn_out, tokens)
    if moe:
        rows = tokens * shape.experts_per_token / shape.experts_local * expert_load  # the EP group's tokens
        # a grouped GEMM: one kernel for all local experts, each expert's weights read once
        experts = shape.experts_local
        seconds += (
            experts * (in_proj(shape.expert_in, rows) + out_proj(shape.expert_out, rows) - 2 * kernel_s)
            + 2 * kernel_s
        )
        seconds += in_proj(shape.shared_in, tokens) + out_proj(shape.shared_out, tokens)
    else:
        seconds += in_proj(shape.mlp_in, tokens) + out_proj(shape.mlp_out, tokens)
    return seconds


def _gemm(
    m: float, n: float, k: float, rates: DeviceRates, share: float, kernel_s: float, storage: WeightStorage,
    ridge: float,
) -> float:  # fmt: skip
    return gemm_seconds(
        m, n, k, rates, share, kernel_s, weight_bits=storage.bits, integer_weights=storage.integer,
        dequant_ops=storage.dequant_ops, ridge=ridge,
    )  # fmt: skip


def unfused_attention_seconds(
    sequences: float, seq_len: float, shape: LayerShape, rates: DeviceRates, share: float, kernel_s: float
) -> tuple[float, float]:
    """(forward, backward) seconds of attention without flash attention (Megatron-LM before 2022): QK^T and
    scores x V as batched GEMMs over the full s x s scores (no causal skipping), and the scores written,
    soft-maxed (read, write) and read again in 16 bits: 8 bytes per score and head forward, twice that backward
    (Korthikanti et al. 2022, arXiv 2205.05198, section 4.1: the attention core's memory-bound tensors)."""
    flops = sequences * 4.0 * seq_len * seq_len * shape.q_width
    scores = sequences * shape.heads_local * seq_len * seq_len
    forward = (
        flops / (rates.matmul_flops_per_s * share) + 8.0 * scores / rates.copy_bytes_per_s + 3 * kernel_s
    )
    backward = (
        2 * flops / (rates.matmul_flops_per_s * share) + 16.0 * scores / rates.copy_bytes_per_s + 4 * kernel_s
    )
    return forward, backward
