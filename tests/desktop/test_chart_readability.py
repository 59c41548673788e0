"""Charts people can read: the cost axis starts at zero, tick labels never overlap (also in the PNGs the PDF
embeds), the capacity label sits beside the bar, "nothing fits" leaves no axes behind, and eight GPUs'
telemetry keeps a readable key with each GPU's current values."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtGui import QTextDocument

from desktop.charts.plan_charts import MemoryBarChart, ScalingChart, render_png
from desktop.charts.telemetry import TelemetryChart

GIB = 2**30
# Costs that differ by 5% across GPU counts: on a log axis from 2,400 to 2,520 they looked like a cliff.
SERIES = {"ZeRO-1": [(2**k, 3600.0 * 100 / 2**k, 2400.0 * (1 + 0.05 * k / 12)) for k in range(13)]}


def shown_text(label) -> str:
    """A rich-text label's words as shown (non-breaking spaces read as spaces)."""
    document = QTextDocument()
    document.setHtml(label.text())
    return document.toPlainText().replace("\u00a0", " ")


@pytest.fixture
def scaling(qtbot):
    chart = ScalingChart()
    qtbot.addWidget(chart)
    chart.resize(420, 260)
    chart.show()
    chart.set_series(SERIES, "USD", ("ZeRO-1", 64), "wall")
    qtbot.waitUntil(lambda: not chart.redraw_pending())  # the plots are drawn on the event loop's next turn
    return chart


def test_the_cost_axis_starts_at_zero(scaling):
    low, high = scaling.cost_plot.getViewBox().viewRange()[1]
    assert low <= 0 < 2400 < high  # a 5% difference reads as 5%
    labels = [text for value, text in scaling.cost_plot.getAxis("left")._tickLevels[0]]
    assert labels[0] == "0"


def test_tick_labels_fit_the_axis_without_overlapping(scaling):
    metrics = scaling.fontMetrics()
    for plot in (scaling.time_plot, scaling.cost_plot):
        ticks = plot.getAxis("bottom")._tickLevels[0]
        widths = sum(metrics.horizontalAdvance(text) + 6 for _value, text in ticks)
        assert widths <= plot.width(), [text for _v, text in ticks]
    for plot in (scaling.time_plot, scaling.cost_plot):
        ticks = plot.getAxis("left")._tickLevels[0]
        assert len(ticks) * metrics.height() <= plot.height()
    assert render_png(scaling)[:8] == b"\x89PNG\r\n\x1a\n"  # what report.pdf embeds is this drawing


@pytest.mark.parametrize("height", [160, 220, 400])
def test_time_labels_are_a_line_apart_however_short_the_chart(scaling, qtbot, height):
    """Plan page, Mixed pool tab (docs/screenshots/plan-pool.png): the scaling chart was 150 px tall and its time
    axis printed "20 5.0 2.0 1.0 0.50 0.20" over one another (1-2-5 steps are 0.3 of a decade apart). Drawn at
    any height, each time label is at least a line of text from the next, measured on the plot's own scale."""
    from PySide6.QtCore import QPointF

    scaling.resize(420, height)
    qtbot.wait(50)
    qtbot.waitUntil(lambda: not scaling.redraw_pending())
    view = scaling.time_plot.getViewBox()
    ticks = scaling.time_plot.getAxis("left")._tickLevels[0]
    assert len(ticks) >= 2  # something to read
    ys = sorted(view.mapViewToScene(QPointF(0, value)).y() for value, _text in ticks)
    line = scaling.fontMetrics().height()
    assert min(b - a for a, b in zip(ys, ys[1:], strict=False)) >= line, [text for _v, text in ticks]


