"""The model a memory trace runs: a local config.json read and turned into the Hugging Face causal LM (on fake tensors or real ones), LoRA adapters added through peft, its decoder layers found."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import torch
    from torch import nn


MAX_CONFIG_BYTES = 4 * 2**20  # a config.json is a few KiB


# peft's names for the modules each LoRA target adapts, by model family (gpt2 fuses q, k, v into one c_attn), for
# a trace run by hand; the planner passes its own names (planner/models/lora_modules.py) with --lora-modules.
_LORA_MODULES = {
    "gpt2": {"q": "c_attn", "k": "c_attn", "v": "c_attn", "o": "attn.c_proj", "up": "c_fc", "down": "mlp.c_proj"},
    "gpt_neox": {"q": "query_key_value", "k": "query_key_value", "v": "query_key_value", "o": "attention.dense",
                 "up": "dense_h_to_4h", "down": "dense_4h_to_h"},
}  # fmt: skip


_LORA_DEFAULT = {
    "q": "q_proj", "k": "k_proj", "v": "v_proj", "o": "o_proj", "gate": "gate_proj", "up": "up_proj",
    "down": "down_proj",
}  # fmt: skip


class TraceError(Exception):
    """A request the tracer cannot run (bad config, unsupported combination); the message says why."""


def read_config(path: str) -> dict[str, Any]:  # Any: the JSON values of a config.json
    """The config.json at `path` (a file or a folder holding one): a regular file, at most 4 MiB, a JSON object."""
    target = Path(path)
    if target.is_dir():
        target = target / "config.json"
    try:
        with target.open("rb") as handle:
            if not os.path.isfile(target) or os.fstat(handle.fileno()).st_size > MAX_CONFIG_BYTES:
                raise TraceError(f"{target}: not a regular file of at most {MAX_CONFIG_BYTES} bytes")
            raw = handle.read(MAX_CONFIG_BYTES + 1)
    except OSError as exc:
        raise TraceError(f"cannot read {target}: {exc.strerror or exc}") from None
    try:
        data = json.loads(raw.decode("utf-8-sig"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise TraceError(f"{target}: not JSON ({exc})") from None
    if not isinstance(data, dict) or not isinstance(data.get("model_type"), str):
        raise TraceError(f"{target}: a config.json object with a model_type is expected")
    return data


def dtype_of(name: str) -> torch.dtype:
    import torch

    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[name]


def hf_config(
    data: dict[str, Any], attention: str = "sdpa", fake: bool = True
) -> Any:  # Any: a PretrainedConfig
    """transformers' configuration object for a config.json dict; missing keys take transformers' defaults.

    MoE experts run transformers' default grouped path (tokens sorted by expert, one grouped matmul per
    projection; its loop over the experts has shapes that depend on the routing, which fake tensors cannot
    follow). On fake tensors _fake_grouped_mm stands in for torch's grouped_mm, whose meta kernel takes bf16
    only: the same outputs and saved tensors."""
    from transformers import AutoConfig

    values = {k: v for k, v in data.items() if k not in ("model_type", "quantization_config", "auto_map")}
    config = AutoConfig.for_model(data["model_type"], **values)
    config._attn_implementation = attention
    if any(getattr(config, key, None) for key in ("num_experts", "num_local_experts", "n_routed_experts")):
        config._experts_implementation = "grouped_mm"
        if fake:
            from transformers.integrations import moe

            moe._grouped_mm = _fake_grouped_mm
    return config


def _fake_grouped_mm(input: torch.Tensor, weight: torch.Tensor, offs: torch.Tensor) -> torch.Tensor:
    """What torch's grouped_mm holds, on fake tensors: output (tokens, out); backward keeps the input (the
    weight is the parameter itself). torch's meta kernel accepts only bf16 and fp32 training needs fp32."""
    import torch

    with torch.autocast(input.device.type, enabled=False):  # torch's grouped_mm is not autocast-enabled
        return input.to(weight.dtype) @ weight[0]


def build_causal_lm(
    data: dict[str, Any], dtype: str = "fp32", attention: str = "sdpa", fake: bool = True, device: str = "cpu"
) -> Any:  # fmt: skip  (Any: a transformers PreTrainedModel)
    """transformers' AutoModelForCausalLM for this config.json, with weights in `dtype` (fake under FakeTensorMode)."""
    import torch
    from transformers import AutoModelForCausalLM

    config = hf_config(data, attention, fake)
    try:
        with torch.device(device):
            model: Any = AutoModelForCausalLM.from_config(config, dtype=dtype_of(dtype))  # type: ignore[no-untyped-call]
    except (
        ValueError
    ) as exc:  # transformers: "Unrecognized configuration class ..." for a model without a causal LM
        raise TraceError(
            f"transformers builds no causal LM for model_type {data['model_type']!r}: {exc}"
        ) from None
    return model


def add_lora(
    model: nn.Module, family: str, rank: int, targets: Sequence[str], modules: Sequence[str] = ()
) -> nn.Module:
    """peft LoRA adapters (fp32, peft's autocast_adapter_dtype default) on the chosen projections; base frozen.
    modules: peft's target_modules as the planner names them for this family and these targets (what the plan
    counts and the exports write); empty (the tracer run by hand): this module's own names."""
    from peft import LoraConfig, get_peft_model
    from peft.tuners import tuners_utils

    # peft moves each new adapter to its base layer's device and dtype and casts it back to fp32 afterwards
    # (autocast_adapter_dtype); on fake tensors the move cannot swap the parameter in place, and the adapter is
    # already on the CPU in fp32, so the move is skipped in this child process; so is peft's module.to(device)
    # of the replaced layer (everything is on the CPU already).
    setattr(tuners_utils.BaseTunerLayer, "_move_adapter_to_device_of_base_layer", lambda self, *a, **k: None)  # noqa: B010
    names = _LORA_MODULES.get(family, _LORA_DEFAULT)
    modules = sorted(modules) or sorted({names[t] for t in targets if t in names})
    if not modules:
        raise TraceError(f"no LoRA target of {list(targets)} exists in a {family} model")
    config = LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=modules, lora_dropout=0.0, bias="none")
    with _modules_stay_put():
        peft_model = get_peft_model(model, config)
    # the transformers model with the adapters injected: the same step without peft's wrapper, whose nested
    # forward calls MemTracker cannot follow
    base: nn.Module = peft_model.get_base_model()
    return base


@contextlib.contextmanager
def _modules_stay_put() -> Iterator[None]:
    """Module.to(a device) without a dtype returns the module unchanged (every tensor here is on the CPU)."""
    from torch import nn

    original = nn.Module.to

    def to(self: nn.Module, *args: Any, **kwargs: Any) -> nn.Module:
        if "dtype" not in kwargs and all(not _is_dtype(a) for a in args):
            return self
        return original(self, *args, **kwargs)

    nn.Module.to = to  # type: ignore[method-assign,assignment]
    try:
        yield
    finally:
        nn.Module.to = original  # type: ignore[method-assign]


def _is_dtype(value: object) -> bool:
    import torch

    return isinstance(value, torch.dtype) or isinstance(value, torch.Tensor)


def decoder_layers(model: nn.Module) -> list[nn.Module]:
    """The decoder blocks (the FSDP2 and checkpointing units): the longest ModuleList in the model."""
    from torch import nn

    lists: list[nn.ModuleList] = [m for m in model.modules() if isinstance(m, nn.ModuleList)]
    if not lists:
        raise TraceError("the model has no list of decoder layers")
    longest = max(lists, key=lambda modules: sum(1 for _ in modules.children()))
    return list(longest.children())
