"""`gpu-advisor plan ...`: search GPU counts and parallel strategies, rank them, time and price them.

Its arguments are planner/cli/plan_args.py's (which imports none of this: `plan --help` and a refused argument
load only the parser); this module runs once they are parsed."""

from __future__ import annotations

import argparse
import dataclasses
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from planner.cli import print_json
from planner.cli.plan_args import DEFAULT_OUTPUT_LEN
from planner.cli.plan_output import print_pool, print_result, result_json, spot_note
from planner.errors import UserError
from planner.exports import ExportInputs, export_plan
from planner.files import refuse_overwrite, write_atomically
from planner.gpus import GIB, GpuSpec, get_gpu
from planner.limits import LIMITS
from planner.memory import MemoryConfig, validate_layout
from planner.messages import msg, render_all_en
from planner.models import ModelSpec
from planner.money import Money, normalise_currency
from planner.resolver import (
    ON_DEMAND,
    PlanQuestion,
    ResolvedPlan,
    choice_key,
    newest_run_choices,
    on_demand_prices_of,
    resilience_of,
    resolve,
    spot_comparison_of,
    stated_spot_rate,
    unpriced_notes,
)
from planner.scale import (
    DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR,
    Resilience,
    SpotComparison,
)
from planner.search import (
    DEFAULT_MAX_GPUS,
    Constraints,
    PlanResult,
    Workload,
)
from planner.search.pools import EVERY_WAY, PoolPart, compare_pool
from planner.search.types import MAX_MEMORY_HEADROOM
from planner.vocabulary import Layout, Task

if TYPE_CHECKING:
    from planner.store import StoreProtocol

# Sequences per optimizer step when --batch is not given: about 4M tokens at 4K context for pre-training
# (Llama 3 70B/405B started at 4M tokens per batch, arXiv 2407.21783 section 3.4); a small fine-tuning batch.
DEFAULT_GLOBAL_BATCH = {Task.PRETRAIN: 1024, Task.FINETUNE: 64, Task.LORA: 64, Task.QLORA: 64}


def resilience_from_args(args: argparse.Namespace, quoted_spot_rate: float | None = None) -> Resilience:
    """The goodput inputs from the flags (UserError for a negative, infinite or absurd figure)."""
    failures = args.failures_per_million_gpu_hours
    spot_rate = args.spot_interruptions_per_node_hour
    for value, what, row in ((failures, "--failures-per-million-gpu-hours", "failures_per_million_gpu_hours"),
                             (spot_rate, "--spot-interruptions-per-node-hour", "spot_interruptions_per_node_hour"),
                             (args.restart_minutes, "--restart-minutes", "restart_minutes")):  # fmt: skip
        if value is not None and value == 0:
            continue  # 0 is allowed: no failures, no reclaims, an instant restart
        _positive(value, what, row)
    for value, what, row in ((args.checkpoint_gb_per_s, "--checkpoint-gb-per-s", "checkpoint_gb_per_s"),
                             (args.checkpoint_interval_minutes, "--checkpoint-interval-minutes",
                              "checkpoint_interval_minutes")):  # fmt: skip
        _positive(value, what, row)
    if spot_rate is None and (args.spot or quoted_spot_rate is not None):
        spot_rate = (
            quoted_spot_rate if quoted_spot_rate is not None else DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR
        )
    return resilience_of(
        failures, args.checkpoint_storage, args.checkpoint_gb_per_s, args.restart_minutes,
        args.checkpoint_interval_minutes, spot_rate or 0.0,
    )  # fmt: skip


def wants_spot(args: argparse.Namespace) -> bool:
    return bool(args.spot or args.spot_interruptions_per_node_hour)


# ------------------------------------------------------------------------------------------------ inputs


def _positive(value: float | None, what: str, row: str) -> None:
    """UserError unless `value` (when given) is a finite number above 0 and at most its `row` of the input
    limits (planner/limits.py: the one table; argparse applied it already, this also guards other callers)."""
    limit = LIMITS[row].high
    if value is None:
        return
    if not math.isfinite(value):
        raise UserError.of(msg("error.must_be_finite", what=what, value=value))
    if not value > 0:
        raise UserError.of(msg("error.must_be_positive", what=what, value=value))
    if value > limit:
        raise UserError.of(msg("error.absurdly_large", what=what, value=value, limit=limit))


