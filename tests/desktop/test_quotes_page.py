"""Quotes page: add, edit through the delegates, refusal in place, undo/redo, delete, duplicate, filters,
derived prices, and the CSV import preview."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import QApplication, QComboBox, QDateEdit, QDoubleSpinBox, QLineEdit, QSpinBox

from desktop.qmodels.quotes import SORT_ROLE


@pytest.fixture
def page(open_window):
    window = open_window("none")
    window.show_page("quotes")
    return window.page("quotes")


def typed_quote(tab) -> dict:
    """A complete quote as a user types it into the new-quote form (the form stores only complete ones)."""
    if tab.kind.name == "rental":
        return {"provider": "Hand cloud", "offer": "", "gpu": "h100-sxm", "gpus_per_instance": 1,
                "price_per_gpu_hour": 1.0, "currency": "USD", "kind": "on-demand", "quoted_on": "2026-09-01"}  # fmt: skip
    return {"vendor": "Hand integrator", "gpu": "h100-sxm", "gpus": 1, "price": 10000.0, "currency": "USD",
            "quoted_on": "2026-09-01"}  # fmt: skip


def cell_index(tab, quote_id, key):
    """The table's index of one quote's cell (the model filters and sorts itself: no proxy in between)."""
    return tab.model.index(tab.model.row_of_id(quote_id), tab.model.column_of(key))


def stored(page, quote_id):
    return page.context.store.rental_quotes.get(quote_id)


def test_add_creates_a_user_quote_and_undo_redo_remove_and_restore_it(page):
    tab = page.rental
    before = len(tab.model.rows)
    row = tab.add_quote(typed_quote(tab))
    assert len(tab.model.rows) == before + 1
    assert row["origin"] == "user" and row["gpu"] == "h100-sxm"
    tab.undo_stack.undo()
    assert tab.model.row_of_id(row["id"]) == -1
    tab.undo_stack.redo()
    assert tab.model.row_of_id(row["id"]) >= 0  # the same id comes back


def test_editing_a_price_through_the_spin_box_writes_and_undoes(page, qtbot):
    tab = page.rental
    row = tab.add_quote(typed_quote(tab))
    index = cell_index(tab, row["id"], "price_per_gpu_hour")
    tab.table.setCurrentIndex(index)
    tab.table.edit(index)
    editor = QApplication.focusWidget()
    assert isinstance(editor, QDoubleSpinBox)
    editor.selectAll()
    qtbot.keyClicks(editor, "2.75")
    qtbot.keyClick(editor, Qt.Key.Key_Return)  # the delegate commits on the next event-loop turn
    qtbot.waitUntil(
        lambda: stored(page, row["id"])["price_per_gpu_hour"] == pytest.approx(2.75), timeout=3000
    )
    # one GPU per instance: the instance price follows the GPU price
    assert stored(page, row["id"])["price_per_instance_hour"] == pytest.approx(2.75)
    tab.undo_stack.undo()
    assert stored(page, row["id"])["price_per_gpu_hour"] == pytest.approx(1.0)
    tab.undo_stack.redo()
    assert stored(page, row["id"])["price_per_gpu_hour"] == pytest.approx(2.75)


def test_gpu_and_kind_combos_and_date_edit(page):
    tab = page.rental
    row = tab.add_quote(typed_quote(tab))
    for key, editor_type in (("gpu", QComboBox), ("kind", QComboBox), ("quoted_on", QDateEdit)):
        index = cell_index(tab, row["id"], key)
        tab.table.setCurrentIndex(index)
        tab.table.edit(index)
        editor = QApplication.focusWidget()
        assert isinstance(editor, editor_type), key
        if key == "gpu":
            editor.setCurrentIndex(editor.findData("a100-sxm-80gb"))
        elif key == "kind":
            editor.setCurrentIndex(editor.findData("spot"))
        else:
            editor.setDate(QDate(2026, 10, 1))
        tab.table.commitData(editor)
        tab.table.closeEditor(editor, tab.delegate.EndEditHint.NoHint)
    saved = stored(page, row["id"])
    assert (saved["gpu"], saved["kind"], saved["quoted_on"]) == ("a100-sxm-80gb", "spot", "2026-10-01")


def test_a_bad_value_is_refused_in_place_with_the_reason(page, qtbot):
    tab = page.rental
    row = tab.add_quote(typed_quote(tab))
    index = cell_index(tab, row["id"], "price_per_gpu_hour")
    with qtbot.waitSignal(tab.model.edit_refused) as refused:
        assert not tab.model.setData(index, 0.0)
    assert "price_per_gpu_hour" in refused.args[0]
    assert tab.banner.isVisible() and "Not changed" in tab.banner.text()
    assert stored(page, row["id"])["price_per_gpu_hour"] == pytest.approx(1.0)
    # a valid-until date before the quote date is refused too
    with qtbot.waitSignal(tab.model.edit_refused) as refused:
        assert not tab.model.setData(cell_index(tab, row["id"], "valid_until"), QDate(2000, 1, 2))
    assert "valid_until" in refused.args[0]
    assert tab.undo_stack.count() == 1  # only the add; refused edits never reach the stack


def test_reference_prices_are_read_only_and_duplicate_makes_them_editable(page):
    tab = page.rental
    reference = next(r for r in tab.model.rows if r["origin"] == "reference")
    index = cell_index(tab, reference["id"], "price_per_gpu_hour")
    assert not (index.flags() & Qt.ItemFlag.ItemIsEditable)
    tab.table.selectRow(index.row())
    copies = tab.duplicate_selected()
    assert len(copies) == 1 and copies[0]["origin"] == "user"
    assert copies[0]["price_per_gpu_hour"] == reference["price_per_gpu_hour"]
    assert cell_index(tab, copies[0]["id"], "price_per_gpu_hour").flags() & Qt.ItemFlag.ItemIsEditable


def test_delete_and_undo_restore_the_same_quote(page):
    tab = page.rental
    row = tab.add_quote(typed_quote(tab))
    tab.table.selectRow(cell_index(tab, row["id"], "provider").row())
    deleted = tab.delete_selected()
    assert [d["id"] for d in deleted] == [row["id"]]
    assert tab.model.row_of_id(row["id"]) == -1
    page.window().undo_action.trigger()  # Edit > Undo (Ctrl+Z) drives the active stack
    assert stored(page, row["id"])["provider"] == row["provider"]
    page.window().redo_action.trigger()
    assert tab.model.row_of_id(row["id"]) == -1
    assert [s.toString() for s in page.window().redo_action.shortcuts()][0] == "Ctrl+Shift+Z"


def test_filters_by_gpu_provider_kind_and_currency(page):
    tab = page.rental
    store = page.context.store
    store.rental_quotes.add({"provider": "Acme", "gpu": "l4", "price_per_gpu_hour": 90, "currency": "RUB",
                            "kind": "spot", "quoted_on": "2026-09-02"})  # fmt: skip
    page.context.quotes_changed.emit()
    every = store.rental_quotes.find()

    def visible() -> int:
        return tab.model.rowCount()

    tab.gpu_filter.setCurrentIndex(tab.gpu_filter.findData("h100-sxm"))
    assert visible() == sum(1 for q in every if q["gpu"] == "h100-sxm")
    tab.gpu_filter.setCurrentIndex(0)
    tab.provider_filter.setText("acme")
    assert visible() == 1
    tab.provider_filter.clear()
    tab.kind_filter.setCurrentIndex(tab.kind_filter.findData("spot"))
    assert visible() == sum(1 for q in every if q["kind"] == "spot")
    tab.kind_filter.setCurrentIndex(0)
    tab.currency_filter.setCurrentIndex(tab.currency_filter.findData("RUB"))
    assert visible() == sum(1 for q in every if q["currency"] == "RUB") == 1
    tab.currency_filter.setCurrentIndex(0)
    tab.reference_check.setChecked(False)
    assert visible() == sum(1 for q in every if q["origin"] == "user")


def test_sorting_by_price_uses_the_number_not_the_text(page):
    tab = page.rental
    column = tab.model.column_of("price_per_gpu_hour")
    tab.table.sortByColumn(column, Qt.SortOrder.AscendingOrder)
    prices = [tab.model.index(r, column).data(SORT_ROLE) for r in range(tab.model.rowCount())]
    assert prices == sorted(prices)


def test_derived_prices_use_the_spec_and_the_display_currency(page):
    tab = page.rental
    store = page.context.store
    quote_id = store.rental_quotes.add({"provider": "Acme", "gpu": "h100-sxm", "price_per_gpu_hour": 250,
                                       "currency": "RUB", "quoted_on": "2026-09-02"})  # fmt: skip
    page.context.quotes_changed.emit()
    index = cell_index(tab, quote_id, "derived:display_price")
    assert index.data() == "no rate"  # never converted at a guessed rate
    assert "RUB" in index.data(Qt.ItemDataRole.ToolTipRole)
    page.context.set_exchange_rate("RUB", 0.0125, "2026-09-01")
    # 250 RUB x 0.0125 USD/RUB = 3.125 USD per GPU-hour
    assert cell_index(tab, quote_id, "derived:display_price").data(SORT_ROLE) == pytest.approx(3.125)
    # H100 SXM dense bf16 989.4 TFLOPS (NVIDIA datasheet, 1979 sparse / 2) = 0.9894 PFLOP/s:
    # 3.125 / 0.9894 = 3.1585 USD per PFLOP-hour; bandwidth 3.35 TB/s: 3.125 / 3.35 = 0.9328 USD per TB/s-hour
    assert cell_index(tab, quote_id, "derived:per_pflop_hour").data(SORT_ROLE) == pytest.approx(
        3.125 / 0.9894, rel=1e-3
    )
    assert cell_index(tab, quote_id, "derived:per_tbps_hour").data(SORT_ROLE) == pytest.approx(
        3.125 / 3.35, rel=1e-3
    )
    assert cell_index(tab, quote_id, "derived:basis").data() == "spec"


def test_derived_prices_switch_to_measured_after_a_probe_run(page):
    from profiler.report import ProbeReport
    from tests.desktop.fake_probe import BANDWIDTH, BF16, report

    tab = page.rental
    page.context.store.probe_runs.save(ProbeReport.from_dict(report("quick")), source="local")
    page.context.probe_runs_changed.emit()
    row = next(r for r in tab.model.rows if r["gpu"] == "h100-sxm" and r["currency"] == "USD")
    price = row["price_per_gpu_hour"]
    assert cell_index(tab, row["id"], "derived:basis").data() == "measured"
    assert cell_index(tab, row["id"], "derived:per_pflop_hour").data(SORT_ROLE) == pytest.approx(
        price / (BF16 / 1e15)
    )
    assert cell_index(tab, row["id"], "derived:per_tbps_hour").data(SORT_ROLE) == pytest.approx(
        price / (BANDWIDTH / 1e12)
    )


def test_csv_import_preview_lists_bad_rows_before_writing(page, qtbot, tmp_path):
    path = tmp_path / "quotes.csv"
    path.write_text(
        "provider,gpu,price_per_gpu_hour,currency,kind,quoted_on\n"
        "Good One,h100-sxm,2.5,USD,on-demand,2026-09-01\n"  # row 2
        "Bad Price,h100-sxm,-1,USD,on-demand,2026-09-01\n"  # row 3
        "Good Two,a100-sxm-80gb,1.2,USD,spot,2026-09-01\n"  # row 4
        "Bad Kind,h100-sxm,2.0,USD,weekly,2026-09-01\n"  # row 5
        "Bad GPU,no-such-gpu,2.0,USD,on-demand,2026-09-01\n",  # row 6
        encoding="utf-8",
    )
    tab = page.rental
    before = page.context.store.rental_quotes.count()
    page.preview_import(str(path))
    qtbot.waitUntil(lambda: getattr(page, "preview_dialog", None) is not None, timeout=5000)
    dialog = page.preview_dialog
    assert (dialog.preview.total, dialog.preview.good, dialog.preview.bad_rows) == (5, 2, 3)
    listed = {
        int(dialog.table.item(r, 0).text()): dialog.table.item(r, 1).text()
        for r in range(dialog.table.rowCount())
    }
    assert set(listed) == {3, 5, 6}
    assert "price_per_gpu_hour" in listed[3] and "kind" in listed[5] and "gpu" in listed[6]
    assert page.context.store.rental_quotes.count() == before  # nothing written yet
    dialog.accept()
    qtbot.waitUntil(lambda: page.context.store.rental_quotes.count() == before + 2, timeout=5000)
    qtbot.waitUntil(lambda: tab.banner.isVisible(), timeout=5000)
    assert "Imported 2 quotes" in tab.banner.text()
    assert {"Good One", "Good Two"} <= {r["provider"] for r in tab.model.rows}


def test_csv_with_a_wrong_header_is_refused_with_the_reason(page, qtbot, tmp_path):
    path = tmp_path / "wrong.csv"
    path.write_text("name,cost\nx,1\n", encoding="utf-8")
    page.preview_import(str(path), "rental")
    qtbot.waitUntil(lambda: page.rental.banner.isVisible(), timeout=5000)
    assert "Nothing imported" in page.rental.banner.text()


def test_purchase_tab_edits_with_undo(page):
    tab = page.purchase
    row = tab.add_quote(typed_quote(tab))
    assert tab.model.apply_change(row["id"], {"price": 24000.0})
    assert page.context.store.purchase_quotes.get(row["id"])["price"] == 24000.0
    tab.undo_stack.undo()
    assert page.context.store.purchase_quotes.get(row["id"])["price"] == 10000.0
    # per GPU price with 1 GPU in USD; H100 989.4 dense bf16 TFLOPS -> 10000 / 989.4 USD per TFLOPS
    assert cell_index(tab, row["id"], "derived:per_tflops").data(SORT_ROLE) == pytest.approx(
        10000 / 989.4, rel=1e-3
    )


def test_price_chart_shows_user_and_reference_points(page):
    tab = page.rental
    tab.add_quote(typed_quote(tab))
    users = sum(1 for r in tab.model.rows if r["origin"] == "user" and r["currency"] == "USD")
    references = sum(1 for r in tab.model.rows if r["origin"] == "reference" and r["currency"] == "USD")
    assert len(tab.chart.user_points.data) == users
    assert len(tab.chart.reference_points.data) == references


def test_undo_only_acts_on_the_quotes_page(page):
    window = page.window()
    row = page.rental.add_quote(typed_quote(page.rental))
    window.show_page("settings")
    window.undo_action.trigger()  # nothing to undo here: the quote stays
    assert page.rental.model.row_of_id(row["id"]) >= 0
    window.show_page("quotes")
    window.undo_action.trigger()
    assert page.rental.model.row_of_id(row["id"]) == -1


def test_derived_prices_in_euros_by_hand(page):
    tab = page.rental
    context = page.context
    quote_id = context.store.rental_quotes.add({"provider": "Acme", "gpu": "h100-sxm", "price_per_gpu_hour": 2.16,
                                               "currency": "USD", "quoted_on": "2026-09-02"})  # fmt: skip
    context.set_exchange_rate("EUR", 1.08, "2026-09-01")  # 1 EUR buys 1.08 USD
    context.set_display_currency("EUR")
    page.context.quotes_changed.emit()
    # 2.16 USD / 1.08 USD per EUR = 2.00 EUR per GPU-hour
    assert cell_index(tab, quote_id, "derived:display_price").data(SORT_ROLE) == pytest.approx(2.00)
    assert "$2.16" in cell_index(tab, quote_id, "derived:display_price").data(Qt.ItemDataRole.ToolTipRole)
    # H100 SXM spec: 989.4 dense bf16 TFLOPS = 0.9894 PFLOP/s -> 2.00 / 0.9894 = 2.0214 EUR per PFLOP-hour;
    # 3.35 TB/s -> 2.00 / 3.35 = 0.5970 EUR per TB/s-hour; both from the spec sheet, and the Basis column says so
    assert cell_index(tab, quote_id, "derived:per_pflop_hour").data(SORT_ROLE) == pytest.approx(
        2.0214, rel=1e-4
    )
    assert cell_index(tab, quote_id, "derived:per_tbps_hour").data(SORT_ROLE) == pytest.approx(
        0.5970, rel=1e-3
    )
    assert cell_index(tab, quote_id, "derived:basis").data() == "spec"
    assert tab.model.headerData(tab.model.column_of("derived:display_price"), Qt.Orientation.Horizontal) == (
        "EUR / GPU-h"
    )


def test_sorting_by_a_derived_column_orders_converted_prices(page):
    tab = page.rental
    context = page.context
    context.set_exchange_rate("RUB", 0.0125, "2026-09-01")
    for provider, price, currency in (("Cheap RUB", 80.0, "RUB"), ("Dear USD", 1.5, "USD")):
        context.store.rental_quotes.add({"provider": provider, "gpu": "l4", "price_per_gpu_hour": price,
                                        "currency": currency, "quoted_on": "2026-09-02"})  # fmt: skip
    context.quotes_changed.emit()
    tab.gpu_filter.setCurrentIndex(tab.gpu_filter.findData("l4"))
    tab.reference_check.setChecked(False)
    tab.table.sortByColumn(tab.model.column_of("derived:display_price"), Qt.SortOrder.AscendingOrder)
    # 80 RUB x 0.0125 = 1.00 USD, cheaper than 1.50 USD although 80 > 1.5
    assert [row["provider"] for row in tab.model.rows] == ["Cheap RUB", "Dear USD"]


def test_purchase_quotes_edit_through_their_editors_and_refuse_a_bad_price(page, qtbot):
    tab = page.purchase
    page.tabs.setCurrentWidget(tab)
    row = tab.add_quote(typed_quote(tab))
    for key, editor_type, value in (
        ("vendor", QLineEdit, "Integrator B"),
        ("gpus", QSpinBox, 8),
        ("price", QDoubleSpinBox, 200_000.0),
        ("quoted_on", QDateEdit, QDate(2026, 8, 1)),
    ):
        index = cell_index(tab, row["id"], key)
        tab.table.setCurrentIndex(index)
        tab.table.edit(index)
        editor = QApplication.focusWidget()
        assert isinstance(editor, editor_type), key
        if isinstance(editor, QLineEdit):
            editor.setText(value)
        elif isinstance(editor, QDateEdit):
            editor.setDate(value)
        else:
            editor.setValue(value)
        tab.table.commitData(editor)
        tab.table.closeEditor(editor, tab.delegate.EndEditHint.NoHint)
    saved = page.context.store.purchase_quotes.get(row["id"])
    assert (saved["vendor"], saved["gpus"], saved["price"], saved["quoted_on"]) == (
        "Integrator B",
        8,
        200_000.0,
        "2026-08-01",
    )
    # 200,000 USD for 8 GPUs = 25,000 USD per GPU; / 989.4 dense bf16 TFLOPS (H100 SXM) = 25.27 USD per TFLOPS
    assert cell_index(tab, row["id"], "derived:per_tflops").data(SORT_ROLE) == pytest.approx(25_000 / 989.4)
    with qtbot.waitSignal(tab.model.edit_refused) as refused:
        assert not tab.model.setData(cell_index(tab, row["id"], "price"), 0.0)
    assert "price" in refused.args[0] and tab.banner.isVisible()
    assert tab.undo_stack.count() == 5  # the add and four edits; the refusal never reached the stack
    tab.undo_stack.undo()
    assert page.context.store.purchase_quotes.get(row["id"])["quoted_on"] != "2026-08-01"


def test_keyboard_adds_duplicates_and_deletes(page, qtbot):
    tab = page.rental
    window = page.window()
    with qtbot.waitActive(window):  # window shortcuts fire only in the active window
        window.activateWindow()
    tab.table.setFocus()
    before = tab.model.rowCount()
    # a button's shortcut shows the button pressed for a moment, then clicks it: wait for the click
    with qtbot.waitSignal(tab.add_button.clicked, timeout=3000):
        qtbot.keyClick(tab.table, Qt.Key.Key_N, Qt.KeyboardModifier.ControlModifier)
    draft = tab.draft  # the new-quote form: nothing is stored until it is complete
    assert tab.model.rowCount() == before
    qtbot.keyClicks(draft.provider_edit, "Keyboard cloud")
    draft.price_spin.setValue(2.25)
    qtbot.keyClick(draft.price_spin, Qt.Key.Key_Return)  # Enter accepts the complete form
    assert tab.model.rowCount() == before + 1 and not draft.isVisible()
    with qtbot.waitActive(window):  # back from the form (offscreen has no window manager to do it)
        window.activateWindow()
    tab.table.setFocus()
    with qtbot.waitSignal(tab.duplicate_button.clicked, timeout=3000):  # duplicates the new (selected) quote
        qtbot.keyClick(tab.table, Qt.Key.Key_D, Qt.KeyboardModifier.ControlModifier)
    assert tab.model.rowCount() == before + 2
    with qtbot.waitSignal(tab.delete_button.clicked, timeout=3000):
        qtbot.keyClick(tab.table, Qt.Key.Key_Delete)
    assert tab.model.rowCount() == before + 1
    qtbot.keyClick(tab.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)  # Edit > Undo
    assert tab.model.rowCount() == before + 2
    assert "Ctrl+N" in tab.add_button.toolTip()


def test_refusals_and_a_database_that_cannot_be_written_are_explained_in_russian(page, qtbot):
    """The store's reasons are structured messages: the Russian interface shows them in Russian, the
    database's own condition (here a connection that may not write: SQLite's SQLITE_READONLY) included."""
    from desktop.i18n import set_language

    tab, store = page.rental, page.context.store
    row = tab.add_quote(typed_quote(tab))
    set_language("ru", strict=True)
    try:
        with qtbot.waitSignal(tab.model.edit_refused) as refused:
            assert not tab.model.setData(cell_index(tab, row["id"], "price_per_gpu_hour"), 0.0)
        assert refused.args[0] == "price_per_gpu_hour: значение должно быть больше 0"
        store.conn.execute("PRAGMA query_only = ON")
        with qtbot.waitSignal(tab.model.edit_refused) as refused:
            assert not tab.model.setData(cell_index(tab, row["id"], "note"), "call back")
    finally:
        store.conn.execute("PRAGMA query_only = OFF")
        set_language("en")
    assert refused.args[0].startswith(
        f"не удаётся записать базу данных {store.path}: файл или его папка доступны только для чтения"
    )
    assert stored(page, row["id"])["note"] == ""  # nothing was half-written
