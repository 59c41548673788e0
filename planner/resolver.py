"""From what the user chose to one planner.search.plan() call and the price basis of every GPU type.

The command line (`gpu-advisor plan`, planner/cli/plan_cmd.py) and the desktop's Plan page
(desktop/plan_request.py) both call resolve(), so the same inputs give the same ranked options, prices and
notes. No Qt, no printing: notes, price sources and errors are planner.messages.Message objects that the CLI
renders in English and the GUI in the interface language.

Hardware choices are keys: "catalog:<gpu id>" (or a bare GPU id, as `--gpu` takes it) plans with the GPU's
datasheet figures; "run:<probe run id>" plans the GPU types a stored probe run measured, with its figures, at
most as many as that machine has; "quote:<rental quote id>" plans the quoted GPU type at that quote's price.

The price rule (docs/architecture.md, "The price rule"), the same for the CLI and the GUI:

1. A price the user set (`--price-per-gpu-hour`) prices every GPU type.
2. A chosen quote prices its GPU type at that quote; two chosen quotes of one GPU type are planned as two
   offers side by side, each at its own price.
3. Otherwise, when prices come from the stored quotes (the GUI always; the CLI with `--price-from-quotes`),
   the median on-demand price of that GPU type: over the user's own quotes when there is at least one, else
   over the shipped reference quotes. The median and not the lowest: the reference rows include market lows
   ("from $1.30") that are rarely available at the scale planned, and the lowest of the user's own quotes is
   one offer among several, which a chosen quote (rule 2) expresses when that is what the user means.
4. Quotes in a currency without an exchange rate are left out and named in the notes (never converted at a
   guessed rate). A GPU type without a price gets no cost.

The calibration rule: a GPU type is measured only by a probe run the user chose (the GUI's "This machine" and
"Imported machines" rows, `--gpu run:ID`, or `--measured`, which chooses the newest stored run of each GPU
type); catalog choices use the datasheet, so an unchosen run of some other machine never changes an answer.
"""

from __future__ import annotations

import dataclasses
import statistics
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING

from planner.errors import UserError
from planner.gpus import GpuSpec, match_nvml_name
from planner.limits import LIMITS
from planner.messages import Message, msg
from planner.models import ModelSpec
from planner.money import ExchangeRates, Money, convert, format_money, normalise_currency
from planner.perf import Calibration, calibration_from_report
from planner.scale import (
    DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR,
    Resilience,
    SpotComparison,
    spot_against_on_demand,
)
from planner.search import (
    DEFAULT_MAX_GPUS,
    DEFAULT_MEMORY_HEADROOM,
    Constraints,
    PlanOption,
    PlanResult,
    Workload,
)
from planner.vocabulary import RankBy

if TYPE_CHECKING:
    from planner.store import PriceSummary, RentalQuoteRow, StoreProtocol

ON_DEMAND = ("on-demand",)
RESERVED = ("reserved-1y", "reserved-3y", "committed")
OFFER_SEPARATOR = "@"  # "h100-sxm@quote:12": one chosen offer of a GPU type planned as a choice of its own
HARDWARE_KINDS = ("catalog", "run", "quote")
MAX_INTERRUPTIONS_PER_NODE_HOUR = LIMITS[
    "spot_interruptions_per_node_hour"
].high  # one a second (planner/limits.py)


# ---------------------------------------------------------------------------------------------- the question


