"""Every numeric input of the GUI takes its range from planner/limits.py, the one table the CLI and the store
enforce (issue 30 item 2, issue 31): `set_limit(spin, key, scale)` sets LIMITS[key] in the spin box's own unit
(`scale` GUI units per planner unit: 100 for a percent of a fraction, 1e-9 for billions of tokens) and records the
row on the widget, so tests/desktop/test_limit_spins.py can compare every spin box with the table.

A spin box shows `decimals` places and Qt rounds its range to them, so the lowest value is the table's floor
rounded up to what the box can show (an MFU floor of 0.1 % in a box of whole percents is 1 %): never below the
floor, where the CLI would refuse it. A box whose `unset` text stands for "no value" (an exchange rate not yet
entered) keeps one step below the floor for it.
"""

from __future__ import annotations

import math

from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox

from planner.limits import LIMITS

LIMIT_KEY = "planner_limit"  # Qt property: the LIMITS row a spin box takes its range from
LIMIT_SCALE = "planner_limit_scale"  # Qt property: GUI units per planner unit
QT_INT_MAX = 2**31 - 1  # QSpinBox holds a C int


def shown_range(key: str, scale: float = 1.0, decimals: int = 0) -> tuple[float, float]:
    """LIMITS[key] in GUI units, the floor rounded up and the ceiling down to `decimals` places."""
    limit = LIMITS[key]
    step = 10.0**-decimals
    # round() first: 0.001 x 100 is 0.10000000000000001, which must not become two steps
    low = math.ceil(round(limit.low * scale / step, 9)) * step
    high = math.floor(round(limit.high * scale / step, 9)) * step
    return round(low, decimals), round(high, decimals)


def set_limit(spin: QSpinBox | QDoubleSpinBox, key: str, scale: float = 1.0, unset: bool = False) -> None:
    """Give `spin` the range of LIMITS[key] (set its decimals first); `unset`: one step below is its
    special value ("—", "default")."""
    decimals = spin.decimals() if isinstance(spin, QDoubleSpinBox) else 0
    low, high = shown_range(key, scale, decimals)
    if unset:
        low -= 10.0**-decimals
    if isinstance(spin, QSpinBox):
        spin.setRange(int(low), min(int(high), QT_INT_MAX))
    else:
        spin.setRange(low, high)
    spin.setProperty(LIMIT_KEY, key)
    spin.setProperty(LIMIT_SCALE, float(scale))
