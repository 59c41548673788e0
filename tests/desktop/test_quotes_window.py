"""The quote table is a window over SQLite (issue 30 item 2): the store filters, sorts (derived prices too) and
counts in SQL, the model keeps the visible ids and a few pages of rows. What the user sees is checked against
independent expectations: Python's own stable sort of the stored rows, prices converted by hand, the CLI's
`quotes list`, and the memory a table of 200,000 quotes takes (tracemalloc)."""

from __future__ import annotations

import contextlib
import io
import json
import tracemalloc

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from desktop.charts.price_chart import PricePoint
from desktop.qmodels.quote_window import CACHED_PAGES, PAGE_ROWS
from desktop.qmodels.quotes import QuoteKind, QuoteTableModel
from desktop.quote_pricing import CHART_POINTS_PER_GROUP, Basis, Pricing, chart_of_view, chart_points
from planner.money import ExchangeRates


@pytest.fixture
def store(tmp_path):
    from planner.store import Store

    opened = Store.open(tmp_path / "q.sqlite")
    yield opened
    opened.close()


def _quote(provider: str, price: float, **more: object) -> dict:
    quote = {"provider": provider, "gpu": "h100-sxm", "price_per_gpu_hour": price, "currency": "USD",
             "kind": "on-demand", "quoted_on": "2026-09-01"}  # fmt: skip
    quote.update(more)
    return quote


def _model(store, kind: str = "rental", pricing: Pricing | None = None) -> QuoteTableModel:
    model = QuoteTableModel(QuoteKind(kind, store))
    if pricing is not None:
        model.pricing = lambda: pricing
    model.reload()
    return model


def _insert(store, rows) -> None:
    """Rental quotes written straight in SQL (provider, gpu, price per GPU-hour, currency, kind): a big table in
    a second, as an import would leave it."""
    store.conn.execute("BEGIN")  # one transaction: the store's connection commits (and syncs) each statement
    store.conn.executemany(
        "INSERT INTO rental_quotes (provider, gpu, gpus_per_instance, price_per_gpu_hour, price_per_instance_hour, "
        "currency, kind, quoted_on, origin, created_at) "
        "VALUES (?, ?, 1, ?3, ?3, ?, ?, '2026-09-01', 'user', '2026-09-01T00:00:00Z')",
        rows,
    )
    store.conn.execute("COMMIT")


def _providers(model: QuoteTableModel) -> list[str]:
    return [str(row.get("provider") or row.get("vendor")) for row in model.rows]


# -- the order and the filter against Python's own -------------------------------------------------------------

_rows = st.lists(
    st.tuples(
        st.sampled_from(["h100-sxm", "a100-sxm-80gb", "l4"]),
        st.sampled_from(["Acme", "acme cloud", "Beta", "Éclair", "zeta"]),
        st.sampled_from([1.5, 2.0, 2.5]),
        st.one_of(st.none(), st.sampled_from([0.0, 0.01, 0.5])),  # reclaim rate: may be blank
    ),
    max_size=25,
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=_rows, descending=st.booleans(), provider=st.sampled_from(["", "acme", "É"]), mine=st.booleans(),
       key=st.sampled_from(["interruptions_per_hour", "provider"]))  # fmt: skip
def test_the_sql_order_is_pythons_stable_sort_with_blanks_last(qapp, store, rows, descending, provider, mine, key):
    conn = store.conn
    conn.execute("DELETE FROM rental_quotes WHERE origin = 'user'")
    conn.commit()
    for i, (gpu, name, price, rate) in enumerate(rows):
        store.rental_quotes.add(_quote(f"{name}", price, gpu=gpu, kind="spot", interruptions_per_hour=rate,
                                       offer=f"o{i}"))  # fmt: skip
    model = _model(store)
    model.set_filter(provider=provider, show_reference=not mine)
    model.sort(model.column_of(key), Qt.SortOrder.DescendingOrder if descending else Qt.SortOrder.AscendingOrder)
    # independent expectation: the store's listing order (find), a plain filter, Python's stable sort, blanks last
    listed = [r for r in store.rental_quotes.find()
              if provider.casefold() in r["provider"].casefold() and not (mine and r["origin"] == "reference")]  # fmt: skip

    def value(row):
        found = row[key]
        return found.casefold() if isinstance(found, str) and found else (None if found in ("", None) else found)

    keyed = [r for r in listed if value(r) is not None]
    expected = sorted(keyed, key=value, reverse=descending)  # Python's sort is stable in reverse too
    expected += [r for r in listed if value(r) is None]
    assert [r["id"] for r in model.rows] == [r["id"] for r in expected]


