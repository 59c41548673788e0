"""Suite-wide isolation: every test gets its own database, user data folder and Qt settings.

Nothing a test does may touch the real user's files, and no test may depend on the machine having a GPU.
"""

from __future__ import annotations

import os

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("QT_API", "pyside6")
os.environ.setdefault("PYQTGRAPH_QT_LIB", "PySide6")


@pytest.fixture(autouse=True)
def isolated_user_dirs(tmp_path_factory, monkeypatch):
    """Point the database, platformdirs and QSettings at a fresh temporary folder for each test."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.setenv("GPU_ADVISOR_DB", str(home / "gpu-advisor.sqlite"))
    # Tests choose an NVML scenario explicitly; never read the host's real GPUs by accident.
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", os.environ.get("GPU_ADVISOR_TEST_NVML", "none"))
    yield home
