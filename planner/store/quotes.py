"""Rental and purchase quotes: the columns, the validation shared by CSV import and the GUI editor, CSV files.

A quote comes in as a mapping of column -> value (str from a CSV cell or a form field, or a number). Cleaning
returns a normalised row (numbers as numbers, the GPU as its catalog id, empty text as "") plus the reasons it
is refused; an empty reason list means the row can be stored.

CSV conventions (README section "Quotes and history" documents them for users):
- UTF-8 (a byte-order mark is fine), comma- or semicolon-separated, a header row naming the columns.
- Row numbers are spreadsheet row numbers: the header is row 1, the first quote is row 2.
- On export a text cell that starts with = + - @ (or a tab / carriage return) gets a leading apostrophe so a
  spreadsheet shows it as text instead of running it as a formula; import removes that one apostrophe again.
"""

from __future__ import annotations

import csv
import io
import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from planner.errors import UserError

RENTAL_COLUMNS = (
    "provider",
    "offer",
    "gpu",
    "gpus_per_instance",
    "price_per_gpu_hour",
    "price_per_instance_hour",
    "currency",
    "kind",
    "region",
    "interconnect",
    "min_term_hours",
    "quoted_on",
    "valid_until",
    "source",
    "note",
)
PURCHASE_COLUMNS = (
    "vendor",
    "gpu",
    "gpus",
    "price",
    "currency",
    "quoted_on",
    "server_overhead_fraction",
    "power_w",
    "source",
    "note",
)
KINDS = ("on-demand", "spot", "reserved-1y", "reserved-3y", "committed")
INTERCONNECTS = ("nvlink", "pcie", "infiniband")
KNOWN_CURRENCIES = ("USD", "EUR", "RUB")
# Two quotes are the same quote when these agree (text compared without regard to letter case).
RENTAL_DEDUPE_COLUMNS = (
    "provider",
    "offer",
    "gpu",
    "kind",
    "region",
    "price_per_gpu_hour",
    "currency",
    "quoted_on",
)
PURCHASE_DEDUPE_COLUMNS = ("vendor", "gpu", "gpus", "price", "currency", "quoted_on")
# Per-instance and per-GPU prices given together must agree within this fraction.
PRICE_AGREEMENT_FRACTION = 0.01
SHORT_TEXT_MAX = 200
LONG_TEXT_MAX = 2000
FORMULA_PREFIXES = ("=", "+", "-", "@", "\t", "\r")
MAX_CSV_BYTES = 256 * 1024 * 1024  # far above any real quote sheet; refuses a mistaken multi-GB file quickly
# Upper limits that hold in any currency unit (an H100 rents for about 2.5 USD or 65,000 VND an hour and sells
# for about 30,000 USD or 8e8 VND): anything above is a typo, and an unbounded number would overflow to
# infinity in derived prices (1e308 x 8 GPUs), which JSON cannot carry and a CSV round trip cannot restore.
# Limits are per GPU so that a quote for a whole cluster is never refused for its size alone.
MAX_GPUS_PER_QUOTE = 100_000
MAX_PRICE_PER_GPU_HOUR = 1e6
MAX_PURCHASE_PRICE_PER_GPU = 1e12  # the rent-vs-buy limit (planner.costs.MAX_PURCHASE_PER_GPU)
MAX_POWER_W_PER_GPU = 5000.0  # the rent-vs-buy limit; the largest GPU modules draw about 1,200-1,400 W
MAX_NAMED_COLUMNS = 10  # a header error names at most this many columns, then "and N more"

_DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
_CURRENCY_RE = re.compile(r"^[A-Z]{3}$")
_DECIMAL_COMMA_RE = re.compile(r"^-?\d+,\d+$")


# ----------------------------------------------------------------------------------------------------------------
# GPU names -> catalog ids
# ----------------------------------------------------------------------------------------------------------------


