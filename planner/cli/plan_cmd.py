"""`gpu-advisor plan ...`: search GPU counts and parallel strategies, rank them, time and price them."""

from __future__ import annotations

import argparse
import importlib
import math
from typing import TYPE_CHECKING, Any

from planner.cli import print_json
from planner.errors import UserError
from planner.gpus import GpuSpec, get_gpu
from planner.memory import MAX_DEGREE, MAX_LORA_RANK, MAX_SEQ_LEN, MemoryConfig, validate_layout
from planner.money import Money, convert, format_money, normalise_currency
from planner.search import (
    DEFAULT_MAX_GPUS,
    OFFLOAD,
    RANK_BY,
    RECOMPUTE,
    TASKS,
    Constraints,
    PlanResult,
    Workload,
    format_bytes,
    plan,
)

if TYPE_CHECKING:
    from planner.store import StoreProtocol

PRECISIONS = ("fp32", "bf16", "fp16", "fp8", "int8", "int4")
# Sequences per optimizer step when --batch is not given: about 4M tokens at 4K context for pre-training
# (Llama 3 70B/405B started at 4M tokens per batch, arXiv 2407.21783 section 3.4); a small fine-tuning batch.
DEFAULT_GLOBAL_BATCH = {"pretrain": 1024, "train": 1024, "finetune": 64, "lora": 64, "qlora": 64}
PROBE_RUNS_FOR_CALIBRATION = 20
# Upper bounds past which a number is a typo, not a plan; they also keep every figure in the JSON finite.
MAX_GPUS = 1_000_000  # the largest training clusters have a few hundred thousand GPUs
MAX_SEQUENCES = 10_000_000  # sequences per optimizer step, or concurrent users
MAX_TOKENS = 1e18  # about 60,000 x the 15.6T tokens Llama 3 was trained on
MAX_TOKENS_PER_SECOND = 1e12
MAX_PRICE_PER_GPU_HOUR = 1e9  # in any currency
MAX_BUDGET = 1e15
MAX_DEADLINE_DAYS = 365_000
MAX_INTER_NODE_GBPS = 1e6


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "plan",
        help="search strategies and GPU counts, rank, time, cost",
        description="Search GPU counts and parallel strategies (dp x tp x pp x ep, ZeRO, recompute, offload), "
        "drop what does not fit, and rank what is left by time or cost.",
    )
    parser.add_argument(
        "--model",
        required=True,
        help="preset id (see `models`), a size such as 7b, a config.json or a model folder",
    )
    parser.add_argument("--task", default="pretrain", choices=TASKS, help="train = pretrain (full training)")
    parser.add_argument("--gpu", required=True, help="GPU id from `gpus` (several: comma-separated)")
    count = parser.add_mutually_exclusive_group()
    count.add_argument("--gpus", type=int, default=None, help="exactly this many GPUs")
    count.add_argument(
        "--max-gpus", type=int, default=None, help=f"at most this many GPUs (default {DEFAULT_MAX_GPUS})"
    )
    parser.add_argument(
        "--seq-len", type=int, default=4096, help="tokens per sequence (serving: prompt + output)"
    )
    parser.add_argument(
        "--batch", type=int, default=None,
        help="training: sequences per optimizer step (default 1024 pretrain, 64 fine-tune); serving: concurrent users",
    )  # fmt: skip
    parser.add_argument("--precision", default="bf16", choices=PRECISIONS)
    parser.add_argument(
        "--kv-precision", default=None, choices=PRECISIONS, help="KV-cache precision (serving)"
    )
    parser.add_argument("--optimizer", default="adamw", choices=("adamw", "adamw8bit", "sgd"))
    parser.add_argument("--lora-rank", type=int, default=16)
    parser.add_argument(
        "--tokens", type=float, default=None, help="training tokens (serving: output tokens to serve)"
    )
    parser.add_argument(
        "--tokens-per-second", type=float, default=None, help="serving target, output tokens/s"
    )
    parser.add_argument("--output-len", type=int, default=256, help="serving: tokens generated per request")
    parser.add_argument(
        "--mfu", type=float, default=None, help="model-FLOPs utilisation to assume (default 0.40)"
    )
    parser.add_argument(
        "--bandwidth-fraction", type=float, default=None, help="decode share of peak bandwidth (default 0.8)"
    )
    parser.add_argument(
        "--price-per-gpu-hour", type=float, default=None, help="price per GPU-hour in --currency"
    )
    parser.add_argument(
        "--price-from-quotes", action="store_true", help="use the lowest stored on-demand quote"
    )
    parser.add_argument("--currency", default="USD", help="currency of prices and costs (USD, EUR, RUB)")
    parser.add_argument("--budget", type=float, default=None, help="most the run may cost, in --currency")
    parser.add_argument("--deadline-days", type=float, default=None, help="longest acceptable wall time")
    parser.add_argument("--gpus-per-node", type=int, default=None, help="override the GPU type's node size")
    parser.add_argument(
        "--inter-node-gbps", type=float, default=None, help="network per GPU in Gbit/s (default 400)"
    )
    parser.add_argument("--spec-only", action="store_true", help="ignore stored probe measurements")
    pin = parser.add_argument_group("pin part of the strategy")
    pin.add_argument("--dp", type=int, default=None)
    pin.add_argument("--tp", type=int, default=None)
    pin.add_argument("--pp", type=int, default=None)
    pin.add_argument("--ep", type=int, default=None)
    pin.add_argument("--zero", type=int, default=None, choices=[0, 1, 2, 3])
    pin.add_argument("--recompute", default=None, choices=RECOMPUTE)
    pin.add_argument("--offload", default=None, choices=OFFLOAD)
    pin.add_argument("--micro-batch", type=int, default=None)
    parser.add_argument("--rank-by", default="time", choices=RANK_BY)
    parser.add_argument("--top", type=int, default=10)
    parser.add_argument(
        "--export", metavar="DIR", default=None, help="write launch configs and a report for the top option"
    )
    parser.add_argument("--json", action="store_true", help="machine-readable output")
    parser.set_defaults(handler=run_plan)