@dataclass(frozen=True, slots=True)
class PlanQuestion:
    """What the user asked, before anything is looked up.

    hardware: choice keys (module docstring); exact_gpus overrides max_gpus; budget_amount is in `currency`;
    price_per_gpu_hour (in `currency`) prices every GPU type; price_from_quotes: price the rest from the
    stored quotes (rule 3); pinned: Layout fields the user fixed ({"tp": 8, "zero": 3}); price_kinds: the quote
    kinds rule 3 takes the median of (("spot",) to plan on spot capacity); resilience: failures, checkpoints and
    spot reclaims for the goodput term (planner.scale).
    """

    model: str
    workload: Workload
    hardware: tuple[str, ...]
    max_gpus: int = DEFAULT_MAX_GPUS
    exact_gpus: int | None = None
    budget_amount: float | None = None
    deadline_s: float | None = None
    pinned: Mapping[str, int | str] = field(default_factory=dict)
    memory_headroom: float = DEFAULT_MEMORY_HEADROOM
    currency: str = "USD"
    price_per_gpu_hour: float | None = None
    price_from_quotes: bool = True
    gpus_per_node: int | None = None
    inter_node_bytes_per_s: float | None = None
    rank_by: RankBy = RankBy.TIME
    price_kinds: tuple[str, ...] = ON_DEMAND
    resilience: Resilience = field(default_factory=Resilience)
    host_ram_bytes: int | None = None
    pod_gpus: int | None = None  # a fat tree's non-blocking pods and the N of 1:N above them (Constraints)
    oversubscription: float = 1.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "pinned", MappingProxyType(dict(self.pinned)))
        object.__setattr__(self, "currency", normalise_currency(self.currency))
        object.__setattr__(self, "rank_by", RankBy.parse(self.rank_by))


@dataclass(frozen=True, slots=True)
class QuotedPrice:
    """A price in the plan's currency with the quoted original beside it when that differs."""

    shown: Money
    original: Money

    def __str__(self) -> str:
        if self.shown.currency == self.original.currency:
            return format_money(self.shown)
        return f"≈ {format_money(self.shown)} ({format_money(self.original)})"


@dataclass(frozen=True, slots=True)
class PriceBasis:
    """One GPU type's price per GPU-hour and where it came from (a Message: "median of 7 reference quotes")."""

    price: Money
    source: Message


@dataclass(frozen=True, slots=True)
class ResolvedPlan:
    """Everything plan() needs, resolved: the model, the workload, the GPU types, the limits, the prices and
    the measurements, plus what to tell the user about them (Messages)."""

    model: ModelSpec
    workload: Workload
    gpus: tuple[GpuSpec, ...]
    constraints: Constraints
    prices: Mapping[str, Money]
    calibration: Mapping[str, Calibration]
    rank_by: RankBy
    currency: str
    price_sources: Mapping[str, Message] = field(default_factory=dict)
    notes: tuple[Message, ...] = ()
    missing_rates: tuple[Message, ...] = ()  # quotes left out for want of an exchange rate

    def run(self, top: int = 10) -> PlanResult:
        """planner.search.plan() for this call (pure; safe on a worker thread)."""
        from planner.search import plan

        return plan(self.model, self.workload, self.gpus, self.constraints, prices=self.prices,
                    calibration=self.calibration, rank_by=self.rank_by, top=top)  # fmt: skip

    def price_notes(self) -> tuple[Message, ...]:
        """One "price for <gpu>: <source>" line per priced GPU type (the CLI's notes)."""
        return tuple(
            msg("price.for_gpu", gpu_id=gpu, source=basis) for gpu, basis in self.price_sources.items()
        )


class ModelInputError(UserError):
    """A UserError raised while reading the model input (preset, size, config.json or model folder)."""


# ---------------------------------------------------------------------------------------------- prices


class PriceBook:
    """Typical rental prices per GPU type from the store's SQL summaries, cached until the database changes.

    Each (GPU type, kinds) summary (store.rental_quotes.price_summary: count, lowest, median, highest per kind,
    currency and origin) is read once and kept until store.data_stamp() changes (this connection's writes or
    another process's commits), so re-planning on every slider step costs no query. Safe to share between a
    worker thread and the GUI thread: a changed stamp swaps in new dicts instead of clearing the old ones.
    """

    def __init__(self, store: StoreProtocol):
        self.store = store
        self._stamp: object = None
        self._summaries: dict[tuple[str, tuple[str, ...]], list[PriceSummary]] = {}
        self._medians: dict[tuple[object, ...], float | None] = {}

    def _current(
        self,
    ) -> tuple[dict[tuple[str, tuple[str, ...]], list[PriceSummary]], dict[tuple[object, ...], float | None]]:
        try:
            stamp: object = self.store.data_stamp()
        except UserError:  # an environment error the store explained (a bug is raised, not hidden)
            stamp = object()  # cannot tell: never trust the cache
        if stamp != self._stamp:
            self._summaries, self._medians, self._stamp = {}, {}, stamp
        return self._summaries, self._medians

    def summaries(self, gpu_id: str, kinds: tuple[str, ...]) -> list[PriceSummary]:
        """PriceSummary rows of one GPU type and these kinds ([]: the store cannot answer)."""
        cache, _ = self._current()
        key = (gpu_id, kinds)
        if key not in cache:
            try:
                cache[key] = list(self.store.rental_quotes.price_summary(gpu_id, kinds))
            except UserError:
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


