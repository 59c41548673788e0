"""The Plan page, driven through its widgets: three end-to-end flows, the table, the charts and the exports.

Independent expectations used here (written out, not read back from the code under test):
- QLoRA keeps a 7B base in NF4, about 4.1-4.5 bits per weight (QLoRA paper, arXiv 2305.14314): 3.3-4.1 GiB.
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

from desktop.plan_state import PlanInputs
from planner.errors import UserError

GIB = 2**30
EXPORT_NAMES = (
    "report.md",
    "report.pdf",
    "ds_config.json",
    "accelerate_config.yaml",
    "launch.sh",
    "options.csv",
)
PLAN_TIMEOUT_MS = 20_000


@pytest.fixture
def page(open_plan_page):
    return open_plan_page(size=(1300, 850))


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


def cell(page, row: int, key: str) -> str:
    """The text a user reads in the options table, by column key ("fits", "option", "cost", "ttft", ...)."""
    model = page.results.table.model()
    column = model.column_of(key)
    assert column >= 0, f"no {key!r} column"
    return model.index(row, column).data()


def table_rows(page) -> list[list[str]]:
    model = page.results.table.model()
    return [[model.index(r, c).data() for c in range(model.columnCount())] for r in range(model.rowCount())]


def visible_panels(page) -> list:
    return [p for p in page.panels if not p.isHidden()]


def press_alt(qtbot, page, key, until) -> None:
    """Alt+key as a keyboard user types it; a button's mnemonic clicks it after its short press animation."""
    qtbot.keyClick(page, key, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(until, timeout=2000)


def test_guided_flow_walks_five_questions_by_keyboard_then_opens_the_advice(page, qtbot):
    from PySide6.QtWidgets import QApplication

    page.set_mode("guided")
    page.activateWindow()
    qtbot.waitActive(page)
    assert visible_panels(page) == [page.workload]
    assert page.step_prompt.isVisibleTo(page) and "Step 1 of 5" in page.step_prompt.text()
    for step in range(1, 5):
        press_alt(
            qtbot, page, Qt.Key.Key_N, lambda s=step: visible_panels(page) == [page.panels[s]]
        )  # "&Next >"
        assert f"Step {step + 1} of 5" in page.step_prompt.text()
        # A keyboard user lands in the new question's first field, not on the button.
        assert page.panels[step].isAncestorOf(QApplication.focusWidget())
    # The last question's Next leads to the results: the advice tab, with the options table focused.
    page.results.tabs.setCurrentIndex(1)
    assert "advice" in page.next_button.text().lower() and page.next_button.isEnabled()
    press_alt(qtbot, page, Qt.Key.Key_A, lambda: page.results.tabs.currentIndex() == 0)  # "See the &advice"
    assert QApplication.focusWidget() is page.results.table
    press_alt(qtbot, page, Qt.Key.Key_B, lambda: visible_panels(page) == [page.panels[3]])  # "< &Back"
    qtbot.mouseClick(page.back_button, Qt.MouseButton.LeftButton)
    assert visible_panels(page) == [page.panels[2]]
    page.set_mode("expert")
    assert visible_panels(page) == page.panels and not page.step_prompt.isVisibleTo(page)


def test_guided_and_expert_modes_edit_the_one_plan_state(page):
    page.set_mode("guided")
    page.go_step(2)
    page.shape.batch_spin.setValue(48)  # answered in the guided flow ...
    page.set_mode("expert")
    assert page.state.inputs.global_batch == 48 and page.shape.batch_spin.value() == 48  # ... seen in expert
    page.constraints.max_spin.setValue(24)  # changed on the expert page ...
    page.set_mode("guided")
    page.go_step(4)
    assert (
        page.state.inputs.max_gpus == 24 and page.constraints.max_spin.value() == 24
    )  # ... seen when guided


def test_7b_qlora_fits_one_24gb_card(page, qtbot, tmp_path):
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
    assert best.fits  # every ranked option fits: the headline says so, the table lists only those
    assert best.memory.total_bytes <= best.gpu.memory_bytes
    assert cell(page, 0, "option") == "1 × GeForce RTX 4090"  # count × GPU, vendor prefix dropped

    chart = page.results.memory_chart.chart_data()
    segments = {term: size for term, _, size in chart["segments"]}
    assert 3.3 <= segments["weights"] <= 4.3  # NF4 7B base, see the module docstring
    assert chart["total_gib"] == pytest.approx(best.memory.total_bytes / GIB, rel=1e-9)
    assert chart["capacity_gib"] == pytest.approx(best.gpu.memory_bytes / GIB)
    assert chart["total_gib"] < chart["capacity_gib"]
    assert "fits" in page.results.headline.text()

    # One GPU: no sharding to configure, a single process to launch.
    files = page.export_to(tmp_path)
    assert {p.name for p in files} >= set(EXPORT_NAMES)
    ds = json.loads((tmp_path / "ds_config.json").read_text())
    assert ds["zero_optimization"]["stage"] == 0
    # train_batch_size = micro-batch x accumulation x 1 data-parallel rank = the global batch (32 sequences)
    assert ds["train_batch_size"] == page.state.inputs.global_batch == 32
    accelerate = yaml.safe_load((tmp_path / "accelerate_config.yaml").read_text())
    assert (accelerate["distributed_type"], accelerate["num_processes"]) == ("NO", 1)
    assert "--nnodes=1 --nproc-per-node=1" in (tmp_path / "launch.sh").read_text()
    report = (tmp_path / "report.md").read_text()
    assert "GeForce RTX 4090" in report and "qlora" in report


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
    strategy = best.layout
    # 1.05 TiB of model states on 80 GB cards: sharded by ZeRO or split by tensor/pipeline parallelism.
    assert strategy.zero >= 1 or strategy.tp * strategy.pp > 1
    assert strategy.dp * strategy.tp * strategy.pp == 64
    assert best.memory.total_bytes <= best.gpu.memory_bytes
    # No plain data-parallel layout (every GPU holding all 1.05 TiB of states) is offered as fitting ...
    assert not [
        o for o in page.state.options if o.fits and o.layout.zero == 0 and o.layout.tp * o.layout.pp == 1
    ]
    # ... and the advice says why, in words, on the page.
    shown_advice = page.results.advice.toPlainText().lower()
    assert "sharding" in shown_advice and "ddp" in shown_advice
    from desktop.messages import excluded_rows  # the planner's messages in the interface language

    for what, why in excluded_rows(page.state.result.excluded):
        assert f"{what}: {why}" in page.results.excluded.toPlainText()

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
    names = {p.name for p in files}
    # launch files depend on what runs the layout (planner.exports.manifest); the report says why one is missing
    assert {"report.md", "report.pdf", "launch.sh", "options.csv"} <= names
    if "ds_config.json" in names:
        ds = json.loads((tmp_path / "ds_config.json").read_text())
        assert ds["zero_optimization"]["stage"] == strategy.zero
        assert ds["train_micro_batch_size_per_gpu"] == strategy.micro_batch
    if "accelerate_config.yaml" in names:
        accelerate = yaml.safe_load((tmp_path / "accelerate_config.yaml").read_text())
        assert accelerate["num_processes"] == 64 and accelerate["num_machines"] == 8
    assert "--nnodes=8 --nproc-per-node=8" in (tmp_path / "launch.sh").read_text()
    report = (tmp_path / "report.md").read_text()
    assert "![" in report and (tmp_path / "chart-1.png").read_bytes().startswith(b"\x89PNG")
    assert (tmp_path / "report.pdf").read_bytes().startswith(b"%PDF-1.")
    assert "/Subtype /Image" in (tmp_path / "report.pdf").read_bytes().decode("latin-1")


def test_70b_bf16_inference_does_not_fit_one_24gb_card(page, qtbot, tmp_path):
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
    # Serving columns: latency and throughput instead of a run's time and cost.
    model = page.results.table.model()
    assert model.column_of("ttft") >= 0 and model.column_of("tpot") >= 0 and model.column_of("cost") == -1
    # Nothing to launch: exporting is refused in words, not with configs for a layout that runs out of memory.
    assert not page.export_button.isEnabled()
    with pytest.raises(UserError, match="fits"):
        page.export_to(tmp_path)


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
    assert "No plan yet." in page.results.headline.text() and page.state.error in page.results.headline.text()
    assert page.results.table.model().rowCount() == 0


def test_options_model_passes_qt_model_tester(page, qtmodeltester):
    qtmodeltester.check(page.results.model)


def test_retranslate_keeps_state(page):
    before = page.state.inputs
    page.retranslate()
    assert page.state.inputs == before
    assert page.title() == "Plan"


def serve(page, qtbot, tokens_per_second: float, users: int = 8) -> None:
    page.shape.tps_spin.setValue(tokens_per_second)
    page.shape.users_spin.setValue(users)
    replanned(qtbot, page)


def test_serving_target_speed_and_users_drive_the_gpu_count(page, qtbot):
    # Llama 3.1 8B in bf16 on H100 SXM. Hand roofline: decoding reads the 16 GB of weights once per step;
    # at 80% of 3.35 TB/s that is about 6 ms per step, so one GPU decoding 8 users gives roughly 1,300 tokens/s:
    # one GPU serves a 200 tokens/s target, while 20,000 tokens/s needs many replicas.
    choose(page.workload.task_combo, "inference")
    assert page.state.inputs.rank_by == "cost"  # serving ranks by the fewest GPU-hours per token
    assert page.constraints.rank_combo.currentData() == "cost"
    choose(page.model_panel.preset_combo, "llama-3.1-8b")
    page.model_panel.preset_combo.activated.emit(page.model_panel.preset_combo.currentIndex())
    only_hardware(page, "catalog:h100-sxm")
    serve(page, qtbot, 200)
    small = page.state.selected_option
    assert small.fits and small.gpus == 1 and small.tokens_per_s >= 200
    assert 0 < small.ttft_s < 5 and 0.002 < small.tpot_s < 0.02  # about 6 ms per token, see above
    assert cell(page, 0, "ttft").endswith("ms") and cell(page, 0, "tpot").endswith("ms")
    figure, band = cell(page, 0, "tokens_per_s").split("\n")  # the figure over its error band
    assert int(figure.replace(",", "")) == round(small.tokens_per_s) and band.endswith("%")
    assert "first token" in page.results.headline.text()

    # 8 users cannot read 20,000 tokens/s: each reads one token per TPOT, so even one user per replica at
    # about 5 ms per token gives 8 / 0.005 = 1,600 tokens/s. The best try says it misses the target.
    serve(page, qtbot, 20_000)
    short = page.state.selected_option
    assert short.fits and short.tokens_per_s <= 8 / short.tpot_s * (1 + 1e-9) < 20_000
    (missed,) = [note for note in short.note_messages if note.code == "option.misses_targets"]
    assert "option.misses_target" in [part.code for part in missed.params["missed"]]
    serve(page, qtbot, 20_000, users=512)  # 512 users can: the replicas share them out
    many = page.state.selected_option
    assert many.fits and many.gpus > small.gpus and many.tokens_per_s >= 20_000
    assert many.layout.dp * many.batch_per_replica >= 512 > many.layout.dp * (many.batch_per_replica - 1)

    choose(page.workload.task_combo, "finetune")  # back to training: ranked by time again
    assert page.state.inputs.rank_by == "time"


def test_a_quoted_offer_prices_the_plan_at_that_quote(page, context, qtbot):
    aws = next(q for q in context.store.rental_quotes.find(gpu="h100-sxm") if q["provider"] == "AWS")
    assert (
        aws["price_per_gpu_hour"] == 6.88
    )  # reference quote: AWS p5.4xlarge us-east-1, 2026-09 (docs/sources.md)
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=(f"quote:{aws['id']}",),
                                         exact_gpus=8), dirty=False)  # fmt: skip
    page.sync_widgets()
    assert page.hardware.item_for(f"quote:{aws['id']}").checkState(0) == Qt.CheckState.Checked
    replanned(qtbot, page)
    option = page.state.selected_option
    assert option.gpu.id == "h100-sxm"
    # cost = GPU-hours x the quoted $6.88, not the median of the reference quotes ($3.49)
    assert option.cost.amount == pytest.approx(option.gpu_hours * 6.88, rel=1e-9)
    assert option.cost.currency == "USD"
    assert "AWS" in page.results.advice.toPlainText()

    # Two offers of the same GPU type are compared side by side, each at its own price.
    runpod = next(q for q in context.store.rental_quotes.find(gpu="h100-sxm") if q["provider"] == "RunPod")
    assert runpod["price_per_gpu_hour"] == 3.49  # reference quote: RunPod lowest 1-GPU on-demand, 2026-09
    only_hardware(page, f"quote:{aws['id']}", f"quote:{runpod['id']}")
    replanned(qtbot, page)
    by_offer = {o.gpu.name.split(" · ")[-1]: o for o in page.state.options if o.gpus == 8}
    assert set(by_offer) == {"AWS", "RunPod"}
    for provider, price in (("AWS", 6.88), ("RunPod", 3.49)):
        assert by_offer[provider].cost.amount == pytest.approx(by_offer[provider].gpu_hours * price, rel=1e-9)
    assert by_offer["AWS"].wall_time_s == pytest.approx(
        by_offer["RunPod"].wall_time_s
    )  # same GPUs, same speed
    page.constraints.rank_combo.setCurrentIndex(page.constraints.rank_combo.findData("cost"))
    replanned(qtbot, page)
    assert "RunPod" in cell(page, 0, "option")  # the cheaper offer ranks first by cost
    assert context.plan_option.gpu.id.startswith(
        "h100-sxm@"
    )  # Rent or buy still finds the GPU type behind it


