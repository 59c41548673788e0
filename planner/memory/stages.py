"""The arithmetic of one pipeline stage's GPU, in bytes: parameters per GPU and bytes per value, the
activations of the micro-batches in flight and the KV cache, then the sharded model states and the overhead.

Numbers only (the words are planner.memory.words); the parts that depend on fewer layout fields are computed
separately so that planner.memory.estimate.MemoryTotals can reuse them across a search."""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Sequence
from typing import NamedTuple

from planner.memory.config import (
    ALLOCATOR_MARGIN_FRACTION,
    CUDA_CONTEXT_BYTES,
    NCCL_BYTES_PER_COMMUNICATOR,
    NF4_BITS,
    WEIGHT_BITS,
    MemoryConfig,
)
from planner.memory.deepspeed_states import deepspeed_bucket_elements, deepspeed_figures
from planner.memory.divisors import Divisors, divisors_of
from planner.memory.element_bytes import (
    MASTER_BYTES,
    MEGATRON_GRADIENT_BYTES,
    MEGATRON_WEIGHT_BYTES,
    OPTIMIZER_STATE_BYTES,
    compute_bytes,
    deepspeed_counted,
    gradient_bytes,
    master_precision,
    optimizer_bytes,
    training_weight_bytes,
)
from planner.memory.pipeline_stages import Stage
from planner.memory.runtimes import chosen_runtime
from planner.memory.shapes import StageShape
from planner.memory.stage_activations import StageActivations, per_token_activations, stage_activations
from planner.models import ModelSpec, ParamCounts, fused_gate_up, gate_in_q_proj, lora_module_names
from planner.models.kv_cache import NONE, STATE, layer_kinds
from planner.models.lora_modules import peft_fused_experts
from planner.models.spec import idle_attention_params, kv_shared, mixer_difference, mlpless_layers
from planner.vocabulary import Offload, Runtime, Task


@functools.lru_cache(maxsize=8192)
def lora_params_per_layer(model: ModelSpec, rank: int, targets: tuple[str, ...]) -> tuple[int, int, int]:
    """(adapter params in a dense layer, in an MoE layer outside routed experts, in all routed experts of one
    MoE layer, plus the number of adapted matrices a token passes in a dense layer) -- r x (d_in + d_out) each."""
    h = model.hidden
    chosen = set(targets)
    attention = 0
    if model.uses_mla:
        # the modules peft wraps (transformers' DeepseekV2/V3 attention): q -> q_proj, or q_a_proj and q_b_proj
        # with a low-rank query; k -> kv_a_proj_with_mqa (to the latent and the shared rotary key); v ->
        # kv_b_proj (the latent decompressed to every head's K-nope and V); o -> o_proj
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        if "q" in chosen and model.q_lora_rank:
            attention += rank * (h + model.q_lora_rank) + rank * (model.q_lora_rank + model.heads * qk_head)
        elif "q" in chosen:
            attention += rank * (h + model.heads * qk_head)
        if "k" in chosen:
            attention += rank * (h + model.kv_lora_rank + model.qk_rope_head_dim)
        if "v" in chosen:
            attention += rank * (
                model.kv_lora_rank + model.heads * (model.qk_nope_head_dim + model.v_head_dim)
            )
        if "o" in chosen:
            attention += rank * (model.heads * model.v_head_dim + h)
    else:
        widths = {"q": model.heads * model.head_dim, "k": model.kv_heads * model.head_dim}
        widths["v"] = widths["k"]
        widths["o"] = widths["q"]
        if model.attn_output_gate and gate_in_q_proj(model.family):
            widths["q"] *= 2  # q_proj also yields the output gate
        # one adapter per module: targets that share one (gpt2's c_attn, gpt_neox's query_key_value, jetmoe's
        # kv_proj) are one adapter as wide as all of them; a target the type has no Linear for (jetmoe's
        # per-expert q and o) none
        names = lora_module_names(model.family)
        modules: dict[tuple[str, ...], int] = {}  # a module's output: all the targets it yields
        for target in ("q", "k", "v", "o"):
            if names.get(target):
                modules[names[target]] = modules.get(names[target], 0) + widths[target]
        adapted = {names[target] for target in chosen & {"q", "k", "v", "o"} if names.get(target)}
        attention += sum(rank * (h + modules[module]) for module in adapted)

    experts_fused = peft_fused_experts(model.family)

    def mlp(ffn: int) -> int:
        if experts_fused:  # peft adapts the experts' fused parameters only, no dense MLP or shared expert
            return 0
        matrices = [t for t in ("gate", "up", "down") if t in chosen and (model.gated_mlp or t != "gate")]
        if fused_gate_up(model.family) and chosen & {"gate", "up"}:
            # phi3's gate_up_proj: one adapter, hidden -> 2 x ffn
            return (rank * (h + 2 * ffn) + ("down" in chosen) * rank * (ffn + h)) if ffn else 0
        return len(matrices) * rank * (h + ffn) if ffn else 0

    shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
    dense_layer = attention + mlp(model.ffn)
    moe_non_expert = attention + mlp(shared_ffn)
    if model.is_moe and model.shared_expert_gate and not shared_ffn and not experts_fused:
        # qwen2_moe and kin build their shared expert even 0 wide: peft still adds r x hidden to each matrix
        moe_non_expert += sum(rank * h for t in ("gate", "up", "down") if t in chosen)
    # transformers 5 fuses the experts into parameters: peft adapts them only for PEFT_FUSED_EXPERTS types, each
    # expert a rank-2r adapter on gate_up_proj (gate and up together) and a rank-r one on down_proj
    routed = 0
    if model.is_moe and experts_fused:
        gate_up = 2 * rank * (h + 2 * model.moe_ffn) if chosen & {"gate", "up"} else 0
        down = rank * (model.moe_ffn + h) if "down" in chosen else 0
        # longcat_flash: transformers' gate_up_proj also has rows for the zero-compute experts, adapted too
        routed = (model.experts + model.zero_experts) * gate_up + model.experts * down
    return dense_layer, moe_non_expert, routed


