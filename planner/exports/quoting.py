"""Writing untrusted text into shell scripts, YAML and comments without it ever running or breaking out.

A model's name comes from config.json `_name_or_path` or a folder name: any config.json downloaded from a hub
can carry a newline, `$(...)`, backticks or quotes. Everything an export writes into launch.sh goes through
shlex.quote (a single-quoted word: bash expands nothing inside it); every YAML string is double-quoted with
every character outside printable ASCII escaped (\\uXXXX, \\UXXXXXXXX: valid YAML 1.1 and 1.2); comments keep
printable characters only, so no newline can end a comment and start a command. Names used as a model
reference are also validated.
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Mapping

# A Hugging Face repo id: "owner/name", letters, digits, '.', '_', '-' (the Hub's own rule; 96 characters each).
_REPO_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,95}/[A-Za-z0-9][A-Za-z0-9._-]{0,95}")
_HF_URL = re.compile(r"https://huggingface\.co/([^/\s]+/[^/\s]+)(?:/|$)")
_UNPRINTABLE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")
MAX_PATH_CHARS = 4096


def sh(value: object) -> str:
    """One shell word that bash passes through literally (shlex.quote: single quotes, nothing expands)."""
    return shlex.quote(str(value))


def comment_text(text: object) -> str:
    """Text safe inside a '#' comment of a shell script or YAML file: printable characters on one line."""
    return _UNPRINTABLE.sub("?", str(text))


def is_repo_id(text: str) -> bool:
    return bool(_REPO_ID.fullmatch(text)) and ".." not in text


def repo_id_from_url(url: str) -> str | None:
    """ "https://huggingface.co/meta-llama/Llama-3.1-70B/blob/main/config.json" -> "meta-llama/Llama-3.1-70B"."""
    match = _HF_URL.match(url)
    if match and is_repo_id(match.group(1)):
        return match.group(1)
    return None


def safe_local_path(text: str) -> str | None:
    """A local path usable as a model reference (quoted when written), made absolute against the folder the
    export runs in (launch.sh is started from anywhere: a relative path typed here would point elsewhere there);
    None when it carries control characters or is absurdly long: such a name is refused rather than written."""
    if not text or len(text) > MAX_PATH_CHARS or _UNPRINTABLE.search(text):
        return None
    absolute = os.path.abspath(os.path.expanduser(text))
    return absolute if len(absolute) <= MAX_PATH_CHARS else None


def yaml_scalar(value: object) -> str:
    """A YAML scalar: booleans and numbers as such, every string double-quoted (JSON escaping)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if value is None:
        return "null"
    return '"' + "".join(_yaml_char(char) for char in str(value)) + '"'


def _yaml_char(char: str) -> str:
    """One character of a double-quoted YAML scalar, the output pure ASCII. A character outside the BMP is
    written as one \\U escape: JSON's surrogate pair (\\ud83d\\ude00) reads back in PyYAML (which accelerate
    uses) as two lone surrogates, not the character."""
    code = ord(char)
    if char in '"\\':
        return "\\" + char
    if 0x20 <= code < 0x7F:
        return char
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def to_yaml(mapping: Mapping[str, object], indent: int = 0) -> str:
    """Block-style YAML for a nested mapping of scalars (keys are the exporter's own identifiers)."""
    lines = []
    pad = "  " * indent
    for key, value in mapping.items():
        if isinstance(value, Mapping):
            lines.append(f"{pad}{key}:")
            lines.append(to_yaml(value, indent + 1).rstrip("\n"))
        else:
            lines.append(f"{pad}{key}: {yaml_scalar(value)}")
    return "\n".join(lines) + "\n"
