"""The Plan page names the runtime the planner chose for the best option and every runtime it weighed, as
`gpu-advisor plan --json` does for the same inputs (the CLI is the independent reading: its own flag parsing and
JSON), in English and in Russian (the catalog's translation, assets/i18n/gpu_advisor_ru.ts: "{runtime} chosen, ..."
is "выбран {runtime}: ...", "per GPU" is "на GPU")."""

from __future__ import annotations

import json

import pytest

PLAN_TIMEOUT_MS = 30_000
CLI = ["plan", "--model", "llama-2-7b", "--task", "pretrain", "--seq-len", "4096", "--batch", "32", "--tokens",
       "1e9", "--gpu", "h100-sxm", "--gpus", "8", "--zero", "3", "--micro-batch", "2", "--json"]  # fmt: skip


@pytest.fixture
def english_afterwards():
    yield
    from desktop.i18n import switch_language

    switch_language("en")


def test_the_plan_page_names_the_runtime_the_cli_chooses(open_plan_page, qtbot, capsys, english_afterwards):
    from desktop.i18n import switch_language
    from desktop.plan_state import PlanInputs
    from planner.cli import main
    from planner.vocabulary import Task

    page = open_plan_page((1280, 820))
    inputs = PlanInputs(task=Task.PRETRAIN, preset="llama-2-7b", seq_len=4096, global_batch=32, train_tokens=1e9,
                        exact_gpus=8, hardware=("catalog:h100-sxm",), pin_zero=3, pin_micro_batch=2)  # fmt: skip
    page.state.replace_inputs(inputs, dirty=False)
    page.sync_widgets()
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.replan()
    capsys.readouterr()
    assert main(CLI) == 0
    expected = json.loads(capsys.readouterr().out)["options"][0]
    best = page.state.best
    assert best is not None and best.layout.as_dict() == expected["strategy"]
    assert best.runtime == expected["runtime"]
    assert [c.as_dict() for c in best.runtime_candidates] == expected["runtime_candidates"]
    weighed = [c["runtime"] for c in expected["runtime_candidates"]]
    assert len(weighed) > 1  # a choice was made: DeepSpeed and FSDP2 both run ZeRO-3 data parallel

    runtime = expected["runtime"]
    assert f"runtime {runtime}" in page.results.headline.text()
    advice = page.results.advice.toPlainText()
    assert f"{runtime} chosen, the most useful tokens/s that fits:" in advice
    assert all(f"{name} " in advice for name in weighed)

    switch_language("ru")
    advice_ru = page.results.advice.toPlainText()
    assert f"выбран {runtime}:" in advice_ru and "на GPU" in advice_ru and "chosen" not in advice_ru
