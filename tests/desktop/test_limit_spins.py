"""Every numeric input of the GUI has the range the CLI (and the store) enforce: the row of planner/limits.py
(issue 30 item 2, issue 31's one table). Each spin box of the Plan page's panels, the Rent or buy page, Settings,
the quote form and the quote table's editors is found by walking the widgets, so a new spin box without its row
fails here; its range is compared with the row in its own unit, and the CLI is asked directly that the row's
ceiling is what it accepts and a little more is what it refuses."""

from __future__ import annotations

import argparse

import pytest
from PySide6.QtWidgets import QDoubleSpinBox, QSpinBox, QStyleOptionViewItem, QWidget

from desktop.limit_spins import LIMIT_KEY, LIMIT_SCALE, shown_range
from planner.limits import LIMITS

# Rows no CLI option has: checked by the store (quotes) or the planner (generic model size), or GUI-only inputs
# whose planner value the CLI takes in another form (--tokens = dataset x epochs; --utilization from runs).
NOT_CLI = {"gpus_per_quote", "price_per_instance_hour", "purchase_price", "min_term_hours", "server_overhead_fraction",
           "model_billions", "epochs", "runs_per_month", "exchange_rate"}  # fmt: skip
# Spin boxes narrowed further by what else is on the page (the GPUs owned can be at most the GPUs compared).
NARROWED = {"owned_gpus"}


def spins_of(widget: QWidget) -> list[QSpinBox | QDoubleSpinBox]:
    return [*widget.findChildren(QSpinBox), *widget.findChildren(QDoubleSpinBox)]


def check_spin(spin: QSpinBox | QDoubleSpinBox, where: str) -> str:
    key = spin.property(LIMIT_KEY)
    assert key, f"a spin box in {where} has no row of planner/limits.py (suffix {spin.suffix()!r})"
    scale = spin.property(LIMIT_SCALE)
    decimals = spin.decimals() if isinstance(spin, QDoubleSpinBox) else 0
    low, high = shown_range(key, scale, decimals)
    # the row itself, by hand: never below its floor, never above its ceiling, in the box's unit
    assert LIMITS[key].low * scale <= low + 1e-12 and high <= LIMITS[key].high * scale
    if key in NARROWED:
        assert spin.maximum() <= high, (where, key)
    else:
        assert spin.maximum() == pytest.approx(high), (where, key, spin.maximum(), high)
    step = 10.0**-decimals
    unset = spin.specialValueText() and spin.minimum() == pytest.approx(low - (1 if decimals == 0 else step))
    default_below = spin.specialValueText() and spin.minimum() == pytest.approx(low - 1)  # DefaultOrValue unticked
    assert spin.minimum() == pytest.approx(low) or unset or default_below, (where, key, spin.minimum(), low)
    return key


def cli_options() -> dict[str, argparse.Action]:
    from planner.cli import build_parser

    found: dict[str, argparse.Action] = {}

    def walk(parser: argparse.ArgumentParser) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for sub in action.choices.values():
                    walk(sub)
            elif action.option_strings and getattr(action.type, "__name__", "") in ("int", "float"):
                found.setdefault(action.dest, action)

    walk(build_parser())
    return found


def check_keys(keys: set[str]) -> None:
    options = cli_options()
    for key in sorted(keys):
        if key in NOT_CLI:
            continue
        assert key in options, f"{key}: no CLI option enforces this row"
        parse = options[key].type
        limit = LIMITS[key]
        assert parse(repr(int(limit.high) if limit.integer else limit.high)) == limit.high
        above = int(limit.high) + 1 if limit.integer else limit.high * 1.01
        with pytest.raises(argparse.ArgumentTypeError):
            parse(repr(above))


def test_every_plan_page_input_has_the_cli_range(qtbot):
    from desktop.pages.plan_constraints import ConstraintsPanel, StrategyPanel
    from desktop.pages.plan_inputs import HardwarePanel, ModelPanel, ShapePanel, WorkloadPanel
    from desktop.pages.plan_scale_inputs import PoolPanel, ResiliencePanel
    from desktop.plan_state import PlanInputs, PlanState

    state = PlanState(inputs=PlanInputs())
    keys: set[str] = set()
    count = 0
    for panel_class in (WorkloadPanel, ModelPanel, ShapePanel, HardwarePanel, ConstraintsPanel, StrategyPanel,
                        ResiliencePanel, PoolPanel):  # fmt: skip
        panel = panel_class(state)
        qtbot.addWidget(panel)
        for spin in spins_of(panel):
            keys.add(check_spin(spin, panel_class.__name__))
            count += 1
    assert count >= 20  # max/exact GPUs, budget, deadline, MFU, efficiency, headroom, 4 pins, LoRA, size, ...
    assert {"max_gpus", "gpus", "mfu", "bandwidth_fraction", "deadline_days", "tokens", "users", "batch", "dp",
            "checkpoint_gb_per_s"} <= keys  # fmt: skip
    check_keys(keys)


