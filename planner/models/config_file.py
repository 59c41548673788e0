"""Reading a config.json from anywhere: size and depth limits, one-line errors naming the file, and ConfigKeys, a
view of its keys with transformers' defaults that reports a missing or malformed key as a UserError."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from planner.errors import UserError
from planner.files import read_user_file
from planner.messages import Message, msg
from planner.models.generic import GENERIC_MAX_BILLIONS
from planner.models.hf_defaults import class_defaults, key_aliases
from profiler.report import json_int

MAX_CONFIG_BYTES = 4 * 2**20  # a config.json is a few KiB; refuse anything that is clearly not one
# Parameter totals an imported config.json or model folder may have: any positive count up to the generic model's
# ceiling. Past that the numbers are a typo or a damaged file (and would pass 2**63 in the JSON).
IMPORTED_MIN_PARAMS = 1  # any positive size: tiny test models (a few million parameters) are real models too
IMPORTED_MAX_PARAMS = int(GENERIC_MAX_BILLIONS * 1e9)  # 10,000B


class ConfigKeys:
    """A config.json dict over its model type's defaults that reports a missing or malformed key as a UserError
    naming the file and key."""

    def __init__(self, data: dict[str, Any], path: str, model_type: str = ""):  # Any: JSON values
        # Read as transformers reads it: a key spelled another way (the class's attribute_map) is the class's own
        # field; a key the file leaves out takes the class's default; a null stays None (transformers keeps it).
        self.model_type = model_type or str(data.get("model_type"))
        aliases = key_aliases(self.model_type)
        self.raw = {aliases.get(key, key): value for key, value in data.items()}
        self.data = {**class_defaults(self.model_type), **self.raw}
        self.path = path

    def first(self, *keys: str) -> str:
        """The first of these spellings the file or the class defines (the last one when none does)."""
        return next((key for key in keys if self.data.get(key) is not None), keys[-1])

    def int(self, key: str, default: int | None = None, *, allow_zero: bool = False) -> int:
        value = self.data.get(key, default)
        if value is None:
            if default is None:
                raise UserError.of(
                    msg("error.config_missing_key", path=self.path, key=key, model_type=self.model_type)
                )
            value = default
        if (
            isinstance(value, bool)
            or not isinstance(value, int)
            or value < 0
            or (value == 0 and not allow_zero)
        ):
            raise UserError.of(msg("error.config_key_int", path=self.path, key=key, value=value))
        return value

    def number(self, key: str, default: float) -> float:
        """A positive finite number (int or float); a null takes the default."""
        value = self.data.get(key, default)
        if value is None:
            return default
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < float("inf"):
            raise UserError.of(msg("error.not_a_number", what=f"{self.path}: key {key!r}", value=value))
        return float(value)

    def bool(self, key: str, default: bool) -> bool:
        value = self.data.get(key, default)
        if value is None:
            return default
        if not isinstance(value, bool):
            raise UserError.of(msg("error.config_key_bool", path=self.path, key=key, value=value))
        return value


def cannot_read(path: Path, exc: Exception) -> Message:
    return msg("error.cannot_read", path=str(path), kind=exc.__class__.__name__, reason=str(exc))


def read_config_json(path: Path) -> dict[str, Any]:
    try:
        size = path.stat().st_size
        if size > MAX_CONFIG_BYTES:
            raise UserError.of(msg("error.config_too_large", path=str(path), size=size))
    except FileNotFoundError:
        raise UserError.of(msg("error.file_missing", path=str(path))) from None
    except OSError as exc:
        raise UserError.of(cannot_read(path, exc)) from None
    raw = read_user_file(path, MAX_CONFIG_BYTES)  # a FIFO or /dev/zero is refused, not read forever
    try:
        text = raw.decode("utf-8-sig")  # a byte-order mark (Windows Notepad) is fine
    except UnicodeDecodeError as exc:
        raise UserError.of(cannot_read(path, exc)) from None
    data = parse_untrusted_json(text, path)
    if not isinstance(data, dict):
        raise UserError.of(msg("error.config_not_object", path=str(path), kind=type(data).__name__))
    return data


def parse_untrusted_json(text: str, path: Path) -> Any:
    """json.loads for a file from anywhere (a hub download): deep nesting (RecursionError) and whole numbers of
    more than MAX_INTEGER_DIGITS digits (planner/limits.py) are refused as bad JSON, in one line, like any other
    damage, before any arithmetic overflows on them."""
    try:
        data = json.loads(text, parse_int=json_int)
        json.dumps(data, ensure_ascii=False).encode("utf-8")  # a "\udcff" escape gives text no file can hold
        return data
    except UnicodeEncodeError:
        raise UserError.of(msg("error.config_bad_json", path=str(path), reason="text that is not valid Unicode "
                               "(a lone surrogate escape)", line=1)) from None  # fmt: skip
    except json.JSONDecodeError as exc:
        raise UserError.of(
            msg("error.config_bad_json", path=str(path), reason=exc.msg, line=exc.lineno)
        ) from None
    except RecursionError:
        raise UserError.of(
            msg("error.config_bad_json", path=str(path), reason="nested too deeply", line=1)
        ) from None
    except ValueError as exc:  # a whole number of more than MAX_INTEGER_DIGITS digits
        raise UserError.of(msg("error.config_bad_json", path=str(path), reason=str(exc), line=1)) from None


def check_imported_size(params: int, where: str, minimum: int = IMPORTED_MIN_PARAMS) -> None:
    """UserError naming `where` when an imported model's parameter count is outside 0.01B..10,000B."""
    if not minimum <= params <= IMPORTED_MAX_PARAMS:
        raise UserError.of(msg(
            "error.imported_size", where=where, billions=params / 1e9, low=minimum / 1e9,
            high=IMPORTED_MAX_PARAMS / 1e9,
        ))  # fmt: skip
