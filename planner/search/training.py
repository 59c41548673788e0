"""The training search: for every layout (tp, pp, ep) take each sharding state's exact per-GPU memory at the
layout's dps, add the activation variant's delta, and time only the layouts that fit; the chosen options are
re-estimated exactly (the deltas assume activations add, which the exact estimate checks). The search is
best-first per GPU count: every (layout, dp) that fills the count gets a floor (StepModel.stage_floor, whatever
fits in memory), and the pairs are visited in ascending floor order until the next floor is above the best
found; a pair's memory, shortlist and timing are worked out only when it is visited, and its candidates' own
floors (StepModel.microbatch_floor once known) skip the ones that cannot beat the best."""

from __future__ import annotations

import dataclasses
import math
from bisect import bisect_right
from collections.abc import Iterator

import numpy as np
import numpy.typing as npt

from planner import perf
from planner.layout_text import sharding_hint
from planner.memory import MemoryBreakdown
from planner.memory.host_ram import gpus_sharing_a_node, host_room_per_gpu, node_host_ram_bytes
from planner.memory.runtimes import candidate_runtimes
from planner.messages import Message, msg
from planner.perf.gradient_reduction import reduction_message
from planner.perf.training import FLOOR_ROUNDING_MARGIN
from planner.search.common import Found, GpuSearch, LayoutTotals, SearchInputs, price_option
from planner.search.enumeration import (
    MICRO_BATCHES,
    allowed,
    candidate_gpu_counts,
    pinned_count,
    pipeline_depths,
)
from planner.search.ranking import rank_key
from planner.search.training_fits import (
    PIPELINE_MAX_ZERO,
    VIRTUAL_STAGES,
    BestFound,
    ClassedFits,
    Enumerated,
    FamilyKey,
    LayoutFits,
    PairTable,
    SearchedShape,
    Shape,
    State,
    StateFit,
    Variant,
    data_parallel_only,
    excluded_family_message,
    family_key,
    make_layout,
    search_order,
)
from planner.search.training_runtime import choose_runtime
from planner.search.types import Excluded, PlanOption, RuntimeCandidate
from planner.uncertainty import ErrorBand
from planner.vocabulary import Confidence, Layout, Offload, RankBy, Recompute, Runtime, Task, ZeroStage


