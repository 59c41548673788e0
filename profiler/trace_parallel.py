"""One rank's model under tensor, pipeline and expert parallel, for profiler.memory_trace (child process only).

- Tensor parallel: torch.distributed.tensor.parallel.parallelize_module over the "tp" dimension of a device mesh,
  with TorchTitan's llama plan (torchtitan/models/llama3/infra/parallelize.py, apply_tp): q, k, v, gate and up
  projections ColwiseParallel, o and down RowwiseParallel, the embedding RowwiseParallel (vocabulary-sharded),
  the LM head ColwiseParallel with vocabulary-sharded logits and torch's loss_parallel (the loss never gathers
  the logits); with sequence parallel the norms are SequenceParallel and the residual stream is sequence-sharded
  between the blocks (attention and MLP gather it at their input, o and down reduce-scatter it).
- Pipeline parallel: the stage's own module -- its decoder layers (split as planner.memory.stages.pipeline_stages
  splits them: evenly, the first stages taking the remainder), the embedding on the first stage, the final norm,
  LM head and loss on the last; the schedule's in-flight micro-batches are run by memory_trace itself.
- Expert parallel: each MoE layer keeps num_experts / ep of its experts (the router still scores all of them);
  the rank's grouped matmuls take the token-expert pairs it receives.

torch and transformers are imported inside the functions: this module loads only in the tracing child.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from torch import nn

COLWISE = ("q_proj", "k_proj", "v_proj", "gate_proj", "up_proj")
ROWWISE = ("o_proj", "down_proj")
NORMS = ("input_layernorm", "post_attention_layernorm")


class ParallelError(Exception):
    """A model or layout this module cannot split (the message says why); memory_trace reports it as a TraceError."""


def stage_bounds(layers: int, pp: int, index: int) -> tuple[int, int]:
    """(first layer, end) of pipeline stage `index`: as even as possible, the first stages taking the remainder."""
    base, remainder = divmod(layers, pp)
    start = index * base + min(index, remainder)
    return start, start + base + (1 if index < remainder else 0)


def inflight_microbatches(pp: int, index: int, inflight: int = 0) -> int:
    """Micro-batches whose activations stage `index` holds at once under 1F1B: pp - index (pp on the first stage);
    `inflight` > 0 caps it (a schedule with fewer micro-batches than stages)."""
    held = pp - index
    return max(1, min(inflight, held)) if inflight > 0 else held


def _linears(module: nn.Module, names: tuple[str, ...]) -> list[str]:
    from torch import nn

    return [n for n, m in module.named_modules() if n.rsplit(".", 1)[-1] in names and isinstance(m, nn.Linear)]


def _base(model: Any) -> Any:  # Any: a transformers model and its decoder (attributes by model family)
    base = getattr(model, "model", None)
    if base is None or not hasattr(base, "layers"):
        raise ParallelError(
            "tensor and pipeline parallel traces need a decoder with model.layers (llama-style models)"
        )
    return base


def check_tensor_parallel(model: Any, layers: list[Any], tp: int) -> None:  # Any: transformers modules
    """ParallelError unless every layer has q/k/v/o (and gate/up/down or experts) Linears that `tp` divides."""
    config = model.config
    heads = int(getattr(config, "num_attention_heads", 0) or 0)
    kv_heads = int(getattr(config, "num_key_value_heads", 0) or heads)
    if heads % tp or kv_heads % tp:
        raise ParallelError(
            f"tp {tp} must divide the attention heads ({heads}) and the key-value heads ({kv_heads}) to trace"
        )
    for layer in layers:
        attention = {n.rsplit(".", 1)[-1] for n in _linears(layer, COLWISE + ROWWISE) if "mlp" not in n}
        if not {"q_proj", "k_proj", "v_proj", "o_proj"} <= attention:
            raise ParallelError(
                f"a tensor-parallel trace needs q_proj, k_proj, v_proj and o_proj Linears; a "
                f"{config.model_type} layer has {sorted(attention) or 'none'} (fused or latent attention)"
            )
        experts = getattr(getattr(layer, "mlp", None), "experts", None)
        if experts is not None and not getattr(layer.mlp, "_trace_local_experts", False):
            raise ParallelError(
                "an MoE model traces under tensor parallel with expert parallel (--ep): each expert whole on "
                "one rank"
            )


def tensor_parallel(model: Any, mesh: Any, sequence_parallel: bool) -> None:  # Any: a transformers model
    """TorchTitan's llama plan over the 1-D mesh `mesh` (the "tp" dimension), in place."""
    from torch import nn
    from torch.distributed.tensor import Replicate, Shard
    from torch.distributed.tensor.parallel import (
        ColwiseParallel,
        PrepareModuleInput,
        PrepareModuleInputOutput,
        RowwiseParallel,
        SequenceParallel,
        parallelize_module,
    )

    base = _base(model)
    # sequence parallel: the residual stream stays a DTensor sharded on the sequence between the blocks, so
    # transformers sees its global shape (positions, masks); without it the blocks exchange plain tensors
    residual = Shard(1) if sequence_parallel else Replicate()
    for layer in base.layers:
        plan: dict[str, Any] = {n: ColwiseParallel() for n in _linears(layer, COLWISE)}
        plan |= {
            n: RowwiseParallel(output_layouts=residual, use_local_output=not sequence_parallel)
            for n in _linears(layer, ROWWISE)
        }
        if sequence_parallel:
            plan |= {n: SequenceParallel(use_local_output=False) for n in NORMS if hasattr(layer, n)}
            plan["self_attn"] = PrepareModuleInput(
                input_kwarg_layouts={"hidden_states": Shard(1)},
                desired_input_kwarg_layouts={"hidden_states": Replicate()},
                use_local_output=True,
            )
            plan["mlp"] = PrepareModuleInput(
                input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),), use_local_output=True
            )
            if getattr(getattr(layer, "mlp", None), "experts", None) is not None:
                # an MoE block's output is whole on the rank (no down projection reduce-scatters it): the
                # rank keeps its sequence shard of it
                plan["mlp"] = PrepareModuleInputOutput(
                    input_layouts=(Shard(1),), desired_input_layouts=(Replicate(),), use_local_input=True,
                    output_layouts=Replicate(), desired_output_layouts=Shard(1), use_local_output=False,
                )  # fmt: skip
        parallelize_module(layer, mesh, plan)
    top: dict[str, Any] = {}
    if isinstance(getattr(base, "embed_tokens", None), nn.Embedding):
        top["model.embed_tokens"] = RowwiseParallel(
            input_layouts=Replicate(), output_layouts=residual, use_local_output=not sequence_parallel
        )
    if sequence_parallel and isinstance(getattr(base, "norm", None), nn.Module) and _has_params(base.norm):
        top["model.norm"] = SequenceParallel(use_local_output=False)
    if isinstance(getattr(model, "lm_head", None), nn.Linear):
        top["lm_head"] = ColwiseParallel(input_layouts=residual, output_layouts=Shard(-1), use_local_output=False)
    parallelize_module(model, mesh, top)
    replicate_the_rest(model, mesh)


