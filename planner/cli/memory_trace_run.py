"""`gpu-advisor memory --trace`: run profiler.memory_trace in a child process (torch and transformers load only
there) and put its figures beside the analytic ones, with the difference explained term by term."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from planner.errors import UserError
from planner.memory import MemoryBreakdown, MemoryConfig
from planner.messages import msg
from planner.models import ModelSpec
from planner.vocabulary import Recompute, Task

TRACE_TIMEOUT_S = 1800  # a 70B model at 4k tokens traces in about 90 s on 2 cores
_TASKS = {Task.PRETRAIN: "pretrain", Task.FINETUNE: "finetune", Task.LORA: "lora", Task.INFERENCE: "inference"}


def trace_command(model: ModelSpec, config: MemoryConfig) -> list[str]:
    """The child's command line for this model and configuration; UserError where a trace cannot run."""
    source = Path(model.source.split(" (")[0]) if model.source else None
    if source is None or not source.exists():
        raise UserError.of(msg("error.trace_needs_config", model=model.display_name))
    if config.task not in _TASKS:
        raise UserError.of(msg("error.trace_task", task=str(config.task)))
    layout = config.layout
    if layout.tp > 1 or layout.pp > 1 or layout.ep > 1:
        raise UserError.of(msg("error.trace_layout"))
    precision = str(config.precision) if str(config.precision) in ("fp32", "bf16", "fp16") else "bf16"
    return [
        sys.executable, "-m", "profiler.memory_trace", "--config", str(source), "--task", _TASKS[config.task],
        "--precision", precision, "--batch", str(layout.micro_batch), "--seq-len", str(config.seq_len),
        "--attention", "sdpa" if config.flash_attention else "eager", "--lora-rank", str(config.lora_rank),
        "--lora-targets", ",".join(str(t) for t in config.lora_targets), "--dp", str(layout.dp),
        "--zero", str(int(layout.zero)),
        *(["--recompute"] if layout.recompute == Recompute.FULL else []),
    ]  # fmt: skip


def run_trace(command: list[str], timeout_s: float = TRACE_TIMEOUT_S) -> tuple[dict[str, object], float]:
    """(the child's result, wall seconds); UserError with the child's own message when it fails."""
    root = Path(__file__).resolve().parents[2]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(root), os.environ.get("PYTHONPATH")])))
    started = time.monotonic()
    try:
        completed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise UserError.of(msg("error.trace_failed", reason=f"no result after {timeout_s:.0f} s")) from None
    wall_s = time.monotonic() - started
    result, error = None, None
    for line in completed.stdout.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict) and event.get("event") == "result":
            result = event.get("result")
        elif isinstance(event, dict) and event.get("event") == "error":
            error = str(event.get("message"))
    if not isinstance(result, dict):
        tail = (completed.stderr.strip().splitlines() or ["no output"])[-1]
        raise UserError.of(msg("error.trace_failed", reason=error or tail))
    return result, wall_s


def comparison(breakdown: MemoryBreakdown, traced: dict[str, object]) -> dict[str, object]:
    """Analytic and traced figures per term (bytes, excluding the CUDA context and allocator overhead, which a
    trace cannot see), their ratio, and what explains each difference."""
    at_peak = traced.get("at_peak") if isinstance(traced.get("at_peak"), dict) else {}
    maxima = traced.get("max") if isinstance(traced.get("max"), dict) else {}

    def get(table: object, *names: str) -> int:
        return sum(int(table.get(n, 0)) for n in names) if isinstance(table, dict) else 0

    kv = int(traced.get("kv_cache_bytes", 0) or 0)
    traced_terms = {
        "weights": get(maxima, "parameters", "buffers") + get(at_peak, "gathered_parameters", "communication"),
        "gradients": get(maxima, "gradients"),
        "optimizer": get(maxima, "optimizer"),
        "activations": get(maxima, "activations") - kv,
        "kv_cache": kv,
    }
    analytic_peak = breakdown.total_bytes - breakdown.overhead.bytes
    traced_peak = int(traced.get("peak_bytes", 0) or 0)
    rows: dict[str, object] = {}
    for name, traced_bytes in traced_terms.items():
        analytic_bytes = getattr(breakdown, name).bytes
        rows[name] = {
            "analytic_bytes": analytic_bytes,
            "traced_bytes": traced_bytes,
            "ratio": round(analytic_bytes / traced_bytes, 3) if traced_bytes else None,
            "why": _why(name),
        }
    rows["peak"] = {
        "analytic_bytes": analytic_peak,
        "traced_bytes": traced_peak,
        "ratio": round(analytic_peak / traced_peak, 3) if traced_peak else None,
        "why": (
            "the step's peak without the CUDA context and allocator margin; analytic peak phase "
            f"{breakdown.peak_phase!r}, traced {traced.get('peak_phase')!r}"
        ),
    }
    return rows


def _why(term: str) -> str:
    return {
        "weights": "traced: every parameter and buffer (FSDP2: the shard + units gathered at the peak + buffers); "
        "analytic: the same by formula",
        "gradients": "each category at its own maximum (the optimizer step for training)",
        "optimizer": "AdamW m and v; the analytic figure assumes fused AdamW (no temporaries), as traced",
        "activations": "traced: what the forward pass made and autograd still holds, at its maximum (logits and "
        "loss included, KV cache excluded); analytic: per-layer tensor list + loss; the difference is "
        "what the formulas leave out (rotary tables, small per-token statistics, routing indices)",
        "kv_cache": "traced: the DynamicCache's key and value tensors after the decoded tokens",
    }[term]