def _per_layer_adapters(model: ModelSpec, config: MemoryConfig, layers: Sequence[int]) -> int:
    """gemma3n: what its layers' own shapes change in the adapters: a layer reading an earlier layer's keys and
    values has no k_proj / v_proj to adapt, a layer of its own MLP width adapts that width."""
    rank, targets = config.lora_rank, config.lora_targets
    key_value = tuple(target for target in targets if target in ("k", "v"))
    change = (
        -len(kv_shared(model, layers)) * lora_params_per_layer(model, rank, key_value)[0] if key_value else 0
    )
    mlp = tuple(target for target in targets if target in ("gate", "up", "down"))
    if model.ffn_widths and mlp:
        uniform = lora_params_per_layer(model, rank, mlp)[0]
        for i in layers:
            own = dataclasses.replace(model, ffn=model.ffn_widths[i], ffn_widths=())
            change += lora_params_per_layer(own, rank, mlp)[0] - uniform
    return change


# --- Bytes per value: mixed precision as PyTorch runs it (torch.amp autocast under HF Trainer / accelerate, FSDP2's
# MixedPrecisionPolicy): the weights, their gradients and AdamW's m and v stay fp32 (4 + 4 + 8 bytes/param) and
# the matmuls run on 16-bit copies. DeepSpeed's bf16 optimizer splits the same 16 bytes as 2 + 2 + 12.
# --- The estimate -------------------------------------------------------------------------------------------


def _stage_params(model: ModelSpec, counts: ParamCounts, stage: Stage, pp: int) -> tuple[int, int, int]:
    """(non-expert block params, routed-expert params, embedding/head/final-norm params) of one stage."""
    blocks = stage.dense_layers * counts.dense_layer + stage.moe_layers * counts.moe_layer_non_expert
    blocks += mixer_difference(model, counts.attention, stage.layer_indices)  # state-space layers' own mixers
    blocks += len(stage.layer_indices) * idle_attention_params(model)  # jetmoe's attention experts
    blocks -= (
        mlpless_layers(model, stage.layer_indices) * counts.dense_mlp
    )  # nemotron_h: mixing layers' absent MLP
    experts = stage.moe_layers * counts.routed_experts_per_layer
    ends = 0
    if stage.has_embedding:
        ends += counts.embedding
    if stage.has_head:
        ends += counts.final_norm + counts.lm_head
        if model.tied_embeddings and pp > 1:
            ends += model.vocab * model.hidden  # the last stage keeps its own copy of the tied matrix
    return blocks, experts, ends


