"""Texts with a count that no widget says itself: "1 published run", "5 accumulation steps".

Qt chooses the plural form of a %n text from the translation file (Russian has three forms, English two), but
pyside6-lupdate records plural forms only for tr() called inside a class, so these texts live in this class
(context "Plurals"). English needs its own small catalog for the same reason: assets/i18n/gpu_advisor_en.ts
holds only the plural forms (`make translations`). Where no catalog answers (English without its .qm: a stripped
install, or a Qt application that installed no translator), English's own rule is applied to the "(s)" of the
source text, so no count ever reads "32 accumulation step(s)".
"""

from __future__ import annotations

from PySide6.QtCore import QObject

ENGLISH_PLURAL_MARK = "(s)"  # the source texts' plural mark: "%n quote(s)"


def english_plural(text: str, count: int) -> str:
    """English's rule on a source text Qt returned untranslated: "(s)" is dropped for 1 and is "s" otherwise."""
    return text.replace(ENGLISH_PLURAL_MARK, "" if abs(count) == 1 else "s")


class Plurals(QObject):
    def published_runs(self, count: int) -> str:
        return english_plural(self.tr("%n published run(s)", "", count), count)

    def accumulation_steps(self, count: int) -> str:
        return english_plural(self.tr("%n accumulation step(s)", "", count), count)

    def users_per_replica(self, count: int) -> str:
        return english_plural(self.tr("up to %n user(s) decoded together on each replica", "", count), count)

    def adding_quotes(self, count: int) -> str:
        return english_plural(self.tr("adding %n quote(s)", "", count), count)

    def deleting_quotes(self, count: int) -> str:
        return english_plural(self.tr("deleting %n quote(s)", "", count), count)

    def gpus(self, count: int) -> str:
        return english_plural(self.tr("%n GPU(s)", "", count), count)  # "1 GPU", "8 GPUs"

    def nodes(self, count: int) -> str:
        return english_plural(self.tr("%Ln node(s)", "", count), count)  # %Ln: "6,490 nodes"

    # Rent or buy (desktop/rent_buy_text.py) and the Plan page's export (desktop/pages/plan_document.py)
    def cheapest_for_gpus(self, count: int) -> str:
        return english_plural(self.tr(
            "<b>{0} is cheapest</b> over {1} years for %n {2} GPU(s) at {3} utilisation, {4} h/day: {5}.", "", count
        ), count)  # fmt: skip

    def spot_reclaims_on_nodes(self, count: int) -> str:
        return english_plural(self.tr(
            "Spot: {0} reclaims per node-hour ({1}) on %n node(s) add {2} hours for work lost since the last "
            "checkpoint and restarts.", "", count,
        ), count)  # fmt: skip

    def spot_pays_up_to_nodes(self, count: int) -> str:
        return english_plural(self.tr(
            "spot pays for jobs up to %n node(s) of {0} GPUs and stops paying above (each reclaimed node "
            "stops the whole job).", "", count,
        ), count)  # fmt: skip

    def exported_files(self, count: int) -> str:
        return english_plural(self.tr("Exported %n file(s) to {0}", "", count), count)


_plurals: Plurals | None = None


def plurals() -> Plurals:
    """The one holder (made on first use)."""
    global _plurals
    if _plurals is None:
        _plurals = Plurals()
    return _plurals
