"""The training search: for every layout (tp, pp, ep) fit per-GPU memory as a + b/dp per sharding state from
two exact estimates, add the activation variant's delta, and time only the layouts that fit; the chosen
options are re-estimated exactly."""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from operator import itemgetter
from typing import NamedTuple

from planner import perf
from planner.layout_text import family_message, sharding_hint
from planner.messages import Message, msg, render_all_en
from planner.search.common import Found, GpuSearch, SearchInputs, price_option
from planner.search.enumeration import (
    MICRO_BATCHES,
    allowed,
    candidate_gpu_counts,
    pinned_count,
    pipeline_depths,
)
from planner.search.ranking import rank_key
from planner.search.types import Excluded, PlanOption
from planner.vocabulary import Confidence, Layout, Offload, RankBy, Recompute, ZeroStage

# Pipeline parallel runs with ZeRO stage 0 or 1 only. DeepSpeed's PipelineEngine asserts it
# (deepspeed/runtime/pipe/engine.py: "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism"); Megatron-LM's
# distributed optimizer shards only the optimizer states (ZeRO-1); TorchTitan combines FSDP2 with PP but by default
# does not reshard parameters after forward under PP (torchtitan/distributed/fsdp.py, to avoid an all-gather per
# micro-batch), so each stage keeps whole parameters, which the ZeRO-3 memory model here would understate.
PIPELINE_MAX_ZERO = ZeroStage.OPTIMIZER

# A sharding state: the ZeRO stage and what is offloaded.
State = tuple[ZeroStage, Offload]
# An activation variant: the recompute mode and the micro-batch.
Variant = tuple[Recompute, int]
# A model-parallel shape: tp, pp, ep and the virtual pipeline stages per rank (interleaved 1F1B).
Shape = tuple[int, int, int, int]
# Interleaved 1F1B chunks per pipeline rank the search tries (at least one layer per chunk; uneven chunks as
# torchtitan allows); Llama 3 405B trained interleaved (arXiv 2407.21783, section 3.3.2). Four chunks take
# three quarters of the bubble away; finer steps add search time, not insight.
VIRTUAL_STAGES = (1, 4)
# The family an excluded entry names: a data-parallel-only state, or None for every layout with tensor or
# pipeline parallelism ("tensor/pipeline parallel").
FamilyKey = State | None


@dataclass(frozen=True, slots=True)
class _StateFit:
    """Per-GPU bytes of one sharding state at the reference activation variant: a + b / dp, from two exact
    estimates; at_one is the exact figure at dp 1 (one rank has no shards or communicator; inf where
    impossible, None when dp 1 is not searched)."""

    state: State
    a: float
    b: float
    at_one: float | None

    def need(self, dp: int, delta: float) -> float:
        """Per-GPU bytes at `dp` plus an activation variant's delta (dp 1: the exact figure)."""
        if dp == 1 and self.at_one is not None:
            return self.at_one + delta
        return self.a + self.b / dp + delta


class _Candidate(NamedTuple):
    """A (state, activation variant) that fits at one layout and dp, fields in the order that ranks the ones
    worth timing (a named tuple: the search builds thousands, and sorts them by their first four fields)."""

    rank: int  # of the activation variant, lightest recompute first
    offloaded: bool
    zero3: bool
    zero: int
    state: State
    variant: Variant

    @property
    def order(self) -> tuple[int, bool, bool, int]:
        return (self.rank, self.offloaded, self.zero3, self.zero)

    def dominates(self, other: _Candidate) -> bool:
        """No heavier in activations and no dearer in kind: `other` is never faster."""
        return self.rank <= other.rank and self.offloaded <= other.offloaded and self.zero3 <= other.zero3


_ORDER = itemgetter(0, 1, 2, 3)  # _Candidate.order, as a sort key


@dataclass(frozen=True, slots=True)
class _Best:
    key: tuple[float, int, bool, int, int]
    layout: Layout


def _layout(tp: int, pp: int, ep: int, dp: int, state: State, variant: Variant, virtual: int = 1) -> Layout:
    return Layout(dp=dp, tp=tp, pp=pp, ep=ep, zero=state[0], recompute=variant[0], offload=state[1],
                  micro_batch=variant[1], virtual_stages=virtual)  # fmt: skip