def workload_from_args(args: argparse.Namespace) -> Workload:
    for row in (
        "seq_len",
        "batch",
        "tokens",
        "tokens_per_second",
        "output_len",
        "prompt_tokens",
        "users",
        "request_rate",
        "ttft_ms",
        "tpot_ms",
        "lora_rank",
    ):
        _positive(getattr(args, row), f"--{row.replace('_', '-')}", row)
    task = Task.parse(args.task)
    inference = task == Task.INFERENCE
    users = args.users if args.users is not None else args.batch
    if args.prompt_tokens is not None:
        args.seq_len = args.prompt_tokens + _output_len(args)
        args.output_len = _output_len(args)
    return Workload(
        task=task,
        seq_len=args.seq_len,
        global_batch=1 if inference else (args.batch or DEFAULT_GLOBAL_BATCH[task]),
        tokens=args.tokens,
        tokens_per_second=args.tokens_per_second,
        concurrent_users=users if inference else None,
        request_rate=args.request_rate if inference else None,
        ttft_target_s=args.ttft_ms / 1000 if args.ttft_ms is not None and inference else None,
        tpot_target_s=args.tpot_ms / 1000 if args.tpot_ms is not None and inference else None,
        precision=args.precision,
        kv_precision=args.kv_precision,
        optimizer=args.optimizer,
        output_len=_output_len(args),
        mfu=args.mfu,
        bandwidth_fraction=args.bandwidth_fraction,
        lora_rank=args.lora_rank,
        engine=args.engine,
        weight_format=args.weight_format,
        runtime=args.runtime if not inference else None,
    )


