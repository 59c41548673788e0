"""fp8 training activations: Transformer Engine saves the fp8 cast of a GEMM's input for the weight gradient,
torchao's Float8Linear (torchtitan) the 16-bit input.

Expected values are hand counts from the frameworks' sources, not the code's output:
- TransformerEngine transformer_engine/pytorch/module/layernorm_linear.py: under fp8 the norm's output is quantized
  and saved with one usage (1 byte per value) beside the norm's 16-bit input and its fp32 rstd;
  module/linear.py: `saved_inputmat = inputmat`, the quantized input (1 byte per value).
- Megatron-LM megatron/core/fusions/fused_bias_swiglu.py: the fused SwiGLU saves its 16-bit input (FC1's gate+up
  output); TE's flash attention keeps Q, K, V, its 16-bit output and an fp32 log-sum-exp per head.
- torchao/float8/float8_linear.py, matmul_with_hp_or_float8_args: save_for_backward(input_hp, weight_hp_t).
"""

from __future__ import annotations

import pytest

from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset
from planner.vocabulary import Layout

LLAMA2_7B = get_preset("llama-2-7b")


def _config(precision: str, te_fp8_inputs: bool, **layout: object) -> MemoryConfig:
    return MemoryConfig(task="train", precision=precision, seq_len=4096, sequence_parallel=True,
                        layout=Layout(tp=4, zero=1, **layout), te_fp8_inputs=te_fp8_inputs)  # fmt: skip


def test_transformer_engine_fp8_keeps_fp8_gemm_inputs():
    s, h, a, ffn, V, L, t = 4096, 4096, 32, 11008, 32000, 32, 4
    # per token per layer, bytes, before the tp / sequence-parallel split: two fused norm+linear, each its bf16
    # input (2 h), its fp8 output (h) and an fp32 rstd (4); attention Q, K, V and output in bf16 (4 x 2 h), the
    # LSE (4 a) and the output projection's fp8 input (h); the MLP: FC1's gate+up output in bf16 (2 x 2 ffn) and
    # FC2's fp8 input (ffn)
    norms = 2 * (2 * h + h + 4)
    attention = 2 * 4 * h + 4 * a + h
    mlp = 2 * 2 * ffn + ffn
    head = s * ((2 * 2 * h + 4) / t + 12 * V / t)  # the final norm and the loss stay 16 bit / fp32
    fp8 = estimate_memory(LLAMA2_7B, _config("fp8", True))
    assert fp8.activations.bytes == pytest.approx(L * s * (norms + attention + mlp) / t + head, abs=1)
    # the same layers in bf16 keep 16-bit GEMM inputs: 16 h + 6 ffn + 4 a + 8 bytes against 15 h + 5 ffn + 4 a + 8
    # (the norms' outputs save h each, FC2's input ffn; the output projection's fp8 copy adds h)
    bf16 = estimate_memory(LLAMA2_7B, _config("bf16", False))
    per_layer_bf16 = 2 * (2 * 2 * h + 4) + 2 * 4 * h + 4 * a + 3 * 2 * ffn
    assert bf16.activations.bytes == pytest.approx(L * s * per_layer_bf16 / t + head, abs=1)
    saved = 1 - (norms + attention + mlp) / per_layer_bf16
    assert saved == pytest.approx((h + ffn) / per_layer_bf16) and 0.11 < saved < 0.12


def test_torchao_float8_keeps_the_16_bit_input():
    # torchtitan's fp8 (torchao Float8Linear) saves the high-precision input: its activations are bf16's
    fp8 = estimate_memory(LLAMA2_7B, _config("fp8", False))
    bf16 = estimate_memory(LLAMA2_7B, _config("bf16", False))
    assert fp8.activations.bytes == bf16.activations.bytes


def test_the_flag_is_only_read_for_fp8():
    assert (
        estimate_memory(LLAMA2_7B, _config("bf16", True)).activations.bytes
        == estimate_memory(LLAMA2_7B, _config("bf16", False)).activations.bytes
    )
