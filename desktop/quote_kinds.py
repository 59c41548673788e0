"""The kinds of quotes and their translated names (data strings: marked here in the QuoteTableModel context,
translated when shown): the quotes table, its kind editor, the Hardware list and the planner's messages that
name a quote kind all read them here."""

from __future__ import annotations

from collections.abc import Callable
from typing import cast

from PySide6 import QtCore
from PySide6.QtCore import QCoreApplication

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)

KIND_NAMES = {
    "on-demand": QT_TRANSLATE_NOOP("QuoteTableModel", "on-demand"),
    "spot": QT_TRANSLATE_NOOP("QuoteTableModel", "spot"),
    "reserved-1y": QT_TRANSLATE_NOOP("QuoteTableModel", "reserved 1 year"),
    "reserved-3y": QT_TRANSLATE_NOOP("QuoteTableModel", "reserved 3 years"),
    "committed": QT_TRANSLATE_NOOP("QuoteTableModel", "committed"),
}


def kind_name(kind: object) -> str:
    """The translated name of a quote kind ("on-demand" -> "по требованию"), as the quotes table shows it."""
    text = str(kind or "")
    return QCoreApplication.translate("QuoteTableModel", KIND_NAMES[text]) if text in KIND_NAMES else text