class GpuResolver:
    """Maps what a person typed ("H100 SXM", "h100-sxm") to the catalog id, with the catalog's own suggestions.

    Uses planner.gpus (catalog + the user's own GPU types) when it is installed; without it any non-empty name is
    kept as a lower-case slug. Results are cached per distinct text, so a 200,000-row file costs a few lookups.
    """

    def __init__(self, extra: Sequence[Any] = ()) -> None:
        self._extra = tuple(extra)
        self._cache: dict[str, tuple[str, str | None]] = {}
        try:
            from planner import gpus as gpu_catalog
        except ModuleNotFoundError as exc:
            if exc.name != "planner.gpus":
                raise
            gpu_catalog = None
        self._catalog = gpu_catalog

    def resolve(self, text: str) -> tuple[str, str | None]:
        """(catalog id, None) or (text, reason it is refused)."""
        if text not in self._cache:
            self._cache[text] = self._lookup(text)
        return self._cache[text]

    def _lookup(self, text: str) -> tuple[str, str | None]:
        if self._catalog is None:
            return re.sub(r"\s+", "-", text.strip().lower()), None
        try:
            return self._catalog.get_gpu(text, extra=self._extra).id, None
        except UserError as exc:
            message = str(exc)
        if "did you mean" not in message:
            hint = self._lookalike_hint(text)
            if hint:
                message = f"unknown GPU {text!r} (did you mean {hint}?)"
        return text, f"gpu: {message}"

    def _lookalike_hint(self, text: str) -> str | None:
        """Suggestions for a name typed with the letter O for zero ("H1OO"), which plain fuzzy matching misses."""
        if not re.search(r"\d", text):
            return None
        folded = re.sub(r"(?<=[\dO])O|O(?=[\dO])", "0", text, flags=re.IGNORECASE)
        if folded == text:
            return None
        try:
            return self._catalog.get_gpu(folded, extra=self._extra).id
        except UserError as exc:
            found = re.search(r"did you mean:? ([^?]+)\?", str(exc))
            return found.group(1) if found else None


# ----------------------------------------------------------------------------------------------------------------
# Cell parsing
# ----------------------------------------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else str(value)
    text = text.strip()
    # Undo the export's formula guard: "'=SUM(A1)" came from "=SUM(A1)".
    if len(text) > 1 and text[0] == "'" and text[1] in FORMULA_PREFIXES[:4]:
        text = text[1:]
    return text


def _is_blank(value: Any) -> bool:
    return value is None or (isinstance(value, str) and not value.strip())


def _number(value: Any, name: str, reasons: list[str]) -> float | None:
    """A finite number from a cell ("3.49", "3,49", 3.49); None (and a reason) when it is not one."""
    if isinstance(value, bool):
        reasons.append(f"{name} must be a number, got {value!r}")
        return None
    if isinstance(value, (int, float)):
        number = float(value)
    else:
        text = str(value).strip().replace("\u00a0", "").replace(" ", "")
        if _DECIMAL_COMMA_RE.match(text):  # "3,49" as written where the comma is the decimal mark
            text = text.replace(",", ".")
        try:
            number = float(text)
        except ValueError:
            reasons.append(f"{name} must be a number, got {str(value).strip()[:40]!r}")
            return None
    if not math.isfinite(number):
        reasons.append(f"{name} must be a finite number, got {value!r}")
        return None
    return number


def _positive(value: Any, name: str, reasons: list[str]) -> float | None:
    number = _number(value, name, reasons)
    if number is not None and number <= 0:
        reasons.append(f"{name} must be > 0")
        return None
    return number


def _at_most(
    number: float | None, limit: float, name: str, reasons: list[str], unit: str = ""
) -> float | None:
    """The number, or None (and a reason) when it is above `limit`."""
    if number is not None and number > limit:
        reasons.append(f"{name} must be at most {limit:,.0f}{unit}, got {number:g}")
        return None
    return number


def _gpu_count(value: Any, name: str, reasons: list[str]) -> int | None:
    """A whole number of GPUs, 1..MAX_GPUS_PER_QUOTE (checked before int(), so 1e23 never reaches SQLite)."""
    number = _number(value, name, reasons)
    if number is None:
        return None
    if not 1 <= number <= MAX_GPUS_PER_QUOTE or number != int(number):
        shown = str(value).strip()[:40] if isinstance(value, str) else f"{value!r}"[:40]
        reasons.append(f"{name} must be a whole number between 1 and {MAX_GPUS_PER_QUOTE:,}, got {shown}")
        return None
    return int(number)


