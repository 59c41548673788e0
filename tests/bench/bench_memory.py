"""Median time of one planner.memory.estimate_memory call, in-process (target: under 1 ms)."""

from __future__ import annotations

import statistics
import time

from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.vocabulary import Layout

TARGET_MS = 1.0


def _median_ms(model, config, repeats: int = 2000) -> float:
    estimate_memory(model, config)  # warm the per-model caches, as a search loop would
    samples = []
    for _ in range(repeats):
        started = time.perf_counter()
        estimate_memory(model, config)
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def run() -> dict:
    llama = get_preset("llama-3.1-70b")
    deepseek = get_preset("deepseek-v3")
    return {
        "median_estimate_ms_dense_train_zero3": _median_ms(llama, MemoryConfig(task="train", layout=Layout(dp=64, zero=3))),
        "median_estimate_ms_dense_train_tp8_pp4": _median_ms(
            llama, MemoryConfig(task="train", layout=Layout(dp=2, tp=8, pp=4, zero=1))
        ),
        "median_estimate_ms_moe_inference_ep8": _median_ms(
            deepseek, MemoryConfig(task="inference", layout=Layout(tp=8, ep=8))
        ),
        "target_ms": TARGET_MS,
    }
