"""`make bench` (plan_gui): median time from an input change on the Plan page to its charts redrawn, offscreen.

Each sample changes one input the way a widget does (PlanState.update), asks for the plan at once (the 30 ms
throttle is skipped: it only merges bursts) and stops the clock when the page has redrawn the table, the
memory bar and the scaling chart (its `planned` signal). Two workloads: a small one (8B LoRA, one GPU type)
and the screenshot example (70B full fine-tune, two GPU types, up to 128 GPUs). Target: under 50 ms.
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time
from pathlib import Path

TARGET_MS = 50.0
SAMPLES = 11


def _app():
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    return QApplication.instance() or QApplication(["bench"])


class _Counter:
    """Counts a page signal from before the request (a fast plan redraws inside replan() itself)."""

    def __init__(self, signal):
        self.count = 0
        signal.connect(self._hit)

    def _hit(self) -> None:
        self.count += 1

    def wait_beyond(self, app, seen: int, timeout_s: float = 30.0) -> bool:
        deadline = time.perf_counter() + timeout_s
        while self.count <= seen and time.perf_counter() < deadline:
            app.processEvents()
        return self.count > seen


def _measure(app, page, planned: _Counter, inputs) -> dict:
    seen = planned.count
    page.state.replace_inputs(inputs, dirty=False)
    page.sync_widgets()
    page.replan()
    planned.wait_beyond(app, seen)
    totals, redraws, searches = [], [], []
    for index in range(SAMPLES):
        seen = planned.count
        started = time.perf_counter()
        page.state.update(seq_len=2048 if index % 2 else 4096)
        page.replan()
        if not planned.wait_beyond(app, seen):
            raise RuntimeError("the page did not redraw within 30 s")
        totals.append((time.perf_counter() - started) * 1000.0)
        redraws.append(page.last_redraw_ms)
        searches.append(float(getattr(page.state.result, "search_ms", 0.0) or 0.0))
    return {
        "median_input_to_redraw_ms": round(statistics.median(totals), 1),
        "median_search_ms": round(statistics.median(searches), 1),
        "median_redraw_ms": round(statistics.median(redraws), 1),
        "samples": SAMPLES,
    }


def run() -> dict:
    app = _app()
    scratch = Path(tempfile.mkdtemp(prefix="gpu-advisor-bench-"))
    os.environ["GPU_ADVISOR_DB"] = str(scratch / "bench.sqlite")
    from desktop.context import AppContext, set_settings_path
    from desktop.pages.plan import EXAMPLE_INPUTS, PlanPage
    from desktop.plan_state import PlanInputs

    set_settings_path(str(scratch / "settings.ini"))
    context = AppContext()
    page = PlanPage(context)
    planned = _Counter(page.planned)
    page.resize(1280, 820)
    page.show()
    planned.wait_beyond(app, 0)
    small = PlanInputs(task="lora", preset="llama-3.1-8b", hardware=("catalog:rtx-4090",), max_gpus=8)
    figures = {
        "small_8b_lora": _measure(app, page, planned, small),
        "example_70b_finetune": _measure(app, page, planned, EXAMPLE_INPUTS),
        "target_ms": TARGET_MS,
    }
    page.shutdown()
    context.shutdown()
    context.store.close()
    return figures


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
