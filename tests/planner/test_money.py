"""Money and exchange rates: same-currency arithmetic, conversion through USD, missing rates are errors."""

from __future__ import annotations

import pytest

from planner.errors import UserError
from planner.money import ExchangeRates, Money, convert, format_money


def test_same_currency_needs_no_rate():
    assert convert(Money(10, "usd"), "USD", None) == Money(10, "USD")


def test_conversion_through_usd():
    rates = ExchangeRates({"EUR": 1.08, "RUB": 0.011}, as_of="2026-09-01")
    # 100 EUR = 108 USD = 108 / 0.011 RUB = 9,818.18 RUB (by hand)
    assert convert(Money(100, "EUR"), "USD", rates).amount == pytest.approx(108.0)
    assert convert(Money(100, "EUR"), "RUB", rates).amount == pytest.approx(9818.1818, rel=1e-6)
    assert convert(Money(1100, "RUB"), "USD", rates).amount == pytest.approx(12.1)


def test_missing_rate_is_a_user_error_never_assumed():
    with pytest.raises(UserError, match="no exchange rate for RUB->USD; set one in Settings"):
        convert(Money(1000, "RUB"), "USD", ExchangeRates({"EUR": 1.08}))
    with pytest.raises(UserError, match="no exchange rate"):
        convert(Money(1, "EUR"), "USD", None)


def test_arithmetic_refuses_mixed_currencies():
    assert Money(2, "USD") + Money(3, "USD") == Money(5, "USD")
    assert Money(3.75, "USD") * 73_728 == Money(276_480, "USD")
    with pytest.raises(UserError):
        Money(1, "USD") + Money(1, "EUR")


def test_bad_input():
    with pytest.raises(UserError):
        Money(1, "dollars")
    with pytest.raises(UserError):
        ExchangeRates({"EUR": 0})


def test_format_for_people():
    assert format_money(Money(276_480, "USD")) == "$276,480"
    assert format_money(Money(3.75, "USD")) == "$3.75"
    assert format_money(Money(1234, "RUB")) == "1 234 ₽"
