"""Per-GPU memory breakdown of an LLM for inference, full training, LoRA and QLoRA.

Every term is in bytes per GPU and comes with a one-line statement of its assumption. The formulas follow
DOMAIN.md (the team's shared domain notes), section 2:

- model states: the ZeRO paper (Rajbhandari et al. 2020, arXiv 1910.02054): mixed-precision AdamW keeps
  2 (bf16 weights) + 2 (bf16 gradients) + 12 (fp32 master weights, Adam m and v) = 16 bytes per parameter.
  DeepSpeed's estimators and Hugging Face's "model memory anatomy" count 18 (an extra fp32 gradient copy or an
  fp32 weight copy plus a 16-bit one); we use 16 because it is what ZeRO/Megatron/FSDP mixed precision holds
  after the gradients are cast into the fp32 master in place.
- activations: Korthikanti et al. 2022 (arXiv 2205.05198, Table 2), generalised to GQA, gated MLPs, MoE and
  MLA by counting the tensors autograd saves; no dropout (modern LLM recipes), flash attention by default.
- KV cache: 2 x layers x batch x seq x kv_heads x head_dim x bytes, divided over tensor-parallel ranks (at
  least one KV head per rank); MLA caches kv_lora_rank + qk_rope_head_dim values per token per layer.

The GPU this describes is the fullest one: with pipeline parallelism the first stage (it holds the embedding
and the most in-flight micro-batches) or the last (LM head and logits), whichever needs more.

Pure arithmetic over frozen dataclasses; cheap enough (tens of microseconds) to call in search loops.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import Message, msg, render_all_en
from planner.models import ModelSpec, ParamCounts, param_counts

TASKS = ("inference", "train", "lora", "qlora")
TASK_ALIASES = {"pretrain": "train", "finetune": "train", "fine-tune": "train", "training": "train"}
PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
OPTIMIZERS = ("adamw", "adamw8bit", "sgd")
RECOMPUTE = ("none", "selective", "full")
OFFLOAD = ("none", "optimizer", "all")
LORA_TARGETS = ("q", "k", "v", "o", "gate", "up", "down")

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
WEIGHT_BITS = {"fp32": 32.0, "bf16": 16.0, "fp16": 16.0, "fp8": 8.0, "int8": 8.0, "int4": 4.25}
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


@dataclass(frozen=True)
class MemoryConfig:
    """One explicit configuration. Sizes are counts (sequences, tokens, GPUs)."""

    task: str = "train"
    precision: str = "bf16"
    kv_precision: str | None = None  # None: the weights' precision, or 16 bit for int formats
    optimizer: str = "adamw"
    micro_batch: int = 1  # sequences per GPU per step (inference: concurrent sequences per replica)
    seq_len: int = 4096  # tokens per sequence (inference: prompt + generated tokens held in the KV cache)
    dp: int = 1
    tp: int = 1
    pp: int = 1
    ep: int = 1
    zero: int = 0
    recompute: str = "none"
    offload: str = "none"
    flash_attention: bool = True
    lora_rank: int = 16
    lora_targets: tuple[str, ...] = ("q", "k", "v", "o")
    inflight_microbatches: int | None = None  # None: pp (1F1B first stage)
    sequence_parallel: bool = False


@dataclass(frozen=True)
class MemoryTerm:
    bytes: int
    assumption: str


@dataclass(frozen=True)
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

    TERMS = ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead")

    @property
    def total_bytes(self) -> int:
        return sum(getattr(self, name).bytes for name in self.TERMS)

    @property
    def model_state_bytes(self) -> int:
        """Weights + gradients + optimizer state."""
        return self.weights.bytes + self.gradients.bytes + self.optimizer.bytes

    def as_dict(self) -> dict[str, int]:
        result = {name: getattr(self, name).bytes for name in self.TERMS}
        result["total"] = self.total_bytes
        return result

    def assumptions(self) -> dict[str, str]:
        return {name: getattr(self, name).assumption for name in self.TERMS}


# --- Validation ---------------------------------------------------------------------------------------------


def normalise_task(task: str) -> str:
    task = TASK_ALIASES.get(task, task) if isinstance(task, str) else task
    if task not in TASKS:
        raise UserError(f"unknown task {task!r}; choose one of: {', '.join(TASKS)} (or pretrain, finetune)")
    return task


def _choice(value, allowed: tuple[str, ...], what: str) -> None:
    if value not in allowed:
        raise UserError(f"unknown {what} {value!r}; choose one of: {', '.join(allowed)}")


def _count(value, what: str, upper: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise UserError(f"{what} must be a whole number, got {value!r}")
    if value <= 0:
        raise UserError(f"{what} must be positive, got {value}")
    if value > upper:
        raise UserError(f"{what} {value:,} is absurdly large (limit {upper:,})")


def validate_layout(model: ModelSpec, config: MemoryConfig) -> list[str]:
    """Raise UserError for impossible configurations; return notes for allowed but pointless ones (English)."""
    return list(render_all_en(layout_notes(model, config)))


def layout_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    """validate_layout's notes as planner.messages.Message objects (raises the same UserErrors)."""
    task = normalise_task(config.task)
    _choice(config.precision, PRECISIONS, "precision")
    if config.kv_precision is not None:
        _choice(config.kv_precision, PRECISIONS, "KV-cache precision")
    _choice(config.optimizer, OPTIMIZERS, "optimizer")
    _choice(config.recompute, RECOMPUTE, "recompute mode")
    _choice(config.offload, OFFLOAD, "offload mode")
    _count(config.micro_batch, "micro-batch", MAX_MICRO_BATCH)
    _count(config.seq_len, "sequence length", MAX_SEQ_LEN)
    for name in ("dp", "tp", "pp", "ep"):
        _count(getattr(config, name), name, MAX_DEGREE)
    if config.zero not in (0, 1, 2, 3) or isinstance(config.zero, bool):
        raise UserError(f"ZeRO stage must be 0, 1, 2 or 3, got {config.zero!r}")
    gpus = config.dp * config.tp * config.pp
    if gpus > MAX_GPUS:
        raise UserError(f"dp x tp x pp = {gpus:,} GPUs is absurdly large (limit {MAX_GPUS:,})")
    if config.inflight_microbatches is not None:
        _count(config.inflight_microbatches, "in-flight micro-batches", MAX_DEGREE)
    training = task != "inference"
    notes: list[Message] = []

    tp = config.tp
    if model.heads % tp:
        raise UserError(
            f"tensor parallel {tp} does not divide the {model.heads} attention heads of {model.name}"
        )
    if not model.uses_mla and model.kv_heads % tp and tp % model.kv_heads:
        raise UserError(
            f"tensor parallel {tp} does not divide the {model.kv_heads} KV heads of {model.name} "
            "(nor do the KV heads divide it, which would allow replicating them)"
        )
    if not model.uses_mla and tp > model.kv_heads:
        notes.append(
            msg("memory.kv_heads_replicated", tp=tp, kv_heads=model.kv_heads, replicas=tp // model.kv_heads)
        )
    if config.pp > model.layers:
        raise UserError(
            f"pipeline parallel {config.pp} is larger than the {model.layers} layers of {model.name}"
        )
    if config.ep > 1:
        if not model.is_moe:
            raise UserError(
                f"expert parallel {config.ep} needs a mixture-of-experts model; {model.name} is dense"
            )
        if model.experts % config.ep:
            raise UserError(
                f"expert parallel {config.ep} does not divide the {model.experts} experts of {model.name}"
            )
        if (config.dp * tp) % config.ep:
            raise UserError(
                f"expert parallel {config.ep} must divide dp x tp = {config.dp * tp} "
                "(expert-parallel ranks are carved out of the data- and tensor-parallel ranks)"
            )
    if model.learned_positions and config.seq_len > model.max_context:
        raise UserError(
            f"sequence length {config.seq_len} exceeds {model.name}'s {model.max_context} learned positions"
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

    if task == "train" and config.precision in ("int8", "int4"):
        raise UserError(
            f"full training in {config.precision} is not supported; use bf16/fp16/fp8/fp32, or --task qlora for a 4-bit base"
        )
    if task == "qlora" and config.precision not in ("bf16", "fp16", "fp32"):
        notes.append(msg("memory.qlora_ignores_precision", precision=config.precision))
    if task in ("lora", "qlora"):
        _count(config.lora_rank, "LoRA rank", MAX_LORA_RANK)
        if not config.lora_targets:
            raise UserError(f"LoRA needs at least one target module; choose from {', '.join(LORA_TARGETS)}")
        for target in config.lora_targets:
            _choice(target, LORA_TARGETS, "LoRA target")
    if training:
        if config.offload == "optimizer" and config.zero == 0:
            raise UserError("optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offload_optimizer)")
        if config.offload == "all" and config.zero != 3:
            raise UserError(
                "offloading parameters needs ZeRO stage 3 / FSDP full shard (DeepSpeed offload_param)"
            )
        if config.zero and config.dp == 1:
            notes.append(msg("memory.zero_with_one_rank", zero=config.zero))
        if config.pp > 1 and config.zero >= 2:
            notes.append(msg("memory.zero_with_pipeline", zero=config.zero))
        if config.kv_precision is not None:
            notes.append(msg("memory.kv_precision_training"))
    else:
        if config.zero:
            notes.append(msg("memory.zero_inference"))
        if config.offload == "optimizer":
            notes.append(msg("memory.optimizer_offload_inference"))
        if config.recompute != "none":
            notes.append(msg("memory.recompute_inference"))
    if config.sequence_parallel and tp == 1:
        notes.append(msg("memory.sequence_parallel_without_tp"))
    if training and config.recompute == "selective" and config.flash_attention:
        notes.append(msg("memory.selective_with_flash"))
    if config.inflight_microbatches is not None and config.pp == 1 and config.inflight_microbatches > 1:
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
    if precision == "fp32":
        return 4.0
    if precision == "fp8":
        return 3.0  # bf16 weights + an fp8 copy cached for the GEMMs (Transformer Engine)
    return 2.0


def _gradient_bytes(precision: str) -> float:
    return 4.0 if precision == "fp32" else 2.0


def _optimizer_bytes(optimizer: str, precision: str) -> float:
    """Optimizer state per trainable parameter; mixed precision adds the fp32 master copy (4 bytes)."""
    master = 0.0 if precision == "fp32" else 4.0
    state = {"adamw": 8.0, "adamw8bit": 2.0, "sgd": 4.0}[optimizer]  # m+v fp32; m+v int8; momentum fp32
    return master + state


def _activation_element_bytes(task: str, precision: str) -> float:
    if task == "qlora":
        return 2.0
    return 4.0 if precision == "fp32" else 2.0


def kv_element_bytes(config: MemoryConfig) -> float:
    """KV-cache bytes per value: kv_precision if given, else the weights' precision (16 bit for int formats)."""
    precision = config.kv_precision
    if precision is None:
        precision = config.precision if config.precision in ("fp32", "bf16", "fp16", "fp8") else "bf16"
    return WEIGHT_BITS[precision] / 8


# --- The estimate -------------------------------------------------------------------------------------------


def _gib(n: float) -> str:
    return f"{n / 2**30:.2f} GiB"


class _Layout:
    """Degrees and derived divisors for one configuration."""

    def __init__(self, model: ModelSpec, config: MemoryConfig, task: str):
        self.tp = config.tp
        self.dp = config.dp
        self.ep = config.ep
        # Expert tensor parallel 1 when ep > 1 (each expert whole on one rank, Megatron-Core's recommendation
        # for fine-grained MoE); with ep 1 experts are split over tp like every other matrix.
        self.expert_divisor = config.ep if config.ep > 1 else config.tp
        # ZeRO shards over the ranks that hold the same replica: dp for dense parts; for experts the
        # expert-data-parallel group dp x tp / ep.
        self.dense_shard = config.dp
        self.expert_shard = config.dp * config.tp // config.ep if config.ep > 1 else config.dp
        self.kv_heads_per_rank = max(1, model.kv_heads // config.tp)


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


def _largest_unit_params(model: ModelSpec, counts: ParamCounts, layout: _Layout) -> float:
    """Parameters per GPU of the biggest unit ZeRO-3/FSDP gathers at once (a layer, the embedding or head)."""
    layer = counts.dense_layer / layout.tp if model.layers > model.moe_layers else 0.0
    if model.is_moe:
        moe = (
            counts.moe_layer_non_expert / layout.tp + counts.routed_experts_per_layer / layout.expert_divisor
        )
        layer = max(layer, moe)
    head = (counts.lm_head or model.vocab * model.hidden) / layout.tp
    return max(layer, counts.embedding / layout.tp, head)


def _per_token_layer_activations(
    model: ModelSpec, config: MemoryConfig, task: str, layout: _Layout, moe: bool, seq_len: int
) -> float:
    """Bytes autograd keeps per token for one layer (one micro-batch), on one GPU.

    Korthikanti et al. count 34 x h bytes per token in 16 bit for a GPT layer with dropout; the same tensors
    here: each norm's input, the attention and MLP inputs, Q, K, V, the attention output, the MLP
    intermediates (4 x ffn for a gated MLP: gate, its activation, up, their product; 2 x ffn otherwise).
    """
    e = _activation_element_bytes(task, config.precision)
    h = model.hidden
    tp = layout.tp
    replicated = (model.norms_per_layer + 2) * e * h  # norm inputs + attention input + MLP input
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        latent = e * (2 * model.q_lora_rank + 2 * model.kv_lora_rank + model.qk_rope_head_dim)
        attention = e * model.heads * (2 * qk_head + 2 * model.v_head_dim) / tp + latent
        heads_per_rank = model.heads / tp
    else:
        q_width = model.heads * model.head_dim / tp
        kv_width = layout.kv_heads_per_rank * model.head_dim
        attention = e * (2 * q_width + 2 * kv_width)  # Q, attention output; K, V
        heads_per_rank = model.heads / tp
    if config.flash_attention:
        attention += LSE_BYTES * heads_per_rank
    else:
        if not model.uses_mla and model.kv_heads < model.heads:
            # unfused attention expands K and V to every query head (HF's repeat_kv, Megatron's core attention)
            attention += 2 * e * (heads_per_rank - layout.kv_heads_per_rank) * model.head_dim
        if config.recompute == "none":
            attention += (
                e * heads_per_rank * seq_len
            )  # softmax probabilities, a x s per token (Korthikanti's 5as/h)
    mlp_factor = 4 if model.gated_mlp else 2
    if moe:
        shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        k = model.experts_per_token
        mlp = (k * (2 * e * h + mlp_factor * e * model.moe_ffn) + mlp_factor * e * shared_ffn) / tp
        replicated += ROUTER_BYTES_PER_VALUE * model.experts
    else:
        mlp = mlp_factor * e * model.ffn / tp
    if task in ("lora", "qlora"):
        # each adapter keeps its down-projected input (r values) for the up-projection's backward
        adapted = sum(1 for t in config.lora_targets if t in ("q", "k", "v", "o")) + (
            sum(1 for t in config.lora_targets if t in ("gate", "up", "down"))
            * (model.experts_per_token or 1)
        )
        mlp += adapted * e * config.lora_rank / tp
    sp_divisor = tp if config.sequence_parallel else 1
    return replicated / sp_divisor + attention + mlp


def _inference_working_bytes(model: ModelSpec, config: MemoryConfig, layout: _Layout, seq_len: int) -> float:
    """Largest transient of one layer's forward without autograd, per token: the layer's input (still held by
    the caller), the updated residual stream and its normalised copy, plus the attention tensors or the MLP
    intermediates (gate activation, up, their product), whichever is larger."""
    e = 2.0 if config.precision != "fp32" else 4.0
    h = model.hidden
    tp = layout.tp
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
            2 * model.heads * model.head_dim / tp + 2 * layout.kv_heads_per_rank * model.head_dim
        )
    if not config.flash_attention:
        attention += 3 * e * model.heads / tp * seq_len  # scores, masked scores, probabilities
        if not model.uses_mla and model.kv_heads < model.heads:
            attention += (
                2 * e * (model.heads / tp - layout.kv_heads_per_rank) * model.head_dim
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


class _StageAmounts:
    """Bytes of one pipeline stage's GPU by term, before rounding up, plus the figures its words quote.

    Numbers and words are kept apart so that search loops, which only need totals, skip the words.
    """

    __slots__ = (
        "stage", "weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "host_bytes",
        "gathered_bytes", "params_gpu", "gathered_weights", "streamed_weights", "adapter_params", "logits",
        "inflight", "communicators",
    )  # fmt: skip

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


class _StageShape:
    """What one stage's GPU holds given tp, pp and ep only: parameter counts per GPU and bytes per parameter.
    _stage_activations adds what the micro-batch and recompute mode hold, _stage_state the sharded model states
    (dp, ZeRO stage, offload) and the overhead."""

    __slots__ = (
        "stage", "training", "full_training", "qlora", "inference", "tp", "pp", "ep", "params_gpu",
        "dense_params_gpu", "expert_params_gpu", "stored_weights", "bytes_per_param", "largest",
        "qlora_workspace", "lora", "adapter_dense", "adapter_expert", "adapter_bytes", "trainable_dense",
        "trainable_expert", "grad_per", "opt_per",
    )  # fmt: skip


class _StageActivations:
    """Bytes one stage's GPU holds for the micro-batch in flight: activations (logits included), KV cache."""

    __slots__ = ("activations", "logits", "inflight", "kv_cache")


def _stage_shape(
    model: ModelSpec, config: MemoryConfig, task: str, stage: _Stage, counts: ParamCounts, layout: _Layout
) -> _StageShape:
    """The numbers of one stage that depend on tp, pp and ep only (not on config.dp, zero, offload, recompute
    or micro_batch; of `layout` only the tp- and ep-derived fields are read)."""
    training = task != "inference"
    tp, pp = config.tp, config.pp
    out = _StageShape()
    out.stage, out.training, out.full_training = stage.index, training, task == "train"
    out.qlora, out.inference, out.lora = task == "qlora", task == "inference", task in ("lora", "qlora")
    out.tp, out.pp, out.ep = tp, pp, config.ep
    blocks, experts, ends = _stage_params(model, counts, stage, pp)
    small = stage.layers * counts.small_per_layer  # the final norm is already part of `ends`
    dense_params_gpu = (blocks + ends) / tp
    expert_params_gpu = experts / layout.expert_divisor
    params_gpu = dense_params_gpu + expert_params_gpu
    # Parameters kept at 16 bit even when the linear layers are quantised: embedding, head, norms, biases.
    high_precision_gpu = (ends + small) / tp
    out.params_gpu, out.dense_params_gpu, out.expert_params_gpu = (
        params_gpu,
        dense_params_gpu,
        expert_params_gpu,
    )

    # --- weights
    out.largest = _largest_unit_params(model, counts, layout)
    if task == "train":
        bytes_per_param = _training_weight_bytes(config.precision)
        stored = params_gpu * bytes_per_param
    else:
        bits = NF4_BITS if task == "qlora" else WEIGHT_BITS[config.precision]
        low = bits < 16
        linear_gpu = params_gpu - (high_precision_gpu if low else 0.0)
        stored = linear_gpu * bits / 8 + (high_precision_gpu * 2 if low else 0.0)
        bytes_per_param = stored / params_gpu if params_gpu else 0.0
    out.stored_weights, out.bytes_per_param = stored, bytes_per_param
    out.qlora_workspace = 0.0
    if task == "qlora":
        # bitsandbytes dequantises one matrix at a time to bf16 for the matmul
        widest = max(model.ffn, model.moe_ffn, model.heads * max(model.head_dim, model.v_head_dim))
        out.qlora_workspace = model.hidden * widest / tp * 2

    # --- trainable parameters (full model, or LoRA adapters)
    out.adapter_dense = out.adapter_expert = out.adapter_bytes = 0.0
    if task in ("lora", "qlora"):
        per_dense, per_moe, per_routed = _lora_params_per_layer(model, config.lora_rank, config.lora_targets)
        out.adapter_dense = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) / tp
        out.adapter_expert = stage.moe_layers * per_routed / layout.expert_divisor
        out.adapter_bytes = _training_weight_bytes("fp32" if config.precision == "fp32" else "bf16")
        out.trainable_dense, out.trainable_expert = out.adapter_dense, out.adapter_expert
    elif task == "train":
        out.trainable_dense, out.trainable_expert = dense_params_gpu, expert_params_gpu
    else:
        out.trainable_dense = out.trainable_expert = 0.0
    out.grad_per = out.opt_per = 0.0
    if training:
        precision = "fp32" if config.precision == "fp32" else "bf16"
        out.grad_per = _gradient_bytes(precision)
        out.opt_per = _optimizer_bytes(config.optimizer, precision)

    return out


def _per_token_activations(
    model: ModelSpec, config: MemoryConfig, task: str, layout: _Layout
) -> tuple[float, float]:
    """(dense layer, MoE layer) activation bytes per token in training; they depend on tp and the recompute mode
    (only without flash attention), not on pp, ep, dp or the micro-batch."""
    per_dense = _per_token_layer_activations(model, config, task, layout, False, config.seq_len)
    per_moe = (
        _per_token_layer_activations(model, config, task, layout, True, config.seq_len)
        if model.is_moe
        else 0.0
    )
    return per_dense, per_moe


def _stage_activations(
    model: ModelSpec,
    config: MemoryConfig,
    task: str,
    stage: _Stage,
    layout: _Layout,
    per_token: tuple[float, float] | None,
    recompute: str,
    micro_batch: int,
) -> _StageActivations:
    """Activations and KV cache of one stage at `micro_batch` sequences with `recompute` (these two are read
    from the arguments, the rest from config); per_token: _per_token_activations (training only)."""
    training = task != "inference"
    tp, pp = config.tp, config.pp
    tokens = micro_batch * config.seq_len
    e = _activation_element_bytes(task, config.precision)
    inflight = 1
    logits = 0.0
    if training:
        per_dense, per_moe = per_token
        if stage.index == 0 and pp > 1:
            inflight = config.inflight_microbatches or pp
        elif config.inflight_microbatches and pp > 1:
            inflight = max(1, min(config.inflight_microbatches, pp - stage.index))
        sp_divisor = tp if config.sequence_parallel else 1
        if recompute == "full":
            kept = stage.layers * e * model.hidden / sp_divisor * tokens * inflight
            working = max(per_dense, per_moe) * tokens
            activations = kept + working
        else:
            activations = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) * tokens * inflight
        if stage.has_head:
            logits = tokens * (LOGITS_BYTES_PER_VALUE * model.vocab / tp + 2 * e * model.hidden / sp_divisor)
            activations += logits
    else:
        working = _inference_working_bytes(model, config, layout, config.seq_len) * tokens
        logits = micro_batch * LOGITS_BYTES_PER_VALUE * model.vocab / tp if stage.has_head else 0.0
        activations = working + logits

    # --- KV cache
    kv = 0.0
    if task == "inference":
        kv_bytes = kv_element_bytes(config)
        if model.uses_mla:
            per_token_layer = (model.kv_lora_rank + model.qk_rope_head_dim) * kv_bytes
        else:
            per_token_layer = 2 * layout.kv_heads_per_rank * model.head_dim * kv_bytes
        kv = stage.layers * tokens * per_token_layer
    out = _StageActivations()
    out.activations, out.logits, out.inflight, out.kv_cache = activations, logits, inflight, kv
    return out


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
    out = _StageAmounts()
    out.stage = shape.stage
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
        if offload == "all":
            host += shard
            weights = gathered_weights
        else:
            weights = shard + gathered_weights
    elif shape.inference and offload == "all":
        host += weights
        weights = streamed_weights = largest * bytes_per_param
    if shape.qlora:
        weights += shape.qlora_workspace
    if shape.lora:
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
        if offload in ("optimizer", "all"):
            host += optimizer
            optimizer = 0.0

    # --- overhead
    communicators = (
        (dp > 1 and training) + (shape.tp > 1) + (shape.pp > 1) + (ep > 1)
    )  # one NCCL communicator per parallel group
    dynamic = gradients + acts.activations + acts.kv_cache  # allocated and freed step by step: fragmentation
    overhead = (
        CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic + communicators * NCCL_BYTES_PER_COMMUNICATOR
    )

    out.weights, out.gradients, out.optimizer = weights, gradients, optimizer
    out.activations, out.kv_cache, out.overhead = acts.activations, acts.kv_cache, overhead
    out.host_bytes, out.gathered_bytes = host, gathered_total
    out.params_gpu, out.gathered_weights, out.streamed_weights = (
        shape.params_gpu,
        gathered_weights,
        streamed_weights,
    )
    out.adapter_params = shape.adapter_dense + shape.adapter_expert
    out.logits, out.inflight, out.communicators = acts.logits, acts.inflight, communicators
    return out


def _stage_amounts(
    model: ModelSpec, config: MemoryConfig, task: str, stage: _Stage, counts: ParamCounts
) -> _StageAmounts:
    """The numbers of one stage (bytes per GPU); _stage_terms puts them into words."""
    layout = _Layout(model, config, task)
    shape = _stage_shape(model, config, task, stage, counts, layout)
    per_token = _per_token_activations(model, config, task, layout) if task != "inference" else None
    acts = _stage_activations(
        model, config, task, stage, layout, per_token, config.recompute, config.micro_batch
    )
    return _stage_state(shape, acts, config.dp, config.zero, config.offload)


def _stage_terms(
    model: ModelSpec, config: MemoryConfig, task: str, stage: _Stage, amounts: _StageAmounts
) -> dict[str, MemoryTerm]:
    """Each term of one stage in bytes (rounded up) with the one-line assumption behind it."""
    training = task != "inference"
    zero = config.zero if training else 0
    offload = config.offload

    # --- weights
    if task == "train":
        per_param = _training_weight_bytes(config.precision)
        stored_text = f"{per_param:g} bytes/param ({config.precision} working copy)"
    else:
        if task == "qlora":
            bits, storage_name = NF4_BITS, f"NF4 {NF4_BITS} bits/param with double quantisation (QLoRA paper)"
        else:
            bits = WEIGHT_BITS[config.precision]
            storage_name = f"{config.precision} {bits:g} bits/param"
            if config.precision == "int4":
                storage_name += " (group-128 fp16 scale + zero)"
        stored_text = storage_name + ("; embeddings, head, norms, biases 16 bit" if bits < 16 else "")
    weights_text = f"{amounts.params_gpu / 1e9:.3g}B params on this GPU x {stored_text}"
    if zero == 3:
        gathered = _gib(amounts.gathered_weights)
        if offload == "all":
            weights_text = f"ZeRO-3 params offloaded to CPU; GPU holds one gathered layer ({gathered})"
        else:
            weights_text += f"; ZeRO-3 shards over dp {config.dp} + one gathered layer ({gathered})"
    elif task == "inference" and offload == "all":
        weights_text = (
            f"weights in CPU RAM, streamed one layer at a time ({_gib(amounts.streamed_weights)} on the GPU)"
        )
    if task == "qlora":
        weights_text += "; + one matrix dequantised to bf16"
    if task in ("lora", "qlora"):
        weights_text += (
            f"; frozen base + {amounts.adapter_params / 1e6:.3g}M LoRA params (rank {config.lora_rank})"
        )

    # --- gradients and optimizer
    grad_text = "none: inference"
    opt_text = "none: inference"
    if training:
        precision = "fp32" if config.precision == "fp32" else "bf16"
        grad_text = f"{_gradient_bytes(precision):g} bytes/trainable param"
        if zero >= 2:
            grad_text += f", ZeRO-{zero} sharded over dp {config.dp}"
        if zero == 3 and task == "train":
            grad_text += " + one layer unsharded before reduce-scatter"
        opt_text = _optimizer_text(config.optimizer, precision, _optimizer_bytes(config.optimizer, precision))
        if zero >= 1:
            opt_text += f", ZeRO-{zero} sharded over dp {config.dp}"
        if offload in ("optimizer", "all"):
            opt_text += "; offloaded to CPU RAM"

    # --- activations
    if training:
        if config.recompute == "full":
            act_text = "full recompute: each layer's input kept + one layer's activations while recomputing"
        else:
            kind = "flash attention" if config.flash_attention else "scores stored"
            if not config.flash_attention and config.recompute == "selective":
                kind = "selective recompute of attention"
            act_text = f"Korthikanti et al. per-layer tensors ({kind}, no dropout)"
        if amounts.inflight > 1:
            act_text += f", {amounts.inflight} micro-batches in flight (1F1B)"
        if stage.has_head:
            act_text += f"; fp32 logits s x b x V ({_gib(amounts.logits)})"
    else:
        act_text = "prefill of micro-batch x seq_len tokens at once, one layer's transient tensors"
        if stage.has_head:
            act_text += " + fp32 logits of the last position"

    # --- KV cache
    kv_text = "none: training does not keep a KV cache"
    if task == "inference":
        kv_bytes = kv_element_bytes(config)
        if model.uses_mla:
            kv_text = (
                f"MLA latent (kv_lora_rank {model.kv_lora_rank} + rope {model.qk_rope_head_dim}) x {kv_bytes:g} bytes "
                f"per token per layer, replicated on each tp rank"
            )
        else:
            kv_text = (
                f"2 x {stage.layers} layers x {config.micro_batch} x {config.seq_len} tokens x "
                f"{max(1, model.kv_heads // config.tp)} KV heads x {model.head_dim} x {kv_bytes:g} bytes"
            )

    # --- overhead
    overhead_text = (
        f"CUDA context {CUDA_CONTEXT_BYTES // 2**20} MiB (HF measured) + {ALLOCATOR_MARGIN_FRACTION:.0%} allocator "
        "margin on gradients, activations and KV cache"
    )
    if amounts.communicators:
        overhead_text += (
            f" + {amounts.communicators} NCCL communicator(s) x {NCCL_BYTES_PER_COMMUNICATOR // 2**20} MiB"
        )

    return {
        "weights": MemoryTerm(math.ceil(amounts.weights), weights_text),
        "gradients": MemoryTerm(math.ceil(amounts.gradients), grad_text),
        "optimizer": MemoryTerm(math.ceil(amounts.optimizer), opt_text),
        "activations": MemoryTerm(math.ceil(amounts.activations), act_text),
        "kv_cache": MemoryTerm(math.ceil(amounts.kv_cache), kv_text),
        "overhead": MemoryTerm(math.ceil(amounts.overhead), overhead_text),
    }


def _optimizer_text(optimizer: str, precision: str, per_param: float) -> str:
    if optimizer == "adamw":
        if precision == "fp32":
            return "AdamW m and v in fp32, 8 bytes/trainable param"
        return (
            "AdamW mixed precision: fp32 master + m + v = 12 bytes/trainable param "
            "(ZeRO paper's 16 bytes/param in all; DeepSpeed/HF count 18 with an extra fp32 copy)"
        )
    name = {"adamw8bit": "8-bit AdamW m and v (1 byte each)", "sgd": "SGD momentum in fp32"}[optimizer]
    master = "" if precision == "fp32" else " + fp32 master weights"
    return f"{name}{master} = {per_param:g} bytes/trainable param"


def estimate_memory(model: ModelSpec, config: MemoryConfig) -> MemoryBreakdown:
    """Per-GPU memory in bytes of ``model`` under ``config``; UserError on an impossible layout.

    With pipeline parallelism the figures are those of the fuller of the first and last stage.
    """
    notes = layout_notes(model, config)
    task = normalise_task(config.task)
    counts = param_counts(model)
    stages = _stages(model, config.pp)
    amounts = [_stage_amounts(model, config, task, stage, counts) for stage in stages]
    fullest = max(amounts, key=lambda stage_amounts: stage_amounts.total_bytes)
    terms = _stage_terms(model, config, task, stages[amounts.index(fullest)], fullest)
    if config.pp > 1:
        code = "memory.first_stage_fullest" if fullest.stage == 0 else "memory.last_stage_fullest"
        notes.append(msg(code, stage=fullest.stage + 1, stages=config.pp))
    if fullest.host_bytes:
        code = f"memory.offload_host_ram_{config.offload}"  # optimizer | all
        notes.append(msg(code, host_bytes=fullest.host_bytes))
    if model.family == "deepseek_v3" and not model.exact_params:
        notes.append(msg("memory.deepseek_without_mtp"))
    if model.family in ("gemma2", "mistral") and task == "inference":
        notes.append(msg("memory.sliding_window_full_kv"))
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
    layout_notes(model, config)  # for its UserError; the notes are not wanted here
    task = normalise_task(config.task)
    counts = param_counts(model)
    return max(
        _stage_amounts(model, config, task, stage, counts).total_bytes for stage in _stages(model, config.pp)
    )


def _check_state(tp, pp, ep, dp, zero, offload, training: bool) -> bool:
    """validate_layout's rules that involve dp, the ZeRO stage or offload (True: allowed). The others are
    checked once per shape by MemoryTotals; together they refuse exactly what validate_layout refuses."""
    if offload not in OFFLOAD or isinstance(dp, bool) or not isinstance(dp, int) or not 0 < dp <= MAX_DEGREE:
        return False
    if zero not in (0, 1, 2, 3) or isinstance(zero, bool) or dp * tp * pp > MAX_GPUS:
        return False
    if ep > 1 and (dp * tp) % ep:
        return False
    if training and ((offload == "optimizer" and zero == 0) or (offload == "all" and zero != 3)):
        return False
    return True


class MemoryTotals:
    """Per-GPU totals in bytes for many layouts of one model and one base MemoryConfig, for search loops.

    total(tp, pp, ep, dp, zero, offload, recompute, micro_batch) equals
    estimate_memory(model, replace(base, tp=tp, ...)).total_bytes, or is None where estimate_memory raises
    UserError. It is the same arithmetic (_stage_shape, _stage_activations, _stage_state), but each part is
    computed once for what it depends on -- (tp, pp, ep); (tp, recompute); (tp, pp, ep, recompute, micro-batch)
    -- and reused for every dp, ZeRO stage and offload mode, and no words are built: a search asks for thousands
    of such layouts.
    """

    def __init__(self, model: ModelSpec, base: MemoryConfig):
        self._model = model
        self._base = base
        self._layouts: dict[tuple, tuple | None] = {}
        self._per_token: dict[tuple, tuple[float, float]] = {}
        self._variants: dict[tuple, tuple | None] = {}

    def _layout(self, tp, pp, ep) -> tuple | None:
        """(config, layout, task, stages, shapes) at (tp, pp, ep), or None where validate_layout refuses it.

        It is validated with a state and an activation variant that pass every rule of their own: the smallest
        dp that ep divides (dp x tp), no ZeRO, no offload, no recompute, micro-batch 1. Whatever validate_layout
        refuses with them it refuses for every state and variant; the rules on the state and the variant alone
        are _check_state and _variant_valid.
        """
        key = (tp, pp, ep)
        if key not in self._layouts:
            import dataclasses

            valid_ints = all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (tp, ep))
            dp = ep // math.gcd(ep, tp) if valid_ints else 1
            probe = dataclasses.replace(
                self._base,
                tp=tp,
                pp=pp,
                ep=ep,
                recompute="none",
                micro_batch=1,
                dp=dp,
                zero=0,
                offload="none",
            )
            try:
                layout_notes(self._model, probe)
            except UserError:
                self._layouts[key] = None
                return None
            config = dataclasses.replace(self._base, tp=tp, pp=pp, ep=ep)
            task = normalise_task(config.task)
            counts = param_counts(self._model)
            layout = _Layout(self._model, config, task)  # its dp-derived shards are never read from here
            stages = _stages(self._model, pp)
            shapes = tuple(_stage_shape(self._model, config, task, stage, counts, layout) for stage in stages)
            self._layouts[key] = (config, layout, task, stages, shapes)
        return self._layouts[key]

    @staticmethod
    def _variant_valid(recompute, micro_batch) -> bool:
        """validate_layout's rules on the recompute mode and the micro-batch alone."""
        return (
            recompute in RECOMPUTE
            and isinstance(micro_batch, int)
            and not isinstance(micro_batch, bool)
            and 0 < micro_batch <= MAX_MICRO_BATCH
        )

    def _variant(self, tp, pp, ep, recompute, micro_batch) -> tuple | None:
        """((shape, activations) per candidate stage) at this layout and activation variant, or None."""
        at = self._layout(tp, pp, ep)
        if at is None or not self._variant_valid(recompute, micro_batch):
            return None
        config, layout, task, stages, shapes = at
        per_token = None
        if task != "inference":
            per_token = self._per_token.get((tp, recompute))
            if per_token is None:
                import dataclasses

                with_recompute = dataclasses.replace(config, recompute=recompute)
                per_token = _per_token_activations(self._model, with_recompute, task, layout)
                self._per_token[(tp, recompute)] = per_token
        return tuple(
            (
                shape,
                _stage_activations(
                    self._model, config, task, stage, layout, per_token, recompute, micro_batch
                ),
            )
            for stage, shape in zip(stages, shapes, strict=True)
        )

    def total(self, tp, pp, ep, dp, zero, offload, recompute, micro_batch) -> int | None:
        """Bytes per GPU of the fullest pipeline stage; None for a layout estimate_memory would refuse."""
        key = (tp, pp, ep, recompute, micro_batch)
        try:
            variant = self._variants[key]
        except KeyError:
            variant = self._variants[key] = self._variant(tp, pp, ep, recompute, micro_batch)
        if variant is None or not _check_state(tp, pp, ep, dp, zero, offload, variant[0][0].training):
            return None
        return max(_stage_state(shape, acts, dp, zero, offload).total_bytes for shape, acts in variant)
