"""Waiting in line for the prefill: an M/D/1 queue, its mean wait and its percentiles.

Requests arrive at random (Poisson, rate lam per replica); an engine prefills prompts first come first served
within each step's token budget, so the prefill is one server whose service time per request is its prompt's
share of the budget (deterministic for a fixed prompt length): an M/D/1 queue. Its mean wait is the
Pollaczek-Khinchine formula with a constant service time s and utilisation rho = lam s:

    Wq = rho s / (2 (1 - rho))          (Pollaczek-Khinchine mean wait with no service variance;
                                         Kleinrock, Queueing Systems Vol. 1, 1975, section 5.6)

Percentiles use the exponential tail of the M/G/1 waiting time (Kingman's heavy-traffic approximation, 1962):
a request waits at all with probability rho, and then an exponential time of mean Wq / rho, so

    P(W > x) = rho exp(-x rho / Wq)     =>  x_q = (Wq / rho) ln(rho / (1 - q))  for q > 1 - rho, else 0.

With N users in a closed loop (each sends its next request when the last one ends) the arrivals are the users'
completions, at most N - 1 requests can be ahead of one: the wait is capped at (N - 1) s.

An engine with continuous batching (`stepped_wait`) runs in steps: a step is scheduled whole before it runs, so a
prompt that arrives while a step is running joins the next one (vLLM: max_num_batched_tokens is the "maximum
number of tokens to be processed in a single iteration", decodes first and prompt chunks in what is left,
docs.vllm.ai, vllm.config.scheduler and "Optimization and Tuning", Chunked Prefill; TensorRT-LLM's in-flight
batching scheduler forms each iteration from the waiting requests within max_num_tokens, nvidia.github.io/
TensorRT-LLM, "Tuning Max Batch Size and Max Num Tokens"). The prompt then
waits for the rest of the step in progress, and behind the prompt tokens queued ahead of it, each prompt taking
its share s of a step's token budget. That is the Pollaczek-Khinchine form W = R / (1 - rho) (Kleinrock, Queueing
Systems Vol. 1, section 5.2: R the mean residual of the work in progress an arrival finds) with R the residual of
the steps that carry prompts: an arrival finds one with probability b, the share of time they take (Poisson
arrivals see time averages), and then waits on average half of it:

    Wq = b c / (2 (1 - rho)),   rho = lam s,   b = min(1, lam n c)

for a prompt prefilled in n steps of c seconds each (in a closed loop of N users b counts the N - 1 others' steps
only). When a prompt has a step to itself (s = c, n = 1) this is the M/D/1 wait above. The wait's tail is
exponential as above, with b the probability of waiting at all. Against a simulated engine (tests/planner/test_serving_phases.py) the mean TTFT is 2-13 % short at utilisations up
to 0.65: prompts queued behind one fill the rest of its last step and lengthen it, which this does not count.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

# Utilisation at and above which an open queue never empties (the wait grows without bound).
SATURATED = 1.0


@dataclass(frozen=True, slots=True)
class Wait:
    """Waiting time before service: mean, median and 90th percentile (seconds); utilisation of the server."""

    mean_s: float
    p50_s: float
    p90_s: float
    utilisation: float

    @property
    def unbounded(self) -> bool:
        return math.isinf(self.mean_s)


NO_WAIT = Wait(0.0, 0.0, 0.0, 0.0)


def md1_wait(arrivals_per_s: float, service_s: float, population: int | None = None) -> Wait:
    """The wait of an M/D/1 queue with `arrivals_per_s` and a constant `service_s`; `population`: a closed loop
    of that many users (the wait is capped at population - 1 services); an open queue at or above saturation
    waits without bound (inf)."""
    if arrivals_per_s <= 0 or service_s <= 0:
        return NO_WAIT
    rho = arrivals_per_s * service_s
    cap = (population - 1) * service_s if population is not None else math.inf
    if rho >= SATURATED:
        return Wait(cap, cap, cap, rho)
    mean = rho * service_s / (2 * (1 - rho))
    return Wait(min(mean, cap), min(_quantile(mean, rho, 0.5), cap), min(_quantile(mean, rho, 0.9), cap), rho)


def stepped_wait(
    arrivals_per_s: float, share_s: float, step_s: float, steps: int = 1, population: int | None = None,
) -> Wait:  # fmt: skip
    """The wait of a prompt in front of an engine that runs in whole steps: `arrivals_per_s` prompts each
    prefilled in `steps` steps of `step_s` seconds, of which it takes `share_s` seconds of token budget (its share
    of those steps); `population`: a closed loop of that many users. `utilisation` is b, the share of time spent in
    steps that carry prompts."""
    if arrivals_per_s <= 0 or share_s <= 0 or step_s <= 0:
        return NO_WAIT
    rho = arrivals_per_s * share_s
    busy = min(1.0, arrivals_per_s * steps * step_s)
    cap = math.inf
    if population is not None:  # an arrival finds the other users' steps only (its own request has ended)
        busy *= (population - 1) / population
        cap = (population - 1) * share_s + step_s if population > 1 else 0.0
    if rho >= SATURATED:
        return Wait(cap, cap, cap, busy)
    mean = busy * step_s / (2 * (1 - rho))
    return Wait(min(mean, cap), min(_quantile(mean, busy, 0.5), cap), min(_quantile(mean, busy, 0.9), cap), busy)


def _quantile(mean: float, rho: float, q: float) -> float:
    if rho <= 1 - q or mean <= 0:
        return 0.0
    return (mean / rho) * math.log(rho / (1 - q))
