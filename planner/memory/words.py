"""The one-line assumption behind each memory term, and the notes on which stage the figures describe."""

from __future__ import annotations

import math
from collections import Counter

from planner.memory.config import (
    ALLOCATOR_MARGIN_FRACTION,
    CUDA_CONTEXT_BYTES,
    NCCL_BYTES_PER_COMMUNICATOR,
    NF4_BITS,
    WEIGHT_BITS,
    MemoryConfig,
    MemoryTerm,
)
from planner.memory.element_bytes import (
    deepspeed_counted,
    gradient_bytes,
    kv_element_bytes,
    master_precision,
    megatron_style,
    optimizer_bytes,
    training_weight_bytes,
)
from planner.memory.pipeline_stages import Stage
from planner.memory.stages import StageAmounts
from planner.messages import Message, format_bytes, msg
from planner.models import ModelSpec
from planner.models.kv_cache import CHUNKED, FULL, SLIDING, cached_tokens, layer_kinds, state_layers
from planner.models.spec import kv_shared
from planner.vocabulary import Offload, Optimizer, Precision, Recompute, Runtime, Task


def _weights_text(model: ModelSpec, config: MemoryConfig, amounts: StageAmounts, megatron: bool) -> str:
    task, layout = config.task, config.layout
    zero = layout.zero if task.is_training else 0
    if megatron:  # megatron_style: full training only
        stored_text = "2 bytes/param (16-bit weights: tensor/pipeline parallel as Megatron-LM runs it)"
    elif task.is_full_training:
        per_param = training_weight_bytes(config.precision)
        sixteen = config.precision in ("bf16", "fp16")
        kind = ""
        if sixteen:
            kind = (
                "fp32 weight shards, cast to 16 bit per gathered unit"
                if zero >= 2
                else ("fp32 weights, 16-bit copies made by autocast")
            )
        stored_text = f"{per_param:g} bytes/param ({kind or config.precision + ' weights'})"
    else:
        if task == Task.QLORA:
            bits, storage_name = NF4_BITS, f"NF4 {NF4_BITS} bits/param with double quantisation (QLoRA paper)"
        else:
            bits = config.weight_bits or WEIGHT_BITS[config.precision]
            storage_name = f"{config.precision} {bits:g} bits/param"
            if config.weight_bits is not None:
                storage_name = f"weight format {bits:g} bits/param"
            elif config.precision == Precision.INT4:
                storage_name += " (group-128 fp16 scale + zero)"
        stored_text = storage_name + ("; embeddings, head, norms, biases 16 bit" if bits < 16 else "")
    text = f"{amounts.params_gpu / 1e9:.3g}B params on this GPU x {stored_text}"
    if zero >= 2:
        gathered = format_bytes(amounts.gathered_bytes, unit="GiB")
        units = "the root unit (embedding + LM head) and one layer" if zero == 3 else "every unit"
        buffers = "3 layer-sized communication buffers"
        if amounts.runtime == "fsdp2" and task.is_full_training:
            buffers += " or, at the end of backward, the root unit's fp32 reduce-scatter (the larger)"
        what = f"FSDP2 gathers {units} in 16 bit + {buffers} ({gathered})"
        if layout.offload == Offload.ALL:
            text = f"ZeRO-3 params offloaded to CPU; {what}"
        else:
            text += f"; ZeRO-{zero} shards over dp {layout.dp}; {what}"
    elif task == Task.INFERENCE and layout.offload == Offload.ALL:
        text = f"weights in CPU RAM, streamed one layer at a time ({format_bytes(amounts.streamed_weights, unit='GiB')} on the GPU)"
    if task == Task.QLORA:
        text += "; + one matrix dequantised to bf16"
    if task.is_adapter:
        text += f"; frozen base + {amounts.adapter_params / 1e6:.3g}M LoRA params (rank {config.lora_rank})"
    return text


def _state_texts(config: MemoryConfig, megatron: bool, runtime: str = "") -> tuple[str, str]:
    """(gradients, optimizer) assumption lines (megatron: megatron_style(config))."""
    task, layout = config.task, config.layout
    if not task.is_training:
        return "none: inference", "none: inference"
    zero = int(layout.zero)
    precision = master_precision(config.precision)
    if megatron:
        grad_text = "4 bytes/trainable param (Megatron's fp32 main gradients)"
        opt_text = "fp32 master + optimizer state (AdamW m, v: 12 bytes/trainable param)"
        if zero >= 1:
            opt_text += f", distributed optimizer (ZeRO-1) sharded over dp {layout.dp}"
        if config.gradient_accumulation <= 1:
            grad_text += "; all of them exist only at the optimizer step, after the activations are freed"
        return grad_text, opt_text
    grad_text = f"{gradient_bytes(precision):g} bytes/trainable param (the weights' dtype)"
    if zero >= 2:
        grad_text += f", ZeRO-{zero} sharded over dp {layout.dp} (no unsharded unit left at the peak)"
    if runtime == "ddp":
        grad_text += "; views into DDP's all-reduce buckets, held for the whole run"
    elif config.gradient_accumulation <= 1:
        grad_text += "; all of them exist only at the optimizer step, after the activations are freed"
    opt_text = _optimizer_text(config.optimizer, precision, optimizer_bytes(config.optimizer, precision))
    if zero >= 1:
        opt_text += f", ZeRO-{zero} sharded over dp {layout.dp}"
    if layout.offload in (Offload.OPTIMIZER, Offload.ALL):
        opt_text += "; offloaded to CPU RAM"
    return grad_text, opt_text


