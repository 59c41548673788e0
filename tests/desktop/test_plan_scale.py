"""The Plan page's goodput block and mixed pool, held against what `gpu-advisor plan --json` prints for the same
inputs (the CLI is the independent reading: its own flag parsing, its own JSON), and the pool's invariants:
the headline names the table's best row, a type at 0 GPUs gives that type's single-type answer, a typo in a
count is said and kept, a language switch words it all in Russian without planning again.
"""

from __future__ import annotations

import json
import math

import pytest
from PySide6.QtCore import Qt

from desktop import fmt

PLAN_TIMEOUT_MS = 30_000
MODEL = "llama-3.1-8b"
# Inputs shared by the page and the CLI: a full fine-tune on up to 16 H100s with the user's failure figures.
FAILURES_PER_MILLION = 5000.0
INTERVAL_MINUTES = 30.0
CLI_BASE = ["plan", "--model", MODEL, "--task", "finetune", "--seq-len", "4096", "--batch", "32",
            "--tokens", "1e9", "--price-from-quotes", "--json"]  # fmt: skip


@pytest.fixture
def english_afterwards():
    yield
    from desktop.i18n import switch_language

    switch_language("en")


def _cli_json(capsys, *flags: str) -> dict:
    from planner.cli import main

    capsys.readouterr()
    assert main([*CLI_BASE, *flags]) == 0
    return json.loads(capsys.readouterr().out)


def _plan(page, qtbot) -> None:
    """Plan now and wait for everything that follows the plan (the pool's comparison, the scaling curves)."""
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.replan()
    qtbot.waitUntil(lambda: not page.pool_job.pending and page.context.jobs.running_count == 0,
                    timeout=PLAN_TIMEOUT_MS)  # fmt: skip


def _page_with_inputs(open_plan_page, qtbot, **changes):
    from desktop.plan_state import PlanInputs
    from planner.vocabulary import Task

    page = open_plan_page((1280, 820))
    inputs = PlanInputs(task=Task.FINETUNE, preset=MODEL, seq_len=4096, global_batch=32, train_tokens=1e9,
                        max_gpus=16, hardware=("catalog:h100-sxm",))  # fmt: skip
    page.state.replace_inputs(inputs, dirty=False)
    page.sync_widgets()
    if changes:
        page.state.update(**changes)
    return page


def _set_resilience_by_widgets(page) -> None:
    """As a user sets them: tick the failure rate and the interval, type the figures, pick local NVMe."""
    panel = page.resilience
    panel.failures.check.setChecked(True)
    panel.failures.spin.setValue(FAILURES_PER_MILLION)
    panel.interval.check.setChecked(True)
    panel.interval.spin.setValue(INTERVAL_MINUTES)
    panel.storage_combo.setCurrentIndex(panel.storage_combo.findData("nvme"))