def test_sort_by_converted_price_is_the_hand_computed_order(qapp, store):
    """EUR 1.50 at 1.10 USD = $1.65; RUB 150 at 0.0125 USD = $1.875; USD 2.00; GBP has no rate: last."""
    for provider, price, currency in (("Dollar", 2.0, "USD"), ("Euro", 1.5, "EUR"), ("Rouble", 150.0, "RUB"),
                                      ("Pound", 1.0, "GBP")):  # fmt: skip
        store.rental_quotes.add(_quote(provider, price, currency=currency, gpu="l4"))
    rates = ExchangeRates({"USD": 1.0, "EUR": 1.10, "RUB": 0.0125})
    pricing = Pricing.build("USD", rates, {"l4": Basis(121e12, 300e9)})
    model = _model(store, pricing=pricing)
    model.set_filter(gpu="l4", show_reference=False)
    column = model.column_of("derived:display_price")
    model.sort(column, Qt.SortOrder.AscendingOrder)
    assert _providers(model) == ["Euro", "Rouble", "Dollar", "Pound"]
    model.sort(column, Qt.SortOrder.DescendingOrder)
    assert _providers(model) == ["Dollar", "Rouble", "Euro", "Pound"]  # the one without a rate stays last
    # per PFLOP-hour: the same quotes on the same L4 (121 TFLOPS bf16), so the same order
    model.sort(model.column_of("derived:per_pflop_hour"), Qt.SortOrder.AscendingOrder)
    assert _providers(model) == ["Euro", "Rouble", "Dollar", "Pound"]
    first = pricing.derived_values("rental", model.rows[0])["per_pflop_hour"]
    assert first == pytest.approx(1.65 / 0.121)  # $13.64 per PFLOP-hour, by hand


def test_sort_by_price_per_tflops_of_purchases_is_the_hand_computed_order(qapp, store):
    """Purchase prices are per quote: 8 GPUs for EUR 200,000 = EUR 25,000 a GPU = $27,500 at 1.10."""
    for vendor, gpus, price, currency in (("Eight", 8, 200_000.0, "EUR"), ("One", 1, 26_000.0, "USD"),
                                          ("Two", 2, 60_000.0, "USD")):  # fmt: skip
        store.purchase_quotes.add({"vendor": vendor, "gpu": "h100-sxm", "gpus": gpus, "price": price,
                                   "currency": currency, "quoted_on": "2026-09-01"})  # fmt: skip
    pricing = Pricing.build("USD", ExchangeRates({"USD": 1.0, "EUR": 1.10}), {"h100-sxm": Basis(989e12, 3.35e12)})
    model = _model(store, "purchase", pricing)
    model.set_filter(show_reference=False)
    model.sort(model.column_of("derived:per_tflops"), Qt.SortOrder.AscendingOrder)
    assert _providers(model) == ["One", "Eight", "Two"]  # $26,000, $27,500, $30,000 a GPU


def _cli_ids(tmp_path, *options: str) -> list[int]:
    """The ids `gpu-advisor quotes list OPTIONS --json` prints, in its order."""
    from planner.cli import main

    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert main(["--db", str(tmp_path / "q.sqlite"), "quotes", "list", *options, "--json"]) == 0
    return [int(item["id"]) for item in json.loads(buffer.getvalue())["quotes"]]


