"""Errors a user can cause. The CLI prints them as one line on stderr with exit code 2; the GUI shows them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from planner.messages import Message


class UserError(ValueError):
    """Bad input the user can fix: an unknown model, a malformed file, an impossible layout, a bad number.

    The message names the problem in one line, in plain words, without a traceback. ``message`` is the same
    as a planner.messages.Message when the raiser built one (the GUI renders it in the chosen language), else
    None (the English text is all there is).
    """

    def __init__(self, text: str = "", message: Message | None = None):
        super().__init__(text)
        self.message = message

    @classmethod
    def of(cls, message: Message) -> UserError:
        """A UserError whose text is `message` in English."""
        return cls(message.text, message)
