"""Write planner/catalog/hf_config_defaults.json from the installed transformers: for every model type the reader
knows (planner.models.hf_types.READ_TYPES, the WRAPPERS and hf_towers.TOWER_TYPES), its configuration class's field defaults (what transformers assumes
for a key a config.json leaves out; None where the class derives the value itself) and its attribute_map (the
other spellings of a key it accepts). planner never imports transformers, so these ship as data;
tests/planner/test_hf_coverage.py fails when they drift from the installed transformers.

    .venv/bin/python tools/gen_hf_defaults.py
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "planner" / "catalog" / "hf_config_defaults.json"
# Fields every configuration class has that say nothing about the architecture.
SKIPPED = {"transformers_version", "architectures", "output_hidden_states", "return_dict", "dtype", "id2label",
           "label2id", "problem_type", "chunk_size_feed_forward", "initializer_range", "use_cache"}  # fmt: skip


def _jsonable(value: object) -> bool:
    if isinstance(value, (bool, int, float, str)) or value is None:
        return True
    return isinstance(value, list) and all(_jsonable(v) and not isinstance(v, list) for v in value)


def class_defaults(model_type: str) -> dict[str, object]:
    import transformers

    cls = transformers.CONFIG_MAPPING[model_type]
    defaults: dict[str, object] = {}
    for field in dataclasses.fields(cls):
        if field.name in SKIPPED or field.name.endswith(("_token_id", "dropout", "_pdrop", "_eps", "epsilon")):
            continue
        if field.default is not dataclasses.MISSING:
            value = field.default
        elif field.default_factory is not dataclasses.MISSING:
            value = field.default_factory()
        else:
            continue
        if _jsonable(value):
            defaults[field.name] = value
    return {"defaults": defaults, "aliases": dict(getattr(cls, "attribute_map", {}) or {})}


def generate() -> dict[str, object]:
    import transformers

    sys.path.insert(0, str(ROOT))
    from planner.models.hf_towers import TOWER_TYPES
    from planner.models.hf_types import READ_TYPES, WRAPPERS

    types = {t: class_defaults(t) for t in sorted({*READ_TYPES, *WRAPPERS, *TOWER_TYPES})}
    return {"transformers": transformers.__version__, "types": types}


if __name__ == "__main__":
    OUT.write_text(json.dumps(generate(), indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
