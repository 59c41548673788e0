"""A bug surfaces as a bug: its traceback goes to the error log and the person is told where the report is; a
UserError is the person's to fix and writes no report (desktop/error_log.py)."""

from __future__ import annotations

import sys

from desktop.error_log import error_log_path, install_excepthook
from desktop.workers import JobRunner
from planner.errors import UserError


def test_a_programming_error_in_a_job_is_logged_and_says_where(qtbot):
    def broken():
        return {}["price"]  # what a programming error looks like: a KeyError, not a UserError

    messages: list[str] = []
    job = JobRunner().run(broken, on_error=messages.append)
    with qtbot.waitSignal(job.failed, timeout=5000):
        pass
    log = error_log_path()
    assert messages == [f"KeyError: 'price'. This is a bug in GPU Advisor; its report is in {log}."]
    report = log.read_text(encoding="utf-8")
    assert "background job" in report and "in broken" in report and "KeyError: 'price'" in report


def test_a_user_error_writes_no_report(qtbot):
    def refused():
        raise UserError("the file has no header row")

    messages: list[str] = []
    job = JobRunner().run(refused, on_error=messages.append)
    with qtbot.waitSignal(job.failed, timeout=5000):
        pass
    assert messages == ["the file has no header row"]
    assert not error_log_path().exists()


def test_an_exception_escaping_the_gui_thread_is_logged_and_announced(monkeypatch, qapp):
    monkeypatch.setattr(sys, "excepthook", sys.excepthook)  # restored after the test
    announced: list[str] = []
    install_excepthook(announced.append)
    try:
        raise ZeroDivisionError("division by zero")
    except ZeroDivisionError as error:
        sys.excepthook(type(error), error, error.__traceback__)
    log = error_log_path()
    assert announced == [f"ZeroDivisionError: division by zero. This is a bug in GPU Advisor; its report is in {log}."]
    assert "unhandled on the GUI thread" in log.read_text(encoding="utf-8")
