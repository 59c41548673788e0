"""Disaggregated serving: prompts prefilled on one pool of replicas, their KV caches sent over the link to a second
pool that only decodes (NVIDIA Dynamo, SGLang PD disaggregation, vLLM's disaggregated prefilling).

- prefill pool: each replica prefills prompts one after another in chunks of its token budget, no decodes beside
  them; the prompts wait in an M/D/1 queue (planner.perf.queueing) at the rate spread over the pool;
- transfer: the prompt's KV cache (p tokens x KV bytes per token) leaves the prefill replica's tp GPUs in
  parallel over the link between the pools (NVLink inside a node, else the network per GPU), plus its latency;
- decode pool: continuous batching of decodes only, N running sequences per replica by Little's law
  (N = rate x (o - 1) x TPOT(N)), at most what fits.

TTFT = queue + prefill + host overhead (the first token comes from the prefill); the second token waits for the
transfer as well. TPOT is a decode step with no prompt chunks mixed in: what disaggregation buys.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from planner.models.kv_cache import kv_cache_bytes_per_sequence
from planner.perf.queueing import md1_wait
from planner.perf.serving import Replica, step_seconds

LITTLE_ITERATIONS = 30


@dataclass(frozen=True, slots=True)
class DisaggregatedLoad:
    """Two pools at a request rate: TTFT percentiles, the KV transfer, TPOT, output tokens/s and GPUs."""

    ttft_p50_s: float
    ttft_p90_s: float
    prefill_s: float
    queue_s: float
    transfer_s: float
    tpot_s: float
    decode_running: float
    output_tokens_per_s: float
    gpus: int
    overloaded: bool


def disaggregated(
    prefill: Replica, prefill_replicas: int, decode: Replica, decode_replicas: int, request_rate: float,
    prompt_len: int, output_len: int, link_bytes_per_s: float, link_latency_s: float = 0.0,
    decode_max_sequences: int | None = None,
) -> DisaggregatedLoad:  # fmt: skip
    """The two pools at `request_rate` requests per second over all replicas."""
    p, o = float(prompt_len), float(output_len)
    _, budget = prefill.limits
    chunks = max(1, math.ceil(p / budget))
    prefill_s = chunks * step_seconds(prefill, 0.0, 0.0, p / chunks, p)
    wait = md1_wait(request_rate / prefill_replicas, prefill_s)
    kv_bytes = kv_cache_bytes_per_sequence(prefill.model, prompt_len, prefill.kv_bytes)
    transfer_s = kv_bytes / (link_bytes_per_s * prefill.tp) + link_latency_s
    cap = float(min(decode.limits[0], decode_max_sequences or decode.limits[0]))
    rate = request_rate / decode_replicas
    running = 1.0
    tpot = _decode_step(decode, running, p, o)
    for _ in range(LITTLE_ITERATIONS):
        wanted = min(cap, max(1.0, rate * max(o - 1, 1.0) * tpot))
        if abs(wanted - running) < 1e-3 * running:
            break
        running = (running + wanted) / 2
        tpot = _decode_step(decode, running, p, o)
    overloaded = wait.unbounded or rate * max(o - 1, 1.0) * tpot > cap * (1 + 1e-6)
    overhead = prefill.constants.request_overhead_s
    served = (
        request_rate
        if not overloaded
        else min(request_rate, decode_replicas * cap / (max(o - 1, 1.0) * tpot))
    )
    return DisaggregatedLoad(
        ttft_p50_s=prefill_s + overhead + wait.p50_s, ttft_p90_s=prefill_s + overhead + wait.p90_s,
        prefill_s=prefill_s, queue_s=wait.mean_s, transfer_s=transfer_s, tpot_s=tpot, decode_running=running,
        output_tokens_per_s=served * o,
        gpus=prefill_replicas * prefill.tp * prefill.pp + decode_replicas * decode.tp * decode.pp,
        overloaded=overloaded,
    )  # fmt: skip


def _decode_step(replica: Replica, running: float, p: float, o: float) -> float:
    return step_seconds(replica, running, running * (p + o / 2))
