"""Per-GPU memory breakdown of an LLM for inference, full training, LoRA and QLoRA.

Every term is in bytes per GPU and comes with a one-line statement of its assumption. The formulas and their
primary sources (docs/sources.md, "Memory"):

- model states: the ZeRO paper (Rajbhandari et al. 2020, arXiv 1910.02054): mixed-precision AdamW keeps
  2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master weights, Adam m and v) = 16 bytes per parameter.
  DeepSpeed's estimators and Hugging Face's "model memory anatomy" count 18 (an extra fp32 gradient copy or an
  fp32 weight copy plus a 16-bit one); we use 16 because it is what ZeRO/Megatron/FSDP mixed precision holds
  after the gradients are cast into the fp32 master in place.
- activations: Korthikanti et al. 2022 (arXiv 2205.05198, Table 2), generalised to GQA, gated MLPs, MoE and
  MLA by counting the tensors autograd saves; no dropout (modern LLM recipes), flash attention by default.
- KV cache: 2 x layers x batch x seq x kv_heads x head_dim x bytes, divided over tensor-parallel ranks (at
  least one KV head per rank); MLA caches kv_lora_rank + qk_rope_head_dim values per token per layer
  (DeepSeek-V2, arXiv 2405.04434, section 2.1).

The GPU this describes is the fullest one: with pipeline parallelism the first stage (it holds the embedding
and the most in-flight micro-batches) or the last (LM head and logits), whichever needs more.

Pure arithmetic over frozen dataclasses; cheap enough (tens of microseconds) to call in search loops.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass, field
from typing import NamedTuple

from planner.errors import UserError
from planner.messages import Message, format_bytes, msg, render_all_en
from planner.models import ModelSpec, ParamCounts, param_counts
from planner.vocabulary import Layout, LoraTarget, Offload, Optimizer, Precision, Recompute, Task, ZeroStage

# --- Documented constants -----------------------------------------------------------------------------------

# CUDA context plus loaded kernels: Hugging Face "Model training anatomy" measured 1,343 MB (nvidia-smi MiB)
# on a V100 right after initialising torch. Lazy module loading (CUDA >= 11.7) often brings it nearer 500 MiB;
# we keep the measured, conservative figure.
CUDA_CONTEXT_BYTES = 1343 * 2**20
# PyTorch's caching allocator reserves more than it hands out (fragmentation, rounding to 512-byte blocks and
# 2 MiB segments), mostly for tensors that come and go each step (gradients, activations, KV blocks). 5% of
# those is our assumption, not a measurement; PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True narrows it.
ALLOCATOR_MARGIN_FRACTION = 0.05
# NCCL: NCCL_BUFFSIZE defaults to 4 MiB per channel and direction (NCCL environment-variable docs); with
# 16 channels, 2 ring neighbours, send and receive: 4 MiB x 16 x 2 x 2 = 256 MiB per communicator.
NCCL_BYTES_PER_COMMUNICATOR = 4 * 2**20 * 16 * 2 * 2
# Weight storage in bits per value. int4: group-128 quantisation with an fp16 scale and an fp16 zero point per
# group adds 32/128 bits (GPTQ/AWQ style), 4.25 bits. int8 and fp8: per-channel or per-tensor scales, negligible.
WEIGHT_BITS: dict[str, float] = {
    "fp32": 32.0,
    "bf16": 16.0,
    "fp16": 16.0,
    "fp8": 8.0,
    "int8": 8.0,
    "int4": 4.25,
}
# QLoRA NF4 with double quantisation: 4 bits + 0.127 bits of quantisation constants per parameter
# (Dettmers et al. 2023, arXiv 2305.14314, section 3: "reduces ... from 0.5 bits to 0.127 bits per parameter").
NF4_BITS = 4.127
# Logits are materialised in fp32 for the softmax cross-entropy (s x b x V values on the last stage).
LOGITS_BYTES_PER_VALUE = 4
# Flash attention keeps one fp32 log-sum-exp per head and token for its backward pass.
LSE_BYTES = 4
# Router probabilities of an MoE layer are kept in fp32.
ROUTER_BYTES_PER_VALUE = 4

MAX_DEGREE = 1_000_000
MAX_GPUS = 10_000_000
MAX_MICRO_BATCH = 1_000_000
MAX_SEQ_LEN = 100_000_000
MAX_LORA_RANK = 65536

DEFAULT_LORA_TARGETS = (LoraTarget.Q, LoraTarget.K, LoraTarget.V, LoraTarget.O)


@dataclass(frozen=True, slots=True)
class MemoryConfig:
    """One explicit configuration: the parallel layout plus what the GPUs hold. Sizes are counts (sequences,
    tokens, GPUs); layout.micro_batch is sequences per GPU per step (inference: concurrent sequences per
    replica). Values are checked (and text such as "train" parsed) by layout_notes / estimate_memory."""

    task: Task = Task.PRETRAIN
    precision: Precision = Precision.BF16
    kv_precision: Precision | None = None  # None: the weights' precision, or 16 bit for int formats
    optimizer: Optimizer = Optimizer.ADAMW
    layout: Layout = field(default_factory=Layout)
    seq_len: int = 4096  # tokens per sequence (inference: prompt + generated tokens held in the KV cache)
    flash_attention: bool = True
    lora_rank: int = 16
    lora_targets: tuple[LoraTarget, ...] = DEFAULT_LORA_TARGETS
    inflight_microbatches: int | None = None  # None: pp (1F1B first stage)
    sequence_parallel: bool = False


@dataclass(frozen=True, slots=True)
class MemoryTerm:
    bytes: int
    assumption: str


TERMS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")


@dataclass(frozen=True, slots=True)
class MemoryBreakdown:
    """Bytes per GPU by category, each with its assumption; the GPU is the fullest pipeline stage."""

    weights: MemoryTerm
    gradients: MemoryTerm
    optimizer: MemoryTerm
    activations: MemoryTerm
    kv_cache: MemoryTerm
    overhead: MemoryTerm
    notes: tuple[str, ...]  # English, for the CLI and JSON; note_messages says the same for other languages
    pipeline_stage: int = 0  # which stage these figures describe (0-based)
    host_offload_bytes: int = 0  # bytes this GPU's rank keeps in CPU RAM because of --offload
    # Part of weights + gradients that is ZeRO-3's gathered largest unit (0 without ZeRO-3). The ZeRO paper's
    # 16P/N figures leave it out: compare them with model_state_bytes - zero3_gathered_bytes.
    zero3_gathered_bytes: int = 0
    note_messages: tuple[Message, ...] = ()  # planner.messages codes "memory.*" (same order as notes)

    TERMS = TERMS

    def terms(self) -> tuple[tuple[str, MemoryTerm], ...]:
        """(name, term) in TERMS order."""
        return (
            ("weights", self.weights),
            ("gradients", self.gradients),
            ("optimizer", self.optimizer),
            ("activations", self.activations),
            ("kv_cache", self.kv_cache),
            ("overhead", self.overhead),
        )

    @property
    def total_bytes(self) -> int:
        return sum(term.bytes for _, term in self.terms())

    @property
    def model_state_bytes(self) -> int:
        """Weights + gradients + optimizer state."""
        return self.weights.bytes + self.gradients.bytes + self.optimizer.bytes

    def as_dict(self) -> dict[str, int]:
        result = {name: term.bytes for name, term in self.terms()}
        result["total"] = self.total_bytes
        return result

    def assumptions(self) -> dict[str, str]:
        return {name: term.assumption for name, term in self.terms()}


# --- Validation ---------------------------------------------------------------------------------------------


def normalised(config: MemoryConfig) -> MemoryConfig:
    """`config` with every choice as its vocabulary member ("train" -> Task.PRETRAIN); UserError naming the
    first value that is no choice at all. The counts are checked by layout_notes."""
    task = Task.parse(config.task)
    precision = Precision.parse(config.precision)
    kv_precision = config.kv_precision
    if kv_precision is not None:
        kv_precision = Precision.parse(kv_precision, msg("choice.kv_precision"))
    optimizer = Optimizer.parse(config.optimizer)
    layout = config.layout
    recompute, offload = Recompute.parse(layout.recompute), Offload.parse(layout.offload)
    return dataclasses.replace(
        config,
        task=task,
        precision=precision,
        kv_precision=kv_precision,
        optimizer=optimizer,
        layout=dataclasses.replace(layout, recompute=recompute, offload=offload),
    )


def _count(value: object, what: Message | str, upper: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError.of(msg("error.must_be_whole", what=what, value=value))
    if value <= 0:
        raise UserError.of(msg("error.must_be_positive", what=what, value=value))
    if value > upper:
        raise UserError.of(msg("error.absurdly_large", what=what, value=value, limit=upper))


def validate_layout(model: ModelSpec, config: MemoryConfig) -> list[str]:
    """Raise UserError for impossible configurations; return notes for allowed but pointless ones (English)."""
    return list(render_all_en(layout_notes(model, config)))


def layout_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    """validate_layout's notes as planner.messages.Message objects (raises the same UserErrors)."""
    return _checked_notes(model, normalised(config))