def _factors(
    currencies: Iterable[str], currency: str, rates: ExchangeRates | None, notes: list[Message]
) -> dict[str, float]:
    """currency -> how many units of `currency` one unit buys; a currency without a rate is named in notes."""
    factors: dict[str, float] = {}
    for code in dict.fromkeys(currencies):
        try:
            factors[code] = convert(Money(1.0, code), currency, rates).amount
        except UserError as exc:
            if exc.message is not None:
                notes.append(exc.message)
    return factors


def typical_price(
    book: PriceBook,
    gpu_id: str,
    kinds: tuple[str, ...],
    currency: str,
    rates: ExchangeRates | None,
    notes: list[Message],
) -> PriceBasis | None:
    """Rule 3 of the module docstring: the median of one GPU type's quotes of `kinds`, in `currency`, or None.

    The user's own quotes when there are any, else the shipped reference points. Quotes whose currency has no
    rate are left out and named in `notes`. Answered from the per-group summaries; a median over several kinds
    or currencies costs one more SQL query.
    """
    rows = book.summaries(gpu_id, tuple(kinds))
    mine = [row for row in rows if row.origin == "user"]
    groups = mine or [row for row in rows if row.origin == "reference"]
    factors = _factors((row.currency for row in groups), currency, rates, notes)
    groups = [row for row in groups if row.currency in factors]
    if not groups:
        return None
    if len(groups) == 1:
        median: float | None = groups[0].median_per_gpu_hour * factors[groups[0].currency]
    else:
        median = book.median(gpu_id, kinds, groups[0].origin, factors)
    if median is None:
        return None
    count = sum(row.count for row in groups)
    lowest = min(groups, key=lambda row: row.min_per_gpu_hour * factors[row.currency])
    highest = max(groups, key=lambda row: row.max_per_gpu_hour * factors[row.currency])

    def quoted(amount: float, code: str) -> QuotedPrice:
        return QuotedPrice(Money(amount * factors[code], currency), Money(amount, code))

    whose = "mine" if mine else "reference"
    low = quoted(lowest.min_per_gpu_hour, lowest.currency)
    if count == 1:
        return PriceBasis(Money(median, currency), msg(f"price.{whose}_one", price=low))
    high = quoted(highest.max_per_gpu_hour, highest.currency)
    return PriceBasis(Money(median, currency), msg(f"price.{whose}_median", count=count, low=low, high=high))


def quote_basis(quote: Mapping[str, object], currency: str, rates: ExchangeRates | None) -> PriceBasis:
    """Rule 2: one chosen quote's price in `currency` and its source; UserError without an exchange rate."""
    original = Money(_amount(quote.get("price_per_gpu_hour")), str(quote.get("currency") or "USD"))
    shown = convert(original, currency, rates)
    source = msg(
        "price.quote",
        provider=str(quote.get("provider") or ""),
        quote_kind=str(quote.get("kind") or ""),
        price=QuotedPrice(shown, original),
        quoted_date=str(quote.get("quoted_on") or ""),
    )
    return PriceBasis(shown, source)


def _amount(value: object) -> float:
    return float(value) if isinstance(value, int | float) else 0.0


# ---------------------------------------------------------------------------------------------- hardware


def choice_key(text: str) -> tuple[str, str]:
    """("catalog" | "run" | "quote", identifier) of a hardware choice; a bare GPU id is a catalog choice."""
    kind, separator, ident = text.strip().partition(":")
    if separator and kind in HARDWARE_KINDS:
        return kind, ident.strip()
    return "catalog", text.strip()


def base_gpu_id(gpu_id: str) -> str:
    """The catalog GPU id behind a planned choice ("h100-sxm@quote:12" -> "h100-sxm")."""
    return str(gpu_id).split(OFFER_SEPARATOR, 1)[0]


