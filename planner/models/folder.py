"""A local model folder: the architecture from its config.json, the exact count from its own safetensors shards."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

from planner.errors import UserError
from planner.files import read_user_file
from planner.messages import msg
from planner.models.config_file import (
    cannot_read,
    check_imported_size,
    parse_untrusted_json,
    read_config_json,
)
from planner.models.hf_config import load_hf_config
from planner.models.safetensors import MAX_INDEX_BYTES, count_safetensors_params
from planner.models.spec import ModelSpec


def model_folder_shards(folder: Path) -> list[Path]:
    """The .safetensors files that make up the model in `folder`: those model.safetensors.index.json names when
    it is there; otherwise every *.safetensors except duplicates (Mistral's consolidated*.safetensors beside the
    shards) and adapters (adapter_model.safetensors and other adapter*/lora* files)."""
    index = folder / "model.safetensors.index.json"
    if index.exists():
        return _indexed_shards(index)
    files = sorted(folder.glob("*.safetensors"))
    adapters = [f for f in files if f.name.lower().startswith(("adapter", "lora"))]
    files = [f for f in files if f not in adapters]
    consolidated = [f for f in files if f.name.lower().startswith("consolidated")]
    rest = [f for f in files if f not in consolidated]
    return rest or consolidated


def _indexed_shards(index: Path) -> list[Path]:
    raw = read_user_file(index, MAX_INDEX_BYTES)  # a FIFO or /dev/zero is refused, not read forever
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise UserError.of(cannot_read(index, exc)) from None
    data = parse_untrusted_json(text, index)
    weight_map = data.get("weight_map") if isinstance(data, dict) else None
    if not isinstance(weight_map, dict) or not all(isinstance(v, str) for v in weight_map.values()):
        raise UserError.of(msg("error.config_not_object", path=str(index), kind="index without a weight_map"))
    names = sorted(set(weight_map.values()))
    shards = [index.parent / name for name in names if Path(name).name == name]  # no paths out of the folder
    return shards


def load_model_folder(path: str | os.PathLike[str]) -> ModelSpec:
    """A local model folder: architecture from config.json, exact count from the safetensors headers of the
    model's own shards (model_folder_shards), packed quantised tensors counted by the values they hold."""
    folder = Path(path)
    if not folder.is_dir():
        raise UserError.of(msg("error.not_a_folder", path=str(folder)))
    spec = load_hf_config(folder / "config.json")
    shards = model_folder_shards(folder)
    name = spec.name if spec.name != "" else folder.name
    if not shards:
        return dataclasses.replace(spec, name=name)
    quantization = read_config_json(folder / "config.json").get("quantization_config")
    quantization = quantization if isinstance(quantization, dict) else {}
    exact = sum(count_safetensors_params(shard, quantization) for shard in shards)
    # Only the ceiling: a folder holding some of a model's shards counts fewer elements, which is harmless, while
    # a damaged header can claim 10**18 elements and push every figure past 2**63.
    check_imported_size(exact, f"{folder} (*.safetensors)", minimum=0)
    return dataclasses.replace(
        spec, name=name, exact_params=exact, source=f"{folder} ({len(shards)} safetensors)"
    )
