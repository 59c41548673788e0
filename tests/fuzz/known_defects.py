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

from collections.abc import Callable
from dataclasses import dataclass

from tests.fuzz.harness import Run, Violation


@dataclass(frozen=True)
class KnownDefect:
    item: str  # "item 4" (issue 14's numbered list) or "new: ..." (found by this harness)
    what: str
    guard: str  # the strict-xfail test in tests/fuzz/test_known_defects.py that fails until the fix lands
    matches: Callable[[Run, Violation], bool]


def _on(prefix: str, test: Callable[[Run, Violation], bool]) -> Callable[[Run, Violation], bool]:
    return lambda run, v: run.entry.startswith(prefix) and test(run, v)


DEFECTS: tuple[KnownDefect, ...] = (
    # ---- item 1: names from files written unquoted into launch.sh / accelerate_config.yaml (the exports branch
    # quotes them; its merge turns these guards into XPASS, and this entry goes with their marks)
    KnownDefect("item 1", "a model name from config.json or a folder name is written unquoted into the exports",
                "test_item1_exported_launch_script_never_runs_a_name_from_config_json",
                _on("plan --export", lambda run, v: v.kind in ("export-shell", "export-yaml"))),
    KnownDefect("item 1", "a model name with a newline adds keys to accelerate_config.yaml",
                "test_item1_accelerate_yaml_keeps_its_settings_whatever_the_model_name",
                _on("plan --export", lambda run, v: v.kind == "export-yaml")),
)  # fmt: skip


def match(run: Run, violation: Violation) -> KnownDefect | None:
    return next((defect for defect in DEFECTS if defect.matches(run, violation)), None)
