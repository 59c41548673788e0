"""From the Plan page's inputs to one planner.search.plan() call, and the hardware sources the page offers.

No widgets (QtCore only, for translated price texts). build_plan_call() reads the store (the ticked quotes,
probe runs, price summaries; the Store serialises its callers, so a pool thread may do this too) and returns a
frozen PlanCall; run_plan_call() is the pure part; build_and_run() does both, on the GUI thread while that is
quick and in a background job otherwise. Prices are converted into the display currency here, with the
original kept in the notes; a missing exchange rate drops that quote and says so, it is never assumed.

Nothing here lists every stored quote: the typical price of a GPU type comes from the store's SQL summaries
(PriceBook, cached until the database changes) and the Hardware list offers a bounded set of quotes
(store.rental_quotes.cheapest_offers), so both cost milliseconds with 100,000 quotes stored.

Nothing here is worded for one language either: notes, price sources and errors stay planner Messages or Text
(a translatable source plus raw values) until the view renders them (render_note), so a language switch
re-renders the page without planning again.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from desktop import fmt
from desktop.messages import render
from desktop.plan_state import PlanInputs
from planner.errors import UserError
from planner.gpus import GpuSpec
from planner.layout_text import family_message
from planner.messages import Message
from planner.models import ModelSpec
from planner.money import ExchangeRates, Money
from planner.perf import Calibration
from planner.search import Constraints, PlanOption, PlanResult, Workload
from planner.vocabulary import ZeroStage

if TYPE_CHECKING:
    from planner.store import PriceSummary, ProbeRun, StoreProtocol

# The GUI asks for more than the table shows so the scaling chart has every GPU count per family.
TABLE_ROWS = 12
SEARCH_TOP = 400
# The Hardware list shows every reference quote and this many of the user's cheapest quotes per GPU type, kind
# and currency (the Quotes page lists them all); offers the plan already uses are always listed too.
OFFERS_PER_GROUP = 3


@dataclass(frozen=True, slots=True)
class Text:
    """A desktop sentence kept as its translatable source (context, source) and raw values, rendered in the
    interface language when shown: values may be Text, planner Messages, Price, QuoteKind, QuoteDate or plain."""

    context: str
    source: str
    values: tuple[object, ...] = ()

    def render(self) -> str:
        return QCoreApplication.translate(self.context, self.source).format(
            *(_rendered(v) for v in self.values)
        )


@dataclass(frozen=True, slots=True)
class Price:
    """A price in the display currency with the quoted original beside it when that differs."""

    shown: Money
    original: Money


@dataclass(frozen=True, slots=True)
class QuoteKind:
    """A quote kind ("on-demand"), named as the quotes table names it."""

    kind: str


@dataclass(frozen=True, slots=True)
class QuoteDate:
    """The day a quote was taken (ISO text), in the interface's date format."""

    iso: str


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
    if isinstance(value, Price):
        return fmt.money_with_original(value.shown, value.original)
    if isinstance(value, QuoteKind):
        return _kind_name(value.kind)
    if isinstance(value, QuoteDate):
        return fmt.date(value.iso)
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


@dataclass(frozen=True)
class PlanCall:
    """Everything plan() needs, already resolved: model, workload, GPU types, constraints, prices, calibration.

    notes and price_sources (gpu id -> "RunPod, on-demand: $3.49/GPU-h, quoted 2026-09-01") are rendered by the
    view (render_note), in whatever language is current then."""

    model: ModelSpec
    workload: Workload
    gpus: tuple[GpuSpec, ...]
    constraints: Constraints
    prices: Mapping[str, Money]
    calibration: Mapping[str, Calibration]
    rank_by: str
    currency: str
    notes: tuple[Note, ...] = ()
    price_sources: Mapping[str, Text] = field(default_factory=dict)