@pytest.mark.slow
def test_the_goodput_figures_shown_are_the_clis_for_the_same_inputs(open_plan_page, qtbot, capsys):
    page = _page_with_inputs(open_plan_page, qtbot)
    _set_resilience_by_widgets(page)
    _plan(page, qtbot)
    cli = _cli_json(capsys, "--gpu", "h100-sxm", "--max-gpus", "16", "--checkpoint-storage", "nvme",
                    "--failures-per-million-gpu-hours", f"{FAILURES_PER_MILLION:g}",
                    "--checkpoint-interval-minutes", f"{INTERVAL_MINUTES:g}")  # fmt: skip
    expected, best = cli["options"][0], page.state.best
    assert best is not None and best.layout.as_dict() == expected["strategy"] and best.gpus == expected["gpus"]  # the same option ranks first
    term = expected["goodput"]
    assert term["checkpoint_storage"] == "nvme" and term["checkpoint_interval_basis"] == "user-set"
    assert term["checkpoint_interval_s"] == INTERVAL_MINUTES * 60
    from desktop.plan_scale_text import goodput_rows

    rows = {row.key: row for row in goodput_rows(best, page.call.constraints.resilience)}
    wanted = {
        "effective_fraction": term["effective_fraction"], "expected_interruptions": term["expected_interruptions"],
        "interruptions_per_hour": term["interruptions_per_hour"], "wall_time_s": term["wall_time_s"],
        "gpu_hours": term["gpu_hours"], "cost": term["cost"]["amount"],
        "lost_restarts": term["lost_shares"]["restarts"], "lost_checkpoints": term["lost_shares"]["checkpoints"],
        "lost_rework": term["lost_shares"]["rework"], "checkpoint_bytes": term["checkpoint_bytes"],
        "checkpoint_write_s": term["checkpoint_write_s"], "checkpoint_interval_s": term["checkpoint_interval_s"],
        "restart_s": term["restart_s"],
    }  # fmt: skip
    for key, value in wanted.items():
        assert rows[key].raw == pytest.approx(value, rel=1e-9), key
    # what the user reads: the CLI's figures formatted with their units
    shown = page.results.goodput.toPlainText()
    for text in (fmt.percent(term["effective_fraction"], 1), fmt.duration(term["wall_time_s"]),
                 fmt.bytes_(term["checkpoint_bytes"]), fmt.duration(term["checkpoint_write_s"]),
                 fmt.duration(term["restart_s"]), fmt.money(term["cost"]["amount"], term["cost"]["currency"]),
                 "per million GPU-hours, set by you"):  # fmt: skip
        assert text in shown, text
    # what the whole run's figures count and leave out, as the CLI's JSON lists them (planner.scale.goodput)
    assert term["whole_run"]["counts"] == ["steady_steps", "failures", "checkpoint_writes", "restarts", "rework"]
    counted, _, left_out = shown.partition("Not counted:")
    for item in ("steady steps", "failures", "checkpoint writes", "restarts", "rework"):
        assert item in counted, item
    for item in ("evaluation", "data-loading stalls", "other stages", "ablations", "queueing"):
        assert item in left_out, item
    # a rate this high costs real time: the headline and the table show the figures with losses, as ranked
    assert term["effective_fraction"] < 0.99
    wall = fmt.duration(term["wall_time_s"])
    assert f"finishes in {wall}" in page.results.headline.text()
    model = page.results.model
    time_cell = model.data(model.index(0, model.column_of("time"))).split("\n")[0]
    assert time_cell == wall != fmt.duration(expected["wall_time_s"])

    # the defaults (published failure rate, Daly's interval) with the user's own write rate instead of a profile
    panel = page.resilience
    panel.failures.check.setChecked(False)
    panel.interval.check.setChecked(False)
    panel.rate.check.setChecked(True)
    panel.rate.spin.setValue(2.0)
    assert page.state.inputs.failures_per_million_gpu_hours is None and page.state.inputs.checkpoint_gb_per_s == 2.0
    _plan(page, qtbot)
    term = _cli_json(capsys, "--gpu", "h100-sxm", "--max-gpus", "16", "--checkpoint-gb-per-s", "2")["options"][0][
        "goodput"
    ]
    rows = {row.key: row for row in goodput_rows(page.state.best, page.call.constraints.resilience)}
    assert term["checkpoint_interval_basis"] == "Daly optimum" and term["checkpoint_storage"] == "user-set"
    for key in ("effective_fraction", "checkpoint_write_s", "checkpoint_interval_s", "restart_s", "wall_time_s"):
        assert rows[key].raw == pytest.approx(term[key], rel=1e-9), key
    shown = page.results.goodput.toPlainText()
    assert "19.7 interruptions per million GPU-hours: 419 unexpected interruptions in 54 days" in shown  # Llama 3
    assert "Daly's optimum" in shown and "your storage" in shown

    panel.failures.check.setChecked(True)
    panel.failures.spin.setValue(0.0)  # 0 failures: no goodput term, in the CLI as in the app
    _plan(page, qtbot)
    cli = _cli_json(capsys, "--gpu", "h100-sxm", "--max-gpus", "16", "--failures-per-million-gpu-hours", "0")
    assert cli["options"][0]["goodput"] is None and page.state.best.goodput is None
    assert "Failures are turned off" in page.results.goodput.toPlainText()


