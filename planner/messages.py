"""Structured messages: what the planner says to people, as a code plus raw values, rendered at the edges.

The planning core must not write sentences for one language: the desktop shows Russian, the command line and
JSON English. So the planner builds ``Message(code, params)`` objects and keeps an English rendering beside them
for the CLI; the desktop renders the same codes through Qt translation (desktop/messages.py) with locale-aware
numbers. Errors a person can fix carry one too (planner.errors.UserError.of).

Parameters are raw values with their units in the names, the same convention as the rest of the planner:
``*_bytes`` (bytes), ``*_s`` (seconds), ``*_fraction`` (0..1), counts as int, GPU and model names and
precisions as str, a planner.vocabulary.Layout as ``strategy``, Money objects, and nested Messages (a tuple of
Messages is a list of clauses). A renderer may format each kind its own way; ``render_en`` follows the format
spec written in the English template:

    {need_bytes:bytes}   1.0 TiB, 80 GiB (format_bytes)
    {host_bytes:gib2}    12.34 GiB (format_bytes in GiB with two decimals, the memory model's notes)
    {strategy:label}     planner.layout_text.layout_label ("ZeRO-1, TP 8, DP 4, micro-batch 1")
    {wall_time_s:days}   days, one decimal ("12.3")
    {ttft_s:ms}          milliseconds, three significant figures ("412 ms", "4.97 ms")
    {ideas:clauses}      a tuple of Messages joined with "; "
    {parts:list}         a tuple of Messages joined with ", "
    {sentences:sentences} a tuple of Messages, each after a space
    {value:number}       a number as the user typed it: 100,000,000 (whole) or 1e+40
    anything else        Python's format spec (":g", ":.1f", ":,"); Messages render as their English text

Two formatters write figures for people in the planner (the CLI, reports, assumption texts): format_bytes and
format_duration. The desktop has locale-aware twins in desktop/fmt.py that follow the same rules.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any


@dataclass(frozen=True, eq=True)
class Message:
    """One thing the planner says: a stable code (a key of TEMPLATES) and the raw values it needs."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __hash__(self) -> int:  # params may hold unhashable values; equal messages share a code
        return hash(self.code)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.code, dict(self.params)) == (
            other.code,
            dict(other.params),
        )

    @property
    def text(self) -> str:
        """The English text (what the CLI prints and JSON carries)."""
        return render_en(self)

    def __str__(self) -> str:
        return render_en(self)


def msg(code: str, /, **params: object) -> Message:
    """Message(code, params) with the parameters as keywords; the code must have an English template."""
    if code not in TEMPLATES:
        raise KeyError(f"no English template for message code {code!r}")
    return Message(code, params)


_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def format_bytes(value: float, *, unit: str | None = None, decimals: int = 2) -> str:
    """Bytes for people, in binary units (the planner's one bytes formatter).

    Without `unit`: the largest unit that keeps the number at least 1, one decimal below 10 and none above
    (1.1 TiB, 80 GiB, 512 MiB, 512 B) -- for sentences. With `unit` ("GiB"): always that unit with `decimals`
    decimals and thousands separators (4.01 GiB, 1,234.5 GiB) -- for tables whose rows compare in one unit.
    """
    amount = float(value)
    if unit is not None:
        return f"{amount / 1024 ** _BINARY_UNITS.index(unit):,.{decimals}f} {unit}"
    index = 0
    while abs(amount) >= 1024 and index < len(_BINARY_UNITS) - 1:
        amount /= 1024
        index += 1
    if index == 0:
        return f"{int(amount)} B"
    text = f"{amount:.1f}" if abs(amount) < 10 else f"{amount:.0f}"
    return f"{text} {_BINARY_UNITS[index]}"


def format_duration(seconds: float | None, missing: str = "n/a") -> str:
    """Seconds for people (the planner's one duration formatter): the CLI tables, the reports.

    The rule: the largest unit the value reaches -- under 1 s in ms, under 2 min in s, under 1 h in min, under
    3 days in h, beyond in days (the units and thresholds of desktop.fmt.duration) -- with three significant
    figures, so step times still compare ("20.7 s", "44.0 ms", "90.0 min" is "1.50 h", "29.7 days",
    "1,157 days"). None, NaN and infinity read `missing`.
    """
    if seconds is None or not math.isfinite(seconds):
        return missing
    value = float(seconds)
    for limit, divisor, unit in _DURATION_UNITS:
        if abs(value) < limit:
            return f"{_three_figures(value / divisor)} {unit}"
    return f"{_three_figures(value / 86400)} days"


# (below this many seconds, divide by, unit)
_DURATION_UNITS = ((1.0, 1e-3, "ms"), (120.0, 1.0, "s"), (3600.0, 60.0, "min"), (3 * 86400.0, 3600.0, "h"))


def _three_figures(value: float) -> str:
    """Three significant figures without an exponent: 0.0441 -> "0.0441", 20.74 -> "20.7", 1157.4 -> "1,157"."""
    if value == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


# ------------------------------------------------------------------------------------------------ templates
# One table of every code the planner emits, with its English text. desktop/messages.py holds a translated
# template for each of these codes (a test enumerates this table); keep the placeholders' names in step.