@lru_cache(maxsize=32)
def resolve_model_cached(text: str) -> ModelSpec:
    """planner.models.resolve_model, cached: a model folder is read once, not on every slider step."""
    from planner.models import resolve_model

    return resolve_model(text)


def _runs(store: StoreProtocol) -> list[ProbeRun]:
    try:
        return list(store.probe_runs.all())
    except (sqlite3.Error, UserError):  # a database that cannot answer lists no runs; the rest of the page still works
        return []


# Translated by the ``tr`` the Plan page passes in (PlanPage.tr), hence that context.
_RUN_LABEL = QT_TRANSLATE_NOOP("PlanPage", "run")
_MEASURED_TOOLTIP = QT_TRANSLATE_NOOP(
    "PlanPage", "Measured by a probe run; the plan uses its matmul and bandwidth figures."
)
# Said while planning, rendered by the view (context "PlanRequest").
_RUN_GONE = str(QT_TRANSLATE_NOOP("PlanRequest", "probe run {0} is no longer in the database"))
_NO_GPU_TYPE = str(QT_TRANSLATE_NOOP("PlanRequest", "choose at least one GPU type under Hardware"))


def _same(text: str) -> str:
    return text


def hardware_sources(
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    tr: Callable[[str], str] = _same,
    keep: tuple[str, ...] = (),
) -> dict[str, list[HardwareSource]]:
    """Rows for the Hardware panel, grouped: local and imported probe runs, catalog GPUs, quoted offers.

    Offers are a bounded list (OFFERS_PER_GROUP, store.rental_quotes.cheapest_offers) plus any "quote:<id>" key in
    `keep` (the ticked ones), so a saved plan's offer stays visible and ticked however dear it is.
    """
    from planner.gpus import match_nvml_name

    groups: dict[str, list[HardwareSource]] = {"local": [], "imported": [], "catalog": [], "quote": []}
    extra = tuple(gpu for gpu in catalog.values() if getattr(gpu, "user_defined", False))
    for run in _runs(store):
        gpu_ids = []
        for name in run.devices:
            gpu = match_nvml_name(name, extra)
            if gpu is not None and gpu.id not in gpu_ids:
                gpu_ids.append(gpu.id)
        if not gpu_ids:
            continue  # a CPU-only run (or an unknown GPU) says nothing the planner can use
        group = "local" if run.source == "local" else "imported"
        where = run.label or run.machine or run.hostname or tr(str(_RUN_LABEL))
        label = f"{catalog[gpu_ids[0]].name} — {where} ({run.created_at[:10]})"
        tooltip = tr(str(_MEASURED_TOOLTIP))
        groups[group].append(HardwareSource(f"run:{run.id}", group, label, tooltip, gpu_ids[0]))
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
    offer_text, kind_names = _text("offer"), {}  # translated once, not once per offer
    for quote in offered_quotes(store, catalog, keep):
        gpu = catalog[str(quote.get("gpu"))]
        price = fmt.money(_amount(quote.get("price_per_gpu_hour")), str(quote.get("currency") or "USD"))
        kind = str(quote.get("kind") or "")
        if kind not in kind_names:
            kind_names[kind] = _kind_name(kind)
        label = offer_text.format(quote.get("provider"), gpu.name, price, kind_names[kind])
        tooltip = f"{quote.get('offer') or ''} {quote.get('region') or ''} {quote.get('quoted_on') or ''} {quote.get('source') or ''}"
        groups["quote"].append(
            HardwareSource(f"quote:{quote.get('id')}", "quote", label, tooltip.strip(), gpu.id)
        )
    return groups


def offered_quotes(
    store: StoreProtocol, catalog: Mapping[str, GpuSpec], keep: tuple[str, ...] = ()
) -> list[dict[str, object]]:
    """The quotes the Hardware list offers (catalog GPUs only), sorted by GPU, kind, currency, price."""
    try:
        quotes = list(store.rental_quotes.cheapest_offers(OFFERS_PER_GROUP, gpus=tuple(catalog)))
    except (sqlite3.Error, UserError):  # a store that cannot answer leaves the group empty, as it did before
        quotes = []
    listed = {str(q.get("id")) for q in quotes}
    missing = [key[6:] for key in keep if key.startswith("quote:") and key[6:] not in listed]
    quotes += _quotes_by_id(store, missing).values()
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