def replicate_the_rest(model: nn.Module, mesh: Any) -> None:
    """Every module whose own parameters the plan left as plain tensors (norms without sequence parallel, MoE
    routers, biases of unsplit layers) holds them as replicated DTensors with plain tensors in and out: one
    optimizer then steps all of them (fused AdamW takes DTensors or plain tensors, not both at once)."""
    from torch.distributed.tensor import DTensor, Replicate, distribute_module
    from torch.utils._pytree import tree_map_only

    def to_dtensor(module: nn.Module, inputs: Any, device_mesh: Any) -> Any:
        return tuple(
            DTensor.from_local(x, device_mesh, [Replicate()], run_check=False)
            if _plain_tensor(x) else x for x in inputs
        )  # fmt: skip

    def to_local(module: nn.Module, outputs: Any, device_mesh: Any) -> Any:
        return tree_map_only(DTensor, lambda x: x.to_local(), outputs)

    for module in list(model.modules()):
        own = list(module.parameters(recurse=False))
        experts = any(p.dim() == 3 for p in own)  # an expert-parallel rank's own experts stay plain tensors
        if own and not experts and not any(isinstance(p, DTensor) for p in own):
            distribute_module(module, mesh, input_fn=to_dtensor, output_fn=to_local)


def _plain_tensor(value: object) -> bool:
    import torch
    from torch.distributed.tensor import DTensor

    return isinstance(value, torch.Tensor) and not isinstance(value, DTensor)


def _has_params(module: nn.Module) -> bool:
    return any(True for _ in module.parameters())


def keep_stage(model: Any, pp: int, index: int) -> tuple[int, int]:  # Any: a transformers model
    """Keep only pipeline stage `index` of `pp`: its layers, the embedding (first stage) and the final norm and LM
    head (last stage); returns the stage's (first layer, end). A tied LM head keeps the shared matrix on both."""
    from torch import nn

    base = _base(model)
    start, end = stage_bounds(len(base.layers), pp, index)
    base.layers = nn.ModuleList(list(base.layers)[start:end])
    if index > 0:
        base.embed_tokens = nn.Identity()  # the stage receives hidden states
    if index < pp - 1:
        base.norm = nn.Identity()  # the next stage goes on from the raw residual stream
        model.lm_head = nn.Identity()
    for number, layer in enumerate(base.layers):  # transformers picks each layer's attention type by its index
        attention = getattr(layer, "self_attn", None)
        if attention is not None and hasattr(attention, "layer_idx"):
            attention.layer_idx = number
    return start, end


def keep_local_experts(model: nn.Module, ep: int) -> int:
    """Each MoE layer keeps the first num_experts / ep experts (one rank's); returns the experts kept per layer."""
    import torch
    from torch import nn

    kept = 0
    module: Any  # transformers' expert modules: attributes by model family
    for module in model.modules():
        count = getattr(module, "num_experts", None)
        three_d = [(n, p) for n, p in module.named_parameters(recurse=False) if p.dim() == 3]
        if not isinstance(count, int) or not three_d:
            continue
        if count % ep:
            raise ParallelError(f"ep {ep} must divide the {count} experts of each MoE layer")
        kept = count // ep
        for name, param in three_d:
            with torch.no_grad():
                local = param[:kept].clone()
            setattr(module, name, nn.Parameter(local, requires_grad=param.requires_grad))
        for name, bias in list(module.named_parameters(recurse=False)):
            if bias.dim() == 2 and bias.shape[0] == count:
                with torch.no_grad():
                    setattr(module, name, nn.Parameter(bias[:kept].clone(), requires_grad=bias.requires_grad))
        module.num_experts = kept
    if not kept:
        raise ParallelError("expert parallel needs an MoE model with grouped experts")
    for module in model.modules():
        if hasattr(module, "experts"):
            module._trace_local_experts = True
    return kept
