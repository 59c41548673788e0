"""JobRunner (results, errors, progress, cancel on the GUI thread) and locale-aware formatting."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QLocale, QThread

from desktop import fmt
from desktop.workers import JobRunner
from planner.errors import UserError


def test_job_result_arrives_on_the_gui_thread(qtbot):
    runner = JobRunner()
    seen = {}

    def work(a, b):
        seen["worker"] = threading.get_ident()
        return a + b

    def done(result):
        seen["result"] = result
        seen["callback_thread"] = QThread.currentThread()

    job = runner.run(work, 2, 3, on_done=done)
    with qtbot.waitSignal(job.done, timeout=5000):
        pass
    assert seen["result"] == 5
    assert seen["worker"] != threading.get_ident()
    assert seen["callback_thread"] is qtbot_app_thread()
    assert runner.running_count == 0


def qtbot_app_thread():
    from PySide6.QtWidgets import QApplication

    return QApplication.instance().thread()


def test_job_errors_are_one_line_messages(qtbot):
    runner = JobRunner()

    def bad():
        raise UserError("the file has no header row")

    messages = []
    job = runner.run(bad, on_error=messages.append)
    with qtbot.waitSignal(job.failed, timeout=5000):
        pass
    assert messages == ["the file has no header row"]


def test_progress_and_cancel(qtbot):
    runner = JobRunner()
    started = threading.Event()
    release = threading.Event()
    fractions = []

    def slow(progress):
        progress(0.25, "first quarter")
        started.set()
        release.wait(5)
        progress(0.5, "never delivered: cancelled")
        return "finished"

    job = runner.run(slow, on_progress=lambda fraction, message: fractions.append((fraction, message)))
    assert started.wait(5)
    job.cancel()
    release.set()
    with qtbot.waitSignal(job.failed, timeout=5000) as failed:
        pass
    assert failed.args[0] == "Cancelled"
    qtbot.waitUntil(lambda: fractions == [(0.25, "first quarter")], timeout=2000)


@pytest.mark.parametrize(
    ("language", "expected"),
    [
        # hand-written expectations: English groups with commas, Russian with (narrow) no-break spaces and a decimal comma
        (QLocale.Language.English, ["1,234.5", "80.0 GiB", "$3.49", "87%", "794.0 TFLOPS", "3,350 GB/s"]),
        (QLocale.Language.Russian, ["1 234,5", "80,0 GiB", "3,49 USD", "87%", "794,0 TFLOPS", "3 350 GB/s"]),
    ],
)
def test_formatting_follows_the_locale(language, expected):
    locale = QLocale(language)
    got = [
        fmt.number(1234.5, 1, locale),
        fmt.bytes_(80 * 2**30, locale=locale),
        fmt.money(3.49, "USD", locale=locale),
        fmt.percent(0.874, locale=locale),
        fmt.tflops(794e12, locale=locale),
        fmt.bandwidth(3.35e12, locale=locale),
    ]
    normalise = str.maketrans({"\u00a0": " ", "\u202f": " "})
    assert [text.translate(normalise) for text in got] == expected


def test_units_and_missing_values():
    en = QLocale(QLocale.Language.English)
    assert fmt.bytes_(512 * 2**20, locale=en) == "512 MiB"
    assert fmt.duration(42, en) == "42 s"
    assert fmt.duration(5400, en) == "1.5 h"
    assert fmt.duration(3 * 86400, en) == "3.0 days"
    assert fmt.money(250, "RUB", locale=en).replace("\u00a0", " ") == "250.00 ₽"
    assert fmt.money(0.0042, "USD", locale=en) == "$0.0042"
    assert fmt.number(None) == "n/a"
    assert fmt.date("2026-09-01", QLocale(QLocale.Language.Russian)) == "01.09.2026"
