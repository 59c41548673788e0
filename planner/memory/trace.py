"""What the planner knows about the memory trace (profiler/memory_trace.py, run as a child process): the child's
command line for a model and configuration, its JSON lines, and the analytic figures beside the traced ones with
the difference explained. Pure: the CLI (subprocess) and the GUI (QProcess) start the child themselves."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from planner.errors import UserError
from planner.memory.checks import normalised
from planner.memory.config import MemoryBreakdown, MemoryConfig
from planner.messages import msg
from planner.models import ModelSpec, lora_target_modules
from planner.vocabulary import Recompute, Task

TRACE_MODULE = "profiler.memory_trace"
# A trace costs about one second per decoder layer on 2 shared CPU cores whatever the layer's width (its
# tensors are fake; measured: 8 layers 5.5 s, 64 layers 63 s, torch's import included), so the depth alone
# bounds it. The deepest published decoder the catalog holds, Llama 3.1 405B, has 126 layers: a trace of up to
# 128 takes about two minutes; deeper configs (issue 30: 100,000 layers, half a day) are refused up front.
MAX_TRACE_LAYERS = 128
TRACE_TIMEOUT_S = 600.0  # MAX_TRACE_LAYERS at about 1 s each, with room for a slower or busier machine
MAX_TRACE_LINE_BYTES = 4 * 2**20  # the result line carries a 400-point timeline: well under this
_TASKS = {
    Task.PRETRAIN: "pretrain",
    Task.FINETUNE: "finetune",
    Task.LORA: "lora",
    Task.INFERENCE: "inference",
}
TRACED_TERMS = ("weights", "gradients", "optimizer", "activations", "kv_cache")


def trace_config_path(model: ModelSpec) -> Path:
    """The config.json a model came from (a file, or a model folder's); UserError for presets and sizes."""
    source = model.source.split(" (")[0] if model.source else ""
    path = Path(source) if source else None
    if path is not None and path.is_dir():
        path = path / "config.json"
    if path is None or not path.is_file():
        raise UserError.of(msg("error.trace_needs_config", model=model.display_name))
    return path


def trace_arguments(model: ModelSpec, config: MemoryConfig) -> list[str]:
    """The child's arguments after ``python -m profiler.memory_trace``; UserError where no trace can run."""
    path = trace_config_path(model)
    if model.layers > MAX_TRACE_LAYERS:
        raise UserError.of(msg("error.trace_too_deep", layers=model.layers, limit=MAX_TRACE_LAYERS))
    config = normalised(config)
    if config.task not in _TASKS:
        raise UserError.of(msg("error.trace_task", task=str(config.task)))
    layout = config.layout
    if layout.tp > 1 and config.task == Task.LORA:
        raise UserError.of(msg("error.trace_layout"))
    precision = str(config.precision) if str(config.precision) in ("fp32", "bf16", "fp16") else "bf16"
    parallel = ["--tp", str(layout.tp), "--pp", str(layout.pp), "--ep", str(layout.ep)]
    if config.sequence_parallel and layout.tp > 1:
        parallel.append("--sequence-parallel")
    if config.inflight_microbatches and layout.pp > 1:
        parallel += ["--inflight", str(config.inflight_microbatches)]
    return [
        "--config", str(path), "--task", _TASKS[config.task], "--precision", precision,
        "--batch", str(layout.micro_batch), "--seq-len", str(config.seq_len),
        "--attention", "sdpa" if config.flash_attention else "eager", "--lora-rank", str(config.lora_rank),
        "--lora-targets", ",".join(str(t) for t in config.lora_targets),
        # the module names the plan counts adapters on and the exports write (one table, the planner's)
        "--lora-modules", ",".join(lora_target_modules(model.family, config.lora_targets)), "--dp", str(layout.dp),
        "--zero", str(int(layout.zero)), *(["--recompute"] if layout.recompute == Recompute.FULL else []),
        *parallel,
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One line of the child: kind "progress" (stage, elapsed_s), "result" (result) or "error" (message)."""

    kind: str
    stage: str = ""
    elapsed_s: float = 0.0
    result: dict[str, object] | None = None
    message: str = ""


def parse_trace_line(line: str | bytes) -> TraceEvent | None:
    """A TraceEvent from one line of the child's output, or None for a line that is not one (a warning)."""
    try:
        event = json.loads(line)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    if not isinstance(event, dict):
        return None
    kind = event.get("event")
    if kind == "progress":
        elapsed = event.get("elapsed_s")
        return TraceEvent("progress", stage=str(event.get("stage", "")),
                          elapsed_s=float(elapsed) if isinstance(elapsed, (int, float)) else 0.0)  # fmt: skip
    if kind == "result" and isinstance(event.get("result"), dict):
        return TraceEvent("result", result=event["result"])
    if kind == "error":
        return TraceEvent("error", message=str(event.get("message", "")))
    return None


def _bytes(table: object, *names: str) -> int:
    if not isinstance(table, dict):
        return 0
    return sum(int(value) for name in names if isinstance(value := table.get(name, 0), (int, float)))


def traced_terms(traced: dict[str, object]) -> dict[str, int]:
    """The trace's figures in the analytic model's terms (bytes): each category at its own maximum, FSDP2's
    gathered units and buffers as they are at the peak, training activations with the backward's transients."""
    at_peak, maxima = traced.get("at_peak"), traced.get("max")
    kv = _bytes(traced, "kv_cache_bytes")
    training = traced.get("trainable_parameter_count", 0) not in (0, None)
    working = _bytes(traced, "activations_until_first_gradient_bytes")
    return {
        "weights": _bytes(maxima, "parameters", "buffers")
        + _bytes(at_peak, "gathered_parameters", "communication"),
        "gradients": _bytes(maxima, "gradients"),
        "optimizer": _bytes(maxima, "optimizer"),
        "activations": (working if training else _bytes(maxima, "activations")) - kv,
        "kv_cache": kv,
    }


WHY = {
    "weights": "every parameter and buffer (FSDP2: the shard plus the units gathered and the communication buffers "
    "at the peak)",
    "gradients": "at their maximum, the optimizer step; the weights' dtype",
    "optimizer": "AdamW m and v (fused AdamW: no temporaries)",
    "activations": "what the forward keeps plus the backward's transients at their joint maximum (KV cache apart); "
    "the formulas leave out rotary tables, per-token statistics and routing indices",
    "kv_cache": "the DynamicCache's keys and values after the decoded tokens",
    "peak": "the step's peak; the analytic one without the CUDA context and allocator margin, which a trace cannot "
    "see",
}


# What one traced rank of a model-parallel layout is, beside the analytic model's rank (profiler/trace_parallel.py).
WHY_LAYOUT = {
    "tp": "tensor parallel {tp}: TorchTitan's plan (q/k/v/gate/up column-, o/down row-sharded, vocabulary-sharded "
    "embedding and loss); the norms' inputs and the residual stream are whole on every rank{sp}; DTensor's backward "
    "of the vocabulary-sharded embedding makes its gradient whole (vocab x hidden, sliced to the shard in the optimizer "
    "step), which the analytic model counts sharded; loss_parallel's backward starts with three fp32 gradients of the "
    "vocabulary shard beside its log_softmax (16 bytes per entry and token, the analytic model counts Hugging Face's "
    "12)",
    "tp16": "16-bit tensor parallel is counted as Megatron-Core with Transformer Engine keeps it (fused norm+linear, "
    "SwiGLU saving its input); the trace runs Hugging Face's layers, which keep more",
    "pp": "pipeline stage {stage} of {pp} (layers {first}-{last}) holding {inflight} micro-batch(es) in flight "
    "(1F1B), the fuller of the first and last stage as in the analytic model",
    "ep": "expert parallel {ep}: {experts} experts per MoE layer on the rank, which computes the token-expert pairs "
    "of its own batch (balanced routing; the all-to-all buffers are not traced); the analytic model divides the "
    "routed activations by ep",
}


def layout_why(traced: dict[str, object]) -> str:
    """What the traced rank holds under tensor, pipeline and expert parallel ("" for a data-parallel trace)."""
    request = traced.get("request")
    request = request if isinstance(request, dict) else {}
    tp, pp, ep = (int(request.get(k, 1) or 1) for k in ("tp", "pp", "ep"))
    parts = []
    if tp > 1:
        sp = "; sequence parallel shards them on the sequence" if request.get("sequence_parallel") else ""
        parts.append(WHY_LAYOUT["tp"].format(tp=tp, sp=sp))
        megatron = request.get("task") in ("pretrain", "finetune") and int(request.get("zero", 0) or 0) <= 1
        if request.get("precision") != "fp32" and megatron:  # planner.memory.stages.megatron_style
            parts.append(WHY_LAYOUT["tp16"])
    stage = traced.get("stage")
    if pp > 1 and isinstance(stage, dict):
        parts.append(WHY_LAYOUT["pp"].format(
            stage=int(stage.get("index", 0)) + 1, pp=pp, first=stage.get("first_layer"),
            last=int(stage.get("end_layer", 1)) - 1, inflight=stage.get("inflight"),
        ))  # fmt: skip
    if ep > 1:
        parts.append(WHY_LAYOUT["ep"].format(ep=ep, experts=traced.get("experts_per_rank", "?")))
    return "; ".join(parts)


def comparison(breakdown: MemoryBreakdown, traced: dict[str, object]) -> dict[str, dict[str, object]]:
    """{term: {analytic_bytes, traced_bytes, ratio (analytic / traced), why}} for each term and the peak."""
    rows: dict[str, dict[str, object]] = {}
    figures = traced_terms(traced)
    for name in TRACED_TERMS:
        rows[name] = _row(getattr(breakdown, name).bytes, figures[name], WHY[name])
    peak_why = (
        f"{WHY['peak']}; peak phase analytic {breakdown.peak_phase!r}, traced {traced.get('peak_phase')!r}"
    )
    if layout := layout_why(traced):
        peak_why += f"; {layout}"
    rows["peak"] = _row(
        breakdown.total_bytes - breakdown.overhead.bytes, _bytes(traced, "peak_bytes"), peak_why
    )
    return rows


def _row(analytic: int, traced: int, why: str) -> dict[str, object]:
    ratio = round(analytic / traced, 3) if traced else None
    return {"analytic_bytes": analytic, "traced_bytes": traced, "ratio": ratio, "why": why}
