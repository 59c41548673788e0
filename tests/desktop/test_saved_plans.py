"""Saved plans: save, rename, reopen, delete; the window title follows the open plan; quitting with unsaved
changes asks first (Save / Discard / Cancel) and Cancel keeps the window and the work."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMessageBox

from desktop.pages.saved_plans import SavedPlansDialog

PLAN_TIMEOUT_MS = 20_000


@pytest.fixture
def page(open_plan_page):
    return open_plan_page()


def answer_next_message_box(button: QMessageBox.StandardButton) -> list[str]:
    """Click `button` on the next modal message box as a user would; returns the texts it showed."""
    seen: list[str] = []

    def click() -> None:
        box = QApplication.activeModalWidget()
        if not isinstance(box, QMessageBox):
            QTimer.singleShot(20, click)
            return
        seen.append(box.text())
        box.button(button).click()

    QTimer.singleShot(0, click)
    return seen


def test_save_sets_title_and_stores_inputs(page, context, qtbot):
    titles = []
    context.document_title_changed.connect(titles.append)
    page.shape.batch_spin.setValue(64)
    assert page.state.dirty and titles[-1].endswith("*")
    assert page.save_as("70B fine-tune, March")
    assert titles[-1] == "70B fine-tune, March"
    assert not page.state.dirty
    plans = context.store.plans.all()
    assert [p["name"] for p in plans] == ["70B fine-tune, March"]
    saved = context.store.plans.get(plans[0]["id"])
    assert saved["inputs"]["global_batch"] == 64
    # A later change marks the document dirty again; Save updates the same row.
    page.shape.batch_spin.setValue(128)
    assert titles[-1] == "70B fine-tune, March *"
    assert page.save()
    assert len(context.store.plans.all()) == 1
    assert context.store.plans.get(plans[0]["id"])["inputs"]["global_batch"] == 128


def test_reopen_restores_widgets_and_state(page, context, qtbot):
    page.shape.batch_spin.setValue(48)
    page.shape.seq_combo.setCurrentIndex(page.shape.seq_combo.findData(8192))
    page.save_as("long context")
    plan_id = page.state.plan_id
    page.new_plan()
    assert page.state.inputs.global_batch != 48 and page.state.plan_id is None
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.open_plan(plan_id)
    assert page.state.plan_id == plan_id and page.state.plan_name == "long context"
    assert page.shape.batch_spin.value() == 48
    assert page.shape.seq_combo.currentData() == 8192
    assert not page.state.dirty


def test_dialog_renames_and_deletes(page, context, qtbot):
    page.save_as("first")
    page.state.update(global_batch=7)
    page.save_as("second")
    dialog = SavedPlansDialog(context, page.state.plan_id, page)
    qtbot.addWidget(dialog)
    context.plans_changed.connect(page._on_plans_changed)
    assert dialog.list.count() == 2
    dialog.select_id(page.state.plan_id)
    dialog.rename_selected("second, renamed")
    assert page.state.plan_name == "second, renamed"
    assert "second, renamed" in page.doc_label.text()
    assert {p["name"] for p in context.store.plans.all()} == {"first", "second, renamed"}
    dialog.delete_selected(confirm=False)
    assert [p["name"] for p in context.store.plans.all()] == ["first"]
    # The open plan is gone from the store: the page keeps the work as an unsaved plan.
    assert page.state.plan_id is None and page.state.dirty


def test_dialog_open_button_reports_the_choice(page, context, qtbot):
    page.save_as("only one")
    dialog = SavedPlansDialog(context, None, page)
    qtbot.addWidget(dialog)
    dialog.open_button.click()
    assert dialog.chosen_id == page.state.plan_id


def test_confirm_close_cancel_keeps_unsaved_work(page, qtbot):
    page.shape.batch_spin.setValue(96)
    seen = answer_next_message_box(QMessageBox.StandardButton.Cancel)
    assert page.confirm_close() is False
    assert seen and "unsaved" in seen[0]
    assert page.state.dirty and page.state.inputs.global_batch == 96


def test_confirm_close_discard_lets_go(page, qtbot):
    page.shape.batch_spin.setValue(96)
    answer_next_message_box(QMessageBox.StandardButton.Discard)
    assert page.confirm_close() is True


@pytest.mark.slow
def test_main_window_quit_asks_and_save_keeps_the_plan(qtbot, context):
    from desktop.main_window import MainWindow

    window = MainWindow(context)
    qtbot.addWidget(window)
    window.show()
    plan_page = window.page("plan")
    qtbot.waitUntil(lambda: plan_page.state.result is not None or plan_page.state.error is not None,
                    timeout=PLAN_TIMEOUT_MS)  # fmt: skip
    plan_page.shape.batch_spin.setValue(80)
    assert plan_page.state.dirty
    assert window.windowTitle().startswith("Unsaved plan *")  # the open plan, marked as modified

    answer_next_message_box(QMessageBox.StandardButton.Cancel)
    window.close()
    assert window.isVisible()  # Cancel: nothing closes, nothing is lost
    assert plan_page.state.inputs.global_batch == 80

    # Save on quit asks for a name the first time; answer it like a user.
    def type_name() -> None:
        from PySide6.QtWidgets import QInputDialog

        dialog = QApplication.activeModalWidget()
        if not isinstance(dialog, QInputDialog):
            QTimer.singleShot(20, type_name)
            return
        dialog.setTextValue("saved on quit")
        dialog.accept()

    answer_next_message_box(QMessageBox.StandardButton.Save)
    QTimer.singleShot(50, type_name)
    window.close()
    assert not window.isVisible()
    assert [p["name"] for p in context.store.plans.all()] == ["saved on quit"]
    assert context.store.plans.get(context.store.plans.all()[0]["id"])["inputs"]["global_batch"] == 80