def _set_pool_by_keyboard(page, qtbot, rows: list[tuple[str, str]]) -> None:
    """Add rows with the Add button (Space), choose each type, type each count."""
    panel = page.pool_panel
    for gpu_id, count in rows:
        panel.add_button.setFocus()
        qtbot.keyClick(panel.add_button, Qt.Key.Key_Space)
        row = panel.rows[-1]
        row.combo.setCurrentIndex(row.combo.findData(gpu_id))
        row.count.selectAll()
        qtbot.keyClicks(row.count, count)


@pytest.mark.slow
def test_the_pool_headline_names_the_best_row_and_a_type_at_zero_is_its_single_type_answer(
    open_plan_page, qtbot, capsys
):
    page = _page_with_inputs(open_plan_page, qtbot)
    page.set_mode("expert", remember=False)
    _set_pool_by_keyboard(page, qtbot, [("a100-sxm-80gb", "8"), ("h100-sxm", "4")])
    assert page.state.inputs.pool == (("a100-sxm-80gb", 8), ("h100-sxm", 4))
    _plan(page, qtbot)
    view = page.results.pool
    cli = _cli_json(capsys, "--pool", "a100-sxm-80gb:8,h100-sxm:4")["pool"]  # the CLI's default: every way
    names = {"a100-sxm-80gb": "A100 SXM4 80GB", "h100-sxm": "H100 SXM5 80GB"}
    way_names = {"pool": "the whole pool", "pipeline": "the pipeline over the types", "separate": "separate jobs",
                 **{f"alone:{gpu_id}": f"{name} alone" for gpu_id, name in names.items()}}  # README's ways
    assert {choice["name"] for choice in cli["choices"]} == set(way_names)  # every way fits this pool
    assert view.model.rowCount() == len(cli["choices"]) == 5
    model = view.model
    for row, choice in enumerate(cli["choices"]):  # the same ways, in the same order, with the same figures
        shown = model.choice(row)
        assert shown.name == choice["name"] and dict(shown.gpus) == choice["gpus"]
        assert shown.tokens_per_s == pytest.approx(choice["tokens_per_s"], rel=1e-9)
        assert shown.wall_time_s == pytest.approx(choice["wall_time_s"], rel=1e-9)
        assert shown.cost.amount == pytest.approx(choice["cost"]["amount"], rel=1e-9)  # the same prices too
        cells = [model.data(model.index(row, column)) for column in range(7)]
        assert cells[0] == way_names[choice["name"]]
        assert cells[2] == f"{choice['tp']} × {choice['pp']}"
        assert cells[3] == fmt.number(choice["tokens_per_s"], 0)
        assert cells[5] == fmt.duration(choice["wall_time_s"])
        assert cells[6] == fmt.money(choice["cost"]["amount"], choice["cost"]["currency"])
    rows = {choice["name"]: row for row, choice in enumerate(cli["choices"])}
    stages = cli["choices"][rows["pipeline"]]["pipeline"]["stages"]
    tip = model.data(model.index(rows["pipeline"], 0), Qt.ItemDataRole.ToolTipRole)
    for stage in stages:  # each stage's type and layers, as the CLI's JSON gives them
        assert f"Stage {stage['index'] + 1}: " in tip and f"{names[stage['gpu']]}, {stage['layers']} layers" in tip
    separate = cli["choices"][rows["separate"]]
    assert "the other GPUs run other jobs" in model.data(model.index(rows["separate"], 0), Qt.ItemDataRole.ToolTipRole)
    details = view.details.text()
    assert "Separate jobs:" in details and fmt.number(separate["aggregate_tokens_per_s"], 0) in details
    best = model.choice(0)
    assert best.name == cli["best"] == cli["choices"][0]["name"]
    headline, cells = view.headline.text(), [model.data(model.index(0, c)) for c in range(7)]
    assert headline.startswith("<b>Best on the pool: " + cells[0] + " (")
    for line in cells[1].split("\n"):  # "8 × A100 SXM4 80GB", "4 × H100 SXM5 80GB": the best row's GPUs
        assert line in headline
    assert cells[5] in headline and cells[6] in headline  # its run time and cost with losses
    runner = next(c for c in cli["choices"][1:] if c["name"] != "separate")  # the planner's reason's runner-up
    speedup = (cli["choices"][0]["tokens_per_s"] * cli["choices"][0]["effective_fraction"]
               / (runner["tokens_per_s"] * runner["effective_fraction"]))  # fmt: skip
    told = f"{fmt.significant(speedup, 3)}x" if speedup >= 1.1 else f"{fmt.number(100 * (speedup - 1), 1)}%"
    assert f"is {told} faster than {way_names[runner['name']]}" in headline  # a close race in percent
    assert model.data(model.index(0, 0), Qt.ItemDataRole.FontRole).bold()
    ceiling = view.ceiling.text()  # the bound every row is under: the types run perfectly
    assert fmt.number(cli["ideal_sum_tokens_per_s"], 0) + " tokens/s: no way beats it" in ceiling
    assert all(choice["tokens_per_s"] <= cli["ideal_sum_tokens_per_s"] for choice in cli["choices"])

    page.pool_panel.rows[1].count.selectAll()
    qtbot.keyClicks(page.pool_panel.rows[1].count, "0")  # H100 at 0: absent
    assert page.state.inputs.pool_counts == {"a100-sxm-80gb": 8}
    _plan(page, qtbot)
    alone = _cli_json(capsys, "--gpu", "a100-sxm-80gb", "--max-gpus", "8")["options"][0]
    assert view.model.rowCount() == 1
    only = view.model.choice(0)
    assert only.name == "alone:a100-sxm-80gb" and dict(only.gpus) == {"a100-sxm-80gb": alone["gpus"]}
    assert only.wall_time_s == pytest.approx(alone["goodput"]["wall_time_s"], rel=1e-9)
    assert "only way that fits" in view.headline.text()