def _output_len(args: argparse.Namespace) -> int:
    """The user's --output-len as given (the planner refuses one that leaves no prompt); without it, the default
    shortened to half the sequence so that a short --seq-len still leaves a prompt."""
    if args.output_len is not None:
        return int(args.output_len)
    if getattr(args, "prompt_tokens", None) is not None:
        return DEFAULT_OUTPUT_LEN
    return min(DEFAULT_OUTPUT_LEN, max(1, int(args.seq_len) // 2))


def constraints_from_args(args: argparse.Namespace, currency: str) -> Constraints:
    for row in (
        "gpus",
        "max_gpus",
        "budget",
        "deadline_days",
        "gpus_per_node",
        "inter_node_gbps",
        "host_ram_gib",
        "pod_gpus",
        "oversubscription",
        "top",
    ):
        _positive(getattr(args, row), f"--{row.replace('_', '-')}", row)
    pinned = {name: getattr(args, name) for name in Layout.FIELDS if getattr(args, name) is not None}
    for name in ("dp", "tp", "pp", "ep", "micro_batch", "virtual_stages"):
        if name in pinned:
            _positive(pinned[name], f"--{name.replace('_', '-')}", name)
    return Constraints(
        max_gpus=args.max_gpus or DEFAULT_MAX_GPUS,
        gpus=args.gpus,
        budget=Money(args.budget, currency) if args.budget else None,
        deadline_s=args.deadline_days * 86400 if args.deadline_days else None,
        pinned=pinned,
        gpus_per_node=args.gpus_per_node,
        inter_node_bytes_per_s=args.inter_node_gbps * 1e9 / 8 if args.inter_node_gbps else None,
        memory_headroom=_headroom(args.memory_headroom),
        host_ram_bytes=math.floor(args.host_ram_gib * GIB) if args.host_ram_gib else None,
        pod_gpus=args.pod_gpus,
        oversubscription=args.oversubscription or 1.0,
    )


def _headroom(percent: float) -> float:
    """--memory-headroom (percent) as a fraction; UserError outside 0..90%."""
    if not (math.isfinite(percent) and 0 <= percent <= MAX_MEMORY_HEADROOM * 100):
        raise UserError.of(msg("error.headroom_range", headroom=percent / 100, limit=MAX_MEMORY_HEADROOM))
    return percent / 100


def check_pinned_layout(model: ModelSpec, pinned: Mapping[str, int | str]) -> None:
    """UserError when a pinned tp / pp / ep cannot exist for this model (its heads, layers, experts), whatever
    the GPU count: without this the search found nothing and advised "more GPUs" instead of saying why."""
    tp, pp, ep = (int(pinned.get(name, 1)) for name in ("tp", "pp", "ep"))
    if (tp, pp, ep) != (1, 1, 1):
        dp = int(pinned.get("dp", ep))  # an unpinned dp can always be a multiple of ep
        layout = Layout(dp=dp, tp=tp, pp=pp, ep=ep)
        validate_layout(model, MemoryConfig(task=Task.INFERENCE, seq_len=1, layout=layout))


def _open_store() -> StoreProtocol | None:
    try:
        from planner.cli.store_access import open_store
    except ModuleNotFoundError:
        return None
    return open_store()


def resolve_pool(text: str, extra: list[GpuSpec]) -> list[PoolPart]:
    """--pool "a100-sxm-80gb:64,h100-sxm:32" -> the parts (UserError for a missing or bad count)."""
    parts = []
    for item in (piece.strip() for piece in text.split(",")):
        name, _, count = item.rpartition(":")
        if not name or not count.strip().isdigit():
            raise UserError.of(msg("error.must_be_whole", what=f"--pool count of {item!r}", value=count))
        number = int(count)
        if number > (limit := LIMITS["gpus"].high):
            raise UserError.of(msg("error.absurdly_large", what="--pool count", value=number, limit=limit))
        parts.append(PoolPart(get_gpu(name.strip(), extra), number))
    if not any(part.count for part in parts):
        raise UserError.of(msg("error.gpus_positive"))
    return parts


def hardware_from_args(args: argparse.Namespace, store: StoreProtocol | None) -> tuple[str, ...]:
    """--gpu as hardware choices for planner.resolver: GPU ids (or names), "run:ID" and "quote:ID", comma-
    separated; --measured turns each GPU id into the newest stored probe run of that type (when there is one)."""
    if args.pool:
        if args.gpu:
            raise UserError.of(msg("error.unknown_choice", what="hardware flag", text="--gpu with --pool",
                                   choices="--gpu or --pool"))  # fmt: skip
        parts = resolve_pool(args.pool, store.user_gpus.all() if store else [])
        return tuple(dict.fromkeys(part.gpu.id for part in parts))
    names = [part.strip() for part in (args.gpu or "").split(",") if part.strip()]
    if not names:
        raise UserError.of(msg("error.gpu_flag_empty"))
    if not args.measured or store is None:
        return tuple(names)
    extra = store.user_gpus.all()
    catalog_ids = [get_gpu(name, extra).id for name in names if choice_key(name)[0] == "catalog"]
    measured = iter(newest_run_choices(store, catalog_ids, extra))
    return tuple(next(measured) if choice_key(name)[0] == "catalog" else name for name in names)


def _price_per_gpu_hour(args: argparse.Namespace) -> float | None:
    """--price-per-gpu-hour, checked (UserError for both price flags, NaN, a negative or absurd price)."""
    price: float | None = args.price_per_gpu_hour
    if price is None:
        return None
    what = "--price-per-gpu-hour"
    if args.price_from_quotes:
        raise UserError.of(msg("error.price_flags_both"))
    if not math.isfinite(price):
        raise UserError.of(msg("error.must_be_finite", what=what, value=price))
    if price < 0:
        raise UserError.of(msg("error.must_not_be_negative", what=what))
    if price > (limit := LIMITS["price_per_gpu_hour"].high):
        raise UserError.of(msg("error.absurdly_large", what=what, value=price, limit=limit))
    return price


def question_from_args(
    args: argparse.Namespace, workload: Workload, constraints: Constraints, hardware: tuple[str, ...]
) -> PlanQuestion:
    """The command line as planner.resolver's question (the GUI builds the same from its widgets)."""
    return PlanQuestion(
        model=args.model, workload=workload, hardware=hardware, max_gpus=constraints.max_gpus,
        exact_gpus=constraints.gpus, budget_amount=constraints.budget.amount if constraints.budget else None,
        deadline_s=constraints.deadline_s, pinned=constraints.pinned, memory_headroom=constraints.memory_headroom,
        currency=normalise_currency(args.currency), price_per_gpu_hour=_price_per_gpu_hour(args),
        price_from_quotes=args.price_from_quotes, gpus_per_node=constraints.gpus_per_node,
        inter_node_bytes_per_s=constraints.inter_node_bytes_per_s, rank_by=args.rank_by,
        price_kinds=("spot",) if wants_spot(args) else ON_DEMAND, resilience=constraints.resilience,
        host_ram_bytes=constraints.host_ram_bytes, pod_gpus=constraints.pod_gpus,
        oversubscription=constraints.oversubscription,
    )  # fmt: skip


def resolve_args(
    args: argparse.Namespace, workload: Workload, constraints: Constraints
) -> tuple[ResolvedPlan, dict[str, Money]]:
    """planner.resolver.resolve() for the command line; a quote the user asked to price with but whose
    currency has no exchange rate is an error here (the GUI shows it as a note). --spot takes the reclaim rate
    the chosen or stored spot quotes state, and the on-demand prices come back beside the plan to compare with
    (GPU id -> price; empty without --spot)."""
    # the store also holds the user's GPU types, so it is read unless --spec-only says nothing stored matters
    stored_choice = any(choice_key(part)[0] != "catalog" for part in (args.gpu or "").split(","))
    wants_store = args.price_from_quotes or args.measured or stored_choice or not args.spec_only
    store = _open_store() if wants_store else None
    on_demand_prices: dict[str, Money] = {}
    try:
        hardware = hardware_from_args(args, store)
        stated = stated_spot_rate(store, hardware) if wants_spot(args) else None
        constraints = dataclasses.replace(constraints, resilience=resilience_from_args(args, stated))
        question = question_from_args(args, workload, constraints, hardware)
        resolved = resolve(question, store)
        if wants_spot(args) and (args.price_from_quotes or stored_choice):
            on_demand_prices = on_demand_prices_of(question, resolved, store)
    finally:
        if store is not None:
            store.close()
    if resolved.missing_rates and len(resolved.prices) < len(resolved.gpus):
        raise UserError.of(resolved.missing_rates[0])
    return resolved, on_demand_prices


def plan_notes(args: argparse.Namespace, resolved: ResolvedPlan) -> list[str]:
    """Where each price came from, what was left unpriced and what could not be used, in English."""
    notes = list(resolved.price_notes())
    if args.price_from_quotes:
        notes += unpriced_notes(resolved)
    notes += [note for note in resolved.notes if note not in resolved.missing_rates]
    return list(render_all_en(notes))


# ------------------------------------------------------------------------------------------------ run


def refuse_replacing_outputs(args: argparse.Namespace) -> None:
    """--export DIR and --probe-shapes FILE replace no existing file without --force."""
    from planner.exports.common import EXPORT_FILES

    if args.export:
        folder = Path(args.export).expanduser()
        refuse_overwrite((folder / name for name in EXPORT_FILES), force=args.force, folder=folder)
    if args.probe_shapes:
        refuse_overwrite([Path(args.probe_shapes).expanduser()], force=args.force)


def _export(result: PlanResult, directory: str, inputs: ExportInputs) -> list[Path]:
    if not result.options:
        raise UserError.of(msg("error.nothing_to_export"))
    try:
        return export_plan(result, result.options[0], directory, inputs)
    except OSError as exc:  # a file where the folder should be, no permission, a full disk
        raise UserError.of(
            msg("error.cannot_write_export", directory=directory, reason=exc.strerror or str(exc))
        ) from None


def _export_inputs(
    args: argparse.Namespace, model: ModelSpec, workload: Workload, constraints: Constraints, notes: list[str]
) -> ExportInputs:
    """What the report shows of this command line (unset flags are left out: the planner's defaults)."""
    return ExportInputs(
        model=model.name, task=workload.task, precision=workload.precision, seq_len=workload.seq_len,
        global_batch=workload.global_batch, tokens=workload.tokens, tokens_per_second=workload.tokens_per_second,
        gpu=args.gpu, currency=normalise_currency(args.currency),
        max_gpus=None if constraints.gpus else constraints.max_gpus, exact_gpus=constraints.gpus,
        budget_amount=constraints.budget.amount if constraints.budget else None,
        deadline_days=args.deadline_days, mfu=workload.mfu, efficiency=workload.bandwidth_fraction,
        model_source=model.source or None, price_source="; ".join(notes) or None, model_spec=model,
    )  # fmt: skip


def run_plan(args: argparse.Namespace) -> int:
    refuse_replacing_outputs(args)  # before the search: its minutes are not wasted on a refusal
    currency = normalise_currency(args.currency)
    workload = workload_from_args(args)
    constraints = constraints_from_args(args, currency)
    resolved, on_demand_prices = resolve_args(args, workload, constraints)
    model = resolved.model
    check_pinned_layout(model, constraints.pinned)
    notes = plan_notes(args, resolved)
    if args.pool:
        return run_pool(args, resolved, notes)
    result = resolved.run(top=args.top)
    spot = spot_comparison(result, resolved, on_demand_prices) if wants_spot(args) else None
    if spot is not None:
        notes.append(spot_note(spot, currency))
    if args.export:
        written = _export(result, args.export, _export_inputs(args, model, workload, constraints, notes))
        notes.append(f"exported {len(written)} files to {args.export}")
    if args.probe_shapes:
        notes.append(write_probe_shapes(result, model, workload, args.probe_shapes))
    if args.json:
        print_json(result_json(result, notes, spot))
    else:
        print_result(result, workload, notes)
    return 0


def run_pool(args: argparse.Namespace, resolved: ResolvedPlan, notes: list[str]) -> int:
    """--pool: each type alone against the whole pool as one job (--pool-ways: a pipeline over the types and
    separate jobs too)."""
    catalog = {gpu.id: gpu for gpu in resolved.gpus}
    parts = [
        PoolPart(catalog[part.gpu.id], part.count) for part in resolve_pool(args.pool, list(resolved.gpus))
    ]
    ways = pool_ways(args.pool_ways)
    comparison = compare_pool(resolved.model, resolved.workload, parts, resolved.constraints,
                              prices=resolved.prices, calibration=resolved.calibration, ways=ways)  # fmt: skip
    left_out = [way for way in EVERY_WAY if way not in ways]
    if resolved.workload.is_training and left_out:
        notes.append(
            f"--pool-ways leaves out {', '.join(left_out)}; --pool-ways all (the default) weighs every way"
        )
    if args.json:
        print_json({"pool": comparison.as_dict(), "notes": notes})
    else:
        print_pool(comparison, notes, serving=not resolved.workload.is_training)
    return 0


def pool_ways(text: str) -> tuple[str, ...]:
    """--pool-ways "alone,pool,pipeline" or "all" -> the ways compare_pool weighs (UserError for another word)."""
    words = [word.strip() for word in text.split(",") if word.strip()]
    if words == ["all"]:
        return EVERY_WAY
    for word in words:
        if word not in EVERY_WAY:
            raise UserError.of(msg("error.unknown_choice", what="--pool-ways way", text=word,
                                   choices=", ".join((*EVERY_WAY, "all"))))  # fmt: skip
    return tuple(words)


def spot_comparison(
    result: PlanResult, resolved: ResolvedPlan, on_demand_prices: Mapping[str, Money]
) -> SpotComparison | None:
    """Spot against on demand for the top training option, when both prices are known."""
    return spot_comparison_of(result.options[0] if result.options else None, resolved, on_demand_prices)


def write_probe_shapes(result: PlanResult, model: ModelSpec, workload: Workload, path: str) -> str:
    """Write the top option's shapes for `gpu-probe --model-shapes` and say so (a note)."""
    import json

    from planner.gpus import compute_dtype
    from planner.perf import probe_shapes

    if not result.options:
        raise UserError.of(msg("error.nothing_to_export"))
    option = result.options[0]
    layout = option.layout
    if workload.is_training:
        tokens, sequences, seq = layout.micro_batch * workload.seq_len, layout.micro_batch, workload.seq_len
    else:
        tokens, sequences, seq = option.batch_per_replica or 1, 1, workload.prompt_len
    document = probe_shapes(model, layout.tp, tokens, sequences, seq, compute_dtype(option.precision, option.gpu),
                            layout.ep)  # fmt: skip
    write_atomically(path, json.dumps(document, indent=1) + "\n")
    return f"probe shapes of option 1 written to {path}: run gpu-probe --model-shapes {path} on the GPU"
