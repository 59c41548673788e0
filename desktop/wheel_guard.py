"""Inputs that change only when the user means it: the mouse wheel moves a spin box, combo box or slider only
while it has the keyboard focus.

Over a scrolling form, a wheel turn meant to scroll the form would otherwise change whichever field passes
under the pointer (and re-plan with it). The guard is one application-wide event filter (installed once, by
the first page or window that asks): a wheel event over such a field without focus is handed to the field's
parent instead, so the form scrolls; a click or Tab gives the field focus, and then the wheel is the user's.
The fields' focus policy becomes StrongFocus (Tab and click), so the wheel never gives focus by itself.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, Qt
from PySide6.QtWidgets import QAbstractSlider, QAbstractSpinBox, QApplication, QComboBox, QWidget

GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)


def _guarded(watched: QObject) -> QWidget | None:
    """The guarded field an event is for (a spin box's line edit counts as the spin box)."""
    widget = watched if isinstance(watched, QWidget) else None
    for candidate in (widget, widget.parentWidget() if widget is not None else None):
        if isinstance(candidate, GUARDED):
            return candidate
    return None


def _has_focus(field: QWidget) -> bool:
    focused = QApplication.focusWidget()
    return field.hasFocus() or (focused is not None and field.isAncestorOf(focused))


class WheelGuard(QObject):
    """The application-wide filter described in the module docstring."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        kind = event.type()
        if kind == QEvent.Type.Polish and isinstance(watched, GUARDED):
            if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            return False
        if kind != QEvent.Type.Wheel:
            return False
        field = _guarded(watched)
        if field is None or _has_focus(field):
            return False
        parent = field.parentWidget()
        if parent is not None:
            event.ignore()
            QApplication.sendEvent(parent, event)  # the form's scroll area scrolls instead
        return True


_guard: WheelGuard | None = None


def ensure_wheel_guard() -> None:
    """Install the guard on the running application once (pages and the main window call this)."""
    global _guard
    app = QCoreApplication.instance()
    if app is None or (_guard is not None and _guard.parent() is app):
        return
    _guard = WheelGuard(app)
    app.installEventFilter(_guard)
