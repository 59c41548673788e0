"""The model presets of planner/catalog/models.json (each with the URL of the config.json it was copied from and
its date), looked up by id or display name."""

from __future__ import annotations

import dataclasses
import functools
import json
import re
from importlib import resources
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from planner.models.spec import ModelSpec, validate_spec

_SPEC_FIELDS = {f.name for f in dataclasses.fields(ModelSpec)}


def _spec_from_record(record: dict[str, Any]) -> ModelSpec:  # Any: one record of models.json
    values = {key: value for key, value in record.items() if key in _SPEC_FIELDS}
    return validate_spec(ModelSpec(**values), where=f"catalog model {record.get('id')}")


@functools.lru_cache(maxsize=1)
def preset_specs() -> tuple[ModelSpec, ...]:
    text = resources.files("planner.catalog").joinpath("models.json").read_text(encoding="utf-8")
    return tuple(_spec_from_record(record) for record in json.loads(text)["models"])


def list_presets() -> list[ModelSpec]:
    """The model presets of planner/catalog/models.json, in catalog order."""
    return list(preset_specs())


def get_preset(name: str) -> ModelSpec:
    """A preset by id ("llama-3.1-70b") or display name ("Llama 3.1 70B"), case-insensitive."""
    wanted = normalise_name(name)
    for spec in preset_specs():
        if wanted in (normalise_name(spec.id), normalise_name(spec.name)):
            return spec
    known = ", ".join(spec.id for spec in preset_specs())
    raise UserError.of(msg("error.unknown_preset", name=name, presets=known))


def normalise_name(text: str) -> str:
    return re.sub(r"[\s_]+", "-", text.strip().lower())
