"""Probe results read right: a CPU run is compared with the CPU (no GPU's datasheet), a run that measured no GPU
figure is not offered as a measured machine, and CPU FLOPS read in a unit that is not "0.0".

Hand figures: an H100 SXM's dense bf16 peak is 989.4 TFLOPS (catalog, NVIDIA H100 datasheet), so a measured
7.1e14 FLOP/s is 71.8% of it; a CPU's 1.2e11 FLOP/s is 120 GFLOPS (0.12 TFLOPS would print as "0.1").
"""

from __future__ import annotations

import pytest

from desktop import fmt
from desktop.plan_request import hardware_sources
from desktop.qmodels.probe_history import history_row
from planner.gpus import load_catalog, match_nvml_name
from planner.store import Store
from profiler.report import ProbeReport, measurement_dict
from tests.fixtures.store_reports import STARTED, one_gpu_report_dict, report


@pytest.fixture
def store():
    with Store.open() as opened:
        yield opened


def gpu_and_cpu_report(gpu_ok: bool) -> ProbeReport:
    """One H100 whose matmul failed (or not) and the CPU, which measured 1.2e11 FLOP/s bf16."""
    gpu = [measurement_dict("matmul", dtype="bf16", value=7.1e14 if gpu_ok else None, ok=gpu_ok,
                            error=None if gpu_ok else "CUDA error", method="mamf", started_at=STARTED)]  # fmt: skip
    data = one_gpu_report_dict("rig", "NVIDIA H100 80GB HBM3", "GPU-rig-0", gpu, "2026-09-14T10:31:02Z")
    data["devices"].append({
        "device": "cpu", "name": "AMD EPYC 9654", "uuid": None, "kind": "cpu", "telemetry": [],
        "measurements": [measurement_dict("matmul", dtype="bf16", value=1.2e11, method="mamf", started_at=STARTED)],
    })  # fmt: skip
    return ProbeReport.from_dict(data)


def test_a_cpu_figure_is_never_set_against_a_gpu_datasheet(store, qapp):
    run_id = store.probe_runs.save(gpu_and_cpu_report(gpu_ok=False), source="local")
    run = store.probe_runs.get(run_id)
    row = history_row(run, match_nvml_name, store.probe_runs.measurements(run_id))
    # the GPU measured nothing: the CPU's figure is shown as the CPU's, against no spec (not 0.01% of an H100)
    assert row.spec is None and row.bf16_fraction is None
    assert row.bf16 == pytest.approx(1.2e11)
    good_id = store.probe_runs.save(gpu_and_cpu_report(gpu_ok=True), source="imported")
    good = history_row(store.probe_runs.get(good_id), match_nvml_name, store.probe_runs.measurements(good_id))
    assert good.spec is not None and good.spec.id == "h100-sxm"
    assert good.bf16_fraction == pytest.approx(7.1e14 / 989.4e12, rel=1e-3)  # the GPU's own figure


def test_an_unmeasured_gpu_is_not_listed_as_measured(store, qapp):
    store.probe_runs.save(gpu_and_cpu_report(gpu_ok=False), source="local")
    failed_only = one_gpu_report_dict("dead", "NVIDIA H100 80GB HBM3", "GPU-dead-0", [
        measurement_dict("matmul", dtype="bf16", value=None, ok=False, error="CUDA error", method="mamf",
                         started_at=STARTED)], "2026-09-14T11:00:00Z")  # fmt: skip
    store.probe_runs.save(ProbeReport.from_dict(failed_only), source="imported")
    groups = hardware_sources(load_catalog(), store)
    # the first run measured the CPU only (no GPU figure) and the second nothing: neither is a measured machine
    assert groups["local"] == [] and groups["imported"] == []
    store.probe_runs.save(report(), source="imported")  # an H100 that measured its matmul and bandwidth
    listed = hardware_sources(load_catalog(), store)["imported"]
    assert (
        len(listed) == 1 and listed[0].gpu_id == "h100-sxm" and listed[0].label.startswith("1 × H100")
    )


def test_flops_are_shown_in_a_unit_with_figures(qapp):
    from PySide6.QtCore import QLocale

    english = QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    assert fmt.flops(1.2e11, english) == "120 GFLOPS"
    assert fmt.flops(7.94e14, english) == "794.0 TFLOPS"
    assert fmt.measurement(1.2e11, "FLOP/s", english) == "120 GFLOPS"
