"""planner.memory against hand arithmetic: model states as PyTorch mixed precision holds them (fp32 weights,
gradients, m and v: 4 + 4 + 8 bytes/param; FSDP2 units for ZeRO-2/3), activations as the tensors Hugging Face
decoder layers save, tensor by tensor, and the KV-cache formula, written out with the model's numbers. The
independent check of these rules against real torch is tests/planner/test_memory_vs_torch.py; the 70B ZeRO-3
figures were also traced with profiler.memory_trace (FSDP2 over 64 fake ranks): weights 15,457,551,360 bytes,
gradients 4,409,606,656, optimizer 8,819,216,204."""

from __future__ import annotations

import dataclasses
import math

import pytest

from planner.errors import UserError
from planner.memory import (
    ALLOCATOR_MARGIN_FRACTION,
    CUDA_CONTEXT_BYTES,
    NCCL_BYTES_PER_COMMUNICATOR,
    MemoryConfig,
    estimate_memory,
    validate_layout,
)
from planner.models import ModelSpec, get_preset, list_presets
from planner.vocabulary import Layout

LLAMA_70B = get_preset("llama-3.1-70b")
P_70B = 70_553_706_496  # Llama 3.1 70B parameters (see test_models for the official figure)
LLAMA2_7B = get_preset("llama-2-7b")
P_7B = 6_738_415_616


def train(**changes) -> MemoryConfig:
    """A full-training config; layout fields (dp, tp, zero, ...) among `changes` go into its Layout."""
    layout = {name: changes.pop(name) for name in Layout.FIELDS if name in changes}
    return MemoryConfig(
        **({"task": "train", "precision": "bf16", "seq_len": 4096} | changes), layout=Layout(**layout)
    )


# --- KV cache ----------------------------------------------------------------------------------------------------


def test_kv_cache_of_llama_70b_matches_the_gqa_formula_to_the_byte():
    # 2 (K and V) x 80 layers x batch 1 x 4096 tokens x 8 KV heads x 128 head dim x 2 bytes (bf16)
    breakdown = estimate_memory(LLAMA_70B, MemoryConfig(task="inference", seq_len=4096))
    assert breakdown.kv_cache.bytes == 2 * 80 * 1 * 4096 * 8 * 128 * 2 == 1_342_177_280
    assert breakdown.gradients.bytes == 0 and breakdown.optimizer.bytes == 0


def test_kv_cache_splits_over_tensor_parallel_with_at_least_one_head_per_rank():
    tp8 = estimate_memory(LLAMA_70B, MemoryConfig(task="inference", layout=Layout(tp=8, micro_batch=4)))
    assert tp8.kv_cache.bytes == 2 * 80 * 4 * 4096 * 1 * 128 * 2  # 8 KV heads over 8 ranks: one each
    tp16 = estimate_memory(LLAMA_70B, MemoryConfig(task="inference", layout=Layout(tp=16, micro_batch=4)))
    assert tp16.kv_cache.bytes == tp8.kv_cache.bytes  # 8 KV heads cannot split 16 ways: replicated
    assert any("replicated" in note for note in tp16.notes)


def test_kv_precision_and_mha_and_mqa():
    fp8 = estimate_memory(LLAMA_70B, MemoryConfig(task="inference", kv_precision="fp8"))
    assert fp8.kv_cache.bytes == 2 * 80 * 4096 * 8 * 128 * 1
    # int4 weights keep a 16-bit KV cache unless told otherwise
    int4 = estimate_memory(LLAMA_70B, MemoryConfig(task="inference", precision="int4"))
    assert int4.kv_cache.bytes == 2 * 80 * 4096 * 8 * 128 * 2
    # MHA: Llama 2 7B has 32 KV heads: 2 x 32 x 2048 x 32 x 128 x 2 bytes
    mha = estimate_memory(LLAMA2_7B, MemoryConfig(task="inference", seq_len=2048))
    assert mha.kv_cache.bytes == 2 * 32 * 2048 * 32 * 128 * 2
    mqa = dataclasses.replace(LLAMA2_7B, kv_heads=1, name="llama-mqa")
    assert (
        estimate_memory(mqa, MemoryConfig(task="inference", seq_len=2048)).kv_cache.bytes
        == 2 * 32 * 2048 * 1 * 128 * 2
    )


