"""The Rent-or-buy page's input widgets: a slider with its value beside it, and a money spin box."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker, Qt, Signal
from PySide6.QtWidgets import (
    QDoubleSpinBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QWidget,
)

from desktop import fmt
from desktop.limit_spins import set_limit


class LabelledSlider(QWidget):
    """A slider with its value shown beside it; value_changed(float) in the slider's unit."""

    value_changed = Signal(float)

    def __init__(self, minimum: int, maximum: int, scale: float = 1.0, parent: QWidget | None = None):
        super().__init__(parent)
        self.scale = scale
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(minimum, maximum)
        self.label = QLabel()
        self.label.setMinimumWidth(64)
        self.label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.formatter = lambda value: fmt.number(value, 0)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.slider, 1)
        layout.addWidget(self.label)
        self.slider.valueChanged.connect(self._changed)
        self.setFocusProxy(self.slider)  # the form's label (its buddy) and Tab reach the slider

    def value(self) -> float:
        return self.slider.value() * self.scale

    def set_value(self, value: float) -> None:
        with QSignalBlocker(self.slider):
            self.slider.setValue(round(value / self.scale))
        self.label.setText(self.formatter(self.value()))

    def _changed(self, _: int) -> None:
        self.label.setText(self.formatter(self.value()))
        self.value_changed.emit(self.value())


def money_spin(limit: str, decimals: int = 2) -> QDoubleSpinBox:
    """A price field with the range of `limit`'s row of planner/limits.py (the CLI's)."""
    spin = QDoubleSpinBox()
    spin.setDecimals(decimals)
    set_limit(spin, limit)
    spin.setGroupSeparatorShown(True)
    return spin
