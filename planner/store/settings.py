"""Settings kept in the database (JSON values by key): the display currency, exchange rates, electricity price.

The interface language is not here: the GUI needs it before it opens the database, so it lives in the
per-user QSettings file (desktop/context.py); the CLI takes --lang on each call.
"""

from __future__ import annotations

import json
import math

from planner.errors import UserError
from planner.messages import Message, msg
from planner.money import ExchangeRates, Money
from planner.store.connection import utc_now_iso
from planner.store.database import Repository, guarded
from planner.store.jsontext import dumps
from planner.store.quotes import parse_currency, parse_iso_date
from planner.store.rows import ExchangeRate, JsonValue

DISPLAY_CURRENCY = "display_currency"  # "USD" | "EUR" | "RUB" | another ISO code
EXCHANGE_RATES = "exchange_rates"  # {currency: {"to_usd": float, "as_of": "YYYY-MM-DD"}}
ELECTRICITY_PRICE = "electricity_price_per_kwh"  # {"amount": float, "currency": str}, per kWh


class Settings(Repository):
    @guarded
    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        """The stored value of `key` (as JSON reads it), or `default` when it was never set."""
        row = self._conn.execute("SELECT value FROM settings WHERE key = ?", [key]).fetchone()
        return json.loads(row[0]) if row else default

    def set(self, key: str, value: object) -> None:
        encoded = dumps(value)
        self._db.write(
            lambda: self._conn.execute(
                "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) ON CONFLICT (key) DO UPDATE SET "
                "value = excluded.value, updated_at = excluded.updated_at",
                [key, encoded, utc_now_iso()],
            )
        )

    # -- the display currency --------------------------------------------------------------------------------
    def display_currency(self, default: str = "USD") -> str:
        """The currency prices are shown in (upper case), `default` when unset."""
        return str(self.get(DISPLAY_CURRENCY, default) or default).upper()

    def set_display_currency(self, code: str) -> None:
        self.set(DISPLAY_CURRENCY, code.strip().upper())

    # -- exchange rates --------------------------------------------------------------------------------------
    def exchange_rate_entries(self) -> dict[str, ExchangeRate]:
        """currency -> the rate the user set, with its date (USD, the pivot, is never stored)."""
        stored = self.get(EXCHANGE_RATES, {}) or {}
        try:
            return {str(code): ExchangeRate(float(entry["to_usd"]), str(entry.get("as_of") or ""))
                    for code, entry in stored.items()}  # fmt: skip
        # JSON of another shape (another tool wrote it)
        except (AttributeError, KeyError, TypeError, ValueError):
            raise UserError.of(
                msg("error.db_bad_setting", path=str(self._db.path), key=EXCHANGE_RATES)
            ) from None

    def exchange_rates(self) -> ExchangeRates:
        """planner.money.ExchangeRates from the stored rates (USD is always 1); as_of is the oldest rate's date."""
        entries = self.exchange_rate_entries()
        dates = [entry.as_of for entry in entries.values() if entry.as_of]
        return ExchangeRates(
            to_usd={"USD": 1.0, **{code: entry.to_usd for code, entry in entries.items()}},
            as_of=min(dates) if dates else "",
        )

    def set_exchange_rate(self, currency: str, to_usd: float, as_of: str) -> None:
        """Record that 1 `currency` = `to_usd` US dollars on date `as_of` (YYYY-MM-DD)."""
        reasons: list[Message] = []
        code = parse_currency(currency, reasons)
        date_text = parse_iso_date(as_of, "as_of", reasons)
        if (
            isinstance(to_usd, bool)
            or not isinstance(to_usd, (int, float))
            or not math.isfinite(to_usd)
            or to_usd <= 0
        ):
            reasons.append(msg("quote.rate_positive"))
        if reasons or code is None:
            raise UserError.of(msg("error.rate_invalid", reasons=tuple(reasons)))

        def work() -> None:
            rates = dict(self.get(EXCHANGE_RATES, {}) or {})
            rates[code] = {"to_usd": float(to_usd), "as_of": date_text}
            self.set(EXCHANGE_RATES, rates)

        self._db.write(work)

    # -- the electricity price -------------------------------------------------------------------------------
    def electricity_price(self) -> Money | None:
        """The price of one kWh the user set; None when unset or no longer readable."""
        value = self.get(ELECTRICITY_PRICE, None)
        try:
            return Money(float(value["amount"]), str(value["currency"]))
        except (KeyError, TypeError, ValueError):  # never set (None), or a value an older version wrote
            return None

    def set_electricity_price(self, price: Money) -> None:
        self.set(ELECTRICITY_PRICE, {"amount": float(price.amount), "currency": price.currency})