def _fsdp_units(model: ModelSpec, counts: ParamCounts, divisors: Divisors) -> tuple[float, float]:
    """Parameters per GPU of FSDP2's units with the common wrapping (each decoder layer, then the root): (the
    largest layer, the root: embedding, final norm and LM head gathered together)."""
    layer = counts.dense_layer / divisors.tp if model.layers > model.moe_layers else 0.0
    if model.is_moe:
        moe = (
            counts.moe_layer_non_expert / divisors.tp
            + counts.routed_experts_per_layer / divisors.expert_divisor
        )
        layer = max(layer, moe)
    root = (counts.embedding + counts.final_norm + counts.lm_head) / divisors.tp
    return layer, root


# Training activations follow what autograd saves in Hugging Face transformers' decoder layers (checked tensor by
# tensor against torch on CPU, tests/planner/test_memory_vs_torch.py): HF's RMSNorm computes in fp32 and keeps its
# fp32 input and normalised value; LayerNorm keeps its fp32 input; a Linear keeps its input when its weight
# trains, and under autocast each Linear keeps its own 16-bit copy of it; flash attention (SDPA) keeps Q, K, V,
# its output and an fp32 log-sum-exp per head; eager attention keeps Q, K and V expanded to every head, the
# probabilities (and their fp32 softmax under autocast); no dropout (modern recipes; GPT-2's default 0.1 adds masks).


def autocast_weight_copies(model: ModelSpec, counts: ParamCounts, stage: Stage, tp: int) -> float:
    """Bytes of the 16-bit weight copies autocast makes in the forward pass and autograd keeps until each layer's
    backward: every Linear weight of the stage (routed experts run outside autocast), the LM head included."""
    params = stage.dense_layers * counts.linear_weights_dense_layer
    params += stage.moe_layers * counts.linear_weights_moe_layer
    if stage.has_head:
        params += model.vocab * model.hidden
    return 2.0 * params / tp


class StageAmounts(NamedTuple):
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
    inflight: float
    communicators: int
    not_concurrent: int  # bytes of gradients and activations that are never held at the same time
    autocast_copies: float  # part of activations: autocast's 16-bit weight copies
    peak_phase: str  # when the step peaks: "forward", "backward" or "optimizer step"
    runtime: str  # the runtime counted (planner.memory.runtimes.chosen_runtime); "" for inference or none

    @property
    def total_bytes(self) -> int:
        """The step's peak per GPU as MemoryBreakdown.total_bytes counts it: each term rounded up on its own,
        less what is never held at once."""
        ceil = math.ceil
        return (
            ceil(self.weights)
            + ceil(self.gradients)
            + ceil(self.optimizer)
            + ceil(self.activations)
            + ceil(self.kv_cache)
            + ceil(self.overhead)
            - self.not_concurrent
        )


def _largest_module(model: ModelSpec, counts: ParamCounts, divisors: Divisors) -> float:
    """Parameters per GPU of the largest single module of the model (its own parameters, not its children's):
    the embedding or LM head, an MLP projection, or a MoE layer's fused experts (transformers 5 keeps a layer's
    routed experts in one module). DeepSpeed's ZeRO-3 estimator counts its 16-bit weights and gradients."""
    h = model.hidden
    candidates = [model.vocab * h / divisors.tp, h * max(model.ffn, model.moe_ffn) / divisors.tp]
    candidates.append(h * model.heads * max(model.head_dim, model.v_head_dim) / divisors.tp)
    if model.is_moe:
        candidates.append(counts.routed_experts_per_layer / divisors.expert_divisor)
    return max(candidates)


def _largest_adapter(model: ModelSpec, config: MemoryConfig) -> float:
    """Parameters of a LoRA adapter's widest matrix (r x its input or output width), at most."""
    mlp = model.ffn if {"gate", "up", "down"} & set(config.lora_targets) else 0
    return config.lora_rank * max(model.hidden, model.heads * max(model.head_dim, model.v_head_dim), mlp)


