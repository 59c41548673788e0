"""Quotes keep their own currency; conversions use the rate stored (with its date) in Settings, never a guess.

Hand arithmetic throughout: 1 RUB = 0.011 USD (set as of 2026-09-01), so a 250 ₽/GPU-hour quote is
250 x 0.011 = 2.75 $/GPU-hour, and 2.75 / 0.011 = 250 ₽ again.
"""

from __future__ import annotations

import json

import pytest

from planner.cli import main as cli
from planner.errors import UserError
from planner.gpus import get_gpu
from planner.money import Money, convert
from planner.store import Store

RUB_TO_USD = 0.011
RATE_DATE = "2026-09-01"


def _store_with_rub_quote(gpu: str = "a10", price: float = 250.0) -> Store:
    store = Store.open()
    store.rental_quotes.add(
        {"provider": "Selectel", "offer": "1x GPU", "gpu": gpu, "gpus_per_instance": 1, "price_per_gpu_hour": price,
         "currency": "RUB", "kind": "on-demand", "quoted_on": "2026-09-03", "source": "test"}
    )  # fmt: skip
    return store


def test_a_rub_quote_converts_at_the_stored_rate_into_usd_and_back():
    store = _store_with_rub_quote()
    store.settings.set_exchange_rate("RUB", RUB_TO_USD, RATE_DATE)
    rates = store.settings.exchange_rates()
    assert rates.as_of == RATE_DATE  # the rate keeps its date
    (quote,) = store.rental_quotes.find(gpu="a10", mine_only=True)
    assert (quote["price_per_gpu_hour"], quote["currency"]) == (250.0, "RUB")  # stored as quoted
    in_usd = convert(Money(quote["price_per_gpu_hour"], quote["currency"]), "USD", rates)
    assert in_usd.currency == "USD"
    assert in_usd.amount == pytest.approx(2.75)  # 250 x 0.011
    back = convert(in_usd, "RUB", rates)
    assert back.amount == pytest.approx(250.0)  # 2.75 / 0.011
    store.close()


def test_rates_survive_reopening_and_a_new_rate_replaces_the_old_with_its_date():
    store = Store.open()
    store.settings.set_exchange_rate("RUB", RUB_TO_USD, RATE_DATE)
    store.close()
    store = Store.open()
    assert store.settings.exchange_rates().to_usd["RUB"] == RUB_TO_USD
    store.settings.set_exchange_rate("RUB", 0.0125, "2026-10-01")
    rates = store.settings.exchange_rates()
    assert (rates.to_usd["RUB"], rates.as_of) == (0.0125, "2026-10-01")
    # EUR through the USD pivot: 1 EUR = 1.08 USD, so 100 EUR = 108 / 0.0125 = 8640 RUB
    store.settings.set_exchange_rate("EUR", 1.08, "2026-10-01")
    assert convert(Money(100, "EUR"), "RUB", store.settings.exchange_rates()).amount == pytest.approx(8640.0)
    store.close()


def test_a_missing_rate_is_refused_and_points_to_settings():
    store = _store_with_rub_quote()
    rates = store.settings.exchange_rates()  # nothing set: only USD
    with pytest.raises(UserError, match=r"RUB->USD.*Settings"):
        convert(Money(250.0, "RUB"), "USD", rates)
    store.close()


def _plan_json(capsys, currency: str) -> dict:
    code = cli(["plan", "--model", "7b", "--task", "qlora", "--gpu", "a10", "--gpus", "1", "--tokens", "1e7",
                "--price-from-quotes", "--currency", currency, "--top", "1", "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    return json.loads(captured.out)


def test_cli_plan_prices_a_rub_quote_in_the_chosen_currency(capsys):
    # The A10 has no shipped reference quote, so the user's RUB quote is the only price.
    _store_with_rub_quote().close()
    store = Store.open()
    store.settings.set_exchange_rate("RUB", RUB_TO_USD, RATE_DATE)
    store.close()
    usd = _plan_json(capsys, "USD")
    option = usd["options"][0]
    assert option["cost"]["currency"] == "USD"
    assert option["cost"]["amount"] == pytest.approx(option["gpu_hours"] * 2.75)
    note = next(n for n in usd["notes"] if n.startswith("price for a10"))
    assert "≈ $2.75 (250 ₽)/GPU-hour" in note  # converted, with the original beside it
    rub = _plan_json(capsys, "RUB")
    option = rub["options"][0]
    assert option["cost"]["currency"] == "RUB"
    assert option["cost"]["amount"] == pytest.approx(option["gpu_hours"] * 250.0)


def test_cli_plan_without_a_rate_says_so_and_exits_2(capsys):
    _store_with_rub_quote().close()
    code = cli(["plan", "--model", "7b", "--task", "qlora", "--gpu", "a10", "--gpus", "1", "--tokens", "1e7",
                "--price-from-quotes", "--currency", "USD"])  # fmt: skip
    assert code == 2
    assert "no exchange rate for RUB->USD; set one in Settings" in capsys.readouterr().err


def test_cli_rentbuy_converts_the_catalog_purchase_price_and_default_electricity(capsys):
    store = Store.open()
    store.settings.set_exchange_rate("RUB", RUB_TO_USD, RATE_DATE)
    store.close()
    code = cli(["rentbuy", "--gpu", "h100-sxm", "--gpus", "1", "--rent-per-gpu-hour", "275", "--currency", "RUB",
                "--years", "1", "--json"])  # fmt: skip
    captured = capsys.readouterr()
    assert code == 0, captured.err
    result = json.loads(captured.out)
    assert result["totals"]["buy"]["currency"] == "RUB"
    capex_rub = get_gpu("h100-sxm").purchase_usd / RUB_TO_USD  # 27,500 $ -> 2,500,000 ₽
    # the $0.12/kWh default in roubles: 0.12 / 0.011 = 10.909 ₽/kWh; 700 W x PUE 1.4 = 0.98 kW per busy hour
    running_rub_per_hour = 0.700 * 1.4 * 0.12 / RUB_TO_USD
    assert result["running_cost_per_gpu_hour"]["amount"] == pytest.approx(running_rub_per_hour)
    # bought on day 0 and busy around the clock for a year of 365.25 days = 8766 hours
    assert result["totals"]["buy"]["amount"] == pytest.approx(capex_rub + 8766 * running_rub_per_hour)


def test_cli_rentbuy_in_rub_without_a_rate_asks_for_one(capsys):
    code = cli(["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "275", "--currency", "RUB"])
    assert code == 2
    err = capsys.readouterr().err
    assert "no exchange rate for USD->RUB" in err and "Settings" in err
    # with every price given in roubles no rate is needed
    code = cli(["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "275", "--currency", "RUB",
                "--purchase-per-gpu", "2500000", "--electricity-per-kwh", "8", "--json"])  # fmt: skip
    assert code == 0
    assert json.loads(capsys.readouterr().out)["totals"]["rent"]["currency"] == "RUB"