@pytest.mark.slow
def test_a_count_that_is_not_a_whole_number_is_said_and_kept(open_plan_page, qtbot):
    page = _page_with_inputs(open_plan_page, qtbot)
    panel = page.pool_panel
    _set_pool_by_keyboard(page, qtbot, [("a100-sxm-80gb", "64")])
    assert page.state.inputs.pool == (("a100-sxm-80gb", 64),)
    for typo in ("x4", "-3", "six"):  # wrong from the first key (a typo after digits keeps those digits)
        panel.rows[0].count.selectAll()
        qtbot.keyClicks(panel.rows[0].count, typo)
        assert panel.rows[0].count.text() == typo  # nothing the user typed is lost
        assert not panel.message.isHidden() and f"“{typo}”" in panel.message.text()
        assert page.state.inputs.pool == (("a100-sxm-80gb", 64),)  # the plan keeps the last valid pool
    panel.rows[0].count.selectAll()
    qtbot.keyClicks(panel.rows[0].count, "1,024")
    assert panel.message.isHidden() and page.state.inputs.pool == (("a100-sxm-80gb", 1024),)


@pytest.mark.slow
def test_tab_walks_each_pool_row_then_add_and_remove_keeps_the_keyboard(open_plan_page, qtbot):
    page = _page_with_inputs(open_plan_page, qtbot)
    page.set_mode("expert", remember=False)  # the pool is an Expert input
    panel = page.pool_panel
    _set_pool_by_keyboard(page, qtbot, [("a100-sxm-80gb", "64"), ("h100-sxm", "32")])
    first, second = panel.rows
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    walk = [first.combo, first.count, first.remove, second.combo, second.count, second.remove, panel.add_button]
    walk[0].setFocus()
    for here, there in zip(walk, walk[1:], strict=False):
        qtbot.waitUntil(here.hasFocus)
        qtbot.keyClick(here, Qt.Key.Key_Tab)
        qtbot.wait(50)
        focused = page.focusWidget()
        assert focused is there, (walk.index(here), focused, focused.parent() if focused else None)
    assert [first.count.accessibleName(), second.count.accessibleName()] == [
        "Count of A100 SXM4 80GB", "Count of H100 SXM5 80GB"]  # fmt: skip
    second.remove.setFocus()
    qtbot.keyClick(second.remove, Qt.Key.Key_Space)
    assert len(panel.rows) == 1 and page.state.inputs.pool == (("a100-sxm-80gb", 64),)


