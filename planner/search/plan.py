"""plan(): search every GPU type's counts and layouts, rank what fits, and say what was left out and why."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from time import perf_counter

from planner import perf
from planner.errors import UserError
from planner.gpus import GpuSpec, precision_refusal_message
from planner.messages import Message, msg, render_all_en
from planner.models import ModelSpec
from planner.money import Money
from planner.search.common import Found, SearchInputs, SearchMemory
from planner.search.ranking import constraint_advice, meets, rank_key
from planner.search.serving import DEFAULT_SERVING_BATCH, ServingSearch
from planner.search.training import TrainingSearch
from planner.search.types import MAX_MEMORY_HEADROOM, Constraints, Excluded, PlanOption, PlanResult, Workload
from planner.vocabulary import Layout, Precision, RankBy, Task


def _input_problem(workload: Workload, constraints: Constraints, top: int) -> Message | None:
    """The first thing wrong with the inputs (a planner.messages.Message "error.*"), or None."""
    if workload.seq_len < 1 or workload.global_batch < 1:
        return msg("error.seq_and_batch_positive")
    if workload.tokens is not None and workload.tokens <= 0:
        return msg("error.tokens_positive")
    if workload.tokens_per_second is not None and workload.tokens_per_second <= 0:
        return msg("error.tokens_per_s_positive")
    if workload.concurrent_users is not None and workload.concurrent_users < 1:
        return msg("error.users_positive")
    if not workload.is_training and workload.output_len >= workload.seq_len:
        return msg(
            "error.output_longer_than_sequence", output_len=workload.output_len, seq_len=workload.seq_len
        )
    if constraints.gpus is not None and constraints.gpus < 1:
        return msg("error.gpus_positive")
    if constraints.max_gpus < 1:
        return msg("error.max_gpus_positive")
    if constraints.deadline_s is not None and constraints.deadline_s <= 0:
        return msg("error.deadline_positive")
    if not 0 <= constraints.memory_headroom <= MAX_MEMORY_HEADROOM:
        return msg("error.headroom_range", headroom=constraints.memory_headroom, limit=MAX_MEMORY_HEADROOM)
    unknown = set(constraints.pinned) - set(Layout.FIELDS)
    if unknown:
        return msg("error.cannot_pin", fields=sorted(unknown), choices=", ".join(Layout.FIELDS))
    if top < 1:
        return msg("error.top_positive")
    return None


def plan(
    model: ModelSpec,
    workload: Workload,
    gpus: GpuSpec | Iterable[GpuSpec],
    constraints: Constraints | None = None,
    *,
    prices: Mapping[str, Money] | None = None,
    calibration: Mapping[str, perf.Calibration] | None = None,
    rank_by: RankBy | str = RankBy.TIME,
    top: int = 10,
) -> PlanResult:
    """Search GPU counts and parallel layouts for `model` running `workload` on each GPU type in `gpus`.

    prices: GPU id -> price per GPU-hour (Money); calibration: GPU id -> planner.perf.Calibration (measured
    rates). Returns the `top` options by `rank_by` ("time" | "cost" | "cost_per_token"), the best per GPU count
    as `frontier`, excluded families with reasons, and advice.
    """
    started = perf_counter()
    constraints = constraints or Constraints()
    gpu_list = [gpus] if isinstance(gpus, GpuSpec) else list(gpus)
    if not gpu_list:
        raise UserError.of(msg("error.no_gpu_type"))
    ranking = RankBy.parse(rank_by)
    problem = _input_problem(workload, constraints, top)
    if problem is not None:
        raise UserError.of(problem)
    found, assumptions = _search_each_gpu(
        model, workload, gpu_list, constraints, prices or {}, calibration or {}
    )
    assumptions.extend(_shared_assumptions(workload, constraints))
    options, advice = _meeting_the_target(found.options, workload), list(found.advice)
    frontier = tuple(sorted(options, key=lambda o: (o.gpu.id, o.gpus)))
    within = [o for o in options if meets(o, constraints)]
    if options and not within:
        advice.append(constraint_advice(options))
    ranked = sorted(within, key=lambda o: rank_key(o, ranking))
    by_text = dict(zip(render_all_en(advice), advice, strict=True))  # each text once
    advice_messages = tuple(by_text.values())
    return PlanResult(
        options=tuple(ranked[:top]),
        excluded=tuple(found.excluded),
        search_ms=(perf_counter() - started) * 1000,
        advice=tuple(by_text),  # render_all_en(advice_messages): each of them renders to its key
        frontier=frontier,
        assumptions=tuple(assumptions),
        rank_by=ranking,
        advice_messages=advice_messages,
    )


def _meeting_the_target(options: list[PlanOption], workload: Workload) -> list[PlanOption]:
    """Serving: the options that reach the tokens/s target, when any does; else every option (each says it
    misses the target: the stated users cannot read that fast on any layout within the GPU limit)."""
    target = workload.tokens_per_second
    if workload.is_training or not target:
        return options
    meeting = [option for option in options if option.tokens_per_s >= target * (1 - 1e-9)]
    return meeting or options


def _search_each_gpu(
    model: ModelSpec,
    workload: Workload,
    gpus: list[GpuSpec],
    constraints: Constraints,
    prices: Mapping[str, Money],
    calibration: Mapping[str, perf.Calibration],
) -> tuple[Found, list[str]]:
    """Every GPU type's search, merged, and the rate assumptions they rest on (each line once)."""
    numbers = perf.model_numbers(model, workload.lora_rank)
    memory = SearchMemory(model, workload)
    merged = Found()
    assumptions: list[str] = []
    for gpu in gpus:
        refusal = precision_refusal(gpu, workload)
        if refusal is not None:
            family = msg("excluded.family.precision_on_gpu", precision=workload.precision, gpu_id=gpu.id)
            merged.excluded.append(Excluded.of(family, refusal))
            continue
        rates = perf.device_rates(
            gpu,
            workload.precision,
            mfu=workload.mfu,
            bandwidth_fraction=workload.bandwidth_fraction,
            calibration=calibration.get(gpu.id),
        )
        assumptions.extend(line for line in rates.assumptions if line not in assumptions)
        inputs = SearchInputs(model, workload, gpu, constraints, memory, numbers, rates, prices.get(gpu.id))
        found = (TrainingSearch if workload.is_training else ServingSearch)(inputs).run()
        merged.options.extend(found.options)
        merged.excluded.extend(found.excluded)
        merged.advice.extend(found.advice)
    return merged, assumptions


