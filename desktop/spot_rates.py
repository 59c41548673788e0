"""The spot reclaim rate the stored quotes state, for Rent or buy: the median over a GPU type's spot quotes, and
the rate of the one quote a plan's option runs on. Both read the store (bounded), neither guesses: None when no
quote states a rate (the page then says which rate stands in).
"""

from __future__ import annotations

import statistics
from typing import TYPE_CHECKING

from planner.errors import UserError

if TYPE_CHECKING:
    from planner.search import PlanOption
    from planner.store import StoreProtocol

SPOT_RATE_QUOTES = 1_000  # spot quotes read for their stated reclaim rates: one bounded query on a refill


def quoted_spot_rate(store: StoreProtocol, gpu_id: str) -> tuple[float | None, int]:
    """The median reclaim rate the spot quotes of this GPU type state (the user's own when there are any,
    like the price rule, else the reference ones) and how many state one; one bounded query."""
    try:
        rows = store.rental_quotes.find(gpu=gpu_id, kind="spot", limit=SPOT_RATE_QUOTES)
    except UserError:  # a database that cannot answer: the typical rate stands in
        return None, 0
    chosen = [row for row in rows if row.get("origin") == "user"] or rows
    rates = (row["interruptions_per_hour"] for row in chosen)
    stated = [float(rate) for rate in rates if rate is not None]
    return (statistics.median(stated), len(stated)) if stated else (None, 0)


def chosen_spot_rate(store: StoreProtocol, option: PlanOption | None) -> float | None:
    """The reclaim rate of the spot quote a plan's option runs on ("h100-sxm@quote:12"), if it states one; one
    row read."""
    from planner.resolver import OFFER_SEPARATOR

    if option is None:
        return None
    _, _, offer = str(option.gpu.id).partition(OFFER_SEPARATOR + "quote:")
    try:
        row = store.rental_quotes.get(int(offer)) if offer.isdigit() else None
    except (UserError, KeyError):  # gone meanwhile: the other sources stand in
        return None
    rate = row["interruptions_per_hour"] if row is not None and row["kind"] == "spot" else None
    return float(rate) if rate is not None else None
