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


def _quantile(mean: float, rho: float, q: float) -> float:
    if rho <= 1 - q or mean <= 0:
        return 0.0
    return (mean / rho) * math.log(rho / (1 - q))
