"""The defects of issue 29, found walking every page as a new user, each reproduced through what a user touches.

Each test asserts what the user sees (a form that scrolls, the price the page uses, the plan kept after a focus
change, a second window that shows the first one's edit, an input refused where it was typed). Independent
expectations used here:
- A wheel notch is 120 units of angle delta (Qt's QWheelEvent documentation); a scroll area scrolls by its
  scroll bar's single step times the lines a notch scrolls (QApplication.wheelScrollLines, 3 by default).
- A rental quote of 1,400 RUB per GPU-hour is 1,400 RUB per GPU-hour: the page compares with that price.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import QAbstractScrollArea, QAbstractSpinBox, QApplication, QComboBox, QWidget

from tests.desktop.conftest import PLAN_TIMEOUT_MS

SMALL_SCREEN = (1366, 768)


@pytest.fixture
def english_afterwards():
    """Translators and the default QLocale are process-wide: put English back for the tests that follow."""
    yield
    from desktop.i18n import set_language

    set_language("en")


def wheel(widget, notches: int = -1, at: QPoint | None = None) -> None:
    """A real wheel turn over `widget` (negative: towards the user, which scrolls down)."""
    position = QPointF(at if at is not None else widget.rect().center())
    event = QWheelEvent(
        position, QPointF(widget.mapToGlobal(position.toPoint())), QPoint(0, 0), QPoint(0, 120 * notches),
        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier, Qt.ScrollPhase.NoScrollPhase, False,
    )  # fmt: skip
    QApplication.sendEvent(widget, event)


def scrollable_areas(page) -> list[QAbstractScrollArea]:
    """The page's visible scroll areas (forms, tables, text) that have something to scroll."""
    return [
        area for area in page.findChildren(QAbstractScrollArea)
        if area.isVisible() and area.verticalScrollBar().maximum() > 0
    ]  # fmt: skip


# -- the mouse wheel scrolls every page -------------------------------------------------------------------------


@pytest.mark.parametrize("page_id", ["plan", "rent_buy", "quotes"])
def test_the_wheel_scrolls_every_page_that_overflows_a_small_screen(open_window, qtbot, page_id):
    window = open_window()
    window.resize(*SMALL_SCREEN)
    window.show_page(page_id)
    page = window.page(page_id)
    if page_id == "plan":
        page.set_mode("expert", remember=False)  # every panel stacked: the column overflows 768 pixels
        qtbot.waitUntil(lambda: page.state.result is not None or page.state.error is not None, timeout=PLAN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: bool(scrollable_areas(page)), timeout=5000)
    for area in scrollable_areas(page):
        bar = area.verticalScrollBar()
        bar.setValue(0)
        wheel(area.viewport())  # over the form's background
        assert bar.value() > 0, f"{page_id}: a wheel turn over {area.objectName() or area} scrolled nothing"
        down = bar.value()
        wheel(bar, notches=1)  # over the scroll bar itself: back up
        assert bar.value() < down


