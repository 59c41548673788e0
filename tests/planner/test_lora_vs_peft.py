"""LoRA against peft itself, for every model type the reader knows: the module names the planner exports
(planner.models.lora_modules, the target_modules of peft_config.json) must each name modules of the model
transformers builds (peft skips a name that matches nothing when another name matches), and peft's
get_peft_model on those names must give exactly as many trainable parameters as the memory model's adapter
count. A name that also matched a module of another kind (lfm2's conv out_proj, gpt2's MLP c_proj) or a fused
projection counted as separate ones would show as a different count."""

from __future__ import annotations

import json
import random

import pytest

from planner.memory import MemoryConfig, estimate_memory
from planner.models import load_hf_config, lora_module_names, lora_target_modules
from planner.models.hf_types import READ_TYPES

transformers = pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
peft = pytest.importorskip("peft")
torch = pytest.importorskip("torch")

from peft.utils import transformers_weight_conversion  # noqa: E402

from tests.planner.hf_generated import buildable_case, built_model  # noqa: E402

RANK = 4
TARGET_SETS = (
    ("q", "k", "v", "o"),
    ("q", "v"),
    ("k", "o"),
    ("q", "k", "v", "o", "gate", "up", "down"),
    ("up",),
)
MLP = {"gate", "up", "down"}
# The MoE types whose gate/up/down targets peft 0.21 rewrites into their fused experts' parameters (also in dense
# layers: it adapts no dense MLP of such a type), and the conversion pattern of each
PEFT_REWRITES = {
    t: transformers_weight_conversion._MODEL_TO_CONVERSION_PATTERN[t] for t in READ_TYPES
    if transformers_weight_conversion._MOE_FUSED_TARGETS.get(transformers_weight_conversion._MODEL_TO_CONVERSION_PATTERN.get(t))
}  # fmt: skip


def test_the_planner_knows_which_moe_types_peft_adapts_the_experts_of():
    from planner.models.lora_modules import PEFT_FUSED_EXPERTS

    assert PEFT_FUSED_EXPERTS == PEFT_REWRITES


def _adaptable(module) -> bool:
    """The layers peft's LoRA wraps by name here: torch Linear and transformers' Conv1D (gpt2, gpt_bigcode)."""
    return isinstance(module, torch.nn.Linear) or type(module).__name__ == "Conv1D"


def _matches(module_name: str, name: str) -> bool:
    """peft's rule for a target_modules list: the qualified name equals the entry or ends with "." + entry."""
    return module_name == name or module_name.endswith("." + name)


def _peft_trainable(model, names) -> int:
    config = peft.LoraConfig(r=RANK, lora_alpha=2 * RANK, target_modules=sorted(names), bias="none")
    try:
        wrapped = peft.get_peft_model(model, config)
    except ValueError as error:  # no module of this config has any of the names (a config without the kind)
        # (or, for a type whose MLP names peft turns into expert parameters, a config without experts: nothing left)
        assert "not found in the base model" in str(error) or "no `target_parameters` found" in str(error), error
        return 0
    return sum(p.numel() for p in wrapped.parameters() if p.requires_grad)


def _cases(model_type: str, count: int):
    rng = random.Random(f"lora-names-{model_type}")
    for index in range(count):
        data = buildable_case(model_type, rng)[0]
        direct = "q_proj" in lora_module_names(model_type).get("q", ())
        if data.get("q_lora_rank") and index % 2 and direct:  # MLA: every other config projects q directly
            data["q_lora_rank"] = None
        yield data


@pytest.mark.slow
@pytest.mark.parametrize("model_type", READ_TYPES)
def test_every_exported_module_name_names_modules_transformers_builds(model_type):
    """Each name of each target matches at least one Linear of a generated model of the type (over a few configs:
    one may lack the layer kind), and matches nothing that peft could not wrap."""
    names = lora_module_names(model_type)
    if model_type in PEFT_REWRITES:  # its MLP names are the experts' (peft maps them to parameters)
        names = {target: names[target] for target in names if target not in MLP}
    found = {name: False for target_names in names.values() for name in target_names}
    for data in _cases(model_type, 8):
        modules = dict(built_model(data).named_modules())
        for name in found:
            matched = [m for n, m in modules.items() if _matches(n, name)]
            assert all(_adaptable(m) for m in matched), (name, [type(m).__name__ for m in matched])
            found[name] = found[name] or bool(matched)
    assert all(found.values()), {name for name, ok in found.items() if not ok}


@pytest.mark.slow
@pytest.mark.parametrize("model_type", READ_TYPES)
def test_lora_trainable_parameters_equal_peft(model_type, tmp_path):
    """The memory model's adapter parameters (fp32 gradients, 4 bytes each) equal peft's trainable count on the
    exported names, MLP targets included: peft 0.21 rewrites gate/up/down of the PEFT_REWRITES types into their
    fused experts' parameters (transformers_weight_conversion) and adapts no routed expert of the other MoE types."""
    checked = 0
    for index, data in enumerate(_cases(model_type, 3)):
        path = tmp_path / f"{index}.json"
        path.write_text(json.dumps(data), encoding="utf-8")
        spec = load_hf_config(path)
        for targets in TARGET_SETS:
            names = lora_target_modules(model_type, targets)
            if not names:
                continue
            config = MemoryConfig(
                task="lora", lora_rank=RANK, lora_targets=targets, precision="bf16", seq_len=16
            )
            gradients = estimate_memory(spec, config).gradients.bytes
            assert gradients == 4 * _peft_trainable(built_model(data), names), (targets, json.dumps(data))
            checked += 1
    if lora_module_names(model_type):
        assert checked, "no config of this type was checked"


@pytest.mark.slow
@pytest.mark.parametrize("model_type", ("lfm2", "gpt2", "opt", "falcon", "mpt", "codegen", "dbrx", "phi"))
def test_exported_peft_config_adapts_what_the_plan_counts(model_type, tmp_path):
    """peft_config.json's target_modules for a LoRA plan of a model of this type: peft on transformers' model
    with exactly those names has as many trainable parameters as the plan's adapter gradients say (these types
    once got llama's q_proj ... o_proj, some of which they lack, and gpt2's c_proj also named its MLP)."""
    from planner.exports.common import ExportInputs
    from planner.exports.configs import peft_config
    from planner.vocabulary import Layout
    from tests.exports.conftest import option_for

    data = next(_cases(model_type, 1))
    if model_type == "lfm2":  # a short-conv layer beside an attention layer: both have an out_proj
        data.update(num_hidden_layers=2, layer_types=["conv", "full_attention"])
    path = tmp_path / "config.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    spec = load_hf_config(path)
    exported = peft_config(option_for(Layout(), task="lora"), ExportInputs(task="lora", model_spec=spec))[
        "lora"
    ]
    names = exported["target_modules"]
    config = MemoryConfig(task="lora", lora_rank=RANK, precision="bf16", seq_len=16)  # q, k, v, o
    assert 4 * _peft_trainable(built_model(data), names) == estimate_memory(spec, config).gradients.bytes > 0
