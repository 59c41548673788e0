"""The serving search: one option per replica layout (tp x pp) that fits, replicas for the users or the
tokens/s target, and, when nothing fits, what would (int4 weights, offload, more GPUs) with the numbers."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from planner import perf
from planner.memory import MemoryBreakdown, MemoryConfig, MemoryTerm, kv_element_bytes
from planner.messages import Message, msg
from planner.perf.disaggregated import DisaggregatedLoad
from planner.scale import ReplicaFailure, replica_failure, storage
from planner.search.common import Found, GpuSearch, NeededLayout, SearchInputs, SearchMemory, price_option
from planner.search.enumeration import allowed, pinned_count, powers_of_two
from planner.search.serving_pools import fewest_pools, pools_miss
from planner.search.serving_targets import latency_of, miss_ratio, replicas_for_targets
from planner.search.types import Excluded, PlanOption, Pools, ServingLatency
from planner.vocabulary import Layout, Precision, Task

# Serving without a stated number of users: decode this many sequences at once per replica (if they fit).
DEFAULT_SERVING_BATCH = 32
_EMPTY_LOAD = perf.EMPTY_LOAD
# Deepest serving pipeline tried (powers of two up to this many stages).
MAX_SERVING_PIPELINE = 16


def fitting_sequences(
    memory: SearchMemory, tp: int, pp: int, capacity: int, kv_share: float = 1.0, ep: int = 1
) -> tuple[int, int] | None:
    """(bytes per GPU at one sequence, sequences that fit) of a tp x pp replica of a serving engine: the memory
    model's total at one sequence (weights, a forward's activations, overhead, one KV cache), then each further
    sequence adds only its KV cache, for its whole prompt + output. An engine's activations are a workspace sized
    by one step's tokens (chunked prefill bounds them), not by the sequences running, and TensorRT-LLM's
    guaranteed-no-evict scheduler admits a request only when its full length fits. kv_share: the part of the
    free memory the engine gives its KV cache (planner.perf.max_concurrent_sequences). ep > 1: one rank of an
    expert-parallel group with data-parallel attention (its own sequences, E / ep experts)."""
    layout = _memory_layout(tp, pp, ep)
    one = memory.total(layout)
    if one is None or one > capacity:
        return None if one is None else (one, 0)
    breakdown = memory.breakdown(layout)  # for its KV cache term (words and all: fitting layouts only)
    if breakdown is None:
        return None
    return one, perf.max_concurrent_sequences(capacity, one, breakdown.kv_cache.bytes, kv_share)


def _memory_layout(tp: int, pp: int, ep: int, sequences: int = 1) -> Layout:
    """The memory model's layout of one serving rank: ep > 1 is data-parallel attention over ep ranks of tp GPUs,
    the routed experts whole and split over all ep x tp GPUs (the memory model's expert-parallel degree)."""
    return Layout(dp=ep, tp=tp, pp=pp, ep=ep * tp if ep > 1 else 1, micro_batch=sequences)


def engine_breakdown(
    memory: SearchMemory, tp: int, pp: int, sequences: int, ep: int = 1
) -> MemoryBreakdown | None:
    """Per-GPU memory of a replica running `sequences` at once, by the rule of fitting_sequences: the breakdown
    at one sequence with the KV cache of all of them (the memory model's own breakdown at that batch would
    prefill every sequence at once)."""
    one = memory.breakdown(_memory_layout(tp, pp, ep))
    many = memory.breakdown(_memory_layout(tp, pp, ep, sequences))
    if one is None or many is None:
        return None
    kv_cache = MemoryTerm(one.kv_cache.bytes * sequences, many.kv_cache.assumption)
    return dataclasses.replace(one, kv_cache=kv_cache)


@dataclass(frozen=True, slots=True)
class _Replica:
    """One replica layout that fits: how many sequences fit, how many users it serves, its load figures."""

    tp: int
    pp: int
    max_sequences: int  # sequences whose KV cache fits
    users: int  # users per replica at this load
    replicas: int
    load: perf.ServingLoad  # the whole replica's (an expert-parallel group's ranks together)
    ep: int = 1  # expert-parallel ranks (data-parallel attention); max_sequences is one rank's

    @property
    def gpus(self) -> int:
        return self.tp * self.pp * self.ep


class ServingSearch(GpuSearch):
    """Serving: one option per replica layout (tp x pp) that fits; each replica runs the engine profile
    (continuous batching with chunked prefill, or static batches) at its share of the users; replicas enough
    for every user to hold a slot and for the tokens/s target."""

    def __init__(self, inputs: SearchInputs):
        super().__init__(inputs)
        self.smallest: tuple[int, int, int] | None = None  # (bytes at batch 1, tp, pp)
        self.engine = perf.engine_profile(inputs.workload.engine)
        self._loads: dict[tuple[int, int, int, int, int | None], _Replica] = {}
        self._fitting: dict[int, int] = {}  # tp -> sequences one pp-1 replica holds (for disaggregated pools)
        self.weights = perf.weight_format(inputs.workload.weight_format, str(inputs.workload.precision))

    def layouts(self) -> list[tuple[int, int, int]]:
        """(tp, pp, ep): tensor x pipeline replicas, and for an MoE model on an engine with expert parallelism,
        expert-parallel groups of ep data-parallel attention ranks of tp GPUs each (pp 1; the tp x ep GPUs
        dividing the experts), inside a node or across nodes (whole nodes: the all-to-all's copies to other nodes
        go over the network, planner.perf.expert_parallel). A pinned ep without a pinned tp keeps tp 1."""
        tps = self.tensor_parallel_sizes() if self._pin("ep") in (None, 1) else []
        depths = powers_of_two(min(MAX_SERVING_PIPELINE, self.model.layers))
        pps = allowed("pp", depths, self.pinned, pinned_count)
        found = [(tp, pp, 1) for tp in tps for pp in pps if tp * pp <= self.max_gpus]
        if self.model.is_moe and self.engine.expert_parallel and self._pin("pp") in (None, 1):
            pinned_tp = self._pin("tp")
            rank_tps = [pinned_tp] if pinned_tp else [1] if self._pin("ep") else self.tensor_parallel_sizes()
            for tp in rank_tps:
                found += [(tp, 1, ep) for ep in self._expert_ranks(tp)]
        return found

    def _expert_ranks(self, tp: int) -> list[int]:
        """Data-parallel attention ranks of tp GPUs an expert-parallel group may have: 2 or more, the group's
        tp x ep GPUs dividing the experts, within a node or whole nodes, within the GPU limit."""
        sizes = [
            ep
            for ep in powers_of_two(max(1, min(self.model.experts, self.max_gpus) // tp))
            if ep > 1 and self.model.experts % (ep * tp) == 0
            and (ep * tp <= self.per_node or (ep * tp) % self.per_node == 0)
        ]
        return [ep for ep in allowed("ep", sizes, self.pinned, pinned_count) if ep * tp <= self.max_gpus]

    def _pin(self, name: str) -> int | None:
        return pinned_count(self.pinned[name]) if name in self.pinned else None

    def run(self) -> Found:
        kv_bytes = self.kv_bytes_per_element()
        for tp, pp, ep in self.layouts():
            if self.constraints.gpus is not None and self.constraints.gpus % (tp * pp * ep):
                continue
            found = self._replica(tp, pp, kv_bytes, ep)
            if found is None:
                continue
            replica, needed = found
            if needed is not None and needed > replica.replicas:
                # it fits, but the targets need more replicas than the GPUs allowed: shown as the closest
                self.found.needed.append(NeededLayout(needed * replica.gpus, self.gpu, tp, pp, ep))
            self._add(replica)
        if not self.found.options:
            self._nothing_fits()
        else:
            self._add_pools_if_fewer(kv_bytes)
        return self.found

    def _gpu_limit(self) -> int:
        return self.constraints.gpus if self.constraints.gpus is not None else self.max_gpus

    def perf_replica(self, tp: int, pp: int, kv_bytes: float, ep: int = 1) -> perf.Replica:
        return perf.Replica(
            model=self.model, gpu=self.gpu, rates=self.inputs.rates, tp=tp, pp=pp, weights=self.weights,
            kv_bytes=kv_bytes, engine=self.engine, gpus_per_node=self.per_node,
            inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s, ep=ep,
        )  # fmt: skip

    def _replica(self, tp: int, pp: int, kv_bytes: float, ep: int = 1) -> tuple[_Replica, int | None] | None:
        """The replica at (tp, pp) at the load it carries, and the replicas the targets need at any count (None
        where no count meets them); None where it does not fit.

        Replicas: enough for every user to hold a sequence slot (users beyond the GPU limit queue), at least the
        pinned dp, all the GPUs of an exact count; with targets (TTFT, TPOT, tokens/s) or a request rate, the
        fewest within the GPU limit that meet them (planner.search.serving_targets), else the limit's most."""
        fit = fitting_sequences(self.memory, tp, pp, self.capacity, ep=ep)
        if fit is None:
            return None
        one, max_seqs = fit
        if ep == 1 and (self.smallest is None or one < self.smallest[0]):
            self.smallest = (one, tp, pp)
        if one > self.capacity or max_seqs < 1:
            return None
        slots = min(max_seqs, self.engine.limits(self.gpu.memory_bytes, self.gpu.name)[0])
        if pp == 1 and ep == 1:
            self._fitting[tp] = slots
        if self.pinned.get("micro_batch"):
            slots = pinned_count(self.pinned["micro_batch"])
            if slots > max_seqs:
                return None
        limit = max(1, self._gpu_limit() // (tp * pp * ep))
        workload = self.workload
        users, rate = workload.concurrent_users, workload.request_rate
        replicas = min(limit, max(1, math.ceil(users / (slots * ep)))) if users else 1
        replicas = max(replicas, pinned_count(self.pinned["dp"]) if self.pinned.get("dp") else 1)
        fixed = self.constraints.gpus is not None or bool(self.pinned.get("dp"))
        if self.constraints.gpus is not None:
            replicas = limit
        base = _Replica(tp, pp, max_seqs, 1, 1, _EMPTY_LOAD, ep)
        targets = workload.has_latency_targets or bool(workload.tokens_per_second) or rate is not None
        if not users and rate is None and workload.has_latency_targets:
            slots = self._batch_for_targets(base, replicas, kv_bytes, slots)
        at = self._at(base, replicas, kv_bytes, slots)
        if fixed or not targets:
            return at, replicas
        most = users if users else (None if rate is not None or workload.tokens_per_second else replicas)
        reach = replicas_for_targets(
            lambda r: self._miss(self._at(base, r, kv_bytes, slots)), replicas, limit, most
        )
        return self._at(base, reach.within, kv_bytes, slots), reach.needed

    def _batch_for_targets(self, base: _Replica, replicas: int, kv_bytes: float, slots: int) -> int:
        """Without stated users or a rate: the largest batch per replica (a power of two up to the default
        batch) whose load meets the latency targets; batch 1 when none does."""
        batch = min(slots, DEFAULT_SERVING_BATCH)
        while batch > 1 and self._miss(self._at(base, replicas, kv_bytes, batch)) > 1:
            batch //= 2
        return max(1, batch)

    def _miss(self, replica: _Replica) -> float:
        miss = miss_ratio(replica.load, self._aggregate_tokens_per_s(replica), self.workload)
        return 0.0 if miss is None else miss

    def _at(self, replica: _Replica, replicas: int, kv_bytes: float, slots: int | None = None) -> _Replica:
        """The replica's load with `replicas` replicas sharing the users or the request rate (or, without either,
        a batch of up to DEFAULT_SERVING_BATCH sequences each)."""
        key = (replica.tp, replica.pp, replica.ep, replicas, slots)
        known = self._loads.get(key)
        if known is not None:
            return known
        workload = self.workload
        users, rate = workload.concurrent_users, workload.request_rate
        limit = min(replica.max_sequences, self.engine.limits(self.gpu.memory_bytes, self.gpu.name)[0])
        limit = limit if slots is None else slots
        ep = replica.ep
        per_replica = math.ceil(users / replicas) if users else min(limit, DEFAULT_SERVING_BATCH) * ep
        load = perf.serve(
            self.perf_replica(replica.tp, replica.pp, kv_bytes, ep), math.ceil(per_replica / ep),
            workload.prompt_len, workload.output_len, max_sequences=limit,
            request_rate=rate / (replicas * ep) if rate is not None else None,
        )  # fmt: skip
        found = dataclasses.replace(replica, users=per_replica, replicas=replicas, load=_grouped(load, ep))
        self._loads[key] = found
        return found

    def _aggregate_tokens_per_s(self, replica: _Replica) -> float:
        """Output tokens/s over all replicas. The users' shares are rounded up (50 users on 23 replicas: 3 slots
        each), so only the stated users decode: 50 users at t seconds per token read at most 50 / t."""
        load = replica.load
        slots = replica.replicas * load.concurrency
        users = self.workload.concurrent_users
        served = min(users, slots) if users else slots
        return load.output_tokens_per_s * served / max(1, load.concurrency)

    def kv_bytes_per_element(self) -> float:
        workload = self.workload
        config = MemoryConfig(
            task=Task.INFERENCE, precision=workload.precision, kv_precision=workload.kv_precision
        )
        return float(kv_element_bytes(config))

    def _add(self, replica: _Replica) -> None:
        workload, load = self.workload, replica.load
        tp, pp, replicas, ep = replica.tp, replica.pp, replica.replicas, replica.ep
        count = replicas * replica.gpus
        batch = load.concurrency
        breakdown = engine_breakdown(self.memory, tp, pp, math.ceil(batch / ep), ep)
        if breakdown is None:
            return
        tokens_per_s = self._aggregate_tokens_per_s(replica)
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        gpu_hours, cost, per_million = price_option(self.inputs.price, count, tokens_per_s, wall)
        bound = (
            "option.decode_compute_bound" if load.decode_bound == "compute" else "option.decode_memory_bound"
        )
        added = [msg(bound, batch=batch)]
        if load.queued:
            added.append(msg("option.users_queued", queued=load.queued, slots=load.concurrency))
        miss = miss_ratio(load, tokens_per_s, workload)
        latency = latency_of(load, miss, replicas)
        if not latency.meets:
            added.append(self._missed(load, tokens_per_s, latency.overloaded))
        notes = (*breakdown.note_messages, *added)
        band = perf.shipped_bands().band(
            perf.option_keys(False, self.gpu, replica.gpus, self.per_node), self.inputs.rates.confidence
        )
        spread = perf.uniform_output_lengths(workload.output_len)
        static = perf.static_batching_loss(
            self.perf_replica(tp, pp, self.kv_bytes_per_element(), ep),
            max(1, math.ceil(batch / ep)),
            workload.prompt_len,
            spread,
        )
        self.found.options.append(PlanOption(
            gpu=self.gpu, gpus=count, layout=Layout(dp=replicas, tp=tp, pp=pp, ep=ep, micro_batch=batch),
            memory=breakdown, fits=True, step_time_s=load.tpot_s, tokens_per_s=tokens_per_s, wall_time_s=wall,
            gpu_hours=gpu_hours, cost=cost, cost_per_million_tokens=per_million,
            confidence=self.inputs.rates.confidence, workload=workload, precision=workload.precision,
            nodes=self.nodes(count),
            time_breakdown={"ttft_s": load.ttft_s, "tpot_s": load.tpot_s, "request_s": load.request_s},
            ttft_s=load.ttft_s, tpot_s=load.tpot_s, max_concurrent_sequences=replica.max_sequences * ep,
            batch_per_replica=batch, assumptions=self.inputs.rates.assumptions,
            note_messages=notes, time_band=band, per_user_tokens_per_s=load.per_user_tokens_per_s,
            concurrent_users=replica.users if workload.request_rate is None else batch,  # a rate: those running
            engine=self.engine.name, prefill_share=load.prefill_share,
            static_batching=static,
            replica_failure=self._replica_failure(replica, breakdown.weights.bytes, tokens_per_s),
            latency=latency,
        ))  # fmt: skip

    def _add_pools_if_fewer(self, kv_bytes: float) -> None:
        """Disaggregated prefill / decode pools (planner.search.serving_pools) at a request rate with latency
        targets, added when they meet the targets with fewer GPUs than every aggregated option that meets them
        (or when none does). Not tried with a pinned layout or an exact GPU count."""
        if self.pinned or self.constraints.gpus is not None or self.workload.request_rate is None:
            return
        if not self.engine.disaggregation:  # llama.cpp, ExLlamaV2, transformers, gpt-fast: no separate pools
            return
        meeting = [option.gpus for option in self.found.options if not option.misses_targets]
        limit = min(meeting) - 1 if meeting else self._gpu_limit()
        network = self.constraints.inter_node_bytes_per_s or perf.DEFAULT_INTER_NODE_BYTES_PER_S

        def link(gpus: int) -> float:
            return perf.intra_node_bus_bytes_per_s(self.gpu, gpus) if gpus <= self.per_node else network

        found = fewest_pools(lambda tp: self.perf_replica(tp, 1, kv_bytes), self._fitting, self.workload, limit,
                             link)  # fmt: skip
        if found is not None:
            self._add_pools(*found)

    def _add_pools(self, pools: Pools, load: DisaggregatedLoad) -> None:
        """The pools as an option: its layout is the decode pool's (replicas x tp, the running sequences per
        replica), its GPUs both pools', its memory a decode replica's; the prefill pool is in its note and its
        latency (JSON "latency" / "disaggregated")."""
        workload = self.workload
        running = max(1, math.ceil(load.decode_running))
        breakdown = engine_breakdown(self.memory, pools.decode_tp, 1, running)
        if breakdown is None:
            return
        tokens_per_s = load.output_tokens_per_s
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        gpu_hours, cost, per_million = price_option(self.inputs.price, pools.gpus, tokens_per_s, wall)
        latency = ServingLatency(
            ttft_p50_s=load.ttft_p50_s, ttft_p90_s=load.ttft_p90_s, prefill_s=load.prefill_s, queue_s=load.queue_s,
            itl_p90_s=load.tpot_s, request_rate=workload.request_rate or 0.0, overloaded=load.overloaded,
            miss=pools_miss(load, workload), pools=pools,
        )  # fmt: skip
        added = [msg("option.disaggregated", prefill_replicas=pools.prefill_replicas, prefill_tp=pools.prefill_tp,
                     decode_replicas=pools.decode_replicas, decode_tp=pools.decode_tp,
                     transfer_s=pools.transfer_s)]  # fmt: skip
        notes = (*breakdown.note_messages, *added)
        ttft = load.ttft_p50_s
        # the band of serving runs on this GPU at the decode replica's size: no published disaggregated run is in
        # the validation set, so the pools carry the band of the aggregated engines they are built from
        band = perf.shipped_bands().band(
            perf.option_keys(False, self.gpu, pools.decode_tp, self.per_node), self.inputs.rates.confidence
        )
        self.found.options.append(PlanOption(
            gpu=self.gpu, gpus=pools.gpus,
            layout=Layout(dp=pools.decode_replicas, tp=pools.decode_tp, micro_batch=running),
            memory=breakdown, fits=True, step_time_s=load.tpot_s, tokens_per_s=tokens_per_s, wall_time_s=wall,
            gpu_hours=gpu_hours, cost=cost, cost_per_million_tokens=per_million,
            confidence=self.inputs.rates.confidence, workload=workload, precision=workload.precision,
            nodes=self.nodes(pools.gpus),
            time_breakdown={"ttft_s": ttft, "tpot_s": load.tpot_s,
                            "request_s": ttft + load.transfer_s + (workload.output_len - 1) * load.tpot_s},
            ttft_s=ttft, tpot_s=load.tpot_s, max_concurrent_sequences=self._fitting[pools.decode_tp],
            batch_per_replica=running, assumptions=self.inputs.rates.assumptions, note_messages=notes,
            per_user_tokens_per_s=1.0 / load.tpot_s, engine=self.engine.name, latency=latency, time_band=band,
        ))  # fmt: skip

    def _missed(self, load: perf.ServingLoad, tokens_per_s: float, overloaded: bool) -> Message:
        """Which targets the option misses, with its figures."""
        workload = self.workload
        if overloaded:
            return msg("option.overloaded", request_rate=workload.request_rate or 0.0)
        missed = []
        if workload.ttft_target_s is not None and load.ttft_p90_s > workload.ttft_target_s:
            missed.append(msg("target.ttft", ttft_s=load.ttft_p90_s, target_s=workload.ttft_target_s))
        if workload.tpot_target_s is not None and load.tpot_s > workload.tpot_target_s:
            missed.append(msg("target.tpot", tpot_s=load.tpot_s, target_s=workload.tpot_target_s))
        if workload.tokens_per_second and tokens_per_s < workload.tokens_per_second:
            missed.append(msg("option.misses_target", target_tokens_per_second=workload.tokens_per_second))
        return msg("option.misses_targets", missed=tuple(missed))

    def _replica_failure(
        self, replica: _Replica, weights_bytes_per_gpu: int, tokens_per_s: float
    ) -> ReplicaFailure | None:
        """What one replica failing does to this deployment (planner.scale.serving)."""
        resilience = self.constraints.resilience
        where = storage(resilience.storage, resilience.checkpoint_bytes_per_s_per_gpu)
        gpus = replica.gpus
        return replica_failure(self.gpu, replica.replicas, gpus, weights_bytes_per_gpu * gpus, tokens_per_s, where,
                               resilience, self.workload.tokens_per_second)  # fmt: skip

    def _nothing_fits(self) -> None:
        """Say what would work: int4 weights, offload, or more GPUs (with the numbers)."""
        gpu, capacity, workload = self.gpu, self.capacity, self.workload
        limit = self.constraints.gpus or self.max_gpus
        one = self.memory.total(Layout())
        need = self.smallest[0] if self.smallest else one
        where = (
            msg("where.gpus", gpus=limit, gpu=gpu.name) if limit > 1 else msg("where.one_gpu", gpu=gpu.name)
        )
        family = msg("excluded.family.inference", precision=workload.precision)
        if need is None:
            self.found.excluded.append(Excluded.of(family, msg("excluded.no_serving_layout", where=where)))
            return
        reason = msg("excluded.serving_needs_memory", need_bytes=need, where=where, capacity_bytes=capacity)
        self.found.excluded.append(Excluded.of(family, reason))
        self.found.advice.append(msg(
            "advice.serving_does_not_fit", model=self.model.name, precision=workload.precision, where=where,
            need_bytes=need, capacity_bytes=capacity, ideas=self._ideas(one),
        ))  # fmt: skip

    def _ideas(self, one: int | None) -> tuple[Message, ...]:
        """What would run the model: int4 weights, offloading the weights to CPU RAM, more GPUs (with numbers).

        one: bytes per GPU on a single GPU at batch 1 (None where that layout is impossible)."""
        gpu, capacity, workload = self.gpu, self.capacity, self.workload
        ideas = []
        if workload.precision != Precision.INT4:
            int4_workload = dataclasses.replace(workload, precision=Precision.INT4)
            int4 = SearchMemory(self.model, int4_workload).total(Layout())
            if int4 is not None:
                gpus_int4 = _gpus_to_fit(int4, capacity)
                if gpus_int4 == 1:
                    ideas.append(msg("idea.int4_fits_one_gpu", int4_bytes=int4))
                else:
                    ideas.append(msg("idea.int4_needs_gpus", int4_bytes=int4, gpus=gpus_int4))
        if one is not None:
            streamed = one - capacity
            ideas.append(msg(
                "idea.offload_weights", streamed_bytes=streamed,
                token_time_s=streamed / (gpu.pcie_bytes_per_s / 2),
            ))  # fmt: skip
            ideas.append(msg("idea.more_gpus", gpus=_gpus_to_fit(one, capacity), gpu=gpu.name))
        return tuple(ideas)


def _grouped(load: perf.ServingLoad, ep: int) -> perf.ServingLoad:
    """An expert-parallel group's load from one rank's: ep ranks side by side, each with its own sequences."""
    if ep == 1:
        return load
    return dataclasses.replace(
        load, concurrency=load.concurrency * ep, queued=load.queued * ep,
        output_tokens_per_s=load.output_tokens_per_s * ep, request_rate=load.request_rate * ep,
    )  # fmt: skip


def _gpus_to_fit(total_bytes: float, capacity: int) -> int:
    """The power of two of GPUs whose combined memory holds `total_bytes` with 10% to spare (rough)."""
    needed = max(1, math.ceil(total_bytes * 1.1 / capacity))
    return 1 << (needed - 1).bit_length()
