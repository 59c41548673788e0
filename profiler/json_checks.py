"""Checkers of parsed JSON values, each naming the path of the value it refuses (ReportError): types, bounds, timestamps, lists, records."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import NoReturn

from profiler.jsontypes import JSONValue

# Every string field (names, hostnames, reasons, methods) and telemetry reading name: a hostname is at most 253
# characters and the probe cuts its error texts to 300-400, so anything longer is not a report gpu-probe wrote,
# and it would break the tables and charts that show it. The schema file says the same (maxLength).
MAX_TEXT_CHARS = 1000


# SQLite stores integers in 64 bits (https://www.sqlite.org/datatype3.html): a bigger one cannot be stored.
MAX_STORED_INT = 2**63 - 1


class ReportError(ValueError):
    """A probe report that cannot be trusted: not JSON, too big, unknown version, a missing or mistyped field.

    The message names the field path (``devices[0].measurements[1].unit``) and what was wrong with it.
    """


Checker = Callable[[object, str], None]


def _type_name(value: object) -> str:
    if value is None:
        return "null"
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str"), (list, "list")):
        if isinstance(value, kind):
            return name
    return "object" if isinstance(value, dict) else type(value).__name__


def _fail(path: str, expected: str, value: object) -> NoReturn:
    raise ReportError(f"{path or '<root>'}: expected {expected}, got {_type_name(value)} {short_repr(value)}")


def short_repr(value: object) -> str:
    """A short sample of a scalar for a message (a 5,000-digit integer is not turned into text whole)."""
    if isinstance(value, (dict, list)):
        return ""
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= 10**60:
        return "(an integer of more than 60 digits)"
    text = json.dumps(value, default=str)
    return f"({text[:60]})" if text else ""


def _as_string(value: object, path: str) -> str:
    if not isinstance(value, str):
        _fail(path, "a string", value)
    check_short_enough(value, path)
    return value


def check_string(value: object, path: str) -> None:
    _as_string(value, path)


def check_short_enough(text: str, path: str) -> None:
    if len(text) > MAX_TEXT_CHARS:
        raise ReportError(
            f"{path}: text of {len(text):,} characters; the limit is {MAX_TEXT_CHARS} characters"
        )
    check_valid_unicode(text, path)  # a lone surrogate ("\udcff" in the JSON): no file or database holds it


def check_nonempty_string(value: object, path: str) -> None:
    if not isinstance(value, str) or not value.strip():
        _fail(path, "a non-empty string", value)
    check_short_enough(value, path)


def check_bool(value: object, path: str) -> None:
    if not isinstance(value, bool):
        _fail(path, "true or false", value)


def as_int(value: object, path: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        _fail(path, "an integer", value)
    check_storable(value, path)
    return value


def check_storable(value: int, path: str) -> None:
    if abs(value) > MAX_STORED_INT:
        raise ReportError(
            f"{path}: an integer {short_repr(value)[1:-1]} beyond the 64-bit range (at most 2**63 - 1)"
        )


def check_nonneg_int(value: object, path: str) -> None:
    if as_int(value, path) < 0:
        raise ReportError(f"{path}: expected a non-negative integer, got {short_repr(value)[1:-1]}")


def _as_number(value: object, path: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, "a finite number", value)
    if isinstance(value, int):
        check_storable(value, path)
    try:
        number = float(value)
    except OverflowError:  # an integer beyond float range
        _fail(path, "a finite number", value)
    if not math.isfinite(number):
        _fail(path, "a finite number", value)
    return number


def _number(value: object, path: str) -> None:
    _as_number(value, path)


def check_nonneg_number(value: object, path: str) -> None:
    if _as_number(value, path) < 0:
        raise ReportError(f"{path}: expected a non-negative number, got {short_repr(value)[1:-1]}")


def check_fraction(value: object, path: str) -> None:
    number = _as_number(value, path)
    if not 0 <= number <= 1:
        raise ReportError(f"{path}: expected a fraction between 0 and 1, got {number}")


_TIMESTAMP = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})?$")


def check_iso_timestamp(value: object, path: str) -> None:
    """Date and time, ISO-8601 (the same pattern as the JSON Schema file), and a real calendar date."""
    text = _as_string(value, path)
    try:
        if not _TIMESTAMP.match(text):
            raise ValueError
        datetime.fromisoformat(text[:-1] + "+00:00" if text.endswith("Z") else text)
    except ValueError:
        raise ReportError(f"{path}: expected an ISO-8601 timestamp, got {text[:40]!r}") from None


def nullable(inner: Checker) -> Checker:
    def check(value: object, path: str) -> None:
        if value is not None:
            inner(value, path)  # the inner message names what a non-null value must be

    return check


def one_of(*choices: JSONValue) -> Checker:
    def check(value: object, path: str) -> None:
        if value not in choices or isinstance(value, bool) != isinstance(choices[0], bool):
            shown = ", ".join(json.dumps(c) for c in choices)
            raise ReportError(
                f"{path}: expected one of {shown}, got {short_repr(value)[1:-1] or _type_name(value)}"
            )

    return check


def list_of(item: Checker) -> Checker:
    def check(value: object, path: str) -> None:
        if not isinstance(value, list):
            _fail(path, "a list", value)
        for i, element in enumerate(value):
            item(element, f"{path}[{i}]")

    return check


def as_object(value: object, path: str) -> dict[str, object]:
    if not isinstance(value, dict):
        _fail(path, "an object", value)
    return value


def check_object(value: object, path: str) -> None:
    as_object(value, path)


def record_checker(required: Mapping[str, Checker], optional: Mapping[str, Checker] | None = None) -> Checker:
    """An object with these required keys (and optional ones); extra keys are allowed (additive changes)."""

    def check(value: object, path: str) -> None:
        record = as_object(value, path)
        prefix = f"{path}." if path else ""
        for key, checker in required.items():
            if key not in record:
                raise ReportError(f"{prefix}{key}: missing required field")
            checker(record[key], f"{prefix}{key}")
        for key, checker in (optional or {}).items():
            if key in record:
                checker(record[key], f"{prefix}{key}")

    return check


optional_string = nullable(check_string)


optional_number = nullable(_number)


optional_nonneg_int = nullable(check_nonneg_int)


optional_nonneg_number = nullable(check_nonneg_number)


MAX_SHOWN_KEY_CHARS = 60


def shown_key(key: object) -> str:
    """A key read from the file as a refusal names it in a field path: control characters and lone surrogates
    escaped (a\\rb, \\x1b, \\udcff) and at most MAX_SHOWN_KEY_CHARS, so that the message stays one line and sends
    nothing to the terminal (a "details" key "a\\rb" once returned the cursor mid-message; found by make fuzz)."""
    text = "".join(char if char.isprintable() else repr(char)[1:-1] for char in str(key))
    return text if len(text) <= MAX_SHOWN_KEY_CHARS else text[: MAX_SHOWN_KEY_CHARS - 1] + "…"


def check_valid_unicode(text: str, path: str) -> None:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ReportError(f"{path}: text that is not valid Unicode (a lone surrogate)") from None
