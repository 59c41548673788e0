"""The Plan page, driven through its widgets: three end-to-end flows, the table, the charts and the exports.

Independent expectations used here (written out, not read back from the code under test):
- QLoRA keeps a 7B base in NF4, about 4.1-4.5 bits per weight (DOMAIN.md section 2, QLoRA paper): 3.3-4.1 GiB.
- A 70B model's mixed-precision AdamW states are 16 bytes per parameter (ZeRO paper): 70.6e9 x 16 B = 1.05 TiB,
  13x an 80 GB H100, so 64 H100 only work with the states sharded (ZeRO or tensor/pipeline parallel).
- 70B bf16 weights alone are 70.6e9 x 2 B = 131 GiB: they cannot fit a 24 GB card at any layout on one GPU.
- 64 H100 SXM in 8-GPU servers (the catalog's node size, NVIDIA DGX H100) are 8 nodes x 8 GPUs.
"""

from __future__ import annotations

import json

import pytest
import yaml
from PySide6.QtCore import Qt

from desktop.context import AppContext
from desktop.pages.plan import PlanPage
from desktop.plan_state import PlanInputs
from planner.store import Store

GIB = 2**30
PLAN_TIMEOUT_MS = 20_000


@pytest.fixture
def context(qtbot):
    store = Store.open()
    ctx = AppContext(store=store)
    yield ctx
    ctx.shutdown()
    store.close()


@pytest.fixture
def page(qtbot, context):
    widget = PlanPage(context)
    qtbot.addWidget(widget)
    widget.resize(1300, 850)
    widget.show()
    qtbot.waitUntil(
        lambda: widget.state.result is not None or widget.state.error is not None, timeout=PLAN_TIMEOUT_MS
    )
    yield widget
    widget.shutdown()
    widget.state.dirty = False  # nothing to ask at teardown
    context.jobs.wait_for_done(10_000)


def choose(combo, data) -> None:
    """Pick a combo entry the way a user does (a visible index change)."""
    index = combo.findData(data)
    assert index >= 0, f"{data!r} is not offered"
    combo.setCurrentIndex(index)


def only_hardware(page, *keys) -> None:
    """Tick exactly these hardware rows in the tree."""
    tree = page.hardware
    for group in tree.groups.values():
        for index in range(group.childCount()):
            child = group.child(index)
            wanted = child.data(0, Qt.ItemDataRole.UserRole) in keys
            child.setCheckState(0, Qt.CheckState.Checked if wanted else Qt.CheckState.Unchecked)
    assert set(page.state.inputs.hardware) == set(keys)


def exactly(page, gpus: int) -> None:
    page.constraints.exact.check.setChecked(True)
    page.constraints.exact.spin.setValue(gpus)
    assert page.state.inputs.exact_gpus == gpus


def replanned(qtbot, page) -> None:
    """Wait for the plan of the latest inputs (the throttle timer fires, the search runs, the page redraws)."""
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.replan()


def table_rows(page) -> list[list[str]]:
    model = page.results.table.model()
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


def test_guided_flow_next_and_back_walks_the_five_steps(page, qtbot):
    page.set_mode("guided")
    visible = [p for p in page.panels if not p.isHidden()]
    assert visible == [page.workload]
    for step in range(1, 5):
        qtbot.mouseClick(page.next_button, Qt.MouseButton.LeftButton)
        assert [p for p in page.panels if not p.isHidden()] == [page.panels[step]]
    assert not page.next_button.isEnabled()
    qtbot.mouseClick(page.back_button, Qt.MouseButton.LeftButton)
    assert [p for p in page.panels if not p.isHidden()] == [page.constraints.__class__ and page.panels[3]]
    page.set_mode("expert")
    assert all(not p.isHidden() for p in page.panels)


