"""`make bench`: the full strategy search for one model and GPU type over 1..1024 GPUs (issue 3, item 7).

Target: median under 50 ms in-process, so charts can follow a slider. No assertion: a busy machine would make
a timed test flaky; this prints the figure.
"""

from __future__ import annotations

import statistics
import time

TARGET_MS = 50.0
REPEATS = 15


def _median_ms(model, workload, gpu, constraints) -> tuple[float, int]:
    from planner.search import plan

    plan(model, workload, [gpu], constraints)  # warm the catalog and parameter caches
    times, options = [], 0
    for _ in range(REPEATS):
        started = time.perf_counter()
        result = plan(model, workload, [gpu], constraints)
        times.append((time.perf_counter() - started) * 1000)
        options = len(result.frontier)
    return statistics.median(times), options


def run() -> dict:
    from planner.gpus import get_gpu
    from planner.models import get_preset
    from planner.search import Constraints, Workload

    h100 = get_gpu("h100-sxm")
    dense_ms, dense_counts = _median_ms(
        get_preset("llama-3.1-70b"), Workload(task="pretrain", tokens=1e12), h100, Constraints(max_gpus=1024)
    )
    moe_ms, _ = _median_ms(
        get_preset("mixtral-8x7b"), Workload(task="pretrain", tokens=1e12), h100, Constraints(max_gpus=1024)
    )
    serve_ms, _ = _median_ms(
        get_preset("llama-3.1-70b"),
        Workload(task="inference", concurrent_users=64),
        h100,
        Constraints(max_gpus=1024),
    )
    return {
        "search_llama_3_1_70b_train_h100_1_to_1024_median_ms": round(dense_ms, 2),
        "gpu_counts_with_a_fitting_option": dense_counts,
        "search_mixtral_8x7b_train_h100_1_to_1024_median_ms": round(moe_ms, 2),
        "search_llama_3_1_70b_inference_h100_1_to_1024_median_ms": round(serve_ms, 2),
        "target_ms": TARGET_MS,
        "repeats": REPEATS,
    }