def _activations_text(config: MemoryConfig, stage: Stage, amounts: StageAmounts, megatron: bool) -> str:
    if not config.task.is_training:
        text = "prefill of micro-batch x seq_len tokens at once, one layer's transient tensors"
        return text + (" + fp32 logits of the last position" if stage.has_head else "")
    recompute = config.layout.recompute
    if recompute == Recompute.FULL:
        text = "full recompute: each layer's input kept + one layer's activations while recomputing"
    else:
        kind = "flash attention" if config.flash_attention else "eager attention keeps the probabilities"
        if not config.flash_attention and recompute == Recompute.SELECTIVE:
            kind = "selective recompute of attention"
        layout = config.layout
        te = config.task.is_full_training and layout.tp > 1 and (layout.zero >= 2 or megatron)
        where = "Megatron-Core layers with Transformer Engine" if te else "Hugging Face decoder layers"
        text = f"what autograd saves in {where} ({kind}, no dropout)"
    if amounts.inflight > 1:
        schedule = (
            "1F1B"
            if config.virtual_stages <= 1
            else f"interleaved 1F1B, {config.virtual_stages} chunks a rank"
        )
        text += f", {amounts.inflight:.4g} micro-batches in flight ({schedule})"
    if amounts.autocast_copies:
        text += f"; autocast's 16-bit weight copies kept for backward ({format_bytes(amounts.autocast_copies, unit='GiB')})"
    if stage.has_head:
        text += f"; loss: fp32 log_softmax + its gradients ({format_bytes(amounts.logits, unit='GiB')})"
    return text


def _kv_text(model: ModelSpec, config: MemoryConfig, stage: Stage) -> str:
    if config.task != Task.INFERENCE:
        return "none: training does not keep a KV cache"
    kv_bytes = kv_element_bytes(config)
    layout = config.layout
    if model.uses_mla:
        per_token = (
            f"MLA latent (kv_lora_rank {model.kv_lora_rank} + rope {model.qk_rope_head_dim}) x {kv_bytes:g} bytes "
            f"per token per layer, replicated on each tp rank"
        )
    else:
        per_token = (
            f"2 x {max(1, model.kv_heads // layout.tp)} KV heads x {model.head_dim} x {kv_bytes:g} bytes per token "
            f"per layer"
        )
    shared = set(kv_shared(model, stage.layer_indices))  # gemma3n: layers reading an earlier layer's cache
    kinds = Counter(layer_kinds(model)[i] for i in stage.layer_indices if i not in shared)
    windows = {SLIDING: model.sliding_window, CHUNKED: model.attention_chunk}
    parts = []
    for kind in (FULL, SLIDING, CHUNKED):
        if kinds[kind]:
            tokens = cached_tokens(model, kind, config.seq_len)
            window = f" (window {windows[kind]:,}: the last {tokens:,} kept)" if kind in windows else ""
            parts.append(f"{kinds[kind]} {kind} layers x {tokens:,} tokens{window}")
    stateful = state_layers(model, stage.layer_indices)
    if stateful:
        parts.append(
            f"{stateful} state-space layers x {model.state_values_per_layer:,} values of fixed state "
            f"(whatever the length)"
        )
    if not any(
        kinds[kind] for kind in (FULL, SLIDING, CHUNKED)
    ):  # a state-space stack: no per-token cost at all
        return f"{layout.micro_batch} sequences x " + " + ".join(parts or ["no attention layers"])
    return f"{per_token}; x {layout.micro_batch} sequences x " + " + ".join(parts or ["no attention layers"])


def _overhead_text(amounts: StageAmounts) -> str:
    text = (
        f"CUDA context {CUDA_CONTEXT_BYTES // 2**20} MiB (HF measured) + {ALLOCATOR_MARGIN_FRACTION:.0%} allocator "
        "margin on gradients, activations and KV cache"
    )
    if amounts.communicators:
        text += (
            f" + {amounts.communicators} NCCL communicator(s) x {NCCL_BYTES_PER_COMMUNICATOR // 2**20} MiB"
        )
    return text


