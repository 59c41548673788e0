"""`gpu-advisor --screenshots DIR` in a fresh process: one readable PNG per page, and torch never imported.

A fresh interpreter is the honest check for "the GUI process never imports torch": in this test process
other tests may have imported it. The screenshot run builds the window, fills every page with its example
(probe results, history, quotes, a plan) and renders each page, which exercises every page's code path.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

ROOT = Path(__file__).resolve().parents[2]
PAGES = ("hardware", "quotes", "plan", "rent_buy", "settings")

CHILD = """
import json, sys
from desktop.app import main
code = main(["--screenshots", sys.argv[1]])
heavy = sorted(name for name in sys.modules if name.split(".")[0] == "torch")
print("RESULT " + json.dumps({"code": code, "heavy": heavy}))
"""


@pytest.mark.slow
def test_screenshots_render_every_page_without_importing_torch(tmp_path):
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", GPU_ADVISOR_FAKE_NVML="h100x8")
    out = subprocess.run(
        [sys.executable, "-c", CHILD, str(tmp_path / "shots")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    result = json.loads(next(line for line in out.stdout.splitlines() if line.startswith("RESULT "))[7:])
    assert result["code"] == 0
    assert result["heavy"] == [], f"the GUI process imported {result['heavy']}"
    for page in PAGES:
        image = QImage(str(tmp_path / "shots" / f"{page}.png"))
        assert not image.isNull(), page
        assert (image.width(), image.height()) == (1280, 820), page
    # the user's own database was not touched: the example data went to a temporary one
    assert not Path(os.environ["GPU_ADVISOR_DB"]).exists()


def test_entry_point_dispatches_screenshots_to_the_gui(tmp_path):
    from desktop.entry import wants_gui

    assert wants_gui(["--screenshots", str(tmp_path)])
    assert wants_gui(["--lang", "ru", "--db", str(tmp_path / "x.sqlite")])
    assert not wants_gui(["quotes", "list"])
