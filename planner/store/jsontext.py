"""JSON text for the values the store keeps as JSON (settings, saved plans, user GPU types)."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping

from planner.store.rows import JsonValue


def json_ready(value: object) -> JsonValue:
    """Tuples, mappings and dataclasses as plain JSON values."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        # field by field: dataclasses.asdict deep-copies, which mappingproxy fields refuse
        value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
    if isinstance(value, Mapping):
        return {str(k): json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_ready(v) for v in value]
    return value


def dumps(value: object) -> str:
    """`value` as JSON text; NaN and infinity are refused (ValueError), as JSON has no such numbers."""
    return json.dumps(json_ready(value), allow_nan=False)