def _stored_weights(
    model: ModelSpec, config: MemoryConfig, params_gpu: float, high_precision_gpu: float
) -> tuple[float, float]:
    """(weight bytes on this GPU, bytes per parameter): a training working copy, or the stored format, where
    embedding, head, norms and biases stay 16 bit beside quantised linear layers."""
    if config.task.is_full_training:
        bytes_per_param = training_weight_bytes(config.precision)
        return params_gpu * bytes_per_param, bytes_per_param
    bits = NF4_BITS if config.task == Task.QLORA else (config.weight_bits or WEIGHT_BITS[config.precision])
    low = bits < 16
    linear_gpu = params_gpu - (high_precision_gpu if low else 0.0)
    stored = linear_gpu * bits / 8 + (high_precision_gpu * 2 if low else 0.0)
    return stored, stored / params_gpu if params_gpu else 0.0


# FSDP2's reduce-scatter dtype as the export and the memory trace set it (MixedPrecisionPolicy reduce_dtype
# torch.float32): bytes per value of the fp32 copy of a unit's unsharded gradients that it reduce-scatters
FSDP2_REDUCE_BYTES = 4.0


def stage_shape(
    model: ModelSpec, config: MemoryConfig, stage: Stage, counts: ParamCounts, divisors: Divisors
) -> StageShape:
    """The numbers of one stage that depend on tp, pp and ep only (not on dp, zero, offload, recompute or
    micro_batch)."""
    task, layout = config.task, config.layout
    tp, pp = layout.tp, layout.pp
    # the task's kinds and the compute bytes, read once (properties: a search builds thousands of shapes)
    training, full_training, adapter = task.is_training, task.is_full_training, task.is_adapter
    e = compute_bytes(config)
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
    if adapter:
        per_dense, per_moe, per_routed = lora_params_per_layer(model, config.lora_rank, config.lora_targets)
        adapter_dense = (stage.dense_layers * per_dense + stage.moe_layers * per_moe) / tp
        # a state-space layer has no q/k/v/o projections to adapt (peft matches module names: its mixer's are
        # in_proj, x_proj, dt_proj, out_proj), nor has an MLP-only or MoE-only layer (nemotron_h); a layer that
        # mixes has no MLP to adapt where layers either mix or run an MLP (nemotron_h)
        attention_only = tuple(target for target in config.lora_targets if target in ("q", "k", "v", "o"))
        mlp_only = tuple(target for target in config.lora_targets if target in ("gate", "up", "down"))
        mixerless = sum(1 for i in stage.layer_indices if layer_kinds(model)[i] in (STATE, NONE))
        adapter_dense -= mixerless * lora_params_per_layer(model, config.lora_rank, attention_only)[0] / tp
        adapter_dense -= (
            mlpless_layers(model, stage.layer_indices)
            * lora_params_per_layer(model, config.lora_rank, mlp_only)[0]
            / tp
        )
        adapter_dense += _per_layer_adapters(model, config, stage.layer_indices) / tp
        adapter_expert = stage.moe_layers * per_routed / divisors.expert_divisor
        adapter_bytes = training_weight_bytes(master_precision(config.precision))
        trainable_dense, trainable_expert = adapter_dense, adapter_expert
    elif full_training:
        trainable_dense, trainable_expert = dense_params_gpu, expert_params_gpu
    grad_per = opt_per = 0.0
    if training:
        precision = master_precision(config.precision)
        grad_per = gradient_bytes(precision)
        opt_per = optimizer_bytes(config.optimizer, precision)
    megatron_opt_per = 0.0
    if full_training and e < 4 and (tp > 1 or pp > 1):
        megatron_opt_per = MASTER_BYTES + OPTIMIZER_STATE_BYTES[config.optimizer]
    largest, root_unit = _fsdp_units(model, counts, divisors)
    tied_gradient = 0.0
    if full_training and model.tied_embeddings and stage.has_embedding:
        tied_gradient = (
            2 * model.vocab * model.hidden / tp * (MEGATRON_GRADIENT_BYTES if megatron_opt_per else grad_per)
        )
    largest_module = _largest_module(model, counts, divisors)
    root_reduce = head_gradient = 0.0
    if full_training:
        root_reduce = ends / tp * FSDP2_REDUCE_BYTES
        if stage.has_head and not (model.tied_embeddings and pp == 1):
            head_gradient = model.vocab * model.hidden / tp * e
    autocast_copies = 0.0
    if full_training and e < 4:
        autocast_copies = autocast_weight_copies(model, counts, stage, tp)
    return StageShape(
        stage=stage.index, task=task, training=training, full_training=full_training, adapter=adapter, tp=tp,
        pp=pp, ep=layout.ep, params_gpu=params_gpu,
        dense_params_gpu=dense_params_gpu, expert_params_gpu=expert_params_gpu, stored_weights=stored,
        bytes_per_param=bytes_per_param, largest=largest, root_unit=root_unit, compute_bytes=e,
        autocast_copies=autocast_copies, megatron_opt_per=megatron_opt_per,
        tied_embedding_gradient=tied_gradient,
        qlora_workspace=qlora_workspace, adapter_dense=adapter_dense, adapter_expert=adapter_expert,
        adapter_bytes=adapter_bytes, trainable_dense=trainable_dense, trainable_expert=trainable_expert,
        grad_per=grad_per, opt_per=opt_per, family=model.family, pinned_runtime=config.runtime,
        deepspeed_layout=deepspeed_counted(config), largest_module=largest_module,
        largest_trainable=_largest_adapter(model, config) / tp if adapter else largest_module,
        bucket_elements=float(deepspeed_bucket_elements(model.hidden)),
        root_reduce=root_reduce, head_gradient=head_gradient,
        autotp_whole=counts.embedding * (1 - 1 / tp) if stage.has_embedding else 0.0,
    )  # fmt: skip


