"""Quotes at scale: the store filters and sorts in SQL (no proxy), big tables load, sort, filter and chart in
the JobRunner, and rows edited or added meanwhile are never lost. The background path is exercised with the
threshold lowered to a few rows, so the tests stay small and fast; `make bench` (gui) measures 100,000 quotes.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop.charts.price_chart import PricePoint
from desktop.quote_pricing import CHART_POINTS_PER_GROUP, Basis, Pricing, chart_points
from tests.desktop.test_quotes_page import typed_quote

# The order and the filter are the store's SQL now: tests/desktop/test_quotes_window.py checks them against
# Python's own stable sort, hand-converted prices and the CLI's listing.


# -- the price chart ---------------------------------------------------------------------------------------------


def test_a_busy_gpu_model_is_charted_as_quantiles_with_cheapest_and_dearest():
    pricing = Pricing.build("USD", None, {"h100-sxm": Basis(989.4e12, 3.35e12)})
    rows = [
        {"gpu": "h100-sxm", "price_per_gpu_hour": 1.0 + i / 100, "currency": "USD", "origin": "user"}
        for i in range(1000)
    ]
    rows += [{"gpu": "l4", "price_per_gpu_hour": 0.8, "currency": "USD", "origin": "reference"}]
    rows += [{"gpu": "l4", "price_per_gpu_hour": 90.0, "currency": "RUB", "origin": "user"}]  # no RUB rate
    data = chart_points(rows, "rental", pricing, {"h100-sxm": "H100"}, PricePoint)
    h100 = sorted(p.price for p in data.points if p.gpu == "H100")
    assert len(h100) == CHART_POINTS_PER_GROUP
    assert (h100[0], h100[-1]) == (pytest.approx(1.0), pytest.approx(1.0 + 999 / 100))
    assert [p.price for p in data.points if p.gpu == "l4"] == [0.8]  # a small group is drawn as it is
    assert (data.total, data.left_out) == (1001, 1)


# -- the page with big tables (threshold lowered) ----------------------------------------------------------------


@pytest.fixture
def big_tables(monkeypatch):
    """Everything above 5 quotes counts as big: the shipped reference prices already go the background way."""
    import desktop.pages.quote_tab as page_module
    import desktop.qmodels.quotes as model_module

    monkeypatch.setattr(page_module, "SYNC_ROWS", 5)
    monkeypatch.setattr(model_module, "SYNC_ROWS", 5)


def _add_quotes(store, count: int) -> None:
    for i in range(count):
        store.rental_quotes.add(
            {"provider": f"Bulk {i:02d}", "gpu": "h100-sxm", "price_per_gpu_hour": 1.0 + (i * 37 % 40) / 10,
             "currency": "USD", "kind": "spot" if i % 2 else "on-demand", "quoted_on": "2026-09-01"}
        )  # fmt: skip


@pytest.mark.slow
def test_a_big_table_loads_sorts_and_filters_in_the_background(big_tables, open_window, qtbot, qtmodeltester):
    window = open_window("none")
    page = window.page("quotes")
    tab = page.rental
    store = page.context.store
    qtbot.waitUntil(lambda: not tab.loading and window.context.jobs.running_count == 0, timeout=10_000)
    _add_quotes(store, 40)
    with qtbot.waitSignal(tab.model.arranged, timeout=10_000):
        page.context.quotes_changed.emit()  # another page changed quotes: read them all again
        assert tab.loading and not tab.add_button.isEnabled()  # read-only while the job reads
    assert tab.model.rowCount() == store.rental_quotes.count()
    # the page's summary waits for the purchase tab's reload too ("Reading the quotes..." until then)
    qtbot.waitUntil(lambda: not page.purchase.loading and window.context.jobs.running_count == 0, timeout=10_000)
    assert "40 of your quotes" in page.summary.text()
    qtmodeltester.check(tab.model)  # the tester watches every signal from here on

    column = tab.model.column_of("price_per_gpu_hour")
    tab.table.selectRow(0)
    selected_id = tab.selected_rows()[0]["id"]
    with qtbot.waitSignal(tab.model.arranged, timeout=10_000):
        tab.table.horizontalHeader().setSortIndicator(column, Qt.SortOrder.DescendingOrder)
    prices = [row["price_per_gpu_hour"] for row in tab.model.rows]
    assert prices == sorted(prices, reverse=True)
    assert tab.selected_rows()[0]["id"] == selected_id  # the selection followed its quote

    with qtbot.waitSignal(tab.model.arranged, timeout=10_000):
        tab.provider_filter.setText("bulk 1")
    assert sorted(r["provider"] for r in tab.model.rows) == [f"Bulk {i}" for i in range(10, 20)]
    qtbot.waitUntil(lambda: len(tab.chart.user_points.data) == 10, timeout=5000)  # the chart, from a job too


@pytest.mark.slow
def test_rows_edited_or_added_while_a_sort_runs_keep_their_newest_values(big_tables, open_window, qtbot):
    window = open_window("none")
    page = window.page("quotes")
    tab = page.rental
    qtbot.waitUntil(lambda: not tab.loading and window.context.jobs.running_count == 0, timeout=10_000)
    edited = tab.add_quote(typed_quote(tab))
    column = tab.model.column_of("provider")
    with qtbot.waitSignal(tab.model.arranged, timeout=10_000):
        tab.table.sortByColumn(column, Qt.SortOrder.DescendingOrder)  # runs in a job...
        assert tab.model.pending
        assert tab.model.apply_change(edited["id"], {"provider": "Zeta"})  # ...while this edit lands
        added = tab.add_quote(typed_quote(tab))
    assert tab.model.rows[tab.model.row_of_id(edited["id"])]["provider"] == "Zeta"
    assert tab.model.row_of_id(added["id"]) >= 0
    assert tab.model.rowCount() == page.context.store.rental_quotes.count()
