"""The walk of issue 29 at 1920 x 1080 and at 150 % scaling (1280 x 720 logical pixels, the same layout a
1920 x 1080 screen at QT_SCALE_FACTOR=1.5 gives), each finding reproduced through what the user sees.

Independent expectations: a chart's value axis labels one line of text apart need the plot to be several lines
tall (five ticks from 0 to 100 % take five lines); a table cell shows its whole text when the column and the row are
at least as large as the text (QFontMetrics of the table's font).
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import QRect, Qt
from PySide6.QtWidgets import QApplication

from tests.desktop.conftest import PLAN_TIMEOUT_MS

SCALED_150 = (1280, 720)  # 1920 x 1080 at 150 %
FULL_HD = (1920, 1080)


def test_the_telemetry_panels_stay_readable_on_a_1080p_screen_at_150_percent(open_window, qtbot):
    """Walk at 150 %: the four telemetry panels were 30 px tall, their y labels ("80 60 40 20") printed over one
    another, while the GPU table above kept room for all 8 rows. The panels now keep five lines of plot each; the
    table gives up rows (it scrolls) and still shows at least two."""
    window = open_window("h100x8")
    window.resize(*SCALED_150)
    page = window.page("hardware")
    qtbot.waitUntil(lambda: window.context.charts_loaded, timeout=30_000)
    chart = page.telemetry
    qtbot.waitUntil(lambda: len(chart.plots) == 4 and chart.isVisible(), timeout=10_000)
    qtbot.wait(100)  # the splitter and the chart's layout settle
    line = chart.fontMetrics().lineSpacing()
    for metric, plot in chart.plots.items():
        height = plot.getViewBox().height()
        assert height >= 5 * line, f"{metric}: {height:.0f} px of plot for 5 lines of {line} px"
    table = page.gpu_table
    shown_rows = table.viewport().height() / table.rowHeight(0)
    assert shown_rows >= 2


def _clipped_cells(table) -> list[str]:
    """The cells of `table` in view whose text does not fit their cell (wrapped as the table wraps)."""
    model, metrics = table.model(), table.fontMetrics()
    clipped = []
    padding = 2 * (table.style().pixelMetric(table.style().PixelMetric.PM_FocusFrameHMargin, None, table) + 1)
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            text = str(model.index(row, column).data(Qt.ItemDataRole.DisplayRole) or "")
            cell = table.visualRect(model.index(row, column))
            if not text or not table.viewport().rect().contains(cell.topLeft()):
                continue
            needed = metrics.boundingRect(QRect(0, 0, cell.width() - padding, 10_000), Qt.TextFlag.TextWordWrap, text)
            if needed.width() > cell.width() - padding or needed.height() > cell.height():
                clipped.append(f"row {row + 1}, column {column + 1}: {text!r} in {cell.width()}x{cell.height()} px")
    return clipped


@pytest.mark.parametrize("size", [FULL_HD, SCALED_150])
def test_every_options_cell_shows_its_whole_text(open_window, qtbot, size):
    """Walk at 1920 x 1080: the options table left half its width empty while each strategy wrapped onto two or
    three lines in a 158 px column ("ZeRO-3 × 40," / "offload optimizer," / "full recompute"), so the table showed
    9 of its rows. The strategy now takes the room the other columns leave (one line each at 1920 px), and every
    cell in view shows its whole text at 1920 x 1080 and at 150 %."""
    window = open_window("none")
    window.resize(*size)
    window.show_page("plan")
    page = window.page("plan")
    page.load_example()
    qtbot.waitUntil(lambda: page.state.result is not None, timeout=PLAN_TIMEOUT_MS)
    qtbot.wait(100)
    QApplication.processEvents()
    table = page.results.table
    assert not _clipped_cells(table), _clipped_cells(table)
    if size == FULL_HD:
        strategy = page.results.model.column_of("strategy")
        longest = max(
            table.fontMetrics().horizontalAdvance(str(table.model().index(row, strategy).data()))
            for row in range(table.model().rowCount())
        )
        assert table.columnWidth(strategy) >= longest  # one line each: there is room
    page.state.dirty = False


@pytest.mark.parametrize(("language", "one", "many"), [("en", "1 GPU", "128 GPUs"), ("ru", "1 GPU", "128 GPU")])
def test_a_gpu_count_reads_in_the_numbers_plural(open_window, qtbot, language, one, many):
    """Walk at 1920 x 1080: the Exactly field read "1 GPUs". The count's unit follows the number."""
    from desktop.i18n import switch_language

    window = open_window("none")
    try:
        switch_language(language)
        window.show_page("plan")
        constraints = window.page("plan").constraints
        exact, most = constraints.exact.spin, constraints.max_spin
        exact.setValue(1)
        most.setValue(128)
        assert (exact.text(), most.text()) == (one, many)
        exact.setValue(2)
        assert exact.text() == ("2 GPUs" if language == "en" else "2 GPU")
    finally:
        switch_language("en")
        window.page("plan").state.dirty = False  # no "save changes?" on close


@pytest.mark.parametrize(
    ("language", "two_billion", "an_eighth"),
    [("en", "2 B tokens", "0.125 B tokens"), ("ru", "2 млрд токенов", "0,125 млрд токенов")],
)
def test_token_counts_read_without_trailing_zeros(open_window, qtbot, language, two_billion, an_eighth):
    """Walk in Russian: 2 billion tokens read "2,000 млрд токенов", which a reader takes for two thousand
    billion. The count is shown as written: "2 млрд токенов", "0,125 млрд токенов"."""
    from desktop.i18n import switch_language

    window = open_window("none")
    try:
        switch_language(language)
        window.show_page("plan")
        spin = window.page("plan").shape.tokens_spin
        spin.setValue(2.0)
        assert spin.text() == two_billion
        spin.setValue(0.125)
        assert spin.text() == an_eighth
        spin.lineEdit().selectAll()
        qtbot.keyClicks(spin.lineEdit(), "3")  # typed over: the field reads what was typed
        spin.interpretText()
        assert spin.value() == 3.0
    finally:
        switch_language("en")
        window.page("plan").state.dirty = False  # no "save changes?" on close
