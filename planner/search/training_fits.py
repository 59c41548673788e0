"""What the training search keeps between layouts: the order it tries states in, each shape's first memory fit, the fits per recompute class, and the best option per family."""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from planner import perf
from planner.layout_text import family_message
from planner.messages import Message, msg
from planner.vocabulary import Layout, Offload, Recompute, ZeroStage

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


# (state, dp) -> the CPU RAM per GPU of the state's offloaded parts (inf where refused).
StateHost = Callable[[State, int], float]


# A model-parallel shape: tp, pp, ep and the virtual pipeline stages per rank (interleaved 1F1B).
Shape = tuple[int, int, int, int]


# Interleaved 1F1B chunks per pipeline rank the search tries (at least one layer per chunk; uneven chunks as
# torchtitan allows); Llama 3 405B trained interleaved (arXiv 2407.21783, section 3.3.2). Four chunks take
# three quarters of the bubble away; finer steps add search time, not insight.
VIRTUAL_STAGES = (1, 4)


# The family an excluded entry names: a data-parallel-only state, or None for every layout with tensor or
# pipeline parallelism ("tensor/pipeline parallel").
FamilyKey = State | None


def search_order(
    counts: npt.NDArray[np.int64], floors: npt.NDArray[np.float64], indices: npt.NDArray[np.int64]
) -> npt.NDArray[np.intp]:
    """The order the search visits the pairs in (positions into the arrays): by GPU count, each count's pairs in
    ascending floor order, which the best-first stop (TrainingSearch._search_count) needs, then enumeration
    index. The answers do not depend on the order among pairs of equal floor: a candidate's key carries its
    layout's enumeration index and shortlist position, so ties go where enumeration order sends them."""
    return np.lexsort((indices, floors, counts))


@dataclass(frozen=True, slots=True)
class StateFit:
    """Per-GPU bytes of one sharding state at the reference activation variant, exact at each dp its layout is
    searched at (inf where the state is refused there). Not a fit in 1/dp: DeepSpeed's step-only gradient term
    (the larger of the fp32 gradient partition and the fp64 norm copy of one parameter's partition,
    planner.memory.stages) bends away from a + b/dp at large dp, and a line through two small dps passed
    ZeRO-1 at dp 16 that the exact estimate refused, which lost the count its fitting ZeRO-2 layout. The
    exact figures share everything dp does not change (MemoryTotals.totals), so asking every dp costs little."""

    state: State
    at_dp: Mapping[int, float]

    def need(self, dp: int, delta: float) -> float:
        """Per-GPU bytes at `dp` plus an activation variant's delta."""
        return self.at_dp[dp] + delta


class _FirstFit:
    """The activation variants one dp may use (micro-batch x dp within the global batch), in rank order, with
    the running minimum of their deltas: the first variant that fits in `room` bytes is the first whose running
    minimum is at most `room`, found by bisection instead of a scan."""

    __slots__ = ("negative_minima", "ranked")

    def __init__(self, ranked: list[tuple[int, Variant, float]]):
        self.ranked = [(rank, variant) for rank, variant, _ in ranked]
        self.negative_minima: list[float] = []
        lowest = math.inf
        for _, _, delta in ranked:
            lowest = min(lowest, delta)
            self.negative_minima.append(-lowest)  # nondecreasing


