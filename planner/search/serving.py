"""The serving search: one option per replica layout (tp x pp) that fits, replicas for the users or the
tokens/s target, and, when nothing fits, what would (int4 weights, offload, more GPUs) with the numbers."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

from planner import perf
from planner.memory import MemoryConfig, kv_element_bytes
from planner.messages import Message, msg, render_all_en
from planner.search.common import Found, GpuSearch, SearchInputs, SearchMemory, price_option
from planner.search.enumeration import allowed, pinned_count, powers_of_two
from planner.search.types import Excluded, PlanOption
from planner.vocabulary import Layout, Precision, Task

# Serving without a stated number of users: decode this many sequences at once per replica (if they fit).
DEFAULT_SERVING_BATCH = 32
# Deepest serving pipeline tried (powers of two up to this many stages).
MAX_SERVING_PIPELINE = 16


@dataclass(frozen=True, slots=True)
class _ShortOfGpus:
    """A layout that fits but whose users or tokens/s target need more GPUs than allowed."""

    gpus_needed: int
    tp: int
    pp: int
    per_gpu_bytes: int


@dataclass(frozen=True, slots=True)
class _Replica:
    """One replica layout that fits, at the batch it decodes, and its timing."""

    tp: int
    pp: int
    bytes_at_one: int  # per GPU at one sequence
    batch: int
    max_sequences: int
    timing: perf.InferenceTime
    timing_weight_bytes: int = 0  # the weights of the whole replica (what inference_time reads per token)


class ServingSearch(GpuSearch):
    """Serving: one option per replica layout (tp x pp) that fits; replicas to meet the users or the tokens/s
    target; the batch per replica is the stated users or what fits (at most DEFAULT_SERVING_BATCH)."""

    def __init__(self, inputs: SearchInputs):
        super().__init__(inputs)
        self.smallest: tuple[int, int, int] | None = None  # (bytes at batch 1, tp, pp)
        self.short_of_gpus: _ShortOfGpus | None = None

    def _layouts(self) -> list[tuple[int, int]]:
        tps = self.tensor_parallel_sizes()
        depths = powers_of_two(min(MAX_SERVING_PIPELINE, self.model.layers))
        pps = allowed("pp", depths, self.pinned, pinned_count)
        return [(tp, pp) for tp in tps for pp in pps if tp * pp <= self.max_gpus]

    def run(self) -> Found:
        kv_per_token = self._kv_bytes_per_token()
        for tp, pp in self._layouts():
            replica = self._replica(tp, pp, kv_per_token)
            if replica is None:
                continue
            split = self._split_users(replica, kv_per_token)
            if split is not None:
                replica, replicas = split  # the users' replicas: the target is met, or missed and said so
            else:
                replicas = self._replicas(tp, pp, replica.batch, replica.timing.tokens_per_s)
            if replicas is None:
                # it fits, but the users or the tokens/s target need more replicas than the GPUs allowed
                gpus_needed = self._needed(replica.batch, replica.timing.tokens_per_s) * tp * pp
                if self.short_of_gpus is None or gpus_needed < self.short_of_gpus.gpus_needed:
                    self.short_of_gpus = _ShortOfGpus(gpus_needed, tp, pp, replica.bytes_at_one)
                continue
            self._add(replica, replicas)
        if not self.found.options:
            self._nothing_fits()
        return self.found

    def _replica(self, tp: int, pp: int, kv_per_token: float) -> _Replica | None:
        """The replica at (tp, pp) with its batch and timing, or None where it does not fit."""
        workload = self.workload
        one = self.memory.breakdown(Layout(tp=tp, pp=pp))
        two = self.memory.total(Layout(tp=tp, pp=pp, micro_batch=2))
        if one is None or two is None:
            return None
        if self.smallest is None or one.total_bytes < self.smallest[0]:
            self.smallest = (one.total_bytes, tp, pp)
        if one.total_bytes > self.capacity:
            return None
        max_seqs = perf.max_concurrent_sequences(self.capacity, one.total_bytes, two - one.total_bytes)
        users = workload.concurrent_users
        batch = min(max_seqs, users if users else DEFAULT_SERVING_BATCH)
        if self.pinned.get("micro_batch"):
            batch = pinned_count(self.pinned["micro_batch"])
        if batch < 1 or batch > max_seqs:
            return None
        timing = perf.inference_time(
            self.inputs.numbers, self.gpu, tp=tp, pp=pp, batch=batch, prompt_len=workload.prompt_len,
            output_len=workload.output_len, weight_bytes_total=one.weights.bytes * tp * pp,
            kv_bytes_per_token_total=kv_per_token, rates=self.inputs.rates, gpus_per_node=self.per_node,
            inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s,
        )  # fmt: skip
        return _Replica(tp, pp, one.total_bytes, batch, max_seqs, timing, one.weights.bytes * tp * pp)

    def _timed(self, replica: _Replica, batch: int, kv_per_token: float) -> _Replica:
        """The same replica layout decoding `batch` sequences."""
        workload = self.workload
        timing = perf.inference_time(
            self.inputs.numbers, self.gpu, tp=replica.tp, pp=replica.pp, batch=batch,
            prompt_len=workload.prompt_len, output_len=workload.output_len,
            weight_bytes_total=replica.timing_weight_bytes, kv_bytes_per_token_total=kv_per_token,
            rates=self.inputs.rates, gpus_per_node=self.per_node,
            inter_node_bytes_per_s=self.constraints.inter_node_bytes_per_s,
        )  # fmt: skip
        return dataclasses.replace(replica, batch=batch, timing=timing)

    def _split_users(self, replica: _Replica, kv_per_token: float) -> tuple[_Replica, int | None] | None:
        """(replica at its share of the users, replicas) with the stated users split across the replicas: each
        decodes its share (rounded up), not the whole count again. More replicas mean smaller batches and
        faster tokens for each user; the fewest replicas that meet the tokens/s target are taken. When no
        count within the GPU limit meets it, the users cannot read that fast (each reads one token per TPOT):
        the fastest count is kept and its option says it misses the target. Replicas None: the users do not
        fit the GPU limit. None when no users are stated or the micro-batch is pinned."""
        users = self.workload.concurrent_users
        if not users or self.pinned.get("micro_batch"):
            return None
        per_replica = replica.tp * replica.pp
        first = max(math.ceil(users / replica.max_sequences), pinned_count(self.pinned.get("dp", 1)))
        if self.constraints.gpus is not None:
            exact, rest = divmod(self.constraints.gpus, per_replica)
            return (
                (replica, None)
                if rest or exact < first
                else (self._timed(replica, math.ceil(users / exact), kv_per_token), exact)
            )
        last = min(users, self.max_gpus // per_replica)
        if last < first:
            return replica, None
        target = self.workload.tokens_per_second
        for replicas in range(first, last + 1):
            timed = self._timed(replica, math.ceil(users / replicas), kv_per_token)
            if not target or users / timed.timing.tpot_s >= target or replicas == last:
                return timed, replicas
        return None

    def _kv_bytes_per_token(self) -> float:
        workload = self.workload
        config = MemoryConfig(
            task=Task.INFERENCE, precision=workload.precision, kv_precision=workload.kv_precision
        )
        return self.model.kv_bytes_per_token(kv_element_bytes(config))

    def _needed(self, batch: int, tokens_per_s: float) -> int:
        """Replicas the users and the tokens/s target need (at least the pinned dp)."""
        workload = self.workload
        needed = 1
        if workload.concurrent_users:
            needed = max(needed, math.ceil(workload.concurrent_users / batch))
        if workload.tokens_per_second:
            needed = max(needed, math.ceil(workload.tokens_per_second / tokens_per_s))
        if self.pinned.get("dp"):
            needed = max(needed, pinned_count(self.pinned["dp"]))
        return needed

    def _replicas(self, tp: int, pp: int, batch: int, tokens_per_s: float) -> int | None:
        """Replicas needed for the users and the tokens/s target; None if that exceeds the GPU limit."""
        needed = self._needed(batch, tokens_per_s)
        if self.constraints.gpus is not None:
            if self.constraints.gpus % (tp * pp):
                return None
            exact = self.constraints.gpus // (tp * pp)
            return exact if exact >= needed else None
        return needed if needed * tp * pp <= self.max_gpus else None

    def _add(self, replica: _Replica, replicas: int) -> None:
        workload, timing = self.workload, replica.timing
        tp, pp, batch = replica.tp, replica.pp, replica.batch
        count = replicas * tp * pp
        breakdown = self.memory.breakdown(Layout(tp=tp, pp=pp, micro_batch=batch))
        if breakdown is None or breakdown.total_bytes > self.capacity:
            return
        # the users are decoded once over all replicas, not once per replica
        served = (
            min(workload.concurrent_users, replicas * batch)
            if workload.concurrent_users
            else replicas * batch
        )
        tokens_per_s = timing.tokens_per_s * served / batch
        wall = workload.tokens / tokens_per_s if workload.tokens else None
        gpu_hours, cost, per_million = price_option(self.inputs.price, count, tokens_per_s, wall)
        notes = list(breakdown.note_messages)
        bound = (
            "option.decode_compute_bound"
            if timing.decode_bound == "compute"
            else "option.decode_memory_bound"
        )
        notes.append(msg(bound, batch=batch))
        if workload.tokens_per_second and tokens_per_s < workload.tokens_per_second:
            notes.append(msg("option.misses_target", target_tokens_per_second=workload.tokens_per_second))
        self.found.options.append(PlanOption(
            gpu=self.gpu, gpus=count, layout=Layout(dp=replicas, tp=tp, pp=pp, micro_batch=batch),
            memory=breakdown, fits=True, step_time_s=timing.tpot_s, tokens_per_s=tokens_per_s, wall_time_s=wall,
            gpu_hours=gpu_hours, cost=cost, cost_per_million_tokens=per_million, confidence=timing.confidence,
            workload=workload, precision=workload.precision, nodes=self.nodes(count),
            time_breakdown={"ttft_s": timing.ttft_s, "tpot_s": timing.tpot_s}, ttft_s=timing.ttft_s,
            tpot_s=timing.tpot_s, max_concurrent_sequences=replica.max_sequences, batch_per_replica=batch,
            assumptions=timing.assumptions, notes=render_all_en(notes), note_messages=tuple(notes),
        ))  # fmt: skip

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
        short = self.short_of_gpus
        if short is not None:
            layout = {"tp": short.tp, "pp": short.pp, "gpus_needed": short.gpus_needed, "gpu": gpu.name}
            reason = msg(
                "excluded.serving_load_needs_more_gpus",
                per_gpu_bytes=short.per_gpu_bytes,
                limit=limit,
                **layout,
            )
            self.found.excluded.append(Excluded.of(family, reason))
            self.found.advice.append(
                msg("advice.serving_load_needs_more_gpus", model=self.model.name, **layout)
            )
            return
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


def _gpus_to_fit(total_bytes: float, capacity: int) -> int:
    """The power of two of GPUs whose combined memory holds `total_bytes` with 10% to spare (rough)."""
    needed = max(1, math.ceil(total_bytes * 1.1 / capacity))
    return 1 << (needed - 1).bit_length()
