"""Typical prices from the store's SQL summaries, the bounded offer list, and model errors in any language.

Hand calculations used below:
- A100 80GB user quotes $2.00, $3.00 and EUR 2.00 at 1 EUR = 1.10 USD ($2.20): sorted 2.00, 2.20, 3.00, so the
  median is $2.20 (the euro quote); the 100 RUB quote has no rate and is left out, with a note saying so.
- H100 SXM reference points (planner/catalog/reference_prices.csv, docs/sources.md): 1.30, 2.75, 3.25, 3.49,
  3.90, 6.88, 12.29 $/GPU-h, median 3.49.
"""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from desktop.context import AppContext
from desktop.pages.plan import PlanPage
from desktop.plan_request import (
    OFFERS_PER_GROUP,
    PriceBook,
    build_plan_call,
    is_model_error,
    render_note,
    typical_price,
)
from desktop.plan_state import PlanInputs
from planner.errors import UserError
from planner.messages import msg
from planner.store import Store

PLAN_TIMEOUT_MS = 20_000


def add(
    store, gpu: str, price: float, currency: str = "USD", kind: str = "on-demand", offer: str = ""
) -> int:
    return store.rental_quotes.add(
        {"provider": "Hand cloud", "offer": offer or f"{gpu} {kind} {currency} {price}", "gpu": gpu,
         "gpus_per_instance": 1, "price_per_gpu_hour": price, "currency": currency, "kind": kind,
         "quoted_on": "2026-09-01", "source": "test"}
    )  # fmt: skip


@pytest.fixture
def store():
    with Store.open() as opened:
        yield opened


@pytest.fixture
def english_afterwards():
    yield
    from desktop.i18n import set_language

    set_language("en")


def test_typical_price_is_the_median_of_your_quotes_converted_and_a_missing_rate_is_named(qapp, store):
    store.settings.set_exchange_rate("EUR", 1.10, "2026-09-01")
    for price, currency in ((2.00, "USD"), (3.00, "USD"), (2.00, "EUR"), (100.0, "RUB")):
        add(store, "a100-sxm-80gb", price, currency)
    book, notes = PriceBook(store), []
    basis = typical_price(
        book, "a100-sxm-80gb", ("on-demand",), "USD", store.settings.exchange_rates(), notes
    )
    assert basis.price.currency == "USD" and basis.price.amount == pytest.approx(2.20)
    # the RUB quote is not counted
    assert render_note(basis.source) == "median of 3 of your quotes ($2.00 to $3.00/GPU-h)"
    assert len(notes) == 1 and "RUB" in render_note(notes[0]) and "USD" in render_note(notes[0])

    # No quote of your own: the shipped reference points, median 3.49.
    basis = typical_price(book, "h100-sxm", ("on-demand",), "USD", store.settings.exchange_rates(), [])
    assert basis.price.amount == pytest.approx(3.49)
    assert render_note(basis.source) == "median of 7 reference quotes ($1.30 to $12.29/GPU-h)"
    assert typical_price(book, "h100-sxm", ("spot",), "USD", store.settings.exchange_rates(), []) is None

    # The book notices a new quote (the store's data stamp changed): 2.00, 2.20, 2.50, 3.00 -> (2.20 + 2.50) / 2.
    add(store, "a100-sxm-80gb", 2.50)
    basis = typical_price(book, "a100-sxm-80gb", ("on-demand",), "USD", store.settings.exchange_rates(), [])
    assert basis.price.amount == pytest.approx(2.35)
    assert render_note(basis.source).startswith("median of 4 of your quotes")


def test_one_quote_of_your_own_is_named_with_its_original_currency(qapp, store):
    store.settings.set_exchange_rate("EUR", 1.10, "2026-09-01")
    add(store, "l4", 0.50, "EUR")
    basis = typical_price(PriceBook(store), "l4", ("on-demand",), "USD", store.settings.exchange_rates(), [])
    assert basis.price.amount == pytest.approx(0.55)  # 0.50 EUR x 1.10
    # converted, the quoted original beside it
    assert render_note(basis.source) == "your quote: ≈\u00a0$0.55 (€0.50)/GPU-h"


@pytest.fixture
def context(qtbot, store):
    ctx = AppContext(store=store)
    yield ctx
    ctx.shutdown()


def open_page(qtbot, context) -> PlanPage:
    page = PlanPage(context)
    qtbot.addWidget(page)
    page.resize(1300, 850)
    page.show()
    qtbot.waitUntil(
        lambda: page.state.result is not None or page.state.error is not None, timeout=PLAN_TIMEOUT_MS
    )
    return page


