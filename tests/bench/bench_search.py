"""`make bench`: the full strategy search over 4 GPU types x 1..4096 GPUs, and one serving search (issue 15).

Target: median under 50 ms in-process for the 4 x 4096 search, so charts can follow a slider. No assertion: a
busy machine would make a timed test flaky; this prints the figures, wall clock and this process's CPU time
(the CPU time is what a loaded machine does not inflate).
"""

from __future__ import annotations

import statistics
import time

TARGET_MS = 50.0
REPEATS = 7
GPU_TYPES = ("h100-sxm", "a100-sxm-80gb", "h200-sxm", "l40s")
MAX_GPUS = 4096


def _median_ms(model, workload, gpus, constraints) -> tuple[float, float, int]:
    from planner.search import plan

    plan(model, workload, gpus, constraints)  # warm the catalog and parameter caches
    wall, cpu, options = [], [], 0
    for _ in range(REPEATS):
        started, started_cpu = time.perf_counter(), time.process_time()
        result = plan(model, workload, gpus, constraints)
        wall.append((time.perf_counter() - started) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        options = len(result.frontier)
    return statistics.median(wall), statistics.median(cpu), options


def run() -> dict:
    from planner.gpus import get_gpu
    from planner.models import get_preset
    from planner.search import Constraints, Workload

    gpus = [get_gpu(gpu) for gpu in GPU_TYPES]
    limits = Constraints(max_gpus=MAX_GPUS)
    figures: dict[str, object] = {}
    for name, preset, workload in (
        ("llama_3_1_70b_train", "llama-3.1-70b", Workload(task="pretrain", tokens=1e12)),
        ("mixtral_8x7b_train", "mixtral-8x7b", Workload(task="pretrain", tokens=1e12)),
        ("llama_3_1_70b_inference", "llama-3.1-70b", Workload(task="inference", concurrent_users=64)),
    ):
        wall, cpu, counts = _median_ms(get_preset(preset), workload, gpus, limits)
        figures[f"search_{name}_4_gpu_types_1_to_4096_median_ms"] = round(wall, 2)
        figures[f"search_{name}_4_gpu_types_1_to_4096_cpu_ms"] = round(cpu, 2)
        figures[f"{name}_gpu_counts_with_a_fitting_option"] = counts
    return {**figures, "target_ms": TARGET_MS, "repeats": REPEATS}
