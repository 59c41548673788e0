"""What the walk of issue 29 found at 1366x768, in English and Russian, each through what a user sees or presses.

- The Plan page's Hardware list: a measured machine's row read "2 × NVIDIA H100 SXM5 80GB — …", the machine and
  the date of the run cut off by the inputs column. The GPUs (without the vendor word) are now over the machine
  and the date, both in view (the whole name is in its tooltip).
- Guided / Expert: one Tab stop, the checked mode, as a pair of radio buttons; the arrow keys switch the mode.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication, QStyle

SMALL_SCREEN = (1366, 768)


@pytest.fixture
def english_afterwards():
    yield
    from desktop.i18n import set_language

    set_language("en")


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_measured_machine_in_the_hardware_list_shows_its_machine_and_date(
    open_window, qtbot, language, english_afterwards
):
    from desktop.examples import add_example_probe_runs
    from desktop.i18n import switch_language

    window = open_window("h100x8")
    switch_language(language)
    window.resize(*SMALL_SCREEN)
    add_example_probe_runs(window.context)
    window.show_page("plan")
    page = window.page("plan")
    page.set_mode("expert", remember=False)
    tree = page.hardware.tree
    qtbot.waitUntil(lambda: page.hardware.groups["local"].childCount() == 1, timeout=10_000)
    qtbot.wait(50)  # the layout of the inputs column
    row = page.hardware.groups["local"].child(0)
    gpus, machine = row.text(0).split("\n")
    assert gpus.startswith("2 × H100") and "NVIDIA" not in gpus  # the vendor word repeats on every row
    assert machine.startswith("example: H100 node (")  # the run's label and date, on a line of their own
    rect = tree.visualItemRect(row)
    room = rect.width() - tree.style().pixelMetric(QStyle.PixelMetric.PM_IndicatorWidth) - 8
    metrics = tree.fontMetrics()
    assert max(metrics.horizontalAdvance(gpus), metrics.horizontalAdvance(machine)) <= room, (
        gpus,
        machine,
        room,
    )
    assert rect.height() >= 2 * metrics.lineSpacing()  # both lines shown
    assert "NVIDIA H100" in row.toolTip(0)  # the whole name where the row is pointed at


def test_tab_stops_at_the_checked_mode_only_and_the_arrows_switch_it(open_window, qtbot):
    window = open_window("h100x8")
    window.show_page("plan")
    page = window.page("plan")
    page.set_mode("expert", remember=False)
    window.activateWindow()
    window.navigation.setFocus()  # the page list, just before the page in the Tab order
    qtbot.waitUntil(lambda: QApplication.focusWidget() is window.navigation)
    QTest.keyClick(window.navigation, Qt.Key.Key_Tab)
    assert QApplication.focusWidget() is page.expert_button  # the mode in use (was: "Guided")
    QTest.keyClick(page.expert_button, Qt.Key.Key_Left)  # the arrow picks the other mode
    assert page.mode == "guided" and page.guided_button.isChecked()
    assert QApplication.focusWidget() is page.guided_button
    QTest.keyClick(page.guided_button, Qt.Key.Key_Tab)  # on from the pair: not onto "Expert"
    assert QApplication.focusWidget() is not page.expert_button
    QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Backtab)
    assert QApplication.focusWidget() is page.guided_button  # back onto the mode in use
    page.state.dirty = False


def test_the_run_time_band_keeps_clear_of_the_cell_border(open_plan_page, qtbot):
    """ "4.4 h" over "-33..+34%": the band line was as wide as the cell less its text margins, its minus sign
    a few pixels from the border of the run-time column."""
    from desktop.pages.plan import PlanPage

    page: PlanPage = open_plan_page(SMALL_SCREEN)
    page.load_example()
    qtbot.waitUntil(
        lambda: page.state.result is not None and page.results.model.rowCount() > 0, timeout=60_000
    )
    table, model = page.results.table, page.results.model
    column = model.column_of("time")
    metrics = table.fontMetrics()
    lines = [
        line for row in range(model.rowCount()) for line in str(model.index(row, column).data()).split("\n")
    ]
    assert any(".." in line for line in lines)  # the example's options carry their error band
    widest = max(metrics.horizontalAdvance(line) for line in lines)
    margin = (
        table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1
    )  # the delegate's text margin
    assert table.columnWidth(column) - 2 * margin - widest >= metrics.horizontalAdvance("0") / 2
    page.state.dirty = False


def test_no_frame_of_an_input_change_shows_a_chart_emptied(open_plan_page, qtbot):
    """No flicker, frame by frame: every paint of the scaling chart and of the memory bar between an input change
    and its plan drawn shows every strategy family's line, and the memory bar a plan's terms, never an empty bar
    (the charts update their data in place; none is cleared and drawn again)."""
    import pyqtgraph as pg
    from PySide6.QtCore import QEvent, QObject

    from desktop.plan_state import PlanInputs
    from tests.desktop.test_plan_page import replanned

    page = open_plan_page(size=SMALL_SCREEN)
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    with qtbot.waitSignal(page.scaling_ready, timeout=60_000):
        replanned(qtbot, page)
    scaling, memory = page.results.scaling_chart, page.results.memory_chart
    qtbot.waitUntil(lambda: not scaling.redraw_pending())
    families = len(scaling.chart_data()["series"])
    terms = sum(1 for bar in memory._bars if bar.isVisible())
    assert families >= 2 and terms >= 2
    views = {view.viewport(): name for name, chart in (("scaling", scaling), ("memory", memory))
             for view in chart.findChildren(pg.GraphicsView)}  # fmt: skip
    frames: list[tuple[str, int]] = []

    class Frames(QObject):
        def eventFilter(self, watched, event):  # noqa: N802 (Qt override)
            if event.type() == QEvent.Type.Paint and watched in views:
                if views[watched] == "scaling":
                    lines = scaling._time_curves.values()
                    shown = sum(1 for c in lines if c.isVisible() and c.xData is not None and len(c.xData))
                    frames.append(("scaling", shown if scaling.layout_widget.isVisible() else 0))
                else:
                    frames.append(("memory", sum(1 for bar in memory._bars if bar.isVisible())))
            return False

    spy = Frames()
    QApplication.instance().installEventFilter(spy)
    try:
        for batch in (2, 1, 2):
            page.shape.batch_spin.setValue(page.shape.batch_spin.value() * 2 if batch == 2 else
                                           page.shape.batch_spin.value() // 2)  # fmt: skip
            replanned(qtbot, page)
            qtbot.wait(100)  # the charts' own turns after the plan
    finally:
        QApplication.instance().removeEventFilter(spy)
    assert {name for name, _ in frames} == {"scaling", "memory"}  # both were repainted
    assert all(count == families for name, count in frames if name == "scaling"), frames
    assert all(count >= 2 for name, count in frames if name == "memory"), (
        frames
    )  # the old plan's or the new one's
    page.state.dirty = False
