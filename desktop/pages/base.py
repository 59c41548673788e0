"""The page interface every page of the main window follows (binding between the desktop workstreams).

A page is ``SomePage(context: AppContext, parent=None)``, a QWidget with:
- ``page_id``: "hardware" | "quotes" | "plan" | "rent_buy" | "settings" (screenshots are <page_id>.png);
- ``title() -> str``: the translated name shown in the navigation;
- ``retranslate()``: re-apply every tr() text (called on a live language switch);
- ``confirm_close() -> bool``: False keeps the window open (e.g. unsaved changes the user wants to keep);
- ``load_example()``: fill a demo state for screenshots (default: nothing).
Subclassing Page is optional; the main window only relies on these names.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QWidget

from desktop.wheel_guard import ensure_wheel_guard

if TYPE_CHECKING:
    from desktop.context import AppContext


class Page(QWidget):
    page_id = ""

    def __init__(self, context: AppContext, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        ensure_wheel_guard()  # the wheel changes a field only while it has focus (desktop/wheel_guard.py)

    def title(self) -> str:
        from desktop.pages.registry import page_title

        return page_title(self.page_id)

    def retranslate(self) -> None:
        pass

    def confirm_close(self) -> bool:
        return True

    def load_example(self) -> None:
        pass