def _quotes_by_id(store: StoreProtocol, ids: list[str]) -> dict[str, dict[str, object]]:
    """The stored rental quotes with these ids (as text); ids no longer in the store are left out."""
    found = {}
    for ident in dict.fromkeys(ids):
        try:
            found[ident] = store.rental_quotes.get(int(ident))
        except (ValueError, sqlite3.Error):  # deleted meanwhile (UserError), not a number, or no database
            continue
    return found


def _convert(amount: float, currency: str, display_currency: str, rates: ExchangeRates | None) -> Money:
    from planner.money import convert

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


def _kind_name(kind: object) -> str:
    """The translated name of a quote kind ("on-demand" -> "по требованию"), as the quotes table shows it."""
    from desktop.qmodels.quotes import KIND_NAMES

    text = str(kind or "")
    return (
        QCoreApplication.translate("QuoteTableModel", str(KIND_NAMES[text])) if text in KIND_NAMES else text
    )


def _text(key: str) -> str:
    return QCoreApplication.translate("PlanRequest", str(PRICE_TEXTS[key]))


class PriceBook:
    """Typical rental prices per GPU type, from the store's SQL summaries, for the GUI thread.

    Each (GPU type, kinds) summary (store.rental_quotes.price_summary: count, lowest, median, highest per kind,
    currency and origin) is read once and kept until the database changes (Store.data_stamp: this connection's
    writes or another process's commits), so re-planning on every slider step costs no query at all. One book
    serves every page (AppContext.price_book()).
    """

    def __init__(self, store: StoreProtocol):
        self.store = store
        self._stamp: object = None
        self._summaries: dict[tuple[str, tuple[str, ...]], list[PriceSummary]] = {}
        self._medians: dict[tuple[object, ...], float | None] = {}

    def _current(
        self,
    ) -> tuple[dict[tuple[str, tuple[str, ...]], list[PriceSummary]], dict[tuple[object, ...], float | None]]:
        """The caches for the database as it is now (emptied when it changed). Callers keep these two dicts,
        so a plan job filling them on a pool thread and the GUI thread reading never trip over each other."""
        try:
            stamp: object = self.store.data_stamp()
        except sqlite3.Error:
            stamp = object()  # cannot tell: never trust the cache
        if stamp != self._stamp:
            self._summaries, self._medians, self._stamp = {}, {}, stamp
        return self._summaries, self._medians

    def summaries(self, gpu_id: str, kinds: tuple[str, ...]) -> list[PriceSummary]:
        """planner.store.PriceSummary rows of one GPU type and these kinds ([]: the store cannot answer)."""
        cache, _ = self._current()
        key = (gpu_id, kinds)
        if key not in cache:
            try:
                cache[key] = list(self.store.rental_quotes.price_summary(gpu_id, kinds))
            except (sqlite3.Error, UserError):
                return []
        return cache[key]

    def median(
        self, gpu_id: str, kinds: tuple[str, ...], origin: str, factors: Mapping[str, float]
    ) -> float | None:
        """store.rental_quotes.price_median, remembered (the factors are part of the key)."""
        _, cache = self._current()
        key = (gpu_id, kinds, origin, tuple(sorted(factors.items())))
        if key not in cache:
            cache[key] = self.store.rental_quotes.price_median(gpu_id, kinds, origin, factors)
        return cache[key]


class _HasStore(Protocol):
    store: StoreProtocol


