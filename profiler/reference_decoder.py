"""A small, real PyTorch decoder built from a model description, and torch's own memory accounting of it.

Used by the test suite to cross-check planner.memory's analytic terms, and kept general enough for a later
"exact memory by tracing" feature (run the same step under FakeTensorMode for a full-size model).

The model description is duck-typed: any object with the attributes of planner.models.ModelSpec (layers,
hidden, heads, kv_heads, head_dim, ffn, vocab, tied_embeddings, gated_mlp, norm, attn_bias, mlp_bias, and
optionally attn_out_bias, norms_per_layer, learned_positions, max_context, rotary, activation). profiler never
imports planner; torch is imported inside the functions that use it.

Two styles come out of the same code:
- llama-style: RMSNorm, gated SiLU MLP, grouped-query attention, rotary positions, separate LM head;
- gpt2-style: LayerNorm with bias, biases everywhere, GELU MLP, learned positions, tied embeddings.

The layers are written the way production kernels behave, so that what autograd saves is what the analytic
model counts: RMSNorm is one autograd function that keeps only its input and the per-token 1/rms (as Apex and
Transformer Engine do); attention is torch's scaled_dot_product_attention (flash kernel) or, with
flash_attention=False, the explicit softmax(QK^T)V that keeps the probabilities.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import torch
    from torch import nn
    from torch.autograd.function import BackwardCFunction, FunctionCtx

DTYPES = ("fp32", "bf16", "fp16")


class DecoderSpec(Protocol):
    """What the decoder reads from a model description (planner.models.ModelSpec has all of it). Optional
    attributes (attn_out_bias, norms_per_layer, learned_positions, rotary, activation, experts,
    kv_lora_rank) are read with getattr and a default."""

    @property
    def layers(self) -> int: ...
    @property
    def hidden(self) -> int: ...
    @property
    def heads(self) -> int: ...
    @property
    def kv_heads(self) -> int: ...
    @property
    def head_dim(self) -> int: ...
    @property
    def ffn(self) -> int: ...
    @property
    def vocab(self) -> int: ...
    @property
    def tied_embeddings(self) -> bool: ...
    @property
    def gated_mlp(self) -> bool: ...
    @property
    def norm(self) -> str: ...
    @property
    def attn_bias(self) -> bool: ...
    @property
    def mlp_bias(self) -> bool: ...
    @property
    def max_context(self) -> int: ...


def _torch_dtype(name: str) -> torch.dtype:
    import torch

    if name not in DTYPES:
        raise ValueError(f"dtype must be one of {DTYPES}, got {name!r}")
    return {"fp32": torch.float32, "bf16": torch.bfloat16, "fp16": torch.float16}[name]


def _check_supported(spec: DecoderSpec) -> None:
    if getattr(spec, "experts", 0) or getattr(spec, "kv_lora_rank", 0):
        raise NotImplementedError("the reference decoder builds dense models with standard attention only")
    if getattr(spec, "norms_per_layer", 2) not in (2, 4):
        raise NotImplementedError("norms_per_layer must be 2 (pre-norm) or 4 (Gemma-2 pre+post norms)")


@functools.lru_cache(maxsize=1)
def _classes() -> dict[str, type]:
    """Module classes, defined on first use so that importing this file never imports torch."""
    import torch
    import torch.nn.functional as F
    from torch import nn

    class RMSNormFunction(torch.autograd.Function):
        """y = x / rms(x) * w, keeping only x and the per-token 1/rms for backward (fused-kernel behaviour)."""

        @staticmethod
        def forward(ctx: FunctionCtx, x: torch.Tensor, weight: torch.Tensor, eps: float) -> torch.Tensor:
            x32 = x.float()
            rstd = torch.rsqrt(x32.pow(2).mean(-1, keepdim=True) + eps)
            ctx.save_for_backward(x, weight, rstd)
            return (x32 * rstd).to(x.dtype) * weight

        @staticmethod
        def backward(
            ctx: BackwardCFunction, grad_out: torch.Tensor
        ) -> tuple[torch.Tensor, torch.Tensor, None]:
            x, weight, rstd = tuple(ctx.saved_tensors)  # torch's stub types it as a 1-tuple
            xhat = x.float() * rstd
            grad32 = grad_out.float()
            grad_weight = (grad32 * xhat).reshape(-1, x.shape[-1]).sum(0).to(weight.dtype)
            gxhat = grad32 * weight.float()
            grad_x = rstd * (gxhat - xhat * (gxhat * xhat).mean(-1, keepdim=True))
            return grad_x.to(x.dtype), grad_weight, None

    class RMSNorm(nn.Module):
        def __init__(self, size: int, eps: float = 1e-6):
            super().__init__()
            self.weight = nn.Parameter(torch.ones(size))
            self.eps = eps

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            result: torch.Tensor = RMSNormFunction.apply(x, self.weight, self.eps)  # type: ignore[no-untyped-call]
            return result

    def make_norm(spec: DecoderSpec) -> nn.Module:
        if spec.norm == "layernorm":
            return nn.LayerNorm(spec.hidden)
        return RMSNorm(spec.hidden)

    def rotate_half(x: torch.Tensor) -> torch.Tensor:
        first, second = x.chunk(2, dim=-1)
        return torch.cat((-second, first), dim=-1)

    class Attention(nn.Module):
        def __init__(self, spec: DecoderSpec, flash_attention: bool):
            super().__init__()
            self.heads, self.kv_heads, self.head_dim = spec.heads, spec.kv_heads, spec.head_dim
            q_width, kv_width = spec.heads * spec.head_dim, spec.kv_heads * spec.head_dim
            self.q_proj = nn.Linear(spec.hidden, q_width, bias=spec.attn_bias)
            self.k_proj = nn.Linear(spec.hidden, kv_width, bias=spec.attn_bias)
            self.v_proj = nn.Linear(spec.hidden, kv_width, bias=spec.attn_bias)
            self.o_proj = nn.Linear(q_width, spec.hidden, bias=getattr(spec, "attn_out_bias", False))
            self.rotary = getattr(spec, "rotary", True) and not getattr(spec, "learned_positions", False)
            self.flash_attention = flash_attention

        def forward(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
            batch, seq, _ = x.shape
            # (batch, seq, heads, dim) viewed as (batch, heads, seq, dim): the flash kernel's output then has the
            # (batch, seq, heads, dim) memory layout and feeds o_proj without a copy.
            q = self.q_proj(x).view(batch, seq, self.heads, self.head_dim).transpose(1, 2)
            k = self.k_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
            v = self.v_proj(x).view(batch, seq, self.kv_heads, self.head_dim).transpose(1, 2)
            if self.rotary and rope is not None:
                cos, sin = rope
                q = q * cos + rotate_half(q) * sin
                k = k * cos + rotate_half(k) * sin
            if self.flash_attention:
                out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
            else:
                out = self._explicit_attention(q, k, v, seq)
            projected: torch.Tensor = self.o_proj(out.transpose(1, 2).reshape(batch, seq, -1))
            return projected

        def _explicit_attention(
            self, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, seq: int
        ) -> torch.Tensor:
            group = self.heads // self.kv_heads
            if group > 1:
                k = k.repeat_interleave(group, dim=1)
                v = v.repeat_interleave(group, dim=1)
            scores = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(self.head_dim))
            mask = torch.ones(seq, seq, dtype=torch.bool, device=q.device).triu(1)
            probs = scores.masked_fill(mask, float("-inf")).softmax(dim=-1)
            return probs @ v

    class MLP(nn.Module):
        def __init__(self, spec: DecoderSpec):
            super().__init__()
            self.gated = spec.gated_mlp
            bias = spec.mlp_bias
            self.act: Callable[[torch.Tensor], torch.Tensor] = (
                F.silu
                if getattr(spec, "activation", "silu") == "silu"
                else (lambda t: F.gelu(t, approximate="tanh"))
            )
            if self.gated:
                self.gate_proj = nn.Linear(spec.hidden, spec.ffn, bias=bias)
            self.up_proj = nn.Linear(spec.hidden, spec.ffn, bias=bias)
            self.down_proj = nn.Linear(spec.ffn, spec.hidden, bias=bias)

        def forward(self, x: torch.Tensor) -> torch.Tensor:
            inner = self.act(self.gate_proj(x)) * self.up_proj(x) if self.gated else self.act(self.up_proj(x))
            result: torch.Tensor = self.down_proj(inner)
            return result

    class Block(nn.Module):
        def __init__(self, spec: DecoderSpec, flash_attention: bool):
            super().__init__()
            self.attn_norm = make_norm(spec)
            self.attn = Attention(spec, flash_attention)
            self.mlp_norm = make_norm(spec)
            self.mlp = MLP(spec)
            self.post_norms = getattr(spec, "norms_per_layer", 2) == 4
            if self.post_norms:  # Gemma-2: a norm after attention and after the MLP as well
                self.attn_post_norm = make_norm(spec)
                self.mlp_post_norm = make_norm(spec)

        def forward(self, x: torch.Tensor, rope: tuple[torch.Tensor, torch.Tensor] | None) -> torch.Tensor:
            update = self.attn(self.attn_norm(x), rope)
            if self.post_norms:
                update = self.attn_post_norm(update)
            x = x + update
            del update  # as in Hugging Face's decoder layers: only the residual stream stays alive
            update = self.mlp(self.mlp_norm(x))
            if self.post_norms:
                update = self.mlp_post_norm(update)
            result: torch.Tensor = x + update
            return result

    class Decoder(nn.Module):
        def __init__(self, spec: DecoderSpec, flash_attention: bool):
            super().__init__()
            self.embed = nn.Embedding(spec.vocab, spec.hidden)
            self.learned_positions = getattr(spec, "learned_positions", False)
            if self.learned_positions:
                self.positions = nn.Embedding(spec.max_context, spec.hidden)
            self.blocks = nn.ModuleList(Block(spec, flash_attention) for _ in range(spec.layers))
            self.final_norm = make_norm(spec)
            self.tied = spec.tied_embeddings
            if not self.tied:
                self.lm_head = nn.Linear(spec.hidden, spec.vocab, bias=False)
            self.head_dim = spec.head_dim
            self.rotary = getattr(spec, "rotary", True) and not self.learned_positions

        def rope_tables(
            self, seq: int, dtype: torch.dtype, device: torch.device
        ) -> tuple[torch.Tensor, torch.Tensor] | None:
            if not self.rotary:
                return None
            inv_freq = 1.0 / (
                10000 ** (torch.arange(0, self.head_dim, 2, device=device).float() / self.head_dim)
            )
            angles = torch.outer(torch.arange(seq, device=device).float(), inv_freq)
            angles = torch.cat((angles, angles), dim=-1)
            return angles.cos().to(dtype), angles.sin().to(dtype)

        def hidden_states(self, tokens: torch.Tensor) -> torch.Tensor:
            x = self.embed(tokens)
            if self.learned_positions:
                x = x + self.positions(torch.arange(tokens.shape[1], device=tokens.device))
            rope = self.rope_tables(tokens.shape[1], x.dtype, x.device)
            for block in self.blocks:
                x = block(x, rope)
            normed: torch.Tensor = self.final_norm(x)
            return normed

        def logits(self, x: torch.Tensor) -> torch.Tensor:
            return F.linear(x, self.embed.weight) if self.tied else self.lm_head(x)

        def forward(self, tokens: torch.Tensor, targets: torch.Tensor | None = None) -> torch.Tensor:
            """Training: mean cross-entropy over all positions, softmax in fp32. Inference: last-position logits."""
            x = self.hidden_states(tokens)
            if targets is None:
                return self.logits(x[:, -1:, :]).float()
            logits = self.logits(x).float()
            return F.cross_entropy(logits.view(-1, logits.shape[-1]), targets.reshape(-1))

    class MixedPrecisionAdamW(torch.optim.Optimizer):
        """AdamW over 16-bit parameters with an fp32 master copy, m and v in the optimizer state.

        This is the ZeRO paper's accounting: 2 (weights) + 2 (gradients) + 12 (master, m, v) bytes/param.
        The gradient is cast to fp32 one tensor at a time, so no fp32 gradient copy stays alive.
        """

        def __init__(
            self,
            params: Iterable[nn.Parameter],
            lr: float = 1e-4,
            betas: tuple[float, float] = (0.9, 0.95),
            eps: float = 1e-8,
            weight_decay: float = 0.0,
        ):
            super().__init__(params, dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay))

        @torch.no_grad()
        def step(self, closure: None = None) -> None:  # type: ignore[override]
            for group in self.param_groups:
                beta1, beta2 = group["betas"]
                for param in group["params"]:
                    if param.grad is None:
                        continue
                    state = self.state[param]
                    if not state:
                        state["step"] = 0
                        state["master"] = param.detach().float()
                        state["exp_avg"] = torch.zeros_like(state["master"])
                        state["exp_avg_sq"] = torch.zeros_like(state["master"])
                    state["step"] += 1
                    master, exp_avg, exp_avg_sq = state["master"], state["exp_avg"], state["exp_avg_sq"]
                    grad = param.grad.float()
                    master.mul_(1 - group["lr"] * group["weight_decay"])
                    exp_avg.lerp_(grad, 1 - beta1)
                    exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
                    step_size = group["lr"] / (1 - beta1 ** state["step"])
                    denom = (exp_avg_sq / (1 - beta2 ** state["step"])).sqrt_().add_(group["eps"])
                    master.addcdiv_(exp_avg, denom, value=-step_size)
                    param.copy_(master)

    return {"Decoder": Decoder, "MixedPrecisionAdamW": MixedPrecisionAdamW, "RMSNorm": RMSNorm}


def build_decoder(
    spec: DecoderSpec, dtype: str = "fp32", flash_attention: bool = True, seed: int = 0
) -> nn.Module:
    """A torch.nn.Module decoder with exactly the tensors ``spec`` describes (dense models only)."""
    import torch

    _check_supported(spec)
    torch.manual_seed(seed)
    model: nn.Module = _classes()["Decoder"](spec, flash_attention)
    return model.to(_torch_dtype(dtype))


def count_parameters(model: nn.Module) -> int:
    """Parameters of a torch module, tied tensors counted once."""
    return sum(p.numel() for p in model.parameters())


def _bytes_by_category(snapshot: dict[torch.device, dict[str, int]]) -> dict[str, int]:
    """Sum a MemTracker snapshot over devices into {"params", "buffers", "grads", "optimizer", "activations", ...}."""
    names = {
        "Parameter": "params",
        "Buffer": "buffers",
        "Gradient": "grads",
        "Activation": "activations",
        "Temp": "temporaries",
        "Optstate": "optimizer",
        "Other": "other",
        "Total": "total",
    }
    result = dict.fromkeys(names.values(), 0)
    for device_snapshot in snapshot.values():
        for key, value in device_snapshot.items():
            label = str(getattr(key, "value", key))
            result[names.get(label, label)] += int(value)
    return result


def measure_training_step(
    spec: DecoderSpec,
    *,
    batch: int,
    seq_len: int,
    dtype: str = "fp32",
    optimizer: str = "adamw",
    flash_attention: bool = True,
    seed: int = 0,
) -> dict[str, int]:
    """Run one real training step on CPU under MemTracker and return bytes by category.

    Keys: params, grads, optimizer (after the step), activations (tensors autograd holds at the end of the
    forward pass, loss included: what the backward pass needs), peak_total (the whole step's peak).
    dtype "fp32": torch AdamW (m, v). dtype "bf16"/"fp16": MixedPrecisionAdamW (fp32 master + m + v).
    optimizer "sgd": SGD with momentum (fp32 runs only).
    """
    import torch
    from torch.distributed._tools.mem_tracker import MemTracker

    model = build_decoder(spec, dtype, flash_attention, seed)
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, spec.vocab, (batch, seq_len), generator=generator)
    targets = torch.randint(0, spec.vocab, (batch, seq_len), generator=generator)
    opt: torch.optim.Optimizer
    if optimizer == "sgd":
        if dtype != "fp32":
            raise ValueError("the SGD reference runs in fp32 only")
        opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    elif optimizer == "adamw":
        if dtype == "fp32":
            opt = torch.optim.AdamW(model.parameters(), lr=1e-4, foreach=False)
        else:
            opt = _classes()["MixedPrecisionAdamW"](model.parameters())
    else:
        raise ValueError(f"optimizer must be adamw or sgd, got {optimizer!r}")

    tracker = MemTracker()
    tracker.track_external(model, opt, tokens, targets)
    with tracker:
        loss = model(tokens, targets)
        after_forward = _bytes_by_category(tracker.get_tracker_snapshot("current"))
        loss.backward()
        opt.step()
        after_step = _bytes_by_category(tracker.get_tracker_snapshot("current"))
    peak = _bytes_by_category(tracker.get_tracker_snapshot("peak"))
    return {
        "params": after_step["params"],
        "grads": after_step["grads"],
        "optimizer": after_step["optimizer"],
        "activations": after_forward["activations"],
        "peak_total": peak["total"],
        "parameter_count": count_parameters(model),
    }


def measure_inference_forward(
    spec: DecoderSpec,
    *,
    batch: int,
    seq_len: int,
    dtype: str = "fp32",
    flash_attention: bool = True,
    seed: int = 0,
) -> dict[str, int]:
    """One forward pass without autograd (a prefill returning last-position logits) under MemTracker.

    Keys: params, activations (activation bytes at the forward's peak), peak_total.
    """
    import torch
    from torch.distributed._tools.mem_tracker import MemTracker

    model = build_decoder(spec, dtype, flash_attention, seed)
    tokens = torch.randint(0, spec.vocab, (batch, seq_len), generator=torch.Generator().manual_seed(seed))
    tracker = MemTracker()
    tracker.track_external(model, tokens)
    with tracker, torch.no_grad():
        model(tokens)
    peak = _bytes_by_category(tracker.get_tracker_snapshot("peak"))
    return {
        "params": peak["params"],
        "activations": peak["activations"],
        "peak_total": peak["total"],
        "parameter_count": count_parameters(model),
    }