def offer_spec(gpu: GpuSpec, quote: Mapping[str, object]) -> GpuSpec:
    """The GPU type as one provider's offer: same figures, its own id and name, so two chosen offers of one GPU
    type are ranked side by side (each at its own quote) instead of the cheaper hiding the other."""
    return dataclasses.replace(
        gpu,
        id=f"{gpu.id}{OFFER_SEPARATOR}quote:{quote.get('id')}",
        name=f"{gpu.name} · {quote.get('provider')}",
    )


def quotes_by_id(store: StoreProtocol | None, ids: Iterable[str]) -> dict[str, RentalQuoteRow]:
    """The stored rental quotes with these ids (as text); ids no longer stored (or not numbers) are left out."""
    found: dict[str, RentalQuoteRow] = {}
    if store is None:
        return found
    for ident in dict.fromkeys(ids):
        try:
            found[ident] = store.rental_quotes.get(int(ident))
        except ValueError:  # deleted meanwhile or unreadable (UserError), not a number
            continue
    return found


def newest_run_choices(
    store: StoreProtocol, gpu_ids: Sequence[str], extra: Sequence[GpuSpec] = ()
) -> list[str]:
    """`--measured`: "run:<id>" of the newest stored probe run of each GPU type, or its catalog choice."""
    newest: dict[str, int] = {}
    for run in sorted(store.probe_runs.all(), key=lambda r: r.created_at, reverse=True):
        for name in run.devices:
            gpu = match_nvml_name(name, extra)
            if gpu is not None:
                newest.setdefault(gpu.id, run.id)
    return [f"run:{newest[g]}" if g in newest else f"catalog:{g}" for g in gpu_ids]


@dataclass(slots=True)
class _Hardware:
    """What the choices resolved to, while resolving."""

    gpus: dict[str, GpuSpec] = field(default_factory=dict)
    calibration: dict[str, Calibration] = field(default_factory=dict)
    chosen_prices: dict[str, PriceBasis] = field(default_factory=dict)
    machine_gpus: int = 0  # the most GPUs one chosen machine has (0: no machine chosen)
    only_machines: bool = True
    notes: list[Message] = field(default_factory=list)
    missing_rates: list[Message] = field(default_factory=list)


def _resolve_hardware(
    question: PlanQuestion,
    store: StoreProtocol | None,
    catalog: Mapping[str, GpuSpec],
    rates: ExchangeRates | None,
) -> _Hardware:
    found = _Hardware()
    choices = [choice_key(key) for key in question.hardware]
    quotes = quotes_by_id(store, [ident for kind, ident in choices if kind == "quote"])
    offers_per_gpu = {gpu_id: sum(str(q.get("gpu")) == gpu_id for q in quotes.values()) for gpu_id in catalog}
    extra = tuple(gpu for gpu in catalog.values() if gpu.user_defined)
    for kind, ident in choices:
        if kind == "run":
            _add_run(found, store, ident, catalog, extra)
            continue
        found.only_machines = False
        if kind == "catalog":
            gpu = catalog.get(ident) or _named_gpu(ident, extra)
            found.gpus[gpu.id] = gpu
        elif ident not in quotes:
            found.notes.append(msg("resolver.quote_gone", quote_id=ident))
        else:
            _add_quote(found, quotes[ident], catalog, offers_per_gpu, question.currency, rates)
    for gpu_id in found.gpus:  # a measured run of the GPU type calibrates each of its offers too
        if base_gpu_id(gpu_id) in found.calibration:
            found.calibration.setdefault(gpu_id, found.calibration[base_gpu_id(gpu_id)])
    return found


def _named_gpu(text: str, extra: Sequence[GpuSpec]) -> GpuSpec:
    """A GPU the user named by id or name ("h100", "NVIDIA H100 80GB HBM3"); UserError with suggestions."""
    from planner.gpus import get_gpu

    return get_gpu(text, extra)


