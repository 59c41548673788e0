"""A language switch words the Plan page again from what the plan keeps (planner Messages, desktop Text), without
planning again: the same result object stays, and the advice, price sources and errors read Russian.

Expected Russian words are the catalog's own translations (assets/i18n/gpu_advisor_ru.ts): "Price for {0}: {1}"
is "Цена для {0}: {1}" and "reference quote" / "median of {0} reference quotes" start "медиана" or "справочн".
"""

from __future__ import annotations

import pytest

PLAN_TIMEOUT_MS = 20_000


@pytest.fixture
def english_afterwards():
    yield
    from desktop.i18n import switch_language

    switch_language("en")


def _count_plans(monkeypatch) -> list[int]:
    """Count the plans the page runs (its build_and_run), keeping what they do."""
    import desktop.pages.plan as plan_page

    calls = [0]
    real = plan_page.build_and_run

    def counting(*args, **kwargs):
        calls[0] += 1
        return real(*args, **kwargs)

    monkeypatch.setattr(plan_page, "build_and_run", counting)
    return calls


def test_a_language_switch_rewords_the_plan_without_planning_again(
    open_plan_page, qtbot, monkeypatch, english_afterwards
):
    from desktop.i18n import switch_language

    page = open_plan_page((1300, 850))
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.replan()
    result, advice_en = page.state.result, page.results.advice.toPlainText()
    assert result is not None and "Price for" in advice_en  # the default inputs price their catalog GPUs
    calls = _count_plans(monkeypatch)

    switch_language("ru")

    assert calls[0] == 0 and page.state.result is result  # nothing was planned again
    advice_ru = page.results.advice.toPlainText()
    assert "Цена для" in advice_ru and "Price for" not in advice_ru
    assert "median of" not in advice_ru and "reference quote" not in advice_ru  # the price sources too


def test_a_failed_plan_says_why_in_the_new_language_without_planning_again(
    open_plan_page, qtbot, monkeypatch, english_afterwards
):
    from desktop.i18n import switch_language

    page = open_plan_page((1300, 850))
    page.state.update(model_kind="path", model_path="/nowhere/config.json")
    with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
        page.replan()
    assert page.state.error == "no such file or folder: /nowhere/config.json"  # planner TEMPLATES, English
    calls = _count_plans(monkeypatch)

    switch_language("ru")

    assert calls[0] == 0
    assert "/nowhere/config.json" in page.state.error and "no such file" not in page.state.error
    assert page.state.error in page.results.headline.text()
