"""The Plan page's serving form (issue 28): prompt and output length, users or a request rate, TTFT and TPOT
targets, the table's figures against the targets, and the throughput-against-latency chart.

Independent expectations:
- the CLI answers the same question (`gpu-advisor plan ... --json`): the TTFT and TPOT a row shows are the JSON's
  figures for the same option, written in the table's units;
- Llama 3.1 8B in bf16 holds 16.06 GB of weights; an H100 SXM reads at most 3.35 TB/s (datasheet), so one token
  takes at least 16.06e9 / 3.35e12 = 4.8 ms on one GPU, and TP 8 at best an eighth of that plus its all-reduces:
  a 1 ms time-per-token target is out of reach on any layout, a 20 ms one is not;
- a user reading one token per TPOT sees 1 / TPOT tokens/s: a 20 ms target is the line at 50 tokens/s per user.
"""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt

from desktop import fmt
from desktop.qmodels.plan_options import MISSED_COLOR
from planner.cli import main
from tests.desktop.test_plan_page import cell, choose, only_hardware, replanned


@pytest.fixture
def page(open_plan_page):
    return open_plan_page(size=(1300, 850))


def _serving_form(page, qtbot, ttft_ms: float, tpot_ms: float, users: int = 16) -> None:
    choose(page.workload.task_combo, "inference")
    choose(page.model_panel.preset_combo, "llama-3.1-8b")
    page.model_panel.preset_combo.activated.emit(page.model_panel.preset_combo.currentIndex())
    only_hardware(page, "catalog:h100-sxm")
    form = page.shape.serving
    form.prompt_spin.setValue(1000)
    form.output_spin.setValue(200)
    form.users_radio.setChecked(True)
    form.users_spin.setValue(users)
    form.tps_spin.setValue(1000)
    form.ttft_spin.setValue(ttft_ms)
    form.tpot_spin.setValue(tpot_ms)
    replanned(qtbot, page)


def _cli_options(capsys, ttft_ms: float, tpot_ms: float, users: int = 16) -> list[dict]:
    code = main(["plan", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm", "--precision", "bf16",
                 "--prompt-tokens", "1000", "--output-len", "200", "--users", str(users), "--tokens-per-second",
                 "1000", "--ttft-ms", str(ttft_ms), "--tpot-ms", str(tpot_ms), "--max-gpus", "64", "--top", "20",
                 "--json"])  # fmt: skip
    assert code == 0
    return json.loads(capsys.readouterr().out)["options"]


def _same(cli: list[dict], option) -> dict:
    layout = option.layout
    (found,) = [o for o in cli if o["gpus"] == option.gpus and o["strategy"]["tp"] == layout.tp
                and o["strategy"]["pp"] == layout.pp and o["strategy"]["dp"] == layout.dp]  # fmt: skip
    return found


def test_the_form_asks_what_the_cli_asks_and_the_table_shows_its_figures(page, qtbot, capsys):
    _serving_form(page, qtbot, ttft_ms=200, tpot_ms=20)
    workload = page.call.workload
    assert (workload.prompt_len, workload.output_len, workload.concurrent_users) == (1000, 200, 16)
    assert workload.ttft_target_s == pytest.approx(0.2) and workload.tpot_target_s == pytest.approx(0.02)
    assert workload.request_rate is None
    assert not page.shape.seq_combo.isVisibleTo(page.shape)  # the context is prompt + output

    cli = _cli_options(capsys, 200, 20)
    option = page.state.selected_option
    expected = _same(cli, option)
    ttft, ttft_target = cell(page, 0, "ttft").split("\n")
    tpot, tpot_target = cell(page, 0, "tpot").split("\n")
    assert ttft == fmt.duration(expected["ttft_s"]) and tpot == fmt.duration(expected["tpot_s"])
    assert expected["latency"]["meets_targets"]
    assert ttft_target == f"p90 {fmt.duration(expected['latency']['ttft_p90_s'])} ✓ ≤ 200 ms"
    assert tpot_target == "✓ ≤ 20 ms"
    model = page.results.table.model()
    assert model.index(0, model.column_of("ttft")).data(Qt.ItemDataRole.ForegroundRole) is None


