"""Pricing figures of the Quotes page, computed without Qt widgets so they can run on a worker thread.

A ``Pricing`` is an immutable snapshot taken on the GUI thread (display currency, exchange rates, the throughput
basis of every catalog GPU): the quote table's derived columns, its sorting by derived columns and the price
chart all read it, and a background job can use it while the GUI thread goes on. Reading the rates from the
store once per snapshot (instead of once per cell) is what keeps 100,000 quotes fast.

Units: prices per GPU-hour (rental) or per GPU (purchase) in the display currency; FLOP/s; bytes/s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

if TYPE_CHECKING:
    from planner.gpus import GpuSpec
    from planner.messages import Message
    from planner.money import ExchangeRates
    from planner.store import ProbeRun, StoreProtocol, ViewChart

# A stored quote as the Quotes page holds it: planner.store.RentalQuoteRow or PurchaseQuoteRow, read by column.
Row = Mapping[str, Any]
# A background job's progress callback: (fraction done 0..1, stage).
LoadProgress = Callable[[float, str], None]

# Above this many quotes the table loads, sorts, filters and charts in the JobRunner instead of on the GUI
# thread (below it every step takes a few milliseconds and stays synchronous, simpler to reason about).
SYNC_ROWS = 5_000
CHART_POINTS_PER_GROUP = 120  # per GPU model and origin; more quotes than this are drawn as price quantiles


@dataclass(frozen=True)
class Basis:
    """Throughput figures one price is divided by, and which of them were measured (else catalog spec)."""

    bf16_flops: float | None = None  # FLOP/s, dense bf16
    bandwidth: float | None = None  # bytes/s
    measured: frozenset[str] = field(default_factory=frozenset)  # subset of {"bf16", "bandwidth"}


def measured_figures(
    runs: Iterable[ProbeRun], match_gpu: Callable[[str], GpuSpec | None]
) -> dict[str, dict[str, float]]:
    """Best measured bf16 FLOP/s and memory B/s per catalog GPU id, from stored probe runs (store.probe_runs).

    A run counts for a GPU type only when all its GPUs are of that one type (the run's key figures are its
    best device, so a mixed box cannot be attributed). ``match_gpu`` is AppContext.match_gpu (a CPU matches
    no GPU type).
    """
    figures: dict[str, dict[str, float]] = {}
    for run in runs:
        ids = {spec.id for spec in (match_gpu(name) for name in run.devices) if spec is not None}
        if len(ids) != 1:
            continue
        entry = figures.setdefault(ids.pop(), {})
        for key, value in (
            ("bf16", run.best_bf16_flop_per_s),
            ("bandwidth", run.memory_bandwidth_bytes_per_s),
        ):
            if value:
                entry[key] = max(entry.get(key, 0.0), float(value))
    return figures


def basis_for(spec: GpuSpec | None, measured: Mapping[str, float]) -> Basis:
    """Measured figures where there are some, else the catalog spec (``spec`` may be None)."""
    bf16, bandwidth, used = None, None, set()
    if measured.get("bf16"):
        bf16 = float(measured["bf16"])
        used.add("bf16")
    elif spec is not None and spec.tflops.get("bf16"):
        bf16 = float(spec.tflops["bf16"]) * 1e12
    if measured.get("bandwidth"):
        bandwidth = float(measured["bandwidth"])
        used.add("bandwidth")
    elif spec is not None and spec.memory_bandwidth_bytes_per_s:
        bandwidth = float(spec.memory_bandwidth_bytes_per_s)
    return Basis(bf16, bandwidth, frozenset(used))


def no_rate_reason(source: str, target: str) -> str:
    # Same text (and translation context) as AppContext.to_display_currency, so both read alike.
    return QCoreApplication.translate(
        "AppContext", "No exchange rate for {0} → {1}: set one in Settings (Exchange rates)."
    ).format(source, target)


@dataclass(frozen=True)
class SpotOverhead:
    """What a spot quote's reclaims cost a job on one of its instances (planner.costs.spot_line): extra billed
    hours per useful hour against the same job on demand (None: spot cannot run it, ``problem`` says why), the
    reclaim rate used and whether the quote states it (else the provider's typical rate)."""

    fraction: float | None
    rate_per_instance_hour: float
    stated: bool
    gpus: int
    problem: Message | None = None


@dataclass(frozen=True)
class Pricing:
    """Display currency, conversion factors into it, the throughput basis and the spec per catalog GPU id."""

    currency: str
    factors: Mapping[str, float]  # source currency -> display-currency units per unit
    basis: Mapping[str, Basis]
    problem: str = ""  # why the rates could not be read, if they could not
    specs: Mapping[str, GpuSpec] = field(default_factory=dict)  # for the spot quotes' failure rates and nodes
    # (GPU id, GPUs per instance, reclaim rate) -> SpotOverhead: a sort of 100,000 spot quotes computes each once
    _spot_cache: dict[tuple[str, int, float, bool], SpotOverhead] = field(
        default_factory=dict, compare=False, repr=False
    )

    @classmethod
    def build(
        cls,
        currency: str,
        rates: ExchangeRates | None,
        basis: Mapping[str, Basis],
        problem: str = "",
        specs: Mapping[str, GpuSpec] | None = None,
    ) -> Pricing:
        """``rates``: planner.money.ExchangeRates (None when they could not be read)."""
        factors = {currency: 1.0}
        if rates is not None:
            for source in rates.to_usd:
                if currency in rates.to_usd:
                    factors[source] = rates.rate(source, currency)
        return cls(currency, factors, dict(basis), problem, dict(specs or {}))

    def spot_overhead(self, row: Mapping[str, Any]) -> SpotOverhead | None:
        """A spot quote's reclaim cost for a job on one of its instances, with the assumptions of
        planner.costs.spot_line (a 1-minute checkpoint at Daly's interval, a 15-minute restart); None for another
        kind or a GPU outside the catalog. A quote without a rate takes the provider's typical one."""
        spec = self.specs.get(str(row.get("gpu") or ""))
        if row.get("kind") != "spot" or spec is None:
            return None
        from planner.costs import spot_line
        from planner.errors import UserError
        from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR

        stated = row.get("interruptions_per_hour")
        rate = float(stated) if stated is not None else DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR
        gpus = max(int(row.get("gpus_per_instance") or 1), 1)
        key = (spec.id, gpus, rate, stated is not None)
        found = self._spot_cache.get(key)
        if found is None:
            try:
                line = spot_line(spec, gpus, rate, gpus_per_node=gpus)  # one instance, one node
                found = SpotOverhead(line.overhead_fraction, rate, stated is not None, gpus)
            except UserError as exc:  # a rate so high the job never progresses: said in the cell's tooltip
                found = SpotOverhead(None, rate, stated is not None, gpus, exc.message)
            self._spot_cache[key] = found
        return found

    def convert(self, amount: float, source: str) -> tuple[float | None, str]:
        """(amount in the display currency, "") or (None, the reason); never an assumed rate."""
        source = str(source or "").upper()
        factor = self.factors.get(source)
        if factor is None:
            return None, self.problem or no_rate_reason(source, self.currency)
        return amount * factor, ""

    @staticmethod
    def unit_amount(kind: str, row: Mapping[str, Any]) -> float | None:
        """Price per GPU-hour (rental) or per GPU (purchase) in the quote's own currency."""
        if kind == "rental":
            value = row.get("price_per_gpu_hour")
            return None if value is None else float(value)
        price = row.get("price")
        if price is None:
            return None
        return float(price) / max(int(row.get("gpus") or 1), 1)

    def display_price(self, kind: str, row: Mapping[str, Any]) -> float | None:
        amount = self.unit_amount(kind, row)
        if amount is None:
            return None
        factor = self.factors.get(str(row.get("currency") or "").upper())
        return None if factor is None else amount * factor

    def derived_values(self, kind: str, row: Mapping[str, Any]) -> dict[str, float]:
        """The derived figures of one quote that exist: display_price, per_pflop_hour and per_tbps_hour
        (rental) or per_tflops (purchase), all in the display currency."""
        price = self.display_price(kind, row)
        if price is None:
            return {}
        values = {"display_price": price}
        basis = self.basis.get(str(row.get("gpu") or ""))
        if basis is None:
            return values
        if kind == "rental":
            spot = self.spot_overhead(row)
            if spot is not None and spot.fraction is not None:
                values["per_useful_gpu_hour"] = price * (1 + spot.fraction)
            if basis.bf16_flops:
                values["per_pflop_hour"] = price / (basis.bf16_flops / 1e15)
            if basis.bandwidth:
                values["per_tbps_hour"] = price / (basis.bandwidth / 1e12)
        elif basis.bf16_flops:
            values["per_tflops"] = price / (basis.bf16_flops / 1e12)
        return values

    def basis_rank(self, row: Mapping[str, Any]) -> int:
        """Sort order of the Basis column: 0 measured, 1 partly measured, 2 spec, 3 no spec."""
        basis = self.basis.get(str(row.get("gpu") or ""))
        if basis is None or (basis.bf16_flops is None and basis.bandwidth is None):
            return 3
        return {2: 0, 1: 1}.get(len(basis.measured), 2)


# --------------------------------------------------------------------------------------------------------------
# Chart points


@dataclass(frozen=True)
class ChartData:
    points: list[Any]  # what make_point returns: desktop.charts.price_chart.PricePoint
    left_out: int  # quotes without an exchange rate
    total: int  # quotes with a price, before summarising dense groups


def chart_points(
    rows: Iterable[Row],
    kind: str,
    pricing: Pricing,
    names: Mapping[str, str],
    make_point: Callable[[str, float, bool, str], Any],
) -> ChartData:
    """Points for the price chart, one per quote; a GPU model with more than CHART_POINTS_PER_GROUP quotes of
    one origin is drawn as that many evenly spaced price quantiles (cheapest and dearest always included), so
    100,000 quotes draw as fast as 100 and still show the spread. ``make_point(gpu, price, reference, label)``.
    """
    groups: dict[tuple[str, bool], list[tuple[float, str]]] = {}
    left_out = 0
    for row in rows:
        price = pricing.display_price(kind, row)
        if price is None:
            left_out += 1
            continue
        gpu = str(row.get("gpu") or "")
        who = row.get("provider") or row.get("vendor") or ""
        label = f"{who} {row.get('quoted_on') or ''}"
        groups.setdefault((names.get(gpu, gpu), row.get("origin") == "reference"), []).append((price, label))
    points, total = [], 0
    for (gpu, reference), entries in groups.items():
        total += len(entries)
        for price, label in _quantiles(entries, CHART_POINTS_PER_GROUP):
            points.append(make_point(gpu, price, reference, label))
    return ChartData(points, left_out, total)


def chart_of_view(chart: ViewChart, make_point: Callable[[str, float, bool, str], Any]) -> ChartData:
    """chart_points' figure from the store's SQL (planner.store.ViewChart: the same groups and quantiles, picked
    without reading every quote)."""
    points = [make_point(p.group, p.price, p.reference, f"{p.who} {p.quoted_on}") for p in chart.picks]
    return ChartData(points, chart.left_out, chart.total)


def _quantiles(entries: list[tuple[float, str]], limit: int) -> list[tuple[float, str]]:
    if len(entries) <= limit:
        return entries
    ordered = sorted(entries, key=lambda entry: entry[0])
    last = len(ordered) - 1
    return [ordered[round(i * last / (limit - 1))] for i in range(limit)]


# --------------------------------------------------------------------------------------------------------------
# Counting


def quote_count(store: StoreProtocol, kind: str) -> int:
    """How many quotes of ``kind`` ("rental" | "purchase") the store holds (one indexed count)."""
    return (store.rental_quotes if kind == "rental" else store.purchase_quotes).count()
