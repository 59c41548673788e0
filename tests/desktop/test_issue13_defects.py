"""The eight wrong-answer defects of issue 13, each reproduced through the widgets a user touches.

Each test asserts an invariant a user relies on, not a picture; every one of them failed on the code before
the fix (the test name carries the defect's number). Independent expectations used here:
- H100 SXM reference on-demand prices (planner/catalog/reference_prices.csv): 1.30, 2.75, 3.25, 3.49, 3.90,
  6.88, 12.29 $/GPU-h; the median is 3.49 $/GPU-h, the lowest 1.30 $/GPU-h (a "from" market low).
- The catalog's purchase price of an H100 SXM is 27,500 $ (two integrator quotes, see docs/sources.md); the
  A100 SXM 80GB has none, and one reference on-demand quote: 1.39 $/GPU-h (RunPod, 2026-09).
- Decoding n sequences at t seconds per output token gives at most n / t output tokens per second.
- A month is 365.25 / 12 days = 730.5 hours; a job of h GPU-hours run r times a month on g GPUs keeps them
  busy r x h / (g x 730.5) of the time.
"""

from __future__ import annotations

import json
import math
import re

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QAction, QKeySequence, QWheelEvent
from PySide6.QtWidgets import QApplication

from tests.desktop.test_plan_page import choose, exactly, only_hardware, replanned

H100_REFERENCE_MEDIAN = 3.49
H100_CATALOG_PURCHASE = 27_500
A100_REFERENCE_ON_DEMAND = 1.39  # planner/catalog/reference_prices.csv, runpod-2026-09 a100-sxm-80gb
HOURS_PER_MONTH = 730.5


@pytest.fixture
def page(open_plan_page):
    return open_plan_page(size=(1280, 820))


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def headline(page) -> str:
    return plain(page.results.headline.text())


def fitting(page) -> list:
    return [option for option in page.state.result.options if option.fits] if page.state.result else []


# -- 1. Rent or buy: every price belongs to the GPU shown ------------------------------------------------------


def test_defect1_rent_or_buy_keeps_no_price_of_the_previous_gpu(rent_buy, qtbot):
    choose(rent_buy.gpu_combo, "h100-sxm")
    assert rent_buy.purchase_spin.value() == pytest.approx(H100_CATALOG_PURCHASE)
    with qtbot.waitSignal(rent_buy.recomputed, timeout=5000):
        choose(rent_buy.gpu_combo, "a100-sxm-80gb")  # no purchase quote, no catalog price
    # The H100's 27,500 USD must not be carried over: the field is empty and says so ...
    assert rent_buy.purchase_spin.value() == 0
    assert rent_buy.purchase_spin.text() == rent_buy.purchase_spin.specialValueText()
    # ... every other price is the A100's: its one reference on-demand quote (RunPod, 1.39 $/GPU-h), and no
    # spot or reserved quote, so those are empty too
    assert rent_buy.on_demand_spin.value() == pytest.approx(A100_REFERENCE_ON_DEMAND)
    assert rent_buy.spot_spin.value() == 0 and rent_buy.reserved_spin.value() == 0
    assert "A100" in rent_buy.price_sources["purchase"]
    # ... and nothing is said about buying that rests on a price nobody gave.
    result = rent_buy.result
    assert result is not None and "buy" not in result.series and "hybrid" not in result.series
    assert "pays off" not in rent_buy.headline.text()
    assert "A100" in rent_buy.headline.text()  # the headline says which GPU needs a price


# -- 2 and 3. Selection and headline derive from the result ------------------------------------------------------


