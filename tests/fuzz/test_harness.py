"""The fuzzing harness itself: its verdicts on hand-made runs, its safety rules, and the tie between each
tolerated known defect and the strict xfail that guards it."""

from __future__ import annotations

import inspect
import time

import pytest
from hypothesis import given, settings

from tests.fuzz import test_known_defects
from tests.fuzz.harness import Run, confined, judge, run_in_process
from tests.fuzz.known_defects import DEFECTS
from tests.fuzz.strategies import LOCALES, format_number, hostile_text


def run(code, stderr="", stdout=b"", wants_json=False, exception=None) -> Run:
    return Run("test", ["x"], code, stdout, stderr, 0.1, wants_json, exception)


def test_verdicts_on_hand_made_runs():
    assert judge(run(0))[0] == "accepted"
    assert judge(run(2, "gpu-advisor: no such file\n")) == ("refused", [])
    assert judge(run(2, "row 3: price must be > 0\nrow 5: gpu: unknown\ngpu-advisor: x.csv refused\n"))[0] == "refused"
    assert judge(run(2, "gpu-advisor: bad\nname.csv: no such file\n"))[0] == "messy"
    assert judge(run(None))[0] == "hang"
    assert judge(run(1, "Traceback (most recent call last):\n  File x\nKeyError: 'a'\n"))[1][0].what == "KeyError: 'a'"
    assert judge(run(0, "Exception ignored in: <stdout>\nBrokenPipeError: [Errno 32]\n"))[0] == "crash"
    assert judge(run(3, "gpu-advisor: killed\n"))[0] == "crash"


def test_json_output_must_be_strict():
    assert judge(run(0, stdout=b'{"a": 1.5}', wants_json=True))[1] == []
    for bad in (b'{"a": NaN}', b'{"a": Infinity}', b'{"a": -Infinity}', b"", b'{"a": "\xff"}', b"{"):
        kinds = [v.kind for v in judge(run(0, stdout=bad, wants_json=True))[1]]
        assert kinds == ["json"], bad


def test_a_hang_in_process_is_cut_off(monkeypatch):
    import planner.cli.models_cmd as models_cmd

    monkeypatch.setattr(models_cmd, "run_models", lambda _args: time.sleep(30))
    started = time.monotonic()
    result = run_in_process(["models"], "test", timeout_s=0.5)
    assert result.hung and time.monotonic() - started < 10


def test_an_escaping_exception_in_process_is_a_crash(monkeypatch):
    import planner.cli.models_cmd as models_cmd

    def boom(_args):
        raise KeyError("boom")

    monkeypatch.setattr(models_cmd, "run_models", boom)
    verdict, violations = judge(run_in_process(["models"], "test"))
    assert verdict == "crash" and violations[0].what == "KeyError: 'boom'"


def test_generated_paths_stay_in_the_sandbox(tmp_path):
    for name in ("/etc/passwd", "..", ".", "~", "~root", "a/b", ""):
        with pytest.raises(AssertionError):
            confined(tmp_path, name)
    assert confined(tmp_path, "quotes.csv") == str(tmp_path / "quotes.csv")


@settings(max_examples=300, deadline=None)
@given(hostile_text)
def test_generated_text_never_names_a_path_outside_the_sandbox(text):
    assert "/" not in text and "\0" not in text and text not in (".", "..") and not text.startswith("~")


def test_numbers_are_written_as_each_locale_writes_them():
    by_locale = {(loc.delimiter, loc.decimal, loc.thousands): format_number(1234.5, loc, 2) for loc in LOCALES}
    assert by_locale[(",", ".", "")] == "1234.50"
    assert by_locale[(",", ".", ",")] == "1,234.50"
    assert by_locale[(";", ",", ".")] == "1.234,50"
    assert by_locale[(";", ",", " ")] == "1 234,50"


def test_every_tolerated_defect_is_still_guarded_by_a_strict_xfail():
    """Once a fix removes a guard's xfail mark, the harness must stop tolerating that defect: delete its entry
    in tests/fuzz/known_defects.py too. (A loop, not a parametrization: with no defect left it passes rather
    than being skipped.)"""
    for defect in DEFECTS:
        guard = getattr(test_known_defects, defect.guard, None)
        assert inspect.isfunction(guard), f"{defect.guard} is not a test in tests/fuzz/test_known_defects.py"
        marks = [m for m in getattr(guard, "pytestmark", []) if m.name == "xfail"]
        assert marks and all(m.kwargs.get("strict") for m in marks), (
            f"{defect.guard} is no longer a strict xfail: the defect is fixed, so remove its entry from "
            "tests/fuzz/known_defects.py"
        )
        assert marks[0].kwargs["reason"].startswith("issue 14"), marks[0].kwargs["reason"]


def test_every_xfail_in_the_suite_names_its_defect():
    """xfail is used only for the defects of issue 14, each named in its reason."""
    for name, function in inspect.getmembers(test_known_defects, inspect.isfunction):
        if not name.startswith("test_"):
            continue
        for mark in (m for m in getattr(function, "pytestmark", []) if m.name == "xfail"):
            assert mark.kwargs.get("strict") is True, name
            assert mark.kwargs.get("reason", "").startswith("issue 14"), name