def test_vllm_paper_opt_13b_kv_per_token():
    # vLLM paper (Kwon et al. 2023): OPT-13B holds 2 x 5120 x 40 x 2 bytes = 800 KiB of KV cache per token.
    opt13b = ModelSpec(
        name="OPT-13B", family="opt", layers=40, hidden=5120, heads=40, kv_heads=40, head_dim=128, ffn=20480,
        vocab=50272, tied_embeddings=True, gated_mlp=False, norm="layernorm", attn_bias=True, mlp_bias=True,
        max_context=2048,
    )  # fmt: skip
    one_token = estimate_memory(opt13b, MemoryConfig(task="inference", seq_len=1)).kv_cache.bytes
    assert one_token == 800 * 1024


def test_mla_kv_cache_is_the_latent_replicated_over_tp():
    deepseek = get_preset("deepseek-v3")
    config = MemoryConfig(
        task="inference",
        precision="fp8",
        kv_precision="bf16",
        seq_len=32768,
        layout=Layout(tp=8, micro_batch=2),
    )
    # 61 layers x 2 sequences x 32768 tokens x (kv_lora_rank 512 + rope 64) x 2 bytes, not divided by tp
    assert estimate_memory(deepseek, config).kv_cache.bytes == 61 * 2 * 32768 * 576 * 2


# --- model states (ZeRO paper accounting) ------------------------------------------------------------------------


def test_mixed_precision_adamw_is_16_bytes_per_parameter_without_zero():
    # autocast (HF Trainer, accelerate) keeps fp32 weights, fp32 gradients and fp32 m, v: 4 + 4 + 8 bytes/param
    b = estimate_memory(LLAMA_70B, train(dp=8))
    assert (b.weights.bytes, b.gradients.bytes, b.optimizer.bytes) == (4 * P_70B, 4 * P_70B, 8 * P_70B)
    assert "4 + 4 + 8 = 16 bytes/param" in b.optimizer.assumption and "2 + 2 + 12" in b.optimizer.assumption


def test_zero_stages_shard_what_pytorch_mixed_precision_holds():
    n = 64
    layer = 855_654_400  # one Llama 3.1 70B decoder layer
    root = 2 * 128256 * 8192 + 8192  # FSDP2's root unit: embedding, LM head, final norm
    # ZeRO-3 (FSDP2, reshard after forward): 16P/N, plus in a layer's backward the root unit and that layer
    # gathered in bf16 and three layer-sized bf16 communication buffers; no unsharded gradient unit is kept
    z3 = estimate_memory(LLAMA_70B, train(dp=n, zero=3, runtime="fsdp2"))
    assert z3.runtime == "fsdp2"
    gathered = 2 * (root + layer) + 3 * 2 * layer  # = the traced 15,457,551,360 B less the 4.41 GB fp32 shard
    assert z3.weights.bytes == pytest.approx(4 * P_70B / n + gathered, abs=1)
    assert z3.gradients.bytes == math.ceil(4 * P_70B / n) and z3.optimizer.bytes == math.ceil(8 * P_70B / n)
    assert z3.zero3_gathered_bytes == gathered
    # ZeRO-2 (no reshard after forward): every unit stays gathered between forward and backward
    z2 = estimate_memory(LLAMA_70B, train(dp=n, zero=2, runtime="fsdp2"))
    assert z2.weights.bytes == pytest.approx(4 * P_70B / n + 2 * P_70B + 3 * 2 * layer, abs=1)


def test_other_optimizers_and_fp32():
    sgd = estimate_memory(LLAMA2_7B, train(optimizer="sgd"))
    assert sgd.optimizer.bytes == 4 * P_7B  # fp32 momentum beside the fp32 weights
    adam8 = estimate_memory(LLAMA2_7B, train(optimizer="adamw8bit"))
    assert adam8.optimizer.bytes == 2 * P_7B  # two 1-byte moments
    fp32 = estimate_memory(LLAMA2_7B, train(precision="fp32"))
    assert (fp32.weights.bytes, fp32.gradients.bytes, fp32.optimizer.bytes) == (4 * P_7B, 4 * P_7B, 8 * P_7B)


