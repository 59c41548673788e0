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


# None left: the last two (issue 14 item 1) were fixed by the exports branch (issue 17).
DEFECTS: tuple[KnownDefect, ...] = ()


def match(run: Run, violation: Violation) -> KnownDefect | None:
    return next((defect for defect in DEFECTS if defect.matches(run, violation)), None)
