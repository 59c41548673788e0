"""Property tests: random configurations never crash, and the estimate moves the right way."""

from __future__ import annotations

import dataclasses

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from planner.errors import UserError
from planner.memory import MemoryConfig, estimate_memory
from planner.models import list_presets
from planner.vocabulary import Layout, LoraTarget, Offload, Optimizer, Precision, Recompute

LORA_TARGETS = LoraTarget.values()
OFFLOAD = Offload.values()
OPTIMIZERS = Optimizer.values()
PRECISIONS = Precision.values()
RECOMPUTE = Recompute.values()

PRESETS = list_presets()
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])

models = st.sampled_from(PRESETS)
powers_of_two = st.sampled_from([1, 2, 4, 8, 16, 32, 64])
any_int = st.one_of(st.integers(min_value=-3, max_value=70), st.sampled_from([0, 10**9, 2**40]))

valid_configs = st.builds(
    MemoryConfig,
    task=st.sampled_from(["inference", "train", "pretrain", "finetune", "lora", "qlora"]),
    precision=st.sampled_from(["fp32", "bf16", "fp16", "fp8"]),
    kv_precision=st.sampled_from([None, *PRECISIONS]),
    optimizer=st.sampled_from(OPTIMIZERS),
    seq_len=st.integers(1, 32768),
    layout=st.builds(
        Layout,
        micro_batch=st.integers(1, 64),
        dp=powers_of_two,
        tp=st.sampled_from([1, 2, 4, 8]),
        pp=st.sampled_from([1, 2, 4]),
        ep=st.sampled_from([1, 2, 8]),
        zero=st.sampled_from([0, 1, 2, 3]),
        recompute=st.sampled_from(RECOMPUTE),
        offload=st.sampled_from(OFFLOAD),
    ),
    flash_attention=st.booleans(),
    lora_rank=st.sampled_from([1, 8, 64]),
    lora_targets=st.lists(st.sampled_from(LORA_TARGETS), min_size=1, max_size=4, unique=True).map(tuple),
    inflight_microbatches=st.sampled_from([None, 1, 3]),
    sequence_parallel=st.booleans(),
)

wild_configs = st.builds(
    MemoryConfig,
    task=st.sampled_from(["inference", "train", "lora", "qlora", "sing", "", None]),
    precision=st.sampled_from([*PRECISIONS, "fp7", None]),
    kv_precision=st.sampled_from([None, "fp8", "int2"]),
    optimizer=st.sampled_from([*OPTIMIZERS, "lion"]),
    seq_len=any_int,
    layout=st.builds(
        Layout,
        micro_batch=any_int,
        dp=any_int,
        tp=any_int,
        pp=any_int,
        ep=any_int,
        zero=st.integers(-1, 5),
        recompute=st.sampled_from([*RECOMPUTE, "some"]),
        offload=st.sampled_from([*OFFLOAD, "disk"]),
    ),
    lora_rank=any_int,
    lora_targets=st.lists(st.sampled_from([*LORA_TARGETS, "wq", ""]), max_size=3).map(tuple),
    inflight_microbatches=st.one_of(st.none(), any_int),
    sequence_parallel=st.booleans(),
)


def _estimate_or_refusal(model, config):
    """The estimate, or None when refused with a UserError (any other exception fails the test)."""
    try:
        return estimate_memory(model, config)
    except UserError as exc:
        message = str(exc)
        assert message and "\n" not in message
        return None


@SETTINGS
@given(model=models, config=st.one_of(valid_configs, wild_configs))
def test_random_configurations_estimate_or_are_refused_cleanly(model, config):
    result = _estimate_or_refusal(model, config)
    if result is not None:
        values = result.as_dict()
        assert all(isinstance(v, int) and v >= 0 for v in values.values())
        assert values["total"] >= values["weights"] > 0


@SETTINGS
@given(model=models, config=valid_configs, factor=st.sampled_from([2, 4, 8]))
def test_more_data_parallel_gpus_under_zero3_never_raise_model_states(model, config, factor):
    layout = dataclasses.replace(config.layout, zero=3)
    config = dataclasses.replace(
        config, layout=layout, task="train" if config.task == "inference" else config.task
    )
    smaller = _estimate_or_refusal(model, config)
    larger_layout = dataclasses.replace(layout, dp=layout.dp * factor)
    larger = _estimate_or_refusal(model, dataclasses.replace(config, layout=larger_layout))
    if smaller is not None and larger is not None:
        assert larger.model_state_bytes <= smaller.model_state_bytes


@SETTINGS
@given(model=models, config=valid_configs, extra=st.integers(1, 100_000))
def test_longer_context_never_lowers_the_kv_cache(model, config, extra):
    config = dataclasses.replace(config, task="inference")
    shorter = _estimate_or_refusal(model, config)
    longer = _estimate_or_refusal(model, dataclasses.replace(config, seq_len=config.seq_len + extra))
    if shorter is not None and longer is not None:
        assert longer.kv_cache.bytes >= shorter.kv_cache.bytes


@SETTINGS
@given(model=models, config=valid_configs, extra=st.integers(1, 32))
def test_larger_micro_batch_never_lowers_activations(model, config, extra):
    smaller = _estimate_or_refusal(model, config)
    larger_layout = dataclasses.replace(config.layout, micro_batch=config.layout.micro_batch + extra)
    larger = _estimate_or_refusal(model, dataclasses.replace(config, layout=larger_layout))
    if smaller is not None and larger is not None:
        assert larger.activations.bytes >= smaller.activations.bytes