def price_book_of(context: _HasStore) -> PriceBook:
    """The context's shared PriceBook (AppContext.price_book), or a fresh one for a context without it."""
    getter = getattr(context, "price_book", None)
    return getter() if callable(getter) else PriceBook(context.store)


def _factor_to(currency: str, display_currency: str, rates: ExchangeRates | None) -> float:
    """How many units of the display currency one unit of `currency` buys; UserError without a rate."""
    return _convert(1.0, currency, display_currency, rates).amount


def typical_price(
    prices: PriceBook,
    gpu_id: str,
    kinds: tuple[str, ...],
    display_currency: str,
    rates: ExchangeRates | None,
    notes: list[Note],
) -> tuple[Money, Text] | None:
    """(Money per GPU-hour in the display currency, where it came from) for one GPU type, or None.

    The median of the matching quotes: the user's own quotes when there are any, else the shipped reference
    points. The median, not the minimum: reference rows include market lows ("from $1.30") nobody can rely on.
    Quotes whose currency has no exchange rate are left out and named in `notes`. Answered from the store's
    per-group summaries; only a median over several kinds or currencies needs one more (SQL) query.
    """
    rows = prices.summaries(gpu_id, tuple(kinds))
    mine = [row for row in rows if row.origin == "user"]
    groups = mine or [row for row in rows if row.origin == "reference"]
    factors: dict[str, float] = {}
    for currency in dict.fromkeys(row.currency for row in groups):
        try:
            factors[currency] = _factor_to(currency, display_currency, rates)
        except UserError as exc:
            notes.append(error_note(exc))
    groups = [row for row in groups if row.currency in factors]
    if not groups:
        return None
    count = sum(row.count for row in groups)
    if len(groups) == 1:
        median = groups[0].median_per_gpu_hour * factors[groups[0].currency]
    else:  # several kinds or currencies: the middle of all of them, converted, is one more SQL query
        middle = prices.median(gpu_id, kinds, groups[0].origin, factors)
        if middle is None:
            return None
        median = middle
    lowest = min(groups, key=lambda row: row.min_per_gpu_hour * factors[row.currency])
    highest = max(groups, key=lambda row: row.max_per_gpu_hour * factors[row.currency])

    def shown(amount: float, currency: str) -> Price:
        # A quote in another currency shows its original amount beside the converted one (never only that).
        return Price(Money(amount * factors[currency], display_currency), Money(amount, currency))

    whose = "mine" if mine else "reference"
    low = shown(lowest.min_per_gpu_hour, lowest.currency)
    if count == 1:
        return Money(median, display_currency), _deferred(f"{whose}_one", low)
    high = shown(highest.max_per_gpu_hour, highest.currency)
    return Money(median, display_currency), _deferred(f"{whose}_median", count, low, high)


def _deferred(key: str, *values: object) -> Text:
    return Text("PlanRequest", str(PRICE_TEXTS[key]), values)


def _quote_text(quote: Mapping[str, object], converted: Money | None = None) -> Text:
    """The chosen quote, its price in the display currency (``converted``) with the quoted original beside it."""
    original = Money(_amount(quote.get("price_per_gpu_hour")), str(quote.get("currency") or "USD"))
    return _deferred(
        "quote",
        quote.get("provider"),
        QuoteKind(str(quote.get("kind") or "")),
        Price(converted or original, original),
        QuoteDate(str(quote.get("quoted_on") or "")),
    )


OFFER_SEPARATOR = "@"  # "h100-sxm@quote:12": one ticked offer of a GPU type planned as a choice of its own


def base_gpu_id(gpu_id: str) -> str:
    """The catalog GPU id behind a planned choice ("h100-sxm@quote:12" -> "h100-sxm")."""
    return str(gpu_id).split(OFFER_SEPARATOR, 1)[0]


