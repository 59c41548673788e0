"""Every label, button, check box, field and table of every page shows its whole text at the default window
size, in English and in Russian (Russian words run about 30% longer).

A label's text fits when its size hint (one line) or its height for its width (a wrapping label) is within
its geometry; a button's when its size hint is within its width; a combo box or spin box when its current
text, with the arrows beside it, is; a table when all its columns are in view without scrolling sideways.
Widgets inside a scrolling area count too: a clipped field label cannot be scrolled into view.
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QLabel,
    QStyle,
    QStyleOptionComboBox,
    QStyleOptionSpinBox,
    QTableView,
    QWidget,
)

from desktop.main_window import DEFAULT_SIZE

PAGES = ("hardware", "quotes", "plan", "rent_buy", "settings")
# The quote tables are spreadsheets of nineteen columns: they scroll sideways by design (columns can be hidden).
SCROLLING_TABLES = ("rentalQuotesTable", "purchaseQuotesTable")
SLACK_PX = 1  # rounding of fractional font metrics


def clipped(window) -> list[str]:
    """Descriptions of the visible texts that do not fit their widget."""
    found = []
    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window) or widget.width() <= 0:
            continue
        if isinstance(widget, QLabel) and widget.text() and widget.pixmap().isNull():
            if widget.wordWrap():
                need = widget.heightForWidth(widget.width())
                if need > widget.height() + SLACK_PX:
                    found.append(
                        f"{type(widget).__name__} {widget.text()!r}: {need} px tall in {widget.height()}"
                    )
            elif widget.sizeHint().width() > widget.width() + SLACK_PX:
                found.append(
                    f"QLabel {widget.text()!r}: {widget.sizeHint().width()} px wide in {widget.width()}"
                )
        elif isinstance(widget, QAbstractButton) and widget.text():
            if widget.sizeHint().width() > widget.width() + SLACK_PX:
                found.append(
                    f"{type(widget).__name__} {widget.text()!r}: {widget.sizeHint().width()} px in {widget.width()}"
                )
        elif isinstance(widget, (QComboBox, QAbstractSpinBox)):
            text, room = field_text_room(widget)
            need = widget.fontMetrics().horizontalAdvance(text)
            if text and need > room + SLACK_PX:
                found.append(f"{type(widget).__name__} {text!r}: {need} px in {room}")
        elif (
            isinstance(widget, QTableView)
            and widget.objectName() not in SCROLLING_TABLES
            and widget.model() is not None
            and widget.model().rowCount()
        ):
            header: QHeaderView = widget.horizontalHeader()
            if header.isVisible() and header.length() > widget.viewport().width() + SLACK_PX:
                names = [widget.model().headerData(c, header.orientation()) for c in range(header.count())]
                found.append(f"table {names}: {header.length()} px of columns in {widget.viewport().width()}")
    return found


def field_text_room(widget: QComboBox | QAbstractSpinBox) -> tuple[str, int]:
    """(the text shown, the pixels its edit area has) of a combo box or spin box, as the style lays it out."""
    if isinstance(widget, QComboBox):
        option = QStyleOptionComboBox()
        widget.initStyleOption(option)
        area = widget.style().subControlRect(
            QStyle.ComplexControl.CC_ComboBox, option, QStyle.SubControl.SC_ComboBoxEditField, widget
        )
        return widget.currentText(), area.width()
    option = QStyleOptionSpinBox()
    widget.initStyleOption(option)
    area = widget.style().subControlRect(
        QStyle.ComplexControl.CC_SpinBox, option, QStyle.SubControl.SC_SpinBoxEditField, widget
    )
    return widget.text(), area.width() - 4  # the line edit's own margins


@pytest.mark.slow
@pytest.mark.parametrize("language", ["en", "ru"])
def test_no_label_is_cut_off_at_the_default_window_size(open_window, qtbot, language):
    from desktop.i18n import switch_language

    window = open_window("h100x8")
    try:
        switch_language(language)
        window.resize(DEFAULT_SIZE)
        problems = []
        for page_id in PAGES:
            window.show_page(page_id)
            page = window.page(page_id)
            page.load_example()
            if page_id == "plan":
                qtbot.waitUntil(lambda p=page: p.state.result is not None, timeout=20_000)
                # and its per-strategy curves (a pool job started 250 ms after the plan): the scaling key's words
                # change when they arrive, and its layout with them; under load they came within the 50 ms below
                qtbot.waitUntil(lambda p=page: not p._series_timer.isActive() and not (
                    p._series_job is not None and p._series_job.running)
                    and not p.results.scaling_chart.redraw_pending(), timeout=20_000)  # fmt: skip
            for mode in ("guided", "expert") if page_id == "plan" else ("",):
                if mode:
                    page.set_mode(mode, remember=False)
                qtbot.wait(50)  # layouts settle on the next event-loop turns
                problems += [f"{page_id}{'/' + mode if mode else ''}: {p}" for p in clipped(window)]
        assert not problems, "\n".join(problems)
    finally:
        switch_language("en")