def close_page(page: PlanPage, context) -> None:
    page.shutdown()
    page.state.dirty = False
    context.jobs.wait_for_done(10_000)


def offer_keys(page) -> list[str]:
    group = page.hardware.groups["quote"]
    return [group.child(i).data(0, Qt.ItemDataRole.UserRole) for i in range(group.childCount())]


def test_the_hardware_list_offers_the_cheapest_few_and_keeps_a_ticked_dear_offer(qtbot, context, store):
    ids = {price: add(store, "a10", price) for price in range(1, 21)}  # 20 A10 on-demand quotes, $1 .. $20
    references = [q["id"] for q in store.rental_quotes.find() if q["origin"] == "reference"]
    page = open_page(qtbot, context)
    try:
        keys = offer_keys(page)
        cheapest = [f"quote:{ids[price]}" for price in range(1, OFFERS_PER_GROUP + 1)]
        assert [k for k in keys if k in {f"quote:{i}" for i in ids.values()}] == cheapest
        assert {f"quote:{i}" for i in references} <= set(keys)  # every reference point is still offered
        header = page.hardware.groups["quote"].text(0)
        assert f"({len(references) + OFFERS_PER_GROUP} of {len(references) + 20})" in header

        dearest = f"quote:{ids[20]}"  # not among the cheapest, ticked by a saved plan: listed and ticked
        page.state.replace_inputs(PlanInputs(task="lora", preset="llama-3.1-8b", hardware=(dearest,),
                                             exact_gpus=1), dirty=False)  # fmt: skip
        page.sync_widgets()
        assert page.hardware.item_for(dearest).checkState(0) == Qt.CheckState.Checked
        with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
            page.replan()
        option = page.state.selected_option
        assert option.gpu.id == "a10" and option.cost.amount == pytest.approx(option.gpu_hours * 20.0)
    finally:
        close_page(page, context)


def test_a_plan_call_reads_only_the_ticked_quotes(qapp, store, monkeypatch):
    from planner.gpus import load_catalog

    quote = add(store, "h100-sxm", 4.10)
    monkeypatch.setattr(store.rental_quotes, "find", lambda *a, **k: pytest.fail("listed every quote"))
    inputs = PlanInputs(
        task="lora", preset="llama-3.1-8b", hardware=(f"quote:{quote}", "catalog:l40s", "quote:999999")
    )
    call = build_plan_call(inputs, load_catalog(), store, "USD", store.settings.exchange_rates())
    assert call.prices["h100-sxm"].amount == 4.10  # the ticked quote's own price
    # catalog GPU: typical price
    assert render_note(call.price_sources["l40s"]).startswith("median of 2 reference quotes")
    assert {gpu.id for gpu in call.gpus} == {"h100-sxm", "l40s"}  # a deleted quote is simply not offered


def test_model_errors_are_recognised_by_code_or_origin_not_by_their_words(tmp_path):
    assert is_model_error(UserError.of(msg("error.unknown_model", text="x", presets="a")))
    assert is_model_error(UserError.of(msg("error.no_such_path", path="/nowhere/config.json")))
    assert not is_model_error(UserError.of(msg("error.no_gpu_type")))
    assert not is_model_error(UserError("the model words alone mean nothing"))
    broken = tmp_path / "config.json"
    broken.write_text("{not json", encoding="utf-8")
    from planner.gpus import load_catalog

    with pytest.raises(UserError) as raised:  # a config.json error carries no code: its origin decides
        build_plan_call(
            PlanInputs(model_kind="path", model_path=str(broken)), load_catalog(), None, "USD", None
        )
    assert is_model_error(raised.value)


def test_a_model_error_shows_under_the_model_in_russian_too(qtbot, context, english_afterwards):
    from desktop.i18n import switch_language

    page = open_page(qtbot, context)
    try:
        switch_language("ru")
        page.state.update(model_kind="path", model_path="/nowhere/config.json")
        with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
            page.replan()
        error = page.state.error
        assert "/nowhere/config.json" in error and "model" not in error.lower()  # Russian words
        assert page.model_panel.summary.text() == error
        assert "#cf222e" in page.model_panel.summary.styleSheet()

        page.state.update(model_kind="preset", preset="llama-3.1-8b", hardware=())  # not about the model
        with qtbot.waitSignal(page.planned, timeout=PLAN_TIMEOUT_MS):
            page.replan()
        assert page.state.error and page.model_panel.summary.text() != page.state.error
    finally:
        close_page(page, context)
