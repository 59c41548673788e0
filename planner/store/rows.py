"""What the repositories return: typed rows, one type per kind of record.

Quotes are TypedDicts: a quote is a flat JSON-shaped record (the CLI prints it, the GUI edits it column by
column, undo hands it back to restore), and building 100,000 of them is the Quotes page's load time, so they
are built by a dict display over the cursor's tuples (the fastest way CPython has). Everything else is a
frozen slots dataclass. Units: prices in the quote's own `currency` (rental per hour), FLOP/s, bytes/s, bytes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypedDict

from planner.messages import Message
from planner.store.quotes import PURCHASE_COLUMNS, RENTAL_COLUMNS

# JSON as the standard library reads it (settings values, saved plans' inputs and results).
JsonValue = Any


class RentalQuoteRow(TypedDict):
    """A stored rental quote: RENTAL_COLUMNS plus id, origin ("user" | "reference") and created_at."""

    id: int
    provider: str
    offer: str
    gpu: str
    gpus_per_instance: int
    price_per_gpu_hour: float
    price_per_instance_hour: float
    currency: str
    kind: str
    region: str
    interconnect: str
    min_term_hours: float | None
    interruptions_per_hour: float | None  # spot/preemptible reclaims per instance-hour (None: not stated)
    quoted_on: str
    valid_until: str
    source: str
    note: str
    origin: str
    created_at: str


class PurchaseQuoteRow(TypedDict):
    """A stored purchase quote: PURCHASE_COLUMNS (price = the whole quote for `gpus` GPUs) plus id, origin and
    created_at."""

    id: int
    vendor: str
    gpu: str
    gpus: int
    price: float
    currency: str
    quoted_on: str
    server_overhead_fraction: float | None
    power_w: float | None
    source: str
    note: str
    origin: str
    created_at: str


# SELECT column lists in the order the row builders below unpack them (a test holds them to the TypedDicts).
RENTAL_ROW_COLUMNS = ("id", *RENTAL_COLUMNS, "origin", "created_at")
PURCHASE_ROW_COLUMNS = ("id", *PURCHASE_COLUMNS, "origin", "created_at")


def rental_rows(rows: Iterable[Any]) -> list[RentalQuoteRow]:
    """Cursor tuples in RENTAL_ROW_COLUMNS order -> rows."""
    return [
        {
            "id": id_, "provider": provider, "offer": offer, "gpu": gpu, "gpus_per_instance": gpus_per_instance,
            "price_per_gpu_hour": per_gpu_hour, "price_per_instance_hour": per_instance_hour,
            "currency": currency, "kind": kind, "region": region, "interconnect": interconnect,
            "min_term_hours": min_term_hours, "interruptions_per_hour": interruptions_per_hour, "quoted_on": quoted_on, "valid_until": valid_until,
            "source": source, "note": note, "origin": origin, "created_at": created_at,
        }
        for (id_, provider, offer, gpu, gpus_per_instance, per_gpu_hour, per_instance_hour, currency, kind,
             region, interconnect, min_term_hours, interruptions_per_hour, quoted_on, valid_until, source, note, origin,
             created_at) in rows
    ]  # fmt: skip


def purchase_rows(rows: Iterable[Any]) -> list[PurchaseQuoteRow]:
    """Cursor tuples in PURCHASE_ROW_COLUMNS order -> rows."""
    return [
        {
            "id": id_, "vendor": vendor, "gpu": gpu, "gpus": gpus, "price": price, "currency": currency,
            "quoted_on": quoted_on, "server_overhead_fraction": overhead, "power_w": power_w, "source": source,
            "note": note, "origin": origin, "created_at": created_at,
        }
        for (id_, vendor, gpu, gpus, price, currency, quoted_on, overhead, power_w, source, note, origin,
             created_at) in rows
    ]  # fmt: skip


@dataclass(frozen=True, slots=True)
class ImportResult:
    """What a CSV import did. Row numbers are spreadsheet rows (header = row 1, first quote = row 2). The lists
    hold the first rows of each kind (planner.store.quote_import.REPORTED_ROWS_MAX); the counts cover them all."""

    added: int
    duplicates: list[tuple[int, Message]] = field(
        default_factory=list
    )  # (row, "duplicate of rental quote #12")
    errors: list[tuple[int, Message]] = field(default_factory=list)  # (row, reason)
    refused: bool = False  # True: there were errors and skip_invalid was off, so nothing was written
    total_rows: int = 0
    bad_rows: int = 0  # rows with an error, listed in `errors` or not
    duplicate_rows: int = 0  # duplicates not added, listed in `duplicates` or not
    batch: ImportBatch | None = None  # the rows added, for undo (None: nothing added)


@dataclass(frozen=True, slots=True)
class ImportBatch:
    """The rows one import added: ids first_id..last_id (one write transaction appends them after every stored
    id), all with the import's created_at. Undo sets the batch aside and redo brings it back by these three
    values alone, in SQL: nothing of a million rows is held in memory (issue 30 item 7)."""

    first_id: int
    last_id: int
    created_at: str


@dataclass(frozen=True, slots=True)
class ProbeRun:
    """A stored probe run with its key figures (None: not measured)."""

    id: int
    machine: str  # the machine's name in this database ("this machine", "<hostname> (imported)", a label)
    machine_id: int
    hostname: str
    source: str  # "local" | "imported"
    mode: str  # "quick" | "full"
    created_at: str  # when the probe ran (ISO-8601 UTC)
    saved_at: str  # when it entered this database
    label: str | None
    devices: tuple[str, ...]  # device names, as the probe reported them ("NVIDIA H100 80GB HBM3", "cpu")
    best_bf16_flop_per_s: float | None
    memory_bandwidth_bytes_per_s: float | None


@dataclass(frozen=True, slots=True)
class Measurement:
    device: str  # "cuda:0", "cpu"
    kind: str  # "matmul", "memory_bandwidth", ...
    dtype: str | None
    peer: str | None
    value: float | None  # in `unit`
    unit: str
    ok: bool


@dataclass(frozen=True, slots=True)
class Machine:
    id: int
    name: str
    hostname: str | None
    kind: str  # "local" | "imported"
    created_at: str


@dataclass(frozen=True, slots=True)
class GpuSeen:
    """A GPU some probe run saw on a machine."""

    id: int
    machine_id: int
    gpu_key: str  # NVML uuid, or "<index>:<name>" when the uuid was refused
    name: str
    catalog_id: str | None  # planner.gpus.match_nvml_name's id, None for a GPU the catalog lacks
    memory_total_bytes: int | None
    first_seen: str
    last_seen: str


class PlanSummary(TypedDict):
    id: int
    name: str
    created_at: str
    updated_at: str


class SavedPlan(TypedDict):
    """A saved plan: the Plan page's inputs and a summary of its results, as the JSON objects it saved."""

    id: int
    name: str
    inputs: dict[str, JsonValue]
    results: dict[str, JsonValue]
    created_at: str
    updated_at: str


@dataclass(frozen=True, slots=True)
class ExchangeRate:
    """1 unit of a currency = `to_usd` US dollars, as set on `as_of` (YYYY-MM-DD)."""

    to_usd: float
    as_of: str