@pytest.mark.slow
def test_a_language_switch_words_goodput_and_pool_in_russian_without_planning_again(
    open_plan_page, qtbot, monkeypatch, english_afterwards
):
    import desktop.pages.plan as plan_page
    from desktop.i18n import switch_language

    page = _page_with_inputs(open_plan_page, qtbot, pool=(("a100-sxm-80gb", 8), ("h100-sxm", 4)))
    _plan(page, qtbot)
    result, pool = page.state.result, page.pool
    assert pool is not None and pool.comparison is not None
    assert "Effective training time" in page.results.goodput.toPlainText()
    calls = [0]
    real = plan_page.build_and_run

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_page, "build_and_run", counting)
    switch_language("ru")
    assert calls[0] == 0 and page.state.result is result and page.pool is pool  # nothing planned again
    goodput = page.results.goodput.toPlainText()
    assert "Эффективное время обучения" in goodput and "Effective training time" not in goodput
    assert "Не учтены:" in goodput and "Not counted" not in goodput  # what the whole run's figures count
    assert "Llama 3" in goodput and "interruptions" not in goodput  # the failure rate's source too
    headline = page.results.pool.headline.text()
    assert "Лучшее на пуле" in headline and "Best on the pool" not in headline
    header = page.results.pool.model.headerData(0, Qt.Orientation.Horizontal)
    assert header == "Способ"
    view = page.results.pool  # every way's row, named by the planner's Messages in Russian
    ways = {view.model.data(view.model.index(row, 0)): view.model.choice(row).name for row in range(view.model.rowCount())}
    assert ways == {"весь пул": "pool", "конвейер по типам": "pipeline", "отдельные задачи": "separate",
                    "только A100 SXM4 80GB": "alone:a100-sxm-80gb", "только H100 SXM5 80GB": "alone:h100-sxm"}
    assert "быстрее" in headline and "faster" not in headline  # the planner's reason, in Russian
    pipeline_row = next(row for row in range(view.model.rowCount()) if view.model.choice(row).name == "pipeline")
    tip = view.model.data(view.model.index(pipeline_row, 0), Qt.ItemDataRole.ToolTipRole)
    assert "Ступень 1:" in tip and "слоёв" in tip and "Stage" not in tip and "layers" not in tip
    details = view.details.text()
    assert "остальные GPU выполняют другие задачи" in details and "other jobs" not in details
    ceiling = view.ceiling.text()
    assert "токенов/с" in ceiling and "tokens/s" not in ceiling


def test_pool_and_goodput_texts_never_raise_on_odd_figures(qapp):
    """No exception escapes a Qt virtual: the pool model answers any index, and an empty comparison is worded."""
    from desktop.plan_scale_text import pool_headline_html
    from desktop.qmodels.pool_choices import PoolChoicesModel
    from planner.search.pools import PoolComparison

    model = PoolChoicesModel()
    from planner.messages import msg

    empty = PoolComparison((), "", msg("pool.reason.none_fits"), 0.0)
    model.set_comparison(empty, {})
    assert model.rowCount() == 0 and model.data(model.index(5, 9)) is None
    assert "Nothing fits" in pool_headline_html(empty, {}, True)
    from planner.search.pools import PoolChoice

    serving = PoolComparison((PoolChoice("pool", {"h100-sxm": 2}, 500.0, 1.0, None, None, (), 1, 1),
                              PoolChoice("alone:a10", {"a10": 1}, 0.0, 1.0, None, None, (), 1, 1)), "pool",
                             msg("pool.reason.serving_more", way=msg("pool.name.pool"), ratio=math.inf,
                                 runner=msg("pool.name.alone", gpu="a10"), kept=msg("pool.kept", tokens_per_s=0.0)),
                             0.0)  # fmt: skip
    model.set_comparison(serving, {"h100-sxm": "H100 SXM5 80GB"})
    assert model.data(model.index(0, 5)) == "–" and model.data(model.index(1, 1)) == "1 × a10"
    assert "whole pool" in pool_headline_html(serving, {}, False)  # a way serving nothing: no division by zero


