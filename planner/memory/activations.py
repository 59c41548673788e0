"""Training activations per token of one decoder layer: what autograd saves in Hugging Face's layers, or Transformer Engine's fused layers under tensor parallelism, with LoRA adapters."""

from __future__ import annotations

from planner.memory.config import (
    LSE_BYTES,
    ROUTER_BYTES_PER_VALUE,
    MemoryConfig,
)
from planner.memory.divisors import Divisors
from planner.memory.element_bytes import (
    compute_bytes,
)
from planner.models import ModelSpec, fused_gate_up, fused_qkv
from planner.vocabulary import Precision, Recompute

# Tensor-parallel training (Megatron-Core with Transformer Engine, as Megatron-LM and NeMo run it) keeps less than
# Hugging Face's layers: TE's fused LayerNormLinear saves the norm's 16-bit input, its 16-bit output (the input
# of the QKV or FC1 GEMM, sequence-parallel sharded) and the per-token statistics (TransformerEngine
# transformer_engine/pytorch/module/layernorm_linear.py, tensors_to_save: inputmat, ln_out, mu, rsigma); the
# fused SwiGLU saves only its input, FC1's gate+up output (Megatron-LM megatron/core/fusions/fused_bias_swiglu.py,
# SwiGLUFunction.forward: save_for_backward(input)), FC2 keeps the activation's output: 3 ffn-wide tensors, and
# a GELU MLP 2 (FC1's output, FC2's input). Korthikanti et al. 2022 (arXiv 2205.05198) count the same tensors.
TE_NORM_LINEAR_VALUES = 2  # values per hidden feature per norm: its input and its output


TE_GATED_MLP_TENSORS = 3


TE_MLP_TENSORS = 2


# Under fp8 Transformer Engine's GEMMs save the fp8 cast of their input for the weight gradient, not the 16-bit
# input: Linear keeps `saved_inputmat = inputmat` (quantized), LayerNormLinear its quantized ln_out, with only one
# of the row-wise / column-wise copies kept for backward (TransformerEngine transformer_engine/pytorch/module/
# linear.py and layernorm_linear.py, update_usage). So each norm's output (the QKV / FC1 input) and FC2's input
# are 1 byte per value; the attention output stays 16 bit (flash attention's backward reads it) and the output
# projection keeps its fp8 cast besides. torchao's Float8Linear (torchtitan) saves the 16-bit input instead
# (torchao/float8/float8_linear.py, matmul_with_hp_or_float8_args: save_for_backward(input_hp, weight_hp_t)).
FP8_GEMM_INPUT_BYTES = 1.0


def _gemm_input_bytes(config: MemoryConfig, e: float) -> float:
    """Bytes per value of a GEMM input Transformer Engine saves for the weight gradient (fp8: its fp8 cast)."""
    return FP8_GEMM_INPUT_BYTES if config.te_fp8_inputs and config.precision == Precision.FP8 else e


def _transformer_engine(config: MemoryConfig, tp: int, sharded: bool) -> bool:
    """Full training with tensor parallel on 16-bit weights: what Megatron-Core with Transformer Engine keeps."""
    return sharded and tp > 1 and config.task.is_full_training


def norm_bytes(model: ModelSpec, frozen: bool, residual: float, autocast: bool) -> float:
    """Bytes per token one norm keeps, per hidden feature (+ its per-token statistics, see norm_stats), on a
    residual stream of `residual` bytes per value: LayerNorm keeps its input (autocast runs it in fp32); HF's
    RMSNorm keeps its input in fp32 (a copy of a 16-bit one) and, with a trained weight, the normalised value in
    the residual's dtype."""
    if model.norm == "layernorm":
        return 4.0 if autocast else residual
    return 4.0 if frozen else 4.0 + residual


def _residual_bytes(config: MemoryConfig, sharded: bool) -> tuple[float, bool]:
    """(bytes per value of the residual stream, whether autocast runs): autocast over fp32 weights keeps an fp32
    residual; FSDP2's 16-bit compute, LoRA on a 16-bit base and inference keep the compute dtype."""
    return residual_of(compute_bytes(config), config.task.is_full_training, sharded)


