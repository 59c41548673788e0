"""Settings page: display currency, dated exchange rates, electricity price, language, NVML and probe info."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QDate, Qt
from PySide6.QtWidgets import (
    QComboBox,
    QDateEdit,
    QDoubleSpinBox,
    QFormLayout,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QVBoxLayout,
    QWidget,
)

from desktop.context import CURRENCIES
from desktop.limit_spins import set_limit
from desktop.pages.base import Page
from desktop.pages.page_widgets import banner, show_banner
from desktop.qmodels.probe_history import summarise_devices

if TYPE_CHECKING:
    from PySide6.QtWidgets import QLayout

    from desktop.context import AppContext

LANGUAGES = (
    ("", "System default"),
    ("en", "English"),
    ("ru", "Русский"),
)  # language names are not translated


class SettingsPage(Page):
    page_id = "settings"

    def __init__(self, context: AppContext, parent: QWidget | None = None) -> None:
        super().__init__(context, parent)
        self._loading = False
        self._build()
        self.load()
        self.retranslate()
        context.inventory_changed.connect(lambda _inventory: self._update_system_info())
        context.settings_changed.connect(self._on_settings_changed)

    # -- layout ------------------------------------------------------------------------------------------------
    def _build(self) -> None:
        self.money_box = QGroupBox(self)
        self.currency_combo = QComboBox(self)
        for code in CURRENCIES:
            self.currency_combo.addItem(code, code)
        self.currency_combo.currentIndexChanged.connect(self._currency_chosen)
        self.rates_label = QLabel(self)
        self.rates_label.setWordWrap(True)
        self.rate_spins: dict[str, QDoubleSpinBox] = {}
        self.rate_dates: dict[str, QDateEdit] = {}
        rates = QGridLayout()
        self.rate_headers = [QLabel(self), QLabel(self), QLabel(self)]
        for column, header in enumerate(self.rate_headers):
            rates.addWidget(header, 0, column)
        for row, code in enumerate((c for c in CURRENCIES if c != "USD"), start=1):
            rates.addWidget(QLabel(f"1 {code} =", self), row, 0)
            spin = QDoubleSpinBox(self)
            spin.setDecimals(6)
            set_limit(spin, "exchange_rate", unset=True)  # 0: not set ("—")
            spin.setSuffix(" USD")
            spin.setSpecialValueText("—")
            date = QDateEdit(self)
            date.setCalendarPopup(True)
            date.setDisplayFormat("yyyy-MM-dd")
            date.setDate(QDate.currentDate())
            rates.addWidget(spin, row, 1)
            rates.addWidget(date, row, 2)
            self.rate_spins[code], self.rate_dates[code] = spin, date
        self.save_rates_button = QPushButton(self)
        self.save_rates_button.clicked.connect(self.save_rates)
        rates.addWidget(self.save_rates_button, len(self.rate_spins) + 1, 2, Qt.AlignmentFlag.AlignRight)
        rates.setColumnStretch(3, 1)
        self.electricity_spin = QDoubleSpinBox(self)
        self.electricity_spin.setDecimals(4)
        set_limit(self.electricity_spin, "electricity_per_kwh")
        self.electricity_currency = QComboBox(self)
        for code in CURRENCIES:
            self.electricity_currency.addItem(code, code)
        self.electricity_unit = QLabel(self)
        self.electricity_spin.editingFinished.connect(self.save_electricity)
        self.electricity_currency.currentIndexChanged.connect(lambda _i: self.save_electricity())
        electricity = QHBoxLayout()
        electricity.addWidget(self.electricity_spin)
        electricity.addWidget(self.electricity_currency)
        electricity.addWidget(self.electricity_unit)
        electricity.addStretch(1)
        self.money_form = QFormLayout()
        self.money_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        self.currency_label, self.rates_title, self.electricity_label = (
            QLabel(self),
            QLabel(self),
            QLabel(self),
        )
        self.money_form.addRow(self.currency_label, self.currency_combo)
        self.rates_grid = _wrap(rates)
        self.money_form.addRow(self.rates_title, self.rates_grid)
        # the note under the rates across the whole box: as a field (kept at its size hint by this form) the
        # wrapping label was a narrow column of six lines beside empty space
        self.money_form.addRow(self.rates_label)
        self.money_form.addRow(self.electricity_label, _wrap(electricity))
        self.money_message = banner(self)
        money_layout = QVBoxLayout(self.money_box)
        money_layout.addLayout(self.money_form)
        money_layout.addWidget(self.money_message)

        self.language_box = QGroupBox(self)
        self.language_combo = QComboBox(self)
        for code, name in LANGUAGES:
            self.language_combo.addItem(name, code)
        self.language_combo.currentIndexChanged.connect(self._language_chosen)
        self.language_note = QLabel(self)
        self.language_label = QLabel(self)
        language_form = QFormLayout(self.language_box)
        language_form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.FieldsStayAtSizeHint)
        language_form.addRow(self.language_label, self.language_combo)
        language_form.addRow("", self.language_note)

        self.system_box = QGroupBox(self)
        self.system_form = QFormLayout(self.system_box)
        self.system_labels: dict[str, tuple[QLabel, QLabel]] = {}
        for key in ("nvml", "driver", "cuda", "gpus", "probe", "torch", "database", "settings"):
            caption, value = QLabel(self), QLabel(self)
            value.setWordWrap(True)
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.system_form.addRow(caption, value)
            self.system_labels[key] = (caption, value)

        content = QWidget(self)
        boxes = QVBoxLayout(content)
        boxes.addWidget(self.money_box)
        boxes.addWidget(self.language_box)
        boxes.addWidget(self.system_box)
        boxes.addStretch(1)
        content.setMaximumWidth(900)
        scroll = QScrollArea(self)
        scroll.setWidgetResizable(True)
        scroll.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # Tab goes to the fields (each scrolled into view)
        scroll.setFrameShape(QScrollArea.Shape.NoFrame)
        scroll.setWidget(content)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(scroll)

    # -- page interface ----------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.money_box.setTitle(self.tr("Money"))
        self.currency_label.setText(self.tr("Display currency:"))
        self.currency_combo.setToolTip(self.tr("Every cost is shown in this currency; quotes keep their own"))
        self.rates_title.setText(self.tr("Exchange rates:"))
        self.rate_headers[0].setText(self.tr("Currency"))
        self.rate_headers[1].setText(self.tr("Value in US dollars"))
        self.rate_headers[2].setText(self.tr("As of"))
        self.save_rates_button.setText(self.tr("Save rates"))
        self.electricity_label.setText(self.tr("Electricity price:"))
        self.electricity_unit.setText(self.tr("per kWh"))
        self.language_box.setTitle(self.tr("Language"))
        self.language_label.setText(self.tr("Interface language:"))
        self.language_combo.setItemText(0, self.tr("System default"))
        self.language_note.setText(self.tr("Also on the command line: gpu-advisor --lang en|ru."))
        self.system_box.setTitle(self.tr("GPUs and probe"))
        names = {
            "nvml": self.tr("NVML:"),
            "driver": self.tr("NVIDIA driver:"),
            "cuda": self.tr("CUDA (driver):"),
            "gpus": self.tr("GPUs found:"),
            "probe": self.tr("Probe:"),
            "torch": self.tr("torch (probe only):"),
            "database": self.tr("Database:"),
            "settings": self.tr("Window settings:"),
        }
        for key, (label, _value) in self.system_labels.items():
            label.setText(names[key])
        self._update_rates_label()
        self._update_system_info()

    # -- loading and saving ------------------------------------------------------------------------------------
    def load(self) -> None:
        self._loading = True
        try:
            context = self.context
            self.currency_combo.setCurrentIndex(
                max(self.currency_combo.findData(context.display_currency()), 0)
            )
            stored = context.exchange_rate_entries()
            for code, spin in self.rate_spins.items():
                entry = stored.get(code)
                spin.setValue(entry.to_usd if entry else 0.0)
                as_of = QDate.fromString(entry.as_of if entry else "", "yyyy-MM-dd")
                self.rate_dates[code].setDate(as_of if as_of.isValid() else QDate.currentDate())
            price = context.electricity_price()
            self.electricity_spin.setValue(price.amount)
            self.electricity_currency.setCurrentIndex(
                max(self.electricity_currency.findData(price.currency), 0)
            )
            language = context.language()
            self.language_combo.setCurrentIndex(max(self.language_combo.findData(language), 0))
        finally:
            self._loading = False
        self._update_rates_label()

    def _on_settings_changed(self) -> None:
        if not self._loading:
            self.load()

    def _currency_chosen(self, _index: int) -> None:
        if self._loading:
            return
        self._saving(lambda: self.context.set_display_currency(self.currency_combo.currentData()))

    def save_rates(self) -> None:
        """Store every rate that has a value (a blank rate stays unset: it is asked for, never assumed)."""

        def work() -> None:
            for code, spin in self.rate_spins.items():
                if spin.value() > 0:
                    as_of = self.rate_dates[code].date().toString("yyyy-MM-dd")
                    self.context.set_exchange_rate(code, spin.value(), as_of)

        if self._saving(work):
            show_banner(self.money_message, self.tr("Exchange rates saved."))

    def save_electricity(self) -> None:
        if self._loading:
            return
        amount, currency = self.electricity_spin.value(), self.electricity_currency.currentData()
        current = self.context.electricity_price()
        if (current.amount, current.currency) != (amount, currency):
            self._saving(lambda: self.context.set_electricity_price(amount, currency))

    def _language_chosen(self, _index: int) -> None:
        if self._loading:
            return
        code = self.language_combo.currentData()
        if self._saving(lambda: self.context.set_language(code)):
            from desktop.i18n import switch_language

            switch_language(code)  # live: translators, locale, then every page's retranslate(); inputs stay
            self.context.show_status(self.tr("Interface language changed."))

    def _saving(self, work: Callable[[], None]) -> bool:
        self._loading = True  # our own settings_changed must not reload the fields mid-edit
        try:
            work()
        except Exception as exc:  # called from Qt slots: nothing may escape them; the reason is shown instead
            from desktop.workers import describe_error

            show_banner(self.money_message, describe_error(exc), error=True)
            return False
        finally:
            self._loading = False
        show_banner(self.money_message, "")
        self._update_rates_label()
        return True

    def _update_rates_label(self) -> None:
        stored = self.context.exchange_rate_entries()
        missing = [code for code in self.rate_spins if code not in stored]
        text = self.tr(
            'Each rate keeps the date it was set. Quotes in a currency without a rate show "no rate"; a rate is never guessed.'
        )
        if missing:
            text += " " + self.tr("Not set yet: {0}.").format(", ".join(missing))
        self.rates_label.setText(text)

    def _update_system_info(self) -> None:
        from desktop.context import settings_path
        from desktop.main_window import package_version
        from desktop.probe_command import probe_availability

        inventory = self.context.inventory
        values: dict[str, str] = {}
        if inventory is None:
            values["nvml"] = self.tr("reading…")
        elif inventory.available:
            values["nvml"] = self.tr("available")
        else:
            # NVML's reason in the interface language, as the Hardware page words it
            from desktop.nvml_words import translated

            reason = str(inventory.reason or "").removeprefix("no NVIDIA GPU: ").rstrip(".")
            values["nvml"] = f"{self.tr('unavailable')}: {translated(reason)}" if reason else self.tr("unavailable")
        driver = getattr(inventory, "driver_version", None)
        cuda = getattr(inventory, "cuda_driver_version", None)
        values["driver"] = driver if isinstance(driver, str) else self.tr("n/a")
        values["cuda"] = cuda if isinstance(cuda, str) else self.tr("n/a")
        gpus = getattr(inventory, "gpus", None) or []
        values["gpus"] = summarise_devices([str(g.name) for g in gpus]) if gpus else self.tr("none")
        availability = probe_availability()
        values["probe"] = (
            self.tr("ready ({0})") if availability.available else self.tr("unavailable: {0}")
        ).format(availability.reason if availability.available else availability.translated_reason())
        values["torch"] = package_version("torch") or self.tr("not installed")
        values["database"] = str(self.context.store.path)
        values["settings"] = settings_path()
        for key, (_label, value) in self.system_labels.items():
            value.setText(values[key])

    def load_example(self) -> None:
        self.load()


def _wrap(layout: QLayout) -> QWidget:
    widget = QWidget()
    layout.setContentsMargins(0, 0, 0, 0)
    widget.setLayout(layout)
    return widget
