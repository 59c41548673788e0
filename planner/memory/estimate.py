"""estimate_memory (the breakdown with its words), estimate_total_bytes (the total alone) and MemoryTotals
(totals for many layouts of one model, reusing what they share)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from planner.errors import UserError
from planner.memory.checks import checked_notes, normalised
from planner.memory.config import MAX_DEGREE, MAX_GPUS, MAX_MICRO_BATCH, MemoryBreakdown, MemoryConfig
from planner.memory.stages import (
    Divisors,
    Stage,
    StageActivations,
    StageShape,
    divisors_of,
    per_token_activations,
    pipeline_stages,
    stage_activations,
    stage_amounts,
    stage_shape,
    stage_state,
)
from planner.memory.words import model_notes, stage_terms
from planner.messages import render_all_en
from planner.models import ModelSpec, param_counts
from planner.vocabulary import Layout, Offload, Recompute


def estimate_memory(model: ModelSpec, config: MemoryConfig) -> MemoryBreakdown:
    """Per-GPU memory in bytes of ``model`` under ``config``; UserError on an impossible layout.

    With pipeline parallelism the figures are those of the fuller of the first and last stage.
    """
    config = normalised(config)
    notes = checked_notes(model, config)
    counts = param_counts(model)
    stages = pipeline_stages(model, config.layout.pp)
    amounts = [stage_amounts(model, config, stage, counts) for stage in stages]
    fullest = max(amounts, key=lambda stage_amounts: stage_amounts.total_bytes)
    terms = stage_terms(model, config, stages[amounts.index(fullest)], fullest)
    notes += model_notes(model, config, fullest)
    return MemoryBreakdown(
        **terms,
        notes=render_all_en(notes),
        note_messages=tuple(notes),
        pipeline_stage=fullest.stage,
        host_offload_bytes=math.ceil(fullest.host_bytes),
        zero3_gathered_bytes=math.ceil(fullest.gathered_bytes),
        not_concurrent_bytes=fullest.not_concurrent,
        peak_phase=fullest.peak_phase,
    )


def estimate_total_bytes(model: ModelSpec, config: MemoryConfig) -> int:
    """estimate_memory(model, config).total_bytes without the words and notes (bytes per GPU; a few times
    faster, for search loops). UserError on an impossible layout, as estimate_memory."""
    config = normalised(config)
    checked_notes(model, config)  # for its UserError; the notes are not wanted here
    counts = param_counts(model)
    return max(
        stage_amounts(model, config, stage, counts).total_bytes
        for stage in pipeline_stages(model, config.layout.pp)
    )


def stage_total_bytes(model: ModelSpec, config: MemoryConfig, stage: Stage) -> int:
    """Bytes per GPU of one given pipeline stage (planner.memory.stages.split_stages: a pipeline sized per GPU
    type) under `config` (its layout's pp is the number of stages; config.inflight_microbatches says how many
    micro-batches the first stage holds, stage i min(that, pp - i)); UserError on an impossible layout."""
    return StageTotals(model, config).total(stage)


class StageTotals:
    """stage_total_bytes for many stages of one config, for a search: the config is normalised and checked
    once (UserError here on an impossible layout), the per-token activations computed once, each stage once."""

    def __init__(self, model: ModelSpec, config: MemoryConfig):
        self._model = model
        self._config = config = normalised(config)
        checked_notes(model, config)
        self._counts = param_counts(model)
        self._divisors = divisors_of(model, config.layout)
        training = config.task.is_training
        self._per_token = per_token_activations(model, config, self._divisors) if training else None
        self._known: dict[Stage, int] = {}

    def total(self, stage: Stage) -> int:
        found = self._known.get(stage)
        if found is None:
            model, config, layout = self._model, self._config, self._config.layout
            shape = stage_shape(model, config, stage, self._counts, self._divisors)
            acts = stage_activations(model, config, stage, self._divisors, self._per_token, layout.recompute,
                                     layout.micro_batch)  # fmt: skip
            state = stage_state(shape, acts, layout.dp, layout.zero, layout.offload, config.gradient_accumulation)
            found = self._known[stage] = state.total_bytes
        return found


def _is_count(value: object, upper: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= upper


# Module constants: _state_allowed runs for every total a search asks for (see planner.memory.stages).
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER
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
    divisors: Divisors
    stages: tuple[Stage, ...]
    shapes: tuple[StageShape, ...]


_Variant = tuple[tuple[StageShape, StageActivations], ...]


class MemoryTotals:
    """Per-GPU totals in bytes for many layouts of one model and one base MemoryConfig, for search loops.

    total(layout) equals estimate_memory(model, replace(base, layout=layout)).total_bytes, or is None where
    estimate_memory raises UserError. It is the same arithmetic (stage_shape, stage_activations,
    stage_state), but each part is computed once for what it depends on -- (tp, pp, ep); (tp, recompute);
    (tp, pp, ep, recompute, micro-batch) -- and reused for every dp, ZeRO stage and offload mode, and no words
    are built: a search asks for thousands of such layouts.
    """

    def __init__(self, model: ModelSpec, base: MemoryConfig):
        self._model = model
        self._base = base
        self._shapes: dict[tuple[int, int, int], _Shape | None] = {}
        self._per_token: dict[tuple[int, str], tuple[float, float, float, float]] = {}
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
                checked_notes(self._model, config)
            except UserError:
                self._shapes[key] = None
                return None
            divisors = divisors_of(self._model, config.layout)  # dp-independent: tp and ep only
            counts = param_counts(self._model)
            stages = pipeline_stages(self._model, pp)
            shapes = tuple(stage_shape(self._model, config, stage, counts, divisors) for stage in stages)
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
                per_token = per_token_activations(
                    self._model, dataclasses.replace(at.config, layout=layout), at.divisors
                )
                self._per_token[(tp, mode)] = per_token
        return tuple(
            (
                shape,
                stage_activations(self._model, at.config, stage, at.divisors, per_token, mode, micro_batch),
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
        accumulation = self._base.gradient_accumulation
        return max(
            stage_state(shape, acts, layout.dp, layout.zero, layout.offload, accumulation).total_bytes
            for shape, acts in variant
        )
