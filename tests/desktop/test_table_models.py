"""Every table model of the desktop passes pytest-qt's qtmodeltester (Qt's QAbstractItemModelTester)."""

from __future__ import annotations

import pytest

from desktop.qmodels.gpu_inventory import GpuInventoryModel
from desktop.qmodels.probe_history import ProbeHistoryModel, history_row
from desktop.qmodels.probe_results import ProbeResultsModel, ResultRow, spec_value
from desktop.qmodels.quotes import QuoteKind, QuoteTableModel


@pytest.mark.parametrize("scenario", ["none", "consumer", "h100x8", "mig", "lost", "nolib"])
def test_gpu_inventory_model(qtmodeltester, scenario):
    from profiler.fake_nvml import FakeNvml
    from profiler.nvml_inventory import read_inventory

    model = GpuInventoryModel()
    model.set_inventory(read_inventory(FakeNvml(scenario)))
    qtmodeltester.check(model)
    assert (
        model.rowCount() == {"none": 1, "nolib": 1, "consumer": 1, "h100x8": 8, "mig": 1, "lost": 2}[scenario]
    )


def test_probe_results_model(qtmodeltester):
    from planner.gpus import get_gpu
    from tests.desktop.fake_probe import report

    model = ProbeResultsModel()
    spec = get_gpu("h100-sxm")
    for device in report("quick")["devices"]:
        for measurement in device["measurements"]:
            model.add(ResultRow(device["device"], device["name"], measurement, spec_value(spec, measurement)))
    failed = {
        "kind": "matmul",
        "dtype": "fp8",
        "value": None,
        "unit": "FLOP/s",
        "ok": False,
        "error": "no fp8",
    }
    model.add(ResultRow("cuda:0", "H100", failed, spec_value(spec, failed)))
    qtmodeltester.check(model)
    assert model.rowCount() == 5


def test_spec_values_follow_the_catalog_units():
    from planner.gpus import get_gpu

    h100 = get_gpu("h100-sxm")
    assert spec_value(h100, {"kind": "matmul", "dtype": "bf16"}) == pytest.approx(989.4e12)
    assert spec_value(h100, {"kind": "memory_bandwidth"}) == pytest.approx(3.35e12)
    # PCIe Gen5 x16: 128 GB/s both directions together (PCI-SIG), 64 GB/s for a one-way host copy
    assert spec_value(h100, {"kind": "h2d_bandwidth"}) == pytest.approx(64e9)
    assert spec_value(h100, {"kind": "p2p_bandwidth"}) is None
    assert spec_value(None, {"kind": "matmul", "dtype": "bf16"}) is None


def test_probe_history_model(qtmodeltester):
    from planner.gpus import match_nvml_name
    from planner.store import ProbeRun

    runs = [
        ProbeRun(id=1, machine="a", machine_id=1, hostname="a", source="local", mode="quick",
                 created_at="2026-09-01T10:00:00Z", saved_at="2026-09-01T10:05:00Z", label=None,
                 devices=("NVIDIA H100 80GB HBM3",) * 8, best_bf16_flop_per_s=794e12,
                 memory_bandwidth_bytes_per_s=2.9e12),
        ProbeRun(id=2, machine="b", machine_id=2, hostname="b", source="imported", mode="full",
                 created_at="2026-09-02T10:00:00Z", saved_at="2026-09-02T10:05:00Z", label="laptop",
                 devices=("cpu",), best_bf16_flop_per_s=None, memory_bandwidth_bytes_per_s=3e10),
    ]  # fmt: skip
    model = ProbeHistoryModel()
    model.set_rows([history_row(run, match_nvml_name) for run in runs])
    qtmodeltester.check(model)
    # 794 of 989.4 dense bf16 TFLOPS = 80 %
    assert model.index(0, 8).data() == "80%"
    assert model.index(1, 8).data() == "—"  # a CPU has no catalog spec
    assert model.index(0, 3).data() == "8 × NVIDIA H100 80GB HBM3"


@pytest.mark.parametrize("kind", ["rental", "purchase"])
def test_quote_models(qtmodeltester, kind, tmp_path):
    from planner.store import Store

    store = Store.open(tmp_path / "q.sqlite")
    model = QuoteTableModel(QuoteKind(kind, store))
    model.reload()
    assert model.rowCount() > 0  # the reference prices shipped with the app
    qtmodeltester.check(model)
    store.close()


def test_the_quote_table_shows_a_providers_control_characters_as_pictures(qapp, tmp_path):
    """issue 30 item 1: an ESC in a provider is visible (␛), not swallowed."""
    from planner.cli import main
    from planner.store import Store

    store = Store.open(tmp_path / "q.sqlite")
    assert main(["--db", str(tmp_path / "q.sqlite"), "quotes", "add", "--provider", "Evil\x1b[2J", "--gpu",
                 "h100-sxm", "--price", "2.5", "--quoted-on", "2026-09-10"]) == 0  # fmt: skip
    model = QuoteTableModel(QuoteKind("rental", store))
    model.reload()
    shown = {model.index(row, col).data() for row in range(model.rowCount()) for col in range(model.columnCount())}
    assert "Evil\u241b[2J" in shown
    store.close()