def test_the_wheel_over_an_unfocused_field_scrolls_the_form_and_leaves_the_field(open_window, qtbot):
    window = open_window()
    window.resize(*SMALL_SCREEN)
    window.show_page("rent_buy")
    page = window.page("rent_buy")
    area = next(a for a in scrollable_areas(page) if a.widget().isAncestorOf(page.pue_spin))
    bar = area.verticalScrollBar()
    bar.setValue(0)
    page.headline.setFocus()
    fields = [w for w in area.widget().findChildren(QAbstractSpinBox) + area.widget().findChildren(QComboBox)
              if w.isVisible() and w.isEnabled()]  # fmt: skip
    field = fields[len(fields) // 2]
    before = field.value() if isinstance(field, QAbstractSpinBox) and hasattr(field, "value") else field.currentIndex()
    wheel(field)
    after = field.value() if isinstance(field, QAbstractSpinBox) and hasattr(field, "value") else field.currentIndex()
    assert after == before  # the field stays as it was ...
    assert bar.value() > 0  # ... and the form under the pointer scrolls


# -- Rent or buy takes a price as quoted, however large its unit ------------------------------------------------


def test_a_stored_1400_rub_quote_is_compared_at_1400_rub(rent_buy, context, qtbot):
    from tests.desktop.test_plan_page import choose

    context.set_display_currency("RUB")
    context.store.rental_quotes.add(
        {"provider": "Selectel", "offer": "1x H100", "gpu": "h100-sxm", "gpus_per_instance": 1,
         "price_per_gpu_hour": 1400, "currency": "RUB", "kind": "on-demand", "quoted_on": "2026-09-03",
         "source": "test"}
    )  # fmt: skip
    context.quotes_changed.emit()
    rent_buy.follow_plan.setChecked(False)
    with qtbot.waitSignal(rent_buy.recomputed, timeout=5000):
        choose(rent_buy.gpu_combo, "h100-sxm")
    assert rent_buy.on_demand_spin.value() == pytest.approx(1400)  # the user's own quote, as quoted
    assert rent_buy.result is not None and rent_buy.result.inputs.rent_on_demand_per_gpu_hour == pytest.approx(1400)
    assert rent_buy.result.inputs.currency == "RUB"


def test_typing_1400_into_a_rental_price_gives_1400(rent_buy, qtbot):
    from PySide6.QtTest import QTest

    for spin in (rent_buy.on_demand_spin, rent_buy.spot_spin, rent_buy.reserved_spin):
        spin.setFocus()
        spin.selectAll()
        QTest.keyClicks(spin, "1400")
        QTest.keyClick(spin, Qt.Key.Key_Enter)
        assert spin.value() == pytest.approx(1400)
    qtbot.waitUntil(lambda: rent_buy.result is not None, timeout=5000)
    rent_buy.recompute()
    assert rent_buy.result.inputs.rent_on_demand_per_gpu_hour == pytest.approx(1400)
    assert rent_buy.result.inputs.rent_spot_per_gpu_hour == pytest.approx(1400)


# -- the time to first token says what it includes --------------------------------------------------------------


def test_the_time_to_first_token_says_it_includes_the_prompt_and_the_wait(open_plan_page, qtbot):
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.state.replace_inputs(PlanInputs(task="inference", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         seq_len=4096), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    option = page.state.selected_option
    assert option is not None and option.fits and option.ttft_s
    prompt = 4096 - option.workload.output_len  # the prompt is the sequence less the tokens generated
    selected = page.results.selected_label.text() + page.results.headline.text()
    assert f"{prompt:,}-token prompt's prefill" in selected and "wait for a slot" in selected
    model = page.results.model
    column = model.column_of("ttft")
    header = model.headerData(column, Qt.Orientation.Horizontal, Qt.ItemDataRole.DisplayRole)
    assert "prefill" in header and "wait" in header
    tip = model.data(model.index(0, column), Qt.ItemDataRole.ToolTipRole)
    assert f"{prompt:,}-token prompt" in tip and "wait for a free slot" in tip and "prefill" in tip


# -- focus passing through the empty "Local" field keeps the preset's plan ---------------------------------------


def test_focusing_the_empty_local_model_field_keeps_the_preset_plan(open_plan_page, qtbot):
    from PySide6.QtTest import QTest

    page = open_plan_page(size=(1366, 768))
    page.set_mode("expert", remember=False)
    panel = page.model_panel
    assert panel.preset_radio.isChecked() and page.state.inputs.model_kind == "preset"
    result = page.state.result
    assert result is not None and page.state.error is None
    panel.path_edit.setFocus()
    qtbot.waitUntil(panel.path_edit.hasFocus, timeout=2000)
    QTest.keyClick(panel.path_edit, Qt.Key.Key_Tab)  # on through the empty field, as a keyboard user does
    page.shape.batch_spin.setFocus()
    qtbot.wait(300)  # past the re-plan throttle
    assert panel.preset_radio.isChecked() and not panel.path_radio.isChecked()
    assert page.state.inputs.model_kind == "preset" and page.state.error is None
    assert page.state.result is not None and page.state.result.options  # the plan is still on screen

    # typing a path does choose the local model, and the radio button follows
    panel.path_edit.setFocus()
    QTest.keyClicks(panel.path_edit, "/nowhere/config.json")
    QTest.keyClick(panel.path_edit, Qt.Key.Key_Return)
    assert panel.path_radio.isChecked() and page.state.inputs.model_kind == "path"


# -- two windows (or two processes) on one database see each other's edits ----------------------------------------


def _providers(window) -> set[str]:
    model = window.page("quotes").rental.model
    return {str(row.get("provider")) for row in model.rows}


def test_a_second_window_shows_the_first_windows_edits_without_a_restart(open_window, qtbot):
    first, second = open_window(), open_window()
    assert first.context.store is not second.context.store  # two connections to one file, as two windows have
    assert "Second-window cloud" not in _providers(second)
    first.context.store.rental_quotes.add(
        {"provider": "Second-window cloud", "gpu": "h100-sxm", "price_per_gpu_hour": 2.22, "currency": "USD",
         "kind": "on-demand", "quoted_on": "2026-09-01", "source": "test"}
    )  # fmt: skip
    first.context.quotes_changed.emit()  # what the Quotes page says after its own edit
    qtbot.waitUntil(lambda: "Second-window cloud" in _providers(second), timeout=5000)

    first.context.set_display_currency("EUR")  # a setting: the other window's prices follow
    rent_buy = second.page("rent_buy")
    qtbot.waitUntil(lambda: "€" in rent_buy.on_demand_spin.prefix() + rent_buy.on_demand_spin.suffix(), timeout=5000)
    # the window that wrote does not hear its own writes back as outside changes
    seen = first.context.db_watcher.changes_seen
    first.context.db_watcher.poll()
    assert first.context.db_watcher.changes_seen == seen


@pytest.mark.slow
def test_another_process_writing_the_database_shows_here(open_window, qtbot):
    import os
    import subprocess
    import sys

    window = open_window()
    script = (
        "from planner.store import Store\n"
        "with Store.open() as store:\n"
        "    store.rental_quotes.add({'provider': 'Other-process cloud', 'gpu': 'h100-sxm', "
        "'price_per_gpu_hour': 3.33, 'currency': 'USD', 'kind': 'on-demand', 'quoted_on': '2026-09-01', "
        "'source': 'test'})\n"
    )
    subprocess.run([sys.executable, "-c", script], check=True, env=dict(os.environ), timeout=60)
    qtbot.waitUntil(lambda: "Other-process cloud" in _providers(window), timeout=5000)


# -- a sequence length that is no length is refused where it was typed ---------------------------------------------


@pytest.mark.parametrize("typed", ["0", "abc", "-5", "4.5"])
def test_a_sequence_length_that_is_no_length_is_refused_and_the_old_plan_goes(open_plan_page, qtbot, typed):
    from PySide6.QtTest import QTest

    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.set_mode("expert", remember=False)
    replanned(qtbot, page)
    assert page.state.result is not None and page.results.model.rowCount() > 0
    before = page.state.inputs.seq_len
    combo = page.shape.seq_combo
    combo.setFocus()
    combo.lineEdit().selectAll()
    QTest.keyClicks(combo.lineEdit(), typed)
    QTest.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.state.error is not None, timeout=5000)
    # refused visibly: the reason beside the field and in the headline, the field framed, the typed text kept
    assert page.shape.seq_error.isVisible() and f"“{typed}”" in page.shape.seq_error.text()
    assert "sequence length" in page.results.headline.text()
    assert "border" in combo.styleSheet() and combo.currentText() == typed
    # no result for the old length stays on screen, and the state keeps the last good length
    assert page.state.result is None and page.results.model.rowCount() == 0
    assert page.state.inputs.seq_len == before
    # another input changed meanwhile does not bring a plan for the old length back
    page.shape.batch_spin.setValue(page.shape.batch_spin.value() + 1)
    replanned(qtbot, page)
    assert page.state.result is None and page.state.error is not None
    # a good length plans again, even the same one as before
    combo.lineEdit().selectAll()
    QTest.keyClicks(combo.lineEdit(), f"{before:,}")
    QTest.keyClick(combo.lineEdit(), Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: page.state.result is not None, timeout=PLAN_TIMEOUT_MS)
    assert not page.shape.seq_error.isVisible() and combo.styleSheet() == ""
    assert page.state.inputs.seq_len == before and page.results.model.rowCount() > 0


# -- advice never contradicts the plan ---------------------------------------------------------------------------


def test_the_advice_tab_does_not_tell_a_lora_plan_to_try_lora(open_plan_page, qtbot):
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    # 405B: a 70B LoRA fits one 24 GB card under DeepSpeed ZeRO-3 with everything offloaded (its frozen base is
    # partitioned to the CPU and gathered module by module), a 405B base does not fit the host RAM either
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-405b", hardware=("catalog:rtx-4090",),
                                         exact_gpus=1), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    assert page.state.result is not None
    # nothing fits one 24 GB card within the headroom: at most a tight option is shown (planner.search.tight)
    assert all(option.headroom_margin_bytes is not None for option in page.state.result.options)
    advice = page.results.advice.toPlainText()
    assert "Nothing fits" in advice
    assert "instead of full training" not in advice and "instead of LoRA" in advice


