"""The main window: every fake NVML scenario, navigation, menus, status bar, remembered geometry and page."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from PySide6.QtCore import QSize, Qt, qVersion
from PySide6.QtWidgets import QFileDialog, QMessageBox

from desktop.qmodels.gpu_inventory import COLUMNS

PAGES = ["hardware", "quotes", "plan", "rent_buy", "settings"]


def column(key: str) -> int:
    return [k for k, _ in COLUMNS].index(key)


def cell(window, row: int, key: str, role=Qt.ItemDataRole.DisplayRole):
    model = window.page("hardware").inventory_model
    return model.data(model.index(row, column(key)), role)


def test_no_gpu_shows_the_reason_the_cpu_row_and_the_import_action(open_window):
    window = open_window("none")
    page = window.page("hardware")
    assert page.inventory_model.rowCount() == 1
    assert cell(window, 0, "name").startswith("CPU: ")
    assert page.empty_state.isVisible()
    # the fake driver reports zero devices; the page says so in words
    assert "No NVIDIA GPU" in page.empty_state.text()
    assert "0 devices" in page.empty_state.text()
    assert "Import probe report" in page.empty_state.text()
    # the action sits next to the reason (the header's copy of the button steps aside)
    assert page.empty_state.import_button.isVisible() and not page.import_button.isVisible()
    # no four empty plots: the telemetry tab says why there is nothing to watch
    assert page.telemetry_stack.currentWidget() is page.telemetry_placeholder
    assert window.gpus_label.text() == "No NVIDIA GPU"


def test_h100x8_lists_eight_gpus_with_memory_nvlink_and_pcie(open_window):
    window = open_window("h100x8")
    page = window.page("hardware")
    assert page.inventory_model.rowCount() == 8
    assert not page.empty_state.isVisible()
    # H100 SXM: 80 GB HBM3 shows as 79.6 GiB (NVML reports 81559 MiB = 79.6 GiB), 700 W, 18 NVLinks via NVSwitch
    assert cell(window, 0, "memory") == "79.6 GiB"
    assert cell(window, 0, "power") == "700 W"
    assert cell(window, 0, "nvlink").startswith("18 × NVLink")
    assert cell(window, 0, "pcie") == "Gen 5 x16"
    assert cell(window, 0, "cc") == "9.0"
    assert window.gpus_label.text() == "GPUs found: 8"


def test_consumer_card_shows_refused_fields_as_na_with_the_reason(open_window):
    window = open_window("consumer")
    # the fake RTX 4090 refuses ECC, MIG and NVLink queries with NVML_ERROR_NOT_SUPPORTED (profiler/fake_nvml.py)
    for key in ("nvlink", "mig", "ecc"):
        assert cell(window, 0, key) == "n/a", key
        assert "not supported" in cell(window, 0, key, Qt.ItemDataRole.ToolTipRole).lower(), key
    assert cell(window, 0, "power") == "450 W"  # what it does report is shown as usual


def test_without_torch_the_no_gpu_state_does_not_promise_a_probe(open_window, monkeypatch):
    from desktop import probe_command

    lite = probe_command.ProbeAvailability(False, probe_command.NO_PROBE_MESSAGE)
    monkeypatch.setattr(probe_command, "probe_availability", lambda: lite)
    window = open_window("none")
    page = window.page("hardware")
    text = page.empty_state.text()
    assert "cannot run" in text and "can still measure" not in text
    assert not page.empty_state.probe_button.isVisible()
    assert page.empty_state.import_button.isVisible()
    assert not page.quick_button.isEnabled()
    assert "does not include torch" in page.probe_message.text()  # the Probe tab gives the whole reason


def test_mig_scenario_shows_instances(open_window):
    window = open_window("mig")
    assert cell(window, 0, "mig").startswith("on, instances:")


@pytest.mark.slow
def test_lost_gpu_is_reported_while_the_other_keeps_being_sampled(open_window, monkeypatch, qtbot):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML_LOST_AFTER", "1")
    window = open_window("lost")
    page = window.page("hardware")
    assert page.inventory_model.rowCount() == 2
    qtbot.waitUntil(lambda: "Lost during sampling" in page.telemetry_note.text(), timeout=8000)
    assert "GPU 1" in page.telemetry_note.text()
    # the table marks the lost GPU (and only it), with the reason in its tooltip
    assert page.inventory_model.is_lost(1) and not page.inventory_model.is_lost(0)
    assert cell(window, 1, "name").endswith("(lost)") and not cell(window, 0, "name").endswith("(lost)")
    assert "GPU is lost" in cell(window, 1, "name", Qt.ItemDataRole.ToolTipRole)
    assert "(1 lost)" in page.summary.text()
    # the chart: GPU 1 is struck through in the legend and dashed; GPU 0 keeps getting new samples
    assert 1 in page.telemetry.lost and 0 not in page.telemetry.lost
    assert "<s>" in page.telemetry.legend.text()
    assert page.telemetry.curves[("utilization_pct", 1)].opts["pen"].style() == Qt.PenStyle.DashLine
    curve = page.telemetry.curves[("utilization_pct", 0)]
    seen = len(curve.getData()[0])
    qtbot.waitUntil(lambda: len(curve.getData()[0]) > seen, timeout=5000)


def test_mig_scenario_names_the_telemetry_nvml_refuses(open_window, qtbot):
    window = open_window("mig")
    page = window.page("hardware")
    # the fake A100 in MIG mode refuses utilisation (NVML does under MIG): the key's utilisation column says
    # so for that GPU, with NVML's reason as the tooltip
    qtbot.waitUntil(lambda: "not reported" in page.telemetry.legend.text(), timeout=8000)
    assert "Utilisation" in page.telemetry.legend.text()
    assert "utilization_pct" in page.telemetry.legend.toolTip()


def test_telemetry_chart_fills_from_the_sampler(open_window, qtbot):
    window = open_window("h100x8")
    page = window.page("hardware")
    curve = page.telemetry.curves[("power_w", 7)]
    qtbot.waitUntil(lambda: curve.getData()[0] is not None and len(curve.getData()[0]) >= 2, timeout=8000)
    assert page.telemetry.last_values[("power_w", 7)] > 0


def test_ctrl_number_shortcuts_and_the_list_navigate(open_window, qtbot):
    window = open_window("none")
    window.activateWindow()
    for number, page_id in enumerate(PAGES, start=1):
        window.page_actions[number - 1].trigger()
        assert window.current_page().page_id == page_id
    assert [a.shortcut().toString() for a in window.page_actions] == [f"Ctrl+{n}" for n in range(1, 6)]
    window.navigation.setCurrentRow(1)
    assert window.current_page().page_id == "quotes"
    assert window.navigation.item(3).text() == window.page("rent_buy").title()


def test_every_page_follows_the_page_interface(open_window):
    window = open_window("none")
    assert [page.page_id for page in window.pages] == PAGES
    for page in window.pages:
        assert isinstance(page.title(), str) and page.title()
        page.retranslate()
        assert page.confirm_close() in (True, False)


def test_about_names_the_versions(open_window, monkeypatch):
    window = open_window("h100x8")
    shown = {}
    monkeypatch.setattr(
        QMessageBox, "about", lambda parent, title, text: shown.update(title=title, text=text)
    )
    window.about_action.trigger()
    assert qVersion() in shown["text"]
    assert "550.54.15" in shown["text"]  # the fake driver's version
    assert "torch" in shown["text"]


def test_status_bar_names_the_database(open_window, tmp_path):
    window = open_window("none")
    assert str(window.context.store.path) in window.db_label.toolTip()
    assert window.db_label.text().startswith("Database: ")


def test_geometry_and_last_page_are_remembered(open_window, qtbot):
    first = open_window("none")
    first.resize(QSize(1150, 700))
    first.show_page("settings")
    first.close()
    second = open_window("none")
    assert second.current_page().page_id == "settings"
    # The offscreen test screen is 800 px wide, so Qt fits the restored width to the screen (then the window's
    # minimum width); the height fits and must come back exactly.
    assert second.height() == 700


def test_file_import_probe_report_adds_a_history_row(open_window, monkeypatch, qtbot, tmp_path):
    from desktop.examples import example_report

    path = tmp_path / "rented.json"
    path.write_text(json.dumps(example_report()), encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "*.json"))
    window = open_window("none")
    page = window.page("hardware")
    window.import_report_action.trigger()
    qtbot.waitUntil(lambda: page.history_model.rowCount() == 1, timeout=5000)
    assert window.current_page() is page


def test_file_import_of_a_broken_report_is_reported_not_raised(open_window, monkeypatch, qtbot, tmp_path):
    path = tmp_path / "broken.json"
    path.write_text('{"schema": "something else"}', encoding="utf-8")
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(path), "*.json"))
    window = open_window("none")
    page = window.page("hardware")
    window.import_report_action.trigger()
    qtbot.waitUntil(lambda: page.message.isVisible(), timeout=5000)
    assert "not imported" in page.message.text()
    assert page.history_model.rowCount() == 0


def test_file_import_and_export_quotes(open_window, monkeypatch, qtbot, tmp_path):
    source = tmp_path / "in.csv"
    source.write_text(
        "provider,gpu,price_per_gpu_hour,currency,kind,quoted_on\n"
        "Acme Cloud,h100-sxm,2.10,USD,on-demand,2026-09-20\n",
        encoding="utf-8",
    )
    monkeypatch.setattr(QFileDialog, "getOpenFileName", lambda *a, **k: (str(source), "*.csv"))
    window = open_window("none")
    quotes = window.page("quotes")
    window.import_quotes_action.trigger()
    qtbot.waitUntil(lambda: getattr(quotes, "preview_dialog", None) is not None, timeout=5000)
    assert quotes.preview_dialog.preview.good == 1
    quotes.preview_dialog.accept()
    qtbot.waitUntil(
        lambda: any(r["provider"] == "Acme Cloud" for r in quotes.rental.model.rows), timeout=5000
    )

    target = tmp_path / "out.csv"
    monkeypatch.setattr(QFileDialog, "getSaveFileName", lambda *a, **k: (str(target), "*.csv"))
    with qtbot.waitSignal(window.context.status_message, timeout=5000):
        window.export_quotes_action.trigger()
    lines = target.read_text(encoding="utf-8-sig").splitlines()  # a BOM for spreadsheet apps
    assert lines[0].startswith("provider,offer,gpu")
    assert len(lines) == 2 and "Acme Cloud" in lines[1]


def test_quit_closes_the_window(open_window):
    window = open_window("none")
    window.quit_action.trigger()
    assert not window.isVisible()


def test_a_database_from_a_newer_version_is_reported_and_a_temporary_one_used(
    open_window, tmp_path, monkeypatch
):
    newer = tmp_path / "newer.sqlite"
    with sqlite3.connect(newer) as conn:
        conn.execute("PRAGMA user_version = 999")
        conn.execute("CREATE TABLE settings (key TEXT)")
    monkeypatch.setenv("GPU_ADVISOR_DB", str(newer))
    window = open_window("none")
    assert window.context.store_problem
    assert Path(window.context.store.path) != newer
    assert window.db_label.text().startswith("Temporary database")


@pytest.mark.parametrize("scenario", ["none", "consumer", "h100x8", "mig", "lost"])
def test_every_scenario_renders_every_page(open_window, scenario):
    window = open_window(scenario)
    for page_id in PAGES:
        window.show_page(page_id)
        assert not window.grab().isNull()