def _add_run(
    found: _Hardware,
    store: StoreProtocol | None,
    ident: str,
    catalog: Mapping[str, GpuSpec],
    extra: Sequence[GpuSpec],
) -> None:
    """A chosen probe run: the GPU types it measured, calibrated by it, and how many this machine has."""
    try:
        if store is None:
            raise UserError.of(msg("resolver.run_gone", run_id=ident))
        run = store.probe_runs.get(int(ident))
        report = store.probe_runs.report(int(ident))
    except ValueError:  # deleted or unreadable (UserError), damaged (ReportError), not a number
        found.notes.append(msg("resolver.run_gone", run_id=ident))
        return
    counts: dict[str, int] = {}
    for name in run.devices:
        gpu = match_nvml_name(name, extra)
        if gpu is not None and gpu.id in catalog:
            counts[gpu.id] = counts.get(gpu.id, 0) + 1
    measured = calibration_from_report(report, extra)
    if not counts:
        found.notes.append(msg("resolver.run_without_gpu", run_id=ident))
        return
    for gpu_id, count in counts.items():
        found.gpus[gpu_id] = catalog[gpu_id]
        found.machine_gpus = max(found.machine_gpus, count)
        if gpu_id in measured:
            found.calibration[gpu_id] = measured[gpu_id]


def _add_quote(
    found: _Hardware,
    quote: RentalQuoteRow,
    catalog: Mapping[str, GpuSpec],
    offers_per_gpu: Mapping[str, int],
    currency: str,
    rates: ExchangeRates | None,
) -> None:
    gpu_id = str(quote.get("gpu"))
    if gpu_id not in catalog:
        return
    spec = catalog[gpu_id] if offers_per_gpu[gpu_id] < 2 else offer_spec(catalog[gpu_id], quote)
    found.gpus[spec.id] = spec
    try:
        basis = quote_basis(quote, currency, rates)
    except UserError as exc:
        if exc.message is not None:
            found.missing_rates.append(exc.message)
        return
    current = found.chosen_prices.get(spec.id)
    if current is None or basis.price.amount < current.price.amount:
        found.chosen_prices[spec.id] = basis


# ---------------------------------------------------------------------------------------------- resolve


def _model_notes(model: ModelSpec, seq_len: int) -> list[Message]:
    """First among the notes (the CLI's and the Plan page's): a sequence longer than the model's context
    (max_position_embeddings, or the length it was trained on), planned as asked; then a multimodal model's
    vision/audio towers, which the plan leaves out (their size where planner/models/hf_towers.py counts it)."""
    notes = []
    if model.exceeds_context(seq_len):
        notes.append(
            msg("memory.seq_beyond_context", seq_len=seq_len, model=model.name, context=model.max_context)
        )
    if model.tower_params:
        notes.append(msg("memory.towers_not_counted", model=model.name, towers=model.towers_not_counted,
                         params=model.tower_params))  # fmt: skip
    elif model.towers_not_counted:
        notes.append(msg("memory.towers_size_unknown", model=model.name, towers=model.towers_not_counted))
    return notes


def resolve(
    question: PlanQuestion,
    store: StoreProtocol | None,
    *,
    catalog: Mapping[str, GpuSpec] | None = None,
    rates: ExchangeRates | None = None,
    price_book: PriceBook | None = None,
    read_model: Callable[[str], ModelSpec] | None = None,
) -> ResolvedPlan:
    """The planner call for `question`: UserError (one line for the user) when it cannot be planned.

    store: the ledger (None: no quotes, runs or user GPU types); catalog: GPU id -> GpuSpec (default: the
    shipped catalog plus the store's user GPU types); rates: exchange rates (default: the store's);
    price_book: a PriceBook the caller keeps so repeated calls reuse its summaries; read_model: how the model
    text becomes a ModelSpec (default planner.models.resolve_model; the GUI passes a cached one).
    """
    model = _read_model(question.model, read_model)
    if catalog is None:
        from planner.gpus import load_catalog

        catalog = load_catalog(store.user_gpus.all() if store is not None else ())
    if rates is None and store is not None:
        rates = store.settings.exchange_rates()
    if not question.hardware:
        raise UserError.of(msg("error.no_hardware_chosen"))
    hardware = _resolve_hardware(question, store, catalog, rates)
    if not hardware.gpus and hardware.notes:  # e.g. run:ID of a GPU outside the catalog: say which and why
        raise UserError.of(msg("error.chosen_hardware_unplannable", reasons=tuple(hardware.notes)))
    if not hardware.gpus:
        raise UserError.of(msg("error.no_hardware_chosen"))
    notes, missing = (
        [*_model_notes(model, question.workload.seq_len), *hardware.notes],
        list(hardware.missing_rates),
    )
    sources = _prices(question, hardware, store, price_book, rates, missing)
    return ResolvedPlan(
        model=model,
        workload=question.workload,
        gpus=tuple(hardware.gpus.values()),
        constraints=_constraints(question, hardware),
        prices=MappingProxyType({gpu: basis.price for gpu, basis in sources.items()}),
        calibration=MappingProxyType(dict(hardware.calibration)),
        rank_by=question.rank_by,
        currency=question.currency,
        price_sources=MappingProxyType({gpu: basis.source for gpu, basis in sources.items()}),
        notes=tuple(dict.fromkeys([*notes, *missing])),
        missing_rates=tuple(dict.fromkeys(missing)),
    )


