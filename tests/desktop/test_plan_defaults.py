"""Defaults that answer the question asked, and the small things a user relies on: this machine or exactly N
GPUs come first, the memory headroom and expert pins reach the planner, Guided/Expert is remembered, an export
may go into a folder that does not exist yet, and every input says what it means.

Hand figures: the fixture run is one H100 (tests/fixtures/store_reports.py), so "this machine" is one H100;
80 GB less 10% headroom is 71.7 GiB usable (81,559 MiB x 0.9).
"""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QScrollBar,
    QTreeWidget,
    QWidget,
)

from tests.desktop.test_plan_page import choose, exactly, only_hardware, replanned
from tests.fixtures.store_reports import report


@pytest.fixture
def page(open_plan_page):
    return open_plan_page(size=(1280, 820))


def test_this_machine_plans_its_own_gpus_first(page, context, qtbot):
    run_id = context.store.probe_runs.save(report(), source="local")
    context.probe_runs_changed.emit()
    only_hardware(page, f"run:{run_id}")
    replanned(qtbot, page)
    best = page.state.best
    assert (best.gpu.id, best.gpus) == ("h100-sxm", 1)  # the machine, not 64 catalog H100s
    assert best.confidence == "measured"
    assert all(option.gpus <= 1 for option in page.state.options)


def test_exactly_n_of_one_gpu_type_is_the_first_answer(page, qtbot):
    only_hardware(page, "catalog:a100-sxm-80gb")
    exactly(page, 8)
    replanned(qtbot, page)
    assert (page.state.best.gpu.id, page.state.best.gpus) == ("a100-sxm-80gb", 8)
    assert {option.gpus for option in page.state.options} == {8}


def test_the_memory_headroom_and_expert_pins_reach_the_planner(page, qtbot):
    page.set_mode("expert", remember=False)
    assert page.constraints.headroom_spin.value() == 10  # the default: 10%
    replanned(qtbot, page)
    for option in page.state.options:
        assert option.memory.total_bytes <= option.gpu.memory_bytes * 0.9
    page.strategy.pins["tp"].check.setChecked(True)
    page.strategy.pins["tp"].spin.setValue(2)
    choose(page.strategy.zero_combo, 3)
    replanned(qtbot, page)
    assert page.state.inputs.pinned == {"tp": 2, "zero": 3}
    assert page.state.options and all(o.layout.tp == 2 and o.layout.zero == 3 for o in page.state.options)
    page.constraints.headroom_spin.setValue(0)
    replanned(qtbot, page)
    assert page.call.constraints.memory_headroom == 0.0


def test_host_ram_per_node_reaches_the_planner(page, qtbot):
    """Unticked, the planner assumes twice the node's GPU memory; ticked, the node's CPU RAM in GiB bounds what
    the options offload (plan --host-ram-gib)."""
    from planner.memory.host_ram import gpus_sharing_a_node

    page.set_mode("expert", remember=False)
    assert not page.constraints.host_ram.check.isChecked()
    replanned(qtbot, page)
    assert page.call.constraints.host_ram_bytes is None
    page.constraints.host_ram.check.setChecked(True)
    page.constraints.host_ram.spin.setValue(16)
    replanned(qtbot, page)
    assert page.state.inputs.host_ram_gib == 16
    assert page.call.constraints.host_ram_bytes == 16 * 2**30
    for option in page.state.options:
        sharing = gpus_sharing_a_node(option.gpus, option.gpu.gpus_per_node)
        assert option.memory.host_offload_bytes * sharing <= 16 * 2**30


def test_a_runtime_chosen_in_expert_mode_reaches_the_planner(page, qtbot):
    page.set_mode("expert", remember=False)
    replanned(qtbot, page)
    # chosen per layout; no runtime runs LoRA with pipeline parallel (DeepSpeed has no PP here, torchtitan no
    # LoRA), so the search offers no such layout
    assert page.state.options
    assert all(option.runtime is not None and option.layout.pp == 1 for option in page.state.options)
    choose(page.strategy.runtime_combo, "fsdp2")
    replanned(qtbot, page)
    assert page.state.inputs.runtime == "fsdp2" and page.call.workload.runtime == "fsdp2"
    options = page.state.options
    assert options and all(o.runtime == "fsdp2" and o.layout.zero >= 2 for o in options)


def test_guided_or_expert_is_remembered(open_plan_page, qtbot):
    first = open_plan_page()
    first.set_mode("expert")
    second = open_plan_page()
    assert second.mode == "expert" and second.expert_button.isChecked()
    second.set_mode("guided")
    assert open_plan_page().mode == "guided"


def test_an_export_may_go_into_a_new_folder(page, tmp_path):
    target = tmp_path / "new" / "plan-export"  # neither folder exists yet
    written = page.export_to(target)
    assert target.is_dir() and {p.name for p in written} >= {"report.md", "ds_config.json", "launch.sh"}


def test_every_input_says_what_it_means(page):
    page.set_mode("expert", remember=False)
    inputs = (QAbstractSpinBox, QComboBox, QLineEdit, QAbstractSlider, QAbstractButton, QTreeWidget)
    silent = []
    for panel in [*page.panels, page.strategy]:
        for widget in (w for w in panel.findChildren(QWidget) if isinstance(w, inputs)):
            if widget.parentWidget() is not None and isinstance(
                widget.parentWidget(), (QAbstractSpinBox, QComboBox)
            ):
                continue  # the line edit inside a spin box or combo box: its owner has the tooltip
            if not widget.isVisibleTo(page) or widget.toolTip() or isinstance(widget, QScrollBar):
                continue  # a scroll bar (a slider too) belongs to a list, not to the inputs
            # a check box or radio button with its own words says it; a field's label says it only in part
            if (
                isinstance(widget, QAbstractButton)
                and widget.text()
                and not isinstance(widget.parentWidget(), QComboBox)
            ):
                continue
            silent.append(
                f"{type(panel).__name__}.{type(widget).__name__} {getattr(widget, 'text', lambda: '')()!r}"
            )
    assert not silent, "\n".join(silent)
    assert "tokens per second" in page.shape.tps_spin.toolTip()  # what "Target speed" means
