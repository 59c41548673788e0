"""plan(): search every GPU type's counts and layouts, rank what fits, and say what was left out and why."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
from time import perf_counter

from planner import perf
from planner.errors import UserError
from planner.gpus import GpuSpec, precision_refusal_message
from planner.memory.runtimes import task_refusal
from planner.messages import Message, msg, render_all_en
from planner.models import ModelSpec
from planner.money import Money
from planner.search.common import Found, NeededLayout, SearchInputs, SearchMemory
from planner.search.ranking import constraint_advice, meets, rank_key
from planner.search.serving import DEFAULT_SERVING_BATCH, ServingSearch
from planner.search.serving_targets import options_to_show
from planner.search.tight import with_tight_options
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
    for what, value in (("request rate", workload.request_rate), ("TTFT target", workload.ttft_target_s),
                        ("TPOT target", workload.tpot_target_s)):  # fmt: skip
        if value is not None and not value > 0:
            return msg("error.must_be_positive", what=what, value=value)
    if workload.request_rate is not None and workload.concurrent_users is not None:
        return msg("error.users_or_rate")
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
    if workload.is_training and workload.runtime is not None:
        reason = task_refusal(workload.runtime, workload.task)
        if reason:
            return msg("error.runtime_refuses_task", runtime=str(workload.runtime), task=str(workload.task),
                       reason=reason)  # fmt: skip
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
    options, advice = found.options, list(found.advice)
    met = True
    if not workload.is_training:
        options, met = options_to_show(options)
        if not met:
            closest = options[0] if options else None
            advice.extend(target_advice(
                model, workload, gpu_list, constraints, found, prices or {}, calibration or {}, closest
            ))  # fmt: skip
    frontier = tuple(sorted(options, key=lambda o: (o.gpu.id, o.gpus)))
    within = [o for o in options if meets(o, constraints)]
    if options and not within:
        advice.append(constraint_advice(options))
    if met:
        ranked = sorted(within, key=lambda o: rank_key(o, _serving_rank(ranking, workload)))
    else:
        ranked = within  # closest to the targets first (options_to_show)
    return PlanResult(
        options=tuple(ranked[:top]),
        excluded=tuple(found.excluded),
        search_ms=(perf_counter() - started) * 1000,
        frontier=frontier,
        assumptions=tuple(assumptions),
        rank_by=ranking,
        advice_messages=tuple(
            dict(zip(render_all_en(advice), advice, strict=True)).values()
        ),  # each text once
    )


# Layouts beyond the GPU limit tried, fewest GPUs first, to say what would meet the targets.
NEEDED_TRIED = 3


def target_advice(
    model: ModelSpec, workload: Workload, gpus: list[GpuSpec], constraints: Constraints, found: Found,
    prices: Mapping[str, Money], calibration: Mapping[str, perf.Calibration], closest: PlanOption | None,
) -> list[Message]:  # fmt: skip
    """When no option meets the serving targets: say so, and what would meet them, planned and checked (the
    layout that needs the fewest GPUs beyond the limit, searched again at that count); or that no count
    does, with the closest option's figures."""
    limit = constraints.gpus or constraints.max_gpus
    advice = [msg("advice.serving_targets_closest", limit=limit)]
    for needed in sorted(found.needed, key=lambda n: (n.gpus, n.tp * n.pp))[:NEEDED_TRIED]:
        checked = _plan_needed(model, workload, needed, constraints, prices, calibration)
        if checked is not None:
            latency = checked.latency
            assert latency is not None
            advice.append(msg(
                "advice.serving_targets_need_gpus", gpus=checked.gpus, gpu=checked.gpu.name,
                replicas=checked.layout.dp, tp=checked.layout.tp, pp=checked.layout.pp, ttft_s=latency.ttft_p90_s,
                tpot_s=checked.tpot_s or 0.0, tokens_per_s=checked.tokens_per_s,
            ))  # fmt: skip
            return advice
    if closest is not None and closest.latency is not None:
        advice.append(msg(
            "advice.serving_targets_unreachable", gpu=closest.gpu.name, tp=closest.layout.tp, pp=closest.layout.pp,
            ttft_s=closest.latency.ttft_p90_s, tpot_s=closest.tpot_s or 0.0,
        ))  # fmt: skip
    return advice


def _plan_needed(
    model: ModelSpec, workload: Workload, needed: NeededLayout, constraints: Constraints,
    prices: Mapping[str, Money], calibration: Mapping[str, perf.Calibration],
) -> PlanOption | None:  # fmt: skip
    """The layout searched again with its GPU count as the limit and its tp x pp pinned: its option if it
    meets the targets there."""
    pinned = {**constraints.pinned, "tp": needed.tp, "pp": needed.pp, "ep": needed.ep}
    pinned.pop("dp", None)
    wider = dataclasses.replace(constraints, gpus=None, max_gpus=needed.gpus, pinned=pinned)
    found, _ = _search_each_gpu(model, workload, [needed.gpu], wider, prices, calibration)
    meeting = [option for option in found.options if not option.misses_targets]
    return min(meeting, key=lambda o: o.gpus) if meeting else None


def _serving_rank(ranking: RankBy, workload: Workload) -> RankBy:
    """With latency targets every option shown meets them: the cheapest per token comes first (cost per
    million tokens, else GPU-seconds per token)."""
    if not workload.is_training and workload.has_latency_targets:
        return RankBy.COST
    return ranking


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
        if workload.is_training:
            found = with_tight_options(inputs, TrainingSearch(inputs).run())
        else:
            found = ServingSearch(inputs).run()
        merged.options.extend(found.options)
        merged.excluded.extend(found.excluded)
        merged.advice.extend(found.advice)
        merged.needed.extend(found.needed)
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
                "communication: data-parallel gradients reduced as each option's runtime does (its gradients "
                "line), ZeRO-3 gathers prefetched "
                "behind the neighbouring layer, tensor-parallel collectives exposed; hidden traffic still slows "
                f"compute by {perf.SHIPPED.overlap_interference:.0%} of its time (fitted)"
            )
        else:
            lines.append(
                f"data-parallel communication {workload.comm_overlap:.0%} hidden behind compute (user-set)"
            )
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
