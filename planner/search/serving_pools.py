"""Disaggregated prefill / decode pools in the serving search (NVIDIA Dynamo, SGLang PD disaggregation, vLLM's
disaggregated prefilling): at a request rate with latency targets, the fewest GPUs in two pools that meet them,
chosen when they need fewer GPUs than every aggregated layout that meets them (or when none does).

The two pools are sized apart, because each target depends on one pool only (planner.perf.disaggregated): the
TTFT at its 90th percentile on the prefill replicas (their M/D/1 queue and the prompt's chunks), the time per
output token and the overload on the decode replicas (decode-only steps at the running sequences Little's law
gives). For each (prefill tp, decode tp) of the layouts that fit at pp 1, the fewest replicas of each pool that
meet its target (planner.search.serving_targets.replicas_for_targets), and the pair with the fewest GPUs in all.
The KV cache of each prompt crosses NVLink when both pools fit in one node, else the network.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable

from planner import perf
from planner.perf.disaggregated import DisaggregatedLoad, disaggregated
from planner.search.serving_targets import replicas_for_targets
from planner.search.types import Pools, Workload

# The other pool's replicas while one pool is sized: so many that it neither queues nor overloads.
UNBOUNDED_POOL = 1 << 20


def pools_miss(load: DisaggregatedLoad, workload: Workload) -> float:
    """The worst figure / target ratio of the pools (inf when the rate overloads them)."""
    if load.overloaded:
        return math.inf
    ratios = [0.0]
    if workload.ttft_target_s is not None:
        ratios.append(load.ttft_p90_s / workload.ttft_target_s)
    if workload.tpot_target_s is not None:
        ratios.append(load.tpot_s / workload.tpot_target_s)
    if workload.tokens_per_second:
        ratios.append(workload.tokens_per_second / load.output_tokens_per_s)
    return max(ratios)


def fewest_pools(
    replica_at: Callable[[int], perf.Replica], fitting: dict[int, int], workload: Workload, gpu_limit: int,
    link_bytes_per_s: Callable[[int], float],
) -> tuple[Pools, DisaggregatedLoad] | None:  # fmt: skip
    """The pools with the fewest GPUs (at most gpu_limit) that meet the targets at workload.request_rate.

    replica_at(tp): the engine replica at tp (pp 1); fitting: tp -> the sequences whose KV caches fit one
    replica of the decode pool; link_bytes_per_s(gpus): per-GPU bandwidth between the pools for that many GPUs."""
    rate = workload.request_rate
    if rate is None or not workload.has_latency_targets:
        return None
    prompt, output = workload.prompt_len, workload.output_len

    def load(prefill_tp: int, prefill: int, decode_tp: int, decode: int, link: float) -> DisaggregatedLoad:
        return disaggregated(replica_at(prefill_tp), prefill, replica_at(decode_tp), decode, rate, prompt, output,
                             link, decode_max_sequences=fitting[decode_tp])  # fmt: skip

    def prefill_miss(tp: int, replicas: int) -> float:
        # TTFT alone (the decode pool unbounded); without a TTFT target, only that its queue is bounded
        pools = load(tp, replicas, tp, UNBOUNDED_POOL, math.inf)
        bounded = not math.isinf(pools.queue_s)
        if workload.ttft_target_s is None:
            return 0.0 if bounded else math.inf
        return pools.ttft_p90_s / workload.ttft_target_s if bounded else math.inf

    def decode_miss(tp: int, replicas: int) -> float:
        pools = load(tp, UNBOUNDED_POOL, tp, replicas, math.inf)
        if pools.overloaded:
            return math.inf
        return pools.tpot_s / workload.tpot_target_s if workload.tpot_target_s is not None else 0.0

    prefill_needs = _fewest_by_tp(prefill_miss, fitting, gpu_limit)
    decode_needs = _fewest_by_tp(decode_miss, fitting, gpu_limit)
    best: tuple[Pools, DisaggregatedLoad] | None = None
    for prefill_tp, prefill in prefill_needs.items():
        for decode_tp, decode in decode_needs.items():
            gpus = prefill * prefill_tp + decode * decode_tp
            if gpus > gpu_limit or (best is not None and gpus >= best[0].gpus):
                continue
            link = link_bytes_per_s(gpus)
            pools_load = load(prefill_tp, prefill, decode_tp, decode, link)
            if pools_miss(pools_load, workload) <= 1:
                best = Pools(prefill, prefill_tp, decode, decode_tp, pools_load.transfer_s), pools_load
    return best


def _fewest_by_tp(
    miss_at: Callable[[int, int], float], fitting: dict[int, int], gpu_limit: int
) -> dict[int, int]:
    """tp -> the fewest replicas of that tp meeting the pool's target within the GPU limit."""
    fewest = {}
    for tp in fitting:
        limit = gpu_limit // tp
        if limit < 1:
            continue
        reach = replicas_for_targets(functools.partial(miss_at, tp), 1, limit, None)
        if reach.needed is not None and reach.needed <= limit:
            fewest[tp] = reach.needed
    return fewest
