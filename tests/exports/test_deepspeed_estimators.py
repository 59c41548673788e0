"""The planner's DeepSpeed model states against DeepSpeed 0.19.8's own estimators.

DeepSpeed's estimate_zero2/3_model_states_mem_needs (the functions its *_all_live variants call once they have
counted a model) are given the parameter counts of the real transformers model, built on the meta device and
counted as DeepSpeed's model_to_params counts them. The planner's figure is its weights + gradients + optimizer
state per GPU less the buckets (MemoryBreakdown.zero3_gathered_bytes), which the estimators leave out. The issue
asks for agreement within 10% at 8 and 64 GPUs.
"""

from __future__ import annotations

import functools

import pytest

from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.vocabulary import Layout, Task

pytestmark = pytest.mark.slow  # imports torch, transformers and DeepSpeed (about 15 s on a shared CPU)

# The Hugging Face configurations of the presets (their config.json files' sizes).
HF_CONFIGS = {
    "llama-2-7b": {"hidden_size": 4096, "intermediate_size": 11008, "num_hidden_layers": 32,
                   "num_attention_heads": 32, "num_key_value_heads": 32, "vocab_size": 32000},
    "llama-3.1-70b": {"hidden_size": 8192, "intermediate_size": 28672, "num_hidden_layers": 80,
                      "num_attention_heads": 64, "num_key_value_heads": 8, "vocab_size": 128256},
}  # fmt: skip


@functools.cache
def _counts(preset: str) -> tuple[int, int]:
    """(total parameters, the largest module's own parameters) of the transformers model, as DeepSpeed's
    model_to_params counts them (on the meta device every data_ptr is 0, so shared tensors are told apart by
    identity instead)."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    config = transformers.LlamaConfig(**HF_CONFIGS[preset], tie_word_embeddings=False)
    with torch.device("meta"):
        model = transformers.LlamaForCausalLM(config)
    return _counted(model)


def _counted(model) -> tuple[int, int]:
    total = sum({id(p): p.numel() for p in model.parameters()}.values())
    largest = max(sum(p.numel() for p in m.parameters(recurse=False)) for m in model.modules())
    return total, largest


def _planned_states(preset: str, gpus: int, zero: int, offload: str) -> tuple[str, int]:
    layout = Layout(dp=gpus, zero=zero, offload=offload, recompute="full")
    breakdown = estimate_memory(get_preset(preset), MemoryConfig(task=Task.PRETRAIN, layout=layout))
    return breakdown.runtime, breakdown.model_state_bytes - breakdown.zero3_gathered_bytes


_CASES = [(1, "none"), (2, "none"), (2, "optimizer"), (3, "none"), (3, "optimizer"), (3, "all")]
# DeepSpeed's ZeRO-3 estimator counts a whole fp32 gradient partition (18/N with the 16-bit weights); the export
# sets sub_group_size so that the fp32 gradient exists for one 1e8-element sub-group at a time, and the planner
# counts that plus the 16-bit gradient partition DeepSpeed keeps (grad_partitions_flat_buffer): 16/N + 4 x 1e8.
# Where the partition is much larger than a sub-group (70B on 8 GPUs: 8.8e9 parameters each) the planner comes
# out 10.6% under the estimator.
_BEYOND_TEN_PERCENT = pytest.mark.xfail(
    strict=True, reason="estimator counts a whole fp32 gradient partition; the export steps 1e8-element sub-groups"
)


@pytest.mark.parametrize(
    ("preset", "gpus", "zero", "offload"),
    [
        pytest.param(preset, gpus, zero, offload,
                     marks=[_BEYOND_TEN_PERCENT] if (preset, gpus, zero, offload) == ("llama-3.1-70b", 8, 3, "none")
                     else [])
        for preset in ("llama-2-7b", "llama-3.1-70b") for gpus in (8, 64) for zero, offload in _CASES
    ],
)  # fmt: skip
def test_deepspeed_states_agree_with_deepspeeds_estimators(preset, gpus, zero, offload):
    pytest.importorskip("deepspeed")
    from deepspeed.runtime.zero.stage3 import estimate_zero3_model_states_mem_needs
    from deepspeed.runtime.zero.stage_1_and_2 import estimate_zero2_model_states_mem_needs

    total, largest = _counts(preset)
    assert total == get_preset(preset).total_params  # the same model, counted by transformers
    nodes = gpus // 8
    offloaded = offload != "none"
    if zero == 3:
        deepspeed_bytes = estimate_zero3_model_states_mem_needs(
            total, largest, 8, nodes, cpu_offload=offloaded, cpu_offload_params=offload == "all"
        )[1]
    else:
        deepspeed_bytes = estimate_zero2_model_states_mem_needs(total, 8, nodes, cpu_offload=offloaded)[1]
        if zero == 1:  # the stage-1/2 code with the 16-bit gradients kept whole: 2 bytes x P more, 2/N less
            deepspeed_bytes += 2 * total - 2 * total // gpus
    runtime, planned = _planned_states(preset, gpus, zero, offload)
    assert runtime == "deepspeed"
    assert planned == pytest.approx(deepspeed_bytes, rel=0.10), planned / deepspeed_bytes


def test_meta_counting_is_deepspeeds_model_to_params():
    """On real tensors DeepSpeed's own model_to_params (what the *_all_live estimators call) counts what
    _counted counts on the meta device: a small Llama of the same structure."""
    pytest.importorskip("deepspeed")
    transformers = pytest.importorskip("transformers")
    from deepspeed.runtime.zero.stage3 import model_to_params

    config = transformers.LlamaConfig(hidden_size=64, intermediate_size=176, num_hidden_layers=2,
                                      num_attention_heads=4, num_key_value_heads=4, vocab_size=500,
                                      tie_word_embeddings=False)  # fmt: skip
    model = transformers.LlamaForCausalLM(config)
    assert model_to_params(model) == _counted(model)