def precision_refusal(gpu: GpuSpec, workload: Workload) -> Message | None:
    """Why `gpu` cannot run the workload's precision (QLoRA computes in bf16 whatever the base is stored in)."""
    precision: str = workload.precision
    if workload.task == Task.QLORA and workload.precision.is_weight_only:
        precision = Precision.BF16
    return precision_refusal_message(gpu, precision)


def _shared_assumptions(workload: Workload, constraints: Constraints) -> list[str]:
    lines = []
    if workload.is_training:
        if workload.comm_overlap is None:
            lines.append(
                "communication: data-parallel gradients bucketed behind the backward, ZeRO-3 gathers prefetched "
                "behind the neighbouring layer, tensor-parallel collectives exposed; hidden traffic still slows "
                f"compute by {perf.SHIPPED.overlap_interference:.0%} of its time (fitted)"
            )
        else:
            lines.append(f"data-parallel communication {workload.comm_overlap:.0%} hidden behind compute (user-set)")
        lines.append(
            "step time from operators: GEMMs at their shapes at MAMF x a fitted framework share, flash attention, "
            "memory-bound ops at the copy bandwidth, recompute, the loss and the optimizer step (planner.perf)"
        )
        lines.append("ranks ordered tensor, data, pipeline: tensor parallel stays inside an NVLink domain")
        lines.append(
            "pipeline parallel only with ZeRO stage 0 or 1 (DeepSpeed's pipeline engine refuses ZeRO-2/3; "
            "Megatron-LM's distributed optimizer is ZeRO-1)"
        )
    else:
        engine = perf.engine_profile(workload.engine)
        lines.append(
            f"serving engine {engine.name}: {'continuous batching with chunked prefill' if engine.continuous_batching else 'static batches'}"
            f", at most {engine.max_batch} sequences per step; each step reads the weights once and every running "
            "sequence's KV cache, and prefills arriving prompts"
        )
        lines.append(
            "serving batch: the stated concurrent users, else up to "
            f"{DEFAULT_SERVING_BATCH} sequences per replica that fit"
        )
    lines.append(
        perf.INTER_NODE_SOURCE
        if constraints.inter_node_bytes_per_s is None
        else f"inter-node {constraints.inter_node_bytes_per_s / 1e9:g} GB/s per GPU (user-set)"
    )
    lines.append(perf.offload_assumption())
    lines.append(
        f"an option fits when it needs at most {1 - constraints.memory_headroom:.0%} of each GPU's memory "
        f"({constraints.memory_headroom:.0%} headroom for the CUDA context, allocator and NCCL buffers)"
    )
    return lines