# The offload modes as module constants: stage_state runs tens of thousands of times per search, and reading
# an enum member off its class costs several times a plain name.
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER


def stage_state(shape: StageShape, acts: StageActivations, dp: int, zero: int, offload: str,
                accumulation: int = 1, addable: bool = False) -> StageAmounts:  # fmt: skip
    """A stage's numbers once dp, the ZeRO stage and offload are known: sharded model states and overhead.

    ZeRO-2/3 are FSDP2's fully_shard with reshard_after_forward False/True (each layer a unit, the root the rest,
    16-bit compute copies under mixed precision): the GPU keeps its shard of the fp32 weights, gradients and
    AdamW state, the gathered units (ZeRO-3: the root and one layer at the backward peak; ZeRO-2: every unit
    between forward and backward) and about three layer-sized communication buffers (the prefetched all-gather,
    the reduce-scatter input and output), as FSDP2's memory tracker shows under a fake process group."""
    ((weights, gradients, optimizer, activations, overhead, not_concurrent, host, gathered_total, gathered_weights,
      streamed_weights, communicators, phase, _),) = _state_figures(shape, acts, zero, offload, accumulation, (dp,),
                                                                    addable)  # fmt: skip
    zero = zero if shape.training else 0  # as _state_figures counts it
    runtime = _runtime_of(shape, zero, offload)
    megatron = shape.megatron_opt_per > 0 and zero <= 1
    deepspeed = runtime == _DEEPSPEED and shape.deepspeed_layout
    autocast = zero < 2 and not megatron and not deepspeed
    return StageAmounts(
        shape.stage,
        weights,
        gradients,
        optimizer,
        activations,
        acts.kv_cache,
        overhead,
        host,
        gathered_total,
        shape.params_gpu + (shape.autotp_whole if deepspeed else 0.0),  # AutoTP: the embedding whole
        gathered_weights,
        streamed_weights,
        shape.adapter_dense + shape.adapter_expert,
        acts.logits,
        acts.inflight,
        communicators,
        math.floor(not_concurrent),
        shape.autocast_copies if autocast else 0.0,
        phase,
        runtime or "",
    )


