"""`make bench`: one performance estimate in-process (issue 15 target: at most 0.3 ms), training and serving.

No assertion (timings flake on a busy machine); the figures print with their target.
"""

from __future__ import annotations

import time

TARGET_MS = 0.3
CALLS = 2000


def _per_call_ms(function) -> float:
    function()
    started = time.process_time()
    for _ in range(CALLS):
        function()
    return (time.process_time() - started) * 1000 / CALLS


def run() -> dict:
    from planner import perf
    from planner.gpus import get_gpu
    from planner.models import get_preset
    from planner.vocabulary import Layout

    h100 = get_gpu("h100-sxm")
    model = get_preset("llama-3.1-70b")
    numbers, rates = perf.model_numbers(model), perf.device_rates(h100, "bf16")
    layout = Layout(dp=64, tp=8, pp=4, zero=1, micro_batch=1, virtual_stages=4)

    def training() -> None:
        perf.training_step_time(numbers, h100, layout, seq_len=4096, global_batch=1024, rates=rates)

    replica = perf.Replica(model, h100, rates, tp=4, engine=perf.ENGINES["vllm"])

    def serving() -> None:
        perf.serve(replica, 64, 1024, 256, max_sequences=400)

    return {
        "training_step_estimate_cpu_ms": round(_per_call_ms(training), 4),
        "serving_load_estimate_cpu_ms": round(_per_call_ms(serving), 4),
        "target_ms": TARGET_MS,
        "calls": CALLS,
    }
