"""The quote table's window of rows: the ids of the visible quotes in display order, and a few pages of rows read
by id for the part on screen.

The store filters and sorts in SQL (planner/store/quote_view.py) and hands back only the ids (8 bytes a quote);
the rows themselves are read ``PAGE_ROWS`` at a time when the view paints them, and at most ``CACHED_PAGES`` pages
are kept, so a table of a million quotes holds a few thousand rows, never all of them.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, overload

from desktop.quote_pricing import Pricing, Row
from planner.store import ViewPricing, ViewStats

if TYPE_CHECKING:
    from planner.store import QuoteStore

PAGE_ROWS = 200  # rows read from the store at once (one query by id, about a millisecond)
CACHED_PAGES = 24  # pages kept: at most 4,800 rows in memory whatever the table holds


@dataclass(frozen=True)
class Arranged:
    """What an arrangement (a load, a sort, a filter) hands the model: the visible ids in order, and the table's
    counts when the work was a load."""

    ids: Sequence[int]  # array('q'): 8 bytes a quote
    stats: ViewStats | None = None


def view_pricing(pricing: Pricing | None) -> ViewPricing:
    """The page's pricing snapshot as values the store's SQL reads (planner.store.ViewPricing): the same factors,
    throughput figures, basis ranks and spot overheads as the cells' own figures."""
    if pricing is None:
        return ViewPricing()

    def spot_fraction(gpu: str, gpus: int, stated: float | None) -> float | None:
        row = {"gpu": gpu, "kind": "spot", "gpus_per_instance": gpus, "interruptions_per_hour": stated}
        spot = pricing.spot_overhead(row)
        return None if spot is None else spot.fraction

    return ViewPricing(
        factors=dict(pricing.factors),
        bf16_flops={gpu: basis.bf16_flops for gpu, basis in pricing.basis.items() if basis.bf16_flops},
        bandwidth={gpu: basis.bandwidth for gpu, basis in pricing.basis.items() if basis.bandwidth},
        basis_rank={gpu: pricing.basis_rank({"gpu": gpu}) for gpu in pricing.basis},
        spot_fraction=spot_fraction,
    )


class RowWindow:
    """The visible ids in display order and the pages of rows read for them (GUI thread only)."""

    def __init__(self, quotes: QuoteStore[Any]) -> None:
        self.quotes = quotes
        self.ids: array[int] = array("q")
        self._pages: OrderedDict[int, list[Row]] = OrderedDict()

    def __len__(self) -> int:
        return len(self.ids)

    def set_ids(self, ids: Iterable[int]) -> None:
        self.ids = ids if isinstance(ids, array) else array("q", ids)
        self._pages.clear()

    def id_at(self, position: int) -> int:
        return int(self.ids[position])

    def row_at(self, position: int) -> Row:
        """The row shown at ``position`` (read with its page when it is not held); a quote deleted by another
        program since reads as its id with every field blank (until the next load leaves it out)."""
        page = position // PAGE_ROWS
        rows = self._pages.get(page)
        if rows is None:
            wanted = self.ids[page * PAGE_ROWS : (page + 1) * PAGE_ROWS]
            found = {row["id"]: row for row in self.quotes.rows_by_ids(wanted)}
            rows = [found.get(quote_id) or self._gone(quote_id) for quote_id in wanted]
            self._pages[page] = rows
            while len(self._pages) > CACHED_PAGES:
                self._pages.popitem(last=False)
        else:
            self._pages.move_to_end(page)
        return rows[position - page * PAGE_ROWS]

    def _gone(self, quote_id: int) -> Row:
        blank: dict[str, Any] = dict.fromkeys((*self.quotes.spec.columns, "origin", "created_at"))
        blank["id"] = quote_id
        return blank

    def held_row(self, quote_id: int) -> Row | None:
        """The row of ``quote_id`` when a held page has it (no store call)."""
        for rows in self._pages.values():
            for row in rows:
                if row["id"] == quote_id:
                    return row
        return None

    def position_of(self, quote_id: int) -> int:
        """The visible position of a quote, -1 when it is not shown (one pass in C over the ids)."""
        try:
            return self.ids.index(int(quote_id))
        except (ValueError, TypeError):
            return -1

    def positions_of(self, wanted: set[int]) -> dict[int, int]:
        """Positions of several quotes in one pass (those shown)."""
        if len(wanted) <= 8:
            found = {quote_id: self.position_of(quote_id) for quote_id in wanted}
            return {quote_id: position for quote_id, position in found.items() if position >= 0}
        return {quote_id: position for position, quote_id in enumerate(self.ids) if quote_id in wanted}

    def append(self, quote_ids: Sequence[int]) -> None:
        last_page = (len(self.ids) - 1) // PAGE_ROWS if self.ids else 0
        self.ids.extend(int(quote_id) for quote_id in quote_ids)
        self._pages.pop(last_page, None)  # its page grows: read it again when shown

    def remove_at(self, position: int) -> None:
        del self.ids[position]
        self._pages.clear()  # every later row moved up one

    def replace(self, position: int, row: Row) -> None:
        rows = self._pages.get(position // PAGE_ROWS)
        if rows is not None:
            rows[position % PAGE_ROWS] = row


class RowsView(Sequence[Row]):
    """The visible rows as a read-only sequence (each read through the window's pages), for code that walks the
    table: the selection, tests."""

    def __init__(self, window: RowWindow) -> None:
        self._window = window

    def __len__(self) -> int:
        return len(self._window)

    @overload
    def __getitem__(self, position: int) -> Row: ...
    @overload
    def __getitem__(self, position: slice) -> list[Row]: ...
    def __getitem__(self, position: int | slice) -> Row | list[Row]:
        if isinstance(position, slice):
            return [self._window.row_at(i) for i in range(*position.indices(len(self._window)))]
        if position < 0:
            position += len(self._window)
        if not 0 <= position < len(self._window):
            raise IndexError(position)
        return self._window.row_at(position)

    def __iter__(self) -> Iterator[Row]:
        for position in range(len(self._window)):
            yield self._window.row_at(position)


