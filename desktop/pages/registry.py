"""The five pages of the main window, in navigation order: where each lives and its translated name.

The main window names every page in the navigation before it has built any (a page is built, and its module
imported, the first time it is shown: desktop/main_window.py), so the names live here, not on the page classes.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QCoreApplication

from desktop.message_templates import QT_TRANSLATE_NOOP

CONTEXT = "Pages"


@dataclass(frozen=True, slots=True)
class PageEntry:
    page_id: str  # also the screenshot's name (<page_id>.png)
    module: str
    class_name: str
    title: str  # English source, translated in the "Pages" context


PAGES = (
    PageEntry("hardware", "desktop.pages.hardware", "HardwarePage", QT_TRANSLATE_NOOP("Pages", "Hardware")),
    PageEntry("quotes", "desktop.pages.quotes", "QuotesPage", QT_TRANSLATE_NOOP("Pages", "Quotes")),
    PageEntry("plan", "desktop.pages.plan", "PlanPage", QT_TRANSLATE_NOOP("Pages", "Plan")),
    PageEntry("rent_buy", "desktop.pages.rent_buy", "RentBuyPage", QT_TRANSLATE_NOOP("Pages", "Rent or buy")),
    PageEntry("settings", "desktop.pages.settings", "SettingsPage", QT_TRANSLATE_NOOP("Pages", "Settings")),
)
PAGE_IDS = tuple(entry.page_id for entry in PAGES)


def page_title(page_id: str) -> str:
    """The page's name in the interface language; KeyError for an unknown page."""
    entry = PAGES[PAGE_IDS.index(page_id)] if page_id in PAGE_IDS else None
    if entry is None:
        raise KeyError(page_id)
    return QCoreApplication.translate(CONTEXT, entry.title)