def residual_of(e: float, full_training: bool, sharded: bool) -> tuple[float, bool]:
    """_residual_bytes from the compute bytes per value `e` and whether every weight trains."""
    autocast = e < 4 and not sharded
    if full_training and not sharded:
        return 4.0, autocast
    return e, autocast


def norm_stats(model: ModelSpec) -> float:
    return 8.0 if model.norm == "layernorm" else 4.0  # mean + rstd, or rstd, in fp32


def _attention_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, e: float, seq_len: int
) -> float:
    """Attention tensors autograd keeps per token for one layer on one GPU: flash (SDPA) keeps Q, K, V, the output
    and an fp32 log-sum-exp per head; eager attention keeps Q, K and V expanded to every query head, the output and
    the probabilities (under autocast also the fp32 softmax they were cast from). MLA: also its latents."""
    tp = divisors.tp
    heads_per_rank = model.heads / tp
    if model.uses_mla:
        qk_head = model.qk_nope_head_dim + model.qk_rope_head_dim
        latent = e * (2 * model.q_lora_rank + 2 * model.kv_lora_rank + model.qk_rope_head_dim)
        q_width, k_width, v_width = (
            model.heads * qk_head / tp,
            model.heads * qk_head / tp,
            model.heads * model.v_head_dim / tp,
        )
        kv_heads_rank = heads_per_rank
    else:
        latent = 0.0
        q_width = v_width = model.heads * model.head_dim / tp
        kv_heads_rank = divisors.kv_heads_per_rank
        k_width = kv_heads_rank * model.head_dim
    if config.flash_attention:
        kv = k_width + kv_heads_rank * (model.v_head_dim if model.uses_mla else model.head_dim)
        return e * (q_width + kv + v_width) + latent + LSE_BYTES * heads_per_rank
    expanded = e * (q_width + (k_width if model.uses_mla else q_width) + v_width)  # Q, K and V per query head
    probabilities = e * heads_per_rank * seq_len
    if e < 4:
        probabilities += 4 * heads_per_rank * seq_len  # the fp32 softmax the 16-bit probabilities come from
    if config.layout.recompute == Recompute.SELECTIVE:
        probabilities = 0.0  # selective recompute: the attention core is recomputed in the backward pass
    return expanded + e * v_width + probabilities + latent


def _mlp_tensors(model: ModelSpec, frozen: bool) -> int:
    """Intermediate tensors (ffn wide) one MLP keeps: gated: gate output, its activation, up output, their
    product (the down projection's input); GPT-2's gelu_new, written out in Python: five; native gelu: two. A
    frozen down projection does not keep its input."""
    if model.gated_mlp:
        count = 4
    elif model.activation == "gelu_new":
        count = 5
    else:
        count = 2
    return count - 1 if frozen else count


def _linear_input_bytes(model: ModelSpec, config: MemoryConfig, e: float, sharded: bool) -> float:
    """Per token per hidden feature: the inputs of the attention and MLP projections that training keeps (the
    output projection's and down projection's inputs are counted with attention and the MLP). FSDP2 (sharded)
    computes on 16-bit weights, without autocast: one shared input each."""
    if not config.task.is_full_training:
        return 0.0
    if e >= 4 or sharded:
        return 2 * e  # the attention input and the MLP input, each shared by its projections
    fused = fused_qkv(model.family)
    attention_inputs = 1 if fused else (1 if model.uses_mla else 3)
    mlp_inputs = 2 if model.gated_mlp else 1
    return e * (attention_inputs + mlp_inputs)  # autocast: each projection its own 16-bit copy