def test_tensor_and_pipeline_parallel_divide_the_weights():
    # Llama 2 7B, tp 2 x pp 4: the first stage holds 8 of 32 layers and the embedding, halved by tp.
    layer = 4 * 4096 * 4096 + 3 * 4096 * 11008 + 2 * 4096
    embedding = 32000 * 4096
    b = estimate_memory(LLAMA2_7B, train(tp=2, pp=4))
    first_stage = (8 * layer + embedding) / 2
    last_stage = (8 * layer + embedding + 4096) / 2  # head + final norm instead of the embedding
    assert first_stage < last_stage  # the last stage has more weights ...
    assert (
        b.pipeline_stage == 0
    )  # ... but 4 micro-batches in flight on the first stage outweigh them and the logits
    assert b.weights.bytes == 2 * first_stage  # tensor/pipeline parallel is Megatron-style: bf16 weights
    assert b.gradients.bytes == 4 * first_stage  # fp32 main gradients
    assert b.optimizer.bytes == 12 * first_stage  # fp32 master + m + v
    assert any("first pipeline stage" in note for note in b.notes)


def test_expert_parallel_divides_only_the_expert_weights():
    mixtral = get_preset("mixtral-8x7b")
    experts = 32 * 8 * 3 * 4096 * 14336  # all routed experts
    rest = mixtral.total_params - experts
    b = estimate_memory(mixtral, MemoryConfig(task="inference", layout=Layout(dp=8, ep=8)))
    assert b.weights.bytes == 2 * (rest + experts // 8)


def test_offload_moves_states_to_the_host():
    b = estimate_memory(LLAMA_70B, train(dp=8, zero=2, offload="optimizer"))
    assert b.runtime == "deepspeed" and b.optimizer.bytes == 0 and b.gradients.bytes == 0
    # DeepSpeed's partition of fp32 master weights, m, v (12 bytes) and fp32 gradients (4) is on the host
    assert b.host_offload_bytes == math.ceil(16 * P_70B / 8)
    assert any("CPU RAM" in note for note in b.notes)
    everything = estimate_memory(LLAMA_70B, train(dp=8, zero=3, offload="all", runtime="fsdp2"))
    layer, root = 855_654_400, 2 * 128256 * 8192 + 8192
    # only FSDP2's gathered units and communication buffers stay on the GPU; fp32 weight shard + m, v go to the host
    assert everything.weights.bytes == 2 * (root + layer) + 3 * 2 * layer
    assert everything.host_offload_bytes == pytest.approx(12 * P_70B / 8, abs=2)


# --- LoRA, QLoRA, quantised weights ------------------------------------------------------------------------------


def test_lora_adapters_carry_full_optimizer_state_and_the_base_is_frozen():
    # rank 16 on q, k, v, o of Llama 2 7B: 4 matrices x 16 x (4096 + 4096) per layer x 32 layers
    adapters = 32 * 4 * 16 * (4096 + 4096)
    assert adapters == 16_777_216
    # peft keeps the adapters in fp32 on a bf16 base (autocast_adapter_dtype): 4 + 4 + 8 bytes per adapter param
    b = estimate_memory(LLAMA2_7B, MemoryConfig(task="lora", lora_rank=16))
    assert b.weights.bytes == 2 * P_7B + 4 * adapters
    assert b.gradients.bytes == 4 * adapters
    assert b.optimizer.bytes == 8 * adapters
    # all seven projections: q,k,v,o 4096 x 4096 each; gate, up, down 4096 x 11008
    all_targets = MemoryConfig(
        task="lora", lora_rank=8, lora_targets=("q", "k", "v", "o", "gate", "up", "down")
    )
    per_layer = 4 * 8 * (4096 + 4096) + 3 * 8 * (4096 + 11008)
    assert estimate_memory(LLAMA2_7B, all_targets).gradients.bytes == 4 * 32 * per_layer


def test_deepspeed_lora_keeps_the_frozen_base_16_bit_and_states_for_the_adapter_only():
    # DeepSpeed's engine casts the whole model, adapter included, to bf16 (engine.py _configure_distributed_model);
    # ZeRO-2 over 8 GPUs keeps the base whole and, for the adapter's 1/8: 2-byte gradients, fp32 master + AdamW
    # (12 bytes) and, in the optimizer step only, a flattened 16-bit copy of the gradient partition (2 bytes,
    # stage_1_and_2.py step: self.flatten) and the fp32 gradient partition cast from it (4 bytes)
    adapters, shard = 16_777_216, 16_777_216 // 8
    config = MemoryConfig(task="lora", lora_rank=16, runtime="deepspeed", layout=Layout(dp=8, zero=2))
    b = estimate_memory(LLAMA2_7B, config)
    buckets = 2 * 4096 * 4096 * 2  # two reduce buckets of hidden x hidden 16-bit elements
    assert b.runtime == "deepspeed"
    assert b.weights.bytes == 2 * P_7B + 2 * adapters + buckets
    # the gradient norm's fp64 copy of the widest adapter matrix (16 x 4096) is below the step's copies
    assert b.gradients.bytes == 2 * shard + 2 * shard + 4 * shard
    assert b.optimizer.bytes == 12 * shard
    # ZeRO-3 partitions the frozen base as well, and gathers the largest module (the 32000 x 4096 head) without
    # a gradient
    zero3 = estimate_memory(LLAMA2_7B, dataclasses.replace(config, layout=Layout(dp=8, zero=3)))
    live, prefetch = 2 * 32000 * 4096, 1.9 * 4096 * 4096 * 2
    assert zero3.weights.bytes == pytest.approx(2 * P_7B / 8 + 2 * shard + live + prefetch, abs=2)


def test_deepspeed_fp32_keeps_an_fp32_master_clone_and_fp32_gradients():
    # no bf16 / fp16 section: the model stays fp32; ZeRO-2 still clones the rank's partition as its master
    # (stage_1_and_2.py: detach().clone() to master_weights_and_grads_dtype)
    config = train(zero=2, dp=8, precision="fp32", runtime="deepspeed", seq_len=1)
    b = estimate_memory(LLAMA2_7B, config)
    shard = P_7B / 8
    assert b.weights.bytes == 4 * P_7B + 2 * 4096 * 4096 * 4
    # 4-byte gradient partition + the step's fp32 partition, or the norm's fp64 copy of the 32000 x 4096 head
    assert b.gradients.bytes == pytest.approx(4 * shard + max(4 * shard, 8 * 32000 * 4096), abs=1)
    assert b.optimizer.bytes == pytest.approx(12 * shard, abs=1)
    # ZeRO-0 in fp32 is torch's AdamW on the fp32 model: 4 + 4 + 8 bytes per parameter
    zero0 = estimate_memory(LLAMA2_7B, train(zero=0, dp=8, precision="fp32", runtime="deepspeed"))
    assert (zero0.weights.bytes, zero0.gradients.bytes, zero0.optimizer.bytes) == (4 * P_7B, 4 * P_7B, 8 * P_7B)


def test_qlora_base_is_nf4_with_double_quantisation():
    # Embedding, head, norms stay 16-bit: 2 x 32000 x 4096 + 4096 (final norm) + 32 x 2 x 4096 (layer norms)
    high_precision = 2 * 32000 * 4096 + 4096 + 32 * 2 * 4096
    linear = P_7B - high_precision
    adapters = 16_777_216
    workspace = 4096 * 11008 * 2  # one matrix dequantised to bf16 at a time
    expected = linear * 4.127 / 8 + high_precision * 2 + 4 * adapters + workspace  # fp32 adapters
    b = estimate_memory(LLAMA2_7B, MemoryConfig(task="qlora", lora_rank=16))
    assert b.weights.bytes == pytest.approx(expected, abs=1)
    assert "NF4" in b.weights.assumption


def test_qlora_paper_65b_fits_in_48gb_with_checkpointing():
    # QLoRA paper: a 65B model fine-tunes on one 48 GB GPU (with gradient checkpointing and paged optimizers).
    b = estimate_memory(
        get_preset("llama-2-70b"),
        MemoryConfig(task="qlora", seq_len=512, lora_rank=64, layout=Layout(recompute="full")),
    )
    weights_gb = b.weights.bytes / 1e9
    assert 34 < weights_gb < 40  # 69B x 4.127 bits ~ 35.6 GB plus 16-bit embeddings and adapters


def test_int4_weights_cost_4_25_bits_on_linear_layers():
    high_precision = 2 * 32000 * 4096 + 4096 + 32 * 2 * 4096
    b = estimate_memory(LLAMA2_7B, MemoryConfig(task="inference", precision="int4"))
    assert b.weights.bytes == pytest.approx((P_7B - high_precision) * 4.25 / 8 + 2 * high_precision, abs=1)


# --- activations (the tensors HF decoder layers save; checked against torch in test_memory_vs_torch.py) -------

GPT = ModelSpec(
    name="gpt-like", family="gpt2", layers=24, hidden=2048, heads=16, kv_heads=16, head_dim=128, ffn=8192,
    vocab=50304, tied_embeddings=True, gated_mlp=False, norm="layernorm", attn_bias=True, mlp_bias=True,
    max_context=2048, learned_positions=True, attn_out_bias=True, activation="gelu", rotary=False,
)  # fmt: skip


def _gpt_layer_bytes_per_token(h: int, ffn: int, a: int, s: int, flash: bool, autocast: bool = True) -> int:
    """What one GPT-like layer saves per token in bf16 (no dropout), by tensor: under autocast over fp32 weights,
    or on bf16 weights (Megatron-style tensor/pipeline parallel, FSDP2)."""
    norms = 2 * ((4 if autocast else 2) * h + 8)  # two LayerNorms: input (autocast: in fp32) + mean and rstd
    inputs = 2 * h + 2 * h  # the fused QKV projection's and the MLP input projection's own bf16 input copies
    if flash:
        attention = 2 * (h + h + h + h) + 4 * a  # bf16 Q, K, V, output; fp32 log-sum-exp per head
    else:
        attention = (
            2 * (h + h + h + h) + 2 * a * s + 4 * a * s
        )  # Q, K, V, output; bf16 probabilities + fp32 softmax
    mlp = 2 * (2 * ffn)  # native gelu: the up projection's output and the activation (down's input), bf16
    return norms + inputs + attention + mlp


def test_activations_follow_what_hf_layers_save():
    s, b, h, a, L, V, ffn = 2048, 2, 2048, 16, 24, 50304, 8192
    tokens = s * b
    copies = 2 * (4 * h * h + 2 * h * ffn)  # autocast's bf16 copy of each Linear weight, kept for backward
    head = (
        tokens * ((4 * h + 8) + 2 * h + 12 * V) + 2 * V * h
    )  # final norm, head input, loss; the head's copy
    result = estimate_memory(GPT, MemoryConfig(task="train", seq_len=s, layout=Layout(micro_batch=b)))
    assert (
        result.activations.bytes
        == L * (tokens * _gpt_layer_bytes_per_token(h, ffn, a, s, True) + copies) + head
    )
    unfused = estimate_memory(
        GPT, MemoryConfig(task="train", seq_len=s, flash_attention=False, layout=Layout(micro_batch=b))
    )
    expected = L * (tokens * _gpt_layer_bytes_per_token(h, ffn, a, s, False) + copies) + head
    assert unfused.activations.bytes == expected


def test_tensor_and_sequence_parallel_activations():
    # tensor parallel runs Megatron-style on bf16 weights: no autocast copies, bf16 LayerNorm inputs
    s, b, h, a, L, V, ffn, t = 2048, 1, 2048, 16, 24, 50304, 8192, 4
    tokens = s * b
    replicated = 2 * (2 * h + 8) + 4 * h  # norms and projection inputs: whole on every tp rank
    split = 8 * h + 4 * a + 4 * ffn  # attention and MLP: heads and columns divided over tp
    head = tokens * ((2 * h + 8) + 2 * h + 12 * V / t)
    tp = estimate_memory(GPT, MemoryConfig(task="train", seq_len=s, layout=Layout(micro_batch=b, tp=t)))
    assert tp.activations.bytes == pytest.approx(L * tokens * (replicated + split / t) + head, abs=1)
    # with sequence parallel the replicated tensors divide by t as well
    sp = estimate_memory(
        GPT, MemoryConfig(task="train", seq_len=s, sequence_parallel=True, layout=Layout(micro_batch=b, tp=t))
    )
    head_sp = tokens * (((2 * h + 8) + 2 * h) / t + 12 * V / t)
    assert sp.activations.bytes == pytest.approx(L * tokens * (replicated + split) / t + head_sp, abs=1)
    # Korthikanti et al. 2022 (arXiv 2205.05198) Table 2, sequence parallel with the attention core not kept:
    # 34 s b h / t bytes per layer, 2 s b h / t of them dropout masks (none here): 32 s b h / t
    assert (sp.activations.bytes - head_sp) == pytest.approx(L * tokens * 32 * h / t, rel=0.01)


def test_tensor_parallel_llama_layers_keep_what_megatron_with_transformer_engine_saves():
    # Megatron-Core + Transformer Engine, sequence parallel: each fused norm+linear keeps the norm's bf16 input,
    # its bf16 output and an fp32 rstd per token (TE layernorm_linear.py); the fused SwiGLU keeps FC1's gate+up
    # output, FC2 its input (Megatron fused_bias_swiglu.py); flash attention Q, K, V, output and its fp32 LSE.
    s, h, a, ffn, V, L, t = 4096, 4096, 32, 11008, 32000, 32, 4
    norms = 2 * (2 * 2 * h + 4)
    attention = 2 * (h + h + h + h) + 4 * a
    mlp = 3 * 2 * ffn
    head = s * (
        (2 * 2 * h + 4) / t + 12 * V / t
    )  # final norm's input and output (the head's input), the loss
    b = estimate_memory(LLAMA2_7B, MemoryConfig(task="train", seq_len=s, sequence_parallel=True,
                                                layout=Layout(tp=t, zero=1)))  # fmt: skip
    assert b.activations.bytes == pytest.approx(L * s * (norms + attention + mlp) / t + head, abs=1)


def test_full_recompute_keeps_only_layer_inputs_plus_one_layer():
    s, b, h, a, L, V, ffn = 2048, 1, 2048, 16, 24, 50304, 8192
    tokens = s * b
    full = estimate_memory(
        GPT, MemoryConfig(task="train", seq_len=s, layout=Layout(micro_batch=b, recompute="full"))
    )
    copies = L * 2 * (4 * h * h + 2 * h * ffn)  # autocast's weight copies are made again, kept until backward
    one_layer = tokens * _gpt_layer_bytes_per_token(h, ffn, a, s, True)
    head = tokens * ((4 * h + 8) + 2 * h + 12 * V) + 2 * V * h
    # each layer's fp32 input (the residual stream under autocast) + one layer recomputed + the head
    assert full.activations.bytes == L * 4 * tokens * h + one_layer + head + copies


def test_pipeline_first_stage_holds_pp_micro_batches():
    # 8 sequences per micro-batch: the first stage's 4 in-flight micro-batches outweigh the last stage's LM head
    # and its loss; pipeline parallel runs Megatron-style on bf16 weights (no autocast copies)
    s, b, h, a, ffn = 2048, 8, 2048, 16, 8192
    per_layer = s * b * _gpt_layer_bytes_per_token(h, ffn, a, s, True, autocast=False)
    first = estimate_memory(GPT, MemoryConfig(task="train", seq_len=s, layout=Layout(micro_batch=b, pp=4)))
    assert first.pipeline_stage == 0
    assert first.activations.bytes == 6 * per_layer * 4  # 6 layers per stage, 4 micro-batches in flight
    three = estimate_memory(
        GPT,
        MemoryConfig(task="train", seq_len=s, inflight_microbatches=3, layout=Layout(micro_batch=b, pp=4)),
    )
    assert three.pipeline_stage == 0 and three.activations.bytes == 6 * per_layer * 3



def test_interleaved_first_stage_holds_the_warm_up_chunks_exactly():
    # Megatron-Core's interleaved 1F1B: rank 0 runs 2 (pp - 1) + (v - 1) pp warm-up forwards of a model chunk
    # before its first backward, so it holds v pp + pp - 1 chunks of 24 / (pp v) layers: at pp 4, v 3 that is 15
    # chunks of 2 layers, 30 layer-micro-batches against 1F1B's 4 x 6 = 24 (x 5/4 = 1 + 3/12, Narayanan et al.
    # 2021), not rounded up to 5 whole micro-batches of 6 layers.
    s, b, h, a, ffn = 2048, 8, 2048, 16, 8192
    per_layer = s * b * _gpt_layer_bytes_per_token(h, ffn, a, s, True, autocast=False)
    interleaved = estimate_memory(
        GPT, MemoryConfig(task="train", seq_len=s, virtual_stages=3, layout=Layout(micro_batch=b, pp=4))
    )
    assert interleaved.pipeline_stage == 0
    assert interleaved.activations.bytes == pytest.approx(2 * per_layer * 15, rel=1e-12)

# --- overhead, shape, refusals, notes ----------------------------------------------------------------------------


def test_overhead_is_context_plus_margin_plus_nccl():
    b = estimate_memory(LLAMA2_7B, train(dp=8, tp=2))
    dynamic = b.gradients.bytes + b.activations.bytes
    expected = CUDA_CONTEXT_BYTES + ALLOCATOR_MARGIN_FRACTION * dynamic + 2 * NCCL_BYTES_PER_COMMUNICATOR
    assert b.overhead.bytes == pytest.approx(expected, abs=2)
    single = estimate_memory(
        LLAMA2_7B, MemoryConfig(task="inference", seq_len=1, layout=Layout(micro_batch=1))
    )
    assert single.overhead.bytes >= CUDA_CONTEXT_BYTES


def test_breakdown_dict_shape_and_total():
    b = estimate_memory(LLAMA_70B, train(dp=64, zero=3, runtime="fsdp2"))
    d = b.as_dict()
    assert list(d) == ["weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"]
    # the total is the step's peak: one backward per step frees the activations before all the gradients exist
    assert (
        d["total"] == sum(v for k, v in d.items() if k != "total") - b.not_concurrent_bytes == b.total_bytes
    )
    # it peaks in a layer's backward: the loss's tensors (log_softmax and two fp32 gradients, 12 bytes per
    # vocabulary entry and token, and the final norm's and head's bf16 inputs) and the sharded gradients are gone
    tokens, h = 4096, 8192
    loss = tokens * (12 * 128256 + (4 + 2) * h + 4 + 2 * h)
    assert b.not_concurrent_bytes == pytest.approx(loss + b.gradients.bytes, abs=2)
    assert b.peak_phase == "backward"
    assert all(isinstance(v, int) for v in d.values())
    assert all(isinstance(text, str) and text and "\n" not in text for text in b.assumptions().values())


def test_the_peak_is_the_larger_of_backward_start_and_optimizer_step():
    # one process in fp32 (no DDP, so no buckets: gradients made in the backward, freed by zero_grad after the step)
    def fp32(**changes):
        return train(zero=0, precision="fp32", runtime="ddp", **changes)

    # tiny activations (1 token): the optimizer step, with every gradient, is the peak
    short = estimate_memory(LLAMA2_7B, fp32(seq_len=1))
    assert short.peak_phase == "optimizer step"
    # at the optimizer step no activation is left: the total is weights + gradients + optimizer + overhead
    states = short.weights.bytes + short.gradients.bytes + short.optimizer.bytes + short.overhead.bytes
    assert short.total_bytes == states
    # a long sequence: the peak is the loss's backward, before the first parameter gradient exists
    long = estimate_memory(LLAMA2_7B, fp32(seq_len=4096))
    assert long.peak_phase == "backward"
    expected = long.weights.bytes + long.optimizer.bytes + long.activations.bytes + long.overhead.bytes
    assert long.total_bytes == expected
    # with gradient accumulation the gradients stay beside the next micro-batch's activations: no credit
    accumulated = estimate_memory(LLAMA2_7B, fp32(gradient_accumulation=4))
    assert accumulated.not_concurrent_bytes == 0
    assert accumulated.total_bytes == sum(term.bytes for _, term in accumulated.terms())


def test_ddp_holds_its_gradient_buckets_beside_the_activations():
    """torch DDP's all-reduce buckets (the gradients' bytes) live for the whole run, and the export makes the
    gradients views into them: no credit for gradients and activations apart, with or without accumulation
    (fp32 gradients under autocast: 4 bytes per parameter). One rank runs without DDP: no buckets."""
    for accumulation in (1, 4):
        memory = estimate_memory(LLAMA2_7B, train(dp=2, seq_len=4096, gradient_accumulation=accumulation))
        assert memory.runtime == "ddp" and memory.not_concurrent_bytes == 0
        assert memory.gradients.bytes == 4 * LLAMA2_7B.total_params
        assert memory.total_bytes == sum(term.bytes for _, term in memory.terms())
    one = estimate_memory(LLAMA2_7B, train(seq_len=4096))
    assert one.runtime == "ddp" and one.not_concurrent_bytes > 0


@pytest.mark.parametrize(
    ("model", "config", "message"),
    [
        (LLAMA_70B, train(tp=3), "tensor parallel 3 does not divide the 64 attention heads"),
        (get_preset("qwen2.5-7b"), train(tp=7), "does not divide the 4 KV heads"),
        (LLAMA_70B, train(pp=81), "pipeline parallel 81 is larger than the 80 layers"),
        (LLAMA_70B, train(ep=2, dp=2), "needs a mixture-of-experts model"),
        (get_preset("mixtral-8x7b"), train(ep=3, dp=3), "does not divide the 8 experts"),
        (get_preset("mixtral-8x7b"), train(ep=4, dp=2), "must divide dp x tp"),
        (LLAMA_70B, train(zero=4), "ZeRO stage must be 0, 1, 2 or 3"),
        (LLAMA_70B, train(micro_batch=0), "micro-batch must be positive"),
        (LLAMA_70B, train(dp=-2), "dp must be positive"),
        (LLAMA_70B, MemoryConfig(seq_len=10**12), "absurdly large"),
        (LLAMA_70B, MemoryConfig(task="sing"), "unknown task 'sing'"),
        (LLAMA_70B, MemoryConfig(precision="fp7"), "unknown precision 'fp7'"),
        (LLAMA_70B, MemoryConfig(task="train", precision="int4"), "full training in int4 is not supported"),
        (LLAMA_70B, train(offload="optimizer"), "optimizer offload needs ZeRO stage"),
        (LLAMA_70B, train(offload="all", zero=2, dp=2), "needs ZeRO stage 3"),
        (LLAMA_70B, MemoryConfig(task="lora", lora_targets=("q", "wq")), "unknown LoRA target 'wq'"),
        (LLAMA_70B, MemoryConfig(task="lora", lora_rank=0), "LoRA rank must be positive"),
        (GPT, MemoryConfig(seq_len=4096), "exceeds gpt-like's 2048 learned positions"),
    ],
)
def test_impossible_configurations_are_refused_with_the_reason(model, config, message):
    with pytest.raises(UserError, match=message.replace("(", r"\(").replace(")", r"\)")):
        estimate_memory(model, config)


def test_pointless_configurations_are_allowed_with_a_note():
    notes = validate_layout(LLAMA_70B, train(zero=3, dp=1))
    assert any("dp 1 shards nothing" in note for note in notes)
    assert any("exceeds" in note for note in validate_layout(LLAMA2_7B, MemoryConfig(seq_len=8192)))
    assert any(
        "ignored for inference" in n
        for n in validate_layout(LLAMA2_7B, MemoryConfig(task="inference", layout=Layout(zero=2)))
    )
    assert validate_layout(LLAMA2_7B, MemoryConfig(task="finetune")) == []


def test_every_preset_estimates_for_every_task():
    for spec in list_presets():
        for task in ("inference", "train", "lora", "qlora"):
            b = estimate_memory(spec, MemoryConfig(task=task, seq_len=2048))
            assert b.total_bytes > b.weights.bytes > 0


def test_the_terms_at_the_peak_sum_to_the_total():
    for config in (train(dp=64, zero=3), train(seq_len=1), MemoryConfig(task="inference")):
        b = estimate_memory(LLAMA_70B, config)
        at_peak = b.at_peak()
        assert sum(at_peak.values()) == b.total_bytes
        assert all(0 <= at_peak[name] <= term.bytes for name, term in b.terms())


def test_with_layout_builds_what_dataclasses_replace_builds():
    """memory.config.with_layout: the same config as dataclasses.replace(config, layout=...), every other field
    kept (a config far from the defaults, so a field dropped or swapped would show)."""
    from planner.memory.config import with_layout
    from planner.vocabulary import LoraTarget, Offload, Optimizer, Precision, Recompute, Task

    config = MemoryConfig(
        task=Task.QLORA, precision=Precision.INT4, kv_precision=Precision.FP8, optimizer=Optimizer.SGD,
        layout=Layout(dp=3), seq_len=777, flash_attention=False, lora_rank=9, lora_targets=(LoraTarget.UP,),
        inflight_microbatches=5, sequence_parallel=True, gradient_accumulation=4,
    )  # fmt: skip
    layout = Layout(dp=2, tp=4, pp=2, zero=1, recompute=Recompute.FULL, offload=Offload.NONE, micro_batch=3)
    built = with_layout(config, layout)
    assert built == dataclasses.replace(config, layout=layout)
    assert built.layout is layout and built.seq_len == 777 and built.lora_targets == (LoraTarget.UP,)
