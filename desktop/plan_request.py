"""From the Plan page's inputs to one planner.search.plan() call, and the hardware sources the page offers.

No widgets (QtCore only, for translated price texts). build_plan_call() runs on the GUI thread (it reads the store: quotes, probe runs; SQLite has
one owner per process) and returns a frozen PlanCall; run_plan_call() is the pure, thread-safe part a background
job may run. Prices are converted into the display currency here, with the original kept in the notes; a
missing exchange rate drops that quote and says so, it is never assumed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop import fmt
from desktop.messages import render_error
from desktop.plan_state import PlanInputs

# The GUI asks for more than the table shows so the scaling chart has every GPU count per family.
TABLE_ROWS = 12
SEARCH_TOP = 400


@dataclass(frozen=True)
class HardwareSource:
    """One checkable hardware row. key: "catalog:<id>" | "run:<id>" | "quote:<id>"; group: local|imported|..."""

    key: str
    group: str
    label: str
    tooltip: str
    gpu_id: str | None


@dataclass(frozen=True)
class PlanCall:
    """Everything plan() needs, already resolved: model, workload, GPU types, constraints, prices, calibration."""

    model: Any
    workload: Any
    gpus: tuple
    constraints: Any
    prices: Mapping[str, Any]
    calibration: Mapping[str, Any]
    rank_by: str
    currency: str
    notes: tuple[str, ...] = ()
    price_sources: Mapping[str, str] = field(default_factory=dict)  # gpu id -> "RunPod on-demand, 2026-09-01"


@lru_cache(maxsize=32)
def resolve_model_cached(text: str) -> Any:
    """planner.models.resolve_model, cached: a model folder is read once, not on every slider step."""
    from planner.models import resolve_model

    return resolve_model(text)


def _quotes(store: Any) -> list[dict]:
    try:
        return list(store.list_rental_quotes())
    except Exception:
        return []


def _runs(store: Any) -> list[dict]:
    try:
        return list(store.list_probe_runs())
    except Exception:
        return []


def _run_device_names(run: Mapping[str, Any]) -> list[str]:
    names = run.get("device_names") or run.get("devices") or []
    if isinstance(names, str):
        import json

        try:
            names = json.loads(names)
        except ValueError:
            names = [names]
    return [str(n) for n in names if n]


# Translated by the ``tr`` the Plan page passes in (PlanPage.tr), hence that context.
_RUN_LABEL = QT_TRANSLATE_NOOP("PlanPage", "run")
_MEASURED_TOOLTIP = QT_TRANSLATE_NOOP(
    "PlanPage", "Measured by a probe run; the plan uses its matmul and bandwidth figures."
)


def hardware_sources(
    catalog: Mapping[str, Any], store: Any, tr=lambda s: s
) -> dict[str, list[HardwareSource]]:
    """Rows for the Hardware panel, grouped: local and imported probe runs, catalog GPUs, quoted offers."""
    from planner.gpus import match_nvml_name

    groups: dict[str, list[HardwareSource]] = {"local": [], "imported": [], "catalog": [], "quote": []}
    extra = tuple(gpu for gpu in catalog.values() if getattr(gpu, "user_defined", False))
    for run in _runs(store):
        gpu_ids = []
        for name in _run_device_names(run):
            gpu = match_nvml_name(name, extra)
            if gpu is not None and gpu.id not in gpu_ids:
                gpu_ids.append(gpu.id)
        if not gpu_ids:
            continue  # a CPU-only run (or an unknown GPU) says nothing the planner can use
        group = "local" if run.get("source") == "local" else "imported"
        where = run.get("label") or run.get("machine") or run.get("hostname") or tr(_RUN_LABEL)
        label = f"{catalog[gpu_ids[0]].name} — {where} ({str(run.get('created_at', ''))[:10]})"
        tooltip = tr(_MEASURED_TOOLTIP)
        groups[group].append(HardwareSource(f"run:{run.get('id')}", group, label, tooltip, gpu_ids[0]))
    for gpu in sorted(catalog.values(), key=lambda g: (-g.memory_bytes, g.name)):
        tooltip = ", ".join(f"{k}: {v}" for k, v in list((gpu.sources or {}).items())[:2])
        groups["catalog"].append(
            HardwareSource(
                f"catalog:{gpu.id}",
                "catalog",
                f"{gpu.name} · {fmt.gib(gpu.memory_bytes, 0)}",
                tooltip,
                gpu.id,
            )
        )
    for quote in sorted(
        _quotes(store), key=lambda q: (str(q.get("gpu")), float(q.get("price_per_gpu_hour") or 0))
    ):
        gpu = catalog.get(str(quote.get("gpu")))
        if gpu is None:
            continue
        price = fmt.money(float(quote.get("price_per_gpu_hour") or 0), str(quote.get("currency") or "USD"))
        label = _text("offer").format(quote.get("provider"), gpu.name, price, _kind_name(quote.get("kind")))
        tooltip = f"{quote.get('offer') or ''} {quote.get('region') or ''} {quote.get('quoted_on') or ''} {quote.get('source') or ''}"
        groups["quote"].append(
            HardwareSource(f"quote:{quote.get('id')}", "quote", label, tooltip.strip(), gpu.id)
        )
    return groups


def _convert(amount: float, currency: str, display_currency: str, rates: Any):
    from planner.money import Money, convert

    money = Money(float(amount), currency)
    if money.currency == display_currency:
        return money
    return convert(money, display_currency, rates)


# Price descriptions shown on the pages (translated there through QCoreApplication.translate("PlanRequest")).
PRICE_TEXTS = {
    "mine_one": QT_TRANSLATE_NOOP("PlanRequest", "your quote: {0}/GPU-h"),
    "reference_one": QT_TRANSLATE_NOOP("PlanRequest", "reference quote: {0}/GPU-h"),
    "mine_median": QT_TRANSLATE_NOOP("PlanRequest", "median of {0} of your quotes ({1} to {2}/GPU-h)"),
    "reference_median": QT_TRANSLATE_NOOP("PlanRequest", "median of {0} reference quotes ({1} to {2}/GPU-h)"),
    "quote": QT_TRANSLATE_NOOP("PlanRequest", "{0}, {1}: {2}/GPU-h, quoted {3}"),
    "offer": QT_TRANSLATE_NOOP("PlanRequest", "{0} · {1} · {2}/GPU-h · {3}"),
}


def _kind_name(kind: Any) -> str:
    """The translated name of a quote kind ("on-demand" -> "по требованию"), as the quotes table shows it."""
    from desktop.qmodels.quotes import KIND_NAMES

    text = str(kind or "")
    return QCoreApplication.translate("QuoteTableModel", KIND_NAMES[text]) if text in KIND_NAMES else text


def _text(key: str) -> str:
    return QCoreApplication.translate("PlanRequest", PRICE_TEXTS[key])


def typical_price(
    quotes: list[dict],
    gpu_id: str,
    kinds: tuple[str, ...],
    display_currency: str,
    rates: Any,
    notes: list[str],
) -> tuple[Any, str] | None:
    """(Money per GPU-hour in the display currency, where it came from) for one GPU type, or None.

    The median of the matching quotes: the user's own quotes when there are any, else the shipped reference
    points. The median, not the minimum: reference rows include market lows ("from $1.30") nobody can rely on.
    Quotes whose currency has no exchange rate are left out and named in `notes`.
    """
    from planner.errors import UserError

    rows = [q for q in quotes if str(q.get("gpu")) == gpu_id and str(q.get("kind", "")) in kinds]
    mine = [q for q in rows if q.get("origin") == "user"]
    from planner.money import Money

    pairs = []  # (price in the display currency, price as quoted)
    for quote in mine or rows:
        try:
            converted = _convert(quote["price_per_gpu_hour"], quote["currency"], display_currency, rates)
            pairs.append((converted, Money(float(quote["price_per_gpu_hour"]), quote["currency"])))
        except (UserError, KeyError, ValueError) as exc:
            notes.append(render_error(exc))
    if not pairs:
        return None
    pairs.sort(key=lambda pair: pair[0].amount)
    prices = [converted for converted, _original in pairs]
    middle = len(prices) // 2
    median = prices[middle] if len(prices) % 2 else (prices[middle - 1] + prices[middle]) * 0.5
    whose = "mine" if mine else "reference"
    # A quote in another currency shows its original amount beside the converted one (never only the conversion).
    lowest, highest = fmt.money_with_original(*pairs[0]), fmt.money_with_original(*pairs[-1])
    if len(prices) == 1:
        return median, _text(f"{whose}_one").format(lowest)
    return median, _text(f"{whose}_median").format(len(prices), lowest, highest)


def _quote_text(quote: Mapping[str, Any], converted: Any = None) -> str:
    """The chosen quote, its price in the display currency (``converted``) with the quoted original beside it."""
    from planner.money import Money

    original = Money(float(quote.get("price_per_gpu_hour") or 0), str(quote.get("currency") or "USD"))
    return _text("quote").format(
        quote.get("provider"),
        _kind_name(quote.get("kind")),
        fmt.money_with_original(converted or original, original),
        fmt.date(quote.get("quoted_on")),
    )


OFFER_SEPARATOR = "@"  # "h100-sxm@quote:12": one ticked offer of a GPU type planned as a choice of its own


def base_gpu_id(gpu_id: str) -> str:
    """The catalog GPU id behind a planned choice ("h100-sxm@quote:12" -> "h100-sxm")."""
    return str(gpu_id).split(OFFER_SEPARATOR, 1)[0]


def offer_spec(gpu: Any, quote: Mapping[str, Any]) -> Any:
    """The GPU type as one provider's offer: same figures, its own id and name, so two ticked offers of one GPU
    type are ranked side by side (each priced at its own quote) instead of the cheaper hiding the other."""
    import dataclasses

    return dataclasses.replace(
        gpu,
        id=f"{gpu.id}{OFFER_SEPARATOR}quote:{quote.get('id')}",
        name=f"{gpu.name} · {quote.get('provider')}",
    )


def build_plan_call(
    inputs: PlanInputs, catalog: Mapping[str, Any], store: Any, display_currency: str, rates: Any
) -> PlanCall:
    """Resolve the inputs into a PlanCall; UserError (one line for the user) when they cannot be planned."""
    from planner.errors import UserError
    from planner.money import Money
    from planner.perf import calibration_from_report
    from planner.search import Constraints, Workload

    notes: list[str] = []
    model = resolve_model_cached(inputs.model_text)
    gpus: dict[str, Any] = {}
    calibration: dict[str, Any] = {}
    chosen_prices: dict[str, tuple] = {}
    quotes = _quotes(store)
    quotes_by_id = {str(q.get("id")): q for q in quotes}
    extra = tuple(gpu for gpu in catalog.values() if getattr(gpu, "user_defined", False))
    ticked = [
        quotes_by_id[k[6:]] for k in inputs.hardware if k.startswith("quote:") and k[6:] in quotes_by_id
    ]
    offers_per_gpu = {gpu_id: sum(str(q.get("gpu")) == gpu_id for q in ticked) for gpu_id in catalog}
    for key in inputs.hardware:
        kind, _, ident = key.partition(":")
        if kind == "catalog" and ident in catalog:
            gpus[ident] = catalog[ident]
        elif kind == "run":
            try:
                report = store.get_probe_report(int(ident))
            except Exception:
                notes.append(
                    QCoreApplication.translate(
                        "PlanRequest", "probe run {0} is no longer in the database"
                    ).format(ident)
                )
                continue
            for gpu_id, calib in calibration_from_report(report, extra).items():
                if gpu_id in catalog:
                    gpus[gpu_id] = catalog[gpu_id]
                    calibration[gpu_id] = calib
        elif kind == "quote" and ident in quotes_by_id:
            quote = quotes_by_id[ident]
            gpu_id = str(quote.get("gpu"))
            if gpu_id not in catalog:
                continue
            spec = catalog[gpu_id] if offers_per_gpu[gpu_id] < 2 else offer_spec(catalog[gpu_id], quote)
            gpu_id = spec.id
            gpus[gpu_id] = spec
            try:
                price = _convert(quote["price_per_gpu_hour"], quote["currency"], display_currency, rates)
            except UserError as exc:
                notes.append(render_error(exc))
                continue
            if gpu_id not in chosen_prices or price.amount < chosen_prices[gpu_id][0].amount:
                chosen_prices[gpu_id] = (price, _quote_text(quote, price))
    if not gpus:
        raise UserError(
            QCoreApplication.translate("PlanRequest", "choose at least one GPU type under Hardware")
        )
    for gpu_id in gpus:  # a measured run of the GPU type calibrates each of its offers too
        if base_gpu_id(gpu_id) in calibration:
            calibration.setdefault(gpu_id, calibration[base_gpu_id(gpu_id)])
    prices, price_sources = {}, {}
    for gpu_id in gpus:
        picked = chosen_prices.get(gpu_id) or typical_price(
            quotes, base_gpu_id(gpu_id), ("on-demand",), display_currency, rates, notes
        )
        if picked:
            prices[gpu_id], price_sources[gpu_id] = picked
    training = inputs.is_training
    workload = Workload(
        task=inputs.task,
        seq_len=int(inputs.seq_len),
        global_batch=int(inputs.global_batch),
        tokens=inputs.training_tokens if training else None,
        tokens_per_second=None if training else float(inputs.tokens_per_second),
        concurrent_users=None if training else int(inputs.concurrent_users),
        precision=inputs.precision,
        mfu=inputs.mfu,
        bandwidth_fraction=inputs.efficiency,
        dataset_tokens=float(inputs.dataset_tokens) if training and inputs.tokens_mode == "dataset" else None,
    )
    constraints = Constraints(
        max_gpus=int(inputs.max_gpus),
        gpus=inputs.exact_gpus,
        budget=Money(inputs.budget_amount, display_currency) if inputs.budget_amount else None,
        deadline_s=inputs.deadline_days * 86400.0 if inputs.deadline_days else None,
    )
    return PlanCall(
        model=model,
        workload=workload,
        gpus=tuple(gpus.values()),
        constraints=constraints,
        prices=prices,
        calibration=calibration,
        rank_by=inputs.rank_by,
        currency=display_currency,
        notes=tuple(dict.fromkeys(notes)),
        price_sources=price_sources,
    )


def run_plan_call(call: PlanCall) -> Any:
    """planner.search.plan() for the call (pure; safe on a pool thread)."""
    from planner.search import plan

    return plan(
        call.model,
        call.workload,
        call.gpus,
        call.constraints,
        prices=call.prices,
        calibration=call.calibration,
        rank_by=call.rank_by,
        top=SEARCH_TOP,
    )


def table_options(result: Any) -> tuple:
    """The rows the table shows: the planner's ranking, fitting options first, at most TABLE_ROWS."""
    options = tuple(getattr(result, "options", ()) or ())
    return options[:TABLE_ROWS]