# -- "Exactly N GPUs" charts up to N ------------------------------------------------------------------------------


@pytest.mark.parametrize("gpus", [1, 8])
def test_exactly_n_gpus_charts_no_count_above_n(open_plan_page, qtbot, gpus):
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         exact_gpus=gpus, max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    with qtbot.waitSignal(page.scaling_ready, timeout=PLAN_TIMEOUT_MS):
        replanned(qtbot, page)
    drawn = page.results.scaling_chart.chart_data()["series"]
    counts = {count for line in drawn.values() for count in line["gpus"]}
    assert counts and max(counts) == gpus  # the chosen count is on the chart, and nothing beyond it


# -- the Expert input column is never clipped --------------------------------------------------------------------


def _clipped_inputs(scroll) -> list[str]:
    from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit

    viewport = scroll.viewport()
    kinds = (QAbstractSpinBox, QComboBox, QLineEdit, QAbstractButton, QLabel)
    clipped = []
    for widget in scroll.widget().findChildren(QWidget):
        if not isinstance(widget, kinds) or not widget.isVisible() or isinstance(widget.parentWidget(), kinds):
            continue
        right = widget.mapTo(viewport, QPoint(widget.width() - 1, 0)).x()
        if right >= viewport.width():
            clipped.append(f"{type(widget).__name__} {widget.objectName() or widget.toolTip()[:30]!r}: {right} > {viewport.width()}")
    return clipped