def _checked_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    """layout_notes of a normalised config."""
    _check_counts(config)
    _check_layout_fits_model(model, config)
    _check_task(config)
    return [*_layout_model_notes(model, config), *_task_notes(config)]


def _check_counts(config: MemoryConfig) -> None:
    layout = config.layout
    _count(layout.micro_batch, msg("quantity.micro_batch"), MAX_MICRO_BATCH)
    _count(config.seq_len, msg("quantity.seq_len"), MAX_SEQ_LEN)
    for name, degree in (("dp", layout.dp), ("tp", layout.tp), ("pp", layout.pp), ("ep", layout.ep)):
        _count(degree, name, MAX_DEGREE)
    if layout.zero not in (0, 1, 2, 3) or isinstance(layout.zero, bool):  # as MemoryTotals refuses it
        raise UserError.of(msg("error.zero_stage", value=layout.zero))
    if layout.gpus > MAX_GPUS:
        raise UserError.of(msg("error.too_many_gpus", gpus=layout.gpus, limit=MAX_GPUS))
    if config.inflight_microbatches is not None:
        _count(config.inflight_microbatches, msg("quantity.inflight"), MAX_DEGREE)


def _check_layout_fits_model(model: ModelSpec, config: MemoryConfig) -> None:
    """UserError when the model cannot be split this way: heads, KV heads, layers, experts, positions."""
    layout, name = config.layout, model.name
    tp = layout.tp
    if model.heads % tp:
        raise UserError.of(msg("error.tp_heads", tp=tp, heads=model.heads, model=name))
    if not model.uses_mla and model.kv_heads % tp and tp % model.kv_heads:
        raise UserError.of(msg("error.tp_kv_heads", tp=tp, kv_heads=model.kv_heads, model=name))
    if layout.pp > model.layers:
        raise UserError.of(msg("error.pp_layers", pp=layout.pp, layers=model.layers, model=name))
    if layout.ep > 1:
        if not model.is_moe:
            raise UserError.of(msg("error.ep_dense", ep=layout.ep, model=name))
        if model.experts % layout.ep:
            raise UserError.of(msg("error.ep_experts", ep=layout.ep, experts=model.experts, model=name))
        if (layout.dp * tp) % layout.ep:
            raise UserError.of(msg("error.ep_dp_tp", ep=layout.ep, dp_tp=layout.dp * tp))
    if model.learned_positions and config.seq_len > model.max_context:
        raise UserError.of(
            msg("error.learned_positions", seq_len=config.seq_len, model=name, context=model.max_context)
        )


def _check_task(config: MemoryConfig) -> None:
    """UserError for what the task cannot do: integer full training, LoRA without targets, offload without
    the ZeRO stage it needs."""
    task, layout = config.task, config.layout
    if task.is_full_training and config.precision.is_weight_only:
        raise UserError.of(msg("error.full_training_int", precision=config.precision))
    if task.is_adapter:
        _count(config.lora_rank, msg("quantity.lora_rank"), MAX_LORA_RANK)
        if not config.lora_targets:
            raise UserError.of(msg("error.lora_no_targets", choices=", ".join(LoraTarget.values())))
        for target in config.lora_targets:
            LoraTarget.parse(target)
    if task.is_training:
        if layout.offload == Offload.OPTIMIZER and layout.zero == ZeroStage.NONE:
            raise UserError.of(msg("error.optimizer_offload_zero"))
        if layout.offload == Offload.ALL and layout.zero != ZeroStage.WEIGHTS:
            raise UserError.of(msg("error.param_offload_zero3"))


