"""Inputs that change only when the user means it: the mouse wheel moves a spin box, combo box or slider only
while it has the keyboard focus.

Over a scrolling form, a wheel turn meant to scroll the form would otherwise change whichever field passes
under the pointer (and re-plan with it). The guard is one application-wide event filter (installed once, by
the first page or window that asks): a wheel event over such a field without focus is handed to the scroll area
around the field instead (its viewport, at the same point), so the form scrolls; the nearest area that takes it
wins (Qt does not pass a forwarded wheel event on to parents by itself); a click or Tab gives the field focus, and then the wheel is the user's.
The fields' focus policy becomes StrongFocus (Tab and click), so the wheel never gives focus by itself.
A scroll bar is a slider too, but it is how a scroll area scrolls (the area hands it every wheel turn over its
viewport): it is never guarded.
"""

from __future__ import annotations

from PySide6.QtCore import QCoreApplication, QEvent, QObject, QPointF, Qt
from PySide6.QtGui import QWheelEvent
from PySide6.QtWidgets import (
    QAbstractScrollArea,
    QAbstractSlider,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QScrollBar,
    QWidget,
)

GUARDED = (QAbstractSpinBox, QComboBox, QAbstractSlider)
_POLISH = QEvent.Type.Polish


def _guarded(watched: QObject) -> QWidget | None:
    """The guarded field an event is for (a spin box's line edit counts as the spin box)."""
    widget = watched if isinstance(watched, QWidget) else None
    for candidate in (widget, widget.parentWidget() if widget is not None else None):
        if isinstance(candidate, GUARDED) and not isinstance(candidate, QScrollBar):
            return candidate
    return None


def _has_focus(field: QWidget) -> bool:
    focused = QApplication.focusWidget()
    return field.hasFocus() or (focused is not None and field.isAncestorOf(focused))


class WheelGuard(QObject):
    """The application-wide filter described in the module docstring."""

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 (Qt override)
        # Every event of the application passes here (thousands while a page is built): the common case returns
        # after type checks only. isinstance is a C-level check; event.type() makes a Python enum object each
        # call, so it is asked only of the guarded fields' own events.
        if not isinstance(event, QWheelEvent):
            if isinstance(watched, GUARDED) and not isinstance(watched, QScrollBar) and event.type() == _POLISH:
                if watched.focusPolicy() == Qt.FocusPolicy.WheelFocus:
                    watched.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
            return False
        field = _guarded(watched)
        if field is None or _has_focus(field):
            return False
        _scroll_around(field, event)
        return True


def _scroll_around(field: QWidget, event: QWheelEvent) -> None:
    """Hand the wheel turn to the scroll areas around `field`, nearest first, until one takes it."""
    global_point = event.globalPosition()
    widget = field.parentWidget()
    while widget is not None:
        if isinstance(widget, QAbstractScrollArea):
            viewport = widget.viewport()
            local = QPointF(viewport.mapFromGlobal(global_point.toPoint()))
            forwarded = QWheelEvent(
                local, global_point, event.pixelDelta(), event.angleDelta(), event.buttons(), event.modifiers(),
                event.phase(), event.inverted(),
            )  # fmt: skip
            forwarded.ignore()
            QApplication.sendEvent(viewport, forwarded)
            if forwarded.isAccepted():
                return
        widget = widget.parentWidget()


_guard: WheelGuard | None = None


def ensure_wheel_guard() -> None:
    """Install the guard on the running application once (pages and the main window call this)."""
    global _guard
    app = QCoreApplication.instance()
    if app is None or (_guard is not None and _guard.parent() is app):
        return
    _guard = WheelGuard(app)
    app.installEventFilter(_guard)