TEMPLATES: Mapping[str, str] = MappingProxyType({
    # -- strategy families (the names people give a sharding layout) ------------------------------------------
    "family.ddp": "DDP",
    "family.zero": "ZeRO-{zero}",
    "family.zero3": "ZeRO-3/FSDP",
    "family.optimizer_offload": "{family} + optimizer offload",
    "family.all_offload": "{family} + all offload",
    # -- a layout in words (planner.layout_text.layout_label) -------------------------------------------------
    "layout.label": "{parts:list}",
    "layout.tp": "TP {degree}",
    "layout.pp": "PP {degree}",
    "layout.ep": "EP {degree}",
    "layout.dp": "DP {degree}",
    "layout.selective_recompute": "selective recompute",
    "layout.full_recompute": "full recompute",
    "layout.micro_batch": "micro-batch {micro_batch}",
    # -- what a person calls a choice of planner.vocabulary, and quantities the errors name -------------------
    "choice.task": "task",
    "choice.precision": "precision",
    "choice.kv_precision": "KV-cache precision",
    "choice.optimizer": "optimizer",
    "choice.lora_target": "LoRA target",
    "choice.recompute": "recompute mode",
    "choice.offload": "offload mode",
    "choice.rank_by": "ranking",
    "choice.confidence": "confidence",
    "choice.calibration_source": "calibration source",
    "choice.engine": "serving engine",
    "choice.weight_format": "weight format",
    "quantity.micro_batch": "micro-batch",
    "quantity.seq_len": "sequence length",
    "quantity.inflight": "in-flight micro-batches",
    "quantity.lora_rank": "LoRA rank",
    "quantity.pinned": "a pinned strategy value",
    "quantity.purchase_price": "the purchase price",
    "quantity.rent_price": "the rent price",
    "quantity.rent_prices": "rent prices",
    "quantity.spot_rent_price": "the spot rent price",
    "quantity.reserved_rent_price": "the reserved rent price",
    "quantity.infra_overhead": "the infrastructure overhead",
    "quantity.power_per_gpu": "the power per GPU",
    "quantity.pue": "PUE",
    "quantity.electricity_price": "the electricity price",
    "quantity.hours_per_day": "hours per day",
    "quantity.days_per_week": "days per week",
    "quantity.utilisation": "utilisation",
    "quantity.resale_fraction": "the resale fraction",
    "quantity.maintenance": "maintenance",
    "quantity.spot_overhead": "the spot overhead",
    "quantity.spot_interruption_rate": "the spot interruption rate (reclaims per node-hour)",
    "quantity.checkpoint_write_time": "the checkpoint write time",
    "quantity.restart_time": "the restart time",
    "quantity.catalog_purchase_price": "the catalog's purchase price",
    "quantity.default_electricity_price": "the default electricity price",
    # -- what an excluded entry stands for --------------------------------------------------------------------
    "excluded.family.data_parallel_only": "{family} without tensor/pipeline parallel",
    "excluded.family.tensor_pipeline": "tensor/pipeline parallel",
    "excluded.family.zero_with_pipeline": "ZeRO-{zero} + pipeline parallel",
    "excluded.family.pipeline": "pipeline parallel",
    "excluded.family.gpu_count": "{gpus} GPUs",
    "excluded.family.inference": "{precision} inference",
    "excluded.family.precision_on_gpu": "{precision} on {gpu_id}",
    # -- why it was excluded ----------------------------------------------------------------------------------
    "excluded.needs_memory": "needs {need_bytes:bytes} per GPU, has {capacity_bytes:bytes} on {gpu}",
    "excluded.needs_memory_layout": (
        "needs {need_bytes:bytes} per GPU ({strategy:label}, {gpus} GPUs), has {capacity_bytes:bytes} on {gpu}"
    ),
    "excluded.pipeline_needs_zero01": (
        "not searched: pipeline parallel runs with ZeRO stage 0 or 1 only (DeepSpeed's pipeline engine: \"ZeRO-2 "
        "and ZeRO-3 are incompatible with pipeline parallelism\"; Megatron-LM's distributed optimizer is ZeRO-1); "
        "pin ZeRO 0/1 to use a pipeline, or PP 1 to keep ZeRO-2/3"
    ),
    "excluded.no_layout_divides": (
        "no tp x pp x dp layout divides {gpus} GPUs for {model} (tp must divide {heads} heads, dp at most the "
        "global batch)"
    ),
    "excluded.no_serving_layout": "no tensor/pipeline layout is possible on {where}",
    "excluded.serving_needs_memory": (
        "needs {need_bytes:bytes} per GPU at the lightest layout on {where}, has {capacity_bytes:bytes}"
    ),
    "gpu.precision_needs_capability": (
        "{gpu} (compute capability {capability}) cannot run {precision}: it needs compute capability "
        "{needed_capability} or newer"
    ),
    "gpu.no_precision_support": "{gpu} has no {precision} support",
    # -- where: a GPU count and type ----------------------------------------------------------------------
    "where.gpus": "{gpus} x {gpu}",
    "where.one_gpu": "one {gpu}",
    "where.exact_gpus": "{gpus} GPUs",
    "where.up_to_gpus": "up to {gpus} GPUs",
    # -- advice -------------------------------------------------------------------------------------------
    "advice.ddp_cannot_work": (
        "Plain data parallel (DDP) cannot work on {gpu}: the model states alone are {state_bytes:bytes} per GPU "
        "against {capacity_bytes:bytes}; they need sharding, e.g. {hint} (the fastest option uses "
        "{strategy:label})."
    ),
    "advice.nothing_fits_training": (
        "Nothing fits on {upto} x {gpu} ({capacity_bytes:bytes} each). Try: {ideas:clauses}."
    ),
    "advice.nothing_fits_training_lightest": (
        "Nothing fits on {upto} x {gpu} ({capacity_bytes:bytes} each): the lightest layout ({strategy:label}) "
        "still needs {need_bytes:bytes} per GPU. Try: {ideas:clauses}."
    ),
    # what else to try when no training layout fits; only those the plan has not already tried
    "idea.more_gpus_training": "more GPUs",
    "idea.zero3_offload": "ZeRO-3 with CPU offload",
    "idea.lora_instead": "LoRA or QLoRA instead of full training",
    "idea.qlora_instead": "QLoRA (a 4-bit base model) instead of LoRA",
    "idea.shorter_sequence": "a shorter sequence",
    "idea.bigger_gpu": "a GPU with more memory",
    "advice.serving_does_not_fit": (
        "{model} in {precision} does not fit {where} ({need_bytes:bytes} needed per GPU, {capacity_bytes:bytes} "
        "available). What would: {ideas:clauses}."
    ),
    "idea.int4_fits_one_gpu": (
        "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes:bytes} on one GPU, fits one GPU"
    ),
    "idea.int4_needs_gpus": (
        "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes:bytes} on one GPU, needs about {gpus} GPUs with "
        "tensor parallel"
    ),
    "idea.offload_weights": (
        "offload the weights to CPU RAM (accelerate device_map, llama.cpp): runs, but every token streams "
        "{streamed_bytes:bytes} or more over PCIe, about {token_time_s:.1f} s per token"
    ),
    "idea.more_gpus": "more GPUs: at least {gpus} x {gpu} with tensor parallel",
    "advice.limits_not_met": "No option meets the deadline and budget.{sentences:sentences}",
    "advice.fastest": "Fastest: {wall_time_s:days} days on {gpus} x {gpu}.",
    "advice.cheapest": "Cheapest: {cost} on {gpus} x {gpu}.",
    # -- notes on one option --------------------------------------------------------------------------------
    "option.global_batch_differs": (
        "global batch {effective_batch} sequences (dp {dp} x micro-batch {micro_batch} x {accumulation_steps} "
        "accumulation steps), not {global_batch}"
    ),
    "option.decode_memory_bound": "decode is memory bandwidth-bound at batch {batch}",
    "option.decode_compute_bound": "decode is compute-bound at batch {batch}",
    "option.misses_target": "misses the {target_tokens_per_second:g} tokens/s target",
    "option.users_queued": "{queued} users per replica wait for one of its {slots} sequence slots",
    "option.misses_targets": "MISSES THE TARGETS: {missed:clauses}",
    "option.overloaded": (
        "{request_rate:g} requests/s overload it: requests arrive faster than its replicas finish them"
    ),
    "target.ttft": "TTFT p90 {ttft_s:ms} against the {target_s:ms} target",
    "target.tpot": "TPOT {tpot_s:ms} against the {target_s:ms} target",
    "advice.serving_targets_closest": (
        "No option meets the targets within {limit} GPUs: the closest are shown, closest first, each marked with "
        "what it misses."
    ),
    "advice.serving_targets_need_gpus": (
        "What would meet them: {gpus} x {gpu}, {replicas} replica(s) of TP {tp} x PP {pp} (planned and checked: "
        "TTFT p90 {ttft_s:ms}, TPOT {tpot_s:ms}, {tokens_per_s:,.0f} tokens/s)."
    ),
    "advice.serving_targets_unreachable": (
        "No number of GPUs meets them on {gpu}: the closest, TP {tp} x PP {pp}, reaches TTFT p90 {ttft_s:ms} and "
        "TPOT {tpot_s:ms}; a faster GPU, a smaller or quantised model, a shorter prompt or looser targets would "
        "be needed."
    ),
    # -- memory model notes (planner/memory/) ------------------------------------------------------------------
    "memory.kv_heads_replicated": (
        "tp {tp} exceeds the {kv_heads} KV heads: each KV head is replicated on {replicas} ranks"
    ),
    "memory.seq_beyond_context": "sequence length {seq_len} exceeds {model}'s context of {context} tokens",
    "memory.qlora_ignores_precision": (
        "QLoRA keeps the base in NF4 and computes in bf16; precision {precision} is not used"
    ),
    "memory.zero_with_one_rank": (
        "ZeRO stage {zero} with dp 1 shards nothing: there is only one data-parallel rank"
    ),
    "memory.zero_with_pipeline": (
        "ZeRO-{zero} with pipeline parallel: DeepSpeed's pipeline engine accepts ZeRO stage 0 or 1 only, and "
        "TorchTitan's FSDP keeps each stage's parameters whole between forward and backward under PP; these "
        "figures assume full ZeRO-{zero} sharding"
    ),
    "memory.kv_precision_training": "KV-cache precision only matters for inference",
    "memory.zero_inference": "ZeRO stages shard training state; ignored for inference",
    "memory.optimizer_offload_inference": "inference has no optimizer state to offload",
    "memory.recompute_inference": "activation recompute only matters for training",
    "memory.sequence_parallel_without_tp": "sequence parallel has no effect without tensor parallel",
    "memory.selective_with_flash": (
        "selective recompute saves nothing more with flash attention (no score matrix is stored)"
    ),
    "memory.inflight_without_pipeline": (
        "in-flight micro-batches only apply to pipeline parallel; with pp 1 one micro-batch is live"
    ),
    "memory.first_stage_fullest": (
        "figures are for the first pipeline stage (stage {stage} of {stages}), the fullest"
    ),
    "memory.last_stage_fullest": "figures are for the last pipeline stage (stage {stage} of {stages}), the fullest",
    "memory.offload_host_ram_optimizer": (
        "offload needs {host_bytes:gib2} of CPU RAM per GPU (optimizer offloaded to the host)"
    ),
    "memory.offload_host_ram_all": "offload needs {host_bytes:gib2} of CPU RAM per GPU (all offloaded to the host)",
    "memory.deepseek_without_mtp": (
        "DeepSeek-V3 counted without its 14B multi-token-prediction module (671B main model)"
    ),
    # -- mixed GPU pools (planner.search.pools): the ways to run one job and why the best wins -----------------
    "pool.name.alone": "{gpu} alone",
    "pool.name.pool": "the whole pool",
    "pool.name.pipeline": "the pipeline over the types",
    "pool.name.separate": "separate jobs",
    "pool.reason.only": "{way} is the only way that fits",
    "pool.reason.faster": "{way} is {speedup:.2f}x faster than {runner}: {why}",
    "pool.reason.faster_by_percent": "{way} is {faster_percent:.1f}% faster than {runner}: {why}",
    "pool.why.pool": "the extra GPUs bring more than the gradient sync at the slower pace costs",
    "pool.why.pipeline": (
        "each type holds layers in proportion to its speed, so the slowest stage, the bubble "
        "({bubble_percent:.1f}% of the step) and the sends between types cost less than the runner-up's losses"
    ),
    "pool.why.alone_over_pool": (
        "the pool's common layout and gradient sync at the slower pace cost more than its extra GPUs bring; the "
        "other GPUs stay free for separate jobs"
    ),
    "pool.why.alone_over_pipeline": (
        "the pipeline's slowest stage, bubble and sends between types cost more than its extra GPUs bring; the "
        "other GPUs stay free for separate jobs"
    ),
    "pool.why.faster_type": "its GPUs run this job faster",
    "pool.way.pipeline": (
        "{stages} pipeline stages ({groups:clauses}) x dp {dp}, {microbatches} micro-batches per step: the "
        "slowest stage takes {pace_s:.3g} s per micro-batch, the bubble {bubble_percent:.1f}% of the step, a send "
        "between types {boundary_send_s:.3g} s at the slower link"
    ),
    "pool.way.stage_group": "{stages} x {gpu}, layers per stage: {layers}",
    "pool.way.stage_group_range": "{stages} x {gpu}, layers per stage: {fewest}-{most}",
    "pool.way.separate": (
        "each type runs its own job: together {aggregate_tokens_per_s:,.0f} tokens/s, but one run goes at its own "
        "job's pace, {tokens_per_s:,.0f} tokens/s on {gpu} alone; the other GPUs run other jobs"
    ),
    "pool.pipeline.no_shape": (
        "no pipeline over the types: no tensor-parallel size and pipeline copies give every type a stage within "
        "{limit} stages"
    ),
    "pool.pipeline.stage_too_big": (
        "no pipeline over the types fits: at best stage {stage} on {gpu} ({layers} layers) needs {need_bytes:bytes} "
        "per GPU, has {capacity_bytes:bytes} ({strategy:label})"
    ),
    "pool.pipeline.precision": "no pipeline over the types: {refusal}",
    # -- errors a person can fix (planner.errors.UserError.message) -------------------------------------------
    "error.unknown_choice": "unknown {what} {text!r}; choose one of: {choices}",
    "error.zero_stage": "ZeRO stage must be 0, 1, 2 or 3, got {value!r}",
    "error.must_be_whole": "{what} must be a whole number, got {value!r}",
    "error.must_be_positive": "{what} must be positive, got {value:number}",
    "error.must_be_finite": "{what} must be a finite number, got {value}",
    "error.absurdly_large": "{what} {value:number} is absurdly large (limit {limit:number})",
    "error.not_a_number": "{what} must be a number, got {value!r}",
    "error.number_too_long": "{what} is {chars} characters long; a number here has at most {limit}",
    "error.out_of_range": "{what} must be from {low:number} to {high:number}, got {value:number}",
    "error.too_many_gpus": "dp x tp x pp = {gpus:,} GPUs is absurdly large (limit {limit:,})",
    "error.tp_heads": "tensor parallel {tp} does not divide the {heads} attention heads of {model}",
    "error.tp_kv_heads": (
        "tensor parallel {tp} does not divide the {kv_heads} KV heads of {model} (nor do the KV heads divide it, "
        "which would allow replicating them)"
    ),
    "error.pp_layers": "pipeline parallel {pp} is larger than the {layers} layers of {model}",
    "error.ep_dense": "expert parallel {ep} needs a mixture-of-experts model; {model} is dense",
    "error.ep_experts": "expert parallel {ep} does not divide the {experts} experts of {model}",
    "error.ep_dp_tp": (
        "expert parallel {ep} must divide dp x tp = {dp_tp} (expert-parallel ranks are carved out of the data- "
        "and tensor-parallel ranks)"
    ),
    "error.learned_positions": "sequence length {seq_len} exceeds {model}'s {context} learned positions",
    "error.full_training_int": (
        "full training in {precision} is not supported; use bf16/fp16/fp8/fp32, or --task qlora for a 4-bit base"
    ),
    "error.lora_no_targets": "LoRA needs at least one target module; choose from {choices}",
    "error.no_throughput_figure": "{gpu} has no {dtype} throughput figure",
    "error.mfu_range": "MFU must be between 0 and 1, got {mfu}",
    "error.bandwidth_fraction_range": "the bandwidth fraction must be between 0 and 1, got {fraction}",
    "error.comm_overlap_range": "the communication overlap must be between 0 and 1, got {overlap}",
    "error.batch_positive": "the batch must be at least one sequence",
    "error.must_not_be_negative": "{what} must not be negative",
    "error.spot_no_progress": "at {rate:g} reclaims per node-hour a job on {nodes} node(s) spends nearly all its "
    "time redoing lost work and restarting ({restart_s:,.0f} s each): spot cannot run it",
    "error.gpu_flag_empty": "--gpu needs a GPU id; see `gpu-advisor gpus`",
    "error.price_flags_both": "give either --price-per-gpu-hour or --price-from-quotes, not both",
    "error.nothing_to_export": "nothing to export: no option fits",
    "error.cannot_write_export": "cannot write the export to {directory}: {reason}",
    "error.spot_inputs_negative": (
        "spot interruption rate, restart overhead and checkpoint interval must not be negative"
    ),
    "error.run_cost_negative": "GPU-hours and the price per GPU-hour must not be negative",
    "error.rentbuy_gpus_large": "{gpus:,} GPUs is absurdly large (limit {limit:,})",
    "error.purchase_large": "the purchase price {price:g} is absurdly large (limit {limit:g})",
    "error.would_overwrite": "{path} exists; it was left unchanged: add --force to replace it, or choose another name",
    "error.export_would_overwrite": (
        "{folder} already holds {count} file(s) an export writes (such as {name}); they were left unchanged: add "
        "--force to replace them, or choose another folder"
    ),
    "error.value_too_large": "{what} {value:g} is absurdly large (limit {limit:g})",
    "error.power_range": (
        "the power per GPU must be between 0 and {limit:.0f} W (0 leaves electricity out), got {power:g} W"
    ),
    "error.pue_range": "PUE must be between {low:.1f} and {high:.1f} (facility power / IT power), got {pue:g}",
    "error.hours_per_day_range": "hours per day must be between 0 and 24",
    "error.days_per_week_range": "days per week must be between 0 and 7",
    "error.utilisation_range": "utilisation must be between 0 and 1 (for example 0.6)",
    "error.horizon_range": "the horizon must be between 1 and 240 months",
    "error.resale_range": "the resale fraction must be between 0 and 1",
    "error.hybrid_range": "hybrid owned GPUs must be between 0 and the number of GPUs",
    "error.hybrid_whole_groups": "hybrid owned GPUs must be whole groups of {job_gpus} (the GPUs one job needs at once)",
    "error.job_gpus_range": "a job of {job_gpus} GPUs must need between 1 and the {gpus} GPUs compared",
    "error.runs_positive": "the job's GPU-hours and its runs per month must be positive",
    "error.runs_do_not_fit": "{runs:g} runs a month do not fit the schedule of {gpus} GPUs: at most {fit} do",
    "error.optimizer_offload_zero": "optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offload_optimizer)",
    "error.param_offload_zero3": (
        "offloading parameters needs ZeRO stage 3 / FSDP full shard (DeepSpeed offload_param)"
    ),
    "error.seq_and_batch_positive": "sequence length and batch must be at least 1",
    "error.tokens_positive": "the number of tokens must be positive",
    "error.tokens_per_s_positive": "the tokens-per-second target must be positive",
    "error.users_positive": "concurrent users must be at least 1",
    "error.users_or_rate": "give concurrent users or a request rate, not both",
    "error.output_longer_than_sequence": (
        "the output length ({output_len}) must be shorter than the sequence length ({seq_len})"
    ),
    "error.gpus_positive": "the number of GPUs must be at least 1",
    "error.max_gpus_positive": "the maximum number of GPUs must be at least 1",
    "error.deadline_positive": "the deadline must be positive",
    "error.headroom_range": "the memory headroom must be between 0 and {limit:.0%} of each GPU's memory, got {headroom:g}",
    "error.cannot_pin": "cannot pin {fields}; pin one of: {choices}",
    "error.top_positive": "--top must be at least 1",
    "error.chosen_hardware_unplannable": (
        "nothing to plan on: {reasons:clauses}; choose a GPU of the catalog (gpu-advisor gpus lists them) or "
        "add this GPU as your own GPU type"
    ),
    "error.no_gpu_type": "choose at least one GPU type",
    "error.no_hardware_chosen": "choose at least one GPU type, machine or quote to plan on",
    "error.budget_currency": "the budget is in {budget_currency} but prices are in {price_currency}; convert first",
    "error.no_model": "no model given: name a preset, a size such as 7b, a config.json or a model folder",
    "error.no_such_path": "no such file or folder: {path}",
    "error.no_such_path_hub_id": (
        "no such file or folder: {path} (a Hugging Face model id? GPU Advisor works offline: download its "
        "config.json and give its path)"
    ),
    "error.unknown_model": (
        "unknown model {text!r}: not a preset ({presets}), a size such as 7b, a config.json or a model folder"
    ),
    "error.spec_positive": "{where}: {field} must be a positive integer, got {value!r}",
    "error.spec_negative": "{where}: {field} must not be negative, got {value}",
    "error.spec_gqa": "{where}: {heads} attention heads are not a multiple of {kv_heads} KV heads",
    "error.spec_norm": "{where}: norm must be rmsnorm or layernorm, got {norm!r}",
    "error.spec_experts_per_token": "{where}: experts_per_token must be between 1 and {experts}",
    "error.spec_moe_ffn": "{where}: moe_ffn (expert intermediate size) must be positive",
    "error.spec_dense_layers": "{where}: dense_layers ({dense_layers}) must be fewer than layers ({layers})",
    "error.spec_mla": "{where}: MLA needs positive v_head_dim and qk head dims",
    "error.spec_layer_types": "{where}: layer_types lists {kinds} layers but the model has {layers}",
    "error.spec_layer_kind": "{where}: layer kind {kind!r} is unknown or lacks its window",
    "error.config_remote_code": (
        "{path}: model_type {model_type!r} names its own code (auto_map); code from a model folder is never run, "
        "so this model cannot be read"
    ),
    "error.unknown_preset": "unknown model preset {name!r}; presets: {presets}",
    "error.size_not_number": "model size must be a number of billions, got {billions!r}",
    "error.size_range": "model size {billions:g}B is outside {low:g}B..{high:g}B",
    "error.size_too_small": "model size {billions:g}B is too small for a Llama-like shape",
    "error.config_missing_key": "{path}: missing key {key!r} (needed for model_type {model_type})",
    "error.config_key_int": "{path}: key {key!r} must be a positive integer, got {value!r}",
    "error.config_key_bool": "{path}: key {key!r} must be true or false, got {value!r}",
    "error.config_too_large": "{path}: {size} bytes is too large for a config.json",
    "error.file_missing": "{path}: no such file",
    "error.cannot_read": "{path}: cannot read ({kind}: {reason})",
    "error.config_bad_json": "{path}: malformed JSON ({reason} at line {line})",
    "error.config_not_object": "{path}: expected a JSON object, got {kind}",
    "error.config_no_model_type": "{path}: missing key 'model_type'",
    "error.config_model_type": "{path}: model_type {model_type!r} is not supported; supported: {supported}",
    "error.config_mlp_only_layers": "{path}: key 'mlp_only_layers' must be a list of layer numbers",
    "error.imported_size": (
        "{where}: model size {billions:.3g}B parameters is outside {low:g}B..{high:g}B; check the sizes in the file"
    ),
    "error.trace_needs_config": (
        "{model}: a trace builds the model from its config.json; give a config.json or a model folder"
    ),
    "error.trace_too_deep": (
        "a trace of {layers} decoder layers would take too long (about 1 s per layer); it runs at most "
        "{limit}, as deep as the deepest published model (Llama 3.1 405B: 126): use the analytic figures"
    ),
    "error.trace_task": "a trace runs pretrain, finetune, lora or inference, not {task} (QLoRA's 4-bit kernels need CUDA)",
    "error.trace_layout": "a LoRA trace covers data, pipeline and expert parallel; LoRA is not traced under tensor parallel",
    "error.trace_failed": "the memory trace failed: {reason}",
    "error.safetensors_short": "{path}: not a safetensors file (shorter than its 8-byte header length)",
    "error.safetensors_header": "{path}: header length {header} bytes is absurd for a {size}-byte file",
    "error.safetensors_not_json": "{path}: malformed safetensors header (not JSON)",
    "error.safetensors_not_object": "{path}: malformed safetensors header (not a JSON object)",
    "error.safetensors_shape": "{path}: tensor {tensor!r} has no valid 'shape' in the header",
    "error.not_a_folder": "{path}: not a folder",
    "error.no_gpu_given": "no GPU given; see `gpu-advisor gpus` for the ids",
    "error.unknown_gpu": "unknown GPU {text!r}; see `gpu-advisor gpus`",
    "error.unknown_gpu_close": "unknown GPU {text!r} (did you mean: {ids}?); see `gpu-advisor gpus`",
    "error.gpu_type_sizes": "a GPU type needs a positive memory size and memory bandwidth",
    "error.gpu_type_dtypes": "unknown dtype(s) {dtypes} in TFLOPS; use {choices}",
    "error.gpu_type_tflops": "a GPU type needs at least one TFLOPS figure (for example bf16)",
    "error.currency_code": "{code!r} is not a currency code; use a 3-letter code such as USD, EUR or RUB",
    "error.currency_mismatch": "cannot add {other} to {currency} without converting first",
    "error.rate_positive": "the exchange rate for {code} must be a positive number, got {rate}",
    "error.no_rate_for_default": (
        "no exchange rate for USD->{currency} to convert {what}; set one in Settings (or give {flag} in {currency})"
    ),
    "error.no_reference_price": "give --purchase-per-gpu: the catalog has no reference price for {gpu}",
    "error.years_at_least_a_month": "--years must be at least one month (0.1)",
    "error.no_exchange_rate": "no exchange rate for {source}->{target}; set one in Settings",
    # -- where a price and a measurement came from (planner/resolver.py) --------------------------------------
    "price.user_set": "{price}/GPU-hour, set by you",
    "price.mine_one": "your quote: {price}/GPU-hour",
    "price.reference_one": "reference quote: {price}/GPU-hour",
    "price.mine_median": "median of {count} of your on-demand quotes ({low} to {high}/GPU-hour)",
    "price.reference_median": "median of {count} reference on-demand quotes ({low} to {high}/GPU-hour)",
    "price.quote": "{provider}, {quote_kind}: {price}/GPU-hour, quoted {quoted_date}",
    "price.for_gpu": "price for {gpu_id}: {source}",
    "price.none": "no stored on-demand quote for {gpu_id}: no cost shown",
    "resolver.quote_gone": "quote {quote_id} is no longer in the database",
    "resolver.run_gone": "probe run {run_id} is no longer in the database",
    "resolver.run_without_gpu": "probe run {run_id} measured no GPU the catalog knows: it cannot plan",
    # -- ledger (planner/store) errors ---------------------------------------------------------------------
    # what a stored quote is called inside other messages
    "store.rental_quote": "rental quote",
    "store.purchase_quote": "purchase quote",
    "store.rental_quotes": "rental quotes",
    "store.purchase_quotes": "purchase quotes",
    # why one quote (a form, a CSV row) is refused
    "quote.gpu_lookalike": "gpu: unknown GPU {text!r} (did you mean {hint}?)",
    "quote.gpu_refused": "gpu: {reason}",
    "quote.ambiguous_number": (
        "{field} {value} is ambiguous: the comma may separate thousands or mark decimals; write 1000 or 1.000 "
        "(or 1,000.00)"
    ),
    "quote.not_a_number": "{field} must be a number, got {value}",
    "quote.not_finite": "{field} must be a finite number, got {value}",
    "quote.not_positive": "{field} must be > 0",
    "quote.negative": "{field} must be >= 0",
    "quote.above_limit": "{field} must be at most {limit:,.0f}, got {value}",
    "quote.above_limit_w": "{field} must be at most {limit:,.0f} W, got {value}",
    "quote.above_limit_per_gpu": "{field} must be at most {limit:,.0f} ({per_gpu_limit:,.0f} per GPU), got {value}",
    "quote.gpu_count": "{field} must be a whole number between 1 and {limit:,}, got {value}",
    "quote.not_a_date": "{field} must be a date YYYY-MM-DD, got {value!r}",
    "quote.date_empty": "{field} must be a date YYYY-MM-DD (it is empty)",
    "quote.bad_currency": "currency must be one of {choices} or another 3-letter ISO code, got {value!r}",
    "quote.currency_required": "currency is required ({choices} or another 3-letter ISO code)",
    "quote.bad_choice": "{field} must be one of {choices}, got {value!r}",
    "quote.bad_choice_or_empty": "{field} must be one of {choices} or empty, got {value!r}",
    "quote.too_long": "{field} is longer than {limit} characters",
    "quote.required": "{field} is required",
    "quote.price_required": "price_per_gpu_hour or price_per_instance_hour is required",
    "quote.prices_disagree": (
        "price_per_instance_hour {per_instance:g} does not match price_per_gpu_hour {per_gpu:g} x {gpus} GPUs = "
        "{expected:g} (they must agree within 1%)"
    ),
    "quote.unusable_price": "{field} works out to {price}, which is not a usable price",
    "quote.valid_before_quoted": "valid_until must not be before quoted_on",
    "quote.overhead_range": "server_overhead_fraction must be between 0 and 10 (0.3 means +30%)",
    "quote.rate_positive": "the exchange rate must be a number > 0",
    # quote CSV files: one row, the header
    "csv.row_width": "{cells} cells but the header has {columns} columns",
    "csv.duplicate_of_row": "duplicate of row {row}",
    "csv.duplicate_of_quote": "duplicate of {label} #{quote_id}",
    "csv.missing_columns": "missing columns: {columns}",
    "csv.unknown_columns": "unknown columns: {columns}",
    "csv.repeated_columns": "repeated columns: {columns}",
    "csv.missing_price_column": "missing columns: price_per_gpu_hour or price_per_instance_hour",
    "error.csv_header": "{name}: {problems:clauses} (expected columns: {columns})",
    "error.csv_empty": "{name} is empty: expected a header row naming the columns {columns}",
    "error.csv_unreadable": "{name}: not a readable CSV file near line {line}: {detail}",
    "error.csv_no_rows": "{name} has a header but no {quotes}",
    "error.csv_is_folder": "{path} is a folder, not a CSV file",
    "error.csv_too_big": "{name} is {size} bytes; the limit for a quote file is {limit} bytes",
    "error.csv_not_utf8": (
        "{name} is not UTF-8 text (byte {byte} on line {line}); save it as 'CSV UTF-8' and import it again"
    ),
    "error.file_unreadable": "{path}: cannot read it ({reason})",
    "error.os": "{path}: {reason}",
    "error.argument_not_utf8": "argument {position} ({text}) is not UTF-8 text; type it again in UTF-8 (or rename the file)",
    "error.option_value_double_dash": "{option}=--: '--' cannot be the value of {option}; give another value",
    "file_kind.folder": "a folder",
    "file_kind.fifo": "a FIFO (named pipe)",
    "file_kind.device": "a device",
    "file_kind.socket": "a socket",
    "file_kind.special": "a special file",
    "error.not_regular_file": "{path} is {kind}, not a regular file; give the path of an ordinary file",
    "error.file_too_large": "{path} is {size} bytes; the limit is {limit} bytes",
    "error.cannot_write": "cannot write {path}: {reason}",
    "error.export_is_database": "{path} is the database in use; choose another file for the export",
    "error.import_refused": (
        "{file} refused: {bad} bad row(s) of {total}; nothing was imported (fix them, or use --skip-invalid to "
        "import the {good} good row(s)); row 1 is the header"
    ),
    # stored quotes
    "error.quote_invalid": "cannot store the {label}: {reasons:clauses}",
    "error.quote_duplicate": "this {label} is already stored as #{quote_id}",
    "error.quote_missing": "there is no {label} #{quote_id}",
    "error.quote_unknown_fields": "unknown {label} fields: {fields}",
    "error.quote_change_duplicate": "this change would make {label} #{quote_id} the same as #{existing}",
    "error.quote_reference_edit": (
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows "
        "can't be edited (hide them with --mine)"
    ),
    "error.quote_reference_delete": (
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows "
        "can't be deleted (hide them with --mine)"
    ),
    # probe runs and reports
    "error.probe_label_too_long": "the machine label is {length:,} characters; the limit is {limit}",
    "error.probe_duplicate": "this probe report is already stored as run #{run_id}",
    "error.probe_run_missing": "there is no probe run #{run_id}",
    "error.report_unusable": "not a usable probe report: {detail}",
    "error.probe_cannot_start": "cannot start gpu-probe ({command}): {reason}",
    "error.probe_stalled": (
        "gpu-probe printed nothing for {seconds} s and was stopped, with every process it started; nothing "
        "was saved: run it again, or run gpu-probe --progress by hand to see where it stops"
    ),
    "error.probe_failed": "gpu-probe failed with exit code {exit_code}; nothing was saved",
    "error.probe_no_report": "gpu-probe finished without writing a report; nothing was saved",
    "error.report_target_folder": "cannot write {path}: it is a folder",
    "error.report_target_no_folder": "cannot write {path}: no such folder {folder}",
    # saved plans, settings, the user's GPU types
    "error.plan_name_empty": "a saved plan needs a name",
    "error.plan_name_too_long": "a plan name is limited to {limit} characters",
    "error.plan_missing": "there is no saved plan #{plan_id}",
    "error.rate_invalid": "{reasons:clauses}",
    "error.user_gpu_needs_id": "a GPU type needs an id, e.g. 'my-rtx-5090'",
    "error.user_gpu_in_catalog": "{gpu_id} is already in the GPU catalog; choose another id for your GPU type",
    "error.user_gpu_exists": "you already have a GPU type {gpu_id}",
    "error.user_gpu_missing": "there is no user GPU type {gpu_id}",
    "error.user_gpu_unknown_fields": "unknown GPU type fields: {fields}",
    "error.user_gpu_incomplete": "incomplete GPU type: {detail}",
    # the database file: opening it, and the machine it lives on (planner.store.errors.StoreEnvironmentError)
    "error.db_is_folder": "{path} is a folder; give the database file's path",
    "error.db_cannot_create_folder": "cannot create the folder {folder}: {reason}",
    "error.db_unreadable": "cannot read the database {path}: {reason}",
    "error.db_not_sqlite": (
        "{path} is not a GPU Advisor database (it is not an SQLite file); it was left unchanged: check the --db "
        "path or choose another file"
    ),
    "error.db_cannot_use": "cannot use the database {path}: {reason}; choose another file with --db",
    "error.db_cannot_move_aside": (
        "{path} is not a usable database and could not be moved aside ({reason}); choose another database file "
        "(--db PATH on the command line)"
    ),
    "error.db_newer": (
        "{path} was written by a newer GPU Advisor (database version {version}; this one reads up to {latest}); "
        "it was left unchanged: update GPU Advisor or choose another file with --db"
    ),
    "error.db_foreign": (
        "{path} is an SQLite database of another program; it was left unchanged: choose another file with --db"
    ),
    "error.db_disk_full": "cannot write the database {path}: the disk is full ({detail}); free some space and try again",
    "error.db_read_only": (
        "cannot write the database {path}: the file or its folder is read-only ({detail}); choose a writable file "
        "with --db"
    ),
    "error.db_cannot_open": (
        "cannot open the database {path} ({detail}); check that its folder exists and may be written, or choose "
        "another file with --db"
    ),
    "error.db_corrupt": (
        "the database {path} is damaged ({detail}); start GPU Advisor again to move it aside and begin a fresh one"
    ),
    "error.db_locked": "the database {path} is locked by another program ({detail}); try again when it has finished",
    "error.db_busy": (
        "the database {path} is busy: another GPU Advisor window or command has been writing to it for over "
        "{waited_s:.0f} s; try again when it has finished"
    ),
    "error.db_io": "cannot use the database {path}: the system reported an error ({detail})",
    "error.db_bad_version": (
        "{path} says it has database version {version}, which no GPU Advisor writes; it was left unchanged: "
        "restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_table": (
        "{path} lacks the table {table} that database version {version} has (another tool changed it); it was "
        "left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_column": (
        "{path} lacks the column {column} of the table {table} that database version {version} has (another "
        "tool changed it); it was left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_bad_cell": (
        "{path}: the column {column} of row {row} of the table {table} holds {found} where "
        "{expected} belongs (another tool wrote it); the file was left unchanged: correct or delete that row with an SQLite "
        'tool, e.g. sqlite3 {path} "DELETE FROM {table} WHERE rowid = {row}", or choose another file with '
        "--db"
    ),
    "error.db_bad_setting": (
        "{path}: the setting {key} holds a value GPU Advisor cannot read (another tool wrote it); the file was "
        "left unchanged: delete it with an SQLite tool, e.g. sqlite3 {path} \"DELETE FROM settings WHERE key = "
        "'{key}'\", and set it again"
    ),
    "error.db_cannot_upgrade": (
        "cannot upgrade {path} from database version {version} ({detail}): it holds tables of another "
        "version; it was left unchanged: restore it from a backup or choose another file with --db"
    ),
})  # fmt: skip


class _EnglishFormatter(string.Formatter):
    """str.format with the planner's own format specs (see the module docstring)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        special = _SPECIAL_SPECS.get(format_spec)
        if special is not None:
            return special(value)
        if isinstance(value, Message):
            return format(render_en(value), format_spec)
        return str(super().format_field(value, format_spec))


def _layout_words(value: Any) -> str:
    from planner.layout_text import layout_label  # the layout words build on this module

    return render_en(layout_label(value))


# The planner's own format specs (the module docstring), by name.
_SPECIAL_SPECS: dict[str, Callable[[Any], str]] = {
    "bytes": format_bytes,
    "gib2": lambda value: format_bytes(value, unit="GiB", decimals=2),
    "label": _layout_words,
    # what the user typed: 100,000,000 for whole numbers, 1e+40 for others
    "number": lambda value: f"{value:,}" if isinstance(value, int) else f"{value:g}",
    "days": lambda value: f"{value / 86400:.1f}",
    "ms": lambda value: f"{value * 1000:,.0f} ms" if value >= 0.1 else f"{value * 1000:.3g} ms",
    "clauses": lambda value: "; ".join(_english(item) for item in value),
    "list": lambda value: ", ".join(_english(item) for item in value),
    "sentences": lambda value: "".join(" " + _english(item) for item in value),
}

_FORMATTER = _EnglishFormatter()

# A template parsed into (literal text, field name, format spec, conversion) parts: string.Formatter.parse's
# output, which vformat would compute again for every message. None where a field is anything but a plain name
# with a plain spec (vformat then renders it: attribute, index and nested fields need its full machinery).
_Parts = tuple[tuple[str, str | None, str, str | None], ...]
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _parse(template: str) -> _Parts | None:
    # a spec is None only beside no field (string.Formatter.parse): "" there changes nothing
    parts = tuple(
        (literal, name, spec or "", conversion) for literal, name, spec, conversion in _FORMATTER.parse(template)
    )
    plain = all(
        name is None
        or (_PLAIN_NAME.fullmatch(name) is not None and "{" not in spec and conversion in (None, "r", "s"))
        for _, name, spec, conversion in parts
    )
    return parts if plain else None


# Every template parsed once, when the module loads (TEMPLATES is fixed): a table like TEMPLATES itself, not a
# cache of anything a plan computes (about 1 ms at import for the few hundred templates).
_PARTS: Mapping[str, _Parts | None] = MappingProxyType({code: _parse(text) for code, text in TEMPLATES.items()})


def _english(value: object) -> str:
    return render_en(value) if isinstance(value, Message) else str(value)


def render_en(message: Message) -> str:
    """The English text of `message` (the CLI's and JSON's wording).

    What string.Formatter.vformat(template, (), params) writes, from the template's parts parsed once: each
    literal, then each field's value (params[name], as vformat's get_field looks a plain name up; !r and !s as
    its convert_field) through the same format_field.
    """
    parts = _PARTS[message.code]
    params = message.params
    if parts is None:
        return _FORMATTER.vformat(TEMPLATES[message.code], (), dict(params))
    out = []
    format_field = _FORMATTER.format_field
    for literal, name, spec, conversion in parts:
        out.append(literal)
        if name is not None:
            value = params[name]
            if conversion == "r":
                value = repr(value)
            elif conversion == "s":
                value = str(value)
            out.append(format_field(value, spec))
    return "".join(out)


def render_all_en(messages: Iterable[Message]) -> tuple[str, ...]:
    """English texts of a sequence of messages, in order."""
    return tuple(render_en(message) for message in messages)
