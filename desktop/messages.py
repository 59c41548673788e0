"""The planner's messages (planner.messages.Message) in the interface language, with locale-aware numbers.

The planning core says things as a code plus raw values (bytes, seconds, counts, names, a Strategy, Money); this
module looks up the translatable template of every code (desktop/message_templates.py, context "PlannerMessages")
and formats each value with desktop.fmt: "1,0 ТиБ", "3,7 с", "2 400,00 $". A code
without a template there, or a template whose placeholders do not match the values, falls back to the planner's
English text, so a new planner message is never lost, only untranslated (tests/desktop/test_message_rendering.py
checks that every planner code has a template there).

Value formatting follows the planner's naming convention: ``*_bytes`` -> fmt.bytes_, ``*_s`` -> fmt.duration,
Money -> fmt.money_obj, a Strategy -> the options table's strategy text, a nested Message -> its own rendering,
a tuple of Messages -> clauses joined with "; " (``sentences``: each after a space), int -> fmt.integer,
float -> fmt.significant, anything else -> str.
"""

from __future__ import annotations

import re
import string
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QCoreApplication

from desktop import fmt
from desktop.message_templates import CONTEXT, TEMPLATES
from desktop.quote_kinds import kind_name
from planner.visible_text import pictured_controls

if TYPE_CHECKING:  # annotations only: this module is imported before any plan is made
    from planner.search import PlanOption, PlanResult


def render(message: Any) -> str:
    """`message` (a planner.messages.Message) in the interface language; a plain string passes through.

    Falls back to the planner's English text when this table has no template for the code or its
    placeholders do not match the message's values. A control character in it (a file name, a provider or a
    config's name from a file) is shown as its control picture (planner/visible_text.py): every label, banner
    and tooltip made from a message shows ␛ where the text had ESC, instead of nothing (issue 30 item 1).
    """
    return pictured_controls(_rendered(message))


def _rendered(message: Any) -> str:
    from planner.messages import Message

    if not isinstance(message, Message):
        return str(message)
    template = TEMPLATES.get(message.code)
    if template is None:
        return message.text
    translated = QCoreApplication.translate(CONTEXT, str(template))
    if translated == str(template):  # English: the source text, whose GPU counts need their noun's number
        translated = _english_gpu_nouns(translated, message.params)
    try:
        values = {name: _value(name, value) for name, value in message.params.items()}
        return string.Formatter().vformat(translated, (), values)
    except (KeyError, IndexError, ValueError, AttributeError):
        return message.text


_GPU_COUNT = re.compile(r"\{(\w+)\} GPU(?:s|\(s\))")


def _english_gpu_nouns(template: str, params: Mapping[str, Any]) -> str:
    """An English template's "{gpus} GPUs" (or "GPU(s)") as "{gpus} GPU" where that count is 1: "1 GPU", never
    "1 GPUs" (a translation says its own plural)."""

    def noun(match: re.Match[str]) -> str:
        name = match.group(1)
        return f"{{{name}}} GPU" if params.get(name) == 1 else f"{{{name}}} GPUs"

    return _GPU_COUNT.sub(noun, template)


def render_error(exc: BaseException) -> str:
    """A UserError's text in the interface language: its planner Message, or the desktop text it carries
    (desktop.plan_request.PageInputError), else its English words."""
    text = getattr(exc, "text", None)
    if text is not None and callable(getattr(text, "render", None)):
        return str(text.render())
    message = getattr(exc, "message", None)
    return render(message) if message is not None else str(exc)


def _value(name: str, value: Any) -> str:
    """One parameter for people, by its kind and the unit in its name."""
    from planner.messages import Message
    from planner.money import Money

    if isinstance(value, Message):
        return render(value)
    if isinstance(value, (tuple, list)) and all(isinstance(item, Message) for item in value):
        texts = [render(item) for item in value]
        if name == "sentences":
            return "".join(" " + text for text in texts)
        return ", ".join(texts) if name == "parts" else "; ".join(texts)
    if isinstance(value, (tuple, list)):
        return ", ".join(str(item) for item in value)
    if isinstance(value, Money):
        return fmt.money_obj(value)
    if hasattr(value, "shown") and hasattr(value, "original"):  # a planner.resolver.QuotedPrice
        return fmt.money_with_original(value.shown, value.original)
    if name == "quote_kind":
        return kind_name(value)
    if name.endswith("_date"):
        return fmt.date(str(value))
    if hasattr(value, "zero") and hasattr(value, "dp"):  # a planner.search.Strategy
        from desktop.qmodels.plan_options import strategy_text

        return strategy_text(value)
    if isinstance(value, bool) or isinstance(value, str):
        return str(value)
    if name.endswith("_bytes"):
        return fmt.bytes_(value)
    if name.endswith("_per_s"):  # a rate ("tokens_per_s"), not seconds
        return fmt.number(value, 0)
    if name.endswith("_percent") and isinstance(value, float):  # as the English templates' {x:.1f}%
        return fmt.number(value, 1)
    if name.endswith("_s") and isinstance(value, float) and 0 < abs(value) < 0.01:  # "0.45 ms", not "0 ms"
        return f"{fmt.significant(value * 1000, 2)} {QCoreApplication.translate('fmt', 'ms')}"
    if name.endswith("_s"):
        return fmt.duration(value)
    if isinstance(value, int):
        return fmt.integer(value)
    if isinstance(value, float):
        return fmt.significant(value, 3)
    return str(value)


# -- what the Plan page shows ------------------------------------------------------------------------------


def advice_lines(result: PlanResult | None) -> list[str]:
    """A PlanResult's advice in the interface language (none before the first plan)."""
    return [] if result is None else [render(message) for message in result.advice_messages]


def note_lines(option: PlanOption) -> list[str]:
    """A PlanOption's notes in the interface language."""
    return [render(message) for message in option.note_messages]


def excluded_rows(excluded: Iterable[Any]) -> list[tuple[str, str]]:
    """(what, why) for each planner.search.Excluded, in the interface language."""
    return [(render(item.family_message), render(item.reason_message)) for item in excluded]