def _read_model(text: str, read_model: Callable[[str], ModelSpec] | None) -> ModelSpec:
    if read_model is None:
        from planner.models import resolve_model

        read_model = resolve_model
    try:
        return read_model(text)
    except ModelInputError:
        raise
    except UserError as exc:
        raise ModelInputError(str(exc), exc.message) from exc


def _prices(
    question: PlanQuestion,
    hardware: _Hardware,
    store: StoreProtocol | None,
    price_book: PriceBook | None,
    rates: ExchangeRates | None,
    missing: list[Message],
) -> dict[str, PriceBasis]:
    """GPU id -> its price basis by the price rule (module docstring); unpriced GPU types are left out."""
    currency = question.currency
    if question.price_per_gpu_hour is not None:
        user_set = Money(question.price_per_gpu_hour, currency)
        return {gpu: PriceBasis(user_set, msg("price.user_set", price=user_set)) for gpu in hardware.gpus}
    found: dict[str, PriceBasis] = dict(hardware.chosen_prices)
    if not question.price_from_quotes or store is None:
        return found
    book = price_book if price_book is not None else PriceBook(store)
    for gpu_id in hardware.gpus:
        if gpu_id not in found:
            basis = typical_price(book, base_gpu_id(gpu_id), question.price_kinds, currency, rates, missing)
            if basis is not None:
                found[gpu_id] = basis
    return found


def unpriced_notes(resolved: ResolvedPlan) -> tuple[Message, ...]:
    """ "no stored on-demand quote for <gpu>: no cost shown", for each GPU type the rule left unpriced."""
    return tuple(msg("price.none", gpu_id=gpu.id) for gpu in resolved.gpus if gpu.id not in resolved.prices)


def resilience_of(
    failures_per_million_gpu_hours: float | None = None,
    storage: str = "pfs",
    checkpoint_gb_per_s: float | None = None,
    restart_minutes: float | None = None,
    checkpoint_interval_minutes: float | None = None,
    spot_interruptions_per_node_hour: float = 0.0,
) -> Resilience:
    """The goodput inputs in the units people give them (the CLI's flags, the Plan page's fields) as the
    planner's Resilience: one conversion for both, so the same figures give the same goodput term.

    None: the published default (failure rate per GPU type, the storage profile's rate, Daly's optimum
    interval, the default restart); 0 failures turns the term off; a checkpoint rate overrides `storage`.
    """
    return Resilience(
        failures_per_gpu_hour=failures_per_million_gpu_hours / 1e6 if failures_per_million_gpu_hours is not None else None,
        storage=storage,
        checkpoint_bytes_per_s_per_gpu=checkpoint_gb_per_s * 1e9 if checkpoint_gb_per_s else None,
        restart_s=restart_minutes * 60 if restart_minutes is not None else None,
        checkpoint_interval_s=checkpoint_interval_minutes * 60 if checkpoint_interval_minutes else None,
        spot_interruptions_per_node_hour=spot_interruptions_per_node_hour,
    )  # fmt: skip


# ---------------------------------------------------------------------------------------------- spot


