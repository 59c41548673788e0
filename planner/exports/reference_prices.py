"""The reference rental prices shipped with GPU Advisor (planner/catalog/reference_prices.csv, the rows the
store seeds as "reference"; each row cites its source and date), for a report whose option has no price."""

from __future__ import annotations

import csv
import io
from importlib import resources

from planner.exports.common import ReferencePrice
from planner.money import Money

REFERENCE_FILE = "reference_prices.csv"


def shipped_reference_prices(gpu_id: str) -> tuple[ReferencePrice, ...]:
    """The on-demand rental reference prices for one GPU type, cheapest first."""
    text = resources.files("planner.catalog").joinpath(REFERENCE_FILE).read_text(encoding="utf-8")
    prices = []
    for row in csv.DictReader(io.StringIO(text)):
        if row.get("record") != "rental" or row.get("gpu") != gpu_id or row.get("kind") != "on-demand":
            continue
        try:
            amount = float(row.get("price_per_gpu_hour") or "")
        except ValueError:
            continue
        provider = " ".join(filter(None, (row.get("provider"), row.get("offer"))))
        prices.append(ReferencePrice(gpu_id, Money(amount, row.get("currency") or "USD"), provider,
                                     row.get("quoted_on") or "", row.get("source") or ""))  # fmt: skip
    return tuple(sorted(prices, key=lambda p: p.price_per_gpu_hour.amount))
