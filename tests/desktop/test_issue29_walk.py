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
    assert max(metrics.horizontalAdvance(gpus), metrics.horizontalAdvance(machine)) <= room, (gpus, machine, room)
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
    qtbot.waitUntil(lambda: page.state.result is not None and page.results.model.rowCount() > 0, timeout=60_000)
    table, model = page.results.table, page.results.model
    column = model.column_of("time")
    metrics = table.fontMetrics()
    lines = [line for row in range(model.rowCount()) for line in str(model.index(row, column).data()).split("\n")]
    assert any(".." in line for line in lines)  # the example's options carry their error band
    widest = max(metrics.horizontalAdvance(line) for line in lines)
    margin = table.style().pixelMetric(QStyle.PixelMetric.PM_FocusFrameHMargin) + 1  # the delegate's text margin
    assert table.columnWidth(column) - 2 * margin - widest >= metrics.horizontalAdvance("0") / 2
    page.state.dirty = False
