"""Structured messages: what the planner says to people, as a code plus raw values, rendered at the edges.

The planning core must not write sentences for one language: the desktop shows Russian, the command line and
JSON English. So the planner builds ``Message(code, params)`` objects and keeps an English rendering beside them
for the CLI; the desktop renders the same codes through Qt translation (desktop/messages.py) with locale-aware
numbers. Errors a person can fix carry one too (planner.errors.UserError.of).

Parameters are raw values with their units in the names, the same convention as the rest of the planner:
``*_bytes`` (bytes), ``*_s`` (seconds), ``*_fraction`` (0..1), counts as int, GPU and model names and
precisions as str, a planner.vocabulary.Layout as ``strategy``, Money objects, and nested Messages (a tuple of
Messages is a list of clauses). A renderer may format each kind its own way; ``render_en`` follows the format
spec written in the English template:

    {need_bytes:bytes}   1.0 TiB, 80 GiB (format_bytes)
    {host_bytes:gib2}    12.34 GiB (format_bytes in GiB with two decimals, the memory model's notes)
    {strategy:label}     planner.layout_text.layout_label ("ZeRO-1, TP 8, DP 4, micro-batch 1")
    {wall_time_s:days}   days, one decimal ("12.3")
    {ttft_s:ms}          milliseconds, three significant figures ("412 ms", "4.97 ms")
    {step_time_s:duration} seconds for people: "2.03 min", "8.33 s" (format_duration)
    {ideas:clauses}      a tuple of Messages joined with "; "
    {parts:list}         a tuple of Messages joined with ", "
    {sentences:sentences} a tuple of Messages, each after a space
    {value:number}       a number as the user typed it: 100,000,000 (whole) or 1e+40
    {gpus:gpus}          a GPU count with its noun: "1 GPU", "8 GPUs", "1,024 GPUs" (gpu_count)
    anything else        Python's format spec (":g", ":.1f", ":,"); Messages render as their English text

Two formatters write figures for people in the planner (the CLI, reports, assumption texts): format_bytes and
format_duration. The desktop has locale-aware twins in desktop/fmt.py that follow the same rules.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol

from planner.error_texts import ERROR_TEXTS
from planner.message_texts import TEXTS


@dataclass(frozen=True, eq=True)
class Message:
    """One thing the planner says: a stable code (a key of TEMPLATES) and the raw values it needs."""

    code: str
    params: Mapping[str, object] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "params", MappingProxyType(dict(self.params)))

    def __hash__(self) -> int:  # params may hold unhashable values; equal messages share a code
        return hash(self.code)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Message) and (self.code, dict(self.params)) == (
            other.code,
            dict(other.params),
        )

    @property
    def text(self) -> str:
        """The English text (what the CLI prints and JSON carries)."""
        return render_en(self)

    def __str__(self) -> str:
        return render_en(self)


def msg(code: str, /, **params: object) -> Message:
    """Message(code, params) with the parameters as keywords; the code must have an English template."""
    if code not in TEMPLATES:
        raise KeyError(f"no English template for message code {code!r}")
    return Message(code, params)


_BINARY_UNITS = ("B", "KiB", "MiB", "GiB", "TiB", "PiB")


def format_bytes(value: float, *, unit: str | None = None, decimals: int = 2) -> str:
    """Bytes for people, in binary units (the planner's one bytes formatter).

    Without `unit`: the largest unit that keeps the number at least 1, one decimal below 10 and none above
    (1.1 TiB, 80 GiB, 512 MiB, 512 B) -- for sentences. With `unit` ("GiB"): always that unit with `decimals`
    decimals and thousands separators (4.01 GiB, 1,234.5 GiB) -- for tables whose rows compare in one unit.
    """
    amount = float(value)
    if unit is not None:
        return f"{amount / 1024 ** _BINARY_UNITS.index(unit):,.{decimals}f} {unit}"
    index = 0
    while abs(amount) >= 1024 and index < len(_BINARY_UNITS) - 1:
        amount /= 1024
        index += 1
    if index == 0:
        return f"{int(amount)} B"
    text = f"{amount:.1f}" if abs(amount) < 10 else f"{amount:.0f}"
    return f"{text} {_BINARY_UNITS[index]}"


def gpu_count(value: Any) -> str:
    """A count of GPUs with the English noun in its number: "1 GPU", "1,024 GPUs"."""
    number = f"{value:,}" if isinstance(value, int) else f"{value:g}"
    return f"{number} GPU" if value == 1 else f"{number} GPUs"


def format_duration(seconds: float | None, missing: str = "n/a") -> str:
    """Seconds for people (the planner's one duration formatter): the CLI tables, the reports.

    The rule: the largest unit the value reaches -- under 1 s in ms, under 2 min in s, under 1 h in min, under
    3 days in h, beyond in days (the units and thresholds of desktop.fmt.duration) -- with three significant
    figures, so step times still compare ("20.7 s", "44.0 ms", "90.0 min" is "1.50 h", "29.7 days",
    "1,157 days"). None, NaN and infinity read `missing`.
    """
    if seconds is None or not math.isfinite(seconds):
        return missing
    value = float(seconds)
    for limit, divisor, unit in _DURATION_UNITS:
        if abs(value) < limit:
            return f"{_three_figures(value / divisor)} {unit}"
    return f"{_three_figures(value / 86400)} days"


# (below this many seconds, divide by, unit)
_DURATION_UNITS = ((1.0, 1e-3, "ms"), (120.0, 1.0, "s"), (3600.0, 60.0, "min"), (3 * 86400.0, 3600.0, "h"))


def _three_figures(value: float) -> str:
    """Three significant figures without an exponent: 0.0441 -> "0.0441", 20.74 -> "20.7", 1157.4 -> "1,157"."""
    if value == 0:
        return "0"
    decimals = max(0, 2 - math.floor(math.log10(abs(value))))
    return f"{value:,.{decimals}f}"


# ------------------------------------------------------------------------------------------------ templates
# One table of every code the planner emits, with its English text: the error texts (planner.error_texts) and
# the rest (planner.message_texts), whose codes never overlap (a test checks). desktop/messages.py holds a
# translated template for each of these codes (a test enumerates this table); keep the placeholders' names in step.

TEMPLATES: Mapping[str, str] = MappingProxyType({**TEXTS, **ERROR_TEXTS})


class EnglishFormatter(string.Formatter):
    """str.format with the planner's own format specs (see the module docstring)."""

    def format_field(self, value: Any, format_spec: str) -> str:
        special = _SPECIAL_SPECS.get(format_spec)
        if special is not None:
            return special(value)
        if isinstance(value, Message):
            return format(render_en(value), format_spec)
        return str(super().format_field(value, format_spec))


def _layout_words(value: Any) -> str:
    return render_en(layout_label(value))


class LayoutFields(Protocol):
    """What the words of a layout read of a planner.vocabulary.Layout (which builds on this module, so it is
    named here by its fields): the ZeRO stage (0-3), offload and recompute modes and the parallel degrees."""

    @property
    def zero(self) -> int: ...
    @property
    def offload(self) -> str: ...
    @property
    def recompute(self) -> str: ...
    @property
    def tp(self) -> int: ...
    @property
    def pp(self) -> int: ...
    @property
    def ep(self) -> int: ...
    @property
    def dp(self) -> int: ...
    @property
    def micro_batch(self) -> int: ...


def family_message(layout: LayoutFields) -> Message:
    """The sharding family: DDP, ZeRO-1/2, ZeRO-3/FSDP, with the offload if any (codes "family.*")."""
    if layout.zero == 0:
        name = msg("family.ddp")
    elif layout.zero == 3:  # ZeroStage.WEIGHTS
        name = msg("family.zero3")
    else:
        name = msg("family.zero", zero=int(layout.zero))
    if layout.offload == "optimizer":
        return msg("family.optimizer_offload", family=name)
    if layout.offload == "all":
        return msg("family.all_offload", family=name)
    return name


def layout_label(layout: LayoutFields) -> Message:
    """A short description: "ZeRO-1, TP 8, PP 2, DP 32, selective recompute, micro-batch 1"."""
    parts = [family_message(layout)]
    for code, degree in (("layout.tp", layout.tp), ("layout.pp", layout.pp), ("layout.ep", layout.ep)):
        if degree > 1:
            parts.append(msg(code, degree=degree))
    parts.append(msg("layout.dp", degree=layout.dp))
    if layout.recompute == "selective":
        parts.append(msg("layout.selective_recompute"))
    elif layout.recompute == "full":
        parts.append(msg("layout.full_recompute"))
    parts.append(msg("layout.micro_batch", micro_batch=layout.micro_batch))
    return msg("layout.label", parts=tuple(parts))


# The planner's own format specs (the module docstring), by name.
_SPECIAL_SPECS: dict[str, Callable[[Any], str]] = {
    "bytes": format_bytes,
    "gib2": lambda value: format_bytes(value, unit="GiB", decimals=2),
    "label": _layout_words,
    # what the user typed: 100,000,000 for whole numbers, 1e+40 for others
    "number": lambda value: f"{value:,}" if isinstance(value, int) else f"{value:g}",
    "days": lambda value: f"{value / 86400:.1f}",
    "gpus": lambda value: gpu_count(value),
    "duration": format_duration,
    "ms": lambda value: f"{value * 1000:,.0f} ms" if value >= 0.1 else f"{value * 1000:.3g} ms",
    "clauses": lambda value: "; ".join(_english(item) for item in value),
    "list": lambda value: ", ".join(_english(item) for item in value),
    "sentences": lambda value: "".join(" " + _english(item) for item in value),
}

_FORMATTER = EnglishFormatter()

# A template parsed into (literal text, field name, format spec, conversion) parts: string.Formatter.parse's
# output, which vformat would compute again for every message. None where a field is anything but a plain name
# with a plain spec (vformat then renders it: attribute, index and nested fields need its full machinery).
_Parts = tuple[tuple[str, str | None, str, str | None], ...]
_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def parse_template(template: str) -> _Parts | None:
    # a spec is None only beside no field (string.Formatter.parse): "" there changes nothing
    parts = tuple(
        (literal, name, spec or "", conversion)
        for literal, name, spec, conversion in _FORMATTER.parse(template)
    )
    plain = all(
        name is None
        or (_PLAIN_NAME.fullmatch(name) is not None and "{" not in spec and conversion in (None, "r", "s"))
        for _, name, spec, conversion in parts
    )
    return parts if plain else None


# Every template parsed once, when the module loads (TEMPLATES is fixed): a table like TEMPLATES itself, not a
# cache of anything a plan computes (about 1 ms at import for the few hundred templates).
_PARTS: Mapping[str, _Parts | None] = MappingProxyType(
    {code: parse_template(text) for code, text in TEMPLATES.items()}
)


def _english(value: object) -> str:
    return render_en(value) if isinstance(value, Message) else str(value)


def render_en(message: Message) -> str:
    """The English text of `message` (the CLI's and JSON's wording).

    What string.Formatter.vformat(template, (), params) writes, from the template's parts parsed once: each
    literal, then each field's value (params[name], as vformat's get_field looks a plain name up; !r and !s as
    its convert_field) through the same format_field.
    """
    parts = _PARTS[message.code]
    params = message.params
    if parts is None:
        return _FORMATTER.vformat(TEMPLATES[message.code], (), dict(params))
    out = []
    format_field = _FORMATTER.format_field
    for literal, name, spec, conversion in parts:
        out.append(literal)
        if name is not None:
            value = params[name]
            if conversion == "r":
                value = repr(value)
            elif conversion == "s":
                value = str(value)
            out.append(format_field(value, spec))
    return "".join(out)


def render_all_en(messages: Iterable[Message]) -> tuple[str, ...]:
    """English texts of a sequence of messages, in order."""
    return tuple(render_en(message) for message in messages)
