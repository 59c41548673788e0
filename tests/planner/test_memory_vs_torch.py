"""Cross-check of planner.memory against real PyTorch on CPU (torch's MemTracker accounting).

A small decoder is built in torch from the same ModelSpec (profiler.reference_decoder), one training step and
one inference forward run under torch.distributed._tools.mem_tracker.MemTracker, and the analytic terms must
agree: weights, gradients and optimizer state within 5%, activations within 25% (the tolerances README.md states).
"""

from __future__ import annotations

import dataclasses

import pytest

from planner.memory import MemoryConfig, estimate_memory
from planner.models import ModelSpec
from planner.vocabulary import Layout

torch = pytest.importorskip("torch", reason="the cross-check needs torch (installed by `make test`)")

from profiler.reference_decoder import measure_inference_forward, measure_training_step  # noqa: E402

LLAMA_STYLE = ModelSpec(
    name="tiny-llama", family="llama", layers=2, hidden=256, heads=4, kv_heads=2, head_dim=64, ffn=688,
    vocab=512, tied_embeddings=False, gated_mlp=True, norm="rmsnorm", attn_bias=False, mlp_bias=False,
    max_context=1024,
)  # fmt: skip
GPT2_STYLE = ModelSpec(
    name="tiny-gpt2", family="gpt2", layers=2, hidden=256, heads=4, kv_heads=4, head_dim=64, ffn=1024,
    vocab=512, tied_embeddings=True, gated_mlp=False, norm="layernorm", attn_bias=True, attn_out_bias=True,
    mlp_bias=True, max_context=256, learned_positions=True, activation="gelu", rotary=False,
)  # fmt: skip
GEMMA2_STYLE = dataclasses.replace(
    LLAMA_STYLE, name="tiny-gemma2", family="gemma2", norms_per_layer=4, tied_embeddings=True, head_dim=96
)
BATCH, SEQ = 2, 128

CASES = [
    (LLAMA_STYLE, "fp32", True),
    (LLAMA_STYLE, "bf16", True),
    (LLAMA_STYLE, "bf16", False),
    (GPT2_STYLE, "fp32", True),
    (GPT2_STYLE, "bf16", False),
    (GEMMA2_STYLE, "bf16", True),
]


def within(analytic: int, measured: int, tolerance: float) -> bool:
    return abs(analytic - measured) <= tolerance * measured


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "dtype", "flash"), CASES, ids=[f"{c[0].name}-{c[1]}-flash{c[2]}" for c in CASES]
)
def test_training_step_terms_match_torch(spec, dtype, flash):
    measured = measure_training_step(spec, batch=BATCH, seq_len=SEQ, dtype=dtype, flash_attention=flash)
    assert measured["parameter_count"] == spec.total_params  # the torch model has exactly the counted tensors
    config = MemoryConfig(
        task="train", precision=dtype, seq_len=SEQ, flash_attention=flash, layout=Layout(micro_batch=BATCH)
    )
    analytic = estimate_memory(spec, config)
    assert within(analytic.weights.bytes, measured["params"], 0.05)
    assert within(analytic.gradients.bytes, measured["grads"], 0.05)
    assert within(analytic.optimizer.bytes, measured["optimizer"], 0.05)
    assert within(analytic.activations.bytes, measured["activations"], 0.25)


@pytest.mark.slow
def test_sgd_momentum_state_matches_torch():
    measured = measure_training_step(LLAMA_STYLE, batch=1, seq_len=64, dtype="fp32", optimizer="sgd")
    config = MemoryConfig(
        task="train", precision="fp32", optimizer="sgd", seq_len=64, layout=Layout(micro_batch=1)
    )
    assert within(estimate_memory(LLAMA_STYLE, config).optimizer.bytes, measured["optimizer"], 0.05)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("spec", "dtype", "flash"), CASES, ids=[f"{c[0].name}-{c[1]}-flash{c[2]}" for c in CASES]
)
def test_inference_forward_matches_torch(spec, dtype, flash):
    measured = measure_inference_forward(spec, batch=BATCH, seq_len=SEQ, dtype=dtype, flash_attention=flash)
    config = MemoryConfig(
        task="inference",
        precision=dtype,
        seq_len=SEQ,
        flash_attention=flash,
        layout=Layout(micro_batch=BATCH),
    )
    analytic = estimate_memory(spec, config)
    assert within(analytic.weights.bytes, measured["params"], 0.05)
    assert within(analytic.activations.bytes, measured["activations"], 0.25)
