"""Run probe from the Hardware page with a fake probe child: success, crash, hang (cancel, timeout), garbage,
an error event. The GUI stays up and says what happened; a finished run lands in the history."""

from __future__ import annotations

import json

import pytest

from desktop.workers import ProbeProcess
from tests.desktop.fake_probe import BANDWIDTH, BF16


@pytest.fixture
def hardware(open_window, fake_probe):
    window = open_window("h100x8")
    return window.page("hardware")


def test_a_probe_run_streams_results_against_the_spec_and_is_saved(hardware, qtbot):
    with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=15_000):
        hardware.quick_button.click()
    assert hardware.results_model.rowCount() == 4  # 2 GPUs x (bf16 matmul, memory bandwidth)
    # H100 SXM spec: 989.4 dense bf16 TFLOPS and 3.35 TB/s (NVIDIA datasheet): 794 / 989.4 = 80.2 %, 2.9 / 3.35 = 86.6 %
    percents = sorted(round(p, 1) for _label, p, _text in hardware.probe_chart.items)
    assert percents == [round(100 * BF16 / 989.4e12, 1)] * 2 + [round(100 * BANDWIDTH / 3.35e12, 1)] * 2
    assert hardware.progress.value() == 1000
    assert hardware.history_model.rowCount() == 1
    history = hardware.history_model.rows[0]
    assert history.bf16 == BF16 and history.bandwidth_fraction == pytest.approx(BANDWIDTH / 3.35e12)
    assert hardware.quick_button.isEnabled() and not hardware.cancel_button.isEnabled()


def test_a_crashing_child_is_reported_and_the_gui_stays_up(hardware, fake_probe, qtbot):
    fake_probe("crash")
    with qtbot.waitSignal(hardware.probe.failed, timeout=15_000) as failed:
        hardware.quick_button.click()
    assert "exited with code 3" in failed.args[0]
    assert "Segmentation fault" in failed.args[0]  # the child's last stderr line explains it
    assert hardware.probe_message.isVisible()
    assert hardware.results_model.rowCount() == 1  # what arrived before the crash stays on screen
    assert hardware.history_model.rowCount() == 0
    assert hardware.quick_button.isEnabled()


def test_cancel_kills_a_hanging_child(hardware, fake_probe, qtbot):
    fake_probe("hang")
    hardware.quick_button.click()
    qtbot.waitUntil(lambda: hardware.results_model.rowCount() == 1, timeout=15_000)
    assert hardware.cancel_button.isEnabled()
    with qtbot.waitSignal(hardware.probe.failed, timeout=10_000) as failed:
        hardware.cancel_button.click()
    assert failed.args[0] == "Cancelled"
    assert hardware.stage_label.text() == "Cancelled."
    assert not hardware.probe.running


def test_a_hanging_child_times_out(fake_probe, qtbot):
    fake_probe("hang")
    probe = ProbeProcess()
    with qtbot.waitSignal(probe.failed, timeout=20_000) as failed:
        probe.start("quick", timeout_s=1.5)
    assert "longer than 1 s" in failed.args[0]
    assert not probe.running


def test_garbage_output_without_a_report_is_a_failure(fake_probe, qtbot):
    fake_probe("garbage")
    probe = ProbeProcess()
    with qtbot.waitSignal(probe.failed, timeout=15_000) as failed:
        probe.start("quick")
    assert "without a report" in failed.args[0]
    assert "not JSON" in failed.args[0]


def test_an_error_event_is_shown(hardware, fake_probe, qtbot):
    fake_probe("error")
    with qtbot.waitSignal(hardware.probe.failed, timeout=15_000) as failed:
        hardware.full_button.click()
    assert "out of memory" in failed.args[0]
    assert "out of memory" in hardware.probe_message.text()


def test_a_missing_probe_program_is_reported(monkeypatch, qtbot):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", "/nonexistent/gpu-probe")
    probe = ProbeProcess()
    with qtbot.waitSignal(probe.failed, timeout=10_000) as failed:
        probe.start("quick")
    assert "could not be started" in failed.args[0]


def test_progress_and_results_signals_follow_the_contract(fake_probe, qtbot):
    probe = ProbeProcess()
    progress, results = [], []
    probe.progress.connect(lambda stage, fraction: progress.append(fraction))
    probe.result.connect(results.append)
    with qtbot.waitSignal(probe.finished, timeout=15_000) as finished:
        probe.start("full")
    assert progress == sorted(progress) and progress[-1] == 1.0
    assert [r["device"] for r in results] == ["cuda:0", "cuda:0", "cuda:1", "cuda:1"]
    assert finished.args[0]["mode"] == "full"


def test_compare_two_runs(hardware, qtbot, tmp_path):
    from desktop.examples import _A100, _H100, example_report
    from desktop.pages.hardware import CompareDialog

    for name, figures in (("h100", _H100), ("a100", _A100)):
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(example_report(figures, name)), encoding="utf-8")
        with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=5000):
            hardware.import_report(str(path))
    hardware.history_table.selectAll()
    assert hardware.compare_button.isEnabled()
    hardware.compare_button.click()
    qtbot.waitUntil(lambda: getattr(hardware, "compare_dialog", None) is not None, timeout=5000)
    dialog = hardware.compare_dialog
    assert isinstance(dialog, CompareDialog)
    rows = {
        dialog.table.item(r, 0).text(): dialog.table.item(r, 3).text() for r in range(dialog.table.rowCount())
    }
    first, second = (dialog.table.horizontalHeaderItem(c).text() for c in (1, 2))
    # the ratio is second / first; whichever order the history lists them, it is H100 vs A100 bf16: 794 / 271
    expected = 794 / 271 if first.startswith("a100") else 271 / 794
    assert rows["matmul bf16"] == f"{expected:.2f}×"
    assert second != first
