"""Run probe from the Hardware page with a fake probe child: success, crash, hang (cancel, timeout), garbage,
an error event. The GUI stays up and says what happened; a finished run lands in the history."""

from __future__ import annotations

import json
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PySide6.QtCore import Qt

from desktop.workers import ProbeProcess, ProbeTimers
from profiler.collectives import has_exited
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
    from desktop.examples import A100_FIGURES, H100_FIGURES, example_report
    from desktop.pages.probe_compare import CompareDialog

    for name, figures in (("h100", H100_FIGURES), ("a100", A100_FIGURES)):
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


# ---------------------------------------------------------------------------------------------------------------
# Issue 19 item 2: a finished report is kept; a stalled or unkillable child never leaves the buttons disabled
# ---------------------------------------------------------------------------------------------------------------

SHORT = ProbeTimers(stall_s=3.0, terminate_grace_s=0.5, abandon_grace_s=1.0)


def test_a_report_sent_before_the_child_aborts_is_kept_with_a_warning(hardware, fake_probe, qtbot):
    fake_probe("done-then-abort")
    warnings = []
    hardware.probe.warning.connect(warnings.append)
    with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=15_000):
        hardware.quick_button.click()
    assert hardware.history_model.rowCount() == 1  # the report was saved
    (warning,) = warnings
    assert warning.startswith("The probe sent its finished report, then crashed")
    assert "CUDA error: an illegal memory access was encountered" in warning  # the child's last stderr line
    assert warning in hardware.probe_message.text() and hardware.probe_message.isVisible()
    assert hardware.quick_button.isEnabled() and not hardware.cancel_button.isEnabled()


def test_a_child_that_stops_reporting_progress_is_stopped(fake_probe, qtbot):
    fake_probe("stall")
    probe = ProbeProcess(timers=SHORT)
    with qtbot.waitSignal(probe.failed, timeout=30_000) as failed:
        probe.start("quick")
    assert "made no progress for 3 s" in failed.args[0] and "was stopped" in failed.args[0]
    assert not probe.running


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_cancel_kills_a_child_that_ignores_sigterm_after_the_grace_period(fake_probe, qtbot):
    fake_probe("ignore-term")
    probe = ProbeProcess(timers=SHORT)
    with qtbot.waitSignal(probe.progress, timeout=15_000):  # the child ignores SIGTERM from here on
        probe.start("quick")
    pid = probe._process.processId()
    with qtbot.waitSignal(probe.failed, timeout=10_000) as failed:
        probe.cancel()
    assert failed.args[0] == "Cancelled" and not probe.running
    qtbot.waitUntil(lambda: has_exited(pid), timeout=5000)


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM is a POSIX signal")
def test_a_child_stuck_in_the_driver_is_given_up_on_and_the_buttons_come_back(hardware, fake_probe, qtbot,
                                                                               monkeypatch):  # fmt: skip
    """A process in uninterruptible sleep inside the driver outlives SIGKILL. The kernel is simulated by a kill
    that has no effect (and the child ignores SIGTERM itself); everything else is the real run."""
    fake_probe("ignore-term")
    hardware.probe.timers = SHORT
    monkeypatch.setattr(hardware.probe, "_kill_child", lambda: None)
    with qtbot.waitSignal(hardware.probe.progress, timeout=15_000):
        hardware.quick_button.click()
    assert not hardware.quick_button.isEnabled()
    with qtbot.waitSignal(hardware.probe.failed, timeout=10_000) as failed:
        hardware.cancel_button.click()
    assert failed.args[0].startswith("Cancelled The probe process (pid ")
    assert "did not exit when it was killed; it may be stuck in the GPU driver" in failed.args[0]
    assert hardware.quick_button.isEnabled() and hardware.full_button.isEnabled()
    (stuck,) = hardware.probe._abandoned
    stuck.kill()  # the test's own cleanup: the simulated driver lets go
    assert stuck.waitForFinished(5000)


# ---------------------------------------------------------------------------------------------------------------
# Issue 14 items 2 and 7: the GUI survives any child output; bursts and long lines cost linear time
# ---------------------------------------------------------------------------------------------------------------


