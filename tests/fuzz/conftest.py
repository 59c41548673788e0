"""The fuzzing harness's hypothesis profiles, its sandbox, and the summary table it prints.

Two budgets (tests/fuzz/README.md):
- "fuzz-ci" (default, `make test`): few examples, derandomized (the same inputs every run, so the suite cannot
  turn red by chance), a violation fails at once and hypothesis shrinks it;
- "fuzz" (`make fuzz`, HYPOTHESIS_PROFILE=fuzz): many random examples; every input is counted, and each test
  fails at its end with the first example of every new kind of failure.

The profiles are applied per test by `fuzz_settings` (never loaded globally: the rest of the suite keeps its
own hypothesis settings). Every test under tests/fuzz/ gets a fresh sandbox folder as its working directory.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings
from hypothesis.database import DirectoryBasedExampleDatabase

from tests.fuzz.harness import PROFILE, REPO, TALLY, devices_intact

SUPPRESSED = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much,
              HealthCheck.large_base_example]  # fmt: skip
settings.register_profile(
    "fuzz-ci", max_examples=12, deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=SUPPRESSED,
)  # fmt: skip
settings.register_profile(
    "fuzz", max_examples=1000, deadline=None, print_blob=True, suppress_health_check=SUPPRESSED,
    database=DirectoryBasedExampleDatabase(str(REPO / ".hypothesis" / "fuzz")),
)  # fmt: skip


@pytest.fixture
def sandbox(monkeypatch):
    """A fresh folder as the working directory (generated paths are relative to it), with its own database."""
    folder = Path(tempfile.mkdtemp(prefix="gpu-advisor-fuzz-"))
    monkeypatch.chdir(folder)
    monkeypatch.setenv("GPU_ADVISOR_DB", str(folder / "fuzz.sqlite"))
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(autouse=True)
def device_files_stay_devices():
    """A fuzz input must never rename or replace /dev/zero and friends (the store once moved /dev/zero aside
    when run as root with --db /dev/zero; the harness only ever gives it links inside the sandbox)."""
    yield
    broken = devices_intact()
    assert not broken, f"device files replaced during this test: {broken}"


def pytest_terminal_summary(terminalreporter):
    if not TALLY.entries:
        return
    terminalreporter.section(f"fuzzing harness (issue 14), profile {PROFILE}")
    terminalreporter.write_line(TALLY.table())
    target = os.environ.get("FUZZ_TALLY")
    if target:
        Path(target).parent.mkdir(parents=True, exist_ok=True)
        Path(target).write_text(json.dumps({"profile": PROFILE, "entries": TALLY.as_dict()}, indent=2) + "\n")
        terminalreporter.write_line(f"tally written to {target}")