def test_budget_and_deadline_hide_options_and_say_so(page, qtbot):
    page.state.replace_inputs(PlanInputs(task="finetune", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         max_gpus=64), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    unlimited = list(page.state.options)
    costs = sorted(o.cost.amount for o in unlimited if o.cost is not None)
    assert len(costs) >= 3 and not page.results.limits.isVisibleTo(page)
    budget = (costs[0] + costs[-1]) / 2  # between the cheapest and the dearest option
    page.constraints.budget.check.setChecked(True)
    page.constraints.budget.spin.setValue(round(budget))
    replanned(qtbot, page)
    assert page.state.options and all(o.cost.amount <= round(budget) for o in page.state.options)
    assert len(page.state.options) < len(unlimited)
    limits = page.results.limits.text()
    assert page.results.limits.isVisibleTo(page) and "over the budget" in limits
    over = [o for o in unlimited if o.cost.amount > round(budget)]
    assert limits.startswith(f"Options hidden by your limits: {len(over)} over the budget")

    page.constraints.budget.check.setChecked(False)
    times = sorted(o.wall_time_s for o in unlimited)
    deadline_days = (times[0] + times[-1]) / 2 / 86400
    page.constraints.deadline.check.setChecked(True)
    page.constraints.deadline.spin.setValue(round(deadline_days, 1))
    replanned(qtbot, page)
    limit_s = round(deadline_days, 1) * 86400
    assert page.state.options and all(o.wall_time_s <= limit_s for o in page.state.options)
    assert "past the deadline" in page.results.limits.text()


def test_mfu_override_shows_its_default_and_scales_the_run_time(page, qtbot):
    # Compute-bound training time is FLOPs / (GPUs x peak x MFU): halving MFU on one GPU (no communication)
    # doubles the run time. The planner's default MFU (0.40, planner/perf.py) is shown while unchecked.
    mfu = page.constraints.mfu
    assert not mfu.check.isChecked() and mfu.spin.text() == "default 40 %" and not mfu.spin.isEnabled()
    assert "40" in mfu.check.toolTip()
    page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=("catalog:h100-sxm",),
                                         exact_gpus=1), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    at_default = page.state.selected_option.wall_time_s
    modelled_mfu = page.state.selected_option.mfu  # the operator model's own (planner.perf) when unset
    mfu.check.setChecked(True)
    mfu.spin.setValue(20)
    assert page.state.inputs.mfu == pytest.approx(0.20)
    replanned(qtbot, page)
    assert page.state.selected_option.wall_time_s == pytest.approx(at_default * modelled_mfu / 0.20, rel=0.1)
    assert mfu.spin.text() == "20 %"
    mfu.check.setChecked(False)  # back to the planner's default, and the field says so
    assert page.state.inputs.mfu is None and mfu.spin.text() == "default 40 %"