def test_an_option_that_misses_the_target_is_marked(page, qtbot, capsys):
    _serving_form(page, qtbot, ttft_ms=0, tpot_ms=1)  # 1 ms per token: below the 8B's floor on any layout
    options = page.state.shown_options
    assert options and all(option.misses_targets for option in options)
    model = page.results.table.model()
    for row in range(model.rowCount()):
        figure, target = cell(page, row, "tpot").split("\n")
        assert target == "✗ > 1 ms"
        assert model.index(row, model.column_of("tpot")).data(Qt.ItemDataRole.ForegroundRole) == MISSED_COLOR
    assert "\n" not in cell(page, 0, "ttft")  # no TTFT target: the figure alone
    cli = _cli_options(capsys, 100_000, 1)
    assert not any(o["latency"]["meets_targets"] for o in cli)
    assert cell(page, 0, "tpot").split("\n")[0] == fmt.duration(_same(cli, page.state.selected_option)["tpot_s"])


def test_a_request_rate_replaces_the_users(page, qtbot):
    _serving_form(page, qtbot, ttft_ms=500, tpot_ms=50)
    form = page.shape.serving
    form.rate_radio.setChecked(True)
    form.rate_spin.setValue(4)
    assert not form.users_spin.isEnabled() and form.rate_spin.isEnabled()
    replanned(qtbot, page)
    workload = page.call.workload
    assert workload.request_rate == pytest.approx(4) and workload.concurrent_users is None
    latency = page.state.selected_option.latency
    assert latency is not None and latency.request_rate == pytest.approx(4)


def test_the_frontier_chart_shows_the_selected_gpu_and_the_target(page, qtbot):
    _serving_form(page, qtbot, ttft_ms=0, tpot_ms=20)
    chart = page.results.frontier
    qtbot.waitUntil(lambda: bool(chart.chart_data()["series"]), timeout=20_000)
    data = chart.chart_data()
    option = page.state.selected_option
    assert data["gpu"] == option.gpu.name
    assert data["target_per_user_tokens_per_s"] == pytest.approx(50.0)  # 1 / 20 ms
    for per_user, _per_gpu, _tp, _users, meets in data["frontier"]:
        assert meets == (per_user >= 50.0 * (1 - 1e-9))  # right of the line meets the TPOT target
    # the frontier trades: as each user reads slower, each GPU gives more
    frontier = data["frontier"]
    assert all(a[0] > b[0] and a[1] < b[1] for a, b in zip(frontier, frontier[1:], strict=False))
    # the ring is the selected option, in the chart's units
    per_user, per_gpu = data["selected"]
    assert per_user == pytest.approx(1 / option.tpot_s)
    assert per_gpu == pytest.approx(option.tokens_per_s / option.gpus)
    # one GPU at the batch-1 floor: 4.8 ms per token at least (16.06 GB / 3.35 TB/s), so at most 208 tokens/s
    single = [x for x, _y, users in data["series"]["TP 1"] if users == 1]
    assert single and single[0] <= 3.35e12 / 16.06e9


def test_the_serving_form_says_speculative_decoding_is_not_modelled_in_both_languages(page, qtbot):
    # The CLI's serving line says it (planner.perf.SPECULATIVE_DECODING_NOTE); the GUI's serving form says the same
    # through the Message catalog, and in Russian when the interface is Russian (assets/i18n/gpu_advisor_ru.ts).
    from desktop.i18n import set_language

    choose(page.workload.task_combo, "inference")
    note = page.shape.serving.speculative_note
    assert note.text() == (
        "Speculative decoding is not modelled (one token per sequence per decode step)."
    )
    assert note.isVisibleTo(page.shape.serving)  # on the serving form, below the targets
    qtbot.waitUntil(lambda: not page.shape.serving.isHidden(), timeout=5000)  # which a serving plan shows
    try:
        set_language("ru")
        page.shape.serving.retranslate()
        assert note.text() == (
            "Спекулятивное декодирование не моделируется (один токен на последовательность за шаг декодирования)."
        )
    finally:
        set_language("en")
        page.shape.serving.retranslate()
    assert note.text().startswith("Speculative decoding is not modelled")
