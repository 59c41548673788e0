"""The shipped validation set (planner/catalog/validation.json) read into what a prediction needs.

Each published case becomes a `Case`: its source group (the key for leave-one-source-out cross-validation),
the published figure, and either `CaseInputs` (model, GPU, counts, layout, workload, all resolved to planner
types) or the reason it cannot be expressed. Nothing is guessed: a field a source does not state stays unset
and the prediction completes it the way a user's plan would (the training search, pinned to what is stated),
or the case is excluded with the reason. The rules for shapes a source only partly states are in
`model_for_case` and in docs/architecture.md, "Performance model".
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from types import MappingProxyType
from typing import Any

from planner.errors import UserError
from planner.gpus import GpuSpec, get_gpu
from planner.models import ModelSpec, get_preset, param_counts, validate_spec
from planner.vocabulary import Precision, Recompute, ZeroStage

VALIDATION_FILE = "validation.json"
# Source groups whose TFLOP/s figures follow a stated FLOP formula (planner.validation.source_flops_per_token).
FLOP_CONVENTION_GROUPS = ("megatron-2021", "megatron-core-2024")

TRAINING_KINDS = ("training_throughput", "training_run")
# "half" (fp16 or bf16, not stated): both have the same dense peak on every GPU of the set.
PRECISION_ALIASES = {"half": "bf16"}
# Weight formats of the decode cases (quantization.format in the file) -> planner.perf.formats names.
FORMAT_ALIASES = {
    "int8-weight-only": "int8",
    "int4-weight-only-g32": "int4-g32",
    "gguf-f16": "fp16",
    "gguf-q8_0": "q8_0",
    "gguf-q4_0": "q4_0",
    "gptq-g128": "int4-g128",
}


@dataclass(frozen=True, slots=True)
class Published:
    """The figure a source prints: its metric (validation.json `about.units`) and value."""

    metric: str
    value: float
    flops_formula: str = ""


@dataclass(frozen=True, slots=True)
class TrainingInputs:
    """A training case: the stated layout fields (`pinned`, Layout field names), what the search may not change.

    model_parallel: tp x pp where a source states only the product; virtual_stages: interleaved 1F1B chunks per
    rank; interleaved: the source states an interleaved schedule but not its chunk count (the completion tries the
    plan search's interleaved options); context_parallel: ranks a sequence is split over; tokens: a whole run's
    tokens (training_run).
    """

    seq_len: int
    global_batch: int
    pinned: Mapping[str, int | str]
    model_parallel: int | None = None
    virtual_stages: int = 1
    interleaved: bool = False
    context_parallel: int = 1
    tokens: float | None = None
    flash_attention: bool = True
    tp_comm_overlap: bool = False
    ep_per_node_dispatch: bool = False
    ep_comm_overlap: bool = False
    te_fp8_inputs: bool = False  # fp8 in Transformer Engine: its GEMMs save fp8 inputs (MemoryConfig.te_fp8_inputs)


@dataclass(frozen=True, slots=True)
class ServingInputs:
    """A serving case: engine, scheduling (static | inflight | single), tensor-parallel size, batch (None: as
    many as fit), prompt and output lengths, and the weight format."""

    engine: str
    scheduling: str
    tp: int
    batch: int | None
    prompt_len: int
    output_len: int
    weight_format: str
    release: tuple[int, int] | None = None  # the engine's (major, minor) release where the framework names it
    framework: str = ""  # the case's framework text (engine, release, benchmark tool)


@dataclass(frozen=True, slots=True)
class CaseInputs:
    model: ModelSpec
    gpu: GpuSpec
    gpus: int
    gpus_per_node: int
    precision: Precision
    training: TrainingInputs | None = None
    serving: ServingInputs | None = None


@dataclass(frozen=True, slots=True)
class Case:
    """One published measurement: id, kind, source group and organisation, the figure, and its inputs (or the
    reason it is excluded). `derived` says what was worked out from the source's own numbers."""

    id: str
    kind: str
    group: str
    org: str
    url: str
    published: Published
    inputs: CaseInputs | None
    excluded: str = ""
    derived: tuple[str, ...] = ()
    notes: Mapping[str, str] = field(default_factory=dict)

    @property
    def is_training(self) -> bool:
        return self.kind in TRAINING_KINDS


class _Exclude(Exception):
    """A case that cannot be expressed; the message is the reason shown in `gpu-advisor validate`."""


@lru_cache(maxsize=1)
def load_cases() -> tuple[Case, ...]:
    """Every case of the shipped set, in file order (excluded ones carry their reason)."""
    text = resources.files("planner.catalog").joinpath(VALIDATION_FILE).read_text(encoding="utf-8")
    document = json.loads(text)
    return tuple(_case(record) for record in document["cases"])


def _case(record: Mapping[str, Any]) -> Case:  # Any: one record of validation.json
    source = record["source"]
    published = record["published"]
    figure = Published(
        str(published["metric"]), float(published["value"]), str(published.get("flops_formula") or "")
    )
    derived: list[str] = []
    try:
        inputs = _inputs(record, derived)
        excluded = ""
    except _Exclude as reason:
        inputs, excluded = None, str(reason)
    return Case(
        id=record["id"], kind=record["kind"], group=source["group"], org=source["org"], url=source["url"],
        published=figure, inputs=inputs, excluded=excluded, derived=tuple(derived),
    )  # fmt: skip


# ------------------------------------------------------------------------------------------------ inputs


def _inputs(record: Mapping[str, Any], derived: list[str]) -> CaseInputs:
    kind = record["kind"]
    metric = record["published"]["metric"]
    if "ambiguous" in str(record.get("notes", "")):
        raise _Exclude("the published unit is flagged ambiguous in the case's notes (per GPU or per group)")
    serving = record.get("serving") or {}
    if serving.get("load") and not (serving.get("concurrency") or serving.get("batch_size")):
        raise _Exclude(f"load not quantified ({serving['load']!r}): no concurrency or batch is stated")
    if metric in ("mfu", "hfu"):
        raise _Exclude("only an MFU is published and its FLOP convention is not stated")
    if metric == "tflops_per_gpu" and record["source"]["group"] not in FLOP_CONVENTION_GROUPS:
        raise _Exclude("TFLOP/s by a FLOP convention the source does not state")
    if record.get("gpu_exact") is False:
        raise _Exclude(f"GPU variant not in the catalog: {record.get('gpu_note') or record['gpu']}")
    try:
        gpu = get_gpu(record["gpu"])
    except UserError as exc:
        raise _Exclude(f"GPU {record['gpu']!r} not in the catalog ({exc})") from None
    model = model_for_case(record["model"], derived)
    precision = Precision.parse(PRECISION_ALIASES.get(record["precision"], record["precision"]))
    per_node = int(record.get("gpus_per_node") or gpu.gpus_per_node)
    if kind in TRAINING_KINDS:
        training = _training(record, derived)
        gpus = record.get("gpus")
        if not gpus:
            raise _Exclude(
                "GPU count and layout not stated: per-GPU throughput, so GPU-hours, depend on the scale"
            )
        return CaseInputs(model, gpu, int(gpus), per_node, precision, training=training)
    serving = _serving(record, derived)
    return CaseInputs(model, gpu, serving.tp, per_node, precision, serving=serving)


def _training(record: Mapping[str, Any], derived: list[str]) -> TrainingInputs:
    layout = record.get("layout") or {}
    run = record.get("run") or {}
    tokens = run.get("tokens")
    if record["kind"] == "training_run" and not tokens:
        raise _Exclude("the run's token count is not stated")
    seq_len, batch = record.get("seq_len"), record.get("global_batch")
    if not seq_len or not batch:
        raise _Exclude("sequence length or global batch not stated")
    if record["kind"] == "training_throughput" and not set(layout) & {
        "tp",
        "pp",
        "dp",
        "model_parallel",
        "fsdp",
    }:
        raise _Exclude("parallel layout not stated")
    pinned: dict[str, int | str] = {}
    for name in ("dp", "tp", "pp", "ep", "micro_batch"):
        if layout.get(name):
            pinned[name] = int(layout[name])
    if layout.get("recompute"):
        pinned["recompute"] = Recompute.parse(layout["recompute"]).value
    elif "activation recomputation on" in str(record["published"].get("flops_formula") or ""):
        pinned["recompute"] = Recompute.FULL.value
        derived.append("full recompute: the source's FLOP formula counts the recomputed forward")
    zero = _zero_stage(layout)
    if zero is not None:
        pinned["zero"] = int(zero)
    cp = int(layout.get("cp") or 1)
    if cp > 1 and "dp" in pinned:
        pinned["dp"] = int(pinned["dp"]) * cp  # a context-parallel group takes data-parallel ranks' places
        derived.append(f"context parallel {cp}: the ranks of dp {int(pinned['dp']) // cp} x cp {cp}")
    flash = _has_flash_attention(record)
    if not flash:
        derived.append(
            "no flash attention: the framework predates it (FlashAttention, arXiv 2205.14135, 2022-05)"
        )
    return TrainingInputs(
        flash_attention=flash,
        tp_comm_overlap="TP comm overlap" in str(record.get("framework") or ""),
        ep_per_node_dispatch="DeepEP" in str(record.get("framework") or ""),
        ep_comm_overlap="EP A2A overlap" in str(record.get("framework") or ""),
        te_fp8_inputs="Transformer Engine" in str(record.get("framework") or ""),
        seq_len=int(seq_len),
        global_batch=int(batch),
        pinned=MappingProxyType(pinned),
        model_parallel=int(layout["model_parallel"]) if layout.get("model_parallel") else None,
        virtual_stages=int(layout.get("virtual_stages") or 1),
        interleaved=layout.get("schedule") == "interleaved" and not layout.get("virtual_stages"),
        context_parallel=cp,
        tokens=float(tokens) if tokens else None,
    )


FLASH_ATTENTION_PUBLISHED = "2022-05-27"  # Dao et al., arXiv 2205.14135 v1


def _has_flash_attention(record: Mapping[str, Any]) -> bool:
    """Whether the run could use flash attention: not when the source predates its publication, nor on a
    PyTorch 1.x framework that does not name it (flash attention reached PyTorch in 2.0)."""
    framework = str(record.get("framework") or "")
    if str(record["source"]["date"]) < FLASH_ATTENTION_PUBLISHED:
        return False
    return not ("PyTorch 1." in framework and "FlashAttention" not in framework)


def _zero_stage(layout: Mapping[str, Any]) -> ZeroStage | None:
    """The ZeRO stage a layout states: `zero`, else FSDP (FULL_SHARD = 3, SHARD_GRAD_OP = 2), else None."""
    if layout.get("zero") is not None:
        return ZeroStage.parse(int(layout["zero"]))
    if layout.get("fsdp") is True:
        strategy = layout.get("sharding_strategy", "FULL_SHARD")
        return ZeroStage.GRADIENTS if strategy == "SHARD_GRAD_OP" else ZeroStage.WEIGHTS
    return None


def _serving(record: Mapping[str, Any], derived: list[str]) -> ServingInputs:
    serving = record.get("serving") or {}
    layout = record.get("layout") or {}
    kind = record["kind"]
    tp = int(layout.get("tp") or record.get("gpus") or 1)
    quantization = record.get("quantization") or {}
    stated = str(quantization.get("format", ""))
    fmt = FORMAT_ALIASES.get(stated, stated if stated.startswith("exl2-") else "")
    if not fmt:
        fmt = PRECISION_ALIASES.get(record["precision"], record["precision"])
    prompt = serving.get("prompt_len")
    output = serving.get("output_len")
    batch = serving.get("batch_size") or serving.get("concurrency")
    if kind == "decode_latency":
        scheduling = "single"
        batch = 1
        if prompt is None:
            prompt = 1
            derived.append("prompt not stated ('light load'): one token of context")
        if output is None:
            # gpt-fast's generate.py default (max_new_tokens 200) is not in the stored text; decode speed at a
            # context of 5 + 100 tokens differs from 5 + 64 by well under 1 %: a short generation is assumed.
            output = 128
            derived.append("output length not stated: 128 tokens (decode speed barely depends on it here)")
    else:
        scheduling = serving.get("scheduling") or "static"
        if kind == "ttft" and output is None:
            output = 1  # "benchmarking with a single output token"
    if prompt is None or output is None:
        raise _Exclude("prompt or output length not stated")
    return ServingInputs(
        engine=str(serving.get("engine") or ""),
        scheduling=scheduling,
        tp=tp,
        batch=int(batch) if batch else None,
        prompt_len=max(1, int(prompt)),
        output_len=max(1, int(output)),
        weight_format=fmt,
        release=_release(str(record.get("framework") or "")),
        framework=str(record.get("framework") or ""),
    )


def _release(framework: str) -> tuple[int, int] | None:
    """(major, minor) of a framework text such as 'TensorRT-LLM v0.9.0 (gptSessionBenchmark)'."""
    found = re.search(r"\bv(\d+)\.(\d+)", framework)
    return (int(found.group(1)), int(found.group(2))) if found else None


# ------------------------------------------------------------------------------------------------ models


def model_for_case(entry: Mapping[str, Any], derived: list[str]) -> ModelSpec:
    """The ModelSpec of a case's model: its preset, the preset of the same shape, or the stated shape.

    A stated shape is completed only from the source's own numbers: ffn (absent) is 4 x hidden, the GPT
    convention of the FLOP formulas these sources state (Narayanan et al. 2021: 96 B s l h^2 (1 + s/6h + ...);
    Megatron-LM num_floating_point_operations with ffn_hidden_size = 4h), kept only when the parameter count
    it gives matches the stated params_b (within 3 % or its rounding); tied or untied output layer: whichever lands nearer
    params_b; kv_heads absent: multi-head attention (every source here that uses grouped-query attention states
    it); heads absent: hidden / 128 (only heads x head_dim = hidden enters the FLOPs). A mixture of experts is
    read from experts, experts_per_token and moe_ffn (every layer routed); head_dim, norm and qk_norm where the
    source states them. A vocabulary or a layer count that is not stated cannot be completed: the case is
    excluded.
    """
    if entry.get("preset"):
        return get_preset(entry["preset"])
    if entry.get("same_shape_as"):
        derived.append(f"architecture of preset {entry['same_shape_as']} (same shape)")
        return get_preset(entry["same_shape_as"])
    shape = entry.get("shape") or {}
    missing = [name for name in ("layers", "hidden", "vocab") if not shape.get(name)]
    if missing:
        raise _Exclude(f"model shape incomplete: {', '.join(missing)} not stated")
    if shape.get("experts") and not (shape.get("experts_per_token") and shape.get("moe_ffn")):
        raise _Exclude("MoE shape without its experts per token or expert width")
    return _completed_shape(str(entry.get("name") or "model"), shape, derived)


def _completed_shape(name: str, shape: Mapping[str, Any], derived: list[str]) -> ModelSpec:
    hidden, layers = int(shape["hidden"]), int(shape["layers"])
    heads = int(shape.get("heads") or max(1, hidden // 128))
    if not shape.get("heads"):
        derived.append(f"heads not stated: {heads} of 128 (FLOPs depend only on heads x head_dim = hidden)")
    kv_heads = int(shape.get("kv_heads") or heads)
    head_dim = int(shape.get("head_dim") or hidden // heads)
    gated = bool(shape.get("gated_mlp", False))
    ffn = int(shape.get("ffn") or 4 * hidden)
    if not shape.get("ffn"):
        derived.append("ffn not stated: 4 x hidden (the source's FLOP convention)")
    base = ModelSpec(
        name=name, family="validation", layers=layers, hidden=hidden, heads=heads, kv_heads=kv_heads,
        head_dim=head_dim, ffn=ffn, vocab=int(shape["vocab"]), tied_embeddings=True, gated_mlp=gated,
        norm=str(shape.get("norm") or "layernorm"), attn_bias=False, mlp_bias=False, max_context=8192,
        source="validation.json stated shape", id="", qk_norm=bool(shape.get("qk_norm", False)),
        experts=int(shape.get("experts") or 0), experts_per_token=int(shape.get("experts_per_token") or 0),
        moe_ffn=int(shape.get("moe_ffn") or 0),
    )  # fmt: skip
    stated = float(shape.get("params_b") or 0) * 1e9
    if not stated:
        return validate_spec(base, where=name)
    untied = dataclasses.replace(base, tied_embeddings=False)
    spec = min((base, untied), key=lambda s: abs(param_counts(s).total - stated))
    total = param_counts(spec).total
    if abs(total - stated) > _rounding_tolerance(float(shape["params_b"])) * 1e9:
        raise _Exclude(
            f"stated shape gives {total / 1e9:.2f} B parameters, the source states {stated / 1e9:g} B"
        )
    derived.append(
        f"output layer {'tied' if spec.tied_embeddings else 'untied'}: {total / 1e9:.2f} B parameters"
    )
    return validate_spec(spec, where=name)


def _rounding_tolerance(params_b: float) -> float:
    """How far a parameter count may sit from the stated one: 3 %, or half a unit of the last digit the source
    prints (1.7 B covers 1.65 .. 1.75 B), whichever is wider."""
    text = repr(params_b)
    decimals = len(text.split(".")[1]) if "." in text else 0
    return max(0.03 * params_b, 0.5 * 10.0**-decimals)


def included(cases: Sequence[Case]) -> list[Case]:
    return [case for case in cases if case.inputs is not None]