def family_key(layout: Layout) -> FamilyKey:
    """The excluded-entry family of a layout (data-parallel-only layouts by their state)."""
    if layout.tp == 1 and layout.pp == 1:
        return (ZeroStage(layout.zero), Offload(layout.offload))
    return None


def excluded_family_message(family: FamilyKey, layout: Layout) -> Message:
    """What an excluded family stands for, in words that cannot contradict the options shown beside it.

    Needs are recorded per family only for pure data-parallel layouts (TP 1, PP 1); every layout with tensor or
    pipeline parallelism is one more family, "tensor/pipeline parallel". So "ZeRO-2" alone would read as if
    ZeRO-2 could not work while an option uses ZeRO-2 + TP 4: the words say "without tensor/pipeline parallel".
    `layout` is the family's lightest layout.
    """
    if family is None:
        return msg("excluded.family.tensor_pipeline")
    return msg("excluded.family.data_parallel_only", family=family_message(layout))


class TrainingSearch(GpuSearch):
    """Training: the fastest fitting layout per GPU count, and why the sharding families left out do not fit."""

    def __init__(self, inputs: SearchInputs):
        super().__init__(inputs)
        self.counts = candidate_gpu_counts(self.max_gpus, self.per_node, self.constraints.gpus)
        self.best: dict[int, _Best] = {}  # GPU count -> the fastest layout found
        self.family_need: dict[FamilyKey, tuple[float, Layout]] = {}
        self.smallest_need: tuple[float, Layout] | None = None
        self.states = self._states()  # the states to try at every layout without a pipeline
        # With a pipeline only ZeRO-0/1 (see PIPELINE_MAX_ZERO); True once a pipelined layout was skipped for it.
        self.pipeline_states = [state for state in self.states if state[0] <= PIPELINE_MAX_ZERO]
        self.skipped_pipeline = False
        self.options = perf.TrainingOptions(optimizer=str(self.workload.optimizer), lora_rank=self.workload.lora_rank)
        workload = self.workload
        self.step_model = perf.StepModel(
            self.inputs.numbers, self.gpu, seq_len=workload.seq_len, global_batch=workload.global_batch,
            rates=self.inputs.rates, task=workload.task, precision=workload.precision,
            comm_overlap=workload.comm_overlap, gpus_per_node=self.per_node,
            inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s, options=self.options,
        )  # fmt: skip

    # -- enumeration ---------------------------------------------------------------------------------------
    def _layouts(self) -> Iterator[Shape]:
        model = self.model
        tps = self.tensor_parallel_sizes()
        pps = allowed("pp", pipeline_depths(model.layers), self.pinned, pinned_count)
        # Expert parallel: 1, 4, 16, 64 and all experts when that is at most 64 (DeepSeek-V3 trained with EP 64,
        # arXiv 2412.19437); finer steps add search time, not insight.
        experts = [1]
        if model.is_moe:
            steps = (1, 4, 16, 64, model.experts)
            experts = sorted({e for e in steps if e <= min(64, model.experts) and model.experts % e == 0})
        eps = allowed("ep", experts, self.pinned, pinned_count)
        virtuals = allowed("virtual_stages", VIRTUAL_STAGES, self.pinned, pinned_count)
        for tp in tps:
            for pp in pps:
                for ep in eps:
                    for virtual in virtuals:
                        if virtual == 1 or (pp > 1 and model.layers >= pp * virtual):
                            yield tp, pp, ep, virtual

    def _states(self) -> list[State]:
        zeros = allowed("zero", list(ZeroStage), self.pinned, ZeroStage.parse)
        offloads = allowed("offload", list(Offload), self.pinned, Offload.parse)
        # Optimizer offload with ZeRO-2/3 (ZeRO-Offload's pairing), parameter offload with ZeRO-3 only.
        return [
            (zero, offload)
            for zero in zeros
            for offload in offloads
            if offload == Offload.NONE
            or (offload == Offload.OPTIMIZER and zero >= ZeroStage.GRADIENTS)
            or (offload == Offload.ALL and zero == ZeroStage.WEIGHTS)
        ]

    def _variants(self, pp: int) -> list[Variant]:
        """(recompute, micro-batch) in order of preference: least recompute first; with a pipeline the smallest
        micro-batch (more micro-batches, smaller bubble), without one the largest (bigger kernels)."""
        # Selective recompute only drops the attention-score matrix, which flash attention never stores
        # (planner.memory): it saves no memory here, so the search tries it only when pinned.
        recomputes = allowed("recompute", [Recompute.NONE, Recompute.FULL], self.pinned, Recompute.parse)
        batches = allowed("micro_batch", MICRO_BATCHES, self.pinned, pinned_count)
        batches = sorted(batches) if pp > 1 else sorted(batches, reverse=True)
        return [(r, mb) for r in recomputes for mb in batches]

    def _dps(self, tp: int, pp: int, ep: int) -> list[int]:
        base = ep // math.gcd(ep, tp)  # ep must divide dp x tp
        pinned_dp = pinned_count(self.pinned["dp"]) if self.pinned.get("dp") is not None else None
        dps = []
        for count in self.counts:
            if count % (tp * pp):
                continue
            dp = count // (tp * pp)
            if dp % base or dp > self.workload.global_batch:
                continue
            if pinned_dp is not None and dp != pinned_dp:
                continue
            dps.append(dp)
        return dps

    # -- memory fit ------------------------------------------------------------------------------------------
    def _fit_states(
        self,
        shape: Shape,
        base: int,
        reference: Variant,
        with_dp_one: bool,
        states: list[State],
    ) -> list[_StateFit]:
        """The a + b / dp fit of each state that is possible at this layout."""
        tp, pp, ep, virtual = shape
        total = self.memory.total
        fits = []
        low, high = (2 * base, 4 * base) if base == 1 else (base, 2 * base)
        for state in states:
            t_low = total(_layout(tp, pp, ep, low, state, reference, virtual))
            t_high = total(_layout(tp, pp, ep, high, state, reference, virtual))
            if t_low is None or t_high is None:
                continue
            b = (t_low - t_high) / (1 / low - 1 / high)
            at_one: float | None = None
            if with_dp_one:
                exact = total(_layout(tp, pp, ep, 1, state, reference, virtual))
                at_one = math.inf if exact is None else exact
            fits.append(_StateFit(state, t_low - b / low, b, at_one))
        return fits

    def _variant_deltas(
        self,
        shape: Shape,
        dp: int,
        state: State,
        variants: list[Variant],
        ref_total: int | None,
    ) -> dict[Variant, float]:
        """(recompute, micro-batch) -> bytes above the reference variant. Activations grow linearly with the
        micro-batch, so two exact estimates per recompute mode give every micro-batch."""
        if ref_total is None:
            return {}
        tp, pp, ep, virtual = shape
        at: dict[Variant, int | None] = {}

        def total(variant: Variant) -> int | None:
            if variant not in at:
                at[variant] = self.memory.total(_layout(tp, pp, ep, dp, state, variant, virtual))
            return at[variant]

        deltas: dict[Variant, float] = {}
        for recompute, micro_batch in variants:
            one, two = total((recompute, 1)), total((recompute, 2))
            if one is None or two is None:
                continue
            deltas[(recompute, micro_batch)] = one + (micro_batch - 1) * (two - one) - ref_total
        return deltas

    def run(self) -> Found:
        for shape in self._layouts():
            self._search_layout(shape)
        self._finish()
        return self.found

    def _search_layout(self, shape: Shape) -> None:
        tp, pp, ep, virtual = shape
        dps = self._dps(tp, pp, ep)
        if not dps:
            return
        base = ep // math.gcd(ep, tp)
        variants = self._variants(pp)
        states = self.states if pp == 1 else self.pipeline_states
        if not states:
            self.skipped_pipeline = True
            return
        found = self._memory_fits(shape, base, variants, states, 1 in dps)
        if found is None:
            return
        fits, deltas = found
        self._record_needs(shape, dps, fits, deltas)
        ranked = [(rank, variant, delta) for rank, (variant, delta) in enumerate(deltas.items())]
        for dp in dps:
            self._consider(shape, dp, fits, ranked)

    def _memory_fits(
        self, shape: Shape, base: int, variants: list[Variant], states: list[State], with_dp_one: bool
    ) -> tuple[list[_StateFit], dict[Variant, float]] | None:
        """The state fits and variant deltas of a layout (None when nothing is possible there). They depend on
        the model, workload and layout only, so every GPU type of one search shares them (SearchMemory)."""
        key = (shape, base, tuple(variants), tuple(states), with_dp_one)
        cache = self.memory.layout_fits
        if key in cache:
            return cache[key]  # type: ignore[return-value]
        tp, pp, ep, virtual = shape
        reference = variants[0]
        found: tuple[list[_StateFit], dict[Variant, float]] | None = None
        fits = self._fit_states(shape, base, reference, with_dp_one, states)
        if fits:
            ref_total = self.memory.total(_layout(tp, pp, ep, 2 * base, fits[0].state, reference, virtual))
            deltas = self._variant_deltas(shape, 2 * base, fits[0].state, variants, ref_total)
            if deltas:
                found = (fits, deltas)
        cache[key] = found
        return found

    def _record_needs(
        self, shape: Shape, dps: list[int], fits: list[_StateFit], deltas: dict[Variant, float]
    ) -> None:
        """Smallest per-GPU need per family (at the largest dp and lightest activations), for excluded reasons."""
        tp, pp, ep, virtual = shape
        dp = max(dps)
        lightest = min(deltas, key=lambda variant: deltas[variant])
        for fit in fits:
            need = fit.need(dp, deltas[lightest])
            layout = _layout(tp, pp, ep, dp, fit.state, lightest, virtual)
            family = family_key(layout)
            if family not in self.family_need or need < self.family_need[family][0]:
                self.family_need[family] = (need, layout)
            if self.smallest_need is None or need < self.smallest_need[0]:
                self.smallest_need = (need, layout)

    def _candidates(
        self, dp: int, fits: list[_StateFit], ranked: list[tuple[int, Variant, float]]
    ) -> list[_Candidate]:
        """Per state, the most preferred activation variant that fits at this dp."""
        allowed_variants = [item for item in ranked if item[1][1] * dp <= self.workload.global_batch]
        candidates = []
        capacity = self.capacity
        for fit in fits:
            room = capacity - fit.need(dp, 0.0)
            for rank, variant, delta in allowed_variants:
                if delta <= room:
                    zero, offload = fit.state
                    candidates.append(
                        _Candidate(rank, offload != Offload.NONE, zero == ZeroStage.WEIGHTS, int(zero), fit.state,
                                   variant)  # fmt: skip
                    )
                    break
        return candidates

    def _consider(
        self,
        shape: Shape,
        dp: int,
        fits: list[_StateFit],
        ranked: list[tuple[int, Variant, float]],
    ) -> None:
        """Time the fitting (state, variant) pairs worth timing at this layout and dp; keep the fastest.

        ZeRO-0/1/2 share one communication volume; ZeRO-3 costs 1.5x; offload adds transfers; recompute adds
        compute. A candidate no lighter in activations and no cheaper in kind than another is never faster:
        time only the rest and let the clock decide.
        """
        tp, pp, ep, virtual = shape
        count = dp * tp * pp
        candidates = sorted(self._candidates(dp, fits, ranked), key=_ORDER)  # stable: states order
        shortlist: list[_Candidate] = []
        for candidate in candidates:
            if not any(kept.dominates(candidate) for kept in shortlist):
                shortlist.append(candidate)
        for candidate in shortlist:
            best = self.best.get(count)
            if best is not None:
                recompute, micro_batch = candidate.variant
                floor = self.step_model.floor(tp, pp, ep, dp, micro_batch, recompute, virtual)
                if floor is not None and floor > best.key[0]:
                    continue  # cannot beat the best at this count: not worth timing
            layout = _layout(tp, pp, ep, dp, candidate.state, candidate.variant, virtual)
            key = (self.step_model.seconds(layout), int(layout.zero), layout.offload != Offload.NONE, pp, tp)
            if best is None or key < best.key:
                self.best[count] = _Best(key, layout)

    def _step_time(self, layout: Layout) -> perf.StepTime:
        return self.step_model.step(layout)

    # -- results -------------------------------------------------------------------------------------------
    def _finish(self) -> None:
        for count in sorted(self.best):
            option = self._option(count, self.best[count])
            if option is not None:
                self.found.options.append(option)
        self._exclusions()
        self._advice()

    def _option(self, count: int, best: _Best) -> PlanOption | None:
        """The option for the fastest layout at `count` GPUs, re-estimated exactly (None if it does not fit)."""
        workload, layout = self.workload, best.layout
        step = self._step_time(layout)
        breakdown = self.memory.breakdown(layout)
        if breakdown is None or breakdown.total_bytes > self.capacity:
            return None  # the a + b/dp fit was optimistic here; the exact estimate decides
        tokens_per_s = step.tokens_per_s
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        gpu_hours, cost, per_million = price_option(self.inputs.price, count, tokens_per_s, wall)
        notes = list(breakdown.note_messages)
        effective_batch = layout.dp * layout.micro_batch * step.microbatches
        if effective_batch != workload.global_batch:
            notes.append(msg(
                "option.global_batch_differs", effective_batch=effective_batch, dp=layout.dp,
                micro_batch=layout.micro_batch, accumulation_steps=step.microbatches,
                global_batch=workload.global_batch,
            ))  # fmt: skip
        band = perf.shipped_bands().band(
            perf.option_keys(True, self.gpu, count, self.per_node), Confidence.parse(step.confidence)
        )
        return PlanOption(
            gpu=self.gpu, gpus=count, layout=layout, memory=breakdown, fits=True,
            step_time_s=step.step_time_s, tokens_per_s=tokens_per_s, wall_time_s=wall, gpu_hours=gpu_hours,
            cost=cost, cost_per_million_tokens=per_million, confidence=Confidence.parse(step.confidence),
            workload=workload,
            precision=workload.precision, nodes=self.nodes(count),
            gradient_accumulation_steps=step.microbatches, time_breakdown=step.breakdown,
            assumptions=step.assumptions, notes=render_all_en(notes), note_messages=tuple(notes),
            time_band=band, mfu=step.mfu, goodput=self.goodput(count, wall),
        )  # fmt: skip

    def _exclusions(self) -> None:
        """The sharding families that fit nowhere, with their smallest need, and why pipelines were skipped."""
        capacity = self.capacity
        fitting = {family_key(option.layout) for option in self.found.options}
        for family, (need, layout) in self.family_need.items():
            if family in fitting or need <= capacity:
                continue
            sizes = {"need_bytes": need, "capacity_bytes": capacity, "gpu": self.gpu.name}
            if family is None:
                reason = msg("excluded.needs_memory_layout", strategy=layout, gpus=layout.gpus, **sizes)
            else:
                reason = msg("excluded.needs_memory", **sizes)
            self.found.excluded.append(Excluded.of(excluded_family_message(family, layout), reason))
        if self.skipped_pipeline:
            if "zero" in self.pinned:
                family_text = msg("excluded.family.zero_with_pipeline", zero=self.pinned["zero"])
            else:  # a pinned offload that needs ZeRO-2/3 left no state a pipeline can run with
                family_text = msg("excluded.family.pipeline")
            self.found.excluded.append(Excluded.of(family_text, msg("excluded.pipeline_needs_zero01")))
        gpus = self.constraints.gpus
        if not self.best and gpus and not self.family_need and not self.skipped_pipeline:
            reason = msg(
                "excluded.no_layout_divides", gpus=gpus, model=self.model.name, heads=self.model.heads
            )
            self.found.excluded.append(Excluded.of(msg("excluded.family.gpu_count", gpus=gpus), reason))

    def _advice(self) -> None:
        """Why plain data parallel cannot work, or, when nothing fits, what would."""
        gpu, capacity, options = self.gpu, self.capacity, self.found.options
        if options and (ZeroStage.NONE, Offload.NONE) not in {family_key(o.layout) for o in options}:
            states = self.memory.breakdown(Layout())
            state_bytes = states.model_state_bytes if states is not None else None
            best = min(options, key=lambda o: rank_key(o, RankBy.TIME))
            if state_bytes is not None and state_bytes > capacity:
                self.found.advice.append(msg(
                    "advice.ddp_cannot_work", gpu=gpu.name, state_bytes=state_bytes, capacity_bytes=capacity,
                    hint=sharding_hint(best.layout), strategy=best.layout,
                ))  # fmt: skip
        if not options:
            if self.constraints.gpus:
                upto = msg("where.exact_gpus", gpus=self.constraints.gpus)
            else:
                upto = msg("where.up_to_gpus", gpus=max(self.counts))
            where = {"upto": upto, "gpu": gpu.name, "capacity_bytes": capacity}
            if self.smallest_need is None:
                self.found.advice.append(msg("advice.nothing_fits_training", **where))
            else:
                need, layout = self.smallest_need
                self.found.advice.append(
                    msg("advice.nothing_fits_training_lightest", strategy=layout, need_bytes=need, **where)
                )