def _iso_date(value: Any, name: str, reasons: list[str]) -> str | None:
    text = _text(value)
    if isinstance(value, date):
        return value.isoformat()
    if _DATE_RE.match(text):
        try:
            return date.fromisoformat(text).isoformat()
        except ValueError:
            pass
    reasons.append(f"{name} must be a date YYYY-MM-DD, got {text[:40]!r}")
    return None


def _currency(value: Any, reasons: list[str]) -> str | None:
    text = _text(value).upper()
    if not _CURRENCY_RE.match(text):
        shown = ", ".join(KNOWN_CURRENCIES)
        reasons.append(
            f"currency must be one of {shown} or another 3-letter ISO code, got {_text(value)[:20]!r}"
        )
        return None
    return text


def _bounded_text(value: Any, name: str, limit: int, reasons: list[str]) -> str:
    text = _text(value)
    if len(text) > limit:
        reasons.append(f"{name} is longer than {limit} characters")
    return text


def _required_gpu(value: Any, gpus: GpuResolver | None, reasons: list[str]) -> str:
    """The GPU's catalog id; "" with a reason when the cell is empty (an unknown GPU gets its own reason)."""
    gpu_text = _bounded_text(value, "gpu", SHORT_TEXT_MAX, reasons)
    if not gpu_text:
        reasons.append("gpu is required")
        return ""
    gpu, gpu_reason = (gpus or GpuResolver()).resolve(gpu_text)
    if gpu_reason:
        reasons.append(gpu_reason)
    return gpu


def _required_currency(value: Any, reasons: list[str]) -> str | None:
    if _is_blank(value):
        reasons.append("currency is required (USD, EUR, RUB or another 3-letter ISO code)")
        return None
    return _currency(value, reasons)


def _required_date(value: Any, name: str, reasons: list[str]) -> str | None:
    if _is_blank(value):
        reasons.append(f"{name} must be a date YYYY-MM-DD (it is empty)")
        return None
    return _iso_date(value, name, reasons)


# ----------------------------------------------------------------------------------------------------------------
# Rental quotes
# ----------------------------------------------------------------------------------------------------------------


def clean_rental_quote(quote: Mapping[str, Any], gpus: GpuResolver | None = None) -> tuple[dict, list[str]]:
    """Normalise one rental quote; returns (row with every RENTAL_COLUMNS key, reasons it is refused).

    Prices are per hour in `currency`. A missing per-GPU price is the instance price / GPUs per instance and a
    missing instance price is per-GPU x GPUs; when both are given they must agree within 1 %.
    """
    reasons: list[str] = []
    row: dict[str, Any] = {}
    row["provider"] = _bounded_text(quote.get("provider"), "provider", SHORT_TEXT_MAX, reasons)
    if not row["provider"]:
        reasons.append("provider is required")
    row["offer"] = _bounded_text(quote.get("offer"), "offer", SHORT_TEXT_MAX, reasons)
    row["gpu"] = _required_gpu(quote.get("gpu"), gpus, reasons)

    count = quote.get("gpus_per_instance")
    row["gpus_per_instance"] = 1 if _is_blank(count) else _gpu_count(count, "gpus_per_instance", reasons)
    _rental_prices(quote, row, reasons)

    row["currency"] = _required_currency(quote.get("currency"), reasons)
    kind = _text(quote.get("kind")).lower() or "on-demand"
    if kind not in KINDS:
        reasons.append(f"kind must be one of {', '.join(KINDS)}, got {_text(quote.get('kind'))[:40]!r}")
    row["kind"] = kind
    row["region"] = _bounded_text(quote.get("region"), "region", SHORT_TEXT_MAX, reasons)
    interconnect = _text(quote.get("interconnect")).lower()
    if interconnect and interconnect not in INTERCONNECTS:
        reasons.append(
            f"interconnect must be one of {', '.join(INTERCONNECTS)} or empty, got {_text(quote.get('interconnect'))[:40]!r}"
        )
    row["interconnect"] = interconnect
    term = quote.get("min_term_hours")
    row["min_term_hours"] = None
    if not _is_blank(term):
        hours = _number(term, "min_term_hours", reasons)
        if hours is not None and hours < 0:
            reasons.append("min_term_hours must be >= 0")
        row["min_term_hours"] = hours
    _quote_dates(quote, row, reasons)
    row["source"] = _bounded_text(quote.get("source"), "source", LONG_TEXT_MAX, reasons)
    row["note"] = _bounded_text(quote.get("note"), "note", LONG_TEXT_MAX, reasons)
    return row, reasons