def _adapter_activations(model: ModelSpec, config: MemoryConfig, e: float, tp: int) -> float:
    """Per token: each LoRA adapter keeps its own copy of its input (peft casts it to the fp32 adapter dtype and
    autocast back to 16 bit) and its down-projected r values; in fp32 the inputs are shared."""
    h, r = model.hidden, config.lora_rank
    q_width = model.heads * model.head_dim
    attention = [str(t) for t in config.lora_targets if t in ("q", "k", "v", "o")]
    mlp = [
        str(t)
        for t in config.lora_targets
        if t in ("gate", "up", "down") and (model.gated_mlp or t != "gate")
    ]
    if fused_qkv(model.family) and set(attention) & {"q", "k", "v"}:
        attention = ["qkv"] + [t for t in attention if t == "o"]  # one adapter on the fused projection
    if fused_gate_up(model.family) and set(mlp) & {"gate", "up"}:
        mlp = ["gate_up"] + [t for t in mlp if t == "down"]
    widths = {
        "q": h,
        "k": h,
        "v": h,
        "qkv": h,
        "o": q_width,
        "gate": h,
        "up": h,
        "gate_up": h,
        "down": model.ffn,
    }
    experts = model.experts_per_token or 1
    inputs = sum(widths[t] for t in attention) + experts * sum(widths[t] for t in mlp)
    count = len(attention) + experts * len(mlp)
    if e >= 4:  # fp32: no casts, the adapters read tensors that are kept anyway (or one shared input)
        inputs = h * bool(attention) + h * bool(mlp)
    return (e * inputs + e * r * count) / tp


def per_token_layer_activations(
    model: ModelSpec, config: MemoryConfig, divisors: Divisors, moe: bool, seq_len: int, sharded: bool = False
) -> float:
    """Bytes autograd keeps per token for one layer (one micro-batch), on one GPU: the norms' inputs (and
    normalised values), the projections' inputs, attention, the MLP intermediates, MoE routing, LoRA inputs."""
    task = config.task
    e = compute_bytes(config)
    frozen = task.is_adapter
    h = model.hidden
    tp = divisors.tp
    residual, autocast = _residual_bytes(config, sharded)
    attention = _attention_activations(model, config, divisors, e, seq_len)
    if _transformer_engine(config, tp, sharded):
        g = _gemm_input_bytes(config, e)  # each norm keeps its 16-bit input and the QKV / FC1 GEMM's input
        replicated = model.norms_per_layer * ((TE_NORM_LINEAR_VALUES - 1) * e * h + g * h + norm_stats(model))
        tensors = TE_GATED_MLP_TENSORS if model.gated_mlp else TE_MLP_TENSORS
        mlp_bytes = (tensors - 1) * e + g  # FC1's output(s) in 16 bit, FC2's GEMM input
        if g != e:  # the output projection's fp8 input beside the attention's 16-bit output
            attention += g * model.heads * (model.v_head_dim if model.uses_mla else model.head_dim) / tp
    else:
        norms = model.norms_per_layer * (
            norm_bytes(model, frozen, residual, autocast) * h + norm_stats(model)
        )
        replicated = norms + _linear_input_bytes(model, config, e, sharded) * h
        mlp_bytes = _mlp_tensors(model, frozen) * e
    if moe:
        shared_ffn = model.shared_expert_ffn or model.shared_experts * model.moe_ffn
        k = model.experts_per_token
        # routed experts (grouped matmuls, outside autocast: the fp32 weights' dtype in full training): each
        # token-expert pair keeps its gathered input, gate+up output, activation, product and weighted output
        e_experts = 4.0 if task.is_full_training and not sharded else e
        routed = k * e_experts * ((2 * h + 4 * model.moe_ffn) if not frozen else (h + 3 * model.moe_ffn))
        mlp = (routed + mlp_bytes * shared_ffn) / divisors.expert_divisor
        replicated += ROUTER_BYTES_PER_VALUE * model.experts  # router softmax in fp32
    else:
        mlp = mlp_bytes * model.ffn / tp
    if task.is_adapter:
        mlp += _adapter_activations(model, config, e, tp)
    sp_divisor = tp if config.sequence_parallel else 1
    return replicated / sp_divisor + attention + mlp