@pytest.mark.parametrize("size", [(1366, 768), (1920, 1080)])
@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_input_columns_are_not_clipped(open_window, qtbot, size, language, english_afterwards):
    from desktop.i18n import switch_language

    window = open_window()
    switch_language(language)
    window.resize(*size)
    window.show_page("plan")
    page = window.page("plan")
    page.set_mode("expert", remember=False)
    qtbot.wait(50)
    assert not _clipped_inputs(page.inputs_scroll)
    assert not page.inputs_scroll.horizontalScrollBar().isVisible()
    window.show_page("rent_buy")  # its input column too
    rent_buy = window.page("rent_buy")
    qtbot.wait(50)
    assert not _clipped_inputs(rent_buy.inputs_scroll)


# -- a language switch re-formats the converted prices -----------------------------------------------------------


def test_switching_to_russian_reformats_the_converted_price_column(open_window, qtbot, english_afterwards):
    from desktop.i18n import switch_language

    window = open_window()
    context = window.context
    context.set_exchange_rate("RUB", 0.011, "2026-09-01")
    context.set_display_currency("USD")
    context.store.rental_quotes.add(
        {"provider": "Selectel", "offer": "1x A100 80GB", "gpu": "a100-sxm-80gb", "gpus_per_instance": 1,
         "price_per_gpu_hour": 250, "currency": "RUB", "kind": "on-demand", "quoted_on": "2026-09-03",
         "source": "test"}
    )  # fmt: skip
    context.quotes_changed.emit()
    window.show_page("quotes")
    model = window.page("quotes").rental.model
    column = next(i for i, c in enumerate(model.columns) if c.key == "derived:display_price")

    def converted() -> str:
        row = next(i for i, r in enumerate(model.rows) if r.get("provider") == "Selectel")
        return str(model.data(model.index(row, column), Qt.ItemDataRole.DisplayRole)).replace("\u00a0", " ")

    qtbot.waitUntil(lambda: any(r.get("provider") == "Selectel" for r in model.rows), timeout=5000)
    assert "2.75" in converted()  # 250 RUB x 0.011 USD/RUB = $2.75, English number format
    switch_language("ru")
    assert "2,75" in converted() and "2.75" not in converted()  # Russian decimal comma, without a restart


# -- charts move their points, they are not torn down and rebuilt (no flicker) -------------------------------------