class TrainingSearch(GpuSearch):
    """Training: the fastest fitting layout per GPU count, and why the sharding families left out do not fit."""

    def __init__(self, inputs: SearchInputs):
        super().__init__(inputs)
        self.counts = candidate_gpu_counts(self.max_gpus, self.per_node, self.constraints.gpus)
        # the CPU RAM of one node, which offloaded states of the GPUs in it share (planner.memory.host_ram)
        self.host_ram = node_host_ram_bytes(
            self.constraints.host_ram_bytes, self.gpu.memory_bytes, self.per_node
        )
        self.best: dict[int, BestFound] = {}  # GPU count -> the fastest layout found
        # The smallest need per family and of all, with the enumeration index of its layout (ties: the first);
        # where enumeration order first records each family (the order of the excluded entries).
        self.family_need: dict[FamilyKey, tuple[tuple[float, int], Layout]] = {}
        self.family_first: dict[FamilyKey, tuple[int, int]] = {}
        self.smallest_need: tuple[tuple[float, int], Layout] | None = None
        self.needs_complete = False  # the needs of layouts with tensor or pipeline parallelism recorded too
        self.states = self._states()  # the states to try at every layout without a pipeline
        # With a pipeline only ZeRO-0/1 (see PIPELINE_MAX_ZERO); True once a pipelined layout was skipped for it.
        self.pipeline_states = [state for state in self.states if state[0] <= PIPELINE_MAX_ZERO]
        self.skipped_pipeline = False
        self._variants_of: dict[bool, list[Variant]] = {}  # without / with a pipeline (_variants)
        self._dps_of: dict[tuple[int, int], list[int]] = {}
        self._unpipelined: dict[tuple[int, int, bool], dict[int, tuple[float, float]] | None] = {}
        # Every layout that reached the memory step, in enumeration order (SearchedShape).
        self.searched: list[SearchedShape] = []
        # the runtime each layout runs in (the pinned one, or the search's choice per layout) times its gradient
        # reduction (perf.TrainingOptions.runtime)
        self.options = perf.TrainingOptions(
            optimizer=str(self.workload.optimizer),
            lora_rank=self.workload.lora_rank,
            runtime=str(self.workload.runtime or "auto"),
        )
        self._runtime_steps: dict[Runtime, perf.StepModel] = {}  # the runtimes an option is weighed in
        self.step_model = self._new_step_model(self.options)

    def _new_step_model(self, options: perf.TrainingOptions) -> perf.StepModel:
        """A StepModel of this search's GPU and workload with `options`; the GPU types of one plan() call share
        the GEMM work of the layouts they time (perf.SharedWork), kept beside the memory fits they share."""
        workload = self.workload
        shared = self.memory.shared_by_gpu_types.setdefault(
            ("step work",), perf.SharedWork(self.model, workload.seq_len)
        )
        assert isinstance(shared, perf.SharedWork)
        return perf.StepModel(
            self.inputs.numbers, self.gpu, seq_len=workload.seq_len, global_batch=workload.global_batch,
            rates=self.inputs.rates, task=workload.task, precision=workload.precision,
            comm_overlap=workload.comm_overlap, gpus_per_node=self.per_node,
            inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s, options=options,
            shared_work=shared,
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
        """The data-parallel degrees at which (tp, pp, ep) fills a candidate GPU count (kept per tp x pp and
        the smallest dp that ep allows: many layouts share them)."""
        base = ep // math.gcd(ep, tp)  # ep must divide dp x tp
        key = (tp * pp, base)
        found = self._dps_of.get(key)
        if found is None:
            found = self._dps_of[key] = self._data_parallel_degrees(tp * pp, base)
        return found

    def _data_parallel_degrees(self, model_parallel: int, base: int) -> list[int]:
        pinned_dp = pinned_count(self.pinned["dp"]) if self.pinned.get("dp") is not None else None
        dps = []
        for count in self.counts:
            if count % model_parallel:
                continue
            dp = count // model_parallel
            if dp % base or dp > self.workload.global_batch:
                continue
            if pinned_dp is not None and dp != pinned_dp:
                continue
            dps.append(dp)
        return dps

    # -- memory fit ------------------------------------------------------------------------------------------
    @staticmethod
    def _fit_states(
        totals: LayoutTotals, base: int, reference: Variant, dps: list[int], states: list[State]
    ) -> list[tuple[StateFit, int]]:
        """Each state possible at this layout, with its exact totals at the layout's dps and at dp 2 x base (the
        reference of the variant deltas, returned beside it); totals: the layout's (SearchMemory.layout_totals)."""
        fits = []
        asked = sorted({*dps, 2 * base})
        reference_at = asked.index(2 * base)
        recompute, micro_batch = reference
        for zero, offload in states:
            exact = totals(zero, offload, recompute, micro_batch, asked)
            reference_total = exact[reference_at]
            if reference_total is None:
                continue
            at_dp = {
                dp: math.inf if total is None else float(total)
                for dp, total in zip(asked, exact, strict=True)
            }
            fits.append((StateFit((zero, offload), at_dp), reference_total))
        return fits

    @staticmethod
    def _variant_deltas(
        totals: LayoutTotals,
        dp: int,
        state: State,
        variants: list[Variant],
        ref_total: int | None,
    ) -> dict[Variant, float]:
        """(recompute, micro-batch) -> bytes above the reference variant (variants[0], whose total at this dp and
        state is ref_total). Activations grow linearly with the micro-batch, so two exact estimates per recompute
        mode give every micro-batch."""
        if ref_total is None:
            return {}
        reference = variants[0]
        # per recompute mode the totals at micro-batch 1 and 2 (None where either is refused)
        pairs: dict[Recompute, tuple[int, int] | None] = {}
        deltas: dict[Variant, float] = {}
        for recompute, micro_batch in variants:
            if recompute not in pairs:
                one, two = (
                    ref_total if (recompute, size) == reference
                    else totals(state[0], state[1], recompute, size, (dp,))[0]
                    for size in (1, 2)
                )  # fmt: skip
                pairs[recompute] = None if one is None or two is None else (one, two)
            pair = pairs[recompute]
            if pair is not None:
                one, two = pair
                deltas[(recompute, micro_batch)] = one + (micro_batch - 1) * (two - one) - ref_total
        return deltas

    def run(self) -> Found:
        enumerated = self._enumerated()
        self._variants_of, self.skipped_pipeline = enumerated.variants_of, enumerated.skipped_pipeline
        self.searched = [SearchedShape(*layout) for layout in enumerated.layouts]
        for searched in self.searched:
            if data_parallel_only(searched.shape):
                self._sized(searched)  # its sharding families are reported one by one
        if self.searched:
            table = self._pair_table()
            floors = table.floors(self._stage_floor_rows(table))
            order = search_order(table.counts, floors, table.indices)
            counts, pairs, ordered_floors = (
                table.counts[order].tolist(),
                order.tolist(),
                floors[order].tolist(),
            )
            start = 0
            while start < len(pairs):  # one GPU count's pairs: pairs[start:end]
                end = bisect_right(counts, counts[start], start)
                self._search_count(counts[start], table, pairs[start:end], ordered_floors[start:end])
                start = end
        self._finish()
        return self.found

    def _pair_table(self) -> PairTable:
        """This search's PairTable, shared with the other GPU types of the plan() call whose searches try the
        same layouts at the same dps (the node size decides the counts and tensor-parallel sizes), kept beside
        the layouts' memory fits, which are shared the same way."""
        key = (
            "pair table",
            self.per_node,
            tuple(self.counts),
            tuple(layout.index for layout in self.searched),
        )
        table = self.memory.shared_by_gpu_types.get(key)
        if not isinstance(table, PairTable):
            bubbles = [self.step_model.bubble_microbatches(layout.shape[1], layout.shape[3])
                       for layout in self.searched]  # fmt: skip
            table = self.memory.shared_by_gpu_types[key] = PairTable(
                self.searched, bubbles, self.workload.global_batch
            )
        return table

    def _stage_floor_rows(self, table: PairTable) -> npt.NDArray[np.float64]:
        """Per searched layout, the seconds of StepModel.stage_floor of each micro-batch of table.micro_batches,
        the lowest of its recompute modes (_unpipelined_floors): -inf with no floor (every candidate is timed),
        inf for a micro-batch the layout's variants do not have. Worked out per (tp, ep, pipelined) and per
        depth, then spread over the layouts."""
        width = len(table.micro_batches)
        seconds = np.full((len(table.floor_keys), width), np.inf)  # without a pipeline
        every_stage = np.zeros((len(table.floor_keys), width))
        without = np.zeros(len(table.floor_keys), dtype=bool)
        for row, (tp, ep, pipelined) in enumerate(table.floor_keys):
            found = self._unpipelined_floors(tp, ep, pipelined)
            if found is None:
                without[row] = True
                continue
            for column, micro_batch in enumerate(table.micro_batches):
                if micro_batch in found:
                    seconds[row, column], every_stage[row, column] = found[micro_batch]
        shares = np.array([self.step_model.stage_share(pp) for pp in table.depths])[
            table.depth_of, np.newaxis
        ]
        u, c = seconds[table.floor_key_of], every_stage[table.floor_key_of]
        rows = (shares * (u - c) + c) * FLOOR_ROUNDING_MARGIN  # perf.stage_floor_s, element by element
        rows[without[table.floor_key_of]] = -np.inf
        return rows

    def _enumerated(self) -> Enumerated:
        """The layouts this search tries (_prepare_layouts), shared with the other GPU types of the plan() call
        with the same node size: they depend on the model, workload, constraints, node size and GPU counts
        only (the same inputs as PairTable), never on the GPU's rates or memory."""
        key = ("layouts", self.per_node, tuple(self.counts))
        found = self.memory.shared_by_gpu_types.get(key)
        if not isinstance(found, Enumerated):
            found = self.memory.shared_by_gpu_types[key] = self._prepare_layouts()
        return found

    def _prepare_layouts(self) -> Enumerated:
        """Every layout to search, in enumeration order: those where a dp fills a count and a state can run it."""
        layouts: list[tuple[int, Shape, int, list[Variant], list[State], list[int]]] = []
        variants_of: dict[bool, list[Variant]] = {}  # without / with a pipeline (_variants)
        skipped_pipeline = False
        for index, shape in enumerate(self._layouts()):
            tp, pp, ep, _ = shape
            dps = self._dps(tp, pp, ep)
            if not dps:
                continue
            states = self.states if pp == 1 else self.pipeline_states
            if not states:
                skipped_pipeline = True
                continue
            variants = variants_of.get(pp > 1) or variants_of.setdefault(pp > 1, self._variants(pp))
            layouts.append((index, shape, ep // math.gcd(ep, tp), variants, states, dps))
        return Enumerated(layouts, variants_of, skipped_pipeline)

    def _sized(self, searched: SearchedShape) -> ClassedFits | None:
        """The layout's memory fits, worked out the first time they are asked for, and its needs recorded then
        where they are asked for: a layout without tensor or pipeline parallelism always (its sharding
        families are reported one by one), the others' once the "tensor/pipeline parallel" family's need is
        (_complete_needs)."""
        if not searched.sized:
            searched.sized = True
            searched.fits = self._memory_fits(
                searched.shape, searched.base, searched.variants, searched.states, searched.dps
            )
            if searched.fits is not None and (self.needs_complete or data_parallel_only(searched.shape)):
                self._record_needs(searched.index, searched.shape, searched.dps, searched.fits)
        return searched.fits

    def _search_count(self, count: int, table: PairTable, pairs: list[int], floors: list[float]) -> None:
        """Best-first at one GPU count: the pairs (positions in `table`) in ascending floor order, until a floor
        is above the best found (every pair after it has a floor at least as high, so none of its candidates
        can beat or tie the best); a visited pair's memory, shortlist and candidates are worked out then."""
        searched_layouts, layouts, dps, capacity = self.searched, table.layouts, table.dps, self.capacity
        host_room = host_room_per_gpu(self.host_ram, count, self.per_node)
        best = self.best.get(count)  # only _consider changes it, and returns it
        for pair, floor in zip(pairs, floors, strict=True):
            if best is not None and floor > best.key[0]:
                return
            searched, dp = searched_layouts[layouts[pair]], dps[pair]
            fits = searched.fits if searched.sized else self._sized(searched)  # _sized, its test inlined
            if fits is not None:
                shortlist = fits.shortlist(dp, capacity, host_room)
                if shortlist:
                    best = self._consider(searched, dp, shortlist, best)

    def _unpipelined_floors(self, tp: int, ep: int, pipelined: bool) -> dict[int, tuple[float, float]] | None:
        """micro-batch -> (the lowest StepModel.unpipelined_microbatch_s of its recompute modes, its
        StepModel.every_stage_s) over the variants with or without a pipeline (_variants), kept per (tp, ep,
        pipelined); None with no floor. The lowest is what the stage floor needs: stage_floor_s is
        nondecreasing in the seconds, and every_stage_s is the same for every recompute mode."""
        key = (tp, ep, pipelined)
        if key in self._unpipelined:
            return self._unpipelined[key]
        step_model, variants = self.step_model, self._variants_of[pipelined]
        lowest: dict[int, float] = {}
        plain = {micro_batch for recompute, micro_batch in variants if recompute == Recompute.NONE}
        found: dict[int, tuple[float, float]] | None = {}
        for recompute, micro_batch in variants:
            if micro_batch in plain and recompute != Recompute.NONE:
                continue  # recompute only adds work to a micro-batch (planner.perf): never the lowest
            seconds = step_model.unpipelined_microbatch_s(tp, ep, micro_batch, recompute)
            if seconds is None:
                found = None
                break
            lowest[micro_batch] = min(lowest.get(micro_batch, math.inf), seconds)
        if found is not None:
            found = {micro_batch: (seconds, step_model.every_stage_s(tp, ep, micro_batch))
                     for micro_batch, seconds in lowest.items()}  # fmt: skip
        self._unpipelined[key] = found
        return found

    def _complete_needs(self) -> None:
        """Record the needs of the layouts with tensor or pipeline parallelism too, working out the memory of
        those the search left unsized: every layout's needs are then recorded once, and the smallest need per
        family (the first in enumeration order on a tie, _record_needs) is what recording them all in any order
        gives."""
        if self.needs_complete:
            return
        self.needs_complete = True
        for searched in self.searched:
            if data_parallel_only(searched.shape):
                continue  # recorded when sized
            if not searched.sized:
                self._sized(searched)  # records them
            elif searched.fits is not None:
                self._record_needs(searched.index, searched.shape, searched.dps, searched.fits)

    def _memory_fits(
        self, shape: Shape, base: int, variants: list[Variant], states: list[State], dps: list[int]
    ) -> ClassedFits | None:
        """The state fits and variant deltas of a layout (None when nothing is possible there). They depend on
        the model, workload and layout only, so every GPU type of one search shares them (SearchMemory).
        Activations differ between the states planner.memory models with autocast (DDP) and with 16-bit compute
        (DeepSpeed's 16-bit model, FSDP2's units, Megatron-style TP/PP; SearchMemory.activation_class): each
        class gets its own variant deltas and LayoutFits."""
        key = (shape, base, tuple(variants), tuple(states), tuple(dps))
        cache = self.memory.shared_by_gpu_types
        if key in cache:
            return cache[key]  # type: ignore[return-value]
        totals = self.memory.layout_totals(shape)  # looked up once for the layout's many totals
        fitted = self._fit_states(totals, base, variants[0], dps, states)
        host_of = self.memory.layout_host(shape)
        recompute, micro_batch = variants[0]  # (the host RAM does not depend on the activations)

        def host(state: State, dp: int) -> float:
            found = host_of(state[0], state[1], recompute, micro_batch, dp)
            return math.inf if found is None else found

        sixteen_bit = self.memory.activation_class(shape)
        parts: list[LayoutFits] = []
        for sharded in (False, True):
            group = [(fit, at_two_base) for fit, at_two_base in fitted if sixteen_bit(*fit.state) == sharded]
            if group:
                first, ref_total = group[0]
                deltas = self._variant_deltas(totals, 2 * base, first.state, variants, ref_total)
                if deltas:
                    parts.append(
                        LayoutFits([fit for fit, _ in group], deltas, self.workload.global_batch, host)
                    )
        found = ClassedFits(parts) if parts else None
        cache[key] = found
        return found

    def _record_needs(self, index: int, shape: Shape, dps: list[int], layout_fits: ClassedFits) -> None:
        """Smallest per-GPU need per family (at the largest dp and lightest activations), for excluded reasons.
        A tie goes to the layout first in enumeration order (`index`), whatever order the layouts are searched in;
        a family's place among the excluded is where enumeration order first records it."""
        for position, (need, layout, family) in enumerate(layout_fits.needs(shape, max(dps))):
            ranked = (need, index)
            found = self.family_need.get(family)
            if found is None or ranked < found[0]:
                self.family_need[family] = (ranked, layout)
            first = (index, position)
            if family not in self.family_first or first < self.family_first[family]:
                self.family_first[family] = first
            if self.smallest_need is None or ranked < self.smallest_need[0]:
                self.smallest_need = (ranked, layout)

    def _consider(
        self, searched: SearchedShape, dp: int, shortlist: list[tuple[State, Variant]], best: BestFound | None
    ) -> BestFound | None:
        """Time the fitting (state, variant) pairs worth timing at this layout and dp (LayoutFits.shortlist),
        unless their floor (StepModel.microbatch_floor, kept per variant in searched.floors once known; before
        that StepModel.stage_floor) is above the best at this GPU count (`best`, self.best's entry); keep the
        fastest there and return it."""
        tp, pp, ep, virtual = searched.shape
        count = dp * tp * pp
        step_model, floors, stage_floors = self.step_model, searched.floors, searched.stage_floors
        for position, (state, variant) in enumerate(shortlist):
            if best is not None:
                floor = floors.get(variant)
                if floor is None:
                    floor = step_model.microbatch_floor(tp, pp, ep, variant[1], variant[0], virtual)
                    if floor is not None:
                        floors[variant] = floor
                    elif variant in stage_floors:  # its micro-batch is not timed yet: the floor from the
                        floor = stage_floors[variant]  # one without a pipeline, kept
                    else:
                        floor = stage_floors[variant] = step_model.stage_floor(
                            tp, pp, ep, variant[1], variant[0], virtual
                        )
                if floor is not None and floor.at(dp) > best.key[0]:
                    continue  # cannot beat the best at this count: not worth timing
            layout = make_layout(tp, pp, ep, dp, state, variant, virtual)
            seconds = step_model.seconds(layout)
            key = (seconds, int(state[0]), state[1] != Offload.NONE, pp, tp, searched.index, position)
            if best is None or key < best.key:
                best = self.best[count] = BestFound(key, layout)
        return best

    # -- results -------------------------------------------------------------------------------------------
    def _finish(self) -> None:
        self._bands: dict[tuple[tuple[str, ...], Confidence], ErrorBand | None] = {}
        for count in sorted(self.best):
            option = self._option(count, self.best[count])
            if option is not None:
                self.found.options.append(option)
        self._exclusions()
        self._advice()

    def _option(self, count: int, best: BestFound) -> PlanOption | None:
        """The option for the fastest layout at `count` GPUs, re-estimated exactly in each runtime that can run
        it (the pinned one alone; planner.search.training_runtime) and run in the best that fits (None if none
        fits)."""
        layout = best.layout
        runtimes = self._runtimes_to_weigh(layout)
        return choose_runtime([(str(runtime), *self._runtime_option(count, layout, runtime))
                               for runtime in runtimes])  # fmt: skip

    def _runtimes_to_weigh(self, layout: Layout) -> tuple[Runtime | None, ...]:
        """The pinned runtime, or every one that can run `layout` (candidate_runtimes; None: the base's)."""
        if self.workload.runtime is not None:
            return (self.workload.runtime,)
        found = candidate_runtimes(
            str(self.workload.task), layout.tp, layout.pp, layout.ep, int(layout.zero), str(layout.offload),
            self.model.family,
        )  # fmt: skip
        return found or (None,)

    def _step_model(self, runtime: Runtime | None) -> perf.StepModel:
        """The StepModel timing the gradient reduction of `runtime` (None or the pinned one: the search's)."""
        if runtime is None or runtime == self.workload.runtime:
            return self.step_model
        found = self._runtime_steps.get(runtime)
        if found is None:
            options = dataclasses.replace(self.options, runtime=str(runtime))
            found = self._runtime_steps[runtime] = self._new_step_model(options)
        return found

    def _runtime_option(
        self, count: int, layout: Layout, runtime: Runtime | None
    ) -> tuple[PlanOption | None, RuntimeCandidate]:
        """The option of `layout` at `count` GPUs in `runtime` (None where it is refused or does not fit, the
        exact estimate deciding: the variant's delta may have been optimistic), and what the runtime takes."""
        workload = self.workload
        step = self._step_model(runtime).step(layout)
        breakdown = self.memory.breakdown(layout, runtime=runtime)
        # The search counts every layout as if its micro-batches accumulated (the gradients beside the next
        # micro-batch's activations: one addable figure per state and variant); the option shows its own step,
        # with its own accumulation, which is never more
        exact = self.memory.breakdown(layout, step.microbatches, runtime) if breakdown is not None else None
        tokens_per_s = step.tokens_per_s
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        goodput = self.goodput(count, wall, layout, runtime)
        useful = tokens_per_s * (goodput.effective_fraction if goodput is not None else 1.0)
        fits = breakdown is not None and breakdown.total_bytes <= self.capacity
        fits = fits and breakdown is not None and not self._host_short(breakdown, count)
        shown = exact or breakdown
        candidate = RuntimeCandidate(
            str(runtime or (shown.runtime if shown is not None else "")),
            None if shown is None else shown.total_bytes, fits, step.step_time_s, useful, chosen=False,
        )  # fmt: skip
        if not fits or shown is None:
            return None, candidate
        gpu_hours, cost, per_million = price_option(self.inputs.price, count, tokens_per_s, wall)
        notes = shown.note_messages
        effective_batch = layout.dp * layout.micro_batch * step.microbatches
        if effective_batch != workload.global_batch:
            batch_note = msg(
                "option.global_batch_differs", effective_batch=effective_batch, dp=layout.dp,
                micro_batch=layout.micro_batch, accumulation_steps=step.microbatches,
                global_batch=workload.global_batch,
            )  # fmt: skip
            notes = (*notes, batch_note)
        reduction = reduction_message(shown.runtime or None, layout.zero, self.model.hidden, layout.dp)
        if reduction is not None:  # how the option's runtime reduces the gradients, as its step counts it
            notes = (*notes, reduction)
        confidence = Confidence.parse(step.confidence)
        band = self._band(perf.option_keys(True, self.gpu, count, self.per_node), confidence)
        option = PlanOption(
            gpu=self.gpu, gpus=count, layout=layout, memory=shown, fits=True,
            step_time_s=step.step_time_s, tokens_per_s=tokens_per_s, wall_time_s=wall, gpu_hours=gpu_hours,
            cost=cost, cost_per_million_tokens=per_million, confidence=confidence,
            workload=workload,
            precision=workload.precision, nodes=self.nodes(count),
            gradient_accumulation_steps=step.microbatches, time_breakdown=step.breakdown,
            assumptions=step.assumptions, note_messages=notes,
            time_band=band, mfu=step.mfu, goodput=goodput,
        )  # fmt: skip
        return option, candidate

    def _host_short(self, breakdown: MemoryBreakdown, count: int) -> bool:
        """Whether the offloaded states of `count` GPUs sharing a node need more CPU RAM than the node has."""
        return breakdown.host_offload_bytes > host_room_per_gpu(self.host_ram, count, self.per_node)

    def _band(self, keys: tuple[str, ...], confidence: Confidence) -> ErrorBand | None:
        """The shipped band of an option's class: a pure function of the keys and the confidence, and an
        ErrorBand is an immutable value, so the options of one class share one (a GPU type's options fall
        in three classes: one GPU, one node, several nodes)."""
        key = (keys, confidence)
        if key not in self._bands:
            self._bands[key] = perf.shipped_bands().band(keys, confidence)
        return self._bands[key]

    def _exclusions(self) -> None:
        """The sharding families that fit nowhere, with their smallest need, and why pipelines were skipped."""
        capacity = self.capacity
        fitting = {family_key(option.layout) for option in self.found.options}
        if None not in fitting:  # "tensor/pipeline parallel" may be excluded: its smallest need must be exact
            self._complete_needs()
        for family in sorted(self.family_need, key=self.family_first.__getitem__):
            (need, _), layout = self.family_need[family]
            if family in fitting:
                continue
            if need <= capacity:  # it fits the GPU: an offloaded family may still want more CPU RAM
                self._exclude_for_host(family, layout)
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

    def _exclude_for_host(self, family: FamilyKey, layout: Layout) -> None:
        """Excluded: an offloaded family whose lightest layout fits the GPU but not the node's CPU RAM."""
        if layout.offload == Offload.NONE:
            return
        breakdown = self.memory.breakdown(layout)
        if breakdown is None or not self._host_short(breakdown, layout.gpus):
            return
        sharing = gpus_sharing_a_node(layout.gpus, self.per_node)
        reason = msg(
            "excluded.needs_host_ram", need_bytes=breakdown.host_offload_bytes * sharing,
            host_bytes=self.host_ram, gpus=sharing,
        )  # fmt: skip
        self.found.excluded.append(Excluded.of(excluded_family_message(family, layout), reason))

    def _untried_ideas(self) -> tuple[Message, ...]:
        """What else might fit, leaving out what this plan already is or already tried: no "ZeRO-3 with CPU
        offload" when the search had it, no "LoRA" to a LoRA plan."""
        ideas = [msg("idea.more_gpus_training")]
        if (ZeroStage.WEIGHTS, Offload.ALL) not in self.states:
            ideas.append(msg("idea.zero3_offload"))
        task = self.workload.task
        if task in (Task.PRETRAIN, Task.FINETUNE):
            ideas.append(msg("idea.lora_instead"))
        elif task == Task.LORA:
            ideas.append(msg("idea.qlora_instead"))
        ideas += [msg("idea.shorter_sequence"), msg("idea.bigger_gpu")]
        return tuple(ideas)

    def _advice(self) -> None:
        """Why plain data parallel cannot work, or, when nothing fits, what would."""
        gpu, capacity, options = self.gpu, self.capacity, self.found.options
        if options and (ZeroStage.NONE, Offload.NONE) not in {family_key(o.layout) for o in options}:
            best = min(options, key=lambda o: rank_key(o, RankBy.TIME))  # the advice's example
            # plain data parallel with the example's expert parallelism: the states the excluded DDP row counts
            states = self.memory.breakdown(Layout(dp=best.layout.ep, ep=best.layout.ep))
            state_bytes = states.model_state_bytes if states is not None else None
            if state_bytes is not None and state_bytes > capacity:
                self.found.advice.append(msg(
                    "advice.ddp_cannot_work", gpu=gpu.name, state_bytes=state_bytes, capacity_bytes=capacity,
                    hint=sharding_hint(best.layout), strategy=best.layout,
                ))  # fmt: skip
        if not options:
            self._complete_needs()  # the lightest layout of all, for the advice
            if self.constraints.gpus:
                upto = msg("where.exact_gpus", gpus=self.constraints.gpus)
            else:
                upto = msg("where.up_to_gpus", gpus=max(self.counts))
            where = {
                "upto": upto,
                "gpu": gpu.name,
                "capacity_bytes": capacity,
                "ideas": self._untried_ideas(),
            }
            # (a lightest layout that fits the GPU was left out for the node's CPU RAM: excluded says so)
            if self.smallest_need is None or self.smallest_need[0][0] <= capacity:
                self.found.advice.append(msg("advice.nothing_fits_training", **where))
            else:
                (need, _), layout = self.smallest_need
                self.found.advice.append(
                    msg("advice.nothing_fits_training_lightest", strategy=layout, need_bytes=need, **where)
                )