def _rental_prices(quote: Mapping[str, Any], row: dict, reasons: list[str]) -> None:
    per_gpu_cell, per_instance_cell = quote.get("price_per_gpu_hour"), quote.get("price_per_instance_hour")
    count = row["gpus_per_instance"]
    per_gpu = None if _is_blank(per_gpu_cell) else _positive(per_gpu_cell, "price_per_gpu_hour", reasons)
    per_gpu = _at_most(per_gpu, MAX_PRICE_PER_GPU_HOUR, "price_per_gpu_hour", reasons)
    per_instance = (
        None
        if _is_blank(per_instance_cell)
        else _positive(per_instance_cell, "price_per_instance_hour", reasons)
    )
    instance_limit = MAX_PRICE_PER_GPU_HOUR * (count or MAX_GPUS_PER_QUOTE)  # unknown count: lenient
    per_instance = _at_most(
        per_instance,
        instance_limit,
        "price_per_instance_hour",
        reasons,
        f" ({MAX_PRICE_PER_GPU_HOUR:,.0f} per GPU)",
    )
    if _is_blank(per_gpu_cell) and _is_blank(per_instance_cell):
        reasons.append("price_per_gpu_hour or price_per_instance_hour is required")
    elif count is not None and per_gpu is not None and per_instance is None and _is_blank(per_instance_cell):
        per_instance = per_gpu * count
    elif count is not None and per_instance is not None and per_gpu is None and _is_blank(per_gpu_cell):
        per_gpu = per_instance / count
    elif count is not None and per_gpu is not None and per_instance is not None:
        expected = per_gpu * count
        if abs(per_instance - expected) > PRICE_AGREEMENT_FRACTION * expected:
            reasons.append(
                f"price_per_instance_hour {per_instance:g} does not match price_per_gpu_hour {per_gpu:g} x "
                f"{count} GPUs = {expected:g} (they must agree within 1%)"
            )
    # A derived price (the other one divided or multiplied by the GPU count) must be a usable number too.
    for name, price in (("price_per_gpu_hour", per_gpu), ("price_per_instance_hour", per_instance)):
        if price is not None and not (math.isfinite(price) and price > 0):
            reasons.append(f"{name} works out to {price:g}, which is not a usable price")
    row["price_per_gpu_hour"], row["price_per_instance_hour"] = per_gpu, per_instance


def _quote_dates(quote: Mapping[str, Any], row: dict, reasons: list[str]) -> None:
    row["quoted_on"] = _required_date(quote.get("quoted_on"), "quoted_on", reasons)
    row["valid_until"] = ""
    if not _is_blank(quote.get("valid_until")):
        valid_until = _iso_date(quote.get("valid_until"), "valid_until", reasons)
        if valid_until and row["quoted_on"] and valid_until < row["quoted_on"]:
            reasons.append("valid_until must not be before quoted_on")
        row["valid_until"] = valid_until or ""


def validate_rental_quote(quote: Mapping[str, Any], gpus: GpuResolver | None = None) -> list[str]:
    """Reasons this rental quote cannot be stored (empty list: it can). Shared by CSV import and the GUI."""
    return clean_rental_quote(quote, gpus)[1]


# ----------------------------------------------------------------------------------------------------------------
# Purchase quotes
# ----------------------------------------------------------------------------------------------------------------