@pytest.mark.slow
def test_a_new_pool_is_compared_off_the_gui_thread(open_plan_page, qtbot, monkeypatch):
    """The first plan with a pool (whose comparison cost is unknown) runs on a pool thread, never inline."""
    import threading

    import desktop.pages.plan as plan_page

    page = _page_with_inputs(open_plan_page, qtbot)
    page.scheduler.sync_limit_ms = 1e9  # every plan whose cost is known runs inline (a busy machine is slow)
    _plan(page, qtbot)
    threads: list[bool] = []
    real = plan_page.build_and_run

    def recording(*args, **kwargs):
        threads.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_page, "build_and_run", recording)
    _plan(page, qtbot)
    assert threads == [True]  # known cost: inline
    import desktop.plan_pool_job as pool_job

    compared: list[bool] = []
    real_compare = pool_job.compare_page_pool

    def comparing(*args, **kwargs):
        compared.append(threading.current_thread() is threading.main_thread())
        return real_compare(*args, **kwargs)

    monkeypatch.setattr(pool_job, "compare_page_pool", comparing)
    page.state.update(pool=(("a100-sxm-80gb", 8), ("h100-sxm", 4)))
    _plan(page, qtbot)
    assert threads[1] is True  # the plan itself is as quick as before: inline, drawn at once
    assert compared == [False]  # the pool's comparison ran in the background, after it
    assert page.pool is not None and page.pool.comparison is not None


def test_a_count_is_a_whole_ascii_number_with_or_without_thousands_separators():
    from desktop.pages.plan_scale_inputs import MAX_POOL_GPUS, parse_count

    assert [parse_count(text) for text in ("0", " 64 ", "1,024", "1 024", "1\u00a0024", "1\u202f024")] == [
        0, 64, 1024, 1024, 1024, 1024]  # fmt: skip
    for wrong in ("", "-3", "2.5", "1e3", "٣", "²", str(MAX_POOL_GPUS + 1)):  # Arabic-Indic three, superscript two
        assert parse_count(wrong) is None, wrong


def test_a_saved_plan_keeps_its_pool_and_failure_figures(qapp):
    from desktop.plan_state import PlanInputs

    inputs = PlanInputs(pool=(("a100-sxm-80gb", 64), ("h100-sxm", 0)), failures_per_million_gpu_hours=25.0,
                        checkpoint_storage="nvme", checkpoint_gb_per_s=2.5, checkpoint_interval_minutes=45.0)
    again = PlanInputs.from_dict(json.loads(json.dumps(inputs.to_dict())))
    assert again == inputs and again.pool_counts == {"a100-sxm-80gb": 64}  # a type at 0 is absent
    odd = PlanInputs.from_dict({"pool": [["h100-sxm", -2], ["a100-sxm-80gb", "8"], "x", ["h100-sxm", 16]],
                                "checkpoint_storage": "tape", "failures_per_million_gpu_hours": -1.0})
    assert odd.pool == (("h100-sxm", 16),) and odd.checkpoint_storage == "pfs"
    assert odd.failures_per_million_gpu_hours is None


# -- spot capacity ---------------------------------------------------------------------------------------------

SPOT_PRICE, ON_DEMAND_PRICE, QUOTED_RATE = 0.50, 1.00, 0.02  # USD per GPU-hour; reclaims per node-hour


def _add_h100_quotes(store) -> None:
    """An on-demand and a spot quote of 8-GPU H100 instances, below every shipped reference price (so the user's
    own quotes price the plan), the spot one stating its reclaim rate."""
    for kind, price, rate in (("on-demand", ON_DEMAND_PRICE, None), ("spot", SPOT_PRICE, QUOTED_RATE)):
        store.rental_quotes.add(
            {"provider": "Hand cloud", "offer": f"8x H100 {kind}", "gpu": "h100-sxm", "gpus_per_instance": 8,
             "price_per_gpu_hour": price, "currency": "USD", "kind": kind, "quoted_on": "2026-11-01",
             "source": "test", "interruptions_per_hour": rate}
        )  # fmt: skip