def test_an_input_change_moves_the_scaling_curves_instead_of_rebuilding_them(open_plan_page, qtbot):
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    with qtbot.waitSignal(page.scaling_ready, timeout=PLAN_TIMEOUT_MS):
        replanned(qtbot, page)
    chart = page.results.scaling_chart
    families = set(chart.chart_data()["series"])
    assert {"DDP", "ZeRO-1"} <= families
    qtbot.waitUntil(lambda: not chart.redraw_pending())  # every family's lines made (one family per turn)
    curves = dict(chart._time_curves)
    assert set(curves) == families
    drawn: list[set[str]] = []
    chart_set_series = chart.set_series

    def spy(series, *args, **kwargs):
        drawn.append(set(series))
        return chart_set_series(series, *args, **kwargs)

    chart.set_series = spy
    page.shape.batch_spin.setValue(page.shape.batch_spin.value() * 2)  # a new plan, the same curves' kind
    replanned(qtbot, page)
    # the first drawing of the new plan keeps every line (its own points moved in), never one stand-in line
    assert drawn and drawn[0] == families
    assert all(chart._time_curves.get(family) is curve for family, curve in curves.items())
    selected = chart.chart_data()["selected"]
    option = page.state.selected_option
    assert selected is not None and selected[1] == option.gpus
    # the ring sits on the new plan's own time for the selected option
    line = chart.chart_data()["series"][selected[0]]
    at = line["gpus"].index(option.gpus)
    assert line["time_s"][at] == pytest.approx(option.effective_wall_time_s)


# -- found walking the pages -------------------------------------------------------------------------------------


def test_the_probe_chart_says_how_to_fill_it_until_a_result_arrives(qtbot, qapp):
    from desktop.charts.probe_chart import ProbeSpecChart

    chart = ProbeSpecChart()
    qtbot.addWidget(chart)
    chart.show()
    assert chart.empty_label.isVisible() and "“Run quick probe”" in chart.empty_label.text()  # the button's words
    chart.add("H100 bf16 matmul", 78.0, "774 TFLOPS")  # a result: the chart shows it, the hint goes
    assert not chart.empty_label.isVisible()
    chart.clear()
    assert chart.empty_label.isVisible()


def test_a_probe_label_past_the_100_percent_line_is_not_struck_through(qtbot, qapp):
    """Walk (Hardware, Probe tab): the dashed 100 % line ran through "794.0 TFLOPS (80%)" and every label that
    reaches past 100 %. Rendered with and without the line, a label's box looks the same: the line is behind it."""
    from desktop.charts.probe_chart import ProbeSpecChart

    chart = ProbeSpecChart()
    qtbot.addWidget(chart)
    chart.resize(700, 300)
    chart.show()
    chart.set_items([("GPU 0 bf16", 80.0, "794.0 TFLOPS"), ("GPU 0 memory", 87.0, "2,914.5 GB/s")])
    qtbot.wait(50)
    label = chart.labels[0]
    view = chart.plot_widget
    box = view.mapFromScene(label.mapRectToScene(label.boundingRect())).boundingRect()
    line_x = round(view.mapFromScene(chart.plot.vb.mapViewToScene(pg_point(100, 0))).x())
    assert box.left() < line_x < box.right()  # the label reaches past the line
    with_line = view.grab().toImage()
    chart.reference.setVisible(False)
    without_line = view.grab().toImage()
    band = [(x, y) for x in range(line_x - 2, line_x + 3) for y in range(box.top() + 2, box.bottom() - 2)]  # the pen
    assert all(with_line.pixel(x, y) == without_line.pixel(x, y) for x, y in band), "the line shows through"
    above = [(x, y) for x in range(line_x - 2, line_x + 3) for y in range(box.top() - 12, box.top() - 2)]
    assert any(with_line.pixel(x, y) != without_line.pixel(x, y) for x, y in above)  # drawn outside the label


def pg_point(x: float, y: float):
    from PySide6.QtCore import QPointF

    return QPointF(x, y)


# -- a slider drag updates the plan while the slider is held --------------------------------------------------------