def test_a_measured_machine_plans_with_its_probe_numbers(page, context, qtbot):
    from desktop.examples import add_example_probe_runs

    add_example_probe_runs(
        context
    )  # an H100 node (this machine) and an imported A100 machine, as probe reports
    groups = page.hardware.groups
    local = groups["local"].child(0).data(0, Qt.ItemDataRole.UserRole)
    imported = groups["imported"].child(0).data(0, Qt.ItemDataRole.UserRole)
    assert local.startswith("run:") and imported.startswith("run:")
    page.state.replace_inputs(PlanInputs(task="inference", preset="llama-3.1-8b", hardware=(local, imported),
                                         exact_gpus=1, tokens_per_second=100, rank_by="time"), dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    planned = {o.gpu.id for o in page.state.options}
    assert planned == {"h100-sxm", "a100-sxm-80gb"}  # the GPU types the two probe reports found
    model = page.results.table.model()
    confidence = {model.index(r, model.column_of("confidence")).data() for r in range(model.rowCount())}
    assert confidence == {"measured"}  # rates from the probe runs, not the spec sheet


def test_the_band_shown_in_the_table_texts_and_chart_is_the_selected_options_own(page, qtbot):
    """The planner gives each option the cross-validated band of its class (planner.perf.bands: training,
    GPU generation, scale). Whatever row is selected, the selected-row text, its table cells and the scaling
    chart's bar show that row's band, and the chart's bar spans the plotted time x (1 + low) .. x (1 + high)."""
    from desktop import fmt

    page.state.replace_inputs(PlanInputs(task="finetune", preset="llama-3.1-8b",
                                         hardware=("catalog:h100-sxm", "catalog:a100-sxm-80gb"), max_gpus=16),
                              dirty=False)  # fmt: skip
    page.sync_widgets()
    replanned(qtbot, page)
    options = page.state.options
    assert len(options) >= 2 and all(o.time_band is not None for o in options)
    best_band = options[0].time_band
    assert fmt.band(best_band) in page.results.headline.text()
    other = next((i for i, o in enumerate(options) if o.time_band != best_band), 1)
    page.results.table.selectRow(other)
    chosen = page.state.options[other]
    band = chosen.time_band
    assert page.state.selected == other
    assert fmt.band(band) in page.results.selected_label.text()
    low, high = fmt.number(band.low_fraction * 100, 0), fmt.number(band.high_fraction * 100, 0)
    assert cell(page, other, "time").endswith(f"\n{low}..+{high}%")  # the band on the cell's second line
    qtbot.waitUntil(
        lambda: (page.results.scaling_chart.chart_data()["selected_band"] or {}).get("cases") == band.cases,
        timeout=PLAN_TIMEOUT_MS,
    )
    data = page.results.scaling_chart.chart_data()
    drawn = data["selected_band"]
    assert (drawn["low_fraction"], drawn["high_fraction"]) == (band.low_fraction, band.high_fraction)
    family, count = data["selected"]
    time_s = dict(zip(data["series"][family]["gpus"], data["series"][family]["time_s"], strict=True))[count]
    assert drawn["time_s"] == pytest.approx(
        [time_s * (1 + band.low_fraction), time_s * (1 + band.high_fraction)]
    )
    from tests.desktop.test_chart_readability import shown_text

    assert fmt.band(band) in shown_text(page.results.scaling_chart.key_label)