def test_the_capacity_label_sits_beside_the_bar(qtbot):
    chart = MemoryBarChart()
    qtbot.addWidget(chart)
    chart.resize(700, 90)
    chart.show()
    chart.set_data([("weights", 20 * GIB), ("activations", 40 * GIB)], 80 * GIB, 72 * GIB)
    data = chart.chart_data()
    assert data["label_gib"] >= max(data["total_gib"], data["capacity_gib"])  # right of the bar and the lines
    left, right = chart.plot.getViewBox().viewRange()[0]
    label_px = chart.fontMetrics().horizontalAdvance(chart.capacity_text.toPlainText())
    room_px = (right - data["label_gib"]) / (right - left) * chart.plot_widget.width()
    assert room_px >= label_px  # the whole label is in view
    assert "usable 72.0 GiB of 80.0 GiB" in chart.capacity_text.toPlainText()


def test_nothing_fits_leaves_no_axes_behind(scaling):
    scaling.clear("Nothing fits: no times or costs to draw")
    assert scaling.chart_data()["series"] == {}
    assert not scaling.layout_widget.isVisible() and scaling.empty_label.isVisible()
    scaling.set_series(SERIES, "USD")
    assert scaling.layout_widget.isVisible() and not scaling.empty_label.isVisible()


def test_eight_gpus_keep_a_readable_key_with_current_values(qtbot):
    chart = TelemetryChart()
    qtbot.addWidget(chart)
    chart.set_gpus({gpu: f"GPU {gpu}" for gpu in range(8)})
    t = np.arange(10, dtype=float)
    snapshot = {
        gpu: {"t_s": t, "utilization_pct": np.full(10, 10.0 * gpu), "memory_used_bytes": np.full(10, gpu * GIB),
              "temperature_c": np.full(10, 40.0 + gpu), "power_w": np.full(10, 100.0 + gpu)}
        for gpu in range(8)
    }  # fmt: skip
    chart.update_from_snapshot(snapshot)
    key = chart.legend.text()
    for gpu in range(8):  # each GPU's row names its current power, beside the curves
        assert f"GPU {gpu}" in key and f"{100 + gpu} W" in key
    assert key.count("<tr>") == 9  # a header and one row per GPU


def test_the_selected_options_band_is_a_bar_through_its_ring_and_in_the_key(scaling, qtbot):
    """Hand-built band -12% .. +15% over 23 runs at the ringed point (64 GPUs: 3600 x 100 / 64 s = 5625 s, cost
    2400 x (1 + 0.05 x 6 / 12) = 2460): the bar spans 5625 x 0.88 = 4950 s .. 5625 x 1.15 = 6468.75 s and
    2164.8 .. 2829 USD; without a band there is no bar."""
    from desktop.i18n import set_language
    from planner.uncertainty import ErrorBand

    set_language(
        "en", strict=True
    )  # English with its plural forms ("23 published runs"), as the app installs it
    scaling.set_series(SERIES, "USD", ("ZeRO-1", 64), "wall", ErrorBand(-0.12, 0.15, 23, "training/hopper"))
    qtbot.waitUntil(lambda: not scaling.redraw_pending())  # the plots are drawn on the event loop's next turn
    drawn = scaling.chart_data()["selected_band"]
    assert drawn["gpus"] == 64
    assert drawn["time_s"] == pytest.approx([4950.0, 6468.75])
    assert drawn["cost"] == pytest.approx([2164.8, 2829.0])
    assert "-12% .. +15%, 23 published runs" in shown_text(scaling.key_label)
    x, y = scaling.time_band_bar.xData, scaling.time_band_bar.yData  # as given, before the log axes
    assert list(x) == [64, 64] and list(y) == pytest.approx([4950.0 / 3600, 6468.75 / 3600])  # hours
    scaling.set_series(SERIES, "USD", ("ZeRO-1", 64), "wall")
    qtbot.waitUntil(lambda: not scaling.redraw_pending())
    assert scaling.chart_data()["selected_band"] is None
    assert scaling.time_band_bar.xData is None or len(scaling.time_band_bar.xData) == 0
    assert "published runs" not in shown_text(scaling.key_label)


def test_the_band_in_the_key_follows_the_language(scaling):
    from desktop.i18n import set_language
    from planner.uncertainty import ErrorBand

    try:
        set_language("ru", strict=True)
        scaling.set_series(
            SERIES, "USD", ("ZeRO-1", 64), "wall", ErrorBand(-0.12, 0.15, 23, "training/hopper")
        )
        assert "выбранный вариант, время -12 % .. +15 %, 23 опубликованных замера" in shown_text(scaling.key_label)
    finally:
        set_language("en", strict=True)
    scaling.retranslate()
    assert "selected option, time -12% .. +15%, 23 published runs" in shown_text(scaling.key_label)