def stage_state_totals(shape: StageShape, acts: StageActivations, zero: int, offload: str, accumulation: int,
                       dps: Sequence[int], addable: bool = False) -> list[int]:  # fmt: skip
    """[stage_state(shape, acts, dp, zero, offload, accumulation, addable).total_bytes for dp in dps], worked
    out together (_state_figures) and without building the amounts: a search asks for several dps of each."""
    return [figures[-1] for figures in _state_figures(shape, acts, zero, offload, accumulation, dps, addable)]


def stage_host_totals(
    shape: StageShape, acts: StageActivations, zero: int, offload: str, accumulation: int, dps: Sequence[int]
) -> list[float]:
    """[stage_state(shape, acts, dp, zero, offload, accumulation).host_bytes for dp in dps]: the CPU RAM the
    stage's offloaded states take per GPU (planner.memory.host_ram checks it against the node's)."""
    return [figures[6] for figures in _state_figures(shape, acts, zero, offload, accumulation, dps)]


def _state_figures(
    shape: StageShape, acts: StageActivations, zero: int, offload: str, accumulation: int, dps: Sequence[int],
    addable: bool = False,
) -> list[tuple[float, float, float, float, float, float, float, float, float, float, int, str, int]]:  # fmt: skip
    """stage_state's figures at each dp of `dps`: (weights, gradients, optimizer, activations, overhead, not
    concurrent, host, gathered total, gathered weights, streamed weights, communicators, peak phase, and the
    total bytes as StageAmounts.total_bytes counts them: each term rounded up, less what is never held at once).

    dp enters only through the ZeRO shard divisors and the data-parallel communicator, so what it does not
    change is worked out once, before the loop over dps; each figure is still the same chain of floating-point
    operations, in the same order, as working it all out at one dp (a part worked out once is a whole
    subexpression of it), so the bytes are the same whichever dps are asked for together. Below ZeRO-2 the
    gradients are not sharded: the step's moments and the allocator margin are worked out at the first dp only.
    addable: the training search's count (MemoryConfig.addable_peak), where a runtime whose peak is the larger
    of two moments counts both at once, so that an activation variant's bytes add to a state's.
    """
    training = shape.training
    zero = zero if training else 0
    runtime = _runtime_of(shape, zero, offload)
    if shape.deepspeed_layout and runtime == _DEEPSPEED:
        return deepspeed_figures(shape, acts, zero, offload, addable, dps)
    # torch DDP keeps its all-reduce buckets (as many bytes as the gradients) for the whole run; the export
    # makes the gradients views into them (gradient_as_bucket_view, zeroed in place rather than set to None),
    # so they are held beside every micro-batch's activations (torch/nn/parallel/distributed.py); one rank runs
    # without DDP (train.py wraps nothing at world size 1: no buckets)
    ddp = runtime == _DDP
    # FSDP2 (train.py's runner: each layer a unit, the root the rest), full training: the root unit's backward
    # ends the step's backward. Its post-backward (torch 2.13 _fsdp_collectives.py foreach_reduce) copies the
    # root's unsharded 16-bit gradients into one fp32 reduce-scatter input (reduce_dtype) and frees them, but
    # the last one (the LM head's, last in the root's parameter order) is still referenced by the function's
    # loop variable while the output, the root's fp32 gradient shard, is allocated and filled; the input is
    # held until the backward's final callback. So at that moment: every gradient shard, the fp32 input and
    # the head's 16-bit gradient, no activation.
    end_buffers = 0.0
    if zero >= 2 and runtime == _FSDP2:
        end_buffers = shape.root_reduce + shape.head_gradient
    ep = shape.ep
    largest, bytes_per_param = shape.largest, shape.bytes_per_param
    megatron = shape.megatron_opt_per > 0 and zero <= 1
    # FSDP2 (ZeRO-2/3) and Megatron compute on 16-bit weights; plain data parallel runs autocast
    activations = acts.activations_sharded if zero >= 2 or megatron else acts.activations

    # --- weights (ZeRO-2/3: with their shard, which dp divides, in the loop)
    host = 0.0
    gathered_total = 0.0  # FSDP2's unsharded compute copies and communication buffers
    gathered_weights = streamed_weights = 0.0
    weights = shape.stored_weights
    grad_per, opt_per = shape.grad_per, shape.opt_per
    if megatron:
        weights = shape.params_gpu * MEGATRON_WEIGHT_BYTES
        grad_per, opt_per = MEGATRON_GRADIENT_BYTES, shape.megatron_opt_per
    gathered_at_loss = 0.0  # FSDP2's gathered units and buffers at the loss's backward (ZeRO-2/3)
    layer_gradients = 0.0  # FSDP2: a layer's unsharded 16-bit gradients, a temporary of its backward
    layer_buffers = 0.0  # FSDP2's buffers inside a layer's backward
    if zero >= 2:
        e = shape.compute_bytes
        # Gathered between forward and backward: ZeRO-3 the root unit (embedding, final norm, LM head), ZeRO-2
        # every unit. At the loss's backward the next layer is being gathered (ZeRO-3); inside a layer's backward
        # that layer is gathered too, beside three layer-sized communication buffers (the prefetched all-gather,
        # the reduce-scatter input and output) and the layer's unsharded 16-bit gradients (counted at the peak).
        units = shape.root_unit if zero == 3 else shape.params_gpu
        gathered_weights = (units + (largest if zero == 3 else 0.0)) * e
        gathered_at_loss = (units + (largest if zero == 3 else 0.0)) * e
        layer_buffers = (units + (4 if zero == 3 else 3) * largest) * e
        gathered_total = max(layer_buffers, end_buffers)  # the buffers of whichever moment holds more
        layer_gradients = largest * e
        activations += layer_gradients
    else:
        activations += 0.0 if megatron else shape.autocast_copies
        if not training and offload == _OFFLOAD_ALL:
            host += weights
            weights = streamed_weights = largest * bytes_per_param
        weights += shape.qlora_workspace
        if shape.adapter:
            weights += (shape.adapter_dense + shape.adapter_expert) * shape.adapter_bytes
    # the step's moments but the gradients' part
    loss_moment = activations - layer_gradients + gathered_at_loss
    layer_moment = activations - acts.logits_sharded + layer_buffers if zero >= 2 else 0.0
    held_but_gradients = activations + gathered_total
    trainable = shape.trainable_dense + shape.trainable_expert
    model_parallel_communicators = (shape.tp > 1) + (shape.pp > 1) + (ep > 1)
    # below ZeRO-2: the same at every dp (DDP's buckets: at every dp above 1)
    unsharded_steps: dict[bool, tuple[float, float, str, float]] = {}
    ceil = math.ceil
    ceiled_activations = ceil(activations) + ceil(acts.kv_cache)

    figures = []
    for dp in dps:
        # ZeRO shards over the ranks that hold the same replica: dp for dense parts; for experts the
        # expert-data-parallel group dp x tp / ep.
        dense_shard = dp
        expert_shard = dp * shape.tp // ep if ep > 1 else dp
        dp_weights, dp_host = weights, host
        if zero >= 2:
            shard = (
                shape.dense_params_gpu / dense_shard + shape.expert_params_gpu / expert_shard
            ) * bytes_per_param
            if offload == _OFFLOAD_ALL:
                dp_host += shard
                dp_weights = gathered_total
            else:
                dp_weights = shard + gathered_total
            dp_weights += shape.qlora_workspace
            if shape.adapter:
                adapter_dense, adapter_expert = shape.adapter_dense, shape.adapter_expert
                if zero == 3:
                    dp_weights += (
                        adapter_dense / dense_shard + adapter_expert / expert_shard
                    ) * shape.adapter_bytes
                else:
                    dp_weights += (adapter_dense + adapter_expert) * shape.adapter_bytes

        # --- gradients and optimizer
        gradients = optimizer = 0.0
        if training:
            shards = shape.trainable_dense / dense_shard + shape.trainable_expert / expert_shard
            gradients = (shards if zero >= 2 else trainable) * grad_per
            optimizer = (shards if zero >= 1 else trainable) * opt_per
            if offload == _OFFLOAD_OPTIMIZER or offload == _OFFLOAD_ALL:
                dp_host += optimizer
                optimizer = 0.0
        buckets = ddp and dp > 1
        unsharded_step = unsharded_steps.get(buckets)
        if unsharded_step is None:
            not_concurrent = 0.0
            phase = "backward" if training else "forward"
            if training:
                # The terms are each at its own maximum; the step's peak is the largest of three moments: the
                # loss's backward (every activation, FSDP2's units as they are then), a layer's backward (the loss's
                # tensors gone, FSDP2's layer buffers there) and the optimizer step (every gradient, no activation)
                # -- with one backward per step and the gradients freed after it (zero_grad(set_to_none=True)).
                # With gradient accumulation the gradients stay beside the next micro-batch's activations.
                # The end of backward: every gradient, and for a trained tied embedding its dense gradient twice
                # over while the embedding's backward adds it to the LM head's (embedding_dense_backward, then the
                # sum).
                end_moment = gradients + shape.tied_embedding_gradient * (zero < 2) + end_buffers
                optimizer_moment = end_moment
                held = held_but_gradients + gradients
                if accumulation > 1 or buckets:
                    optimizer_moment = max(held - (gathered_total - gathered_at_loss), optimizer_moment)
                # (the terms hold every byte counted: a moment never exceeds their sum)
                peak = min(held, max(loss_moment, layer_moment, optimizer_moment))
                not_concurrent = held - peak
                phase = "optimizer step" if optimizer_moment > max(loss_moment, layer_moment) else "backward"
                if phase == "optimizer step" and end_buffers and optimizer_moment == end_moment:
                    phase = "end of backward"  # FSDP2's root reduce-scatter, before the optimizer step
            dynamic = (
                gradients + activations + acts.kv_cache
            )  # allocated and freed step by step: fragmentation
            margin = CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic
            if zero < 2:
                unsharded_steps[buckets] = gradients, not_concurrent, phase, margin
        else:
            gradients, not_concurrent, phase, margin = unsharded_step

        # --- overhead: one NCCL communicator per parallel group
        communicators = (dp > 1 and training) + model_parallel_communicators
        overhead = margin + communicators * NCCL_BYTES_PER_COMMUNICATOR
        total = (
            ceil(dp_weights) + ceil(gradients) + ceil(optimizer) + ceiled_activations + ceil(overhead)
            - math.floor(not_concurrent)
        )  # fmt: skip
        figures.append((dp_weights, gradients, optimizer, activations, overhead, not_concurrent, dp_host,
                        gathered_total, gathered_weights, streamed_weights, communicators, phase, total))  # fmt: skip
    return figures