def test_the_percent_fields_show_the_cli_fraction_in_percent(qtbot):
    """By hand: --mfu takes 0.001..1, so the MFU field (whole percents) takes 1..100; a 0.1 % floor is not
    shown as 0, which would divide by zero."""
    from desktop.pages.plan_constraints import ConstraintsPanel
    from desktop.plan_state import PlanInputs, PlanState

    panel = ConstraintsPanel(PlanState(inputs=PlanInputs()))
    qtbot.addWidget(panel)
    assert (panel.mfu.spin.minimum(), panel.mfu.spin.maximum()) == (1, 100)
    assert (panel.headroom_spin.minimum(), panel.headroom_spin.maximum()) == (0, 90)
    assert panel.max_spin.maximum() == 10_000_000  # plan --max-gpus
    assert panel.deadline.spin.minimum() == pytest.approx(0.1)  # a box of one decimal: 1e-5 days shown as 0.1


def test_rent_buy_settings_and_quote_inputs_have_the_cli_range(qtbot, rent_buy, context):
    from desktop.pages.quote_draft import QuoteDraftDialog
    from desktop.pages.settings import SettingsPage

    keys: set[str] = set()
    for spin in spins_of(rent_buy):
        keys.add(check_spin(spin, "RentBuyPage"))
    assert {"gpus", "rent_per_gpu_hour", "purchase_per_gpu", "pue", "power_w", "overhead_fraction",
            "checkpoint_write_minutes", "restart_minutes", "owned_gpus"} <= keys  # fmt: skip
    settings = SettingsPage(context)
    qtbot.addWidget(settings)
    for spin in spins_of(settings):
        keys.add(check_spin(spin, "SettingsPage"))
    for kind in ("rental", "purchase"):
        dialog = QuoteDraftDialog(kind, lambda _values: [], [("h100-sxm", "H100")], [("on-demand", "on demand")],
                                  ["USD"], {})  # fmt: skip
        qtbot.addWidget(dialog)
        for spin in spins_of(dialog):
            keys.add(check_spin(spin, f"QuoteDraftDialog {kind}"))
    check_keys(keys)


def test_the_quote_table_editors_have_the_stores_range(qtbot, tmp_path):
    """Each numeric column's editor in the quotes table, made by the delegate as a double click makes it."""
    from desktop.delegates import QuoteDelegate
    from desktop.qmodels.quotes import QuoteKind, QuoteTableModel
    from planner.store import Store

    store = Store.open(tmp_path / "q.sqlite")
    parent = QWidget()
    qtbot.addWidget(parent)
    delegate = QuoteDelegate(lambda: [("h100-sxm", "H100")])
    keys: set[str] = set()
    for kind in ("rental", "purchase"):
        model = QuoteTableModel(QuoteKind(kind, store))
        model.reload()
        assert model.rowCount() > 0  # the reference prices shipped with the app
        for position, column in enumerate(model.columns):
            if column.editor in ("money", "float", "int"):
                editor = delegate.createEditor(parent, QStyleOptionViewItem(), model.index(0, position))
                assert isinstance(editor, (QSpinBox, QDoubleSpinBox)), column.key
                keys.add(check_spin(editor, f"{kind} column {column.key}"))
    store.close()
    assert {"price_per_gpu_hour", "gpus_per_quote", "power_w", "purchase_price"} <= keys
    check_keys(keys)


def test_the_store_refuses_what_the_quote_editors_cannot_hold(tmp_path):
    """The quote rows the editors take are the store's own checks: just above each ceiling is refused."""
    from planner.store import validate_rental_quote

    base = {"provider": "p", "gpu": "h100-sxm", "gpus_per_instance": 8, "price_per_gpu_hour": 2.0,
            "currency": "USD", "quoted_on": "2026-01-01"}  # fmt: skip
    assert not validate_rental_quote(base)
    over = {"price_per_gpu_hour": LIMITS["price_per_gpu_hour"].high * 1.01,
            "gpus_per_instance": LIMITS["gpus_per_quote"].high + 1,
            "min_term_hours": LIMITS["min_term_hours"].high * 1.01}  # fmt: skip
    for field, value in over.items():
        assert validate_rental_quote({**base, field: value}), field
