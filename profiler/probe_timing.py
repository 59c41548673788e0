"""Timing a measurement: CPU wall-clock and CUDA-event timers, warm-up, and the median of trials within a time budget."""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from profiler.jsontypes import JSONObject
from profiler.probe_settings import ProbeSettings, Timer

if TYPE_CHECKING:
    import torch


def cpu_timer(run: Callable[[], object], reps: int) -> float:
    """Seconds per repetition of `run`, wall clock."""
    start = time.perf_counter()
    for _ in range(reps):
        run()
    return (time.perf_counter() - start) / reps


def cuda_event() -> torch.cuda.Event:
    import torch

    return torch.cuda.Event(enable_timing=True)  # type: ignore[no-untyped-call]  # torch leaves it unannotated


def cuda_timer() -> Timer:
    """Seconds per repetition, timed with CUDA events on the current stream (no host launch gaps counted)."""

    def timer(run: Callable[[], object], reps: int) -> float:
        start, end = cuda_event(), cuda_event()
        start.record()
        for _ in range(reps):
            run()
        end.record()
        end.synchronize()
        return float(start.elapsed_time(end)) / 1000.0 / reps  # elapsed_time is in milliseconds

    return timer


def warm_up(run: Callable[[], object], timer: Timer, settings: ProbeSettings) -> JSONObject:
    """Call `run` at least settings.warmup times and for at least settings.warmup_s (clocks ramp up, caches and
    cuBLAS heuristics settle); returns what the warm-up did, for the details."""
    started = time.perf_counter()
    calls = 0
    while calls < settings.warmup or time.perf_counter() - started < settings.warmup_s:
        timer(run, 1)
        calls += 1
    return {"warmup_calls": calls, "warmup_s": time.perf_counter() - started}


def median_trials(
    run: Callable[[], object],
    timer: Timer,
    settings: ProbeSettings,
    budget_s: float,
) -> tuple[float, JSONObject]:
    """Warm up, then time trials until the budget is spent (at least min_trials). Returns (median s, details).

    Each trial repeats `run` enough times to last about settings.trial_target_s, so the timer's resolution and
    launch overhead do not dominate short operations.
    """
    started = time.perf_counter()
    warm = warm_up(run, timer, settings)
    one = max(timer(run, 1), 1e-7)
    reps = int(min(1000, max(1, settings.trial_target_s / one)))
    trials: list[float] = []
    deadline = started + budget_s
    while len(trials) < settings.max_trials:
        trials.append(timer(run, reps))
        if len(trials) >= settings.min_trials and time.perf_counter() >= deadline:
            break
    median = statistics.median(trials)
    return median, {
        **warm,
        "trials": len(trials),
        "reps_per_trial": reps,
        "median_s": median,
        "min_s": min(trials),
        "max_s": max(trials),
    }