def offer_spec(gpu: GpuSpec, quote: Mapping[str, object]) -> GpuSpec:
    """The GPU type as one provider's offer: same figures, its own id and name, so two ticked offers of one GPU
    type are ranked side by side (each priced at its own quote) instead of the cheaper hiding the other."""
    return dataclasses.replace(
        gpu,
        id=f"{gpu.id}{OFFER_SEPARATOR}quote:{quote.get('id')}",
        name=f"{gpu.name} · {quote.get('provider')}",
    )


class ModelInputError(UserError):
    """A UserError raised while reading the model input (preset, size, config.json or model folder)."""


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


def is_model_error(exc: BaseException) -> bool:
    """True when the error is about the model input, whatever the interface language: its planner Message
    code says so, or it was raised while reading the model (a config.json's own errors carry no code)."""
    if isinstance(exc, ModelInputError):
        return True
    message = getattr(exc, "message", None)
    return getattr(message, "code", None) in MODEL_ERROR_CODES


def _resolve_model(text: str) -> ModelSpec:
    try:
        return resolve_model_cached(text)
    except ModelInputError:
        raise
    except UserError as exc:
        raise ModelInputError(str(exc), exc.message) from exc


def build_plan_call(
    inputs: PlanInputs,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> PlanCall:
    """Resolve the inputs into a PlanCall; UserError (one line for the user) when they cannot be planned.

    Reads only the ticked quotes (by id) and, through `price_book` (a PriceBook kept by the caller so repeated
    calls reuse it), the price summaries of the planned GPU types: never the whole quote table.
    """
    from planner.perf import calibration_from_report

    price_book = price_book if price_book is not None else PriceBook(store)
    notes: list[Note] = []
    model = _resolve_model(inputs.model_text)
    gpus: dict[str, GpuSpec] = {}
    calibration: dict[str, Calibration] = {}
    chosen_prices: dict[str, tuple[Money, Text]] = {}
    quotes_by_id = _quotes_by_id(store, [k[6:] for k in inputs.hardware if k.startswith("quote:")])
    extra = tuple(gpu for gpu in catalog.values() if getattr(gpu, "user_defined", False))
    ticked = list(quotes_by_id.values())
    offers_per_gpu = {gpu_id: sum(str(q.get("gpu")) == gpu_id for q in ticked) for gpu_id in catalog}
    for key in inputs.hardware:
        kind, _, ident = key.partition(":")
        if kind == "catalog" and ident in catalog:
            gpus[ident] = catalog[ident]
        elif kind == "run":
            try:
                report = store.probe_runs.report(int(ident))
            except (ValueError, sqlite3.Error):  # deleted (UserError), damaged (ReportError) or unreadable
                notes.append(Text("PlanRequest", _RUN_GONE, (ident,)))
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
                amount, currency = _amount(quote["price_per_gpu_hour"]), str(quote["currency"])
                price = _convert(amount, currency, display_currency, rates)
            except UserError as exc:
                notes.append(error_note(exc))
                continue
            if gpu_id not in chosen_prices or price.amount < chosen_prices[gpu_id][0].amount:
                chosen_prices[gpu_id] = (price, _quote_text(quote, price))
    if not gpus:
        raise PageInputError(Text("PlanRequest", _NO_GPU_TYPE))
    for gpu_id in gpus:  # a measured run of the GPU type calibrates each of its offers too
        if base_gpu_id(gpu_id) in calibration:
            calibration.setdefault(gpu_id, calibration[base_gpu_id(gpu_id)])
    prices: dict[str, Money] = {}
    price_sources: dict[str, Text] = {}
    for gpu_id in gpus:
        picked = chosen_prices.get(gpu_id) or typical_price(
            price_book, base_gpu_id(gpu_id), ("on-demand",), display_currency, rates, notes
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


def build_and_run(
    inputs: PlanInputs,
    catalog: Mapping[str, GpuSpec],
    store: StoreProtocol,
    display_currency: str,
    rates: ExchangeRates | None,
    price_book: PriceBook | None = None,
) -> tuple[PlanCall, PlanResult, float]:
    """(call, planner result, milliseconds build_plan_call took): the whole re-plan, for the GUI thread when
    it is quick or a pool thread when it is not (the store and the price book are safe to share)."""
    import time

    started = time.perf_counter()
    call = build_plan_call(inputs, catalog, store, display_currency, rates, price_book)
    build_ms = (time.perf_counter() - started) * 1000.0
    return call, run_plan_call(call), build_ms


def run_plan_call(call: PlanCall) -> PlanResult:
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


def table_options(result: PlanResult) -> tuple[PlanOption, ...]:
    """The rows the table shows: the planner's ranking, fitting options first, at most TABLE_ROWS."""
    return result.options[:TABLE_ROWS]


def family_of(option: PlanOption) -> str:
    """Scaling-chart series name: the sharding family plus model-parallel axes ("ZeRO-3/FSDP + TP")."""
    layout = option.layout
    family = family_message(layout).text
    axes = [name for name, value in (("TP", layout.tp), ("PP", layout.pp)) if value > 1]
    return " + ".join([family, *axes]) if axes else family


Series = dict[str, list[tuple[int, float, float | None]]]


def scaling_series(result: PlanResult, gpu_id: str | None, training: bool) -> Series:
    """family -> [(GPU count, time s, cost amount)]: the fastest fitting option per (family, count) for one GPU type.

    Time is the whole run for training and seconds per output token for serving.
    """
    best: dict[tuple[str, int], PlanOption] = {}
    pool = [*result.options, *result.frontier]
    for option in pool:
        if not option.fits or (gpu_id and option.gpu.id != gpu_id):
            continue
        time_s = option.wall_time_s if training else option.step_time_s
        if not time_s:
            continue
        key = (family_of(option), option.gpus)
        current = best.get(key)
        current_time = None if current is None else (current.wall_time_s if training else current.step_time_s)
        if current is None or current_time is None or time_s < current_time:
            best[key] = option
    series: Series = {}
    for (family, count), option in sorted(best.items(), key=lambda item: item[0][1]):
        time_s = option.wall_time_s if training else option.step_time_s
        if time_s is None:
            continue
        cost = (
            option.cost.amount
            if (training and option.cost is not None)
            else (
                option.cost_per_million_tokens.amount if option.cost_per_million_tokens is not None else None
            )
        )
        series.setdefault(family, []).append((count, float(time_s), cost))
    return series


ZERO_FAMILIES = {ZeroStage.NONE: "DDP", ZeroStage.OPTIMIZER: "ZeRO-1", ZeroStage.GRADIENTS: "ZeRO-2",
                 ZeroStage.WEIGHTS: "ZeRO-3/FSDP"}  # fmt: skip
SERVING_FAMILY = "TP × PP"  # serving: one line, the best tensor/pipeline layout at each GPU count


def family_series(
    call: PlanCall, gpu_id: str, progress: Callable[[float, str], None] | None = None
) -> Series:
    """Per ZeRO stage, the best layout at each GPU count for one GPU type: (GPU count, run time s, cost).

    plan() keeps only the best option per GPU count, so each stage is searched on its own (ZeRO pinned) over
    every count up to the limit (an exact count or budget would leave one point per line: both are lifted
    here; the table still honours them). Pure; runs on a pool thread. Serving has no ZeRO stages: its curve
    is the best layout per count (TP/PP), taken from one search.
    """
    from planner.search import plan

    gpu = next((g for g in call.gpus if g.id == gpu_id), None)
    if gpu is None:
        return {}
    limit = max(call.constraints.max_gpus, call.constraints.gpus or 0)
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


def family_name(option: PlanOption, training: bool) -> str:
    """The family_series line an option belongs to (ZeRO stage for training, TP/PP layout for serving)."""
    if training:
        return ZERO_FAMILIES.get(ZeroStage(option.layout.zero), family_of(option))
    return SERVING_FAMILY
