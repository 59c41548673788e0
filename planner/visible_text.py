"""Control characters in text from files, made visible (issue 30 item 1).

A config's `_name_or_path`, a CSV provider or a probe report's label can hold escape sequences (ESC, the C1 CSI,
BEL, a carriage return). On a terminal they would retitle the window, recolour or clear the screen; in the GUI
they are invisible. The command line writes each as `\\uXXXX` (still valid inside a JSON string, see
planner/cli/terminal.py); the GUI shows the C0 ones as Unicode control pictures (␛, ␇, ␍) and the rest as
`\\uXXXX`. Newline and tab keep their meaning.
"""

from __future__ import annotations

import unicodedata

_CONTROLS = [
    code for code in range(0x100) if unicodedata.category(chr(code)) == "Cc" and chr(code) not in "\n\t"
]
_ESCAPES = {code: f"\\u{code:04x}" for code in _CONTROLS}
# U+2400..U+241F picture the C0 controls, U+2421 DEL (Unicode block "Control Pictures")
_PICTURES = {**_ESCAPES, **{code: chr(0x2400 + code) for code in _CONTROLS if code < 0x20}, 0x7F: "\u2421"}


def escaped_controls(text: str) -> str:
    """For a terminal: each control character but newline and tab as `\\uXXXX`."""
    return text.translate(_ESCAPES)


def pictured_controls(text: str) -> str:
    """For the GUI: C0 controls and DEL as control pictures, C1 controls as `\\uXXXX`."""
    return text.translate(_PICTURES)
