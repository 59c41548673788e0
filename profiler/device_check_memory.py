"""The device check's memory step: traced peaks on the GPU against the fake-tensor trace and the analytic estimate, for training and generate cases."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from profiler.device_check_context import ROOT, Context
from profiler.jsontypes import JSONObject, JSONValue

# Small real shapes with random weights (config.json dicts, as transformers reads them); GPT-2 without dropout,
# which the analytic model leaves out. llama-1b has TinyLlama-1.1B's shape, big enough to time decoding.
MEMORY_MODELS: dict[str, JSONObject] = {
    "llama-20m": {"model_type": "llama", "hidden_size": 512, "intermediate_size": 1376, "num_hidden_layers": 4,
                  "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 8000,
                  "max_position_embeddings": 4096},
    "gpt2-17m": {"model_type": "gpt2", "n_embd": 512, "n_head": 8, "n_layer": 4, "vocab_size": 8000,
                 "n_positions": 1024, "resid_pdrop": 0, "embd_pdrop": 0, "attn_pdrop": 0},
    "mixtral-30m": {"model_type": "mixtral", "hidden_size": 512, "intermediate_size": 768, "num_hidden_layers": 4,
                    "num_attention_heads": 8, "num_key_value_heads": 4, "vocab_size": 8000, "num_local_experts": 4,
                    "num_experts_per_tok": 2, "max_position_embeddings": 4096},
    "llama-1b": {"model_type": "llama", "hidden_size": 2048, "intermediate_size": 5632, "num_hidden_layers": 22,
                 "num_attention_heads": 32, "num_key_value_heads": 4, "vocab_size": 32000,
                 "max_position_embeddings": 2048},
}  # fmt: skip


# (model, task, precision, attention, batch, seq_len)
MEMORY_TRAIN_CASES = [
    ("llama-20m", "pretrain", "fp32", "sdpa", 4, 1024),
    ("llama-20m", "pretrain", "bf16", "sdpa", 4, 1024),
    ("gpt2-17m", "pretrain", "bf16", "eager", 4, 1024),
    ("mixtral-30m", "pretrain", "bf16", "sdpa", 4, 1024),
    ("llama-20m", "lora", "bf16", "sdpa", 4, 1024),
    ("gpt2-17m", "lora", "bf16", "eager", 4, 1024),
    ("llama-1b", "pretrain", "bf16", "sdpa", 1, 2048),
]


MEMORY_GENERATE_CASES = [
    ("llama-1b", "bf16", 1, 512, 128),
    ("llama-1b", "bf16", 16, 512, 64),
]  # batch, len, new


# The planner runs as a child (profiler never imports planner: the layer contract): each argv list in the JSON
# file given as argv[1] through planner.cli.main, their --json outputs printed as one JSON list.
PLANNER_CASES = (
    "import contextlib, io, json, sys\n"
    "from planner.cli import main\n"
    "out = []\n"
    "for argv in json.load(open(sys.argv[1])):\n"
    "    buffer = io.StringIO()\n"
    "    with contextlib.redirect_stdout(buffer):\n"
    "        code = main(argv)\n"
    "    out.append(json.loads(buffer.getvalue()) if code == 0 else {'error': f'exit {code}'})\n"
    "print(json.dumps(out))\n"
)


GPU_ID = (
    "import sys; from planner.gpus import match_nvml_name as m; g = m(sys.argv[1]); print(g.id if g else '')"
)


def _child_env() -> dict[str, str]:
    return dict(
        os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))
    )


def _child_json(command: Sequence[str], timeout_s: float) -> JSONValue:
    """The JSON a child prints: the tracer's result line, or the whole output; raises with the child's words."""
    done = subprocess.run(list(command), capture_output=True, text=True, env=_child_env(), timeout=timeout_s,
                          check=False)  # fmt: skip
    for line in reversed(done.stdout.strip().splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if isinstance(event, dict) and event.get("event") == "result":
            return event.get("result")
        if isinstance(event, dict) and event.get("event") == "error":
            raise RuntimeError(str(event.get("message")))
        if isinstance(event, list):
            return event
    tail = " ".join(done.stderr.strip().splitlines()[-3:])
    raise RuntimeError(f"no JSON from {' '.join(command[1:4])} (exit {done.returncode}): {tail[:400]}")


def _write_json(context: Context, name: str, value: JSONValue) -> Path:
    path = context.out_dir / name
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def _config_paths(context: Context) -> dict[str, str]:
    return {
        name: str(_write_json(context, f"memory-{name}.config.json", data))
        for name, data in MEMORY_MODELS.items()
    }


def _traces(
    context: Context, name: str, cases: list[JSONValue], extra: Sequence[str], timeout_s: float
) -> list[JSONValue]:
    """Run the cases in one tracing child; one result (or {"error"}) per case."""
    path = _write_json(context, name, cases)
    result = _child_json(
        [sys.executable, "-m", "profiler.memory_trace", "--cases", str(path), *extra], timeout_s
    )
    found = result.get("cases") if isinstance(result, dict) else None
    if not isinstance(found, list) or len(found) != len(cases):
        raise RuntimeError(f"the tracer returned {type(found).__name__} for {len(cases)} cases")
    return found


def _planner_runs(
    context: Context, name: str, argvs: list[JSONValue], timeout_s: float = 180
) -> list[JSONValue]:
    path = _write_json(context, name, argvs)
    found = _child_json([sys.executable, "-c", PLANNER_CASES, str(path)], timeout_s)
    if not isinstance(found, list) or len(found) != len(argvs):
        raise RuntimeError("the planner returned no list")
    return found


def _memory_argv(path: str, task: str, precision: str, attention: str, batch: int, seq_len: int) -> JSONValue:
    """gpu-advisor memory --json for the same step."""
    return ["memory", "--model", path, "--task", "train" if task == "pretrain" else task, "--precision", precision,
            "--batch", str(batch), "--seq-len", str(seq_len), "--json",
            *(["--no-flash-attention"] if attention == "eager" else [])]  # fmt: skip


def _analytic_peak(payload: JSONValue) -> int | None:
    """The analytic step peak: per_gpu_bytes total less the overhead (CUDA context, allocator margin, NCCL)."""
    per_gpu = payload.get("per_gpu_bytes") if isinstance(payload, dict) else None
    if not isinstance(per_gpu, dict):
        return None
    total, overhead = per_gpu.get("total"), per_gpu.get("overhead")
    return total - overhead if isinstance(total, int) and isinstance(overhead, int) else None


def _peak(result: JSONValue, device: str) -> int | None:
    """A run's measured peak: torch.cuda.max_memory_allocated on a GPU, MemTracker's peak on a CPU."""
    if not isinstance(result, dict):
        return None
    cuda = result.get("cuda")
    if device == "cuda" and isinstance(cuda, dict):
        value = cuda.get("max_memory_allocated_bytes")
    else:
        value = result.get("peak_bytes")
    return value if isinstance(value, int) else None


def _ratio(value: object, reference: object) -> float | None:
    if isinstance(value, (int, float)) and isinstance(reference, (int, float)) and reference:
        return round(float(value) / float(reference), 3)
    return None


def _error(*results: JSONValue) -> str | None:
    for result in results:
        if isinstance(result, dict) and isinstance(result.get("error"), str):
            return str(result["error"])
    return None


def memory_training_rows(context: Context, device: str = "cuda") -> list[JSONValue]:
    """One row per MEMORY_TRAIN_CASES entry: measured (torch.cuda.max_memory_allocated over the step; on a CPU
    the real step's MemTracker peak), traced (fake tensors) and analytic peak bytes, and their ratios."""
    paths = _config_paths(context)
    requests: list[JSONValue] = [
        {"config": paths[name], "task": task, "precision": precision, "attention": attention, "batch": batch,
         "seq_len": seq_len}
        for name, task, precision, attention, batch, seq_len in MEMORY_TRAIN_CASES
    ]  # fmt: skip
    real = [{**r, "fake": False, "device": device} for r in requests if isinstance(r, dict)]
    measured = _traces(context, "memory-train-real.json", list(real), [], 420)
    traced = _traces(context, "memory-train-fake.json", requests, [], 300)
    argvs = [_memory_argv(paths[c[0]], *c[1:]) for c in MEMORY_TRAIN_CASES]
    analytic = _planner_runs(context, "memory-train-planner.json", argvs)
    rows: list[JSONValue] = []
    for case, m, t, a in zip(MEMORY_TRAIN_CASES, measured, traced, analytic, strict=True):
        name, task, precision, attention, batch, seq_len = case
        peak, traced_peak, analytic_peak = _peak(m, device), _peak(t, "cpu"), _analytic_peak(a)
        cuda = m.get("cuda") if isinstance(m, dict) else None
        rows.append({
            "model": name, "task": task, "precision": precision, "attention": attention, "batch": batch,
            "seq_len": seq_len, "measured_peak_bytes": peak, "traced_peak_bytes": traced_peak,
            "analytic_peak_bytes": analytic_peak, "traced_over_measured": _ratio(traced_peak, peak),
            "analytic_over_measured": _ratio(analytic_peak, peak), "cuda": cuda if isinstance(cuda, dict) else None,
            "error": _error(m, t, a),
        })  # fmt: skip
    return rows


def _gpu_id() -> str:
    import torch

    done = subprocess.run([sys.executable, "-c", GPU_ID, torch.cuda.get_device_name(0)], capture_output=True,
                          text=True, timeout=60, check=False, env=_child_env())  # fmt: skip
    return done.stdout.strip()


def memory_generate_rows(context: Context) -> list[JSONValue]:
    """generate() on cuda:0 per MEMORY_GENERATE_CASES entry: torch.cuda's peak against the analytic inference
    figure and the trace, and the decode rate against the performance model's tokens/s for this GPU (catalog
    figures, --spec-only)."""
    paths, gpu = _config_paths(context), _gpu_id()
    requests: list[JSONValue] = [
        {"config": paths[name], "task": "inference", "precision": precision, "batch": batch, "seq_len": seq_len,
         "new_tokens": new_tokens}
        for name, precision, batch, seq_len, new_tokens in MEMORY_GENERATE_CASES
    ]  # fmt: skip
    real = [{**r, "fake": False, "device": "cuda"} for r in requests if isinstance(r, dict)]
    measured = _traces(context, "memory-generate-real.json", list(real), ["--generate"], 300)
    traced = _traces(context, "memory-generate-fake.json", requests, [], 300)
    argvs: list[JSONValue] = []
    for name, precision, batch, seq_len, new_tokens in MEMORY_GENERATE_CASES:
        argvs.append(_memory_argv(paths[name], "inference", precision, "sdpa", batch, seq_len))
        if gpu:
            argvs.append(["plan", "--model", paths[name], "--task", "inference", "--gpu", gpu, "--gpus", "1",
                          "--batch", str(batch), "--seq-len", str(seq_len), "--output-len", str(new_tokens),
                          "--precision", precision, "--spec-only", "--json"])  # fmt: skip
    planner = iter(_planner_runs(context, "memory-generate-planner.json", argvs))
    rows: list[JSONValue] = []
    for case, m, t in zip(MEMORY_GENERATE_CASES, measured, traced, strict=True):
        name, precision, batch, seq_len, new_tokens = case
        analytic = next(planner)
        plan = next(planner) if gpu else None
        options = plan.get("options") if isinstance(plan, dict) else None
        first = options[0] if isinstance(options, list) and options and isinstance(options[0], dict) else {}
        predicted = first.get("tokens_per_s") if isinstance(first, dict) else None
        decode = m.get("decode_tokens_per_s") if isinstance(m, dict) else None
        peak, traced_peak, analytic_peak = _peak(m, "cuda"), _peak(t, "cpu"), _analytic_peak(analytic)
        rows.append({
            "model": name, "precision": precision, "batch": batch, "seq_len": seq_len, "new_tokens": new_tokens,
            "measured_peak_bytes": peak, "traced_peak_bytes": traced_peak, "analytic_peak_bytes": analytic_peak,
            "analytic_over_measured": _ratio(analytic_peak, peak), "traced_over_measured": _ratio(traced_peak, peak),
            "decode_tokens_per_s": decode, "predicted_tokens_per_s": predicted,
            "predicted_over_measured": _ratio(predicted, decode), "gpu": gpu or None, "error": _error(m, t, analytic),
        })  # fmt: skip
    return rows


def _worst(rows: list[JSONValue], key: str) -> str:
    ratios = [float(v) for r in rows if isinstance(r, dict) and isinstance(v := r.get(key), float)]
    return f"{max(abs(x - 1) for x in ratios):.1%}" if ratios else "-"


def check_memory(context: Context) -> JSONObject:
    """A training step and a generate call of small real models on cuda:0 against planner.memory and the trace."""
    import importlib.util

    missing = [name for name in ("transformers", "peft") if importlib.util.find_spec(name) is None]
    if missing:
        raise RuntimeError(
            f"{', '.join(missing)} not installed for {sys.executable}: "
            f"{sys.executable} -m pip install 'transformers>=5,<6' 'peft>=0.17'"
        )
    training = memory_training_rows(context)
    generate = memory_generate_rows(context)
    speed = [
        r["predicted_over_measured"]
        for r in generate
        if isinstance(r, dict) and r.get("predicted_over_measured")
    ]
    return {
        "headline": f"peak vs torch.cuda: analytic within {_worst(training + generate, 'analytic_over_measured')}, "
        f"traced within {_worst(training + generate, 'traced_over_measured')}; decode tokens/s predicted/measured "
        f"{', '.join(str(x) for x in speed) or '-'}",
        "training": training,
        "generate": generate,
    }
