"""estimate_memory (the breakdown with its words), estimate_total_bytes (the total alone) and MemoryTotals
(totals for many layouts of one model, reusing what they share)."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from planner.errors import UserError
from planner.memory.checks import checked_notes, normalised
from planner.memory.config import (
    MAX_DEGREE,
    MAX_GPUS,
    MAX_MICRO_BATCH,
    MemoryBreakdown,
    MemoryConfig,
    with_layout,
)
from planner.memory.divisors import Divisors, divisors_of
from planner.memory.pipeline_stages import Stage, pipeline_stages
from planner.memory.runtimes import chosen_runtime, runtime_refusal
from planner.memory.shapes import StageShape
from planner.memory.stage_activations import (
    ActivationClassTerms,
    StageActivations,
    TrainingActivationTerms,
    inflight_at,
    per_token_activations,
    stage_activations,
    training_activations_at,
    training_class_terms,
)
from planner.memory.stages import (
    StageAmounts,
    sixteen_bit_compute,
    stage_amounts,
    stage_host_totals,
    stage_shape,
    stage_state,
    stage_state_totals,
)
from planner.memory.words import model_notes, stage_terms
from planner.messages import Message
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
    return _breakdown(model, config, notes, stages, amounts)


def _breakdown(
    model: ModelSpec,
    config: MemoryConfig,
    notes: list[Message],
    stages: tuple[Stage, ...],
    amounts: list[StageAmounts],
) -> MemoryBreakdown:
    """The MemoryBreakdown of the fullest stage, from every candidate stage's numbers (normalised config)."""
    fullest = max(amounts, key=lambda stage_amounts: stage_amounts.total_bytes)
    terms = stage_terms(model, config, stages[amounts.index(fullest)], fullest)
    notes += model_notes(model, config, fullest)
    return MemoryBreakdown(
        **terms,
        note_messages=tuple(notes),
        pipeline_stage=fullest.stage,
        host_offload_bytes=math.ceil(fullest.host_bytes),
        zero3_gathered_bytes=math.ceil(fullest.gathered_bytes),
        not_concurrent_bytes=fullest.not_concurrent,
        peak_phase=fullest.peak_phase,
        runtime=fullest.runtime,
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
            state = stage_state(
                shape, acts, layout.dp, layout.zero, layout.offload, config.gradient_accumulation,
                config.addable_peak,
            )  # fmt: skip
            found = self._known[stage] = state.total_bytes
        return found


def _is_count(value: object, upper: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 < value <= upper


# Module constants: _state_allowed runs for every total a search asks for (see planner.memory.stages).
_OFFLOAD_ALL = Offload.ALL
_OFFLOAD_OPTIMIZER = Offload.OPTIMIZER
_OFFLOAD_VALUES = frozenset(Offload.values())
_RECOMPUTE_VALUES = frozenset(Recompute.values())
# Recompute(value) by a dict: the member itself (a StrEnum hashes and compares as its value), without the enum
# call's cost; _variant looks it up only for a value _variant_allowed let through.
_RECOMPUTE_OF = {mode.value: mode for mode in Recompute}


def _state_allowed(zero: int, offload: str, training: bool) -> bool:
    """validate_layout's rules on the ZeRO stage and offload (True: allowed); _dp_allowed has those that involve
    dp. The others are checked once per shape by MemoryTotals; together they refuse exactly what validate_layout
    refuses."""
    if offload not in _OFFLOAD_VALUES or zero not in (0, 1, 2, 3) or isinstance(zero, bool):
        return False
    return not training or not (
        (offload == _OFFLOAD_OPTIMIZER and zero == 0) or (offload == _OFFLOAD_ALL and zero != 3)
    )


def _dp_allowed(dp: int, tp: int, pp: int, ep: int) -> bool:
    """validate_layout's rules that involve dp (the shape's own rules passed)."""
    return _is_count(dp, MAX_DEGREE) and dp * tp * pp <= MAX_GPUS and (ep == 1 or (dp * tp) % ep == 0)


def _variant_allowed(recompute: object, micro_batch: object) -> bool:
    """validate_layout's rules on the recompute mode and the micro-batch alone."""
    return recompute in _RECOMPUTE_VALUES and _is_count(micro_batch, MAX_MICRO_BATCH)


@dataclass(frozen=True, slots=True)
class _ShapeParts:
    """What a (tp, pp, ep) gives every config that differs only in sequence parallel and in-flight micro-batches:
    the divisors, the candidate stages and each one's shape (stage_shape reads neither)."""

    divisors: Divisors
    stages: tuple[Stage, ...]
    shapes: tuple[StageShape, ...]


_ONE_GPU = Layout()
_Variant = tuple[tuple[StageShape, StageActivations], ...]
_MISSING = object()


# The fields of the configs whose totals share a store (SharedShapes): all but these three.
_SHARED_FIELDS = tuple(
    field.name for field in dataclasses.fields(MemoryConfig)
    if field.name not in ("sequence_parallel", "inflight_microbatches", "virtual_stages", "layout")
)  # fmt: skip


def _unpinned(config: MemoryConfig) -> MemoryConfig:
    """`config` without a pinned runtime: the shape and config rules are checked without it, since what a
    runtime can run depends on the sharding state too (MemoryTotals._runtime_allowed checks it per state)."""
    return config if config.runtime is None else dataclasses.replace(config, runtime=None)


class SharedShapes:
    """Shape-level validity and stage shapes per (tp, pp, ep), shared by the MemoryTotals of one model whose base
    configs differ only in sequence_parallel and inflight_microbatches (a search's configs: planner.search).

    validate_layout's refusals split into rules on the config alone (counts such as seq_len and the in-flight
    micro-batches, the task's rules) and rules on the shape (tp, pp, ep against the model and MAX_GPUS), and no
    rule reads sequence_parallel. So a config that passes its own rules (MemoryTotals checks them once, at the
    one-GPU layout, which no shape rule refuses unless every shape is refused) refuses exactly the shapes the
    shape rules refuse, whichever such config found them. The per-token activations are shared too, by sequence
    parallel, divisors and recompute mode (_SharedStore).
    """

    def __init__(self) -> None:
        self._by_base: dict[tuple[object, ...], _SharedStore] = {}

    def store(self, model: ModelSpec, base: MemoryConfig) -> _SharedStore:
        """What configs like `base` share: (tp, pp, ep) -> parts (None: refused), and per in-flight count
        whether the config passes its own rules."""
        key = (model, *[getattr(base, name) for name in _SHARED_FIELDS])
        found = self._by_base.get(key)
        if found is None:
            found = self._by_base[key] = _SharedStore({}, {}, {}, {})
        return found


class _SharedStore(NamedTuple):
    parts: dict[tuple[int, int, int], _ShapeParts | None]
    config_ok: dict[int | None, bool]  # by inflight_microbatches, the one config rule the configs differ in
    # per_token_activations by (sequence parallel, divisors, recompute): they read neither pp nor the in-flight
    # micro-batches, and of the layout only the recompute mode (the divisors stand for tp and ep)
    per_token: dict[tuple[bool, Divisors, str], tuple[float, float, float, float]]
    # training_class_terms per stage by (sequence parallel, tp, pp, ep, recompute): no in-flight count in them
    class_terms: dict[
        tuple[bool, int, int, int, str], tuple[tuple[ActivationClassTerms, ActivationClassTerms], ...]
    ]


class MemoryTotals:
    """Per-GPU totals in bytes for many layouts of one model and one base MemoryConfig, for search loops.

    total(layout) equals estimate_memory(model, replace(base, layout=layout)).total_bytes, or is None where
    estimate_memory raises UserError. It is the same arithmetic (stage_shape, stage_activations,
    stage_state), but each part is computed once for what it depends on -- (tp, pp, ep); (tp, ep, recompute);
    (tp, pp, ep, recompute) for training activations but the micro-batch; (tp, pp, ep, recompute, micro-batch)
    -- and reused for every dp, ZeRO stage and offload mode, and no words are built: a search asks for
    thousands of such layouts. totals() gives one layout's totals at several dps at once, without a Layout per
    dp and with what dp does not change worked out once (stage_state_totals). `shared` (SharedShapes) lets the
    totals of configs that differ only in sequence parallel and in-flight micro-batches share the (tp, pp, ep)
    parts.
    """

    def __init__(self, model: ModelSpec, base: MemoryConfig, shared: SharedShapes | None = None):
        self._model = model
        self._base = base
        self._shapes: dict[tuple[int, int, int], _ShapeParts | None] = {}
        self._variants: dict[tuple[int, int, int, str, int], _Variant | None] = {}
        # training: per (tp, pp, ep, recompute) each stage's activations but the micro-batch
        self._terms: dict[tuple[int, int, int, str], tuple[TrainingActivationTerms, ...]] = {}
        self._shared = (SharedShapes() if shared is None else shared).store(model, base)
        self._normal_base: MemoryConfig | None = None  # normalised at the one-GPU layout (_config_allowed)
        self._training = False  # its task trains (set with _normal_base)

    def _at_one_gpu(self) -> MemoryConfig:
        """The base config at the one-GPU layout."""
        return with_layout(self._base, _ONE_GPU)

    def _config_allowed(self) -> bool:
        """The base config passes validate_layout at the one-GPU layout (see SharedShapes)."""
        inflight = self._base.inflight_microbatches
        allowed = self._shared.config_ok.get(inflight)
        if allowed is None:
            try:
                checked_notes(self._model, _unpinned(normalised(self._at_one_gpu())))
                allowed = True
            except UserError:
                allowed = False
            self._shared.config_ok[inflight] = allowed
        return allowed

    def _shape(self, tp: int, pp: int, ep: int) -> _ShapeParts | None:
        """The shared parts at (tp, pp, ep), or None where validate_layout refuses the shape.

        It is validated with a state and an activation variant that pass every rule of their own: the smallest
        dp that ep divides (dp x tp), no ZeRO, no offload, no recompute, micro-batch 1. Whatever validate_layout
        refuses with them it refuses for every state and variant; the rules on the state and the variant alone
        are _state_allowed, _dp_allowed and _variant_allowed.
        """
        key = (tp, pp, ep)
        if key in self._shapes:
            return self._shapes[key]
        found: _ShapeParts | None = None
        if self._config_allowed():
            valid_ints = all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (tp, ep))
            dp = ep // math.gcd(ep, tp) if valid_ints else 1
            shared = self._shared.parts
            parts = shared.get(key, _MISSING)
            if parts is _MISSING:
                probe = with_layout(self._base, Layout(dp=dp, tp=tp, pp=pp, ep=ep))
                parts = shared[key] = self._shape_parts(probe)
            if isinstance(parts, _ShapeParts):
                if self._normal_base is None:  # the config's choices parse: _config_allowed passed
                    self._normal_base = normalised(self._at_one_gpu())
                    self._training = self._normal_base.task.is_training
                found = parts
        self._shapes[key] = found
        return found

    def _shape_parts(self, probe: MemoryConfig) -> _ShapeParts | None:
        try:
            config = normalised(probe)
            checked_notes(self._model, _unpinned(config))
        except UserError:
            return None
        divisors = divisors_of(self._model, config.layout)  # dp-independent: tp and ep only
        counts = param_counts(self._model)
        stages = pipeline_stages(self._model, config.layout.pp)
        shapes = tuple(stage_shape(self._model, config, stage, counts, divisors) for stage in stages)
        return _ShapeParts(divisors, stages, shapes)

    def _variant(self, tp: int, pp: int, ep: int, recompute: str, micro_batch: int) -> _Variant | None:
        """((shape, activations) per candidate stage) at this layout and activation variant, or None.

        The activations read the config as the normalised base (_normal_base) and never its layout, but for pp
        (the in-flight micro-batches) and the recompute mode, which are passed as they are: the same figures as
        at the config normalised at this layout."""
        at = self._shape(tp, pp, ep)
        if at is None or not _variant_allowed(recompute, micro_batch):
            return None
        config = self._normal_base
        assert config is not None  # set by _shape with the first shape it allows
        if not self._training:
            mode = _RECOMPUTE_OF[recompute]
            return tuple(
                (shape, stage_activations(self._model, config, stage, at.divisors, None, mode, micro_batch))
                for stage, shape in zip(at.stages, at.shapes, strict=True)
            )
        terms = self._terms.get((tp, pp, ep, recompute))
        if terms is None:
            mode = _RECOMPUTE_OF[recompute]
            inflight, virtual = config.inflight_microbatches, config.virtual_stages
            terms = self._terms[(tp, pp, ep, mode)] = tuple(
                TrainingActivationTerms(inflight_at(pp, inflight, stage.index, virtual), *stage_classes)
                for stage, stage_classes in zip(
                    at.stages, self._class_terms(at, (tp, pp, ep), mode), strict=True
                )
            )
        tokens = micro_batch * config.seq_len
        pairs = zip(at.shapes, terms, strict=True)
        return tuple([(shape, training_activations_at(stage_terms, tokens)) for shape, stage_terms in pairs])

    def _class_terms(
        self, at: _ShapeParts, shape: tuple[int, int, int], mode: Recompute
    ) -> tuple[tuple[ActivationClassTerms, ActivationClassTerms], ...]:
        """training_class_terms of each candidate stage, shared by the configs of the store (by sequence
        parallel, shape and recompute mode), from the per-token activations it shares too."""
        config = self._normal_base
        assert config is not None  # _variant's
        sequence_parallel = config.sequence_parallel
        found = self._shared.class_terms.get((sequence_parallel, *shape, mode))
        if found is None:
            # by divisors, not tp alone: the MoE layers' activations depend on ep too (the expert divisor)
            key = (sequence_parallel, at.divisors, mode)
            per_token = self._shared.per_token.get(key)
            if per_token is None:
                # of the layout, per_token_activations reads the recompute mode only (tp and ep: the divisors)
                per_token = per_token_activations(
                    self._model, with_layout(config, Layout(recompute=mode)), at.divisors
                )
                self._shared.per_token[key] = per_token
            found = self._shared.class_terms[(sequence_parallel, *shape, mode)] = tuple(
                training_class_terms(self._model, config, stage, at.divisors.tp, per_token, mode)
                for stage in at.stages
            )
        return found

    def _cached_variant(self, tp: int, pp: int, ep: int, recompute: str, micro_batch: int) -> _Variant | None:
        """_variant, worked out once per (tp, pp, ep, recompute, micro-batch)."""
        key = (tp, pp, ep, recompute, micro_batch)
        variant = self._variants.get(key, _MISSING)
        if variant is _MISSING:  # (most are asked once: a miss must be cheap too, no KeyError raised)
            variant = self._variants[key] = self._variant(*key)
        return variant  # type: ignore[return-value]

    def _allowed_variant(self, layout: Layout) -> _Variant | None:
        """The cached (shape, activations) per candidate stage of `layout`, or None where it is refused."""
        variant = self._cached_variant(layout.tp, layout.pp, layout.ep, layout.recompute, layout.micro_batch)
        if (
            variant is None
            or not _state_allowed(layout.zero, layout.offload, variant[0][0].training)
            or not _dp_allowed(layout.dp, layout.tp, layout.pp, layout.ep)
            or not self._runtime_allowed(layout.tp, layout.pp, layout.ep, layout.zero, layout.offload)
        ):
            return None
        return variant

    def _runtime_allowed(self, tp: int, pp: int, ep: int, zero: int, offload: str) -> bool:
        """The pinned runtime (if any) can run this training state: validate_layout's one rule on the runtime
        (planner.memory.checks._check_runtime), checked after the others."""
        runtime = self._base.runtime
        config = self._normal_base
        if config is None or not config.task.is_training:
            return True
        family = self._model.family
        if runtime is None:
            return chosen_runtime(None, config.task, tp, pp, ep, zero, offload, family) is not None
        return not runtime_refusal(runtime, config.task, tp, pp, ep, zero, offload, family)

    def sixteen_bit_compute(self, tp: int, pp: int, ep: int, zero: int, offload: str) -> bool:
        """planner.memory.stages.sixteen_bit_compute of this shape and sharding state (False where the shape is
        refused): which class of activations its totals count."""
        at = self._shape(tp, pp, ep)
        return at is not None and sixteen_bit_compute(at.shapes[0], zero, offload)

    def breakdown(self, layout: Layout, accumulation: int | None = None) -> MemoryBreakdown | None:
        """estimate_memory(model, replace(base, layout=layout)) (with gradient_accumulation `accumulation` where
        given), or None where it raises UserError: the words and notes of the layout on the cached stage shapes
        and activations."""
        variant = self._allowed_variant(layout)
        if variant is None:
            return None
        base = self._base
        if accumulation is not None:
            base = dataclasses.replace(base, gradient_accumulation=accumulation, addable_peak=False)
        try:  # refuses nothing _allowed_variant allows (test_memory_totals); kept for the contract's sake
            config = normalised(with_layout(base, layout))
            notes = checked_notes(self._model, config)
        except UserError:
            return None
        accumulation = config.gradient_accumulation
        amounts = [
            stage_state(shape, acts, layout.dp, layout.zero, layout.offload, accumulation, config.addable_peak)
            for shape, acts in variant
        ]
        return _breakdown(self._model, config, notes, pipeline_stages(self._model, layout.pp), amounts)

    def total(self, layout: Layout) -> int | None:
        """Bytes per GPU of the fullest pipeline stage; None for a layout estimate_memory would refuse."""
        variant = self._allowed_variant(layout)
        if variant is None:
            return None
        accumulation, dps = self._base.gradient_accumulation, (layout.dp,)
        return max(
            stage_state_totals(shape, acts, layout.zero, layout.offload, accumulation, dps, self._base.addable_peak)[0]
            for shape, acts in variant
        )

    def host_totals(
        self, tp: int, pp: int, ep: int, zero: int, offload: str, recompute: str, micro_batch: int, dp: int
    ) -> float | None:
        """The host_offload_bytes of that layout (the fullest stage's CPU RAM per GPU; None where refused):
        what stage_host_totals counts, on the same cached variant as totals()."""
        variant = self._cached_variant(tp, pp, ep, recompute, micro_batch)
        if (
            variant is None
            or not _state_allowed(zero, offload, variant[0][0].training)
            or not _dp_allowed(dp, tp, pp, ep)
            or not self._runtime_allowed(tp, pp, ep, zero, offload)
        ):
            return None
        accumulation = self._base.gradient_accumulation
        return max(
            stage_host_totals(shape, acts, zero, offload, accumulation, (dp,))[0] for shape, acts in variant
        )

    def totals(
        self,
        tp: int,
        pp: int,
        ep: int,
        zero: int,
        offload: str,
        recompute: str,
        micro_batch: int,
        dps: Sequence[int],
    ) -> list[int | None]:
        """[total(Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=zero, recompute=recompute, offload=offload,
        micro_batch=micro_batch)) for dp in dps]: the same cached variant and stage arithmetic, without building
        a Layout per dp, and what dp does not change worked out once (stage_state_totals)."""
        variant = self._cached_variant(tp, pp, ep, recompute, micro_batch)
        training = variant is not None and variant[0][0].training
        if (
            variant is None
            or not _state_allowed(zero, offload, training)
            or not self._runtime_allowed(tp, pp, ep, zero, offload)
        ):
            return [None] * len(dps)
        accumulation = self._base.gradient_accumulation
        if len(dps) == 1:  # (a search's variant deltas ask one dp at a time): nothing to share between dps
            if not _dp_allowed(dps[0], tp, pp, ep):
                return [None]
            return [
                max(
                    [
                        stage_state_totals(shape, acts, zero, offload, accumulation, dps, self._base.addable_peak)[0]
                        for shape, acts in variant
                    ]
                )
            ]
        # Without ZeRO sharding (inference counts as ZeRO-0) dp enters only through the data-parallel
        # communicator, dp > 1 (stages._state_figures): every dp above 1 has the same total.
        unsharded = not training or zero == 0
        asked: list[int] = []  # the dps worked out
        where: dict[int, int] = {}  # the position in `asked` of a dp (unsharded: of dp > 1)
        positions: list[int | None] = []  # each dp's (None: refused)
        for dp in dps:
            position = None
            if _dp_allowed(dp, tp, pp, ep):
                key = dp > 1 if unsharded else dp
                position = where.get(key)
                if position is None:
                    position = where[key] = len(asked)
                    asked.append(dp)
            positions.append(position)
        per_stage = [
            stage_state_totals(shape, acts, zero, offload, accumulation, asked, self._base.addable_peak)
            for shape, acts in variant
        ]
        fullest = per_stage[0] if len(per_stage) == 1 else list(map(max, *per_stage))  # the fullest stage's
        return [None if position is None else fullest[position] for position in positions]
