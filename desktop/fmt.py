"""Formatting numbers for people, on QLocale (the only place the desktop turns numbers into text).

Every function takes an optional ``locale`` (default: QLocale(), the application default that issue 9 sets
for the chosen language), so "1,234.5" in English becomes "1 234,5" in Russian. Units go through Qt
translation (context "fmt") so they can read "ГиБ" or "ТФЛОПС" where customary. Inputs are in base units:
bytes, seconds, FLOP/s, bytes/s, watts.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable
from typing import Protocol

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication, QDate, QLocale

_CURRENCY_SYMBOLS = {"USD": "$", "EUR": "€", "RUB": "₽"}

# Units translated inside the f-strings below: pyside6-lupdate does not read f-strings, so they are marked here.
_UNITS_IN_FSTRINGS = (
    QT_TRANSLATE_NOOP("fmt", "B"),
    QT_TRANSLATE_NOOP("fmt", "ms"),
    QT_TRANSLATE_NOOP("fmt", "s"),
    QT_TRANSLATE_NOOP("fmt", "min"),
    QT_TRANSLATE_NOOP("fmt", "h"),
    QT_TRANSLATE_NOOP("fmt", "days"),
    QT_TRANSLATE_NOOP("fmt", "TFLOPS"),
    QT_TRANSLATE_NOOP("fmt", "GFLOPS"),
    QT_TRANSLATE_NOOP("fmt", "GB/s"),
    QT_TRANSLATE_NOOP("fmt", "W"),
    QT_TRANSLATE_NOOP("fmt", "MHz"),
)


def _tr(text: str) -> str:
    return QCoreApplication.translate("fmt", text)


def _loc(locale: QLocale | None) -> QLocale:
    """The given locale, else the application default; the bare "C" locale reads as US English."""
    chosen = locale if locale is not None else QLocale()
    if chosen.language() == QLocale.Language.C:
        return QLocale(QLocale.Language.English, QLocale.Country.UnitedStates)
    return chosen


def number(value: float | None, decimals: int = 1, locale: QLocale | None = None) -> str:
    """A plain number with group separators: 1234.5 -> "1,234.5" (en) / "1 234,5" (ru)."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    return _loc(locale).toString(float(value), "f", decimals)


def integer(value: int | None, locale: QLocale | None = None) -> str:
    if value is None:
        return QCoreApplication.translate("fmt", "n/a")
    return _loc(locale).toString(int(value))


