"""From the Plan page's inputs to one planner.search.plan() call, and the hardware sources the page offers.

No widgets (QtCore only, for translated texts). The inputs become a planner.resolver.PlanQuestion
(question_of) and planner.resolver.resolve() turns that into the call, the same function the command line's
`plan` uses, so the GUI and the CLI give the same options and prices for the same inputs (the price rule is
in planner/resolver.py). build_plan_call() reads the store (the ticked quotes and runs, price summaries; the
Store serialises its callers, so a pool thread may do this too); run_plan_call() is the pure part;
build_and_run() does both, on the GUI thread while that is quick and in a background job otherwise.

Nothing here lists every stored quote: the typical price of a GPU type comes from the store's SQL summaries
(planner.resolver.PriceBook, cached until the database changes) and the Hardware list offers a bounded set of
quotes (store.rental_quotes.cheapest_offers), so both cost milliseconds with 100,000 quotes stored.

Nothing here is worded for one language either: notes, price sources and errors stay planner Messages or Text
(a translatable source plus raw values) until the view renders them (render_note), so a language switch
re-renders the page without planning again.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop import fmt
from desktop.messages import render
from desktop.plan_state import PlanInputs
from desktop.quote_kinds import kind_name
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.layout_text import family_message
from planner.messages import Message
from planner.models import ModelSpec
from planner.money import ExchangeRates, Money
from planner.resolver import (
    ON_DEMAND,
    ModelInputError,
    PlanQuestion,
    PriceBook,
    ResolvedPlan,
    base_gpu_id,
    offer_spec,
    on_demand_prices_of,
    quotes_by_id,
    resilience_of,
    resolve,
    spot_reclaim_rate,
    stated_spot_rate,
    typical_price,
)
from planner.search import PlanOption, PlanResult, Workload
from planner.search.pools import EVERY_WAY, PoolComparison, PoolPart, compare_pool
from planner.vocabulary import Runtime, ZeroStage

if TYPE_CHECKING:
    from planner.store import ProbeRun, RentalQuoteRow, StoreProtocol

# The GUI asks for more than the table shows (TABLE_ROWS) so the scaling chart has every GPU count per family.
SEARCH_TOP = 400
# The Hardware list shows every reference quote and this many of the user's cheapest quotes per GPU type, kind
# and currency (the Quotes page lists them all); offers the plan already uses are always listed too.
OFFERS_PER_GROUP = 3

# What the page plans with: planner.resolver's call (model, workload, GPU types, limits, prices, calibration,
# and the Messages saying where prices came from).
PlanCall = ResolvedPlan

__all__ = ["PriceBook", "base_gpu_id", "offer_spec", "typical_price"]  # planner.resolver's, used by the pages


@dataclass(frozen=True, slots=True)
class Text:
    """A desktop sentence kept as its translatable source (context, source) and raw values, rendered in the
    interface language when shown: values may be Text, planner Messages or plain values."""

    context: str
    source: str
    values: tuple[object, ...] = ()

    def render(self) -> str:
        return QCoreApplication.translate(self.context, self.source).format(
            *(_rendered(v) for v in self.values)
        )


# What PlanCall and the pages keep to say: a planner message, a desktop Text, or words that need no translation.
Note = Message | Text | str


def render_note(note: object) -> str:
    """A note, price source or error in the interface language."""
    return _rendered(note)


def _rendered(value: object) -> str:
    if isinstance(value, Text):
        return value.render()
    if isinstance(value, Message):
        return render(value)
    return str(value)


def error_note(exc: BaseException) -> Note:
    """What to say about an error: its planner Message or desktop Text when it carries one, else its words."""
    text = getattr(exc, "text", None)
    if isinstance(text, Text):
        return text
    message = getattr(exc, "message", None)
    return message if isinstance(message, Message) else str(exc)


@dataclass(frozen=True)
class HardwareSource:
    """One checkable hardware row. key: "catalog:<id>" | "run:<id>" | "quote:<id>"; group: local|imported|..."""

    key: str
    group: str
    label: str
    tooltip: str
    gpu_id: str | None


@lru_cache(maxsize=32)
def resolve_model_cached(text: str) -> ModelSpec:
    """planner.models.resolve_model, cached: a model folder is read once, not on every slider step."""
    from planner.models import resolve_model

    return resolve_model(text)


def _runs(store: StoreProtocol) -> list[ProbeRun]:
    try:
        return list(store.probe_runs.all())
    except UserError:  # a database that cannot answer lists no runs; the rest of the page still works
        return []


# Translated by the ``tr`` the Plan page passes in (PlanPage.tr), hence that context.
_RUN_LABEL = QT_TRANSLATE_NOOP("PlanPage", "run")
_MEASURED_TOOLTIP = QT_TRANSLATE_NOOP(
    "PlanPage", "Measured by a probe run; the plan uses its matmul and bandwidth figures."
)


def _same(text: str) -> str:
    return text


def _measured_a_gpu(store: StoreProtocol, run: ProbeRun) -> bool:
    """The run measured something of a GPU that the planner uses (a matmul or the memory bandwidth): a run whose
    GPU measurements all failed, or that measured the CPU only, is no measured machine to plan on."""
    try:
        measurements = store.probe_runs.measurements(run.id)
    except UserError:  # cannot tell: trust the run's own key figures
        return bool(run.best_bf16_flop_per_s) or bool(run.memory_bandwidth_bytes_per_s)
    return any(
        m.device.startswith("cuda") and m.ok and m.value and m.kind in ("matmul", "memory_bandwidth")
        for m in measurements
    )


def hardware_sources(
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    tr: Callable[[str], str] = _same,
    keep: tuple[str, ...] = (),
) -> dict[str, list[HardwareSource]]:
    """Rows for the Hardware panel, grouped: local and imported probe runs, catalog GPUs, quoted offers.

    A run is listed as a measured machine only when it measured one of its GPUs (a CPU-only run, or one whose
    GPU measurements all failed, says nothing the planner can use). Offers are a bounded list
    (OFFERS_PER_GROUP, store.rental_quotes.cheapest_offers) plus any "quote:<id>" key in `keep` (the ticked
    ones), so a saved plan's offer stays visible and ticked however dear it is.
    """
    from planner.gpus import match_nvml_name

    groups: dict[str, list[HardwareSource]] = {"local": [], "imported": [], "catalog": [], "quote": []}
    extra = tuple(gpu for gpu in catalog.values() if gpu.user_defined)
    for run in _runs(store):
        counts: dict[str, int] = {}
        for name in run.devices:
            gpu = match_nvml_name(name, extra)
            if gpu is not None and gpu.id in catalog:
                counts[gpu.id] = counts.get(gpu.id, 0) + 1
        if not counts or not _measured_a_gpu(store, run):
            continue
        group = "local" if run.source == "local" else "imported"
        where = run.label or run.machine or run.hostname or tr(str(_RUN_LABEL))
        gpu_id, count = next(iter(counts.items()))
        name, when = catalog[gpu_id].name, f"{where} ({fmt.date(run.created_at)})"
        # the GPUs over the machine and the date: on one line the inputs column cut the machine and the date off
        # (the vendor word, on every row, is left out; the tooltip has it whole)
        label = f"{count} × {name.removeprefix('NVIDIA ')}\n{when}"
        tooltip = f"{count} × {name} — {when}\n{tr(str(_MEASURED_TOOLTIP))}"
        groups[group].append(HardwareSource(f"run:{run.id}", group, label, tooltip, gpu_id))
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
    offer_text = QCoreApplication.translate("PlanRequest", str(_OFFER_TEXT))  # once, not once per offer
    kind_names: dict[str, str] = {}
    for quote in offered_quotes(store, catalog, keep):
        gpu = catalog[str(quote.get("gpu"))]
        price = fmt.money(_amount(quote.get("price_per_gpu_hour")), str(quote.get("currency") or "USD"))
        kind = str(quote.get("kind") or "")
        if kind not in kind_names:
            kind_names[kind] = kind_name(kind)
        label = offer_text.format(quote.get("provider"), gpu.name, price, kind_names[kind])
        parts = (
            quote.get("offer"),
            quote.get("region"),
            fmt.date(str(quote.get("quoted_on") or "")),
            quote.get("source"),
        )
        tooltip = " ".join(str(part) for part in parts if part)
        groups["quote"].append(HardwareSource(f"quote:{quote.get('id')}", "quote", label, tooltip, gpu.id))
    return groups


def offered_quotes(
    store: StoreProtocol, catalog: Mapping[str, GpuSpec], keep: tuple[str, ...] = ()
) -> list[RentalQuoteRow]:
    """The quotes the Hardware list offers (catalog GPUs only), sorted by GPU, kind, currency, price."""
    try:
        quotes = list(store.rental_quotes.cheapest_offers(OFFERS_PER_GROUP, gpus=tuple(catalog)))
    except UserError:  # a store that cannot answer leaves the group empty, as it did before
        quotes = []
    listed = {str(q.get("id")) for q in quotes}
    missing = [key[6:] for key in keep if key.startswith("quote:") and key[6:] not in listed]
    quotes += quotes_by_id(store, missing).values()
    from planner.store import KINDS

    kind_order = {kind: index for index, kind in enumerate(KINDS)}
    quotes = [q for q in quotes if str(q.get("gpu")) in catalog]
    quotes.sort(
        key=lambda q: (
            str(q.get("gpu")),
            kind_order.get(str(q.get("kind")), len(kind_order)),
            str(q.get("currency")),
            _amount(q.get("price_per_gpu_hour")),
            int(str(q.get("id") or 0)),
        )
    )
    return quotes


def _amount(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


# The offer rows of the Hardware list (translated through QCoreApplication.translate("PlanRequest")).
_OFFER_TEXT = QT_TRANSLATE_NOOP("PlanRequest", "{0} · {1} · {2}/GPU-h · {3}")


class PageInputError(UserError):
    """A UserError about the page's own inputs, worded by the desktop: `text` says it in the interface language
    (its English words are the exception's text)."""

    def __init__(self, text: Text):
        super().__init__(text.source.format(*text.values))
        self.text = text


# planner.messages codes of errors about the model input (planner.models.resolve_model raises them).
MODEL_ERROR_CODES = frozenset(
    {"error.no_model", "error.unknown_model", "error.no_such_path", "error.no_such_path_hub_id"}
)


def is_model_error(exc: BaseException | None) -> bool:
    """True when the error is about the model input, whatever the interface language: its planner Message
    code says so, or it was raised while reading the model (a config.json's own errors carry no code)."""
    if isinstance(exc, ModelInputError):
        return True
    message = getattr(exc, "message", None)
    return getattr(message, "code", None) in MODEL_ERROR_CODES


def question_of(inputs: PlanInputs, currency: str, stated_spot: float | None = None) -> PlanQuestion:
    """The Plan page's inputs as planner.resolver's question (the CLI builds the same from its flags); on spot,
    `stated_spot` is the reclaim rate the spot quotes state (planner.resolver.stated_spot_rate)."""
    training = inputs.is_training
    by_rate = not training and inputs.load_mode == "rate"
    workload = Workload(
        task=inputs.task,
        seq_len=int(inputs.seq_len) if training else int(inputs.prompt_tokens) + int(inputs.output_tokens),
        global_batch=int(inputs.global_batch) if training else 1,
        tokens=inputs.training_tokens if training else None,
        tokens_per_second=None if training else float(inputs.tokens_per_second),
        concurrent_users=None if training or by_rate else int(inputs.concurrent_users),
        request_rate=float(inputs.request_rate) if by_rate else None,
        ttft_target_s=_seconds(inputs.ttft_target_ms) if not training else None,
        tpot_target_s=_seconds(inputs.tpot_target_ms) if not training else None,
        precision=inputs.precision,
        mfu=inputs.mfu,
        bandwidth_fraction=inputs.efficiency,
        dataset_tokens=float(inputs.dataset_tokens) if training and inputs.tokens_mode == "dataset" else None,
        lora_rank=int(inputs.lora_rank),
        runtime=Runtime(inputs.runtime) if training and inputs.runtime else None,
    )
    if not training:  # training keeps the planner's default output length (it reads none)
        workload = dataclasses.replace(workload, output_len=int(inputs.output_tokens))
    return PlanQuestion(
        model=inputs.model_text,
        workload=workload,
        hardware=tuple(inputs.hardware),
        max_gpus=int(inputs.max_gpus),
        exact_gpus=inputs.exact_gpus,
        budget_amount=inputs.budget_amount,
        deadline_s=inputs.deadline_days * 86400.0 if inputs.deadline_days else None,
        pinned=inputs.pinned,
        memory_headroom=float(inputs.memory_headroom),
        host_ram_bytes=math.floor(inputs.host_ram_gib * 2**30) if training and inputs.host_ram_gib else None,
        currency=currency,
        price_from_quotes=True,
        rank_by=inputs.rank_by,
        price_kinds=("spot",) if inputs.spot else ON_DEMAND,
        resilience=resilience_of(
            inputs.failures_per_million_gpu_hours, inputs.checkpoint_storage, inputs.checkpoint_gb_per_s,
            checkpoint_interval_minutes=inputs.checkpoint_interval_minutes,
            spot_interruptions_per_node_hour=spot_rate_of(inputs, stated_spot)[0] if inputs.spot else 0.0,
        ),
    )


def _seconds(milliseconds: float | None) -> float | None:
    return None if milliseconds is None else float(milliseconds) / 1000.0


def spot_rate_of(inputs: PlanInputs, stated_spot: float | None) -> tuple[float, str]:
    """The reclaim rate per node-hour the page plans spot with, and its basis ("user-set", "quote", "default")."""
    return spot_reclaim_rate(inputs.spot_interruptions_per_node_hour, stated_spot)


def stated_spot_of(inputs: PlanInputs, store: StoreProtocol) -> float | None:
    """The rate the spot quotes behind the inputs state (None off spot or when none does), as `plan --spot`."""
    if not inputs.spot:
        return None
    try:
        return stated_spot_rate(store, tuple(inputs.hardware))
    except UserError:  # a store that cannot answer states no rate (resolve() says what is wrong)
        return None


def build_plan_call(
    inputs: PlanInputs,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> PlanCall:
    """planner.resolver.resolve() for the page's inputs; UserError (one line for the user) when they cannot be
    planned. Reads only the ticked quotes (by id) and, through `price_book` (kept by the caller so repeated
    calls reuse it), the price summaries of the planned GPU types: never the whole quote table."""
    return resolve(
        question_of(inputs, display_currency, stated_spot_of(inputs, store)),
        store,
        catalog=catalog,
        rates=rates,
        price_book=price_book if price_book is not None else PriceBook(store),
        read_model=resolve_model_cached,
    )


class _HasStore(Protocol):
    @property
    def store(self) -> StoreProtocol: ...


def price_book_of(context: _HasStore) -> PriceBook:
    """The context's shared PriceBook (AppContext.price_book), or a fresh one for a context without it."""
    getter = getattr(context, "price_book", None)
    return getter() if callable(getter) else PriceBook(context.store)


@dataclass(frozen=True, slots=True)
class PoolAnswer:
    """The mixed-pool comparison of `plan --pool` for the page's pool rows: the comparison, or why there is none
    (a Note, worded when shown), and the counts it was asked for (GPU id -> count, zeros left out)."""

    counts: Mapping[str, int]
    comparison: PoolComparison | None = None
    error: Note | None = None


@dataclass(frozen=True, slots=True)
class SpotAnswer:
    """What a spot plan is compared with, as `plan --price-from-quotes --spot` compares it: the reclaim rate per
    node-hour and its basis ("user-set", "quote", "default"), and the on-demand price of each planned GPU type."""

    rate_per_node_hour: float
    basis: str
    on_demand_prices: Mapping[str, Money]


def spot_answer_of(
    inputs: PlanInputs,
    call: PlanCall,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> SpotAnswer | None:
    """The on-demand side of a spot plan (None off spot, or for serving); a UserError pricing it leaves no
    on-demand prices (the Goodput tab then says spot is not compared)."""
    if not inputs.spot or not inputs.is_training:
        return None
    stated = stated_spot_of(inputs, store)
    rate, basis = spot_rate_of(inputs, stated)
    try:
        prices = on_demand_prices_of(question_of(inputs, display_currency, stated), call, store, catalog=catalog,
                                     rates=rates, price_book=price_book, read_model=resolve_model_cached)  # fmt: skip
    except UserError:
        prices = {}
    return SpotAnswer(rate, basis, MappingProxyType(prices))


def compare_page_pool(
    inputs: PlanInputs,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> PoolAnswer | None:
    """planner.search.pools.compare_pool for the page's pool (None without a type of count > 0), resolved as
    `plan --pool ID:COUNT,... --price-from-quotes` resolves it, with every way (`--pool-ways all`, the CLI's
    default): the pool's types are the hardware, the rest of
    the inputs as the main plan takes them. A UserError (say, an unknown GPU) becomes the answer's error."""
    counts = inputs.pool_counts
    if not counts:
        return None
    stated = stated_spot_of(inputs, store)
    question = dataclasses.replace(
        question_of(inputs, display_currency, stated), hardware=tuple(f"catalog:{gpu_id}" for gpu_id in counts)
    )
    try:
        call = resolve(question, store, catalog=catalog, rates=rates, price_book=price_book,
                       read_model=resolve_model_cached)  # fmt: skip
        by_id = {gpu.id: gpu for gpu in call.gpus}
        parts = [PoolPart(by_id[gpu_id], count) for gpu_id, count in counts.items() if gpu_id in by_id]
        comparison = compare_pool(call.model, call.workload, parts, call.constraints, prices=call.prices,
                                  calibration=call.calibration, ways=EVERY_WAY)  # fmt: skip
    except UserError as exc:
        return PoolAnswer(counts, error=error_note(exc))
    return PoolAnswer(counts, comparison)


def build_and_run(
    inputs: PlanInputs,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> tuple[PlanCall, PlanResult, float, SpotAnswer | None]:
    """(call, planner result, milliseconds outside the main search, the spot plan's on-demand side or None):
    the re-plan, for the GUI thread when it is quick or a pool thread when it is not (the store and the price
    book are safe to share). The milliseconds count resolving the inputs and the spot comparison, so the
    scheduler sends a plan with a slow one to the background as it does a slow search. The mixed pool's
    comparison is not part of it: it follows on a pool thread (desktop/plan_pool_job.py)."""
    import time

    started = time.perf_counter()
    call = build_plan_call(inputs, catalog, store, display_currency, rates, price_book)
    build_ms = (time.perf_counter() - started) * 1000.0
    result = run_plan_call(call)
    started = time.perf_counter()
    spot = spot_answer_of(inputs, call, catalog, store, display_currency, rates, price_book)
    build_ms += (time.perf_counter() - started) * 1000.0
    return call, result, build_ms, spot


def run_plan_call(call: PlanCall) -> PlanResult:
    """planner.search.plan() for the call (pure; safe on a pool thread)."""
    return call.run(top=SEARCH_TOP)


def family_of(option: PlanOption) -> str:
    """Scaling-chart series name: the sharding family plus model-parallel axes ("ZeRO-3/FSDP + TP")."""
    layout = option.layout
    family = family_message(layout).text
    axes = [name for name, value in (("TP", layout.tp), ("PP", layout.pp)) if value > 1]
    return " + ".join([family, *axes]) if axes else family


Series = dict[str, list[tuple[int, float, float | None]]]


def scaling_series(
    result: PlanResult, gpu_id: str | None, training: bool, line: Callable[[PlanOption], str] | None = None
) -> Series:
    """family -> [(GPU count, time s, cost amount)]: the fastest fitting option per (family, count) for one GPU type
    (`line` names an option's line: family_of by default).

    Time is the whole run for training, with losses (failures, checkpoints, restarts: as the table shows and the
    planner ranks it), and seconds per output token for serving.
    """
    best: dict[tuple[str, int], tuple[int, float, float | None]] = {}
    for option in (*result.options, *result.frontier):
        if not option.fits or (gpu_id and option.gpu.id != gpu_id):
            continue
        point = _point(option, training)
        key = ((line or family_of)(option), option.gpus)
        if point is not None and (key not in best or point[1] < best[key][1]):
            best[key] = point
    series: Series = {}
    for (family, _count), point in sorted(best.items(), key=lambda item: item[0][1]):
        series.setdefault(family, []).append(point)
    return series


def _point(option: PlanOption, training: bool) -> tuple[int, float, float | None] | None:
    """(GPU count, time s, cost) of a fitting option as the scaling chart draws it; None without a time."""
    time_s = option.effective_wall_time_s if training else option.step_time_s
    if not time_s:
        return None
    effective_cost, per_million = option.effective_cost, option.cost_per_million_tokens
    if training and effective_cost is not None:
        return option.gpus, float(time_s), effective_cost.amount
    return option.gpus, float(time_s), per_million.amount if per_million is not None else None


ZERO_FAMILIES = {ZeroStage.NONE: "DDP", ZeroStage.OPTIMIZER: "ZeRO-1", ZeroStage.GRADIENTS: "ZeRO-2",
                 ZeroStage.WEIGHTS: "ZeRO-3/FSDP"}  # fmt: skip
SERVING_FAMILY = "TP × PP"  # serving: one line, the best tensor/pipeline layout at each GPU count


def family_series(
    call: PlanCall, gpu_id: str, progress: Callable[[float, str], None] | None = None
) -> Series:
    """Per ZeRO stage, the best layout at each GPU count for one GPU type: (GPU count, run time s, cost).

    plan() keeps only the best option per GPU count, so each stage is searched on its own (ZeRO pinned) over
    every count up to the limit: the exact count when one is set ("Exactly 1 GPU" charts 1 GPU, "Exactly 16"
    the counts up to 16), else the maximum; a budget or deadline would leave one point per line, so they are
    lifted here (the table still honours them). Pure; runs on a pool thread. Serving has no ZeRO stages: its curve
    is the best layout per count (TP/PP), taken from one search.
    """
    from planner.search import plan

    gpu = next((g for g in call.gpus if g.id == gpu_id), None)
    if gpu is None:
        return {}
    limit = call.constraints.gpus or call.constraints.max_gpus
    base = dataclasses.replace(call.constraints, gpus=None, max_gpus=limit, budget=None, deadline_s=None)
    training = call.workload.is_training
    stages = list(ZERO_FAMILIES.items()) if training else [(None, "")]
    series: Series = {}
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


def family_points(result: PlanResult, gpu_id: str, training: bool) -> Series:
    """The main search's points on the family_series lines: its fastest fitting option per (family_name, count).

    Each is exact for its line: the fastest option at a GPU count is also the fastest of its own family there."""
    return scaling_series(result, gpu_id, training, line=lambda option: family_name(option, training))


def best_per_count(series: Series) -> list[tuple[int, float, float | None]]:
    """One line: the fastest point at each GPU count over all the lines."""
    best: dict[int, tuple[int, float, float | None]] = {}
    for line in series.values():
        for point in line:
            if point[0] not in best or point[1] < best[point[0]][1]:
                best[point[0]] = point
    return sorted(best.values())


def overlay_points(shown: Series, fresh: Series) -> Series:
    """The curves shown, with the fresh points put in place of those at the same (line, GPU count)."""
    merged: Series = {}
    for family in {**shown, **fresh}:
        points = {p[0]: p for p in shown.get(family, [])}
        points.update({p[0]: p for p in fresh.get(family, [])})
        merged[family] = sorted(points.values())
    return merged


def family_name(option: PlanOption, training: bool) -> str:
    """The family_series line an option belongs to (ZeRO stage for training, TP/PP layout for serving)."""
    if training:
        return ZERO_FAMILIES.get(ZeroStage(option.layout.zero), family_of(option))
    return SERVING_FAMILY