def test_a_slow_drag_over_a_70b_model_redraws_before_the_release(open_plan_page, qtbot):
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.state.replace_inputs(PlanInputs(task="finetune", model_kind="size", size_billions=70.0,
                                         hardware=("catalog:h100-sxm",), max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    slider = page.model_panel.size_slider
    sizes: list[float] = []
    page.planned.connect(lambda: sizes.append(page.state.inputs.size_billions))
    slider.setSliderDown(True)  # held: nothing is released until the end
    start = slider.value()
    for step in range(1, 5):
        # a slow drag: the hand rests on each step until the plan follows it (a wait for the signal, not a fixed
        # time, so a busy machine slows the test instead of failing it); a plan that only came on release times out
        with qtbot.waitSignal(page.planned, timeout=20_000):
            slider.setValue(start + step)
    assert slider.isSliderDown()
    assert len(set(sizes)) >= 3  # the headline and the table followed the drag, not only its end
    assert sizes[-1] == pytest.approx(page.state.inputs.size_billions)
    slider.setSliderDown(False)


@pytest.mark.slow
def test_a_quick_drag_whose_plans_outlast_a_step_redraws_before_the_release(open_plan_page, qtbot, monkeypatch):
    """Plans on a pool thread that each outlast a drag step (as for a big model on a busy machine, where a plan
    and its redraw would stall the GUI thread past 50 ms): a step that comes while a plan is on its way waits for
    that plan to be drawn instead of dropping it for a newer request, so the window follows the hand; the last
    step's plan is drawn after the release. Before, each answer was overtaken and nothing was drawn until the hand
    rested."""
    import time

    import desktop.pages.plan as plan_page
    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=(1366, 768))
    page.state.replace_inputs(PlanInputs(task="finetune", model_kind="size", size_billions=70.0,
                                         hardware=("catalog:h100-sxm",), max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    real = plan_page.build_and_run

    def slow_plan(*args, **kwargs):
        time.sleep(0.15)  # on the pool thread: longer than several steps of the drag
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_page, "build_and_run", slow_plan)
    page.scheduler.sync_limit_ms = 0.0  # no plan inline
    slider = page.model_panel.size_slider
    sizes: list[float] = []
    page.planned.connect(lambda: sizes.append(page.state.inputs.size_billions))
    slider.setSliderDown(True)
    start = slider.value()
    deadline = time.monotonic() + 1.5
    step = 0
    while time.monotonic() < deadline:  # a step every 20 ms for 1.5 s
        step += 1
        slider.setValue(start + step % 40)
        qtbot.wait(20)
    drawn_during_the_drag = len(sizes)
    slider.setSliderDown(False)
    assert drawn_during_the_drag >= 1
    qtbot.waitUntil(lambda: bool(sizes) and sizes[-1] == page.state.inputs.size_billions, timeout=PLAN_TIMEOUT_MS)
    assert page.state.result is not None and not page.state.error


def test_an_on_demand_quote_says_its_useful_price_is_its_price(open_window, qtbot):
    window = open_window()
    window.show_page("quotes")
    model = window.page("quotes").rental.model
    qtbot.waitUntil(lambda: model.rowCount() > 0, timeout=5000)
    column = next(i for i, c in enumerate(model.columns) if c.key == "derived:per_useful_gpu_hour")
    kinds = {i: str(r.get("kind")) for i, r in enumerate(model.rows)}
    on_demand = next(i for i, kind in kinds.items() if kind == "on-demand")
    index = model.index(on_demand, column)
    assert model.data(index, Qt.ItemDataRole.DisplayRole) == "—"  # not an empty cell that reads "unknown"
    assert "nothing is reclaimed" in model.data(index, Qt.ItemDataRole.ToolTipRole)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_exchange_rate_note_is_as_wide_as_the_rates_above_it(open_window, qtbot, language, english_afterwards):
    """Walk at 1366x768: the note under the exchange rates ("Each rate keeps the date...") was a column of six
    lines a third as wide as the rates above it, beside empty space. It is now at least as wide as the rates and
    reads in at most three lines, in English and in Russian."""
    from desktop.i18n import switch_language

    window = open_window("none")
    window.resize(*SMALL_SCREEN)
    switch_language(language)
    window.show_page("settings")
    page = window.page("settings")
    qtbot.waitUntil(lambda: page.rates_label.isVisible() and bool(page.rates_label.text()), timeout=5_000)
    qtbot.wait(50)  # the layout settles on the next turns
    note, grid = page.rates_label, page.rates_grid
    assert note.width() >= grid.width() - 1
    lines = note.heightForWidth(note.width()) / note.fontMetrics().lineSpacing()
    assert lines <= 3.2, f"{lines:.1f} lines"


def test_settings_says_why_nvml_is_unavailable_in_russian(open_window, qtbot, english_afterwards):
    """Walk in Russian (make screenshots, no NVML library): Settings showed NVML's English refusal, "no NVIDIA GPU:
    NVML library not found (...)", in the Russian interface. It now reads as the Hardware page words it: the
    Russian of "unavailable", then the Russian of NVML's reason (assets/i18n/gpu_advisor_ru.ts)."""
    from desktop.i18n import switch_language

    window = open_window("nolib")
    switch_language("ru")
    window.show_page("settings")
    value = window.page("settings").system_labels["nvml"][1]
    qtbot.waitUntil(lambda: value.text() not in ("", "reading…", "чтение…"), timeout=5_000)
    assert value.text() == "недоступен: библиотека NVML не найдена (libnvidia-ml.so.1 / nvml.dll)"