def significant(value: float | None, digits: int = 3, locale: QLocale | None = None) -> str:
    """About ``digits`` significant digits without scientific notation: 0.01234 -> "0.0123", 1234 -> "1,234"."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    magnitude = math.floor(math.log10(abs(value))) if value else 0
    decimals = max(0, digits - 1 - magnitude)
    return number(value, min(decimals, 6), locale)


def percent(fraction: float | None, decimals: int = 0, locale: QLocale | None = None) -> str:
    """A fraction as a percentage: 0.874 -> "87%" (the sign is placed the locale's way)."""
    if fraction is None or not math.isfinite(fraction):
        return QCoreApplication.translate("fmt", "n/a")
    text = number(fraction * 100.0, decimals, locale)
    return QCoreApplication.translate("fmt", "{0}%").format(text)


def bytes_(value: int | float | None, decimals: int = 1, locale: QLocale | None = None) -> str:
    """Binary sizes with the unit: 85899345920 -> "80.0 GiB", 512 MiB -> "512 MiB"."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    size_bytes = float(value)
    units = (
        (QT_TRANSLATE_NOOP("fmt", "TiB"), 2**40),
        (QT_TRANSLATE_NOOP("fmt", "GiB"), 2**30),
        (QT_TRANSLATE_NOOP("fmt", "MiB"), 2**20),
        (QT_TRANSLATE_NOOP("fmt", "KiB"), 2**10),
    )
    for unit, size in units:
        if abs(size_bytes) >= size:
            shown = size_bytes / size
            places = 0 if unit in ("MiB", "KiB") else decimals
            return f"{number(shown, places, locale)} {_tr(str(unit))}"  # unit marked with QT_TRANSLATE_NOOP above
    return f"{number(size_bytes, 0, locale)} {QCoreApplication.translate('fmt', 'B')}"


def gib(value: int | float | None, decimals: int = 1, locale: QLocale | None = None) -> str:
    """Always in GiB (tables of GPU memory read better with one unit)."""
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    return f"{number(float(value) / 2**30, decimals, locale)} {QCoreApplication.translate('fmt', 'GiB')}"


def duration(seconds: float | None, locale: QLocale | None = None) -> str:
    """Seconds to the largest sensible unit: 42 -> "42 s", 5400 -> "1.5 h", 3.2e6 -> "37.0 days"."""
    if seconds is None or not math.isfinite(seconds):
        return QCoreApplication.translate("fmt", "n/a")
    if abs(seconds) < 1:
        return f"{number(seconds * 1000, 0, locale)} {QCoreApplication.translate('fmt', 'ms')}"
    if abs(seconds) < 120:
        return f"{number(seconds, 1 if seconds < 10 else 0, locale)} {QCoreApplication.translate('fmt', 's')}"
    if abs(seconds) < 3600:
        return f"{number(seconds / 60, 0, locale)} {QCoreApplication.translate('fmt', 'min')}"
    if abs(seconds) < 3 * 86400:
        return f"{number(seconds / 3600, 1, locale)} {QCoreApplication.translate('fmt', 'h')}"
    return f"{number(seconds / 86400, 1, locale)} {QCoreApplication.translate('fmt', 'days')}"


def tflops(flops_per_s: float | None, decimals: int = 1, locale: QLocale | None = None) -> str:
    """FLOP/s as TFLOPS: 7.94e14 -> "794.0 TFLOPS"."""
    if flops_per_s is None or not math.isfinite(flops_per_s):
        return QCoreApplication.translate("fmt", "n/a")
    return f"{number(flops_per_s / 1e12, decimals, locale)} {QCoreApplication.translate('fmt', 'TFLOPS')}"


def flops(flops_per_s: float | None, locale: QLocale | None = None) -> str:
    """FLOP/s in a unit that keeps three figures: 7.94e14 -> "794 TFLOPS", a CPU's 1.2e11 -> "120 GFLOPS"."""
    if flops_per_s is None or not math.isfinite(flops_per_s):
        return QCoreApplication.translate("fmt", "n/a")
    if abs(flops_per_s) >= 1e12:
        return tflops(flops_per_s, 1, locale)
    return f"{significant(flops_per_s / 1e9, 3, locale)} {QCoreApplication.translate('fmt', 'GFLOPS')}"


def bandwidth(bytes_per_s: float | None, decimals: int = 0, locale: QLocale | None = None) -> str:
    """Bytes/s in decimal GB/s (vendors quote bandwidth in 10^9): 3.35e12 -> "3,350 GB/s"."""
    if bytes_per_s is None or not math.isfinite(bytes_per_s):
        return QCoreApplication.translate("fmt", "n/a")
    return f"{number(bytes_per_s / 1e9, decimals, locale)} {QCoreApplication.translate('fmt', 'GB/s')}"


def measurement(value: float | None, unit: str, locale: QLocale | None = None) -> str:
    """A probe measurement in its natural unit ("FLOP/s" -> TFLOPS, "B/s" -> GB/s)."""
    if unit == "FLOP/s":
        return flops(value, locale)
    if unit == "B/s":
        return bandwidth(value, 1, locale)
    return f"{significant(value, 3, locale)} {unit}"


def watts(value: float | None, locale: QLocale | None = None) -> str:
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    return f"{number(value, 0, locale)} {QCoreApplication.translate('fmt', 'W')}"


def celsius(value: float | None, locale: QLocale | None = None) -> str:
    if value is None or not math.isfinite(value):
        return QCoreApplication.translate("fmt", "n/a")
    return f"{number(value, 0, locale)} °C"


def currency_symbol(code: str) -> str:
    return _CURRENCY_SYMBOLS.get(code.upper(), code.upper())


def money(
    amount: float | None, currency: str, decimals: int | None = None, locale: QLocale | None = None
) -> str:
    """Money with its currency: (3.49, "USD") -> "$3.49" (ru: "3,49 USD"); (250, "RUB") -> "250.00 ₽".

    Small amounts keep more decimals (0.0042 $/PFLOP-hour would otherwise read "$0.00"); from a thousand on,
    whole units ("$2,588").
    """
    if amount is None or not math.isfinite(amount):
        return QCoreApplication.translate("fmt", "n/a")
    if decimals is None:
        decimals = 2 if abs(amount) >= 0.1 or amount == 0 else 4
        if abs(amount) >= 1_000:  # the cents of a thousand-dollar estimate are noise
            decimals = 0
    prefix, suffix = money_affixes(currency, locale)
    text = _loc(locale).toString(float(abs(amount)), "f", decimals)
    sign = "-" if amount < 0 else ""
    return f"{sign}{prefix}{text}{suffix}"


def money_affixes(currency: str, locale: QLocale | None = None) -> tuple[str, str]:
    """(prefix, suffix) around an amount, the same in every table, label and spin box of one language:
    English "$3.49", "€3.49", "250.00 ₽"; Russian "3,49 USD", "3,49 EUR", "250,00 ₽" (the code, as Russian
    price lists write foreign currencies; the rouble sign for roubles)."""
    code = currency.upper()
    if _loc(locale).language() == QLocale.Language.English and code in ("USD", "EUR"):
        return currency_symbol(code), ""
    return "", "\u00a0" + (currency_symbol(code) if code == "RUB" else code)


def money_obj(value: object, decimals: int | None = None, locale: QLocale | None = None) -> str:
    """A planner.money.Money (or a {"amount", "currency"} dict) through ``money``."""
    if value is None:
        return QCoreApplication.translate("fmt", "n/a")
    if isinstance(value, dict):
        return money(value.get("amount"), str(value.get("currency", "USD")), decimals, locale)
    return money(getattr(value, "amount", None), getattr(value, "currency", "USD"), decimals, locale)


def money_with_original(shown: object, original: object, locale: QLocale | None = None) -> str:
    """A converted amount with the original beside it: "≈ $3.25 (260.00 ₽)" (ru: "≈ 3,25 $ (260,00 ₽)").

    ``shown`` is the amount in the display currency, ``original`` the same money as quoted (Money objects or
    {"amount", "currency"} dicts). When the currencies are the same only ``shown`` is written. The "≈" marks the
    converted figure: it depends on the stored exchange rate, the original does not.
    """

    def currency_of(value: object) -> str:
        code = value.get("currency") if isinstance(value, dict) else getattr(value, "currency", None)
        return str(code or "").upper()

    if original is None or shown is None or currency_of(original) == currency_of(shown):
        return money_obj(shown, locale=locale)
    return f"≈\u00a0{money_obj(shown, locale=locale)} ({money_obj(original, locale=locale)})"


def date(value: str | _dt.date | None, locale: QLocale | None = None) -> str:
    """An ISO date (or datetime string) in the locale's short format."""
    if not value:
        return ""
    if isinstance(value, _dt.date):
        qdate = QDate(value.year, value.month, value.day)
    else:
        qdate = QDate.fromString(str(value)[:10], "yyyy-MM-dd")
        if not qdate.isValid():
            return str(value)
    loc = _loc(locale)
    pattern = loc.dateFormat(QLocale.FormatType.ShortFormat)
    if "yyyy" not in pattern:  # two-digit years are ambiguous next to quote dates
        pattern = pattern.replace("yy", "yyyy")
    return loc.toString(qdate, pattern)


def datetime_(value: str | None, locale: QLocale | None = None) -> str:
    """An ISO-8601 timestamp as "date hh:mm" in local time."""
    if not value:
        return ""
    try:
        moment = _dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return str(value)
    if moment.tzinfo is not None:
        moment = moment.astimezone()
    return f"{date(moment.date(), locale)} {moment:%H:%M}"


class _Band(Protocol):
    """What with_band reads of a planner.uncertainty.ErrorBand."""

    @property
    def low_fraction(self) -> float: ...
    @property
    def high_fraction(self) -> float: ...
    @property
    def cases(self) -> int: ...


BandLike = _Band  # what the charts and texts read of a band (public name)


def band(value: _Band | None, locale: QLocale | None = None) -> str:
    """A cross-validated error band as people read it: "−12% .. +15%, 23 runs" ("" without a band)."""
    if value is None:
        return ""
    low = number(value.low_fraction * 100, 0, locale)
    high = number(value.high_fraction * 100, 0, locale)
    from desktop.plurals import plurals

    runs = plurals().published_runs(int(value.cases))
    return QCoreApplication.translate("fmt", "{0}% .. +{1}%, {2}").format(low, high, runs)


def with_band(
    value: float | None,
    error: _Band | None,
    formatter: Callable[[float | None], str],
    locale: QLocale | None = None,
    compact: bool = False,
) -> str:
    """A figure with its error band when there is one: "5.8 h (-12% .. +15%, 23 published runs)"; compact
    (table cells): the band on a second line, "5.8 h" over "-12..+15%", so the column stays as narrow as
    its figures."""
    text = formatter(value)
    if error is None or value is None or not math.isfinite(value):
        return text
    if compact:
        low = number(error.low_fraction * 100, 0, locale)
        high = number(error.high_fraction * 100, 0, locale)
        return f"{text}\n{low}..+{high}%"
    return f"{text} ({band(error, locale)})"