def _cells(model) -> None:
    """Every cell in every role the views ask for, as a view would."""
    from desktop.qmodels.base import SORT_ROLE

    roles = (
        Qt.ItemDataRole.DisplayRole,
        Qt.ItemDataRole.ToolTipRole,
        SORT_ROLE,
        Qt.ItemDataRole.TextAlignmentRole,
    )
    for row in range(model.rowCount()):
        for column in range(model.columnCount()):
            for role in roles:
                model.data(model.index(row, column), role)


@pytest.mark.parametrize(
    ("variant", "outcome", "message"),
    [
        ("bad-value", "finished", "measurement.value: expected a finite number, got str"),
        ("deep", "finished", "nested too deeply"),
        ("devices5", "finished", "start event: devices: expected a list, got int"),
        ("garbage-file", "failed", "the report file: "),
    ],
)
def test_hostile_child_output_is_refused_with_a_message_and_the_window_survives(
    hardware, fake_probe, qtbot, variant, outcome, message
):
    fake_probe(variant)
    signal = hardware.probe.finished if outcome == "finished" else hardware.probe.failed
    with qtbot.waitSignal(signal, timeout=20_000):
        hardware.quick_button.click()
    qtbot.waitUntil(hardware.quick_button.isEnabled, timeout=10_000)
    assert message in hardware.probe_message.text()
    assert hardware.results_model.errors == 0
    _cells(hardware.results_table.model())  # through the sort proxy, as the view does
    for column in range(hardware.results_model.columnCount()):
        hardware.results_table.sortByColumn(column, Qt.SortOrder.DescendingOrder)
    assert hardware.results_model.errors == 0
    assert all(row.measurement["value"] == BF16 for row in hardware.results_model.rows)  # only valid rows


@pytest.mark.slow
def test_a_70_mb_line_is_refused_unread_and_the_run_goes_on(hardware, fake_probe, qtbot):
    fake_probe("huge-line")
    with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=60_000):
        hardware.quick_button.click()
    assert "a line of 73,400," in hardware.probe_message.text()  # 70 MiB and its JSON: counted, never joined
    assert "(over the limit; not read)" in hardware.probe_message.text()


def test_the_line_reader_never_holds_more_than_its_limit():
    from desktop.workers import LineReader

    reader = LineReader(limit=1000)
    assert reader.feed(b"x" * 600) == [] and reader._parts == [b"x" * 600]
    for _ in range(9):
        assert reader.feed(b"x" * 600) == []
        assert reader._parts == []  # over the limit: dropped as it streams in, not kept to be joined
    assert reader.feed(b"y\nnext line\npartial") == [6001, b"next line"]
    assert reader.flush() == [b"partial"] and reader.flush() == []


def test_a_burst_of_128_results_is_one_insertion_one_redraw_and_one_column_fit(hardware, qtbot, monkeypatch):
    from tests.desktop.fake_probe import BURST, report

    counts = {"inserted": 0, "redraws": 0, "fits": 0}
    hardware.results_model.rowsInserted.connect(
        lambda *_: counts.__setitem__("inserted", counts["inserted"] + 1)
    )
    chart_redraw, fit = hardware.probe_chart._redraw, hardware.results_table.resizeColumnsToContents
    monkeypatch.setattr(
        hardware.probe_chart,
        "_redraw",
        lambda: (counts.__setitem__("redraws", counts["redraws"] + 1), chart_redraw()),
    )
    monkeypatch.setattr(
        hardware.results_table,
        "resizeColumnsToContents",
        lambda: (counts.__setitem__("fits", counts["fits"] + 1), fit()),
    )
    monkeypatch.setattr(
        hardware.probe, "start", hardware.probe.begin
    )  # the page's own start, without a child
    hardware.quick_button.click()
    counts.update(inserted=0, redraws=0, fits=0)  # starting a run clears the table and the chart once
    data = report("quick")
    measurement = data["devices"][0]["measurements"][0]
    lines = [json.dumps({"event": "result", "device": "cuda:0", "measurement": measurement})] * BURST
    hardware.probe.feed_stdout(("\n".join(lines) + "\n").encode())
    qtbot.waitUntil(lambda: hardware.results_model.rowCount() == BURST, timeout=5000)
    # not 128 of each: linear in the burst. The chart may redraw once more when the results panel's layout
    # resizes it (its labels' room depends on its width), never once per result.
    assert counts["inserted"] == 1 and counts["fits"] == 1 and counts["redraws"] <= 2, counts
    assert len(hardware.probe_chart.items) == BURST
    hardware.probe.end_of_output(1, False)  # no report: the run fails and the page is ready again
    assert hardware.quick_button.isEnabled()


