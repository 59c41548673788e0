"""Editors for the quote tables: GPU and kind as combo boxes, prices as spin boxes, dates as date edits.

The delegate only offers sensible editors; the model validates the value with the store's validator and
refuses a bad one with the reason (see QuoteTableModel.setData).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QAbstractItemModel, QDate, QModelIndex, QObject, QPersistentModelIndex, Qt
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QComboBox,
    QDateEdit,
    QDoubleSpinBox,
    QLineEdit,
    QSpinBox,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from desktop.limit_spins import set_limit
from desktop.qmodels.quotes import Column, QuoteTableModel
from desktop.quote_kinds import KIND_NAMES

NO_DATE = QDate(2000, 1, 1)  # the date edit's minimum, shown as "—" and stored as an empty date
INTERCONNECT_CHOICES = ("", "nvlink", "pcie", "infiniband")
CURRENCY_CHOICES = ("USD", "EUR", "RUB")


# The row of planner/limits.py each numeric quote column's editor takes its range from (the store checks the same).
COLUMN_LIMITS = {
    "price_per_gpu_hour": "price_per_gpu_hour",
    "price_per_instance_hour": "price_per_instance_hour",
    "gpus_per_instance": "gpus_per_quote",
    "gpus": "gpus_per_quote",
    "min_term_hours": "min_term_hours",
    "price": "purchase_price",
    "server_overhead_fraction": "server_overhead_fraction",
    "power_w": "power_w",
}

class QuoteDelegate(QStyledItemDelegate):
    def __init__(
        self, gpu_choices: Callable[[], list[tuple[str, str]]], parent: QObject | None = None
    ) -> None:
        """``gpu_choices()`` returns (catalog id, display name) pairs for the GPU combo."""
        super().__init__(parent)
        self.gpu_choices = gpu_choices

    def _column(self, index: QModelIndex | QPersistentModelIndex) -> Column:
        model = index.model()
        source = model.sourceModel() if hasattr(model, "sourceModel") else model
        column_index = model.mapToSource(index).column() if hasattr(model, "mapToSource") else index.column()
        assert isinstance(source, QuoteTableModel)
        return source.columns[column_index]

    def createEditor(
        self, parent: QWidget, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QWidget:  # noqa: N802
        column = self._column(index)
        editor = column.editor
        if editor == "gpu":
            combo = QComboBox(parent)
            for gpu_id, name in self.gpu_choices():
                combo.addItem(name, gpu_id)
            return combo
        if editor == "kind":
            combo = QComboBox(parent)
            for kind, name in KIND_NAMES.items():
                combo.addItem(_kind_name(name), kind)
            return combo
        if editor in ("interconnect", "currency"):
            combo = QComboBox(parent)
            combo.setEditable(editor == "currency")  # another ISO code is allowed; the validator checks it
            for value in INTERCONNECT_CHOICES if editor == "interconnect" else CURRENCY_CHOICES:
                combo.addItem(value or "—", value)
            return combo
        if editor in ("money", "float"):
            spin = QDoubleSpinBox(parent)
            spin.setDecimals(4 if editor == "money" else 3)
            set_limit(spin, COLUMN_LIMITS[column.key])
            spin.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
            return spin
        if editor == "int":
            whole = QSpinBox(parent)
            set_limit(whole, COLUMN_LIMITS[column.key])
            return whole
        if editor == "date":
            edit = QDateEdit(parent)
            edit.setCalendarPopup(True)
            edit.setDisplayFormat("yyyy-MM-dd")
            edit.setMinimumDate(NO_DATE)
            edit.setSpecialValueText("—")
            return edit
        return QLineEdit(parent)

    def setEditorData(self, editor: QWidget, index: QModelIndex | QPersistentModelIndex) -> None:  # noqa: N802
        value = index.data(Qt.ItemDataRole.EditRole)
        if isinstance(editor, QComboBox):
            position = editor.findData(value)
            if position < 0 and editor.isEditable():
                editor.setEditText(str(value or ""))
            else:
                editor.setCurrentIndex(max(position, 0))
        elif isinstance(editor, QDoubleSpinBox):
            try:
                editor.setValue(float(value))
            except (TypeError, ValueError):
                editor.setValue(editor.minimum())
        elif isinstance(editor, QSpinBox):
            try:
                editor.setValue(int(value))
            except (TypeError, ValueError):
                editor.setValue(editor.minimum())
        elif isinstance(editor, QDateEdit):
            editor.setDate(value if isinstance(value, QDate) and value.isValid() else NO_DATE)
        elif isinstance(editor, QLineEdit):
            editor.setText("" if value is None else str(value))

    def setModelData(  # noqa: N802
        self, editor: QWidget, model: QAbstractItemModel, index: QModelIndex | QPersistentModelIndex
    ) -> None:
        if isinstance(editor, QComboBox):
            data = editor.currentData()
            text = editor.currentText().strip()
            value = (
                text
                if editor.isEditable() and (data is None or text != editor.itemText(editor.currentIndex()))
                else data
            )
        elif isinstance(editor, QDoubleSpinBox):
            value = editor.value()
        elif isinstance(editor, QSpinBox):
            value = editor.value()
        elif isinstance(editor, QDateEdit):
            value = QDate() if editor.date() == NO_DATE else editor.date()
        elif isinstance(editor, QLineEdit):
            value = editor.text()
        else:
            return
        model.setData(index, value, Qt.ItemDataRole.EditRole)


def _kind_name(name: str) -> str:
    from PySide6.QtCore import QCoreApplication

    return QCoreApplication.translate("QuoteTableModel", name)
