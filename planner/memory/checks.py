"""What a memory configuration may be: choices parsed into the vocabulary (normalised), impossible layouts
refused with a UserError that carries a Message, pointless ones noted."""

from __future__ import annotations

import dataclasses

from planner.errors import UserError
from planner.memory.config import (
    MAX_DEGREE,
    MAX_GPUS,
    MAX_LORA_RANK,
    MAX_MICRO_BATCH,
    MAX_SEQ_LEN,
    MemoryConfig,
)
from planner.memory.runtimes import no_runtime_reason, runtime_refusal
from planner.messages import Message, msg, render_all_en
from planner.models import ModelSpec
from planner.vocabulary import LoraTarget, Offload, Optimizer, Precision, Recompute, Runtime, Task, ZeroStage


def normalised(config: MemoryConfig) -> MemoryConfig:
    """`config` with every choice as its vocabulary member ("train" -> Task.PRETRAIN); UserError naming the
    first value that is no choice at all. The counts are checked by layout_notes."""
    if _is_normal(config):
        return config  # what the parsing below would copy field for field (searches ask thousands of times)
    task = Task.parse(config.task)
    precision = Precision.parse(config.precision)
    kv_precision = config.kv_precision
    if kv_precision is not None:
        kv_precision = Precision.parse(kv_precision, msg("choice.kv_precision"))
    optimizer = Optimizer.parse(config.optimizer)
    runtime = None if config.runtime is None else Runtime.parse(config.runtime)
    layout = config.layout
    recompute, offload = Recompute.parse(layout.recompute), Offload.parse(layout.offload)
    return dataclasses.replace(
        config,
        task=task,
        precision=precision,
        kv_precision=kv_precision,
        optimizer=optimizer,
        runtime=runtime,
        layout=dataclasses.replace(layout, recompute=recompute, offload=offload),
    )


def _is_normal(config: MemoryConfig) -> bool:
    """Every choice of `config` is already its vocabulary member (each parse would return it unchanged)."""
    layout, kv = config.layout, config.kv_precision
    return (
        isinstance(config.task, Task) and isinstance(config.precision, Precision)
        and (kv is None or isinstance(kv, Precision)) and isinstance(config.optimizer, Optimizer)
        and (config.runtime is None or isinstance(config.runtime, Runtime))
        and isinstance(layout.recompute, Recompute) and isinstance(layout.offload, Offload)
    )  # fmt: skip


# The names of the counts _check_counts checks: Messages are immutable values, so one of each serves every check
# (a search checks thousands of layouts and would build them anew for each, to use them only in an error).
_MICRO_BATCH, _SEQ_LEN, _INFLIGHT = (
    msg("quantity.micro_batch"),
    msg("quantity.seq_len"),
    msg("quantity.inflight"),
)


def _count(value: object, what: Message | str, upper: int) -> None:
    if type(value) is int and 0 < value <= upper:
        return  # a whole number in range (what the checks below let through, bool excepted: its type is bool)
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
    return checked_notes(model, normalised(config))


def checked_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    """layout_notes of a normalised config."""
    _check_counts(config)
    _check_layout_fits_model(model, config)
    _check_task(config)
    _check_runtime(model, config)
    return [*_layout_model_notes(model, config), *_task_notes(config)]


def _check_counts(config: MemoryConfig) -> None:
    layout = config.layout
    _count(layout.micro_batch, _MICRO_BATCH, MAX_MICRO_BATCH)
    _count(config.seq_len, _SEQ_LEN, MAX_SEQ_LEN)
    for name, degree in (("dp", layout.dp), ("tp", layout.tp), ("pp", layout.pp), ("ep", layout.ep)):
        _count(degree, name, MAX_DEGREE)
    if layout.zero not in (0, 1, 2, 3) or isinstance(layout.zero, bool):  # as MemoryTotals refuses it
        raise UserError.of(msg("error.zero_stage", value=layout.zero))
    if layout.gpus > MAX_GPUS:
        raise UserError.of(msg("error.too_many_gpus", gpus=layout.gpus, limit=MAX_GPUS))
    if config.inflight_microbatches is not None:
        _count(config.inflight_microbatches, _INFLIGHT, MAX_DEGREE)
    _count(config.gradient_accumulation, "gradient_accumulation", MAX_MICRO_BATCH)


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


def _check_runtime(model: ModelSpec, config: MemoryConfig) -> None:
    """UserError where a pinned runtime cannot run this training layout, or none can (planner.memory.runtimes)."""
    if not config.task.is_training:
        return
    layout = config.layout
    if config.runtime is None:
        reasons = no_runtime_reason(
            config.task, layout.tp, layout.pp, layout.ep, layout.zero, layout.offload, model.family
        )
        if reasons:
            raise UserError.of(msg("error.no_runtime", reasons=reasons))
        return
    reason = runtime_refusal(
        config.runtime,
        config.task,
        layout.tp,
        layout.pp,
        layout.ep,
        layout.zero,
        layout.offload,
        model.family,
    )
    if reason:
        raise UserError.of(msg("error.runtime_refused", runtime=str(config.runtime), reason=reason))


def _layout_model_notes(model: ModelSpec, config: MemoryConfig) -> list[Message]:
    notes = []
    tp = config.layout.tp
    if not model.uses_mla and tp > model.kv_heads:
        notes.append(
            msg("memory.kv_heads_replicated", tp=tp, kv_heads=model.kv_heads, replicas=tp // model.kv_heads)
        )
    if model.exceeds_context(config.seq_len):
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