def test_7b_qlora_fits_one_24gb_card(page, qtbot):
    page.set_mode("guided")
    choose(page.workload.task_combo, "qlora")
    page.go_step(1)
    qtbot.mouseClick(page.model_panel.size_radio, Qt.MouseButton.LeftButton)
    page.model_panel.size_spin.setValue(6.0)
    page.model_panel.size_spin.setValue(7.0)  # the "Size" field: 7 billion parameters
    assert page.state.inputs.model_kind == "size" and page.state.inputs.size_billions == 7.0
    page.go_step(3)
    only_hardware(page, "catalog:rtx-4090")
    exactly(page, 1)
    replanned(qtbot, page)

    rows = table_rows(page)
    assert rows, page.state.error
    best = page.state.selected_option
    assert best.gpu.id == "rtx-4090" and best.gpus == 1
    assert best.fits and rows[0][4] == "yes"
    assert best.memory.total_bytes <= best.gpu.memory_bytes
    assert "RTX 4090" in rows[0][1] and rows[0][2] == "1"

    chart = page.results.memory_chart.chart_data()
    segments = {term: size for term, _, size in chart["segments"]}
    assert 3.3 <= segments["weights"] <= 4.3  # NF4 7B base, see the module docstring
    assert chart["total_gib"] == pytest.approx(best.memory.total_bytes / GIB, rel=1e-9)
    assert chart["capacity_gib"] == pytest.approx(best.gpu.memory_bytes / GIB)
    assert chart["total_gib"] < chart["capacity_gib"]
    assert "fits" in page.results.headline.text()


def test_70b_full_training_on_64_h100_needs_sharding_and_exports(page, qtbot, tmp_path):
    page.set_mode("expert")
    choose(page.workload.task_combo, "finetune")
    choose(page.model_panel.preset_combo, "llama-3.1-70b")
    page.model_panel.preset_combo.activated.emit(page.model_panel.preset_combo.currentIndex())
    assert page.state.inputs.preset == "llama-3.1-70b"
    only_hardware(page, "catalog:h100-sxm")
    exactly(page, 64)
    replanned(qtbot, page)

    best = page.state.selected_option
    assert best is not None, page.state.error
    assert best.gpu.id == "h100-sxm" and best.gpus == 64 and best.fits
    strategy = best.strategy
    # 1.05 TiB of model states on 80 GB cards: sharded by ZeRO or split by tensor/pipeline parallelism.
    assert strategy.zero >= 1 or strategy.tp * strategy.pp > 1
    assert strategy.dp * strategy.tp * strategy.pp == 64
    assert best.memory.total_bytes <= best.gpu.memory_bytes
    # No plain data-parallel layout (every GPU holding all 1.05 TiB of states) is offered as fitting ...
    assert not [
        o
        for o in page.state.options
        if o.fits and o.strategy.zero == 0 and o.strategy.tp * o.strategy.pp == 1
    ]
    # ... and the advice says why, in words, on the page.
    shown_advice = page.results.advice.toPlainText().lower()
    assert "sharding" in shown_advice and "ddp" in shown_advice
    for item in page.state.result.excluded:
        assert item.reason in page.results.excluded.toPlainText()

    # The scaling chart gets per-strategy curves; the selected option is on one of them.
    qtbot.waitUntil(
        lambda: len(page.results.scaling_chart.chart_data()["series"]) >= 2, timeout=PLAN_TIMEOUT_MS
    )
    scaling = page.results.scaling_chart.chart_data()
    family, count = scaling["selected"]
    assert count == 64 and family in scaling["series"]
    line = scaling["series"][family]
    assert 64 in line["gpus"]
    # More GPUs never make the best time of a family slower by much (communication may flatten the curve).
    times = dict(zip(line["gpus"], line["time_s"], strict=False))
    assert min(times.values()) <= times[min(times)]

    files = page.export_to(tmp_path)
    assert sorted(p.name for p in files) == sorted(
        ["report.md", "report.pdf", "ds_config.json", "accelerate_config.yaml", "launch.sh", "options.csv"]
    )
    ds = json.loads((tmp_path / "ds_config.json").read_text())
    assert ds["zero_optimization"]["stage"] == strategy.zero
    assert ds["train_batch_size"] == (
        ds["train_micro_batch_size_per_gpu"] * ds["gradient_accumulation_steps"] * strategy.dp
    )
    accelerate = yaml.safe_load((tmp_path / "accelerate_config.yaml").read_text())
    assert accelerate["num_processes"] == 64 and accelerate["num_machines"] == 8
    assert "--nnodes=8 --nproc-per-node=8" in (tmp_path / "launch.sh").read_text()
    report = (tmp_path / "report.md").read_text()
    assert "![" in report and (tmp_path / "chart-1.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF-1.")
    assert "/Subtype /Image" in (tmp_path / "report.pdf").read_bytes().decode("latin-1")


