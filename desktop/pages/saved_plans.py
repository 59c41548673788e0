"""Saved plans: a dialog to reopen, rename and delete the plans kept in the store.

The dialog only lists and edits rows (store.plans: all / rename / delete); opening is the Plan page's
job (it loads the inputs and re-plans). plans_changed on the AppContext tells other views to refresh.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QInputDialog,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop import fmt

if TYPE_CHECKING:
    from desktop.context import AppContext


class SavedPlansDialog(QDialog):
    """Lists saved plans (newest first). chosen_id is set when the user presses Open."""

    def __init__(self, context: AppContext, current_id: int | None = None, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.current_id = current_id
        self.chosen_id: int | None = None
        self.list = QListWidget()
        self.empty_label = QLabel()
        self.open_button, self.rename_button, self.delete_button = QPushButton(), QPushButton(), QPushButton()
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        row = QHBoxLayout()
        for button in (self.open_button, self.rename_button, self.delete_button):
            row.addWidget(button)
        row.addStretch(1)
        layout = QVBoxLayout(self)
        layout.addWidget(self.list)
        layout.addWidget(self.empty_label)
        layout.addLayout(row)
        layout.addWidget(self.buttons)
        self.open_button.clicked.connect(self.open_selected)
        self.rename_button.clicked.connect(self.rename_selected)
        self.delete_button.clicked.connect(self.delete_selected)
        self.list.itemDoubleClicked.connect(lambda _: self.open_selected())
        self.list.currentRowChanged.connect(lambda _: self._update_buttons())
        self.buttons.rejected.connect(self.reject)
        self.resize(520, 360)
        self.retranslate()
        self.refresh()

    def retranslate(self) -> None:
        self.setWindowTitle(self.tr("Saved plans"))
        self.open_button.setText(self.tr("Open"))
        self.rename_button.setText(self.tr("Rename…"))
        self.delete_button.setText(self.tr("Delete"))
        self.empty_label.setText(self.tr("No saved plans yet. Use Save on the Plan page to keep one."))

    def refresh(self) -> None:
        self.list.clear()
        for plan in self.context.store.plans.all():
            item = QListWidgetItem(f"{plan['name']}  —  {fmt.datetime_(plan.get('updated_at'))}")
            item.setData(Qt.ItemDataRole.UserRole, int(plan["id"]))
            self.list.addItem(item)
        self.empty_label.setVisible(self.list.count() == 0)
        if self.list.count():
            self.list.setCurrentRow(0)
        self._update_buttons()

    def selected_id(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))

    def select_id(self, plan_id: int) -> None:
        for row in range(self.list.count()):
            if self.list.item(row).data(Qt.ItemDataRole.UserRole) == plan_id:
                self.list.setCurrentRow(row)

    def _update_buttons(self) -> None:
        has = self.selected_id() is not None
        for button in (self.open_button, self.rename_button, self.delete_button):
            button.setEnabled(has)

    def open_selected(self) -> None:
        self.chosen_id = self.selected_id()
        if self.chosen_id is not None:
            self.accept()

    def rename_selected(self, name: str | None = None) -> None:
        plan_id = self.selected_id()
        if plan_id is None:
            return
        if name is None:
            current = self.context.store.plans.get(plan_id)["name"]
            name, ok = QInputDialog.getText(self, self.tr("Rename plan"), self.tr("New name:"), text=current)
            if not ok:
                return
        name = name.strip()
        if not name:
            return
        self.context.store.plans.rename(plan_id, name)
        self.context.plans_changed.emit()
        self.refresh()
        self.select_id(plan_id)

    def delete_selected(self, confirm: bool = True) -> None:
        plan_id = self.selected_id()
        if plan_id is None:
            return
        if confirm:
            name = self.context.store.plans.get(plan_id)["name"]
            answer = QMessageBox.question(
                self, self.tr("Delete plan"), self.tr("Delete the saved plan “{0}”?").format(name)
            )
            if answer != QMessageBox.StandardButton.Yes:
                return
        self.context.store.plans.delete(plan_id)
        self.context.plans_changed.emit()
        self.refresh()