def family_of(option: Any) -> str:
    """Scaling-chart series name: the strategy family plus model-parallel axes ("ZeRO-3/FSDP + TP")."""
    strategy = option.strategy
    family = getattr(strategy, "family", None) or f"ZeRO-{strategy.zero}"
    axes = [name for name, value in (("TP", strategy.tp), ("PP", strategy.pp)) if value > 1]
    return " + ".join([family, *axes]) if axes else family


def scaling_series(
    result: Any, gpu_id: str | None, training: bool
) -> dict[str, list[tuple[int, float, float | None]]]:
    """family -> [(GPU count, time s, cost amount)]: the fastest fitting option per (family, count) for one GPU type.

    Time is the whole run for training and seconds per output token for serving.
    """
    best: dict[tuple[str, int], Any] = {}
    pool = list(getattr(result, "options", ()) or ()) + list(getattr(result, "frontier", ()) or ())
    for option in pool:
        if not option.fits or (gpu_id and option.gpu.id != gpu_id):
            continue
        time_s = option.wall_time_s if training else option.step_time_s
        if not time_s:
            continue
        key = (family_of(option), option.gpus)
        current = best.get(key)
        current_time = None if current is None else (current.wall_time_s if training else current.step_time_s)
        if current is None or time_s < current_time:
            best[key] = option
    series: dict[str, list[tuple[int, float, float | None]]] = {}
    for (family, count), option in sorted(best.items(), key=lambda item: item[0][1]):
        time_s = option.wall_time_s if training else option.step_time_s
        cost = (
            option.cost.amount
            if (training and option.cost is not None)
            else (
                option.cost_per_million_tokens.amount if option.cost_per_million_tokens is not None else None
            )
        )
        series.setdefault(family, []).append((count, float(time_s), cost))
    return series


