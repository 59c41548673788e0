"""Throughput against latency for one model on one GPU type (the serving frontier the GUI charts): every replica
layout tp x 1 that fits (and, for an MoE model on an engine with expert parallelism, every expert-parallel group
of ep GPUs), at 1, 2, 4, ... concurrent users per rank up to the sequences it holds, timed by the serving engine
model at the workload's prompt and output lengths; each point is the output tokens per second one GPU
gives against the tokens per second one user reads (1 / TPOT), with its TTFT. The Pareto frontier keeps the
points no other beats on both."""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner import perf
from planner.gpus import GpuSpec
from planner.models import ModelSpec
from planner.search.common import SearchInputs, SearchMemory
from planner.search.enumeration import powers_of_two
from planner.search.serving import ServingSearch, fitting_sequences
from planner.search.types import Constraints, Workload


@dataclass(frozen=True, slots=True)
class FrontierPoint:
    """One replica layout at one load: tp GPUs (or an expert-parallel group of ep ranks of tp GPUs) decoding `users` sequences at
    once (closed loop).

    tokens_per_s_per_gpu: output tokens per second of the replica over its tp GPUs; per_user_tokens_per_s:
    1 / TPOT; ttft_p90_s: the 90th-percentile time to first token at that load; meets: against the workload's
    TTFT and TPOT targets (True without targets)."""

    tp: int
    users: int
    tpot_s: float
    ttft_p90_s: float
    tokens_per_s_per_gpu: float
    per_user_tokens_per_s: float
    meets: bool
    ep: int = 1

    @property
    def label(self) -> str:
        """The layout's line: "TP 2", "EP 8", or "EP 4 x TP 2" (4 data-parallel attention ranks of 2 GPUs)."""
        if self.ep > 1:
            return f"EP {self.ep} x TP {self.tp}" if self.tp > 1 else f"EP {self.ep}"
        return f"TP {self.tp}"


def serving_frontier(
    model: ModelSpec, workload: Workload, gpu: GpuSpec, constraints: Constraints | None = None,
    calibration: perf.Calibration | None = None,
) -> tuple[FrontierPoint, ...]:  # fmt: skip
    """Every (tp, users) point of `gpu` for the workload's prompt, output, engine and formats, by tp then users."""
    constraints = constraints or Constraints()
    rates = perf.device_rates(gpu, workload.precision, mfu=workload.mfu,
                              bandwidth_fraction=workload.bandwidth_fraction, calibration=calibration)  # fmt: skip
    numbers = perf.model_numbers(model, workload.lora_rank)
    inputs = SearchInputs(
        model, workload, gpu, constraints, SearchMemory(model, workload), numbers, rates, None
    )
    search = ServingSearch(inputs)
    kv_bytes = search.kv_bytes_per_element()
    points: list[FrontierPoint] = []
    for tp, pp, ep in search.layouts():
        fit = fitting_sequences(search.memory, tp, 1, search.capacity, ep=ep) if pp == 1 else None
        if fit is None or fit[1] < 1:
            continue
        replica = search.perf_replica(tp, 1, kv_bytes, ep)
        most = min(fit[1], search.engine.limits(gpu.memory_bytes, gpu.name)[0])
        for users in powers_of_two(most):  # per rank; an expert-parallel group runs ep ranks side by side
            load = perf.serve(replica, users, workload.prompt_len, workload.output_len, max_sequences=most)
            points.append(FrontierPoint(
                tp=tp, users=users * ep, tpot_s=load.tpot_s, ttft_p90_s=load.ttft_p90_s,
                tokens_per_s_per_gpu=load.output_tokens_per_s / tp, per_user_tokens_per_s=1.0 / load.tpot_s,
                meets=_meets(load.ttft_p90_s, load.tpot_s, workload), ep=ep,
            ))  # fmt: skip
    return tuple(points)


def _meets(ttft_p90_s: float, tpot_s: float, workload: Workload) -> bool:
    ttft, tpot = workload.ttft_target_s, workload.tpot_target_s
    return (ttft is None or ttft_p90_s <= ttft * (1 + 1e-9)) and (tpot is None or tpot_s <= tpot * (1 + 1e-9))


def pareto(points: tuple[FrontierPoint, ...]) -> tuple[FrontierPoint, ...]:
    """The points no other point beats on both per-user and per-GPU tokens per second, fastest user first."""
    ordered = sorted(points, key=lambda p: (-p.per_user_tokens_per_s, -p.tokens_per_s_per_gpu))
    kept: list[FrontierPoint] = []
    best = -math.inf
    for point in ordered:
        if point.tokens_per_s_per_gpu > best:
            kept.append(point)
            best = point.tokens_per_s_per_gpu
    return tuple(kept)
