"""Decoder-only LLM architectures: what a model is (spec), its exact parameter count, the presets, the generic
"N billion" model, config.json and model-folder import, and the one entry point for what a user types.

Pure functions only; the one file read here is the package's own catalog (cached) and the files a user names
(config.json, *.safetensors headers), read on request. The names below are the package's public surface.
"""

from planner.models.config_file import (
    IMPORTED_MAX_PARAMS,
    IMPORTED_MIN_PARAMS,
    MAX_CONFIG_BYTES,
    check_imported_size,
)
from planner.models.folder import load_model_folder, model_folder_shards
from planner.models.generic import GENERIC_MAX_BILLIONS, GENERIC_MIN_BILLIONS, GENERIC_VOCAB, generic_model
from planner.models.hf_config import SUPPORTED_MODEL_TYPES, load_hf_config
from planner.models.lora_modules import (
    fused_gate_up,
    fused_qkv,
    gate_in_q_proj,
    lora_module_names,
    lora_target_modules,
)
from planner.models.presets import get_preset, list_presets
from planner.models.resolve import resolve_model
from planner.models.safetensors import (
    MAX_INDEX_BYTES,
    MAX_SAFETENSORS_HEADER_BYTES,
    count_safetensors_params,
    quantised_param_count,
    safetensors_header,
)
from planner.models.spec import ModelSpec, ParamCounts, param_counts, validate_spec

__all__ = [
    "GENERIC_MAX_BILLIONS", "GENERIC_MIN_BILLIONS", "GENERIC_VOCAB", "IMPORTED_MAX_PARAMS",
    "IMPORTED_MIN_PARAMS", "MAX_CONFIG_BYTES", "MAX_INDEX_BYTES", "MAX_SAFETENSORS_HEADER_BYTES",
    "SUPPORTED_MODEL_TYPES", "ModelSpec", "ParamCounts", "check_imported_size", "count_safetensors_params",
    "fused_gate_up", "fused_qkv", "gate_in_q_proj", "generic_model", "get_preset", "list_presets", "load_hf_config", "load_model_folder",
    "lora_module_names", "lora_target_modules", "model_folder_shards",
    "param_counts", "quantised_param_count", "resolve_model", "safetensors_header", "validate_spec",
]  # fmt: skip