def test_the_filters_agree_with_the_cli_listing(qapp, store, tmp_path):
    for i, (gpu, kind) in enumerate([("h100-sxm", "spot"), ("h100-sxm", "on-demand"), ("l4", "spot"),
                                     ("a100-sxm-80gb", "on-demand"), ("l4", "on-demand")]):  # fmt: skip
        store.rental_quotes.add(_quote(f"P{i}", 1.0 + i, gpu=gpu, kind=kind))
    model = _model(store)
    assert [r["id"] for r in model.rows] == _cli_ids(tmp_path)  # unsorted: the CLI's order, reference rows too
    model.set_filter(gpu="h100-sxm")
    assert [r["id"] for r in model.rows] == _cli_ids(tmp_path, "--gpu", "h100-sxm")
    model.set_filter(gpu="l4", kind="spot")
    assert [r["id"] for r in model.rows] == _cli_ids(tmp_path, "--gpu", "l4", "--kind", "spot")
    model.set_filter(gpu="", kind="", show_reference=False)
    assert [r["id"] for r in model.rows] == _cli_ids(tmp_path, "--mine")
    stats = model.stats()
    assert (stats.mine, stats.reference) == (5, store.rental_quotes.count() - 5)


def test_the_sql_chart_is_the_python_chart(qapp, store):
    """The chart's quantiles picked in SQL are the ones chart_points picks from every row."""
    _insert(store, [(f"B{i}", "h100-sxm", 1.0 + (i * 7919 % 1000) / 100, "EUR" if i % 3 else "USD", "on-demand")
                    for i in range(1000)] + [("R", "l4", 90.0, "RUB", "on-demand")])  # fmt: skip
    pricing = Pricing.build("USD", ExchangeRates({"USD": 1.0, "EUR": 1.10}), {"h100-sxm": Basis(989e12, 3.35e12)})
    model = _model(store, pricing=pricing)
    model.gpu_names = {"h100-sxm": "H100"}
    python = chart_points(list(model.rows), "rental", pricing, {"h100-sxm": "H100"}, PricePoint)
    sql = chart_of_view(store.rental_quotes.view_chart(model.view_query(), CHART_POINTS_PER_GROUP), PricePoint)
    assert (sql.total, sql.left_out) == (python.total, python.left_out)
    assert sorted((p.gpu, p.price, p.reference) for p in sql.points) == sorted(
        (p.gpu, p.price, p.reference) for p in python.points
    )
    assert len([p for p in sql.points if p.gpu == "H100" and not p.reference]) == CHART_POINTS_PER_GROUP


# -- bounded memory --------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_200000_quotes_sort_filter_and_scroll_in_bounded_memory(qapp, store):
    rows = 200_000
    _insert(store, ((f"Provider {i % 997}", ("h100-sxm", "l4", "a100-sxm-80gb")[i % 3],
                     1.0 + (i * 7919 % 100_000) / 1e4, ("USD", "EUR")[i % 2], ("spot", "on-demand")[i % 2])
                    for i in range(rows)))  # fmt: skip
    pricing = Pricing.build("USD", ExchangeRates({"USD": 1.0, "EUR": 1.10}), {"l4": Basis(121e12, 300e9)})
    tracemalloc.start()
    try:
        model = _model(store, pricing=pricing)
        model.sort(model.column_of("derived:display_price"), Qt.SortOrder.DescendingOrder)
        for position in range(0, model.rowCount(), model.rowCount() // 50):  # scroll through the whole table
            for column in range(model.columnCount()):
                model.index(position, column).data()
        model.set_filter(provider="provider 99")
        filtered = model.rowCount()
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert model.stats().mine == rows
    assert filtered == sum(1 for i in range(rows) if "provider 99" in f"provider {i % 997}")
    # 8 bytes an id (1.6 MB) and at most CACHED_PAGES pages of rows; the rows themselves would be ~1 kB each
    # (200 MB), so the bound is far below what holding them would take
    assert len(model.window._pages) <= CACHED_PAGES
    assert peak < 12 * 2**20, f"peak {peak / 2**20:.1f} MB for {rows} quotes ({PAGE_ROWS}-row pages)"
