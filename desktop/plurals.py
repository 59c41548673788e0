"""Texts with a count that no widget says itself: "1 published run", "5 accumulation steps".

Qt chooses the plural form of a %n text from the translation file (Russian has three forms, English two), but
pyside6-lupdate records plural forms only for tr() called inside a class, so these texts live in this class
(context "Plurals"). English needs its own small catalog for the same reason: assets/i18n/gpu_advisor_en.ts
holds only the plural forms (`make translations`).
"""

from __future__ import annotations

from PySide6.QtCore import QObject


class Plurals(QObject):
    def published_runs(self, count: int) -> str:
        return self.tr("%n published run(s)", "", count)

    def accumulation_steps(self, count: int) -> str:
        return self.tr("%n accumulation step(s)", "", count)

    def users_per_replica(self, count: int) -> str:
        return self.tr("up to %n user(s) decoded together on each replica", "", count)

    def adding_quotes(self, count: int) -> str:
        return self.tr("adding %n quote(s)", "", count)

    def deleting_quotes(self, count: int) -> str:
        return self.tr("deleting %n quote(s)", "", count)


_plurals: Plurals | None = None


def plurals() -> Plurals:
    """The one holder (made on first use)."""
    global _plurals
    if _plurals is None:
        _plurals = Plurals()
    return _plurals