def test_a_real_burst_from_the_child_arrives_whole(hardware, fake_probe, qtbot):
    from tests.desktop.fake_probe import BURST

    fake_probe("burst")
    batches = []
    hardware.probe.results.connect(batches.append)
    with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=20_000):
        hardware.quick_button.click()
    assert hardware.results_model.rowCount() == BURST == sum(len(batch) for batch in batches)
    assert len(batches) < BURST  # read and emitted in batches, never one signal per line only


# ---------------------------------------------------------------------------------------------------------------
# The property: whatever the child prints, the GUI process survives, and a refused line is said
# ---------------------------------------------------------------------------------------------------------------

_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(10**40), max_value=10**40)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=30)
)
_JSON = st.recursive(
    _SCALARS, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=10,
)  # fmt: skip
_FIELDS = (
    "kind",
    "dtype",
    "peer",
    "value",
    "unit",
    "ok",
    "error",
    "method",
    "started_at",
    "duration_s",
    "details",
)


def _valid_events():
    from tests.desktop.fake_probe import report

    data = report("quick")
    measurement = data["devices"][0]["measurements"][0]
    return data, [
        {"event": "start", "devices": ["cuda:0", "cuda:1"], "mode": "quick"},
        {"event": "progress", "stage": "cuda:0 matmul bf16", "fraction": 0.5, "device": "cuda:0"},
        {"event": "result", "device": "cuda:0", "measurement": measurement},
        {"event": "error", "message": "CUDA error: out of memory"},
    ]


@st.composite
def _hostile_line(draw) -> bytes:
    """One line a broken or hostile child could print."""
    data, events = _valid_events()
    kind = draw(
        st.sampled_from(["mutated", "field", "report", "garbage", "bytes", "deep", "constant", "digits"])
    )
    if kind == "mutated":  # a valid event with one top-level field replaced by any JSON value
        event = dict(draw(st.sampled_from(events)))
        event[draw(st.sampled_from(sorted(event)))] = draw(_JSON)
        return json.dumps(event).encode()
    if kind == "field":  # a result whose measurement has one field replaced
        measurement = dict(events[2]["measurement"])
        measurement[draw(st.sampled_from(_FIELDS))] = draw(_JSON)
        return json.dumps({"event": "result", "device": "cuda:0", "measurement": measurement}).encode()
    if kind == "report":  # a done event whose report has one top-level field replaced
        broken = dict(data)
        broken[draw(st.sampled_from(sorted(broken)))] = draw(_JSON)
        return json.dumps({"event": "done", "report": broken}).encode()
    if kind == "garbage":
        return draw(st.text(max_size=80)).replace("\n", " ").encode("utf-8", "surrogatepass")
    if kind == "bytes":
        return draw(st.binary(max_size=80)).replace(b"\n", b" ")
    if kind == "deep":
        depth = draw(st.integers(min_value=1, max_value=20_000))
        return b'{"event": "result", "device": "cuda:0", "measurement": ' + b"[" * depth + b"]" * depth + b"}"
    if kind == "constant":
        constant = draw(st.sampled_from(["NaN", "Infinity", "-Infinity", "1e999"]))
        return ('{"event": "progress", "stage": "s", "fraction": ' + constant + "}").encode()
    digits = draw(st.integers(min_value=4000, max_value=6000))
    return b'{"event": "progress", "stage": "s", "fraction": 1' + b"0" * digits + b"}"


@st.composite
def _child_output(draw) -> tuple[list[bytes], list[bytes], bool, int]:
    """(all lines, the hostile ones, whether a valid done event is among them, exit code)."""
    data, events = _valid_events()
    lines = [json.dumps(events[0]).encode()]
    hostile = draw(st.lists(_hostile_line(), max_size=6))
    for line in hostile:
        lines.insert(draw(st.integers(min_value=0, max_value=len(lines))), line)
    lines.append(json.dumps(events[2]).encode())
    done = draw(st.booleans())
    if done:
        lines.append(json.dumps({"event": "done", "report": data}).encode())
    return lines, hostile, done, draw(st.sampled_from([0, 0, 1, -6]))