def test_defect2_nothing_fits_appears_only_when_no_option_fits(page, qtbot):
    def check() -> None:
        nothing = "Nothing fits" in headline(page)
        assert nothing == (not fitting(page)), headline(page)
        assert page.export_button.isEnabled() == bool(fitting(page))

    check()
    for row in (0, 5, 11):  # a row selected, then the ranking changed: it moves down the list
        page.results.table.selectRow(row)
        choose(page.constraints.rank_combo, "cost")
        replanned(qtbot, page)
        check()
        choose(page.constraints.rank_combo, "time")
        replanned(qtbot, page)
        check()
    page.results.table.selectRow(3)
    exactly(page, 8)
    replanned(qtbot, page)
    check()
    page.constraints.exact.check.setChecked(False)  # back to "at most": 8 GPUs is far down the list
    replanned(qtbot, page)
    check()


def test_defect3_the_headline_names_the_best_row_whatever_is_selected(page, qtbot):
    best = page.state.result.options[0]
    for row in (0, 3, 7):
        page.results.table.selectRow(row)
        text = headline(page)
        assert f"Best: {best.gpus} × {best.gpu.name}" in text, text
    selected = page.state.result.options[7]
    assert f"{selected.gpus} × {selected.gpu.name}" in plain(page.results.selected_label.text())


# -- 4. Serving: users are split across replicas --------------------------------------------------------------


def test_defect4_serving_users_are_replicas_times_sequences_per_replica(page, qtbot):
    choose(page.workload.task_combo, "inference")
    only_hardware(page, "catalog:rtx-4090")
    page.shape.users_spin.setValue(50)
    page.shape.tps_spin.setValue(5000)
    choose(page.constraints.rank_combo, "cost")
    replanned(qtbot, page)
    options = fitting(page)
    assert any(option.layout.dp > 1 for option in options)  # the case that went wrong: several replicas
    for option in options:
        replicas, per_replica = option.layout.dp, option.batch_per_replica
        # 50 users over the replicas: no replica decodes more than its share (rounded up) ...
        assert replicas * per_replica >= 50 > replicas * (per_replica - 1), (replicas, per_replica)
        # ... and 50 users at t seconds per token read at most 50 / t tokens per second.
        assert option.tokens_per_s <= 50 / option.tpot_s * (1 + 1e-9)
    best = page.state.result.options[0]
    assert f"for 50 users ({best.layout.dp} × " in headline(page) or best.layout.dp == 1


# -- 5. Redo after Undo restores the value --------------------------------------------------------------------


