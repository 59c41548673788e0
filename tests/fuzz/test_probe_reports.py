"""Probe reports (schema-valid but hostile, and broken): the strict loader, `probe import`, and the plans after.

Properties: profiler.report.load_report returns a report or raises ReportError, nothing else; `probe import`
exits 0 or 2 with one line and a refused import writes nothing; once a report is stored, `plan --json` for its
GPU still exits 0 or 2 with strict, finite JSON (an accepted absurd value must not poison later plans).
"""

from __future__ import annotations

import itertools
import time

import pytest
from hypothesis import given

from tests.fuzz.harness import (
    Run,
    Violation,
    all_finite,
    explorer,
    fuzz_settings,
    run_in_process,
    strict_json,
    table_counts,
)
from tests.fuzz.strategies import hostile_report, report_bytes

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
PLAN = ["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--task", "finetune", "--json"]


def load_in_process(path, entry: str) -> Run:
    """profiler.report.load_report as a Run: accepted, refused (ReportError) or crashed (anything else)."""
    from profiler.report import ReportError, load_report

    started = time.monotonic()
    try:
        load_report(path)
        code, exception = 0, None
    except ReportError as exc:
        code, exception = 2, None
        message = str(exc)
    except Exception as exc:  # noqa: BLE001 - anything but ReportError escaping the loader is what we look for
        code, exception = 1, f"{type(exc).__name__}: {exc}"[:400]
    stderr = f"{message}\n" if code == 2 else ""
    return Run(entry, [str(path)], code, b"", stderr, time.monotonic() - started, False, exception)


def test_hostile_probe_reports(sandbox):
    loader = explorer("probe report loader (profiler.report)")
    importer = explorer("probe import (CLI)")
    planner = explorer("plan after probe import")

    @fuzz_settings(2.0)
    @given(hostile_report())
    def explore(case):
        report, how = case
        number = next(COUNTER)
        path = sandbox / f"report-{number}.json"
        path.write_bytes(report_bytes(report))
        loader.check(load_in_process(path, loader.entry))
        db = sandbox / f"runs-{number}.sqlite"
        assert run_in_process(["--db", str(db), "history"], "seed").code == 0
        before = table_counts(db)
        run = run_in_process(["--db", str(db), "probe", "import", str(path), "--json"], importer.entry,
                             wants_json=True)  # fmt: skip
        extra = []
        if run.code == 2 and table_counts(db) != before:
            extra.append(Violation("db-written", "a refused import changed the database"))
        importer.check(run, extra)
        if run.code == 0:
            plan = run_in_process(["--db", str(db), *PLAN], planner.entry, wants_json=True)
            finite = []
            if plan.code == 0 and plan.stdout:
                try:
                    if not all_finite(strict_json(plan.stdout)):
                        finite.append(Violation("json", "non-finite number"))
                except ValueError:
                    pass  # judge() reports the JSON violation itself
            planner.check(plan, finite)
        db.unlink(missing_ok=True)
        path.unlink(missing_ok=True)

    explore()
    for fuzz in (loader, importer, planner):
        fuzz.finish()