def test_70b_bf16_inference_does_not_fit_one_24gb_card(page, qtbot):
    choose(page.workload.task_combo, "inference")
    choose(page.workload.precision_combo, "bf16")
    choose(page.model_panel.preset_combo, "llama-3.1-70b")
    page.model_panel.preset_combo.activated.emit(page.model_panel.preset_combo.currentIndex())
    only_hardware(page, "catalog:rtx-4090")
    exactly(page, 1)
    replanned(qtbot, page)

    fitting = [o for o in page.state.options if o.fits]
    assert not fitting  # 131 GiB of bf16 weights against 24 GB
    advice = " ".join(page.state.result.advice).lower() if page.state.result else page.state.error.lower()
    assert any(word in advice for word in ("int4", "offload", "more gpus")), advice
    shown = page.results.advice.toPlainText().lower() + page.results.headline.text().lower()
    assert "int4" in shown or "offload" in shown or "gpus" in shown
    headline = page.results.headline.text()
    assert "fit" in headline.lower()


def test_slider_drag_is_throttled_into_few_plans(page, qtbot):
    page.set_mode("expert")
    plans = []
    page.planned.connect(lambda: plans.append(page.state.inputs.size_billions))
    slider = page.model_panel.size_slider
    for position in range(slider.value(), slider.value() + 40):
        slider.setValue(position)  # 40 events in one burst, as a fast drag delivers them
    qtbot.waitUntil(
        lambda: bool(plans) and plans[-1] == page.state.inputs.size_billions, timeout=PLAN_TIMEOUT_MS
    )
    assert page.state.inputs.model_kind == "size"
    assert len(plans) < 10  # coalesced, not one search per pixel
    assert page.model_panel.size_spin.value() == page.state.inputs.size_billions


def test_selecting_a_row_redraws_the_memory_bar(page, qtbot):
    page.state.replace_inputs(PlanInputs(task="finetune", preset="llama-3.1-8b",
                                         hardware=("catalog:h100-sxm", "catalog:a100-sxm-80gb"), max_gpus=16),
                              dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    assert page.results.table.model().rowCount() >= 2
    page.results.table.selectRow(1)
    chosen = page.state.options[1]
    assert page.state.selected == 1
    assert page.results.memory_chart.chart_data()["total_gib"] == pytest.approx(
        chosen.memory.total_bytes / GIB
    )
    assert page.context.plan_option is chosen


def test_unknown_model_file_is_an_error_in_place_not_a_crash(page, qtbot, tmp_path):
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    page.model_panel._set_path(str(bad))
    replanned(qtbot, page)
    assert page.state.error
    assert page.error_label.isVisibleTo(page)
    assert page.results.table.model().rowCount() == 0


def test_options_model_passes_qt_model_tester(page, qtmodeltester):
    qtmodeltester.check(page.results.model)


def test_retranslate_keeps_state(page):
    before = page.state.inputs
    page.retranslate()
    assert page.state.inputs == before
    assert page.title() == "Plan"