def _spot_rows(page) -> dict:
    from desktop.plan_scale_text import spot_rows
    from planner.resolver import spot_comparison_of

    option = page.state.best
    comparison = spot_comparison_of(option, page.call, page.spot.on_demand_prices)
    assert comparison is not None
    return {row.key: row for row in spot_rows(option, comparison, page.spot, page.call.currency)}


def _type_spot_rate(page, qtbot, text: str) -> None:
    """Select what the field holds and type over it (each key edits the field, as a user's does)."""
    field = page.resilience.spot_rate
    field.selectAll()
    qtbot.keyClicks(field, text)


@pytest.mark.slow
def test_the_spot_figures_shown_are_the_clis_for_the_same_inputs(open_plan_page, context, qtbot, capsys):
    _add_h100_quotes(context.store)
    page = _page_with_inputs(open_plan_page, qtbot)
    page.resilience.spot.setChecked(True)  # the rate left blank: the spot quote's
    assert page.state.inputs.spot and page.state.inputs.spot_interruptions_per_node_hour is None
    _plan(page, qtbot)
    cli = _cli_json(capsys, "--gpu", "h100-sxm", "--max-gpus", "16", "--spot")
    expected, best = cli["options"][0], page.state.best
    assert best.layout.as_dict() == expected["strategy"] and best.gpus == expected["gpus"]
    assert best.cost.amount == pytest.approx(expected["cost"]["amount"], rel=1e-9)  # priced at the spot quote
    assert expected["cost"]["amount"] == pytest.approx(expected["gpu_hours"] * SPOT_PRICE)
    assert expected["goodput"]["spot_interruptions_per_hour"] == pytest.approx(QUOTED_RATE * expected["nodes"])
    spot, rows = cli["spot"], _spot_rows(page)
    for key in ("spot_per_useful_gpu_hour", "on_demand_per_useful_gpu_hour", "spot_effective_fraction",
                "on_demand_effective_fraction"):  # fmt: skip
        assert rows[key].raw == pytest.approx(spot[key], rel=1e-9), key
    assert rows["spot_pays"].raw == float(spot["spot_pays"]) and rows["break_even_nodes"].raw == spot["break_even_nodes"]
    shown = page.results.goodput.toPlainText()
    for text in (fmt.money(spot["spot_per_useful_gpu_hour"], "USD") + "/GPU-h",
                 fmt.money(spot["on_demand_per_useful_gpu_hour"], "USD") + "/GPU-h",
                 fmt.percent(spot["spot_effective_fraction"], 1), "as the spot quotes state it",
                 f"{fmt.significant(QUOTED_RATE, 2)} per node-hour"):  # fmt: skip
        assert text in shown, text
    nodes = spot["break_even_nodes"]
    assert isinstance(nodes, int) and nodes > expected["nodes"]  # half price pays for a 2-node job
    assert f"Spot stops paying above {nodes:,} nodes" in shown

    # a typed rate replaces the quote's, as --spot-interruptions-per-node-hour does; a typo is said and kept
    _type_spot_rate(page, qtbot, "0.3")
    assert page.state.inputs.spot_interruptions_per_node_hour == 0.3
    _type_spot_rate(page, qtbot, "-1")
    assert page.resilience.spot_rate.text() == "-1" and not page.resilience.spot_message.isHidden()
    assert "“-1”" in page.resilience.spot_message.text()
    assert page.state.inputs.spot_interruptions_per_node_hour == 0.3  # the last valid rate is planned
    _plan(page, qtbot)
    spot = _cli_json(capsys, "--gpu", "h100-sxm", "--max-gpus", "16", "--spot-interruptions-per-node-hour", "0.3")[
        "spot"
    ]
    rows = _spot_rows(page)
    for key in ("spot_per_useful_gpu_hour", "spot_effective_fraction", "on_demand_per_useful_gpu_hour"):
        assert rows[key].raw == pytest.approx(spot[key], rel=1e-9), key
    assert rows["break_even_nodes"].raw == spot["break_even_nodes"]
    rate = rows["spot_interruptions_per_node_hour"]
    assert rate.raw == 0.3 and rate.value == f"{fmt.significant(0.3, 2)} per node-hour" and rate.basis == "set by you"