def clean_purchase_quote(quote: Mapping[str, Any], gpus: GpuResolver | None = None) -> tuple[dict, list[str]]:
    """Normalise one purchase quote. `price` is the whole quote for `gpus` GPUs; `server_overhead_fraction` is the
    server, network and rack cost as a fraction of that price (0.3 = +30 %); `power_w` is watts per GPU."""
    reasons: list[str] = []
    row: dict[str, Any] = {}
    row["vendor"] = _bounded_text(quote.get("vendor"), "vendor", SHORT_TEXT_MAX, reasons)
    if not row["vendor"]:
        reasons.append("vendor is required")
    row["gpu"] = _required_gpu(quote.get("gpu"), gpus, reasons)
    count = quote.get("gpus")
    row["gpus"] = 1 if _is_blank(count) else _gpu_count(count, "gpus", reasons)
    if _is_blank(quote.get("price")):
        reasons.append("price is required")
        row["price"] = None
    else:
        price = _positive(quote.get("price"), "price", reasons)
        limit = MAX_PURCHASE_PRICE_PER_GPU * (row["gpus"] or MAX_GPUS_PER_QUOTE)  # unknown count: lenient
        row["price"] = _at_most(
            price, limit, "price", reasons, f" ({MAX_PURCHASE_PRICE_PER_GPU:,.0f} per GPU)"
        )
    row["currency"] = _required_currency(quote.get("currency"), reasons)
    row["quoted_on"] = _required_date(quote.get("quoted_on"), "quoted_on", reasons)
    overhead = quote.get("server_overhead_fraction")
    row["server_overhead_fraction"] = None
    if not _is_blank(overhead):
        fraction = _number(overhead, "server_overhead_fraction", reasons)
        if fraction is not None and not 0 <= fraction <= 10:
            reasons.append("server_overhead_fraction must be between 0 and 10 (0.3 means +30%)")
        row["server_overhead_fraction"] = fraction
    power = quote.get("power_w")
    row["power_w"] = (
        None
        if _is_blank(power)
        else _at_most(_positive(power, "power_w", reasons), MAX_POWER_W_PER_GPU, "power_w", reasons, " W")
    )
    row["source"] = _bounded_text(quote.get("source"), "source", LONG_TEXT_MAX, reasons)
    row["note"] = _bounded_text(quote.get("note"), "note", LONG_TEXT_MAX, reasons)
    return row, reasons


def validate_purchase_quote(quote: Mapping[str, Any], gpus: GpuResolver | None = None) -> list[str]:
    return clean_purchase_quote(quote, gpus)[1]


# ----------------------------------------------------------------------------------------------------------------
# One description per quote table, so import/export/dedupe code is written once
# ----------------------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class QuoteTable:
    table: str
    label: str  # "rental quote" / "purchase quote", for messages
    columns: tuple[str, ...]
    dedupe_columns: tuple[str, ...]
    required_header: frozenset[str]  # columns a CSV header must name
    clean: Callable[[Mapping[str, Any], GpuResolver | None], tuple[dict, list[str]]]
    text_columns: frozenset[str]


RENTAL = QuoteTable(
    table="rental_quotes",
    label="rental quote",
    columns=RENTAL_COLUMNS,
    dedupe_columns=RENTAL_DEDUPE_COLUMNS,
    required_header=frozenset({"provider", "gpu", "currency", "quoted_on"}),
    clean=clean_rental_quote,
    text_columns=frozenset(
        {
            "provider",
            "offer",
            "gpu",
            "currency",
            "kind",
            "region",
            "interconnect",
            "quoted_on",
            "valid_until",
            "source",
            "note",
        }
    ),
)
PURCHASE = QuoteTable(
    table="purchase_quotes",
    label="purchase quote",
    columns=PURCHASE_COLUMNS,
    dedupe_columns=PURCHASE_DEDUPE_COLUMNS,
    required_header=frozenset({"vendor", "gpu", "price", "currency", "quoted_on"}),
    clean=clean_purchase_quote,
    text_columns=frozenset({"vendor", "gpu", "currency", "quoted_on", "source", "note"}),
)


def dedupe_key(row: Mapping[str, Any], columns: Iterable[str]) -> tuple:
    """The identity of a quote: text without letter case, numbers as they are."""
    return tuple(row[c].casefold() if isinstance(row[c], str) else row[c] for c in columns)


# ----------------------------------------------------------------------------------------------------------------
# CSV files
# ----------------------------------------------------------------------------------------------------------------


@dataclass
class CsvRows:
    header: list[str]
    rows: list[tuple[int, dict[str, str]]]  # (spreadsheet row number, column -> cell)
    errors: list[tuple[int, str]] = field(default_factory=list)  # rows with the wrong number of cells


