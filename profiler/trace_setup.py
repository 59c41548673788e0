"""What one traced step is set up with (profiler.memory_trace, child process only): the process group (a fake
one, or torchrun's), FSDP2 sharding and the device meshes, the optimizers, autocast and the input tokens."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from profiler.trace_model import decoder_layers, dtype_of
from profiler.trace_request import TraceRequest, fsdp_sharded, group_size

if TYPE_CHECKING:
    import torch
    from torch import nn

@contextlib.contextmanager
def fake_process_group(world_size: int) -> Iterator[None]:
    """torch.distributed initialised over a fake backend: collectives return at once, shapes as N ranks see them."""
    import torch.distributed as dist
    from torch.testing._internal.distributed.fake_pg import FakeStore

    dist.init_process_group("fake", rank=0, world_size=world_size, store=FakeStore())
    try:
        yield
    finally:
        dist.destroy_process_group()


def under_torchrun(request: TraceRequest) -> bool:
    """Real tensors launched by torchrun with one rank per rank of the group: measure a real gloo step."""
    return not request.fake and os.environ.get("WORLD_SIZE") == str(group_size(request))


@contextlib.contextmanager
def real_process_group(world_size: int) -> Iterator[None]:
    """torch.distributed over gloo, as torchrun set it up (this rank's figures come out)."""
    import torch.distributed as dist

    dist.init_process_group("gloo")
    try:
        yield
    finally:
        dist.destroy_process_group()


def current_rank() -> int:
    return int(os.environ.get("RANK", "0"))


def shard_model(model: nn.Module, request: TraceRequest, mesh: Any) -> nn.Module:
    """FSDP2: every decoder layer one unit, the root (embedding, final norm, LM head) the other. Mixed precision
    is FSDP2's MixedPrecisionPolicy (bf16 compute copies of the gathered unit, fp32 gradients), not autocast."""
    from torch.distributed.fsdp import MixedPrecisionPolicy, fully_shard

    policy = MixedPrecisionPolicy()
    if request.precision != "fp32":
        policy = MixedPrecisionPolicy(param_dtype=dtype_of(request.precision), reduce_dtype=dtype_of("fp32"))
    reshard = request.zero == 3  # ZeRO-2 keeps the gathered parameters between forward and backward
    for layer in decoder_layers(model):
        fully_shard(layer, mesh=mesh, reshard_after_forward=reshard, mp_policy=policy)
    # the root stays gathered from its forward to its backward, which begins at once (fully_shard's docs: False
    # for the root), as the exported train.py shards it
    fully_shard(model, mesh=mesh, reshard_after_forward=False, mp_policy=policy)
    return model


def device_meshes(request: TraceRequest) -> tuple[Any, Any]:
    """(FSDP2's data-parallel mesh, the tensor-parallel mesh), None where unused: one dimension each, or a 2-D
    (dp, tp) mesh for FSDP2 + TP (built outside FakeTensorMode, as TorchTitan does)."""
    from torch.distributed.device_mesh import init_device_mesh

    sharded, tp = fsdp_sharded(request), request.tp
    if sharded and tp > 1:
        mesh = init_device_mesh("cpu", (request.dp, tp), mesh_dim_names=("dp", "tp"))
        return mesh["dp"], mesh["tp"]
    if sharded:
        return init_device_mesh("cpu", (request.dp,)), None
    if tp > 1:
        return None, init_device_mesh("cpu", (tp,), mesh_dim_names=("tp",))
    return None, None


def trainable_parameters(model: nn.Module) -> list[nn.Parameter]:
    return [p for p in model.parameters() if p.requires_grad]


def new_optimizers(model: nn.Module) -> list[Any]:
    """Fused AdamW (HF Trainer's default adamw_torch_fused): fp32 m and v, no full-size temporaries. One per kind
    of parameter: a tensor-parallel rank's DTensors and the plain tensors beside them (an expert-parallel
    rank's own experts) cannot share one fused call; the memory is the same."""
    import torch
    from torch.distributed.tensor import DTensor

    trainable = trainable_parameters(model)
    distributed = [p for p in trainable if isinstance(p, DTensor)]
    plain = [p for p in trainable if not isinstance(p, DTensor)]
    return [torch.optim.AdamW(group, lr=1e-5, fused=True) for group in (distributed, plain) if group]


def warm_optimizers(optimizers: list[Any]) -> None:
    """Create the AdamW state before the traced step (a second step holds it); the gradients are freed again."""
    import torch

    for optimizer in optimizers:
        for group in optimizer.param_groups:
            for param in group["params"]:
                param.grad = torch.zeros_like(param)
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)


def autocast_for(request: TraceRequest, sharded: bool = False) -> contextlib.AbstractContextManager[Any]:
    import torch

    if request.precision == "fp32" or sharded:
        return contextlib.nullcontext()
    return torch.autocast(request.device, dtype=dtype_of(request.precision))


def random_tokens(vocab: int, batch: int, seq_len: int, device: str = "cpu") -> torch.Tensor:
    import torch

    generator = torch.Generator().manual_seed(0)
    return torch.randint(0, vocab, (batch, seq_len), generator=generator).to(device)