# ------------------------------------------------------------------------------------------------ inputs


def _number(value: float) -> str:
    """1e+40 for floats, 100,000,000 for whole numbers: how an error message quotes what the user typed."""
    return f"{value:,}" if isinstance(value, int) else f"{value:g}"


def _positive(value: float | None, what: str, limit: float) -> None:
    """UserError unless `value` (when given) is a finite number above 0 and at most `limit`."""
    if value is None:
        return
    if not math.isfinite(value):
        raise UserError(f"{what} must be a finite number, got {value}")
    if not value > 0:
        raise UserError(f"{what} must be positive, got {value:g}")
    if value > limit:
        raise UserError(f"{what} {_number(value)} is absurdly large (limit {_number(limit)})")


def workload_from_args(args: argparse.Namespace) -> Workload:
    for value, what, limit in ((args.seq_len, "--seq-len", MAX_SEQ_LEN), (args.batch, "--batch", MAX_SEQUENCES),
                               (args.tokens, "--tokens", MAX_TOKENS),
                               (args.tokens_per_second, "--tokens-per-second", MAX_TOKENS_PER_SECOND),
                               (args.output_len, "--output-len", MAX_SEQ_LEN),
                               (args.lora_rank, "--lora-rank", MAX_LORA_RANK)):  # fmt: skip
        _positive(value, what, limit)
    inference = args.task == "inference"
    return Workload(
        task=args.task,
        seq_len=args.seq_len,
        global_batch=1 if inference else (args.batch or DEFAULT_GLOBAL_BATCH[args.task]),
        tokens=args.tokens,
        tokens_per_second=args.tokens_per_second,
        concurrent_users=args.batch if inference else None,
        precision=args.precision,
        kv_precision=args.kv_precision,
        optimizer=args.optimizer,
        output_len=min(args.output_len, max(1, args.seq_len // 2)) if inference else args.output_len,
        mfu=args.mfu,
        bandwidth_fraction=args.bandwidth_fraction,
        lora_rank=args.lora_rank,
    )


def constraints_from_args(args: argparse.Namespace, currency: str) -> Constraints:
    for value, what, limit in ((args.gpus, "--gpus", MAX_GPUS), (args.max_gpus, "--max-gpus", MAX_GPUS),
                               (args.budget, "--budget", MAX_BUDGET),
                               (args.deadline_days, "--deadline-days", MAX_DEADLINE_DAYS),
                               (args.gpus_per_node, "--gpus-per-node", MAX_GPUS),
                               (args.inter_node_gbps, "--inter-node-gbps", MAX_INTER_NODE_GBPS),
                               (args.top, "--top", math.inf)):  # fmt: skip
        _positive(value, what, limit)
    pinned = {name: getattr(args, name) for name in ("dp", "tp", "pp", "ep", "zero", "recompute", "offload",
                                                      "micro_batch") if getattr(args, name) is not None}  # fmt: skip
    for name in ("dp", "tp", "pp", "ep", "micro_batch"):
        if name in pinned:
            _positive(pinned[name], f"--{name.replace('_', '-')}", MAX_DEGREE)
    return Constraints(
        max_gpus=args.max_gpus or DEFAULT_MAX_GPUS,
        gpus=args.gpus,
        budget=Money(args.budget, currency) if args.budget else None,
        deadline_s=args.deadline_days * 86400 if args.deadline_days else None,
        pinned=pinned,
        gpus_per_node=args.gpus_per_node,
        inter_node_bytes_per_s=args.inter_node_gbps * 1e9 / 8 if args.inter_node_gbps else None,
    )


def check_pinned_layout(model, pinned: dict) -> None:
    """UserError when a pinned tp / pp / ep cannot exist for this model (its heads, layers, experts), whatever
    the GPU count: without this the search found nothing and advised "more GPUs" instead of saying why."""
    tp, pp, ep = (pinned.get(name, 1) for name in ("tp", "pp", "ep"))
    if (tp, pp, ep) != (1, 1, 1):
        dp = pinned.get("dp", ep)  # an unpinned dp can always be a multiple of ep
        validate_layout(model, MemoryConfig(task="inference", seq_len=1, dp=dp, tp=tp, pp=pp, ep=ep))


def _open_store() -> StoreProtocol | None:
    try:
        from planner.cli.store_access import open_store
    except ModuleNotFoundError:
        return None
    return open_store()


def resolve_gpus(text: str, extra: list[GpuSpec]) -> list[GpuSpec]:
    names = [part.strip() for part in text.split(",") if part.strip()]
    if not names:
        raise UserError("--gpu needs a GPU id; see `gpu-advisor gpus`")
    return list({gpu.id: gpu for gpu in (get_gpu(name, extra) for name in names)}.values())


def prices_from_args(
    args, gpus: list[GpuSpec], currency: str, store: StoreProtocol | None
) -> tuple[dict[str, Money], list[str]]:
    """GPU id -> price per GPU-hour in `currency`, and notes saying where each price came from."""
    if args.price_per_gpu_hour is not None:
        if args.price_from_quotes:
            raise UserError("give either --price-per-gpu-hour or --price-from-quotes, not both")
        if not math.isfinite(args.price_per_gpu_hour):
            raise UserError(f"--price-per-gpu-hour must be a finite number, got {args.price_per_gpu_hour}")
        if args.price_per_gpu_hour < 0:
            raise UserError("--price-per-gpu-hour must not be negative")
        if args.price_per_gpu_hour > MAX_PRICE_PER_GPU_HOUR:
            raise UserError(
                f"--price-per-gpu-hour {args.price_per_gpu_hour:g} is absurdly large "
                f"(limit {MAX_PRICE_PER_GPU_HOUR:g})"
            )
        return {gpu.id: Money(args.price_per_gpu_hour, currency) for gpu in gpus}, []
    if not args.price_from_quotes or store is None:
        return {}, []
    rates = store.settings.exchange_rates()
    prices, notes = {}, []
    for gpu in gpus:
        best = None
        for quote in store.rental_quotes.find(gpu=gpu.id, kind="on-demand"):
            if quote.get("price_per_gpu_hour") is None:
                continue
            price = convert(
                Money(quote["price_per_gpu_hour"], quote.get("currency") or "USD"), currency, rates
            )
            if best is None or price.amount < best[0].amount:
                best = (price, quote)
        if best is not None:
            prices[gpu.id] = best[0]
            quote = best[1]
            original = Money(quote["price_per_gpu_hour"], quote.get("currency") or "USD")
            # a quote in another currency keeps its original amount beside the converted one
            shown = f"{format_money(best[0])}/GPU-hour" + (
                f" (quoted {format_money(original)})" if original.currency != currency else ""
            )
            notes.append(
                f"price for {gpu.id}: {shown}, {quote.get('provider')} "
                f"{quote.get('offer') or ''} quoted {quote.get('quoted_on')}".replace("  ", " ")
            )
        else:
            notes.append(f"no stored on-demand quote for {gpu.id}: no cost shown")
    return prices, notes


def calibration_from_store(
    store: StoreProtocol | None, gpus: list[GpuSpec], extra: list[GpuSpec]
) -> dict[str, Any]:
    """GPU id -> measured Calibration from the most recent stored probe runs of that GPU type."""
    if store is None:
        return {}
    from planner.perf import calibration_from_report

    wanted = {gpu.id for gpu in gpus}
    found: dict[str, Any] = {}
    for report in store.probe_runs.recent_reports(PROBE_RUNS_FOR_CALIBRATION):
        for gpu_id, calibration in calibration_from_report(report, extra).items():
            if gpu_id in wanted and gpu_id not in found:  # newest first: the latest measurement wins
                found[gpu_id] = calibration
    return found


# ------------------------------------------------------------------------------------------------ output


def result_json(result: PlanResult, notes: list[str]) -> dict:
    payload = result.as_dict()
    payload["notes"] = notes
    return payload


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    if seconds >= 86400:
        return f"{seconds / 86400:.1f} d"
    if seconds >= 3600:
        return f"{seconds / 3600:.1f} h"
    if seconds >= 1:
        return f"{seconds:.2f} s"
    return f"{seconds * 1000:.1f} ms"


def print_result(result: PlanResult, workload: Workload, notes: list[str]) -> None:
    training = workload.is_training
    step_name = "step" if training else "per token"
    print(f"{'#':>2}  {'GPUs':>5} {'GPU':<14} {'strategy':<58} {'memory/GPU':>11} {step_name:>9} "
          f"{'tokens/s':>11} {'wall':>8} {'GPU-h':>9} {'cost':>12}  confidence")  # fmt: skip
    for rank, option in enumerate(result.options, 1):
        label = (
            option.strategy.label
            if training
            else (
                f"TP {option.strategy.tp}, PP {option.strategy.pp}, {option.strategy.dp} replica(s), "
                f"batch {option.batch_per_replica}"
            )
        )
        cost = format_money(option.cost) if option.cost else "-"
        if option.cost is None and option.cost_per_million_tokens is not None:
            cost = f"{format_money(option.cost_per_million_tokens)}/1M tok"
        hours = f"{option.gpu_hours:,.0f}" if option.gpu_hours is not None else "-"
        print(
            f"{rank:>2}  {option.gpus:>5} {option.gpu.id:<14} {label:<58.58} "
            f"{format_bytes(option.memory.total_bytes):>11} {_duration(option.step_time_s):>9} "
            f"{option.tokens_per_s:>11,.0f} {_duration(option.wall_time_s):>8} {hours:>9} {cost:>12}  "
            f"{option.confidence}"
        )
        if not training:
            print(f"      time to first token {_duration(option.ttft_s)}, up to {option.max_concurrent_sequences} "
                  f"sequences fit per replica")  # fmt: skip
    if not result.options:
        print("No option fits.")
    for item in result.excluded:
        print(f"excluded: {item.family}: {item.reason}")
    for line in result.advice:
        print(f"advice: {line}")
    for line in notes:
        print(f"note: {line}")
    print(f"searched in {result.search_ms:.0f} ms; assumptions: " + "; ".join(result.assumptions[:3]))


# ------------------------------------------------------------------------------------------------ run


def _export(result: PlanResult, directory: str, inputs: dict) -> list:
    try:
        exports = importlib.import_module("planner.exports")
    except ModuleNotFoundError as exc:
        if exc.name != "planner.exports":
            raise
        raise UserError("exports are not available yet in this build") from None
    if not result.options:
        raise UserError("nothing to export: no option fits")
    try:
        return exports.export_plan(result, result.options[0], directory, inputs)
    except OSError as exc:  # a file where the folder should be, no permission, a full disk
        raise UserError(f"cannot write the export to {directory}: {exc.strerror or exc}") from None


def run_plan(args: argparse.Namespace) -> int:
    from planner.models import resolve_model

    currency = normalise_currency(args.currency)
    model = resolve_model(args.model)
    workload = workload_from_args(args)
    constraints = constraints_from_args(args, currency)
    check_pinned_layout(model, constraints.pinned)
    store = _open_store() if (args.price_from_quotes or not args.spec_only) else None
    try:
        extra = store.user_gpus.all() if store else []
        gpus = resolve_gpus(args.gpu, extra)
        prices, notes = prices_from_args(args, gpus, currency, store)
        calibration = {} if args.spec_only else calibration_from_store(store, gpus, extra)
    finally:
        if store is not None:
            store.close()
    result = plan(model, workload, gpus, constraints, prices=prices, calibration=calibration,
                  rank_by=args.rank_by, top=args.top)  # fmt: skip
    if args.export:
        inputs = {"model": model.name, "task": workload.task, "precision": workload.precision,
                  "seq_len": workload.seq_len, "global_batch": workload.global_batch, "tokens": workload.tokens,
                  "tokens_per_second": workload.tokens_per_second, "gpu": args.gpu, "currency": currency,
                  "max_gpus": None if constraints.gpus else constraints.max_gpus, "exact_gpus": constraints.gpus,
                  "budget_amount": constraints.budget.amount if constraints.budget else None,
                  "deadline_days": args.deadline_days, "mfu": workload.mfu,
                  "efficiency": workload.bandwidth_fraction, "model_source": getattr(model, "source", None),
                  "price_source": "; ".join(notes) or None}  # fmt: skip
        inputs = {key: value for key, value in inputs.items() if value is not None}  # unset: planner defaults
        written = _export(result, args.export, inputs)
        notes.append(f"exported {len(written)} files to {args.export}")
    if args.json:
        print_json(result_json(result, notes))
    else:
        print_result(result, workload, notes)
    return 0