@pytest.mark.slow
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])  # fmt: skip
@given(output=_child_output(), cuts=st.lists(st.integers(min_value=0, max_value=10**6), max_size=8))
def test_the_gui_survives_every_child_output_and_says_what_it_refused(
    hardware, qtbot, monkeypatch, output, cuts
):
    """Generated child outputs, split into arbitrary reads, through the real ProbeProcess parsing and the real
    Hardware page models: no exception anywhere (pytest-qt fails the test on one inside a Qt slot or virtual),
    exactly one end, and every line the validator refused is said on the page."""
    from profiler import protocol

    lines, hostile, done, exit_code = output
    monkeypatch.setattr(
        hardware.probe, "start", hardware.probe.begin
    )  # the page's own start, without a child
    monkeypatch.setattr("desktop.pages.hardware._save_report", lambda store, report, source: 1)
    ends = []
    hardware.probe.finished.connect(lambda report: ends.append("finished"))
    hardware.probe.failed.connect(lambda message: ends.append(message))
    hardware.quick_button.click()
    stream = b"\n".join(lines) + b"\n"
    points = sorted({cut % (len(stream) + 1) for cut in cuts} | {0, len(stream)})
    for start, end in zip(points, points[1:], strict=False):
        hardware.probe.feed_stdout(stream[start:end])
    hardware.probe.end_of_output(exit_code, exit_code < 0)
    hardware._flush_results()
    qtbot.waitUntil(hardware.quick_button.isEnabled, timeout=5000)  # the run ended: Quick/Full are back
    assert len(ends) == 1
    refused = []
    for line in hostile:
        try:
            protocol.parse_line(line)
        except protocol.NotAnEvent:
            continue
        except protocol.ProtocolError:
            refused.append(line)
    if refused or ends[0] != "finished":
        assert hardware.probe_message.text().strip()  # said on the page, not only logged
    _cells(hardware.results_table.model())
    hardware.results_table.sortByColumn(2, Qt.SortOrder.AscendingOrder)
    assert hardware.results_model.errors == 0
    hardware.probe.finished.disconnect()
    hardware.probe.failed.disconnect()
    hardware.probe.finished.connect(hardware._on_probe_finished)
    hardware.probe.failed.connect(hardware._on_probe_failed)


def test_a_mig_slice_is_compared_with_its_share_of_the_gpu_spec():
    from types import SimpleNamespace

    from desktop.qmodels.probe_results import spec_value

    # A100 SXM4 80GB: 312 dense bf16 TFLOPS, 2,039 GB/s (NVIDIA A100 datasheet); a 3g.40gb slice has 3 of the 7
    # compute slices and 40,192 of the 81,920 MiB.
    a100 = SimpleNamespace(tflops={"bf16": 312.0}, memory_bandwidth_bytes_per_s=2.039e12)
    mig = {"compute_fraction": 3 / 7, "memory_fraction": 40192 / 81920}
    matmul = {"kind": "matmul", "dtype": "bf16"}
    assert spec_value(a100, matmul, mig) == pytest.approx(312e12 * 3 / 7)
    assert spec_value(a100, {"kind": "memory_bandwidth"}, mig) == pytest.approx(2.039e12 * 40192 / 81920)
    assert spec_value(a100, matmul) == pytest.approx(312e12)  # a whole GPU
    assert spec_value(a100, matmul, {"compute_fraction": 7.0}) == pytest.approx(312e12)  # nonsense is ignored


def test_a_gpu_that_was_busy_when_measured_is_said_on_the_page(hardware, qtbot, monkeypatch):
    from tests.desktop.fake_probe import report

    data = report("quick")
    data["devices"][0]["activity"] = {"busy": True, "utilization_pct": 97.0,
                                      "reason": "1 other compute process(es): pid 4242; utilisation 97 %"}  # fmt: skip
    monkeypatch.setattr(hardware.probe, "start", hardware.probe.begin)
    hardware.quick_button.click()
    with qtbot.waitSignal(hardware.context.probe_runs_changed, timeout=10_000):
        hardware.probe.feed_stdout(json.dumps({"event": "done", "report": data}).encode() + b"\n")
        hardware.probe.end_of_output(0, False)
    assert (
        "cuda:0 was busy when it was measured (1 other compute process(es): pid 4242; utilisation 97 %)"
        in (hardware.probe_message.text())
    )
