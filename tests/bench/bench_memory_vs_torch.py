"""The figures behind tests/planner/test_memory_vs_torch.py: measured (real torch on CPU under MemTracker),
analytic (planner.memory) and traced (the same step on fake tensors) for each case, as ratios to the measured
step. `make bench` prints them (`python -m tests.bench memory_vs_torch` alone); the tests assert the targets."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from planner.memory import MemoryConfig, estimate_memory
from planner.models import load_hf_config
from planner.vocabulary import Layout

TARGETS = {"analytic_activations": 0.15, "analytic_peak": 0.10, "traced_peak": 0.03}  # issue 16


def _case(folder: Path, name: str, task: str, precision: str, attention: str, batch: int, seq_len: int) -> dict:
    from profiler import memory_trace
    from tests.planner.test_memory_vs_torch import CONFIGS

    path = folder / f"{name}.json"
    path.write_text(json.dumps(CONFIGS[name]), encoding="utf-8")

    def run(fake: bool) -> dict:
        request = memory_trace.TraceRequest(config=str(path), task=task, precision=precision, batch=batch,
                                            seq_len=seq_len, attention=attention, fake=fake)  # fmt: skip
        return memory_trace.trace(request)

    measured, traced = run(fake=False), run(fake=True)
    spec = load_hf_config(path)
    analytic = estimate_memory(spec, MemoryConfig(task="train" if task == "pretrain" else task, precision=precision,
                                                  seq_len=seq_len, flash_attention=attention == "sdpa",
                                                  layout=Layout(micro_batch=batch)))  # fmt: skip
    kv = measured["kv_cache_bytes"]
    key = "activations_until_first_gradient_bytes" if task != "inference" else None
    activations = (measured[key] if key else measured["max"]["activations"]) - kv
    peak = analytic.total_bytes - analytic.overhead.bytes
    return {
        "case": f"{name}-{task}-{precision}-{attention} b{batch} s{seq_len}",
        "params": spec.total_params,
        "measured_peak_bytes": measured["peak_bytes"],
        "analytic_peak_bytes": peak,
        "traced_peak_bytes": traced["peak_bytes"],
        "measured_activations_bytes": activations,
        "analytic_activations_bytes": analytic.activations.bytes,
        "ratio_analytic_activations": round(analytic.activations.bytes / activations, 3),
        "ratio_analytic_peak": round(peak / measured["peak_bytes"], 3),
        "ratio_traced_peak": round(traced["peak_bytes"] / measured["peak_bytes"], 4),
    }


def run() -> dict:
    import torch

    from tests.planner.test_memory_vs_torch import CASES

    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as folder:
        rows = [_case(Path(folder), *case) for case in CASES]
    return {
        "rows": rows,
        "worst_analytic_activations_error": max(abs(r["ratio_analytic_activations"] - 1) for r in rows),
        "worst_analytic_peak_error": max(abs(r["ratio_analytic_peak"] - 1) for r in rows),
        "worst_traced_peak_error": max(abs(r["ratio_traced_peak"] - 1) for r in rows),
        "targets": TARGETS,
        "fsdp2": run_fsdp(),
    }


def _fsdp_case(folder: Path, ranks: int) -> dict:
    """Rank 0 of a torchrun FSDP2 step on `ranks` gloo ranks, the fake-process-group trace and the analytic peak."""
    import os
    import shutil
    import subprocess
    import sys

    from tests.planner.test_memory_fsdp_vs_torch import BATCH, LLAMA, ROOT, SEQ, result_of, worker_args

    path = folder / "config.json"
    path.write_text(json.dumps(LLAMA), encoding="utf-8")
    torchrun = shutil.which("torchrun", path=str(Path(sys.executable).parent)) or "torchrun"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"}
    args = worker_args(path, ranks, 3, "fp32")
    real = subprocess.run([torchrun, "--standalone", f"--nproc-per-node={ranks}", *args, "--real"],
                          capture_output=True, text=True, env=env, timeout=600, check=True)  # fmt: skip
    fake = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=600, check=True)
    measured, traced = result_of(real.stdout)["peak_bytes"], result_of(fake.stdout)["peak_bytes"]
    analytic = estimate_memory(load_hf_config(path), MemoryConfig(task="train", precision="fp32", seq_len=SEQ,
                                                                  layout=Layout(dp=ranks, zero=3, micro_batch=BATCH)))  # fmt: skip
    peak = analytic.total_bytes - analytic.overhead.bytes
    return {
        "case": f"llama-pretrain-fp32 FSDP2 zero-3 {ranks} gloo ranks b{BATCH} s{SEQ}",
        "measured_peak_bytes": measured,
        "analytic_peak_bytes": peak,
        "traced_peak_bytes": traced,
        "ratio_analytic_peak": round(peak / measured, 3),
        "ratio_traced_peak": round(traced / measured, 4),
    }


def run_fsdp() -> dict:
    with tempfile.TemporaryDirectory() as folder:
        return {"rows": [_fsdp_case(Path(folder), ranks) for ranks in (2, 4)], "target_analytic_peak": 0.10}