def test_defect5_redo_shortcut_after_undo_restores_the_value(open_window, qtbot):
    from tests.fixtures.quotes import LAMBDA_H100

    window = open_window("none")
    store = window.context.store
    quote_id = store.rental_quotes.add(LAMBDA_H100)
    window.context.quotes_changed.emit()
    window.show_page("quotes")
    tab = window.page("quotes").rental
    qtbot.waitUntil(lambda: tab.model.row_of_id(quote_id) >= 0, timeout=5000)
    index = tab.model.index(tab.model.row_of_id(quote_id), tab.model.column_of("price_per_gpu_hour"))
    assert tab.model.setData(index, 3.5)
    assert store.rental_quotes.get(quote_id)["price_per_gpu_hour"] == pytest.approx(3.5)
    # Every shortcut of the window is bound once: a sequence bound twice is ambiguous to Qt and does nothing
    # (on Linux the platform's own Redo key is Ctrl+Shift+Z, which the window also added by hand) ...
    sequences = [s.toString() for action in window.findChildren(QAction) for s in action.shortcuts()]
    assert len(sequences) == len(set(sequences)), sorted(sequences)
    # ... and the platform's Redo keys all reach Redo, with Ctrl+Shift+Z on every platform.
    redo = {s.toString() for s in window.redo_action.shortcuts()}
    platform = {s.toString() for s in QKeySequence.keyBindings(QKeySequence.StandardKey.Redo)}
    assert "Ctrl+Shift+Z" in redo and platform <= redo
    window.activateWindow()
    qtbot.waitActive(window)
    tab.table.setFocus()
    qtbot.keyClick(tab.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert store.rental_quotes.get(quote_id)["price_per_gpu_hour"] == pytest.approx(2.99)
    qtbot.keyClick(
        tab.table, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier
    )
    assert store.rental_quotes.get(quote_id)["price_per_gpu_hour"] == pytest.approx(3.5)
    assert "price_per_gpu_hour" not in window.redo_action.text() + window.undo_action.text()


# -- 6. Inputs do not change by themselves ------------------------------------------------------------------------


def wheel_up(widget) -> None:
    centre = QPointF(widget.rect().center())
    event = QWheelEvent(
        centre, QPointF(widget.mapToGlobal(centre.toPoint())), QPoint(0, 0), QPoint(0, 120),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def test_defect6_a_wheel_over_an_unfocused_spin_box_changes_nothing(page, qtbot):
    page.set_mode("expert")
    page.results.table.setFocus()
    spin = page.shape.batch_spin
    before, inputs = spin.value(), page.state.inputs
    wheel_up(spin)
    assert spin.value() == before and page.state.inputs == inputs
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus, timeout=2000)
    wheel_up(spin)  # with focus the wheel is the user's choice
    assert spin.value() == before + 1


def test_defect6_an_error_banner_does_not_move_the_results(page, qtbot):
    def table_top() -> int:
        return page.results.table.mapTo(page, QPoint(0, 0)).y()

    before = table_top()
    page.state.update(model_kind="path", model_path="/nowhere/config.json")
    replanned(qtbot, page)
    assert page.state.error
    assert table_top() == before
    page.state.update(model_kind="preset")
    page.constraints.budget.check.setChecked(True)
    page.constraints.budget.spin.setValue(1)  # hides every priced option: the limits line appears
    replanned(qtbot, page)
    assert table_top() == before


def test_defect6_a_new_quote_is_a_draft_until_it_is_complete(open_window, qtbot):
    window = open_window("none")
    window.show_page("quotes")
    tab = window.page("quotes").rental
    store = window.context.store
    mine = store.rental_quotes.count(mine_only=True)
    draft = tab.start_draft()
    assert store.rental_quotes.count(mine_only=True) == mine  # nothing stored, nothing in the medians
    assert not draft.ok_button.isEnabled()  # no provider, no price yet
    draft.provider_edit.setText("Lambda")
    draft.price_spin.setValue(2.49)
    assert store.rental_quotes.count(mine_only=True) == mine  # typed, not committed in any currency
    choose(draft.currency_combo, "EUR")
    assert draft.ok_button.isEnabled()
    draft.accept()
    assert store.rental_quotes.count(mine_only=True) == mine + 1
    row = store.rental_quotes.find(provider="Lambda")[0]
    assert (row["price_per_gpu_hour"], row["currency"]) == (pytest.approx(2.49), "EUR")
    tab.undo_stack.undo()
    assert store.rental_quotes.count(mine_only=True) == mine


# -- 7. Rent or buy from a plan uses the plan's real use --------------------------------------------------------


def test_defect7_rent_or_buy_from_a_plan_derives_utilisation_from_runs_per_month(rent_buy, context, qtbot):
    from planner.gpus import get_gpu

    class Option:  # what the Plan page publishes: a 25-minute LoRA job on 64 H100
        gpu = get_gpu("h100-sxm")
        gpus = 64
        wall_time_s = 25 * 60.0
        gpu_hours = 64 * 25 / 60

    rent_buy.follow_plan.setChecked(True)
    with qtbot.waitSignal(rent_buy.recomputed, timeout=5000):
        context.plan_option = Option()
        context.plan_option_changed.emit(context.plan_option)
    with qtbot.waitSignal(rent_buy.recomputed, timeout=5000):
        rent_buy.runs_spin.setValue(20)
    expected = 20 * Option.gpu_hours / (64 * HOURS_PER_MONTH)  # 1.1%, not 60% around the clock
    assert rent_buy.result.inputs.utilization == pytest.approx(expected, rel=1e-6)
    # Hybrid owns whole job-sized groups: the job needs 64 GPUs at once, so 0 or 64, never 32.
    spin = rent_buy.hybrid_spin
    assert spin.maximum() <= rent_buy.gpus_spin.value()
    assert spin.singleStep() == 64 and rent_buy.result.hybrid_owned_gpus % 64 == 0
    assert rent_buy.result.cheapest == "on_demand"  # 1% use never pays for 64 GPUs


# -- 8. The CLI and the GUI answer the same question the same way ------------------------------------------------


def test_defect8_cli_and_gui_give_the_same_best_option_and_price(page, qtbot, capsys):
    from planner.cli import main
    from tests.fixtures.store_reports import report

    # A probe run of another machine's H100 is stored but not chosen: neither side may use it.
    page.context.store.probe_runs.save(report(bf16_flop_per_s=3.0e14), source="imported")
    choose(page.workload.task_combo, "lora")
    choose(page.model_panel.preset_combo, "llama-3.1-8b")
    only_hardware(page, "catalog:h100-sxm")
    exactly(page, 8)
    replanned(qtbot, page)
    gui = page.state.result.options[0]
    inputs = page.state.inputs
    code = main(["plan", "--model", "llama-3.1-8b", "--task", "lora", "--gpu", "h100-sxm", "--gpus", "8",
                 "--seq-len", str(inputs.seq_len), "--batch", str(inputs.global_batch),
                 "--tokens", repr(inputs.training_tokens), "--price-from-quotes", "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    cli = json.loads(captured.out)["options"][0]
    assert (cli["gpu"], cli["gpus"], cli["strategy"]) == (gui.gpu.id, gui.gpus, gui.layout.as_dict())
    assert cli["confidence"] == gui.confidence.value == "catalog spec"
    assert cli["cost"]["amount"] == pytest.approx(gui.cost.amount, rel=1e-9)
    # the price both used: the median reference quote, not the market low
    assert gui.cost.amount == pytest.approx(gui.gpu_hours * H100_REFERENCE_MEDIAN, rel=1e-9)
    assert math.isclose(cli["wall_time_s"], gui.wall_time_s, rel_tol=1e-9)


def test_defect6_an_import_is_one_undoable_step(open_window, qtbot, tmp_path):
    window = open_window("none")
    window.show_page("quotes")
    page = window.page("quotes")
    tab, store = page.rental, window.context.store
    path = tmp_path / "quotes.csv"
    path.write_text(
        "provider,gpu,price_per_gpu_hour,currency,kind,quoted_on\n"
        "Imported A,h100-sxm,2.5,USD,on-demand,2026-09-01\n"
        "Imported B,a100-sxm-80gb,1.2,USD,spot,2026-09-01\n",
        encoding="utf-8",
    )
    mine = store.rental_quotes.count(mine_only=True)
    with qtbot.waitSignal(window.context.quotes_changed, timeout=10_000):
        page.run_import(str(path), "rental")
    assert store.rental_quotes.count(mine_only=True) == mine + 2
    assert "import" in tab.undo_stack.undoText()
    from desktop.undo import ImportBatchCommand

    command = tab.undo_stack.command(tab.undo_stack.count() - 1)
    assert isinstance(command, ImportBatchCommand)  # the batch's ids in the store, never the rows (issue 30)
    assert command.batch.last_id - command.batch.first_id == 1
    with qtbot.waitSignal(window.context.quotes_changed, timeout=10_000):
        tab.undo_stack.undo()  # the whole import goes back, in one step, off the GUI thread (issue 30)
        assert tab.model.read_only  # nothing can be edited while the store moves the rows
    assert store.rental_quotes.count(mine_only=True) == mine and not tab.model.read_only
    tab.undo_stack.redo()
    tab.undo_stack.undo()
    with qtbot.waitSignal(window.context.quotes_changed, timeout=10_000):
        tab.undo_stack.redo()  # asked three times at once: done in that order
    qtbot.waitUntil(lambda: page.undo_in_flight == 0, timeout=10_000)
    assert {q["provider"] for q in store.rental_quotes.find(mine_only=True)} >= {"Imported A", "Imported B"}
    assert store.rental_quotes.count(mine_only=True) == mine + 2