class LayoutFits:
    """What one layout (tp, pp, ep, virtual stages) needs in memory, for every GPU type of one search: the
    state fits, the variant deltas, and per (dp, capacity) the shortlist of (state, variant) worth timing
    (GPU types with the same memory share them)."""

    __slots__ = (
        "deltas",
        "fits",
        "global_batch",
        "_first_fits",
        "_kinds",
        "_largest_micro_batch",
        "_needs",
        "_ranked",
        "_chosen",
        "_at_dp",
        "_host",
        "_host_bytes",
        "_host_limited",
        "_offloaded",
    )

    def __init__(
        self, fits: list[StateFit], deltas: dict[Variant, float], global_batch: int, host: StateHost
    ):
        self.fits, self.deltas, self.global_batch = fits, deltas, global_batch
        # the CPU RAM per GPU of a state's offloaded parts at a dp (planner.memory.host_ram), asked only of
        # offloaded states and kept: the room for it differs by GPU type and count, the bytes do not
        self._host = host
        self._host_bytes: dict[tuple[int, int], float] = {}
        self._host_limited: dict[tuple[int, float], tuple[list[float], float]] = {}
        self._offloaded = [fit.state[1] != Offload.NONE for fit in fits]
        self._ranked = [(rank, variant, delta) for rank, (variant, delta) in enumerate(deltas.items())]
        # (offloaded, ZeRO-3, ZeRO stage) of each state: with the variant's rank, what orders the candidates
        self._kinds = [(fit.state[1] != Offload.NONE, fit.state[0] == ZeroStage.WEIGHTS, int(fit.state[0]))
                       for fit in fits]  # fmt: skip
        self._largest_micro_batch = max(variant[1] for variant in deltas)
        self._first_fits: dict[int, _FirstFit] = {}
        self._needs: dict[int, list[tuple[float, Layout, FamilyKey]]] = {}
        # the shortlist of each choice of variants (one index per state), whichever dp or capacity made it
        self._chosen: dict[tuple[int, tuple[int, ...]], list[tuple[State, Variant]]] = {}
        # per dp: the variants it may use and each state's need there (shortlist: every GPU type asks them)
        self._at_dp: dict[int, tuple[_FirstFit, list[float], float, list[float]]] = {}

    def needs(self, shape: Shape, dp: int) -> list[tuple[float, Layout, FamilyKey]]:
        """(per-GPU need, layout, family) of each state at `dp` with the lightest activations (_record_needs)."""
        found = self._needs.get(dp)
        if found is None:
            deltas = self.deltas
            lightest = min(deltas, key=lambda variant: deltas[variant])
            tp, pp, ep, virtual = shape
            found = self._needs[dp] = []
            for fit in self.fits:
                layout = make_layout(tp, pp, ep, dp, fit.state, lightest, virtual)
                found.append((fit.need(dp, deltas[lightest]), layout, family_key(layout)))
        return found

    def _limit(self, dp: int) -> int:
        """The largest micro-batch `dp` may use (micro-batch x dp within the global batch)."""
        return min(self.global_batch // dp, self._largest_micro_batch)

    def _first_fit(self, limit: int) -> _FirstFit:
        found = self._first_fits.get(limit)
        if found is None:
            found = self._first_fits[limit] = _FirstFit(
                [item for item in self._ranked if item[1][1] <= limit]
            )
        return found

    def shortlist(self, dp: int, capacity: int, host_room: float = math.inf) -> list[tuple[State, Variant]]:
        """The (state, variant) pairs worth timing at `dp` in `capacity` bytes: per state the most preferred
        variant that fits (bisection over _FirstFit.negative_minima), less those another candidate dominates: no lighter in activations
        and no dearer in kind (ZeRO-0/1/2 share one communication volume; ZeRO-3 costs 1.5x; offload adds
        transfers; recompute adds compute), so never faster. Each dp's variants and state needs are kept (every
        GPU type asks them), and each choice of variants' shortlist (GPU types whose memory leads to the same
        choices share it)."""
        at_dp = self._at_dp.get(dp)
        if at_dp is None:
            at_dp = self._at_dp[dp] = self._at(dp)
        first_fit, needs, lowest_need, negative_minima = at_dp
        if host_room < math.inf and any(self._offloaded):
            needs, lowest_need = self._within_host(dp, needs, host_room)
        # Nothing fits when even the lowest need with the lightest variant does not: every bisection below would
        # give len(ranked) (x - capacity is monotonic in x, and bisect_left gives the length exactly when the
        # value exceeds the last element), and the shortlist of no choice is empty.
        if not negative_minima or lowest_need - capacity > negative_minima[-1]:
            return []
        # the first variant that fits, by bisection (asked at every pair visited); need - capacity is
        # -(capacity - need) exactly
        # (IEEE subtraction is antisymmetric)
        chosen = tuple([bisect_left(negative_minima, need - capacity) for need in needs])
        # the variants a dp may use grow with the limit: their count names them
        key = (len(negative_minima), chosen)
        found = self._chosen.get(key)
        if found is None:
            found = self._chosen[key] = self._shortlist(first_fit, chosen)
        return found

    def _within_host(self, dp: int, needs: list[float], host_room: float) -> tuple[list[float], float]:
        """The states' needs at `dp` with an infinite need for each offloaded state whose CPU RAM per GPU is
        above `host_room` (it fits no GPU then), and the lowest of them."""
        key = (dp, host_room)
        found = self._host_limited.get(key)
        if found is None:
            limited = list(needs)
            for index, offloaded in enumerate(self._offloaded):
                if offloaded and self.host_bytes(index, dp) > host_room:
                    limited[index] = math.inf
            found = self._host_limited[key] = (limited, min(limited))
        return found

    def host_bytes(self, index: int, dp: int) -> float:
        """The CPU RAM per GPU of state `index`'s offloaded parts at `dp` (inf where the layout is refused)."""
        key = (index, dp)
        found = self._host_bytes.get(key)
        if found is None:
            found = self._host_bytes[key] = self._host(self.fits[index].state, dp)
        return found

    def _at(self, dp: int) -> tuple[_FirstFit, list[float], float, list[float]]:
        """What shortlist asks at `dp` whatever the capacity: the variants the dp may use, each state's need
        there (without activations above the reference), the lowest of those needs, the running minima."""
        first_fit = self._first_fit(self._limit(dp))
        needs = [fit.need(dp, 0.0) for fit in self.fits]
        return first_fit, needs, min(needs), first_fit.negative_minima

    def _shortlist(self, first_fit: _FirstFit, chosen: tuple[int, ...]) -> list[tuple[State, Variant]]:
        ranked, kinds, size = first_fit.ranked, self._kinds, len(first_fit.ranked)
        # (position in ranked, (offloaded, ZeRO-3, ZeRO stage), state index): unique, so ties keep the states'
        # order; ranked is in rank order, so the positions sort as the variants' ranks do
        candidates = sorted([(at, kinds[index], index) for index, at in enumerate(chosen) if at < size])
        # Every candidate kept before this one has a rank no higher (the sort), so it dominates this one
        # exactly when it is no dearer in kind: (offloaded, ZeRO-3) no higher in either.
        kept_kinds: set[tuple[bool, bool]] = set()
        shortlist: list[tuple[State, Variant]] = []
        for at, (offloaded, zero3, _), index in candidates:
            if kept_kinds.isdisjoint(_NO_DEARER[offloaded, zero3]):
                kept_kinds.add((offloaded, zero3))
                shortlist.append((self.fits[index].state, ranked[at][1]))
        return shortlist


# (offloaded, ZeRO-3) -> the kinds no dearer than it in either (a candidate of one of them with no heavier
# activations is never slower)
_NO_DEARER = {
    (offloaded, zero3): frozenset(
        (o, z) for o in (False, True) for z in (False, True) if o <= offloaded and z <= zero3
    )
    for offloaded in (False, True)
    for zero3 in (False, True)
}


class ClassedFits:
    """A layout's LayoutFits per activation class (autocast; 16-bit compute, SearchMemory.activation_class): their
    needs together, and per dp their shortlists together (the clock decides between the classes)."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[LayoutFits]):
        self.parts = parts

    def needs(self, shape: Shape, dp: int) -> list[tuple[float, Layout, FamilyKey]]:
        return [need for part in self.parts for need in part.needs(shape, dp)]

    def shortlist(self, dp: int, capacity: int, host_room: float) -> list[tuple[State, Variant]]:
        """The shortlist of one dp (LayoutFits.shortlist), the classes' together."""
        parts = self.parts
        first = parts[0].shortlist(dp, capacity, host_room)
        if len(parts) == 1:
            return first
        second = parts[1].shortlist(dp, capacity, host_room)
        if not (first and second):
            return first or second  # the memoised list itself: the search only reads it
        return first + second


@dataclass(frozen=True, slots=True)
class Enumerated:
    """The layouts a search tries, GPU-independent (TrainingSearch._enumerated): per layout the fields SearchedShape
    starts from (enumeration index, shape, smallest dp, variants, states, dps), the variants without / with a
    pipeline, and whether a pipelined layout was skipped for want of a ZeRO-0/1 state."""

    layouts: list[tuple[int, Shape, int, list[Variant], list[State], list[int]]]
    variants_of: dict[bool, list[Variant]]
    skipped_pipeline: bool


@dataclass(slots=True, eq=False)
class SearchedShape:
    """A layout the search tries (a dp of it fills a candidate count, and a state can run it): its enumeration
    index, shape, smallest dp, variants, states and dps; its memory once worked out (`sized`; fits None: nothing
    is possible there); the micro-batch floors of its variants once their micro-batch is timed (_consider)."""

    index: int
    shape: Shape
    base: int
    variants: list[Variant]
    states: list[State]
    dps: list[int]
    sized: bool = False
    fits: ClassedFits | None = None
    floors: dict[Variant, perf.MicrobatchFloor] = field(default_factory=dict)
    # before then, their StepModel.stage_floor (a pure function of the GPU's step model and the variant)
    stage_floors: dict[Variant, perf.MicrobatchFloor | None] = field(default_factory=dict)


class PairTable:
    """Every (layout, dp) pair of a search, by GPU count, with what their floors take besides the GPU: per pair
    and micro-batch, (micro-batches per step + the pipeline bubble) where the dp may use that micro-batch
    (MicrobatchFloor.at without its seconds). It depends on the model, workload, constraints and node size
    only, never on the GPU's rates or memory: GPU types of one plan() call with the same node size share it.

    `layouts` are positions in the search's list of layouts (TrainingSearch.searched, not empty), `micro_batches`
    the columns (every layout's variants have the same micro-batches), `counts` the GPU count of each pair.
    Per layout, what its stage floors are made of (TrainingSearch._stage_floor_rows): `floor_keys[floor_key_of]`,
    its (tp, ep, pipelined or not), and `depths[depth_of]`, its pipeline depth."""

    __slots__ = ("allowed", "counts", "depth_of", "depths", "dps", "floor_key_of", "floor_keys", "indices",
                 "layouts", "micro_batches", "microbatches")  # fmt: skip

    def __init__(self, searched: list[SearchedShape], bubbles: list[float], global_batch: int):
        self.micro_batches = sorted(
            {micro_batch for _, micro_batch in searched[0].variants}
        )  # every layout's
        layouts = [position for position, layout in enumerate(searched) for _ in layout.dps]
        self.dps = [dp for layout in searched for dp in layout.dps]
        self.layouts = np.array(layouts, dtype=np.intp)
        self.indices = np.array([searched[position].index for position in layouts], dtype=np.int64)
        dps = np.array(self.dps, dtype=np.int64)
        per_rank = global_batch // dps  # sequences per data-parallel rank: micro-batch x micro-batches
        columns = [per_rank >= micro_batch for micro_batch in self.micro_batches]
        self.allowed = np.stack(columns, axis=1)
        bubble = np.array(bubbles, dtype=np.float64)[self.layouts]
        # int + float as Python adds them (the int converted to double first); 1 where the dp may not use the
        # micro-batch: a placeholder that `allowed` masks (never inf x 0)
        counts = [np.maximum(1, per_rank // micro_batch) + bubble for micro_batch in self.micro_batches]
        self.microbatches = np.where(self.allowed, np.stack(counts, axis=1), 1.0)
        model_parallel = np.array([layout.shape[0] * layout.shape[1] for layout in searched], dtype=np.int64)
        self.counts = dps * model_parallel[self.layouts]  # GPUs of each pair
        keys = [(tp, ep, pp > 1) for tp, pp, ep, _ in (layout.shape for layout in searched)]
        self.floor_keys = list(dict.fromkeys(keys))
        self.floor_key_of = np.array([self.floor_keys.index(key) for key in keys], dtype=np.intp)
        self.depths = sorted({layout.shape[1] for layout in searched})
        self.depth_of = np.array([self.depths.index(layout.shape[1]) for layout in searched], dtype=np.intp)

    def floors(self, seconds: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
        """The floor of every pair: the lowest over the micro-batches its dp may use of (micro-batches + bubble)
        x that micro-batch's stage-floor seconds on its layout (`seconds`: one row per layout, one column per
        micro-batch). The same products as MicrobatchFloor.at, element by element in IEEE double."""
        products = self.microbatches * seconds[self.layouts]
        return np.where(self.allowed, products, np.inf).min(axis=1, initial=np.inf)  # type: ignore[no-any-return]


@dataclass(frozen=True, slots=True)
class BestFound:
    """The fastest candidate at a GPU count. key: (seconds, ZeRO stage, offloaded, pp, tp, enumeration index,
    shortlist position): the last two make ties go to the candidate first in enumeration order, whichever
    order the search visits the candidates in."""

    key: tuple[float, int, bool, int, int, int, int]
    layout: Layout


def data_parallel_only(shape: Shape) -> bool:
    """No tensor or pipeline parallelism: its states are excluded families of their own (family_key)."""
    return shape[0] == 1 and shape[1] == 1


def make_layout(
    tp: int, pp: int, ep: int, dp: int, state: State, variant: Variant, virtual: int = 1
) -> Layout:
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
