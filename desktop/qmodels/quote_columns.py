"""The quote table's columns, the kinds of quote it shows, its filter and the wording of its reclaim rates
(desktop/qmodels/quotes.py is the table model over them, desktop/qmodels/quote_window.py its window of rows)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, cast

from PySide6 import QtCore
from PySide6.QtCore import QCoreApplication, QLocale, Qt

from desktop import fmt
from desktop.quote_pricing import Row
from planner.store import ViewFilter

if TYPE_CHECKING:
    from planner.store import QuoteStore, StoreProtocol

QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)
ROW_ROLE = Qt.ItemDataRole.UserRole + 2  # the whole row dict
CONTEXT = "QuoteTableModel"


def model_tr(text: str) -> str:
    return QCoreApplication.translate(CONTEXT, text)


@dataclass(frozen=True)
class Column:
    key: str  # store column, or "derived:<name>"
    header: str  # marked with QT_TRANSLATE_NOOP(CONTEXT, ...)
    # "" (read-only) | text | gpu | kind | interconnect | currency | money | int | float | date | rate (a number
    # that may stay empty: typed as text, so clearing the cell clears the value)
    editor: str = ""
    numeric: bool = False
    tooltip: str = ""

    @property
    def derived(self) -> bool:
        return self.key.startswith("derived:")


RENTAL_COLUMNS = (
    Column("gpu", QT_TRANSLATE_NOOP("QuoteTableModel", "GPU"), "gpu"),
    Column("provider", QT_TRANSLATE_NOOP("QuoteTableModel", "Provider"), "text"),
    Column("kind", QT_TRANSLATE_NOOP("QuoteTableModel", "Kind"), "kind"),
    Column("price_per_gpu_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Price / GPU-h"), "money", True),
    Column("currency", QT_TRANSLATE_NOOP("QuoteTableModel", "Currency"), "currency"),
    Column("derived:display_price", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / GPU-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU-hour in the display currency (Settings)")),
    Column("interruptions_per_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Reclaims / h"), "rate", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Spot: how often the provider reclaims an instance, per instance-hour (a number >= 0); "
                             "empty: not stated (the provider's typical rate is assumed)")),
    Column("derived:per_useful_gpu_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / useful GPU-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Spot: the price per GPU-hour of progress, counting the work lost "
                             "since the last checkpoint and the restart after each reclaim (a cell's tooltip "
                             "gives its assumptions)")),
    Column("derived:per_pflop_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / PFLOP-h bf16"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price of one hour of 1 PFLOP/s of dense bf16 matmul")),
    Column("derived:per_tbps_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / TB/s-h"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price of one hour of 1 TB/s of memory bandwidth")),
    Column("derived:basis", QT_TRANSLATE_NOOP("QuoteTableModel", "Basis"), "", False,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Whether the per-PFLOP and per-TB/s prices use measured figures or the catalog spec")),
    Column("offer", QT_TRANSLATE_NOOP("QuoteTableModel", "Offer"), "text"),
    Column("gpus_per_instance", QT_TRANSLATE_NOOP("QuoteTableModel", "GPUs"), "int", True),
    Column("quoted_on", QT_TRANSLATE_NOOP("QuoteTableModel", "Quoted on"), "date"),
    Column("valid_until", QT_TRANSLATE_NOOP("QuoteTableModel", "Valid until"), "date"),
    Column("region", QT_TRANSLATE_NOOP("QuoteTableModel", "Region"), "text"),
    Column("interconnect", QT_TRANSLATE_NOOP("QuoteTableModel", "Interconnect"), "interconnect"),
    Column("min_term_hours", QT_TRANSLATE_NOOP("QuoteTableModel", "Min. term (h)"), "float", True),
    Column("price_per_instance_hour", QT_TRANSLATE_NOOP("QuoteTableModel", "Price / instance-h"), "money", True),
    Column("source", QT_TRANSLATE_NOOP("QuoteTableModel", "Source"), "text"),
    Column("note", QT_TRANSLATE_NOOP("QuoteTableModel", "Note"), "text"),
)  # fmt: skip

PURCHASE_COLUMNS = (
    Column("gpu", QT_TRANSLATE_NOOP("QuoteTableModel", "GPU"), "gpu"),
    Column("vendor", QT_TRANSLATE_NOOP("QuoteTableModel", "Vendor"), "text"),
    Column("gpus", QT_TRANSLATE_NOOP("QuoteTableModel", "GPUs"), "int", True),
    Column("price", QT_TRANSLATE_NOOP("QuoteTableModel", "Price (total)"), "money", True),
    Column("currency", QT_TRANSLATE_NOOP("QuoteTableModel", "Currency"), "currency"),
    Column("derived:display_price", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / GPU"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU in the display currency, before server overhead")),
    Column("derived:per_tflops", QT_TRANSLATE_NOOP("QuoteTableModel", "{0} / bf16 TFLOPS"), "", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Price per GPU divided by its dense bf16 TFLOPS")),
    Column("derived:basis", QT_TRANSLATE_NOOP("QuoteTableModel", "Basis"), "", False,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Whether per-TFLOPS uses a measured figure or the catalog spec")),
    Column("quoted_on", QT_TRANSLATE_NOOP("QuoteTableModel", "Quoted on"), "date"),
    Column("server_overhead_fraction", QT_TRANSLATE_NOOP("QuoteTableModel", "Server overhead"), "float", True,
           QT_TRANSLATE_NOOP("QuoteTableModel", "Server, network and rack as a fraction of the GPU price (0.3 = +30%)")),
    Column("power_w", QT_TRANSLATE_NOOP("QuoteTableModel", "Power / GPU (W)"), "float", True),
    Column("source", QT_TRANSLATE_NOOP("QuoteTableModel", "Source"), "text"),
    Column("note", QT_TRANSLATE_NOOP("QuoteTableModel", "Note"), "text"),
)  # fmt: skip

TYPICAL_RATE = QT_TRANSLATE_NOOP("QuoteTableModel", "typical")


def rate_text(rate: float) -> str:
    """A reclaim rate with up to three significant digits and no trailing zeros: 0.01 -> "0.01", 0.000305 ->
    "0.000305" (the locale's decimal mark)."""
    text = fmt.significant(rate, 3)
    point = QLocale().decimalPoint()
    return text.rstrip("0").rstrip(point) if point in text else text


def rate_tooltip(value: Any, row: Row) -> str | None:
    """What a reclaim rate cell means: the quote's own figure, or the typical rate assumed for a spot quote."""
    from planner.scale import DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR

    translate = QCoreApplication.translate
    if value not in (None, ""):
        return translate("QuoteTableModel", "{0} reclaims per instance-hour, as the quote states").format(
            rate_text(float(value))
        )
    if row.get("kind") != "spot":
        return None
    return translate(
        "QuoteTableModel",
        "Not stated: the provider's typical rate is assumed, {0} reclaims per instance-hour (AWS Spot Instance "
        "Advisor's top band: more than 20% of instances reclaimed a month)",
    ).format(rate_text(DEFAULT_SPOT_INTERRUPTIONS_PER_NODE_HOUR))


@dataclass(frozen=True)
class Derived:
    """Derived figures of one quote, already formatted, with sort values and tooltips."""

    texts: dict[str, str]
    sort: dict[str, float]
    tooltips: dict[str, str]


class QuoteKind:
    """The store's repository and the table's columns for one kind of quote ("rental" or "purchase")."""

    def __init__(self, name: str, store: StoreProtocol) -> None:
        self.name = name
        self.columns = RENTAL_COLUMNS if name == "rental" else PURCHASE_COLUMNS
        self.headers = tuple(c.header for c in self.columns)
        self.quotes: QuoteStore[Any] = store.rental_quotes if name == "rental" else store.purchase_quotes
        self.list: Callable[[], Sequence[Row]] = (
            store.rental_quotes.find if name == "rental" else store.purchase_quotes.find
        )
        self.add = self.quotes.add
        self.get = self.quotes.get
        self.update = self.quotes.update
        self.delete = self.quotes.delete
        self.restore = self.quotes.restore
        self.validate = self.quotes.validate
        self.export_csv = self.quotes.export_csv
        self.import_csv = self.quotes.import_csv
        self.store_columns = tuple(c.key for c in self.columns if not c.derived)
        self.provider_key = "provider" if name == "rental" else "vendor"


@dataclass(frozen=True)
class QuoteFilter:
    """What the quote table shows: one GPU, provider (or vendor) text, kind, currency, reference prices or not."""

    gpu: str = ""
    provider: str = ""
    kind: str = ""
    currency: str = ""
    show_reference: bool = True

    @property
    def active(self) -> bool:
        return bool(self.gpu or self.provider or self.kind or self.currency or not self.show_reference)

    def accepts(self, row: Row, provider_key: str) -> bool:
        if not self.show_reference and row.get("origin") == "reference":
            return False
        if self.gpu and row.get("gpu") != self.gpu:
            return False
        if self.provider and self.provider.casefold() not in str(row.get(provider_key) or "").casefold():
            return False
        if self.kind and row.get("kind", self.kind) != self.kind:
            return False
        return not (self.currency and row.get("currency") != self.currency)

    def view(self) -> ViewFilter:
        """The same filter for the store's SQL (planner/store/quote_view.py says it for every row at once)."""
        return ViewFilter(self.gpu, self.provider, self.kind, self.currency, self.show_reference)