def _layout_model_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    notes = []
    tp = config.layout.tp
    if not model.uses_mla and tp > model.kv_heads:
        notes.append(
            msg("memory.kv_heads_replicated", tp=tp, kv_heads=model.kv_heads, replicas=tp // model.kv_heads)
        )
    if config.seq_len > model.max_context:
        notes.append(
            msg(
                "memory.seq_beyond_context",
                seq_len=config.seq_len,
                model=model.name,
                context=model.max_context,
            )
        )
    if config.task == Task.QLORA and config.precision not in (Precision.BF16, Precision.FP16, Precision.FP32):
        notes.append(msg("memory.qlora_ignores_precision", precision=config.precision))
    return notes


def _task_notes(config: MemoryConfig) -> list[Message]:
    """Notes on settings the task ignores or that do nothing here (ZeRO with one rank, ...)."""
    layout, notes = config.layout, []
    if config.task.is_training:
        if layout.zero and layout.dp == 1:
            notes.append(msg("memory.zero_with_one_rank", zero=layout.zero))
        if layout.pp > 1 and layout.zero >= ZeroStage.GRADIENTS:
            notes.append(msg("memory.zero_with_pipeline", zero=layout.zero))
        if config.kv_precision is not None:
            notes.append(msg("memory.kv_precision_training"))
    else:
        if layout.zero:
            notes.append(msg("memory.zero_inference"))
        if layout.offload == Offload.OPTIMIZER:
            notes.append(msg("memory.optimizer_offload_inference"))
        if layout.recompute != Recompute.NONE:
            notes.append(msg("memory.recompute_inference"))
    if config.sequence_parallel and layout.tp == 1:
        notes.append(msg("memory.sequence_parallel_without_tp"))
    if config.task.is_training and layout.recompute == Recompute.SELECTIVE and config.flash_attention:
        notes.append(msg("memory.selective_with_flash"))
    if config.inflight_microbatches is not None and layout.pp == 1 and config.inflight_microbatches > 1:
        notes.append(msg("memory.inflight_without_pipeline"))
    return notes


# --- Per-model derived numbers (cached) ---------------------------------------------------------------------


@dataclass(frozen=True)
class _Stage:
    index: int
    dense_layers: int
    moe_layers: int
    has_embedding: bool
    has_head: bool

    @property
    def layers(self) -> int:
        return self.dense_layers + self.moe_layers


@functools.lru_cache(maxsize=8192)
def _stages(model: ModelSpec, pp: int) -> tuple[_Stage, ...]:
    """First and last pipeline stage (the only candidates for the fullest GPU).

    Layers are split as evenly as possible, the first stages taking the remainder; dense-first layers of an
    MoE model (DeepSeek's first_k_dense_replace) sit at the start.
    """
    base, remainder = divmod(model.layers, pp)
    dense_total = model.layers - model.moe_layers

    def stage(index: int) -> _Stage:
        start = index * base + min(index, remainder)
        size = base + (1 if index < remainder else 0)
        dense = max(0, min(start + size, dense_total) - start)
        return _Stage(index, dense, size - dense, index == 0, index == pp - 1)

    return (stage(0),) if pp == 1 else (stage(0), stage(pp - 1))


@functools.lru_cache(maxsize=8192)
def _lora_params_per_layer(model: ModelSpec, rank: int, targets: tuple[str, ...]) -> tuple[int, int, int]:
    """(adapter params in a dense layer, in an MoE layer outside routed experts, in all routed experts of one
    MoE layer, plus the number of adapted matrices a token passes in a dense layer) -- r x (d_in + d_out) each."""
    h = model.hidden
    chosen = set(targets)
    attention = 0
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        if "q" in chosen:
            attention += rank * ((model.q_lora_rank or h) + model.heads * qk_head)
        if chosen & {"k", "v"}:
            attention += rank * (
                model.kv_lora_rank + model.heads * (model.qk_nope_head_dim + model.v_head_dim)
            )
        if "o" in chosen:
            attention += rank * (model.heads * model.v_head_dim + h)
    else:
        widths = {"q": model.heads * model.head_dim, "k": model.kv_heads * model.head_dim}
        widths["v"] = widths["k"]
        widths["o"] = widths["q"]
        attention = sum(rank * (h + widths[t]) for t in ("q", "k", "v", "o") if t in chosen)

    def mlp(ffn: int) -> int:
        matrices = [t for t in ("gate", "up", "down") if t in chosen and (model.gated_mlp or t != "gate")]
        return len(matrices) * rank * (h + ffn) if ffn else 0

    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    dense_layer = attention + mlp(model.ffn)
    moe_non_expert = attention + mlp(shared_ffn)
    routed = model.experts * mlp(model.moe_ffn) if model.is_moe else 0
    return dense_layer, moe_non_expert, routed


# --- Bytes per value ----------------------------------------------------------------------------------------


def _training_weight_bytes(precision: str) -> float:
    """Bytes per trainable parameter held as the working weight copy."""
    if precision == Precision.FP32:
        return 4.0
    if precision == Precision.FP8:
        return 3.0  # bf16 weights + an fp8 copy cached for the GEMMs (Transformer Engine)
    return 2.0


def _gradient_bytes(precision: str) -> float:
    return 4.0 if precision == Precision.FP32 else 2.0


# Optimizer state per trainable parameter: AdamW m + v in fp32; 8-bit AdamW m + v in int8 (Dettmers et al.
# 2021, arXiv 2110.02861); SGD momentum in fp32.
_OPTIMIZER_STATE_BYTES = {Optimizer.ADAMW: 8.0, Optimizer.ADAMW8BIT: 2.0, Optimizer.SGD: 4.0}


def _optimizer_bytes(optimizer: Optimizer, precision: str) -> float:
    """Optimizer state per trainable parameter; mixed precision adds the fp32 master copy (4 bytes)."""
    master = 0.0 if precision == Precision.FP32 else 4.0
    return master + _OPTIMIZER_STATE_BYTES[optimizer]


def _activation_element_bytes(task: Task, precision: str) -> float:
    if task == Task.QLORA:
        return 2.0
    return 4.0 if precision == Precision.FP32 else 2.0


def kv_element_bytes(config: MemoryConfig) -> float:
    """KV-cache bytes per value: kv_precision if given, else the weights' precision (16 bit for int formats)."""
    precision = config.kv_precision
    if precision is None:
        precision = Precision.BF16 if Precision(config.precision).is_weight_only else config.precision
    return WEIGHT_BITS[precision] / 8


def _master_precision(precision: str) -> Precision:
    """The precision gradients and optimizer state are counted in: fp32 stays fp32, everything else bf16."""
    return Precision.FP32 if precision == Precision.FP32 else Precision.BF16


# --- The estimate -------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Divisors:
    """How one layout divides the model among the ranks (from tp and ep; dp is read where it is used).

    expert_divisor: expert tensor parallel 1 when ep > 1 (each expert whole on one rank, Megatron-Core's
    recommendation for fine-grained MoE); with ep 1 experts are split over tp like every other matrix.
    """

    tp: int
    expert_divisor: int
    kv_heads_per_rank: int


def _divisors(model: ModelSpec, layout: Layout) -> _Divisors:
    expert_divisor = layout.ep if layout.ep > 1 else layout.tp
    return _Divisors(layout.tp, expert_divisor, max(1, model.kv_heads // layout.tp))


def _stage_params(model: ModelSpec, counts: ParamCounts, stage: _Stage, pp: int) -> tuple[int, int, int]:
    """(non-expert block params, routed-expert params, embedding/head/final-norm params) of one stage."""
    blocks = stage.dense_layers * counts.dense_layer + stage.moe_layers * counts.moe_layer_non_expert
    experts = stage.moe_layers * counts.routed_experts_per_layer
    ends = 0
    if stage.has_embedding:
        ends += counts.embedding
    if stage.has_head:
        ends += counts.final_norm + counts.lm_head
        if model.tied_embeddings and pp > 1:
            ends += model.vocab * model.hidden  # the last stage keeps its own copy of the tied matrix
    return blocks, experts, ends


def _largest_unit_params(model: ModelSpec, counts: ParamCounts, divisors: _Divisors) -> float:
    """Parameters per GPU of the biggest unit ZeRO-3/FSDP gathers at once (a layer, the embedding or head)."""
    layer = counts.dense_layer / divisors.tp if model.layers > model.moe_layers else 0.0
    if model.is_moe:
        moe = (
            counts.moe_layer_non_expert / divisors.tp
            + counts.routed_experts_per_layer / divisors.expert_divisor
        )
        layer = max(layer, moe)
    head = (counts.lm_head or model.vocab * model.hidden) / divisors.tp
    return max(layer, counts.embedding / divisors.tp, head)


def _attention_activations(
    model: ModelSpec, config: MemoryConfig, divisors: _Divisors, e: float, seq_len: int
) -> float:
    """Attention tensors autograd keeps per token for one layer on one GPU: Q, K, V, the attention output
    (MLA: also its latents), the flash log-sum-exp or, unfused, the expanded K/V and the probabilities."""
    tp = divisors.tp
    heads_per_rank = model.heads / tp
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        latent = e * (2 * model.q_lora_rank + 2 * model.kv_lora_rank + model.qk_rope_head_dim)
        attention = e * model.heads * (2 * qk_head + 2 * model.v_head_dim) / tp + latent
    else:
        q_width = model.heads * model.head_dim / tp
        kv_width = divisors.kv_heads_per_rank * model.head_dim
        attention = e * (2 * q_width + 2 * kv_width)  # Q, attention output; K, V
    if config.flash_attention:
        return attention + LSE_BYTES * heads_per_rank
    if not model.uses_mla and model.kv_heads < model.heads:
        # unfused attention expands K and V to every query head (HF's repeat_kv, Megatron's core attention)
        attention += 2 * e * (heads_per_rank - divisors.kv_heads_per_rank) * model.head_dim
    if config.layout.recompute == Recompute.NONE:
        attention += (
            e * heads_per_rank * seq_len
        )  # softmax probabilities, a x s per token (Korthikanti's 5as/h)
    return attention


def _per_token_layer_activations(
    model: ModelSpec, config: MemoryConfig, divisors: _Divisors, moe: bool, seq_len: int
) -> float:
    """Bytes autograd keeps per token for one layer (one micro-batch), on one GPU.

    Korthikanti et al. count 34 x h bytes per token in 16 bit for a GPT layer with dropout; the same tensors
    here: each norm's input, the attention and MLP inputs, Q, K, V, the attention output, the MLP
    intermediates (4 x ffn for a gated MLP: gate, its activation, up, their product; 2 x ffn otherwise).
    """
    task = config.task
    e = _activation_element_bytes(task, config.precision)
    h = model.hidden
    tp = divisors.tp
    replicated = (model.norms_per_layer + 2) * e * h  # norm inputs + attention input + MLP input
    attention = _attention_activations(model, config, divisors, e, seq_len)
    mlp_factor = 4 if model.gated_mlp else 2
    if moe:
        shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        k = model.experts_per_token
        mlp = (k * (2 * e * h + mlp_factor * e * model.moe_ffn) + mlp_factor * e * shared_ffn) / tp
        replicated += ROUTER_BYTES_PER_VALUE * model.experts
    else:
        mlp = mlp_factor * e * model.ffn / tp
    if task.is_adapter:
        # each adapter keeps its down-projected input (r values) for the up-projection's backward
        adapted = sum(1 for t in config.lora_targets if t in ("q", "k", "v", "o")) + (
            sum(1 for t in config.lora_targets if t in ("gate", "up", "down"))
            * (model.experts_per_token or 1)
        )
        mlp += adapted * e * config.lora_rank / tp
    sp_divisor = tp if config.sequence_parallel else 1
    return replicated / sp_divisor + attention + mlp


def _inference_working_bytes(
    model: ModelSpec, config: MemoryConfig, divisors: _Divisors, seq_len: int
) -> float:
    """Largest transient of one layer's forward without autograd, per token: the layer's input (still held by
    the caller), the updated residual stream and its normalised copy, plus the attention tensors or the MLP
    intermediates (gate activation, up, their product), whichever is larger."""
    e = 2.0 if config.precision != Precision.FP32 else 4.0
    h = model.hidden
    tp = divisors.tp
    residual = 3 * e * h
    if model.uses_mla:
        attention = (
            e
            * model.heads
            * (2 * (model.qk_nope_head_dim + model.qk_rope_head_dim) + 2 * model.v_head_dim)
            / tp
        )
    else:
        attention = e * (
            2 * model.heads * model.head_dim / tp + 2 * divisors.kv_heads_per_rank * model.head_dim
        )
    if not config.flash_attention:
        attention += 3 * e * model.heads / tp * seq_len  # scores, masked scores, probabilities
        if not model.uses_mla and model.kv_heads < model.heads:
            attention += (
                2 * e * (model.heads / tp - divisors.kv_heads_per_rank) * model.head_dim
            )  # K, V expanded
    if model.is_moe:
        width = model.experts_per_token * model.moe_ffn + (
            model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        )
        width = max(width, model.ffn if model.dense_layers else 0)
    else:
        width = model.ffn
    mlp = (3 if model.gated_mlp else 2) * e * width / tp
    return residual + max(attention, mlp)


class _StageAmounts(NamedTuple):
    """Bytes of one pipeline stage's GPU by term, before rounding up, plus the figures its words quote.

    Numbers and words are kept apart so that search loops, which only need totals, skip the words. A
    NamedTuple (immutable like the frozen dataclasses here): a search builds tens of thousands of these, and a
    tuple is several times cheaper to build than a frozen dataclass.
    """

    stage: int
    weights: float
    gradients: float
    optimizer: float
    activations: float
    kv_cache: float
    overhead: float
    host_bytes: float
    gathered_bytes: float  # ZeRO-3's unsharded working copy of the largest unit (weights + gradients)
    params_gpu: float
    gathered_weights: float
    streamed_weights: float
    adapter_params: float
    logits: float
    inflight: int
    communicators: int

    @property
    def total_bytes(self) -> int:
        """Per-GPU bytes as MemoryBreakdown.total_bytes counts them (each term rounded up on its own)."""
        ceil = math.ceil
        return (
            ceil(self.weights)
            + ceil(self.gradients)
            + ceil(self.optimizer)
            + ceil(self.activations)
            + ceil(self.kv_cache)
            + ceil(self.overhead)
        )


@dataclass(frozen=True, slots=True)
class _StageShape:
    """What one stage's GPU holds given tp, pp and ep only: parameter counts per GPU and bytes per parameter.
    _stage_activations adds what the micro-batch and recompute mode hold, _stage_state the sharded model states
    (dp, ZeRO stage, offload) and the overhead."""

    stage: int
    task: Task
    training: bool  # task.is_training, kept as a field: the state arithmetic reads it in search loops
    full_training: bool
    adapter: bool
    tp: int
    pp: int
    ep: int
    params_gpu: float
    dense_params_gpu: float
    expert_params_gpu: float
    stored_weights: float
    bytes_per_param: float
    largest: float  # parameters per GPU of the largest unit ZeRO-3 gathers
    qlora_workspace: float
    adapter_dense: float
    adapter_expert: float
    adapter_bytes: float
    trainable_dense: float
    trainable_expert: float
    grad_per: float
    opt_per: float


class _StageActivations(NamedTuple):
    """Bytes one stage's GPU holds for the micro-batch in flight: activations (logits included), KV cache.
    A NamedTuple for the same reason as _StageAmounts."""

    activations: float
    logits: float
    inflight: int
    kv_cache: float


def _stored_weights(
    model: ModelSpec, config: MemoryConfig, params_gpu: float, high_precision_gpu: float
) -> tuple[float, float]:
    """(weight bytes on this GPU, bytes per parameter): a training working copy, or the stored format, where
    embedding, head, norms and biases stay 16 bit beside quantised linear layers."""
    if config.task.is_full_training:
        bytes_per_param = _training_weight_bytes(config.precision)
        return params_gpu * bytes_per_param, bytes_per_param
    bits = NF4_BITS if config.task == Task.QLORA else WEIGHT_BITS[config.precision]
    low = bits < 16
    linear_gpu = params_gpu - (high_precision_gpu if low else 0.0)
    stored = linear_gpu * bits / 8 + (high_precision_gpu * 2 if low else 0.0)
    return stored, stored / params_gpu if params_gpu else 0.0


def _stage_shape(
    model: ModelSpec, config: MemoryConfig, stage: _Stage, counts: ParamCounts, divisors: _Divisors
) -> _StageShape:
    """The numbers of one stage that depend on tp, pp and ep only (not on dp, zero, offload, recompute or
    micro_batch)."""
    task, layout = config.task, config.layout
    tp, pp = layout.tp, layout.pp
    blocks, experts, ends = _stage_params(model, counts, stage, pp)
    small = stage.layers * counts.small_per_layer  # the final norm is already part of `ends`
    dense_params_gpu = (blocks + ends) / tp
    expert_params_gpu = experts / divisors.expert_divisor
    params_gpu = dense_params_gpu + expert_params_gpu
    # Parameters kept at 16 bit even when the linear layers are quantised: embedding, head, norms, biases.
    stored, bytes_per_param = _stored_weights(model, config, params_gpu, (ends + small) / tp)
    qlora_workspace = 0.0
    if task == Task.QLORA:
        # bitsandbytes dequantises one matrix at a time to bf16 for the matmul
        widest = max(model.ffn, model.moe_ffn, model.heads * max(model.head_dim, model.v_head_dim))
        qlora_workspace = model.hidden * widest / tp * 2
    # trainable parameters: the full model, or the LoRA adapters
    adapter_dense = adapter_expert = adapter_bytes = 0.0
    trainable_dense = trainable_expert = 0.0
    if task.is_adapter:
        per_dense, per_moe, per_routed = _lora_params_per_layer(model, config.lora_rank, config.lora_targets)
        adapter_dense = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) / tp
        adapter_expert = stage.moe_layers * per_routed / divisors.expert_divisor
        adapter_bytes = _training_weight_bytes(_master_precision(config.precision))
        trainable_dense, trainable_expert = adapter_dense, adapter_expert
    elif task.is_full_training:
        trainable_dense, trainable_expert = dense_params_gpu, expert_params_gpu
    grad_per = opt_per = 0.0
    if task.is_training:
        precision = _master_precision(config.precision)
        grad_per = _gradient_bytes(precision)
        opt_per = _optimizer_bytes(config.optimizer, precision)
    return _StageShape(
        stage=stage.index, task=task, training=task.is_training, full_training=task.is_full_training,
        adapter=task.is_adapter, tp=tp, pp=pp, ep=layout.ep, params_gpu=params_gpu,
        dense_params_gpu=dense_params_gpu, expert_params_gpu=expert_params_gpu, stored_weights=stored,
        bytes_per_param=bytes_per_param, largest=_largest_unit_params(model, counts, divisors),
        qlora_workspace=qlora_workspace, adapter_dense=adapter_dense, adapter_expert=adapter_expert,
        adapter_bytes=adapter_bytes, trainable_dense=trainable_dense, trainable_expert=trainable_expert,
        grad_per=grad_per, opt_per=opt_per,
    )  # fmt: skip


def _per_token_activations(
    model: ModelSpec, config: MemoryConfig, divisors: _Divisors
) -> tuple[float, float]:
    """(dense layer, MoE layer) activation bytes per token in training; they depend on tp and the recompute mode
    (only without flash attention), not on pp, ep, dp or the micro-batch."""
    per_dense = _per_token_layer_activations(model, config, divisors, False, config.seq_len)
    per_moe = (
        _per_token_layer_activations(model, config, divisors, True, config.seq_len) if model.is_moe else 0.0
    )
    return per_dense, per_moe


def _inflight_microbatches(config: MemoryConfig, stage: _Stage) -> int:
    """Micro-batches whose activations a stage holds at once: 1F1B keeps pp on the first stage."""
    pp = config.layout.pp
    if stage.index == 0 and pp > 1:
        return config.inflight_microbatches or pp
    if config.inflight_microbatches and pp > 1:
        return max(1, min(config.inflight_microbatches, pp - stage.index))
    return 1


def _stage_activations(
    model: ModelSpec,
    config: MemoryConfig,
    stage: _Stage,
    divisors: _Divisors,
    per_token: tuple[float, float] | None,
    recompute: Recompute,
    micro_batch: int,
) -> _StageActivations:
    """Activations and KV cache of one stage at `micro_batch` sequences with `recompute` (these two are read
    from the arguments, the rest from config); per_token: _per_token_activations (training only)."""
    tp = divisors.tp
    tokens = micro_batch * config.seq_len
    e = _activation_element_bytes(config.task, config.precision)
    inflight = 1
    logits = 0.0
    if per_token is not None:  # training
        per_dense, per_moe = per_token
        inflight = _inflight_microbatches(config, stage)
        sp_divisor = tp if config.sequence_parallel else 1
        if recompute == Recompute.FULL:
            kept = stage.layers * e * model.hidden / sp_divisor * tokens * inflight
            working = max(per_dense, per_moe) * tokens
            activations = kept + working
        else:
            activations = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) * tokens * inflight
        if stage.has_head:
            logits = tokens * (LOGITS_BYTES_PER_VALUE * model.vocab / tp + 2 * e * model.hidden / sp_divisor)
            activations += logits
    else:
        working = _inference_working_bytes(model, config, divisors, config.seq_len) * tokens
        logits = micro_batch * LOGITS_BYTES_PER_VALUE * model.vocab / tp if stage.has_head else 0.0
        activations = working + logits
    kv = 0.0
    if config.task == Task.INFERENCE:
        kv_bytes = kv_element_bytes(config)
        if model.uses_mla:
            per_token_layer = (model.kv_lora_rank + model.qk_rope_head_dim) * kv_bytes
        else:
            per_token_layer = 2 * divisors.kv_heads_per_rank * model.head_dim * kv_bytes
        kv = stage.layers * tokens * per_token_layer
    return _StageActivations(activations, logits, inflight, kv)


# The offload modes as module constants: _stage_state runs tens of thousands of times per search, and reading
# an enum member off its class costs several times a plain name.
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER


def _stage_state(
    shape: _StageShape, acts: _StageActivations, dp: int, zero: int, offload: str
) -> _StageAmounts:
    """A stage's numbers once dp, the ZeRO stage and offload are known: sharded model states and overhead."""
    training = shape.training
    zero = zero if training else 0
    ep = shape.ep
    # ZeRO shards over the ranks that hold the same replica: dp for dense parts; for experts the
    # expert-data-parallel group dp x tp / ep.
    dense_shard = dp
    expert_shard = dp * shape.tp // ep if ep > 1 else dp
    host = 0.0
    gathered_total = 0.0  # ZeRO-3's unsharded working copy of the largest unit (weights + gradients)
    gathered_weights = streamed_weights = 0.0
    largest, bytes_per_param = shape.largest, shape.bytes_per_param

    # --- weights
    weights = shape.stored_weights
    if zero == 3:
        shard = (
            shape.dense_params_gpu / dense_shard + shape.expert_params_gpu / expert_shard
        ) * bytes_per_param
        gathered_weights = largest * bytes_per_param
        gathered_total += gathered_weights
        if offload == _OFFLOAD_ALL:
            host += shard
            weights = gathered_weights
        else:
            weights = shard + gathered_weights
    elif not training and offload == _OFFLOAD_ALL:
        host += weights
        weights = streamed_weights = largest * bytes_per_param
    weights += shape.qlora_workspace
    if shape.adapter:
        adapter_dense, adapter_expert = shape.adapter_dense, shape.adapter_expert
        if zero == 3:
            weights += (adapter_dense / dense_shard + adapter_expert / expert_shard) * shape.adapter_bytes
        else:
            weights += (adapter_dense + adapter_expert) * shape.adapter_bytes

    # --- gradients and optimizer
    gradients = optimizer = 0.0
    if training:
        trainable_dense, trainable_expert = shape.trainable_dense, shape.trainable_expert
        trainable = trainable_dense + trainable_expert
        shards = trainable_dense / dense_shard + trainable_expert / expert_shard
        gradients = (shards if zero >= 2 else trainable) * shape.grad_per
        if zero == 3 and shape.full_training:
            gradients += largest * shape.grad_per
            gathered_total += largest * shape.grad_per
        optimizer = (shards if zero >= 1 else trainable) * shape.opt_per
        if offload == _OFFLOAD_OPTIMIZER or offload == _OFFLOAD_ALL:
            host += optimizer
            optimizer = 0.0

    # --- overhead: one NCCL communicator per parallel group
    communicators = (dp > 1 and training) + (shape.tp > 1) + (shape.pp > 1) + (ep > 1)
    dynamic = gradients + acts.activations + acts.kv_cache  # allocated and freed step by step: fragmentation
    overhead = (
        CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic + communicators * NCCL_BYTES_PER_COMMUNICATOR
    )
    return _StageAmounts(
        shape.stage,
        weights,
        gradients,
        optimizer,
        acts.activations,
        acts.kv_cache,
        overhead,
        host,
        gathered_total,
        shape.params_gpu,
        gathered_weights,
        streamed_weights,
        shape.adapter_dense + shape.adapter_expert,
        acts.logits,
        acts.inflight,
        communicators,
    )


def _stage_amounts(
    model: ModelSpec, config: MemoryConfig, stage: _Stage, counts: ParamCounts
) -> _StageAmounts:
    """The numbers of one stage (bytes per GPU) of a normalised config; _stage_terms puts them into words."""
    layout = config.layout
    divisors = _divisors(model, layout)
    shape = _stage_shape(model, config, stage, counts, divisors)
    per_token = _per_token_activations(model, config, divisors) if config.task.is_training else None
    acts = _stage_activations(model, config, stage, divisors, per_token, layout.recompute, layout.micro_batch)
    return _stage_state(shape, acts, layout.dp, layout.zero, layout.offload)


# --- The words: one line of assumption per term -------------------------------------------------------------


def _weights_text(model: ModelSpec, config: MemoryConfig, amounts: _StageAmounts) -> str:
    task, layout = config.task, config.layout
    zero = layout.zero if task.is_training else 0
    if task.is_full_training:
        per_param = _training_weight_bytes(config.precision)
        stored_text = f"{per_param:g} bytes/param ({config.precision} working copy)"
    else:
        if task == Task.QLORA:
            bits, storage_name = NF4_BITS, f"NF4 {NF4_BITS} bits/param with double quantisation (QLoRA paper)"
        else:
            bits = WEIGHT_BITS[config.precision]
            storage_name = f"{config.precision} {bits:g} bits/param"
            if config.precision == Precision.INT4:
                storage_name += " (group-128 fp16 scale + zero)"
        stored_text = storage_name + ("; embeddings, head, norms, biases 16 bit" if bits < 16 else "")
    text = f"{amounts.params_gpu / 1e9:.3g}B params on this GPU x {stored_text}"
    if zero == 3:
        gathered = format_bytes(amounts.gathered_weights, unit="GiB")
        if layout.offload == Offload.ALL:
            text = f"ZeRO-3 params offloaded to CPU; GPU holds one gathered layer ({gathered})"
        else:
            text += f"; ZeRO-3 shards over dp {layout.dp} + one gathered layer ({gathered})"
    elif task == Task.INFERENCE and layout.offload == Offload.ALL:
        text = f"weights in CPU RAM, streamed one layer at a time ({format_bytes(amounts.streamed_weights, unit='GiB')} on the GPU)"
    if task == Task.QLORA:
        text += "; + one matrix dequantised to bf16"
    if task.is_adapter:
        text += f"; frozen base + {amounts.adapter_params / 1e6:.3g}M LoRA params (rank {config.lora_rank})"
    return text


def _state_texts(config: MemoryConfig) -> tuple[str, str]:
    """(gradients, optimizer) assumption lines."""
    task, layout = config.task, config.layout
    if not task.is_training:
        return "none: inference", "none: inference"
    zero = int(layout.zero)
    precision = _master_precision(config.precision)
    grad_text = f"{_gradient_bytes(precision):g} bytes/trainable param"
    if zero >= 2:
        grad_text += f", ZeRO-{zero} sharded over dp {layout.dp}"
    if zero == 3 and task.is_full_training:
        grad_text += " + one layer unsharded before reduce-scatter"
    opt_text = _optimizer_text(config.optimizer, precision, _optimizer_bytes(config.optimizer, precision))
    if zero >= 1:
        opt_text += f", ZeRO-{zero} sharded over dp {layout.dp}"
    if layout.offload in (Offload.OPTIMIZER, Offload.ALL):
        opt_text += "; offloaded to CPU RAM"
    return grad_text, opt_text


def _activations_text(config: MemoryConfig, stage: _Stage, amounts: _StageAmounts) -> str:
    if not config.task.is_training:
        text = "prefill of micro-batch x seq_len tokens at once, one layer's transient tensors"
        return text + (" + fp32 logits of the last position" if stage.has_head else "")
    recompute = config.layout.recompute
    if recompute == Recompute.FULL:
        text = "full recompute: each layer's input kept + one layer's activations while recomputing"
    else:
        kind = "flash attention" if config.flash_attention else "scores stored"
        if not config.flash_attention and recompute == Recompute.SELECTIVE:
            kind = "selective recompute of attention"
        text = f"Korthikanti et al. per-layer tensors ({kind}, no dropout)"
    if amounts.inflight > 1:
        text += f", {amounts.inflight} micro-batches in flight (1F1B)"
    if stage.has_head:
        text += f"; fp32 logits s x b x V ({format_bytes(amounts.logits, unit='GiB')})"
    return text


def _kv_text(model: ModelSpec, config: MemoryConfig, stage: _Stage) -> str:
    if config.task != Task.INFERENCE:
        return "none: training does not keep a KV cache"
    kv_bytes = kv_element_bytes(config)
    if model.uses_mla:
        return (
            f"MLA latent (kv_lora_rank {model.kv_lora_rank} + rope {model.qk_rope_head_dim}) x {kv_bytes:g} bytes "
            f"per token per layer, replicated on each tp rank"
        )
    layout = config.layout
    return (
        f"2 x {stage.layers} layers x {layout.micro_batch} x {config.seq_len} tokens x "
        f"{max(1, model.kv_heads // layout.tp)} KV heads x {model.head_dim} x {kv_bytes:g} bytes"
    )


def _overhead_text(amounts: _StageAmounts) -> str:
    text = (
        f"CUDA context {CUDA_CONTEXT_BYTES // 2**20} MiB (HF measured) + {ALLOCATOR_MARGIN_FRACTION:.0%} allocator "
        "margin on gradients, activations and KV cache"
    )
    if amounts.communicators:
        text += (
            f" + {amounts.communicators} NCCL communicator(s) x {NCCL_BYTES_PER_COMMUNICATOR // 2**20} MiB"
        )
    return text


def _stage_terms(
    model: ModelSpec, config: MemoryConfig, stage: _Stage, amounts: _StageAmounts
) -> dict[str, MemoryTerm]:
    """Each term of one stage in bytes (rounded up) with the one-line assumption behind it."""
    grad_text, opt_text = _state_texts(config)
    return {
        "weights": MemoryTerm(math.ceil(amounts.weights), _weights_text(model, config, amounts)),
        "gradients": MemoryTerm(math.ceil(amounts.gradients), grad_text),
        "optimizer": MemoryTerm(math.ceil(amounts.optimizer), opt_text),
        "activations": MemoryTerm(math.ceil(amounts.activations), _activations_text(config, stage, amounts)),
        "kv_cache": MemoryTerm(math.ceil(amounts.kv_cache), _kv_text(model, config, stage)),
        "overhead": MemoryTerm(math.ceil(amounts.overhead), _overhead_text(amounts)),
    }


def _optimizer_text(optimizer: Optimizer, precision: Precision, per_param: float) -> str:
    if optimizer == Optimizer.ADAMW:
        if precision == Precision.FP32:
            return "AdamW m and v in fp32, 8 bytes/trainable param"
        return (
            "AdamW mixed precision: fp32 master + m + v = 12 bytes/trainable param "
            "(ZeRO paper's 16 bytes/param in all; DeepSpeed/HF count 18 with an extra fp32 copy)"
        )
    name = {Optimizer.ADAMW8BIT: "8-bit AdamW m and v (1 byte each)", Optimizer.SGD: "SGD momentum in fp32"}
    master = "" if precision == Precision.FP32 else " + fp32 master weights"
    return f"{name[optimizer]}{master} = {per_param:g} bytes/trainable param"


def _model_notes(model: ModelSpec, config: MemoryConfig, fullest: _StageAmounts) -> list[Message]:
    """Notes on which stage the figures describe, the host RAM offload needs, and what the model leaves out."""
    notes = []
    layout = config.layout
    if layout.pp > 1:
        code = "memory.first_stage_fullest" if fullest.stage == 0 else "memory.last_stage_fullest"
        notes.append(msg(code, stage=fullest.stage + 1, stages=layout.pp))
    if fullest.host_bytes:
        code = (
            "memory.offload_host_ram_all"
            if layout.offload == Offload.ALL
            else "memory.offload_host_ram_optimizer"
        )
        notes.append(msg(code, host_bytes=fullest.host_bytes))
    if model.family == "deepseek_v3" and not model.exact_params:
        notes.append(msg("memory.deepseek_without_mtp"))
    if model.family in ("gemma2", "mistral") and config.task == Task.INFERENCE:
        notes.append(msg("memory.sliding_window_full_kv"))
    return notes


def estimate_memory(model: ModelSpec, config: MemoryConfig) -> MemoryBreakdown:
    """Per-GPU memory in bytes of ``model`` under ``config``; UserError on an impossible layout.

    With pipeline parallelism the figures are those of the fuller of the first and last stage.
    """
    config = normalised(config)
    notes = _checked_notes(model, config)
    counts = param_counts(model)
    stages = _stages(model, config.layout.pp)
    amounts = [_stage_amounts(model, config, stage, counts) for stage in stages]
    fullest = max(amounts, key=lambda stage_amounts: stage_amounts.total_bytes)
    terms = _stage_terms(model, config, stages[amounts.index(fullest)], fullest)
    notes += _model_notes(model, config, fullest)
    return MemoryBreakdown(
        **terms,
        notes=render_all_en(notes),
        note_messages=tuple(notes),
        pipeline_stage=fullest.stage,
        host_offload_bytes=math.ceil(fullest.host_bytes),
        zero3_gathered_bytes=math.ceil(fullest.gathered_bytes),
    )


def estimate_total_bytes(model: ModelSpec, config: MemoryConfig) -> int:
    """estimate_memory(model, config).total_bytes without the words and notes (bytes per GPU; a few times
    faster, for search loops). UserError on an impossible layout, as estimate_memory."""
    config = normalised(config)
    _checked_notes(model, config)  # for its UserError; the notes are not wanted here
    counts = param_counts(model)
    return max(
        _stage_amounts(model, config, stage, counts).total_bytes for stage in _stages(model, config.layout.pp)
    )


def _is_count(value: object, upper: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= upper


_OFFLOAD_VALUES = frozenset(Offload.values())
_RECOMPUTE_VALUES = frozenset(Recompute.values())


def _state_allowed(layout: Layout, training: bool) -> bool:
    """validate_layout's rules that involve dp, the ZeRO stage or offload (True: allowed). The others are
    checked once per shape by MemoryTotals; together they refuse exactly what validate_layout refuses."""
    dp, zero, offload = layout.dp, layout.zero, layout.offload
    if offload not in _OFFLOAD_VALUES or not _is_count(dp, MAX_DEGREE):
        return False
    if zero not in (0, 1, 2, 3) or isinstance(zero, bool) or dp * layout.tp * layout.pp > MAX_GPUS:
        return False
    if layout.ep > 1 and (dp * layout.tp) % layout.ep:
        return False
    if training and (
        (offload == _OFFLOAD_OPTIMIZER and zero == 0) or (offload == _OFFLOAD_ALL and zero != 3)
    ):
        return False
    return True


def _variant_allowed(recompute: object, micro_batch: object) -> bool:
    """validate_layout's rules on the recompute mode and the micro-batch alone."""
    return recompute in _RECOMPUTE_VALUES and _is_count(micro_batch, MAX_MICRO_BATCH)


@dataclass(frozen=True, slots=True)
class _Shape:
    """What MemoryTotals keeps per (tp, pp, ep): the config at that shape and each candidate stage's shape."""

    config: MemoryConfig
    divisors: _Divisors
    stages: tuple[_Stage, ...]
    shapes: tuple[_StageShape, ...]


_Variant = tuple[tuple[_StageShape, _StageActivations], ...]


class MemoryTotals:
    """Per-GPU totals in bytes for many layouts of one model and one base MemoryConfig, for search loops.

    total(layout) equals estimate_memory(model, replace(base, layout=layout)).total_bytes, or is None where
    estimate_memory raises UserError. It is the same arithmetic (_stage_shape, _stage_activations,
    _stage_state), but each part is computed once for what it depends on -- (tp, pp, ep); (tp, recompute);
    (tp, pp, ep, recompute, micro-batch) -- and reused for every dp, ZeRO stage and offload mode, and no words
    are built: a search asks for thousands of such layouts.
    """

    def __init__(self, model: ModelSpec, base: MemoryConfig):
        self._model = model
        self._base = base
        self._shapes: dict[tuple[int, int, int], _Shape | None] = {}
        self._per_token: dict[tuple[int, str], tuple[float, float]] = {}
        self._variants: dict[tuple[int, int, int, str, int], _Variant | None] = {}

    def _shape(self, tp: int, pp: int, ep: int) -> _Shape | None:
        """The shape at (tp, pp, ep), or None where validate_layout refuses it.

        It is validated with a state and an activation variant that pass every rule of their own: the smallest
        dp that ep divides (dp x tp), no ZeRO, no offload, no recompute, micro-batch 1. Whatever validate_layout
        refuses with them it refuses for every state and variant; the rules on the state and the variant alone
        are _state_allowed and _variant_allowed.
        """
        key = (tp, pp, ep)
        if key not in self._shapes:
            valid_ints = all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (tp, ep))
            dp = ep // math.gcd(ep, tp) if valid_ints else 1
            probe = dataclasses.replace(self._base, layout=Layout(dp=dp, tp=tp, pp=pp, ep=ep))
            try:
                config = normalised(probe)
                _checked_notes(self._model, config)
            except UserError:
                self._shapes[key] = None
                return None
            divisors = _divisors(self._model, config.layout)  # dp-independent: tp and ep only
            counts = param_counts(self._model)
            stages = _stages(self._model, pp)
            shapes = tuple(_stage_shape(self._model, config, stage, counts, divisors) for stage in stages)
            self._shapes[key] = _Shape(config, divisors, stages, shapes)
        return self._shapes[key]

    def _variant(self, tp: int, pp: int, ep: int, recompute: str, micro_batch: int) -> _Variant | None:
        """((shape, activations) per candidate stage) at this layout and activation variant, or None."""
        at = self._shape(tp, pp, ep)
        if at is None or not _variant_allowed(recompute, micro_batch):
            return None
        mode = Recompute(recompute)
        per_token = None
        if at.config.task.is_training:
            per_token = self._per_token.get((tp, mode))
            if per_token is None:
                layout = dataclasses.replace(at.config.layout, recompute=mode)
                per_token = _per_token_activations(
                    self._model, dataclasses.replace(at.config, layout=layout), at.divisors
                )
                self._per_token[(tp, mode)] = per_token
        return tuple(
            (
                shape,
                _stage_activations(self._model, at.config, stage, at.divisors, per_token, mode, micro_batch),
            )
            for stage, shape in zip(at.stages, at.shapes, strict=True)
        )

    def total(self, layout: Layout) -> int | None:
        """Bytes per GPU of the fullest pipeline stage; None for a layout estimate_memory would refuse."""
        key = (layout.tp, layout.pp, layout.ep, layout.recompute, layout.micro_batch)
        try:
            variant = self._variants[key]
        except KeyError:
            variant = self._variants[key] = self._variant(*key)
        if variant is None or not _state_allowed(layout, variant[0][0].training):
            return None
        return max(
            _stage_state(shape, acts, layout.dp, layout.zero, layout.offload).total_bytes
            for shape, acts in variant
        )
