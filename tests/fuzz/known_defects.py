"""The defects of issue 14 that the fuzzing harness still finds on the current code, each tied to its guard.

The harness fails on every violation it cannot match here. A violation matched here is counted in the summary
table ("known defects hit") and lets the generated test go on, because the defect is already pinned down by a
strict xfail test in tests/fuzz/test_known_defects.py (`guard`). When a fix makes that guard pass (XPASS fails
the suite), remove the xfail mark AND the entry here: tests/fuzz/test_harness.py fails while an entry points at
a guard that is no longer a strict xfail, so the harness never goes on tolerating a defect that was fixed.

Matchers are narrow on purpose: the exception type and message of the crash, the entry point, and the input
feature that triggers the defect. Anything else is a new finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from tests.fuzz.harness import Run, Violation

OPTION_EQUALS_DOUBLE_DASH = re.compile(r"^--[\w-]+=--$")  # CPython 3.11.7 argparse turns the value into []
SURROGATE = re.compile("[\ud800-\udfff]")


@dataclass(frozen=True)
class KnownDefect:
    item: str  # "item 4" (issue 14's numbered list) or "new: ..." (found by this harness)
    what: str
    guard: str  # the strict-xfail test in tests/fuzz/test_known_defects.py that fails until the fix lands
    matches: Callable[[Run, Violation], bool]


def _crash(*fragments: str) -> Callable[[Run, Violation], bool]:
    """A crash whose exception line contains every fragment."""
    return lambda run, v: v.kind == "crash" and all(f in v.what for f in fragments)


def _any_crash(*options: Callable[[Run, Violation], bool]) -> Callable[[Run, Violation], bool]:
    return lambda run, v: any(option(run, v) for option in options)


def _on(prefix: str, test: Callable[[Run, Violation], bool]) -> Callable[[Run, Violation], bool]:
    return lambda run, v: run.entry.startswith(prefix) and test(run, v)


def _has_surrogate(run: Run) -> bool:
    return any(SURROGATE.search(arg) for arg in run.argv)


def _has_option_equals_double_dash(run: Run) -> bool:
    return any(OPTION_EQUALS_DOUBLE_DASH.match(arg) for arg in run.argv)


def _one_message_split(run: Run) -> bool:
    """One "gpu-advisor: ..." message broken over lines (by a newline in the text it quotes), not two messages."""
    lines = run.stderr_lines
    return len(lines) > 1 and lines[0].startswith("gpu-advisor: ") and not any(
        line.startswith(("gpu-advisor: ", "row ")) for line in lines[1:]
    )


def _hint(*hints: str) -> Callable[[Run, Violation], bool]:
    """A violation the test tagged with the input feature behind it (e.g. a thousands separator)."""
    return lambda run, v: any(v.what.startswith(f"[{hint}]") for hint in hints)


DEFECTS: tuple[KnownDefect, ...] = (
    # ---- item 1: names from files written unquoted into launch.sh / accelerate_config.yaml
    KnownDefect("item 1", "a model name from config.json or a folder name is written unquoted into the exports",
                "test_item1_exported_launch_script_never_runs_a_name_from_config_json",
                _on("plan --export", lambda run, v: v.kind in ("export-shell", "export-yaml"))),
    KnownDefect("item 1", "a model name from config.json that is not text (a lone surrogate) crashes the export "
                "and --json output", "test_item1_a_model_name_that_is_not_text_is_refused_or_cleaned",
                lambda run, v: run.entry.startswith(("plan --export", "model files"))
                and _crash("UnicodeEncodeError", "surrogates not allowed")(run, v)),
    # ---- item 3: reports the loader accepts still crash `probe import`; absurd values reach the planner
    KnownDefect("item 3", "probe import crashes on a GPU name given as an object",
                "test_item3_probe_import_refuses_or_stores_hostile_reports",
                _on("probe import", _crash("object has no attribute"))),
    KnownDefect("item 3", "probe import crashes on a null name and uuid",
                "test_item3_probe_import_refuses_or_stores_hostile_reports",
                _on("probe import", _crash("IntegrityError", "NOT NULL"))),
    KnownDefect("item 3", "probe import crashes on a lone surrogate in a text field",
                "test_item3_probe_import_refuses_or_stores_hostile_reports",
                _on("probe import", _crash("UnicodeEncodeError", "surrogates not allowed"))),
    KnownDefect("item 3", "a huge integer in a report (5,000 digits, or past 2**63) escapes as ValueError / OverflowError",
                "test_item3_probe_import_refuses_or_stores_hostile_reports",
                lambda run, v: run.entry.startswith(("probe import", "probe report loader")) and v.kind == "crash"
                and ("Exceeds the limit" in v.what or "too large to convert to SQLite INTEGER" in v.what)),
    KnownDefect("item 3", "an absurd measured value makes later plans fail or print Infinity/NaN",
                "test_item3_plans_stay_finite_after_an_absurd_measurement",
                _on("plan after probe import", lambda run, v: v.kind == "json"
                    or (v.kind == "crash" and any(t in v.what for t in ("ZeroDivisionError", "OverflowError"))))),
    KnownDefect("item 3", "thousands of devices in one report make each plan take minutes",
                "test_item3_plan_after_a_20000_device_report_finishes",
                _on("plan after probe import", lambda run, v: v.kind == "hang")),
    # ---- item 4: special files, encodings, limits
    KnownDefect("item 4", "a FIFO, an endless device or another special file given as a path hangs, is read "
                "without bound, or is refused in more than one line",
                "test_item4_special_file_is_refused_not_hung",
                _on("special files", lambda run, v: v.kind in ("hang", "crash", "messy-refusal"))),
    KnownDefect("item 4", "non-UTF-8 bytes in a text option end in UnicodeEncodeError",
                "test_item4_non_utf8_text_option_is_one_line",
                lambda run, v: _has_surrogate(run) and _crash("UnicodeEncodeError", "surrogates not allowed")(run, v)),
    KnownDefect("item 4", "an over-long file name ends in OSError: File name too long",
                "test_item4_over_long_file_name_is_one_line",
                _crash("OSError", "File name too long")),
    KnownDefect("item 4", "a huge quote id overflows SQLite INTEGER",
                "test_item4_huge_quote_id_is_one_line",
                lambda run, v: any(re.fullmatch(r"[+-]?\d{19,}", arg.partition("=")[2] or arg) for arg in run.argv)
                and _crash("OverflowError", "too large to convert to SQLite INTEGER")(run, v)),
    KnownDefect("item 4", "`--opt=--` (the CPython 3.11.7 argparse bug) turns a value into []",
                "test_item4_option_equals_double_dash_is_refused_or_taken_literally",
                lambda run, v: _has_option_equals_double_dash(run) and v.kind in ("crash", "wrong-value")),
    KnownDefect("item 4", "a closed stdout ends in a traceback",
                "test_item4_closed_stdout_is_not_a_traceback",
                _on("closed stdout", _crash("NoneType", "write"))),
    KnownDefect("item 4", "deeply nested or huge-integer JSON in config.json / a safetensors header escapes",
                "test_item4_hostile_json_in_model_files_is_one_line",
                _on("model files", _any_crash(_crash("RecursionError"), _crash("ValueError", "Exceeds the limit"),
                                              _crash("OverflowError", "int too large to convert to float")))),
    # ---- item 5: silent wrong data
    KnownDefect("item 5", '"1,000" in a semicolon CSV is imported as 1.0',
                "test_item5_thousands_separator_in_a_semicolon_csv_is_not_read_as_one",
                _hint("thousands-separator")),
    KnownDefect("item 5", "a leading apostrophe the user typed is stripped",
                "test_item5_a_typed_leading_apostrophe_is_kept",
                _hint("leading-apostrophe")),
    KnownDefect("item 5", "--db naming a file that is not SQLite moves it aside",
                "test_item5_db_typo_naming_a_csv_is_refused_and_the_csv_kept",
                lambda run, v: v.kind == "moved-aside"
                or (v.kind == "messy-refusal" and "could not be read; it was moved to" in run.stderr)),
    KnownDefect("item 5", "rentbuy --json prints Infinity/NaN for huge inputs",
                "test_item5_rentbuy_json_is_finite_for_huge_inputs",
                _on("cli args: rentbuy", lambda run, v: v.kind == "json")),
    # ---- found by this harness, not in issue 14's list (reported to the lead)
    KnownDefect("new: newline in an echoed name", "an error quoting a path or name that holds a newline is more "
                "than one line", "test_new_error_quoting_a_name_with_a_newline_is_one_line",
                lambda run, v: v.kind == "messy-refusal" and _one_message_split(run)),
    KnownDefect("new: long name slows the export", "a model name of thousands of characters makes `plan --export` "
                "take minutes (the PDF report wraps an unbroken word in quadratic time)",
                "test_new_a_long_model_name_does_not_stall_the_export",
                _on("plan --export", lambda run, v: v.kind == "hang")),
    KnownDefect("new: export onto the database", "`quotes export` onto the database file replaces the database",
                "test_new_quotes_export_onto_the_database_keeps_the_database",
                lambda run, v: v.kind == "db-destroyed"),
)  # fmt: skip


def match(run: Run, violation: Violation) -> KnownDefect | None:
    return next((defect for defect in DEFECTS if defect.matches(run, violation)), None)
