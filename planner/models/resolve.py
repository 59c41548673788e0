"""One entry point for what a user types as a model: a preset, "7b", a config.json or a model folder."""

from __future__ import annotations

import re
from pathlib import Path

from planner.errors import UserError
from planner.messages import Message, msg
from planner.models.folder import load_model_folder
from planner.models.generic import generic_model
from planner.models.hf_config import load_hf_config
from planner.models.presets import normalise_name, preset_specs
from planner.models.spec import ModelSpec

# A sign is accepted so that "--model=-7b" is refused as a size out of range, not as an unknown preset.
_BILLIONS = re.compile(r"^\s*(?:generic-)?([+-]?\d+(?:\.\d+)?)\s*b\s*$", re.IGNORECASE)


def resolve_model(text: str) -> ModelSpec:
    """A preset id or name, "7b"/"13.5B" (generic), a path to a config.json, or a model folder."""
    if not isinstance(text, str) or not text.strip():
        raise UserError.of(msg("error.no_model"))
    match = _BILLIONS.match(text)
    if match:
        return generic_model(float(match.group(1)))
    wanted = normalise_name(text)
    for spec in preset_specs():
        if wanted in (normalise_name(spec.id), normalise_name(spec.name)):
            return spec
    path = Path(text).expanduser()
    if path.is_dir():
        return load_model_folder(path)
    if path.is_file():
        return load_hf_config(path)
    if _looks_like_path(text):
        raise UserError.of(_missing_path_message(text))
    known = ", ".join(spec.id for spec in preset_specs())
    raise UserError.of(msg("error.unknown_model", text=text, presets=known))


def _looks_like_path(text: str) -> bool:
    """A path separator or a .json ending: the user meant a file or folder, not a preset name."""
    return "/" in text or "\\" in text or text.strip().lower().endswith(".json")


def _missing_path_message(text: str) -> Message:
    hub_id = re.fullmatch(r"[\w.-]+/[\w.-]+", text.strip())
    if hub_id and not text.strip().lower().endswith(".json"):
        # "meta-llama/Llama-3.1-8B" is a Hugging Face id; this app never downloads, so say what to do instead.
        return msg("error.no_such_path_hub_id", path=text)
    return msg("error.no_such_path", path=text)