ZERO_FAMILIES = {0: "DDP", 1: "ZeRO-1", 2: "ZeRO-2", 3: "ZeRO-3/FSDP"}
SERVING_FAMILY = "TP × PP"  # serving: one line, the best tensor/pipeline layout at each GPU count


def family_series(
    call: PlanCall, gpu_id: str, progress=None
) -> dict[str, list[tuple[int, float, float | None]]]:
    """Per ZeRO stage, the best layout at each GPU count for one GPU type: (GPU count, run time s, cost).

    plan() keeps only the best option per GPU count, so each stage is searched on its own (ZeRO pinned) over
    every count up to the limit (an exact count or budget would leave one point per line: both are lifted
    here; the table still honours them). Pure; runs on a pool thread. Serving has no ZeRO stages: its curve
    is the best layout per count (TP/PP), taken from one search.
    """
    import dataclasses

    from planner.errors import UserError
    from planner.search import plan

    gpu = next((g for g in call.gpus if g.id == gpu_id), None)
    if gpu is None:
        return {}
    limit = max(call.constraints.max_gpus, call.constraints.gpus or 0)
    base = dataclasses.replace(call.constraints, gpus=None, max_gpus=limit, budget=None, deadline_s=None)
    training = call.workload.is_training
    stages = list(ZERO_FAMILIES.items()) if training else [(None, "")]
    series: dict[str, list[tuple[int, float, float | None]]] = {}
    for done, (zero, name) in enumerate(stages):
        if progress is not None:
            progress(done / len(stages), name)  # raises desktop.workers.Cancelled once the job is cancelled
        constraints = (
            base if zero is None else dataclasses.replace(base, pinned={**base.pinned, "zero": zero})
        )
        try:
            result = plan(call.model, call.workload, [gpu], constraints, prices=call.prices,
                          calibration=call.calibration, rank_by=call.rank_by, top=1)  # fmt: skip
        except UserError:
            continue  # this stage cannot run the model on this GPU at any count: it is in "excluded"
        points = scaling_series(result, gpu_id, training)
        merged = sorted({p[0]: p for line in points.values() for p in line}.values())
        if merged:
            series[name or SERVING_FAMILY] = merged
    return series


def family_name(option: Any, training: bool) -> str:
    """The family_series line an option belongs to (ZeRO stage for training, TP/PP layout for serving)."""
    if training:
        return ZERO_FAMILIES.get(option.strategy.zero, family_of(option))
    return SERVING_FAMILY
