"""A serving replica at a load: prefill and decode as separate phases, time to first token (TTFT) and time per
output token (TPOT) with the queue in front of the prefill, for N concurrent users or a request rate.

Continuous batching (vLLM, SGLang, TensorRT-LLM, llama.cpp, ExLlamaV2) is solved as a fluid steady state: every
request spends n = ceil(p / budget) steps in prefill (its prompt in chunks of the step's token budget left after
the decodes) and o - 1 steps in decode; in each step N (o - 1) / S sequences decode and N p / S prompt tokens are
prefilled, S being the steps of one request's life (fixed point, a few iterations). The phases are then timed
apart:

- prefill (TTFT's service): n steps, each carrying one chunk of the prompt (p / n tokens) beside the others'
  decodes: its GEMMs over every prompt token, its causal attention, the weights read n times;
- decode (TPOT): a step of the decodes with the other requests' prompt chunks mixed in (chunked prefill: the
  mean over steps); the 90th-percentile inter-token latency is the step that carries a chunk whenever more than a
  tenth of the steps do;
- the queue: a step is scheduled whole, so an arriving prompt waits for the step in progress (half a step on
  average: a prompt-carrying step for the share of time those run, a decode step otherwise), and behind the
  prompt tokens queued ahead of it (planner.perf.queueing.stepped_wait); N users beyond the sequences that fit
  wait for a slot.

Aggregate output tokens/s = N o / (the request's life), per-user tokens/s = 1 / TPOT. With a request rate the
running sequences N come from Little's law (N = rate x life, at most what fits); a rate beyond what the most
sequences that fit can finish is overloaded (TTFT without bound).

Static batching (all B requests prefilled together, then decoded together until the longest is done; TensorRT-LLM's
gptSessionBenchmark, Hugging Face generate) is the other schedule; `static_batching_loss` gives the GPU time lost
waiting for the longest output of a batch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from planner.errors import UserError
from planner.messages import msg
from planner.perf.queueing import Wait, stepped_wait
from planner.perf.serving import Replica, decode_bound, step_seconds

FIXED_POINT_ITERATIONS = 4
LITTLE_ITERATIONS = 30
# The 90th-percentile inter-token latency is a step with a prompt chunk when more than this share of steps carry one.
CHUNK_STEP_SHARE_FOR_P90 = 0.1


@dataclass(frozen=True, slots=True)
class ServingLoad:
    """What one replica delivers at a load.

    concurrency: sequences in flight (at most what fits and the engine's batch limit); queued: users waiting
    for a slot; output_tokens_per_s: all users; per_user_tokens_per_s: 1 / TPOT while a user's request decodes;
    tpot_s: mean time per output token (a decode step, with other prompts' chunks mixed in); ttft_s: mean time to
    the first token (queue, prefill, host overhead); request_s: one request from arrival to its last token;
    prefill_share: the share of step time spent on prompts; decode_bound: "memory bandwidth" or "compute";
    ttft_p50_s / ttft_p90_s: percentiles of TTFT; itl_p90_s: 90th-percentile time between two tokens;
    prefill_s: the prefill phase alone (no queue); queue_s: mean wait before the prefill; request_rate: requests
    per second this replica serves; overloaded: a request rate beyond what the replica can finish.
    """

    concurrency: int
    queued: int
    output_tokens_per_s: float
    per_user_tokens_per_s: float
    tpot_s: float
    ttft_s: float
    request_s: float
    prefill_share: float
    decode_bound: str
    scheduling: str
    ttft_p50_s: float = 0.0
    ttft_p90_s: float = 0.0
    itl_p90_s: float = 0.0
    prefill_s: float = 0.0
    queue_s: float = 0.0
    request_rate: float = 0.0
    overloaded: bool = False


EMPTY_LOAD = ServingLoad(0, 0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, "memory bandwidth", "continuous")


@dataclass(frozen=True, slots=True)
class _Fluid:
    """The steady state of N running sequences: steps per request, decodes and prefill tokens per step, the
    budget left for prompts, the prompt's prefill steps and the mean step time."""

    running: float
    steps: float
    decode: float
    prefill: float
    budget: float
    prefill_steps: int
    step_s: float


def _fluid(replica: Replica, running: float, p: float, o: float) -> _Fluid:
    _, step_tokens = replica.limits
    steps = o  # one request's life in steps, refined below
    step = decode = prefill = budget = 0.0
    prefill_steps = 1
    for _ in range(FIXED_POINT_ITERATIONS):
        decode = running * max(o - 1, 0.0) / steps
        prefill = running * p / steps
        budget = max(1.0, step_tokens - decode) if replica.engine.chunked_prefill else float(step_tokens)
        prefill_steps = max(1, math.ceil(p / budget - 1e-9))
        steps = max(prefill_steps + o - 1, running * p / budget)
        step = step_seconds(replica, decode, decode * (p + o / 2), prefill, p)
    return _Fluid(running, steps, decode, prefill, budget, prefill_steps, step)


@dataclass(frozen=True, slots=True)
class _Phases:
    prefill_s: float  # one prompt's prefill steps
    chunk_step_s: float  # one of them
    decode_step_s: float  # a step without prompt tokens
    tpot_s: float  # a decode step with the others' prompt chunks mixed in (mean)
    life_s: float  # prefill + o - 1 decode steps
    server_s: float  # the prefill server's busy time per prompt (its tokens' work, its share of its steps' fixed cost)


def _phases(replica: Replica, f: _Fluid, p: float, o: float) -> _Phases:
    """Prefill and decode timed apart: while one request is prefilled the others decode; while it decodes the
    others' prompt chunks ride along (the fluid's share of them)."""
    others = max(0.0, (f.running - 1) / f.running) if f.running else 0.0
    context = f.decode * (p + o / 2)
    n = f.prefill_steps
    chunk = step_seconds(replica, f.decode * others, context * others, p / n, p)
    decode_only = step_seconds(replica, f.decode, context) if f.decode > 0 else 0.0
    tpot = step_seconds(replica, max(f.decode, 1.0), max(f.decode, 1.0) * (p + o / 2), f.prefill * others, p)
    life = max(n * chunk + max(o - 1, 0.0) * tpot, f.steps * f.step_s)
    # The prefill server's time per prompt: its own tokens' work, and its share of what the step costs anyway (the
    # weights read, the decodes), which prompts sharing a step split by their tokens.
    fixed = min(chunk, step_seconds(replica, max(f.decode * others, 1.0), max(context * others, p + o / 2)))
    server = n * (chunk - fixed) + n * fixed * min(1.0, p / (n * f.budget))
    return _Phases(n * chunk, chunk, decode_only or tpot, tpot, life, server)


def continuous_batching(
    replica: Replica, users: int, prompt_len: int, output_len: int, max_sequences: int | None = None,
    request_rate: float | None = None,
) -> ServingLoad:  # fmt: skip
    """Steady state of one replica with continuous batching and chunked prefill: `users` concurrent users in a
    closed loop, or (with `request_rate`, requests per second) Poisson arrivals."""
    if users < 1 or prompt_len < 1 or output_len < 1 or (request_rate is not None and request_rate <= 0):
        raise UserError.of(msg("error.batch_positive"))
    max_batch, _ = replica.limits
    cap = max(1, min(max_batch, max_sequences if max_sequences else max_batch))
    p, o = float(prompt_len), float(output_len)
    if request_rate is not None:
        return _open_loop(replica, request_rate, cap, p, o)
    slots = max(1, min(users, cap))
    f = _fluid(replica, slots, p, o)
    phases = _phases(replica, f, p, o)
    rate = slots / phases.life_s
    wait = stepped_wait(rate, phases.server_s, phases.chunk_step_s, f.prefill_steps, population=slots)
    slot_wait = max(0.0, users / slots - 1.0) * phases.life_s
    return _load(replica, f, phases, wait, slot_wait, p, o, users - slots, rate, overloaded=False, alone=slots == 1)


def _open_loop(replica: Replica, rate: float, cap: int, p: float, o: float) -> ServingLoad:
    """Running sequences by Little's law, N = rate x life(N), at most `cap`; beyond: overloaded."""
    running = 1.0
    f = _fluid(replica, running, p, o)
    phases = _phases(replica, f, p, o)
    for _ in range(LITTLE_ITERATIONS):
        wanted = min(float(cap), max(1.0, rate * phases.life_s))
        if abs(wanted - running) < 1e-3 * running:
            break
        running = (running + wanted) / 2 if wanted > running else wanted
        f = _fluid(replica, running, p, o)
        phases = _phases(replica, f, p, o)
    overloaded = rate * phases.life_s > cap * (1 + 1e-6)
    wait = stepped_wait(rate, phases.server_s, phases.chunk_step_s, f.prefill_steps)
    if overloaded:
        wait = Wait(math.inf, math.inf, math.inf, wait.utilisation)
    served = running / phases.life_s if overloaded else rate
    return _load(replica, f, phases, wait, 0.0, p, o, 0, served, overloaded)


def _load(
    replica: Replica, f: _Fluid, phases: _Phases, wait: Wait, slot_wait: float, p: float, o: float, queued: int,
    rate: float, overloaded: bool, alone: bool = False,
) -> ServingLoad:  # fmt: skip
    overhead = replica.constants.request_overhead_s
    step = phases.tpot_s
    base = phases.prefill_s + overhead + slot_wait
    # The decode step in progress when no prompt-carrying one is (wait.utilisation: the share of time those take);
    # a lone user's prompt finds the engine idle.
    decode_step = 0.0 if alone else (1.0 - min(1.0, wait.utilisation)) * phases.decode_step_s
    chunk_share = rate * f.prefill_steps * step
    itl_p90 = phases.chunk_step_s if chunk_share > CHUNK_STEP_SHARE_FOR_P90 else phases.decode_step_s
    decode_only = step_seconds(replica, max(f.decode, 1.0), max(f.decode, 1.0) * (p + o / 2))
    running = max(1, round(f.running))
    return ServingLoad(
        concurrency=running, queued=max(0, queued), output_tokens_per_s=rate * o, per_user_tokens_per_s=1.0 / step if o > 1 else o / phases.life_s,
        tpot_s=step, ttft_s=base + 0.5 * decode_step + wait.mean_s, request_s=phases.life_s + wait.mean_s + slot_wait,
        prefill_share=max(0.0, 1.0 - decode_only / f.step_s) if f.step_s else 0.0,
        decode_bound=decode_bound(replica, max(f.decode, 1.0), p + o / 2), scheduling="continuous",
        ttft_p50_s=base + 0.5 * decode_step + wait.p50_s, ttft_p90_s=base + 0.9 * decode_step + wait.p90_s, itl_p90_s=itl_p90,
        prefill_s=phases.prefill_s, queue_s=wait.mean_s, request_rate=rate, overloaded=overloaded,
    )  # fmt: skip


def static_batching(replica: Replica, batch: int, prompt_len: int, output_len: int) -> ServingLoad:
    """A static batch: the B prompts prefilled in one pass, then B sequences decoded for o - 1 steps (the
    first token comes from the prefill) at contexts growing from p to p + o."""
    if batch < 1 or prompt_len < 1 or output_len < 1:
        raise UserError.of(msg("error.batch_positive"))
    b, p, o = float(batch), float(prompt_len), int(output_len)
    prefill_gpu = step_seconds(replica, 0.0, 0.0, b * p, p)
    prefill = prefill_gpu + replica.constants.request_overhead_s
    decode = _decode_steps_s(replica, b, p, o)
    total = prefill + decode
    tpot = decode / (o - 1) if o > 1 else prefill
    return ServingLoad(
        concurrency=batch, queued=0, output_tokens_per_s=b * o / total, per_user_tokens_per_s=1.0 / tpot,
        tpot_s=tpot, ttft_s=prefill, request_s=total, prefill_share=prefill / total,
        decode_bound=decode_bound(replica, b, p + o / 2), scheduling="static", ttft_p50_s=prefill,
        ttft_p90_s=prefill, itl_p90_s=tpot, prefill_s=prefill_gpu, request_rate=b / total,
    )  # fmt: skip


def _decode_steps_s(replica: Replica, batch: float, prompt_len: float, output_len: int) -> float:
    """Sum of o - 1 decode steps at contexts p + 1 .. p + o - 1 (Simpson's rule: the step time is piecewise
    linear in the context)."""
    steps = output_len - 1
    if steps <= 0:
        return 0.0

    def at(k: float) -> float:
        return step_seconds(replica, batch, batch * (prompt_len + k))

    first, middle, last = at(1.0), at((1.0 + steps) / 2), at(float(steps))
    return steps * (first + 4 * middle + last) / 6


def single_stream(replica: Replica, prompt_len: int, output_len: int) -> ServingLoad:
    """One user at batch 1 (llama-bench tg, gpt-fast): its prefill, then decode steps at growing context."""
    return static_batching(replica, 1, prompt_len, output_len)


def serve(
    replica: Replica, users: int, prompt_len: int, output_len: int, max_sequences: int | None = None,
    scheduling: str | None = None, request_rate: float | None = None,
) -> ServingLoad:  # fmt: skip
    """The engine's own schedule: continuous batching where the engine has it, else static batches of what
    fits (users beyond them wait for the next batch; a request rate fills batches by Little's law)."""
    continuous = replica.engine.continuous_batching if scheduling is None else scheduling == "continuous"
    if continuous:
        return continuous_batching(replica, users, prompt_len, output_len, max_sequences, request_rate)
    limit = min(users, replica.limits[0] if scheduling is None else users, max_sequences or users)
    if request_rate is not None:
        return _static_at_rate(replica, request_rate, max(1, min(replica.limits[0], max_sequences or users)),
                               prompt_len, output_len)  # fmt: skip
    load = static_batching(replica, max(1, limit), prompt_len, output_len)
    waves = math.ceil(users / max(1, limit))
    if waves <= 1:
        return load
    wait = (waves - 1) / 2 * load.request_s  # on average half the earlier batches
    return _delayed(load, wait, queued=users - load.concurrency)


def _static_at_rate(replica: Replica, rate: float, cap: int, prompt_len: int, output_len: int) -> ServingLoad:
    """Static batches at a request rate: a batch takes what arrived while the previous one ran (B = rate x its
    time, at most `cap`); a request waits on average half a batch's time for the next batch to start."""
    batch = 1
    load = static_batching(replica, batch, prompt_len, output_len)
    for _ in range(LITTLE_ITERATIONS):
        wanted = max(1, min(cap, math.ceil(rate * load.request_s)))
        if wanted == batch:
            break
        batch = wanted
        load = static_batching(replica, batch, prompt_len, output_len)
    if rate * load.request_s > cap:
        return _delayed(load, math.inf, queued=0, overloaded=True)
    return _delayed(load, load.request_s / 2, queued=0, rate=rate)


def _delayed(
    load: ServingLoad, wait: float, queued: int, overloaded: bool = False, rate: float | None = None
) -> ServingLoad:
    return ServingLoad(
        concurrency=load.concurrency, queued=queued, output_tokens_per_s=load.output_tokens_per_s,
        per_user_tokens_per_s=load.per_user_tokens_per_s, tpot_s=load.tpot_s, ttft_s=load.ttft_s + wait,
        request_s=load.request_s + wait, prefill_share=load.prefill_share, decode_bound=load.decode_bound,
        scheduling="static", ttft_p50_s=load.ttft_s + wait, ttft_p90_s=load.ttft_s + (1.8 * wait),
        itl_p90_s=load.itl_p90_s, prefill_s=load.prefill_s, queue_s=wait,
        request_rate=rate if rate is not None else load.request_rate, overloaded=overloaded,
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ static loss


@dataclass(frozen=True, slots=True)
class BatchingLoss:
    """Static batching against continuous batching for a spread of output lengths.

    lost_fraction: share of decode slot-steps a static batch spends on sequences that already finished
    (waiting for the longest), 1 - mean / max; static_tokens_per_s and continuous_tokens_per_s: useful output
    tokens per second of one replica under each schedule; speedup: continuous / static."""

    lost_fraction: float
    static_tokens_per_s: float
    continuous_tokens_per_s: float
    mean_output_len: float
    max_output_len: int

    @property
    def speedup(self) -> float:
        return self.continuous_tokens_per_s / self.static_tokens_per_s if self.static_tokens_per_s else 0.0


def static_batching_loss(
    replica: Replica, batch: int, prompt_len: int, output_lengths: Sequence[int]
) -> BatchingLoss:
    """GPU time a static batch of `batch` requests loses to the spread of `output_lengths` (a sample of the
    workload's output lengths): every batch runs until its longest member ends, so each step decodes the whole
    batch while only the unfinished sequences produce tokens. Continuous batching refills a finished slot at
    once. The source articles of the issue claim up to 40 % lost to token-length variance."""
    lengths = [max(1, int(n)) for n in output_lengths]
    if not lengths or batch < 1:
        raise UserError.of(msg("error.batch_positive"))
    longest = max(lengths)
    mean = sum(lengths) / len(lengths)
    static = static_batching(replica, batch, prompt_len, longest)
    useful = static.output_tokens_per_s * mean / longest
    continuous = continuous_batching(replica, batch, prompt_len, max(1, round(mean)))
    return BatchingLoss(
        lost_fraction=1.0 - mean / longest, static_tokens_per_s=useful,
        continuous_tokens_per_s=continuous.output_tokens_per_s, mean_output_len=mean, max_output_len=longest,
    )  # fmt: skip


SPREAD_SAMPLES = 16


def uniform_output_lengths(mean: int, samples: int = SPREAD_SAMPLES) -> tuple[int, ...]:
    """A spread of output lengths with the given mean: evenly from 1 to 2 x mean - 1 (an assumption where the
    workload states only a mean; chat outputs spread at least that widely)."""
    top = max(1, 2 * mean - 1)
    return tuple(max(1, round(1 + (top - 1) * i / (samples - 1))) for i in range(samples))
