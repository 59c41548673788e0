"""The Plan page's document half: the plan as a saved document (save, save as, open, new, the unsaved-changes
question) and its exports (the six launch files and the chart images of the selected option).

PlanPage (desktop/pages/plan.py) derives from PlanDocumentPage; the texts keep the "PlanPage" translation
context (Qt translates a method by the class of the object, and the object is a PlanPage).
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication
from PySide6.QtWidgets import (
    QInputDialog,
    QLabel,
    QMessageBox,
)

from desktop import dialogs, plan_text
from desktop.charts.plan_charts import render_png
from desktop.pages.base import Page
from desktop.pages.plan_inputs import HardwarePanel
from desktop.pages.plan_results import ResultsPanel
from desktop.plan_request import (
    PageInputError,
    PlanCall,
    Text,
    error_note,
    render_note,
)
from desktop.plan_state import PlanInputs, PlanState
from desktop.plurals import plurals
from planner.errors import UserError
from planner.exports import ExportInputs

translate = QCoreApplication.translate  # with the context written at each call, so lupdate finds the texts
_NOTHING_TO_EXPORT = str(
    QT_TRANSLATE_NOOP(
        "PlanPage", "no option that fits is selected: change the inputs until one fits, then export it"
    )
)


class PlanDocumentPage(Page):
    """Saved plans and exports of the Plan page; PlanPage supplies the widgets and the planning."""

    state: PlanState
    call: PlanCall | None
    hardware: HardwarePanel
    results: ResultsPanel
    doc_label: QLabel

    def replan(self) -> None:
        raise NotImplementedError  # PlanPage plans

    def sync_widgets(self) -> None:
        raise NotImplementedError  # PlanPage sets its input widgets from the state

    # -- document: saved plans -----------------------------------------------------------------------------------
    def _update_document_label(self) -> None:
        name = self.state.plan_name or translate("PlanPage", "Unsaved plan")
        marker = " *" if self.state.dirty else ""
        self.doc_label.setText(f"<b>{plan_text.escape(name)}</b>{marker}")
        self.context.document_title_changed.emit(
            f"{name}{marker}" if (self.state.plan_name or self.state.dirty) else ""
        )

    def document_title(self) -> str:
        return plan_text.document_title(self.state)

    def results_summary(self) -> dict[str, object]:
        """What a saved plan keeps of the results (the inputs re-plan on open): the chosen option, in JSON units."""
        option = self.state.selected_option
        if option is None:
            return {"error": self.state.error}
        summary = option.as_dict()
        summary["search_ms"] = self.state.result.search_ms if self.state.result is not None else None
        return {"selected": summary, "selected_index": self.state.selected}

    def save(self, name: str | None = None) -> bool:
        """Save the open plan (asks for a name the first time). True when saved."""
        if self.state.plan_id is None:
            return self.save_as(name)
        self.context.store.plans.update(
            self.state.plan_id, self.state.inputs.to_dict(), self.results_summary()
        )
        self.state.mark_saved(self.state.plan_id, self.state.plan_name)
        self.context.plans_changed.emit()
        self.context.show_status(translate("PlanPage", "Saved plan “{0}”").format(self.state.plan_name))
        return True

    def save_as(self, name: str | None = None) -> bool:
        if name is None:
            suggestion = self.state.plan_name or self._suggested_name()
            name, ok = QInputDialog.getText(
                self, translate("PlanPage", "Save plan"), translate("PlanPage", "Plan name:"), text=suggestion
            )
            if not ok:
                return False
        name = name.strip()
        if not name:
            return False
        plan_id = self.context.store.plans.save(name, self.state.inputs.to_dict(), self.results_summary())
        self.state.mark_saved(plan_id, name)
        self.context.plans_changed.emit()
        self.context.show_status(translate("PlanPage", "Saved plan “{0}”").format(name))
        return True

    def _suggested_name(self) -> str:
        inputs = self.state.inputs
        model = self.call.model.name if self.call else inputs.model_text
        return f"{model} {inputs.task}"

    def open_plan(self, plan_id: int) -> None:
        """Load a saved plan's inputs (re-planned now, with today's prices and calibration)."""
        plan = self.context.store.plans.get(plan_id)
        self.state.replace_inputs(PlanInputs.from_dict(plan["inputs"]), dirty=False)
        self.state.mark_saved(int(plan["id"]), plan["name"])
        self.sync_widgets()
        self.replan()
        index = (plan.get("results") or {}).get("selected_index")
        if isinstance(index, int):
            self.state.select(index)

    def new_plan(self) -> None:
        if not self.confirm_close():
            return
        self.state.replace_inputs(PlanInputs(), dirty=False)
        self.state.mark_new()
        self.sync_widgets()
        self.replan()

    def show_saved_plans(self) -> None:
        from desktop.pages.saved_plans import SavedPlansDialog

        dialog = SavedPlansDialog(self.context, self.state.plan_id, self)
        self.context.plans_changed.connect(self._on_plans_changed)
        try:
            if dialog.exec() and dialog.chosen_id is not None and self.confirm_close():
                self.open_plan(dialog.chosen_id)
        finally:
            self.context.plans_changed.disconnect(self._on_plans_changed)

    def _on_plans_changed(self) -> None:
        """The open plan may have been renamed or deleted in the dialog."""
        if self.state.plan_id is None:
            return
        names = {int(p["id"]): p["name"] for p in self.context.store.plans.all()}
        if self.state.plan_id not in names:
            self.state.plan_id, self.state.plan_name, self.state.dirty = None, "", True
            self._update_document_label()
        elif names[self.state.plan_id] != self.state.plan_name:
            self.state.plan_name = names[self.state.plan_id]
            self._update_document_label()

    def confirm_close(self) -> bool:
        """Ask Save / Discard / Cancel when the plan has unsaved changes; False keeps the window open."""
        if not self.state.dirty:
            return True
        box = QMessageBox(self)
        box.setIcon(QMessageBox.Icon.Question)
        box.setWindowTitle(translate("PlanPage", "Unsaved plan"))
        box.setText(
            translate("PlanPage", "The plan “{0}” has unsaved changes.").format(
                self.state.plan_name or translate("PlanPage", "Unsaved plan")
            )
        )
        box.setInformativeText(translate("PlanPage", "Save them before closing?"))
        box.setStandardButtons(
            QMessageBox.StandardButton.Save
            | QMessageBox.StandardButton.Discard
            | QMessageBox.StandardButton.Cancel
        )
        box.setDefaultButton(QMessageBox.StandardButton.Save)
        answer = box.exec()
        if answer == QMessageBox.StandardButton.Save:
            return self.save()
        if answer == QMessageBox.StandardButton.Discard:
            self.state.dirty = False
            self._update_document_label()
            return True
        return False

    # -- exports -------------------------------------------------------------------------------------------------
    def export_inputs(self) -> ExportInputs:
        """The inputs as the report shows them (planner.exports reads seq_len, global_batch, task, precision)."""
        inputs, call = self.state.inputs, self.call
        training, dataset = inputs.is_training, inputs.tokens_mode == "dataset"
        # what the user ticked, as the Hardware list words it ("AWS · H100 · $6.88/GPU-h"), not internal keys
        items = {key: self.hardware.item_for(key) for key in inputs.hardware}
        sources = call.price_sources if call is not None else {}
        return ExportInputs(
            model=call.model.name if call else inputs.model_text, task=inputs.task, precision=inputs.precision,
            seq_len=inputs.seq_len, global_batch=inputs.global_batch,
            tokens=inputs.training_tokens if training else None,
            dataset_tokens=inputs.dataset_tokens if training and dataset else None,
            epochs=inputs.epochs if training and dataset else None,
            tokens_per_second=None if training else inputs.tokens_per_second,
            concurrent_users=None if training else inputs.concurrent_users,
            hardware=tuple(item.text(0) if item is not None else key for key, item in items.items()),
            max_gpus=inputs.max_gpus, exact_gpus=inputs.exact_gpus, budget_amount=inputs.budget_amount,
            deadline_days=inputs.deadline_days, mfu=inputs.mfu, efficiency=inputs.efficiency,
            currency=call.currency if call else None, model_source=call.model.source if call else None,
            price_source="; ".join(f"{k}: {render_note(v)}" for k, v in sources.items()) or None,
            model_spec=call.model if call else None,
        )  # fmt: skip

    def chart_images(self) -> dict[str, bytes]:
        return {
            translate("PlanPage", "Memory per GPU of the chosen option"): render_png(self.results.memory_chart),
            translate("PlanPage", "Time and cost against GPU count"): render_png(self.results.scaling_chart),
        }

    def export_to(self, directory: str | Path) -> list[Path]:
        """Write the six export files for the selected option into directory (and the chart PNGs)."""
        from planner.exports import export_plan

        option, result = self.state.selected_option, self.state.result
        if option is None or result is None or not option.fits:
            # launch configs for a layout that runs out of memory would only fail on the cluster
            raise PageInputError(Text("PlanPage", _NOTHING_TO_EXPORT))
        return export_plan(result, option, directory, self.export_inputs(), chart_pngs=self.chart_images())

    def export_dialog(self) -> None:
        directory = dialogs.folder(self, "export", translate("PlanPage", "Export the selected option to a folder"))
        if not directory:
            return
        try:
            files = self.export_to(directory)
        except (OSError, UserError) as exc:  # a read-only folder, a full disk, nothing that fits: say so
            QMessageBox.warning(self, translate("PlanPage", "Export failed"), render_note(error_note(exc)))
            return
        self.context.show_status(plurals().exported_files(len(files)).format(directory))