def stage_terms(
    model: ModelSpec, config: MemoryConfig, stage: Stage, amounts: StageAmounts
) -> dict[str, MemoryTerm]:
    """Each term of one stage in bytes (rounded up) with the one-line assumption behind it."""
    megatron = megatron_style(config)  # what three of the texts ask
    if amounts.runtime == Runtime.DEEPSPEED and deepspeed_counted(config):
        weights_text, grad_text, opt_text = _deepspeed_texts(config, amounts)
    else:
        grad_text, opt_text = _state_texts(config, megatron, amounts.runtime)
        weights_text = _weights_text(model, config, amounts, megatron)
    return {
        "weights": MemoryTerm(math.ceil(amounts.weights), weights_text),
        "gradients": MemoryTerm(math.ceil(amounts.gradients), grad_text),
        "optimizer": MemoryTerm(math.ceil(amounts.optimizer), opt_text),
        "activations": MemoryTerm(
            math.ceil(amounts.activations), _activations_text(config, stage, amounts, megatron)
        ),
        "kv_cache": MemoryTerm(math.ceil(amounts.kv_cache), _kv_text(model, config, stage)),
        "overhead": MemoryTerm(math.ceil(amounts.overhead), _overhead_text(amounts)),
    }


def _deepspeed_texts(config: MemoryConfig, amounts: StageAmounts) -> tuple[str, str, str]:
    """(weights, gradients, optimizer) assumption lines under DeepSpeed's layout (planner.memory.stages)."""
    layout = config.layout
    zero, dp = int(layout.zero), layout.dp
    e = 4 if config.precision == Precision.FP32 else 2  # DeepSpeed's model dtype: bf16 / fp16, or fp32
    bits = "16-bit" if e == 2 else "fp32"
    base = "4-bit base" if config.task == Task.QLORA else f"{e}-byte frozen base"
    model = f", {base} + {e}-byte adapter" if config.task.is_adapter else f" x {e} bytes/param"
    live = f"{bits} weights" if config.task.is_adapter else f"{bits} weights and gradients"
    params = f"{amounts.params_gpu / 1e9:.3g}B params on this GPU"
    buffers = format_bytes(amounts.gathered_bytes, unit="GiB")
    if zero == 0:
        master = "fp32 master weights + AdamW m, v: 12" if e == 2 else "AdamW m, v: 8"
        return (
            f"{params}{model} (DeepSpeed: the model in {config.precision})",
            "4 bytes/trainable param (fp32 gradients, accumulated whole: DeepSpeed ZeRO-0)",
            f"{master} bytes/trainable param (DeepSpeed ZeRO-0)",
        )
    if zero == 3:
        weights = (
            f"{params}{model}, DeepSpeed ZeRO-3 partitions over dp {dp}; + the largest module's {live} while "
            f"it is gathered ({format_bytes(amounts.gathered_weights, unit='GiB')}) + reduce and prefetch buckets "
            f"({buffers})"
        )
        grads = f"{e} bytes/trainable param ({bits} partition) + 4 bytes for one optimizer sub-group's fp32 gradient"
    else:
        weights = f"{params}{model} (DeepSpeed keeps the {bits} model whole) + 2 reduce buckets ({buffers})"
        grads = (
            f"{e} bytes/trainable param, whole (ZeRO-1) + 4 bytes fp32 partition"
            if zero == 1
            else f"{e} bytes/trainable param + 4 bytes fp32, both partitioned (ZeRO-2)"
        )
    grads += (
        f" over dp {dp}; the fp32 gradients, or the gradient norm's fp64 copy of one parameter's partition where "
        "larger, exist only in the optimizer step"
    )
    opt = f"fp32 master weights + AdamW m, v: 12 bytes/trainable param, ZeRO-{zero} partitioned over dp {dp}"
    if layout.offload in (Offload.OPTIMIZER, Offload.ALL):
        opt += "; offloaded to CPU RAM with the fp32 gradients"
        if zero >= 2:
            grads = "gradients go from the reduce bucket to CPU RAM (none kept on the GPU)"
    if layout.offload == Offload.ALL:
        weights = f"ZeRO-3 parameters offloaded to CPU RAM; {weights.split('; + ', 1)[-1]}"
    return weights, grads, opt


def _optimizer_text(optimizer: Optimizer, precision: Precision, per_param: float) -> str:
    if optimizer == Optimizer.ADAMW:
        if precision == Precision.FP32:
            return (
                "AdamW m and v in fp32, 8 bytes/trainable param (fused AdamW: no temporaries); with autocast the "
                "weights and gradients stay fp32: 4 + 4 + 8 = 16 bytes/param (DeepSpeed splits them 2 + 2 + 12)"
            )
        return f"AdamW fp32 master + m + v beside fp8 weights = {per_param:g} bytes/trainable param"
    name = {Optimizer.ADAMW8BIT: "8-bit AdamW m and v (1 byte each)", Optimizer.SGD: "SGD momentum in fp32"}
    master = "" if precision == Precision.FP32 else " + fp32 master weights"
    return f"{name[optimizer]}{master} = {per_param:g} bytes/trainable param"


def model_notes(model: ModelSpec, config: MemoryConfig, fullest: StageAmounts) -> list[Message]:
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
    return notes
