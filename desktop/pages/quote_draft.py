"""A new quote as a draft: a small form that stores nothing until the quote is complete and valid.

Quotes > Add used to store a placeholder ("$1.00 New provider") at once, which entered the price medians before
the user had typed anything, and a price typed cell by cell was committed in the default currency before the
currency cell was reached. The draft collects provider (or vendor), GPU, price, currency, kind and date
together; OK is enabled only when the store's own validation accepts them, and only then is the quote stored
(one undoable step).
"""

from __future__ import annotations

import datetime as _dt
from collections.abc import Callable, Mapping, Sequence

from PySide6.QtCore import QDate
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from desktop.limit_spins import set_limit
from desktop.messages import render
from planner.messages import Message

Validate = Callable[[Mapping[str, object]], list[Message]]


class QuoteDraftDialog(QDialog):
    """The form; `values()` is the draft, `accepted` fires only for a valid one (the tab stores it)."""

    def __init__(
        self,
        kind: str,
        validate: Validate,
        gpus: Sequence[tuple[str, str]],
        kinds: Sequence[tuple[str, str]],
        currencies: Sequence[str],
        defaults: Mapping[str, object],
        parent: QWidget | None = None,
    ):
        super().__init__(parent)
        self.kind, self._validate = kind, validate
        rental = kind == "rental"
        self.setWindowTitle(self.tr("New rental quote") if rental else self.tr("New purchase quote"))
        self.provider_edit = QLineEdit()
        self.provider_edit.setPlaceholderText(
            self.tr("for example Lambda") if rental else self.tr("for example an integrator")
        )
        self.offer_edit = QLineEdit()
        self.gpu_combo = QComboBox()
        for gpu_id, name in gpus:
            self.gpu_combo.addItem(name, gpu_id)
        self.count_spin = QSpinBox()
        set_limit(self.count_spin, "gpus_per_quote")  # the store's rows of planner/limits.py
        self.price_spin = QDoubleSpinBox()
        self.price_spin.setDecimals(2 if rental else 0)
        set_limit(self.price_spin, "price_per_gpu_hour" if rental else "purchase_price")
        self.price_spin.setGroupSeparatorShown(True)
        self.currency_combo = QComboBox()
        for code in currencies:
            self.currency_combo.addItem(code, code)
        self.kind_combo = QComboBox()
        for value, name in kinds:
            self.kind_combo.addItem(name, value)
        # spot only: reclaims per instance-hour, typed as text so it may stay empty (the provider's typical rate)
        self.rate_edit = QLineEdit()
        self.date_edit = QDateEdit()
        self.date_edit.setCalendarPopup(True)
        self.date_edit.setDate(QDate.currentDate())
        self.problem = QLabel()
        self.problem.setWordWrap(True)
        self.problem.setStyleSheet("color: #9a6700;")
        form = QFormLayout()
        form.addRow(self.tr("Provider") if rental else self.tr("Vendor"), self.provider_edit)
        if rental:
            form.addRow(self.tr("Offer"), self.offer_edit)
        form.addRow(self.tr("GPU"), self.gpu_combo)
        form.addRow(self.tr("GPUs per instance") if rental else self.tr("GPUs"), self.count_spin)
        form.addRow(
            self.tr("Price per GPU-hour") if rental else self.tr("Price of the quote"), self.price_spin
        )
        form.addRow(self.tr("Currency"), self.currency_combo)
        if rental:
            form.addRow(self.tr("Kind"), self.kind_combo)
            form.addRow(self.tr("Reclaims per instance-hour"), self.rate_edit)
        form.addRow(self.tr("Quoted on"), self.date_edit)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        assert ok is not None
        self.ok_button: QPushButton = ok
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.problem)
        layout.addWidget(self.buttons)
        self._set_defaults(defaults)
        self._tooltips()
        for signal in (self.provider_edit.textChanged, self.offer_edit.textChanged, self.gpu_combo.currentIndexChanged,
                       self.count_spin.valueChanged, self.price_spin.valueChanged,
                       self.currency_combo.currentIndexChanged, self.kind_combo.currentIndexChanged,
                       self.date_edit.dateChanged, self.rate_edit.textChanged):  # fmt: skip
            signal.connect(self._check)
        self._check()

    def _set_defaults(self, defaults: Mapping[str, object]) -> None:
        for combo, key in (
            (self.gpu_combo, "gpu"),
            (self.currency_combo, "currency"),
            (self.kind_combo, "kind"),
        ):
            index = combo.findData(defaults.get(key))
            if index >= 0:
                combo.setCurrentIndex(index)

    def _tooltips(self) -> None:
        tips = (
            (self.provider_edit, self.tr("Who offers it (a cloud, a reseller, an integrator)")),
            (self.offer_edit, self.tr("The offer's name, as the provider calls it (optional)")),
            (self.gpu_combo, self.tr("The GPU type quoted")),
            (self.count_spin, self.tr("GPUs in one instance (rental) or in the whole quote (purchase)")),
            (self.price_spin, self.tr("The quoted price, in the currency chosen below")),
            (
                self.currency_combo,
                self.tr("The currency of the quoted price (converted with the rates in Settings)"),
            ),
            (self.kind_combo, self.tr("On demand, spot, or a reservation")),
            (self.date_edit, self.tr("When the price was quoted")),
            (self.rate_edit, self.tr("Spot: how often the provider reclaims an instance, per instance-hour, if it says; empty: the provider's typical rate is assumed")),
        )
        for widget, tip in tips:
            widget.setToolTip(tip)

    def values(self) -> dict[str, object]:
        """The draft as a quote the store takes (a reclaim rate only for a spot quote)."""
        quoted_on = self.date_edit.date().toString("yyyy-MM-dd") or _dt.date.today().isoformat()
        price, currency, gpu = (
            float(self.price_spin.value()),
            self.currency_combo.currentData(),
            self.gpu_combo.currentData(),
        )
        if self.kind == "rental":
            return {"provider": self.provider_edit.text().strip(), "offer": self.offer_edit.text().strip(),
                    "gpu": gpu, "gpus_per_instance": int(self.count_spin.value()), "price_per_gpu_hour": price,
                    "currency": currency, "kind": self.kind_combo.currentData(), "quoted_on": quoted_on,
                    "interruptions_per_hour": self._rate()}  # fmt: skip
        return {"vendor": self.provider_edit.text().strip(), "gpu": gpu, "gpus": int(self.count_spin.value()),
                "price": price, "currency": currency, "quoted_on": quoted_on}  # fmt: skip

    def _rate(self) -> str | None:
        """The typed reclaim rate (the store's validator reads and checks the text); None: not stated."""
        spot = self.kind_combo.currentData() == "spot"
        return (self.rate_edit.text().strip() or None) if spot else None

    def problems(self) -> list[str]:
        """Why the draft cannot be stored yet (empty: it can)."""
        found = []
        if not self.provider_edit.text().strip():
            found.append(
                self.tr("name the provider") if self.kind == "rental" else self.tr("name the vendor")
            )
        if self.price_spin.value() <= 0:
            found.append(self.tr("type the price"))
        if not found:
            found = [render(reason) for reason in self._validate(self.values())]
        return found

    def _check(self, *_: object) -> None:
        self.rate_edit.setEnabled(self.kind_combo.currentData() == "spot")
        self.rate_edit.setPlaceholderText(self.tr("empty: typical") if self.rate_edit.isEnabled() else "")
        problems = self.problems()
        self.ok_button.setEnabled(not problems)
        self.problem.setText("; ".join(problems))

    def accept(self) -> None:
        if self.problems():  # Enter in a field: the dialog only closes for a complete, valid quote
            return
        super().accept()
