"""The window appears before the heavy modules load (issue 29: start-up), and its charts follow on their own.

A fresh interpreter starts the app as `gpu-advisor` does on a first start (the Hardware page) with eight fake
GPUs. When the window has been shown, neither pyqtgraph (a 0.3-1.5 s import) nor numpy, sqlite_utils or pandas
(what sqlite_utils imports where installed) is loaded, nor the database's modules or NVML's (both are read on pool
threads once the window has painted): the charts' library is imported on a pool thread after the
window's first paints, and the telemetry chart then appears in its tab with one curve per GPU and panel and a
legend row per GPU, without the user doing anything.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import json, sys, time
from desktop.app import create_application
app = create_application([])
from desktop.context import AppContext
from desktop.main_window import MainWindow
window = MainWindow(AppContext())
window.show()
app.processEvents()
at_shown = sorted(m for m in ("pyqtgraph", "numpy", "sqlite_utils", "pandas", "torch", "planner.store", "pynvml",
                              "profiler.nvml_inventory") if m in sys.modules)
page = window.page("hardware")
deadline = time.monotonic() + 60
while (page._telemetry is None or page._probe_chart is None or not page._telemetry.curves
       or not window.db_label.text()) and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.005)
chart = page._telemetry
print("RESULT " + json.dumps({
    "at_shown": at_shown, "current": window.navigation.currentRow(),
    "chart_visible": chart is not None and chart.isVisible(),
    "curves": len(chart.curves) if chart is not None else 0,
    "legend_gpus": chart.legend.text().count("GPU ") if chart is not None else 0,
    "probe_chart_in_its_tab": page._probe_chart is not None and page.probe_chart_holder.isAncestorOf(page._probe_chart),
    "status_bar": window.db_label.text(), "status_tip": window.db_label.toolTip(), "history_rows": page.history_model.rowCount(),
}))
window.close()
"""


@pytest.mark.slow
def test_the_window_shows_before_the_chart_library_and_the_charts_follow(tmp_path: Path) -> None:
    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", GPU_ADVISOR_FAKE_NVML="h100x8",
        GPU_ADVISOR_DB=str(tmp_path / "db.sqlite"), XDG_CONFIG_HOME=str(tmp_path / "config"),
    )  # fmt: skip
    # the first run creates the database (a migration imports sqlite_utils); a start is the second run on
    for _run in range(2):
        out = subprocess.run([sys.executable, "-c", CHILD], cwd=ROOT, env=env, capture_output=True, text=True,
                             timeout=180)  # fmt: skip
        assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(next(line for line in out.stdout.splitlines() if line.startswith("RESULT "))[7:])
    assert result["current"] == 0  # the Hardware page, first in the navigation
    assert result["at_shown"] == []
    assert result["chart_visible"]
    assert result["curves"] == 8 * 4  # eight GPUs, four panels
    assert result["legend_gpus"] == 8
    assert result["probe_chart_in_its_tab"]
    # the database is opened after the window is up and then named in the status bar; the probe history read
    assert result["status_bar"].startswith("Database: ") and result["status_tip"] == str(tmp_path / "db.sqlite")
    assert result["history_rows"] == 0


PLAN_FIRST_CHILD = """
import json, sys, time
from desktop.app import create_application
app = create_application([])
from desktop.context import AppContext, make_qsettings
from desktop.main_window import MainWindow
from desktop.pages.registry import PAGE_IDS
settings = make_qsettings()
settings.setValue("window/page", "plan")  # the page the last session ended on
settings.sync()
window = MainWindow(AppContext())
window.show()
app.processEvents()
shown = window.stack.currentWidget()
at_shown = {
    "modules": sorted(m for m in ("pyqtgraph", "numpy", "planner.search", "torch") if m in sys.modules),
    "row": window.navigation.currentRow(), "built": "plan" in window._built,
}
from PySide6.QtWidgets import QLabel
at_shown["says"] = [label.text() for label in shown.findChildren(QLabel) if label.isVisible()]
deadline = time.monotonic() + 90
while "plan" not in window._built and time.monotonic() < deadline:
    app.processEvents()
    time.sleep(0.005)
page = window._built.get("plan")
print("RESULT " + json.dumps({
    "at_shown": at_shown, "plan_row": PAGE_IDS.index("plan"), "current": window.navigation.currentRow(),
    "plan_shown": page is not None and window.stack.currentWidget() is page and page.isVisible(),
}))
if page is not None:
    page.state.dirty = False
window.close()
"""


@pytest.mark.slow
def test_a_remembered_plan_page_opens_after_the_window_shows(tmp_path: Path) -> None:
    """Start-up with the Plan page remembered as the last page: it was built before the window showed (planner,
    pyqtgraph and the page: 4-5 s more than the Hardware page's first start). The window now shows first, Plan
    selected and "Opening Plan…" in its place, and the page follows by itself."""
    env = dict(
        os.environ, QT_QPA_PLATFORM="offscreen", GPU_ADVISOR_FAKE_NVML="h100x8",
        GPU_ADVISOR_DB=str(tmp_path / "db.sqlite"), XDG_CONFIG_HOME=str(tmp_path / "config"),
    )  # fmt: skip
    for _run in range(2):  # the first run creates the database
        out = subprocess.run([sys.executable, "-c", PLAN_FIRST_CHILD], cwd=ROOT, env=env, capture_output=True,
                             text=True, timeout=180)  # fmt: skip
        assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(next(line for line in out.stdout.splitlines() if line.startswith("RESULT "))[7:])
    shown = result["at_shown"]
    assert shown["modules"] == [] and not shown["built"]
    assert shown["row"] == result["plan_row"]  # Plan is selected in the navigation from the start
    assert shown["says"] == ["Opening Plan…"]
    assert result["current"] == result["plan_row"] and result["plan_shown"]
