"""What transformers assumes for a key a config.json leaves out, and the other spellings of a key it accepts, per
model type: the field defaults and attribute_map of each configuration class of transformers (shipped as
planner/catalog/hf_config_defaults.json, written by tools/gen_hf_defaults.py from the installed transformers;
tests/planner/test_hf_coverage.py fails when the two drift apart). planner never imports transformers.
"""

from __future__ import annotations

import functools
import json
from importlib import resources
from typing import Any

# DeepSeek-V2 routes each token to 6 experts (arXiv 2405.04434, section 4.1); transformers' default is None,
# which counts the same parameters, so this only sets the active count of a config without the key.
DEEPSEEK_V2_EXPERTS_PER_TOKEN = 6


@functools.lru_cache(maxsize=1)
def _table() -> dict[str, Any]:  # Any: the JSON file's values
    text = resources.files("planner.catalog").joinpath("hf_config_defaults.json").read_text(encoding="utf-8")
    types: dict[str, Any] = json.loads(text)["types"]
    return types


def class_defaults(model_type: str) -> dict[str, Any]:  # Any: JSON values
    """The configuration class's field defaults ({} for a type not in the table); None: derived by the class."""
    entry = _table().get(model_type)
    return dict(entry["defaults"]) if entry else {}


def key_aliases(model_type: str) -> dict[str, str]:
    """{spelling a config.json may use: the class's own field name} (the class's attribute_map)."""
    entry = _table().get(model_type)
    return dict(entry["aliases"]) if entry else {}