def test_the_plots_follow_on_the_next_turn_once_for_several_changes(scaling, qtbot):
    """An input change draws the table in one turn of the event loop and the scaling plots in the next: the data
    and the legend are the new ones at once, the lines once the loop turns, and two changes in one turn draw once
    (the second's points)."""
    drawn: list[int] = []
    scaling.drawn.connect(lambda: drawn.append(1))
    halved = {"ZeRO-1": [(gpus, time_s / 2, cost) for gpus, time_s, cost in SERIES["ZeRO-1"]]}
    scaling.set_series(SERIES, "USD", ("ZeRO-1", 32), "wall")
    scaling.set_series(halved, "USD", ("ZeRO-1", 64), "wall")
    assert scaling.chart_data()["selected"] == ("ZeRO-1", 64) and scaling.redraw_pending() and not drawn
    qtbot.waitUntil(lambda: not scaling.redraw_pending())
    assert len(drawn) == 1
    x, y = scaling.time_marker.xData, scaling.time_marker.yData  # the ring, as given, before the log axes
    assert list(x) == [64] and list(y) == pytest.approx([3600.0 * 100 / 64 / 2 / 3600])  # hours


def test_the_first_lines_of_several_strategies_are_made_a_strategy_per_turn(scaling, qtbot):
    """The per-strategy curves of a 70B plan arrive together (four families): making their eight lines in one turn
    was one GUI stall of 60-120 ms (bench, "first plan"). Each turn of the event loop now makes one family's two
    lines, the window answering between; `drawn` comes once, when every family is drawn."""
    families = {name: [(g, t * (1 + k / 10), c) for g, t, c in SERIES["ZeRO-1"]]
                for k, name in enumerate(("DDP", "ZeRO-1", "ZeRO-2", "ZeRO-3/FSDP"))}  # fmt: skip
    drawn: list[int] = []
    scaling.drawn.connect(lambda: drawn.append(1))
    scaling.set_series(families, "USD", ("ZeRO-1", 64), "wall")
    shown = []
    while scaling.redraw_pending():
        qtbot.wait(1)  # one turn at a time
        shown.append(len(scaling._time_curves))
    assert shown[-1] == 4 and drawn == [1]
    assert max(b - a for a, b in zip([1, *shown], shown, strict=False)) <= 1  # ZeRO-1's lines were there already
    for family, curve in scaling._time_curves.items():  # every line has its family's points
        assert list(curve.xData) == [g for g, _t, _c in families[family]]


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_band_in_the_key_never_wraps_inside_its_range(scaling, language):
    """Walk at 1366 x 768: the key read "time -33 % .." on one line and "+34 %" on the next. Laid out at every
    width from 200 to 800 px, the range "-12% .. +15%" is on one line."""
    from desktop.i18n import set_language
    from planner.uncertainty import ErrorBand

    try:
        set_language(language, strict=True)
        scaling.set_series(SERIES, "USD", ("ZeRO-1", 64), "wall", ErrorBand(-0.12, 0.15, 23, "training/hopper"))
        span = "-12% .. +15%" if language == "en" else "-12 % .. +15 %"
        assert span in shown_text(scaling.key_label)
        for width in range(200, 801, 10):
            document = QTextDocument()
            document.setDefaultFont(scaling.key_label.font())
            document.setHtml(scaling.key_label.text())
            document.setTextWidth(width)
            document.size()  # lays the text out
            block = document.begin()
            layout = block.layout()
            starts = [layout.lineAt(i).textStart() for i in range(layout.lineCount())] + [len(block.text())]
            lines = [block.text()[start:end] for start, end in zip(starts, starts[1:], strict=False)]
            assert any(span in line.replace("\u00a0", " ") for line in lines), (width, lines)
    finally:
        set_language("en", strict=True)
