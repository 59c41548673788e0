"""Money in a named currency and conversion through user-set exchange rates.

Rates are never assumed: converting between two different currencies without a stored rate is a UserError that
tells the user where to set one. USD is the pivot (every rate is "1 unit of X = r US dollars").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from planner.errors import UserError
from planner.messages import msg

CURRENCIES = ("USD", "EUR", "RUB")
PIVOT = "USD"


def normalise_currency(code: str) -> str:
    """ "usd" -> "USD"; UserError for anything that is not a 3-letter code."""
    text = (code or "").strip().upper()
    if len(text) != 3 or not text.isalpha():
        raise UserError.of(msg("error.currency_code", code=code))
    return text


@dataclass(frozen=True)
class Money:
    """An amount in one currency. Arithmetic only between equal currencies (convert first)."""

    amount: float
    currency: str = "USD"

    def __post_init__(self) -> None:
        object.__setattr__(self, "currency", normalise_currency(self.currency))
        object.__setattr__(self, "amount", float(self.amount))

    def _same(self, other: Money) -> None:
        if other.currency != self.currency:
            raise UserError.of(msg("error.currency_mismatch", other=other.currency, currency=self.currency))

    def __add__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount + other.amount, self.currency)

    def __sub__(self, other: Money) -> Money:
        self._same(other)
        return Money(self.amount - other.amount, self.currency)

    def __mul__(self, factor: float) -> Money:
        return Money(self.amount * float(factor), self.currency)

    __rmul__ = __mul__

    def __truediv__(self, divisor: float) -> Money:
        return Money(self.amount / float(divisor), self.currency)

    def as_dict(self) -> dict[str, object]:
        """The JSON shape {"amount", "currency"} (docs/cli.md, the command line's JSON contract)."""
        return {"amount": self.amount, "currency": self.currency}

    def __str__(self) -> str:
        return format_money(self)


@dataclass(frozen=True)
class ExchangeRates:
    """to_usd: currency -> how many US dollars one unit buys (EUR 1.08, RUB 0.011); as_of: ISO date."""

    to_usd: Mapping[str, float] = field(default_factory=dict)
    as_of: str = ""

    def __post_init__(self) -> None:
        rates = {}
        for code, rate in dict(self.to_usd).items():
            rate = float(rate)
            if not rate > 0:
                raise UserError.of(msg("error.rate_positive", code=code, rate=rate))
            rates[normalise_currency(code)] = rate
        rates[PIVOT] = 1.0
        object.__setattr__(self, "to_usd", MappingProxyType(rates))

    def rate(self, source: str, target: str) -> float:
        """How many units of `target` one unit of `source` buys. UserError when a rate is missing."""
        source, target = normalise_currency(source), normalise_currency(target)
        if source == target:
            return 1.0
        for code in (source, target):
            if code not in self.to_usd:
                raise UserError.of(msg("error.no_exchange_rate", source=source, target=target))
        return self.to_usd[source] / self.to_usd[target]


def convert(money: Money, currency: str, rates: ExchangeRates | None) -> Money:
    """`money` in `currency`. Same currency needs no rate; otherwise a missing rate is a UserError."""
    currency = normalise_currency(currency)
    if money.currency == currency:
        return money
    if rates is None:
        raise UserError.of(msg("error.no_exchange_rate", source=money.currency, target=currency))
    return Money(money.amount * rates.rate(money.currency, currency), currency)


_SYMBOLS = {"USD": "$", "EUR": "€", "RUB": "₽"}


def format_money(money: Money, digits: int | None = None) -> str:
    """For people: "$3.75", "€1,234", "276 480 ₽" style; whole units above 100, cents below."""
    if digits is None:
        digits = 0 if abs(money.amount) >= 100 else 2
    sign = "-" if money.amount < 0 else ""
    number = f"{abs(money.amount):,.{digits}f}"
    symbol = _SYMBOLS.get(money.currency)
    if money.currency == "RUB":
        return f"{sign}{number.replace(',', ' ')} {symbol}"
    return f"{sign}{symbol}{number}" if symbol else f"{sign}{number} {money.currency}"
