"""The serving part of the Plan page's shape panel: prompt and output length, the load (concurrent users or a
request rate), the tokens/s target and the latency targets (time to first token at p90, time per output token),
as `gpu-advisor plan --prompt-tokens --output-len --users | --request-rate --tokens-per-second --ttft-ms --tpot-ms`
take them. Bound to the one PlanState like the other panels: a change calls state.update(field=value)."""

from __future__ import annotations

from PySide6.QtCore import QSignalBlocker
from PySide6.QtWidgets import (
    QAbstractButton,
    QButtonGroup,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QRadioButton,
    QSpinBox,
    QWidget,
)

from desktop.limit_spins import set_limit
from desktop.messages import render
from desktop.plan_state import PlanInputs, PlanState


def _target_spin(limit: str) -> QDoubleSpinBox:
    """A latency target in milliseconds; its lowest value, 0, reads "none" (no target)."""
    spin = QDoubleSpinBox()
    spin.setDecimals(1)
    set_limit(spin, limit, unset=True)  # the CLI's row (desktop/limit_spins.py); one step below it: none
    spin.setSingleStep(10)
    return spin


class ServingInputs(QWidget):
    """Prompt, output, users or request rate, tokens/s target, TTFT and TPOT targets (serving plans only)."""

    def __init__(self, state: PlanState, parent: QWidget | None = None):
        super().__init__(parent)
        self.state = state
        self.prompt_spin = QSpinBox()
        set_limit(self.prompt_spin, "prompt_tokens")  # ranges: the CLI's rows of planner/limits.py
        self.output_spin = QSpinBox()
        set_limit(self.output_spin, "output_len")
        self.users_radio, self.rate_radio = QRadioButton(), QRadioButton()
        self.load_group = QButtonGroup(self)
        self.load_group.addButton(self.users_radio)
        self.load_group.addButton(self.rate_radio)
        self.users_spin = QSpinBox()
        set_limit(self.users_spin, "users")
        self.rate_spin = QDoubleSpinBox()
        self.rate_spin.setDecimals(2)
        set_limit(self.rate_spin, "request_rate")
        self.tps_spin = QDoubleSpinBox()
        self.tps_spin.setDecimals(0)
        set_limit(self.tps_spin, "tokens_per_second")
        self.ttft_spin = _target_spin("ttft_ms")
        self.tpot_spin = _target_spin("tpot_ms")
        self.labels = {name: QLabel() for name in ("prompt", "output", "tps", "ttft", "tpot")}
        form = QFormLayout(self)
        form.setContentsMargins(0, 0, 0, 0)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapLongRows)
        form.addRow(self.labels["prompt"], self.prompt_spin)
        form.addRow(self.labels["output"], self.output_spin)
        form.addRow(self.users_radio, self.users_spin)
        form.addRow(self.rate_radio, self.rate_spin)
        form.addRow(self.labels["tps"], self.tps_spin)
        form.addRow(self.labels["ttft"], self.ttft_spin)
        form.addRow(self.labels["tpot"], self.tpot_spin)
        # What the serving figures leave out, as the CLI's serving line says it (planner.perf.engines).
        self.speculative_note = QLabel()
        self.speculative_note.setWordWrap(True)
        self.speculative_note.setEnabled(False)  # greyed: a note, not an input
        form.addRow(self.speculative_note)

        self.prompt_spin.valueChanged.connect(lambda v: self.state.update(prompt_tokens=int(v)))
        self.output_spin.valueChanged.connect(lambda v: self.state.update(output_tokens=int(v)))
        self.load_group.buttonToggled.connect(self._on_load_mode)
        self.users_spin.valueChanged.connect(lambda v: self.state.update(concurrent_users=int(v)))
        self.rate_spin.valueChanged.connect(lambda v: self.state.update(request_rate=float(v)))
        self.tps_spin.valueChanged.connect(lambda v: self.state.update(tokens_per_second=float(v)))
        self.ttft_spin.valueChanged.connect(lambda v: self.state.update(ttft_target_ms=float(v) or None))
        self.tpot_spin.valueChanged.connect(lambda v: self.state.update(tpot_target_ms=float(v) or None))
        self.retranslate()

    def retranslate(self) -> None:
        self.labels["prompt"].setText(self.tr("Prompt (tokens)"))
        self.labels["output"].setText(self.tr("Output (tokens)"))
        self.users_radio.setText(self.tr("Concurrent users"))
        self.rate_radio.setText(self.tr("Request rate"))
        self.labels["tps"].setText(self.tr("Target speed (tokens/s)"))
        self.labels["ttft"].setText(self.tr("First token within (p90)"))
        self.labels["tpot"].setText(self.tr("Per output token within"))
        from planner.messages import msg  # the planner's message table, loaded with the first text

        note = render(msg("serving.speculative_decoding"))
        self.speculative_note.setText(note[:1].upper() + note[1:] + ".")
        self.prompt_spin.setSuffix(" " + self.tr("tokens"))
        self.output_spin.setSuffix(" " + self.tr("tokens"))
        self.users_spin.setSuffix(" " + self.tr("users"))
        self.rate_spin.setSuffix(" " + self.tr("requests/s"))
        for spin in (self.ttft_spin, self.tpot_spin):
            spin.setSuffix(" " + self.tr("ms"))
            spin.setSpecialValueText(self.tr("no target"))
        tips = (
            (self.prompt_spin, self.tr("Tokens of each request's prompt: its prefill sets the time to first token")),
            (self.output_spin, self.tr("Tokens generated per request")),
            (self.users_radio, self.tr("Load as users decoding at the same time, each sending its next request "
                                       "when the last one ends")),
            (self.users_spin, self.tr("Users decoding at the same time; they are split across the replicas")),
            (self.rate_radio, self.tr("Load as requests arriving at random (Poisson) at this rate over all "
                                      "replicas")),
            (self.rate_spin, self.tr("Requests per second over all replicas")),
            (self.tps_spin, self.tr("Target speed: output tokens per second over all users together; replicas "
                                    "are added until it is met")),
            (self.ttft_spin, self.tr("Time to first token that 90% of requests must keep (queue, prefill and "
                                     "overhead); no target at 0")),
            (self.tpot_spin, self.tr("Mean time per output token every option must keep; no target at 0")),
        )  # fmt: skip
        for widget, tip in tips:
            widget.setToolTip(tip)

    def _on_load_mode(self, button: QAbstractButton, checked: bool) -> None:
        if checked:
            self.state.update(load_mode="rate" if button is self.rate_radio else "users")
            self._enable_load(self.state.inputs)

    def _enable_load(self, inputs: PlanInputs) -> None:
        self.users_spin.setEnabled(inputs.load_mode != "rate")
        self.rate_spin.setEnabled(inputs.load_mode == "rate")

    def sync_from(self, inputs: PlanInputs) -> None:
        widgets = (self.prompt_spin, self.output_spin, self.load_group, self.users_spin, self.rate_spin,
                   self.tps_spin, self.ttft_spin, self.tpot_spin)  # fmt: skip
        blockers = [QSignalBlocker(w) for w in widgets]
        self.prompt_spin.setValue(inputs.prompt_tokens)
        self.output_spin.setValue(inputs.output_tokens)
        (self.rate_radio if inputs.load_mode == "rate" else self.users_radio).setChecked(True)
        self.users_spin.setValue(inputs.concurrent_users)
        self.rate_spin.setValue(inputs.request_rate)
        self.tps_spin.setValue(inputs.tokens_per_second)
        self.ttft_spin.setValue(inputs.ttft_target_ms or 0.0)
        self.tpot_spin.setValue(inputs.tpot_target_ms or 0.0)
        del blockers
        self._enable_load(inputs)
