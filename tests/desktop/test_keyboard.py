"""Keyboard-only use of every page: Tab goes through what a user can change or read, in the order the eye reads,
and comes back to the page list; nothing traps it.

Independent expectations (what a keyboard user meets, Qt's documentation of focus):
- A Tab stop shows a focus frame or a cursor. A chart or a scroll area around a form shows neither, so a Tab that
  stops there appears to do nothing.
- A table whose tabKeyNavigation is on (QTableView's default) moves Tab from cell to cell: leaving a table of 40
  quotes by 16 columns takes 640 presses. A date field takes one Tab per section (year, month, day).
- The inputs column of the Plan page reads top to bottom, and the results come after the inputs.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (
    QAbstractItemView,
    QAbstractScrollArea,
    QApplication,
    QDateTimeEdit,
    QSlider,
    QTextEdit,
    QWidget,
)

from tests.desktop.conftest import PLAN_TIMEOUT_MS

MAX_PRESSES = 200


def tab_stops(window, page) -> list[QWidget]:
    """The widgets Tab stops at, from the page list round to it again (each once, in order); fails on a trap."""
    window.activateWindow()
    window.navigation.setFocus(Qt.FocusReason.OtherFocusReason)
    QApplication.processEvents()
    assert QApplication.focusWidget() is window.navigation
    stops: list[QWidget] = []
    presses_on_same = 0
    for _ in range(MAX_PRESSES):
        QTest.keyClick(QApplication.focusWidget(), Qt.Key.Key_Tab)
        QApplication.processEvents()
        widget = QApplication.focusWidget()
        assert widget is not None, f"Tab after {stops[-1:]} left no widget with the focus"
        if widget is window.navigation:
            return stops
        if stops and widget is stops[-1]:
            presses_on_same += 1
            sections = widget.sectionCount() if isinstance(widget, QDateTimeEdit) else 1
            assert presses_on_same < sections, f"Tab stays in {type(widget).__name__} {widget.objectName()!r}"
            continue
        presses_on_same = 0
        assert widget not in stops, f"Tab came back to {type(widget).__name__} before the page list"
        stops.append(widget)
    raise AssertionError(f"Tab did not come back to the page list in {MAX_PRESSES} presses: {stops[-5:]}")


def shows_focus(widget: QWidget) -> bool:
    """A Tab stop a user sees: any field or button; of scroll areas only lists, tables and text (no chart, no
    scroll area around a form or a message)."""
    if isinstance(widget, QAbstractScrollArea):
        return isinstance(widget, QAbstractItemView | QTextEdit)
    return True


@pytest.mark.parametrize("page_id", ["hardware", "quotes", "plan", "rent_buy", "settings"])
def test_tab_goes_round_every_page_through_what_the_user_sees_and_back_to_the_page_list(
    open_window, qtbot, page_id
):
    window = open_window("h100x8")
    window.resize(1920, 1000)
    qtbot.waitUntil(lambda: window.context.charts_loaded, timeout=30_000)
    window.show_page(page_id)
    page = window.page(page_id)
    if page_id == "plan":
        page.load_example()
        qtbot.waitUntil(lambda: page.state.result is not None, timeout=PLAN_TIMEOUT_MS)
    qtbot.waitUntil(lambda: not window.context.jobs.running_count, timeout=PLAN_TIMEOUT_MS)
    QApplication.processEvents()
    stops = tab_stops(window, page)
    assert stops, "no Tab stop on the page"
    for widget in stops:
        assert page.isAncestorOf(widget), f"Tab left the page for {type(widget).__name__}"
        assert widget.isVisible() and widget.isEnabled()
        assert shows_focus(widget), f"Tab stops at a {type(widget).__name__} that shows no focus"
    if page_id == "plan":
        page.state.dirty = False


def test_the_plan_page_tabs_down_its_inputs_column_then_to_the_results(open_window, qtbot):
    window = open_window("none")
    window.resize(1920, 1000)
    window.show_page("plan")
    page = window.page("plan")
    page.load_example()  # expert mode, and a mixed pool of two GPU types: rows made after the page
    qtbot.waitUntil(lambda: page.state.result is not None, timeout=PLAN_TIMEOUT_MS)
    assert len(page.pool_panel.rows) == 2
    stops = tab_stops(window, page)
    column = page.inputs_scroll.widget()
    inputs = [widget for widget in stops if column.isAncestorOf(widget)]
    first_result = next(i for i, widget in enumerate(stops) if page.results.isAncestorOf(widget))
    assert all(stops.index(widget) < first_result for widget in inputs), "an input comes after the results"
    # down the column: each stop is level with or below the one before (a row's fields go left to right)
    tops = [widget.mapTo(column, QPoint(0, 0)) for widget in inputs]
    for (before, after), widget in zip(zip(tops, tops[1:], strict=False), inputs[1:], strict=True):
        level = abs(after.y() - before.y()) < widget.height()
        assert after.y() > before.y() or (level and after.x() > before.x()), (
            f"Tab goes up the column to {type(widget).__name__} {widget.toolTip()[:40]!r}"
        )
    pool_fields = [w for row in page.pool_panel.rows for w in row.widgets()]
    assert all(widget in inputs for widget in pool_fields)  # the pool's rows are reached in their place
    table = stops.index(page.results.table)
    assert stops[table + 1] is page.trace_button  # beside the memory bar under the table
    page.state.dirty = False


def test_every_rent_or_buy_slider_is_named_by_its_label(open_window, qtbot):
    window = open_window("none")
    window.show_page("rent_buy")
    page = window.page("rent_buy")
    stops = tab_stops(window, page)
    sliders = [widget for widget in stops if isinstance(widget, QSlider)]
    shown = [s.slider for s in (page.hours_slider, page.utilization_slider, page.horizon_slider,
                                page.spot_share_slider) if s.slider.isEnabled()]  # fmt: skip
    assert len(shown) >= 3 and sliders == shown  # hours per day, utilisation, horizon (share on spot: with a spot price)
    labels = {label.text() for label in page.labels.values()}
    assert {slider.accessibleName() for slider in sliders} <= labels
    assert page.labels["hours"].buddy().focusProxy() is page.hours_slider.slider  # the label's field is the slider