def _daly_first_order_ratio(interval_s: float, write_s: float, restart_s: float, per_hour: float) -> float:
    """Wall time per unit of work, to first order in 1/MTBF (Young 1974): the write after every interval, half
    an interval plus its write redone and a restart per interruption."""
    mtbf_s = 3600.0 / per_hour
    return 1 + write_s / interval_s + (interval_s + write_s) / (2 * mtbf_s) + restart_s / mtbf_s


@pytest.mark.slow
def test_a_higher_reclaim_rate_raises_the_spot_price_per_useful_gpu_hour_as_a_hand_calculation_does(
    open_plan_page, context, qtbot
):
    _add_h100_quotes(context.store)
    page = _page_with_inputs(open_plan_page, qtbot, checkpoint_interval_minutes=INTERVAL_MINUTES)
    page.resilience.spot.setChecked(True)
    prices = {}
    for rate in ("0.01", "0.1"):
        _type_spot_rate(page, qtbot, rate)
        _plan(page, qtbot)
        option, rows = page.state.best, _spot_rows(page)
        term = option.goodput
        failures = 19.7e-6 * option.gpus  # Llama 3's H100 rate per GPU-hour (the published default) x GPUs
        ratio = _daly_first_order_ratio(INTERVAL_MINUTES * 60, term.checkpoint.write_s, term.checkpoint.restart_s,
                                        failures + float(rate) * option.nodes)  # fmt: skip
        prices[rate] = rows["spot_per_useful_gpu_hour"].raw
        assert prices[rate] == pytest.approx(SPOT_PRICE * ratio, rel=0.02), rate  # the price over the fraction
    # ten times the reclaims: about 0.09 x nodes more lost per hour (half of 30 min + a 15-min restart, x 0.09/h)
    assert prices["0.1"] > prices["0.01"]
    nodes = page.state.best.nodes
    assert prices["0.1"] / prices["0.01"] == pytest.approx(1 + 0.09 * nodes * (0.25 + 0.25), rel=0.05)


def test_a_saved_plan_keeps_its_spot_choice_and_pulls_back_a_wrong_rate(qapp):
    from desktop.plan_state import PlanInputs

    inputs = PlanInputs(spot=True, spot_interruptions_per_node_hour=0.05)
    assert PlanInputs.from_dict(json.loads(json.dumps(inputs.to_dict()))) == inputs
    for wrong in (-0.1, float("nan"), float("inf"), "often", True, 1e9):
        odd = PlanInputs.from_dict({"spot": True, "spot_interruptions_per_node_hour": wrong})
        assert odd.spot and odd.spot_interruptions_per_node_hour is None, wrong
    assert PlanInputs.from_dict({"spot": "yes"}).spot is False


def test_a_typed_reclaim_rate_is_a_finite_number_from_zero():
    from desktop.pages.plan_scale_inputs import parse_rate

    assert [parse_rate(text) for text in ("0", " 0.02 ", "0,02", "2e-2", "3600")] == [0.0, 0.02, 0.02, 0.02, 3600.0]
    for wrong in ("", "-0.1", "nan", "inf", "1e9", "often", "٠٫١"):
        assert parse_rate(wrong) is None, wrong


def test_a_mixed_way_that_does_not_fit_is_said_with_the_planners_reason(qapp):
    """A pipeline with no shape is a line under the table: its name, "does not fit", and the planner's reason."""
    from desktop.plan_scale_text import pool_details_html
    from planner.messages import msg
    from planner.search.pools import PoolChoice, PoolComparison, PoolMiss

    alone = PoolChoice("alone:h100-sxm", {"h100-sxm": 8}, 1000.0, 1.0, None, None, (), 8, 1)
    miss = PoolMiss("pipeline", msg("pool.pipeline.no_shape", limit=64))
    comparison = PoolComparison((alone,), alone.name, msg("pool.reason.only", way=alone.label), 1000.0,
                                not_fitting=(miss,))
    details = pool_details_html(comparison, {"h100-sxm": "H100 SXM5 80GB"})
    assert details == ("<b>The pipeline over the types: does not fit.</b> No pipeline over the types: no "
                       "tensor-parallel size and pipeline copies give every type a stage within 64 stages.")  # fmt: skip