_DEEPSPEED = Runtime.DEEPSPEED
_DDP = Runtime.DDP
_FSDP2 = Runtime.FSDP2


def _runtime_of(shape: StageShape, zero: int, offload: str) -> Runtime | None:
    """The runtime counted for this stage's layout (None: inference, or no runtime can run it)."""
    if not shape.training:
        return None
    return chosen_runtime(
        shape.pinned_runtime, shape.task, shape.tp, shape.pp, shape.ep, zero, offload, shape.family
    )


def sixteen_bit_compute(shape: StageShape, zero: int, offload: str) -> bool:
    """Whether the stage's activations are counted as 16-bit compute (activations_sharded: DeepSpeed's 16-bit
    model, FSDP2's 16-bit units, Megatron's bf16 weights) rather than autocast's (its weight copies and fp32
    parts): the two classes of activations a search keeps apart (planner.search.training)."""
    zero = zero if shape.training else 0
    if shape.deepspeed_layout and _runtime_of(shape, zero, offload) == _DEEPSPEED:
        return True
    return zero >= 2 or (shape.megatron_opt_per > 0 and zero <= 1)


def stage_amounts(model: ModelSpec, config: MemoryConfig, stage: Stage, counts: ParamCounts) -> StageAmounts:
    """The numbers of one stage (bytes per GPU) of a normalised config; stage_terms puts them into words."""
    layout = config.layout
    divisors = divisors_of(model, layout)
    shape = stage_shape(model, config, stage, counts, divisors)
    per_token = per_token_activations(model, config, divisors) if config.task.is_training else None
    acts = stage_activations(model, config, stage, divisors, per_token, layout.recompute, layout.micro_batch)
    return stage_state(shape, acts, layout.dp, layout.zero, layout.offload, config.gradient_accumulation,
                       config.addable_peak)  # fmt: skip