def read_quote_csv(path: str | Path, spec: QuoteTable) -> CsvRows:
    """Read a quote CSV; raises UserError for a file-level problem (missing, empty, not UTF-8, wrong columns)."""
    path = Path(path)
    name = path.name
    text = _read_utf8(path)
    if not text.strip():
        raise UserError(
            f"{name} is empty: expected a header row naming the columns {', '.join(spec.columns)}"
        )
    first_line = text.split("\n", 1)[0]
    delimiter = ";" if first_line.count(";") > first_line.count(",") else ","
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        header = [cell.strip().lower() for cell in next(reader)]
        _check_header(header, spec, name)
        result = CsvRows(header=header, rows=[])
        width = len(header)
        for row_number, cells in enumerate(reader, start=2):
            if not any(cell.strip() for cell in cells):
                continue  # blank line
            if len(cells) > width and any(cell.strip() for cell in cells[width:]):
                result.errors.append((row_number, f"{len(cells)} cells but the header has {width} columns"))
                continue
            cells = cells + [""] * (width - len(cells))
            result.rows.append((row_number, dict(zip(header, cells, strict=True))))
    except csv.Error as exc:
        raise UserError(f"{name}: not a readable CSV file near line {reader.line_num}: {exc}") from None
    if not result.rows and not result.errors:
        raise UserError(f"{name} has a header but no {spec.label}s")
    return result


def _read_utf8(path: Path) -> str:
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise UserError(f"{path}: no such file") from None
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    if path.is_dir():
        raise UserError(f"{path} is a folder, not a CSV file")
    if size > MAX_CSV_BYTES:
        raise UserError(f"{path.name} is {size} bytes; the limit for a quote file is {MAX_CSV_BYTES} bytes")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise UserError(f"{path}: cannot read it ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise UserError(
            f"{path.name} is not UTF-8 text (byte 0x{raw[exc.start]:02x} on line {line}); "
            "save it as 'CSV UTF-8' and import it again"
        ) from None


def _check_header(header: list[str], spec: QuoteTable, name: str) -> None:
    """UserError (one short line, whatever the header's width) naming missing, unknown and repeated columns."""
    counts = Counter(header)  # linear: a 200,000-column header is checked in milliseconds
    duplicated = sorted(column for column, seen in counts.items() if seen > 1 and column)
    missing = sorted(spec.required_header - counts.keys())
    known = set(spec.columns)
    unknown = [column for column in counts if column not in known]
    problems = []
    if missing:
        problems.append(f"missing columns: {', '.join(missing)}")
    if unknown:
        problems.append(f"unknown columns: {_some(repr(c[:40]) for c in unknown)}")
    if duplicated:
        problems.append(
            f"repeated columns: {_some(c[:40] if c.isprintable() else repr(c[:40]) for c in duplicated)}"
        )
    if (
        spec is RENTAL
        and not missing
        and not {"price_per_gpu_hour", "price_per_instance_hour"} & counts.keys()
    ):
        problems.append("missing columns: price_per_gpu_hour or price_per_instance_hour")
    if problems:
        raise UserError(f"{name}: {'; '.join(problems)} (expected columns: {', '.join(spec.columns)})")


def _some(names: Iterable[str]) -> str:
    """The first MAX_NAMED_COLUMNS names, then "and N more", so that an error stays one readable line."""
    names = list(names)
    shown = ", ".join(names[:MAX_NAMED_COLUMNS])
    rest = len(names) - MAX_NAMED_COLUMNS
    return f"{shown} and {rest:,} more" if rest > 0 else shown


def guard_formula(text: str) -> str:
    """Prefix ' to a cell a spreadsheet would run as a formula (OWASP "CSV injection")."""
    return "'" + text if text.startswith(FORMULA_PREFIXES) else text


def _cell(value: Any, is_text: bool) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer() and not is_text:
        return str(int(value)) if abs(value) < 1e15 else repr(value)
    if isinstance(value, float):
        return repr(value)
    text = str(value)
    return guard_formula(text) if is_text else text


def write_quote_csv(path: str | Path, spec: QuoteTable, rows: Iterable[Mapping[str, Any]]) -> int:
    """Write the rows with the table's columns in order (UTF-8 with a byte-order mark, for spreadsheets)."""
    path = Path(path)
    count = 0
    try:
        with open(path, "w", encoding="utf-8-sig", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow(spec.columns)
            for row in rows:
                writer.writerow([_cell(row.get(c), c in spec.text_columns) for c in spec.columns])
                count += 1
    except OSError as exc:
        raise UserError(f"cannot write {path}: {exc.strerror or exc}") from None
    return count


def iter_chunks(items: Sequence[Any], size: int) -> Iterator[Sequence[Any]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
