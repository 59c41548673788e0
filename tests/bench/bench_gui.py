"""`make bench` figure: time from process start to the main window shown (target < 1.5 s offscreen).

Each trial starts a fresh interpreter (imports are part of start-up), builds the window exactly as
`gpu-advisor` does (desktop.app.create_application, AppContext, MainWindow) and reports when the window has
been shown and the first event-loop turn has run. NVML is the fake "h100x8" (read on a pool thread anyway).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET_S = 1.5
TRIALS = 5

CHILD = """
import sys
from desktop.app import create_application
app = create_application([])
from desktop.context import AppContext
from desktop.main_window import MainWindow
from PySide6.QtCore import QTimer
window = MainWindow(AppContext())
window.show()
def shown():
    sys.stdout.write("shown\\n"); sys.stdout.flush()
    window.close(); app.quit()
QTimer.singleShot(0, shown)
app.exec()
"""


def one_trial(env: dict) -> float:
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-c", CHILD], cwd=ROOT, env=env, stdout=subprocess.PIPE, text=True
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    shown_s = time.perf_counter() - started
    process.wait(timeout=60)
    if line.strip() != "shown":
        raise RuntimeError(f"the window did not report itself shown (exit code {process.returncode})")
    return shown_s


def run() -> dict:
    with tempfile.TemporaryDirectory() as scratch:
        env = dict(
            os.environ,
            QT_QPA_PLATFORM="offscreen",
            GPU_ADVISOR_FAKE_NVML="h100x8",
            GPU_ADVISOR_DB=str(Path(scratch) / "bench.sqlite"),
            XDG_CONFIG_HOME=str(Path(scratch) / "config"),
        )
        one_trial(env)  # warm-up: creates and migrates the database, warms the OS file cache
        times = [one_trial(env) for _ in range(TRIALS)]
    return {
        "startup_to_window_shown_median_s": round(statistics.median(times), 3),
        "startup_to_window_shown_max_s": round(max(times), 3),
        "trials": TRIALS,
        "target_s": TARGET_S,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