def stated_spot_rate(store: StoreProtocol | None, hardware: tuple[str, ...]) -> float | None:
    """The reclaim rate (per instance-hour) the spot quotes behind this plan state: the chosen quotes' highest,
    else the median over the stored spot quotes of the chosen GPU types that state one (None: none does)."""
    if store is None:
        return None
    chosen = quotes_by_id(store, [ident for kind, ident in map(choice_key, hardware) if kind == "quote"])
    rates = [row["interruptions_per_hour"] for row in chosen.values() if row["kind"] == "spot"]
    known = [float(rate) for rate in rates if rate is not None]
    if known:
        return max(known)
    extra = store.user_gpus.all()
    gpu_ids = {_named_gpu(ident, extra).id for kind, ident in map(choice_key, hardware) if kind == "catalog"}
    stored = [row["interruptions_per_hour"] for gpu_id in sorted(gpu_ids)
              for row in store.rental_quotes.find(gpu=gpu_id, kind="spot")]  # fmt: skip
    stated = [float(rate) for rate in stored if rate is not None]
    return statistics.median(stated) if stated else None


def spot_reclaim_rate(user_rate: float | None, stated: float | None) -> tuple[float, str]:
    """The reclaim rate per instance-hour a spot plan takes and its basis: the user's ("user-set"), else the
    quotes' ("quote", stated_spot_rate), else AWS's top band ("default", planner.scale.spot)."""
    if user_rate is not None:
        return user_rate, "user-set"
    if stated is not None:
        return stated, "quote"
    return DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR, "default"


def on_demand_prices_of(
    question: PlanQuestion,
    resolved: ResolvedPlan,
    store: StoreProtocol | None,
    *,
    catalog: Mapping[str, GpuSpec] | None = None,
    rates: ExchangeRates | None = None,
    price_book: PriceBook | None = None,
    read_model: Callable[[str], ModelSpec] | None = None,
) -> dict[str, Money]:
    """The on-demand price of each GPU type a spot plan priced (GPU id -> price), from the stored quotes, to
    compare spot with (the options as resolve() takes them)."""
    base = tuple(dict.fromkeys(base_gpu_id(gpu.id) for gpu in resolved.gpus))
    on_demand = dataclasses.replace(question, price_kinds=ON_DEMAND, hardware=base, price_from_quotes=True)
    found = resolve(
        on_demand, store, catalog=catalog, rates=rates, price_book=price_book, read_model=read_model
    )
    return dict(found.prices)


def spot_comparison_of(
    option: PlanOption | None, resolved: ResolvedPlan, on_demand_prices: Mapping[str, Money]
) -> SpotComparison | None:
    """Spot against on demand for a training option, when both prices are known in one currency."""
    if option is None or option.goodput is None:
        return None
    spot_price = resolved.prices.get(option.gpu.id)
    on_demand = on_demand_prices.get(base_gpu_id(option.gpu.id))
    if spot_price is None or on_demand is None or spot_price.currency != on_demand.currency:
        return None
    return spot_against_on_demand(
        option.gpu, option.gpus, option.nodes, option.goodput.checkpoint.bytes, resolved.constraints.resilience,
        spot_price.amount, on_demand.amount,
    )  # fmt: skip


def _constraints(question: PlanQuestion, hardware: _Hardware) -> Constraints:
    """The limits; a plan of chosen machines only never uses more GPUs than the largest of them has."""
    max_gpus = question.max_gpus
    if hardware.only_machines and hardware.machine_gpus and question.exact_gpus is None:
        max_gpus = min(max_gpus, hardware.machine_gpus)
    budget = question.budget_amount
    return Constraints(
        max_gpus=max_gpus,
        gpus=question.exact_gpus,
        budget=Money(budget, question.currency) if budget else None,
        deadline_s=question.deadline_s or None,
        pinned=question.pinned,
        gpus_per_node=question.gpus_per_node,
        inter_node_bytes_per_s=question.inter_node_bytes_per_s,
        memory_headroom=question.memory_headroom,
        resilience=question.resilience,
        host_ram_bytes=question.host_ram_bytes,
        pod_gpus=question.pod_gpus, oversubscription=question.oversubscription,
    )


__all__ = [
    "MAX_INTERRUPTIONS_PER_NODE_HOUR",
    "ModelInputError",
    "PlanQuestion",
    "PriceBasis",
    "PriceBook",
    "QuotedPrice",
    "ResolvedPlan",
    "base_gpu_id",
    "choice_key",
    "newest_run_choices",
    "offer_spec",
    "on_demand_prices_of",
    "quote_basis",
    "quotes_by_id",
    "resilience_of",
    "resolve",
    "spot_comparison_of",
    "spot_reclaim_rate",
    "stated_spot_rate",
    "typical_price",
    "unpriced_notes",
]
