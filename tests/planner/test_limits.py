"""The one table of input limits (issue 30 item 2): every numeric option has a physical range, text is capped
before it is a number, files' whole numbers are capped while parsing, and --json never holds Infinity."""

from __future__ import annotations

import argparse
import json
import math

import pytest

from planner.cli import build_parser, main
from planner.limits import LIMITS, finite_json
from profiler.report import ReportError, parse_report_text

PLAN = ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm"]
RENTBUY = ["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2.5"]
HUGE = "9" * 309  # every integer option of plan died on this with OverflowError


def numeric_options() -> list[tuple[str, str, str, bool]]:
    """(subcommand, dest, option, whole) for every option the parser turns into a number."""
    found = []

    def walk(parser: argparse.ArgumentParser, path: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, f"{path} {name}".strip())
            elif getattr(action.type, "__name__", "") in ("int", "float") and action.option_strings:
                found.append((path, action.dest, action.option_strings[-1], action.type.__name__ == "int"))

    walk(build_parser(), "")
    return found


def strict(text: str) -> object:
    def refuse(name: str) -> None:
        raise AssertionError(f"{name} in --json output")

    return json.loads(text, parse_constant=refuse)


def test_every_numeric_option_has_a_row_and_whole_options_whole_rows():
    options = numeric_options()
    assert len(options) > 50
    for command, dest, option, whole in options:
        assert dest in LIMITS, f"{command} {option}: add its physical range to planner.limits.LIMITS"
        assert LIMITS[dest].integer == whole, (command, option)


@pytest.mark.parametrize(
    "option", sorted({o for c, _, o, whole in numeric_options() if c == "plan" and whole})
)
def test_a_309_digit_integer_is_one_line_exit_2(capsys, option):
    assert main([*PLAN, option, HUGE]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and f"{option} is 309 characters long" in err


@pytest.mark.parametrize(
    ("argv", "refusal"),
    [  # each was a ZeroDivisionError / OverflowError traceback, or Infinity in --json (issue 30)
        ([*PLAN, "--checkpoint-gb-per-s", "1e-9"], "--checkpoint-gb-per-s must be from 0.001"),
        (
            [*PLAN, "--checkpoint-interval-minutes", "5e-324"],
            "--checkpoint-interval-minutes must be from 0.01",
        ),
        ([*PLAN, "--mfu", "5e-324", "--json"], "--mfu must be from 0.001 to 1"),
        ([*PLAN, "--bandwidth-fraction", "5e-324", "--json"], "--bandwidth-fraction must be from 0.001 to 1"),
        ([*RENTBUY, "--years", "1.7e308"], "--years 1.7e+308 is absurdly large"),
        ([*RENTBUY, "--hours-per-day", "5e-324", "--json"], "--hours-per-day must be from 0.01 to 24"),
        ([*PLAN, "--gpus", "1e3"], "--gpus must be a whole number"),
    ],
)
def test_values_that_divided_by_almost_nothing_are_refused_in_one_line(capsys, argv, refusal):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert refusal in err and err.count("\n") == 1


@pytest.mark.slow
def test_at_each_floor_and_ceiling_the_json_is_strict(capsys):
    """Every float option of plan and rentbuy at the edges of its range: strict JSON or a one-line refusal."""
    for command, base in (("plan", PLAN), ("rentbuy", RENTBUY)):
        for _, dest, option, whole in numeric_options():
            if _ != command or whole:
                continue
            for value in (LIMITS[dest].low, LIMITS[dest].high):
                code = main([*base, option, repr(value), "--json"])
                out, err = capsys.readouterr()
                assert code in (0, 2), (option, value, err)
                if code == 0:
                    strict(out)
                else:
                    assert err.count("\n") == 1, (option, value, err)


def test_a_config_json_integer_of_4000_digits_is_one_line(capsys, tmp_path):
    path = tmp_path / "config.json"
    path.write_text('{"model_type": "llama", "hidden_size": ' + "9" * 4000 + "}", encoding="utf-8")
    assert main(["memory", "--model", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "4000 digits" in err


def test_a_report_integer_of_41_digits_is_refused_while_parsing():
    with pytest.raises(ReportError, match="41 digits"):
        parse_report_text('{"schema_version": ' + "1" * 41 + "}")


def test_finite_json_turns_non_finite_figures_into_null():
    assert finite_json({"a": [1.0, math.inf, {"b": -math.inf, "c": math.nan}], "d": "inf"}) == {
        "a": [1.0, None, {"b": None, "c": None}],
        "d": "inf",
    }
