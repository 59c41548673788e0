#!/usr/bin/env python3
"""A small causal-LM training script that runs the configs GPU Advisor exports (launch.sh starts it).

Written by GPU Advisor. Targets torch 2.13, transformers 5, DeepSpeed 0.19, accelerate 1.15 and peft 0.21;
edit it freely (the data loading is the part most runs replace).

Runners (--runner; launch.sh picks the one the plan needs):
  deepspeed   deepspeed.initialize with --deepspeed ds_config.json: ZeRO stage, offload, AutoTP
              (tensor_parallel.autotp_size) and AutoEP (expert_parallel.autoep_size) all come from that file
  accelerate  accelerate's Accelerator (start it with `accelerate launch --config_file accelerate_config.yaml`)
  ddp         torch DistributedDataParallel under torchrun (plain data parallel, no sharding)
  fsdp2       torch FSDP2 under torchrun: fully_shard on every decoder layer and the root, bf16/fp16 compute with
              fp32 shards and reductions (MixedPrecisionPolicy), --reshard (ZeRO-3) or not (ZeRO-2), --offload-all
              (CPUOffloadPolicy); with --init random the model is built on the meta device and each rank
              materialises only its shards

Data (--data, required, so nothing trains on noise by accident): a UTF-8 text file, tokenized with the model's
tokenizer and cut into --seq-len blocks (each data-parallel rank reads every dp-th block), or `synthetic`:
random token ids, a dry run that checks the layout starts, fits and steps.

Model: --model is a Hugging Face repo id or a local folder. --init pretrained loads its weights (fine-tuning,
LoRA, QLoRA); --init random builds it from its config.json (pretraining from scratch). --peft peft_config.json
wraps it in a LoRA adapter (and loads the base in 4 bit with bitsandbytes for QLoRA). Under ZeRO-3 the model is
built or loaded inside deepspeed.zero.Init (transformers does so while an HfDeepSpeedConfig is alive), so no
rank ever holds the whole model. The model trains in training mode (model.train()): transformers' gradient
checkpointing and LoRA's dropout act only then.

Learning rate: --lr is the peak; it rises linearly over --warmup-steps optimizer steps and then follows a cosine
down to --min-lr-ratio x the peak at the last step (the schedule of the Llama 2 paper, Touvron et al. 2023,
section 2.2: warmup, cosine decay to 10% of the peak). launch.sh passes the plan's values (LR=... overrides).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import torch

RUNNERS = ("deepspeed", "accelerate", "ddp", "fsdp2")
RECOMPUTE = ("none", "selective", "full")
DTYPES = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", required=True, help="Hugging Face repo id or local model folder")
    parser.add_argument("--runner", choices=RUNNERS, required=True)
    parser.add_argument("--deepspeed", help="ds_config.json (runner deepspeed)")
    parser.add_argument("--peft", help="peft_config.json (LoRA / QLoRA)")
    parser.add_argument("--data", required=True, help="a UTF-8 text file, or 'synthetic' for a dry run")
    parser.add_argument("--steps", type=int, required=True, help="optimizer steps to run")
    parser.add_argument("--seq-len", type=int, required=True, help="tokens per sequence")
    parser.add_argument(
        "--micro-batch", type=int, default=1, help="sequences per GPU per forward (ddp, accelerate)"
    )
    parser.add_argument(
        "--grad-accum", type=int, default=1, help="micro-batches per optimizer step (ddp, accelerate)"
    )
    parser.add_argument(
        "--precision",
        choices=tuple(DTYPES),
        default="bf16",
        help="autocast dtype (ddp), compute dtype (fsdp2)",
    )
    parser.add_argument("--reshard", action="store_true", help="fsdp2: reshard after forward (ZeRO-3)")
    parser.add_argument(
        "--offload-all",
        action="store_true",
        help="fsdp2: parameters, gradients and optimizer state in CPU RAM (CPUOffloadPolicy)",
    )
    parser.add_argument("--recompute", choices=RECOMPUTE, default="none", help="activation recompute")
    parser.add_argument("--init", choices=("pretrained", "random"), default="pretrained")
    parser.add_argument("--lr", type=float, required=True, help="peak learning rate (every runner)")
    parser.add_argument("--warmup-steps", type=int, default=0, help="optimizer steps of linear warmup")
    parser.add_argument(
        "--min-lr-ratio", type=float, default=0.1, help="the cosine's floor, a share of the peak"
    )
    parser.add_argument("--output", help="folder to save the trained model (or adapter) into")
    args = parser.parse_args(argv)
    if args.runner == "deepspeed" and not args.deepspeed:
        parser.error("--runner deepspeed needs --deepspeed ds_config.json")
    if args.steps < 1 or args.seq_len < 2:
        parser.error("--steps must be at least 1 and --seq-len at least 2")
    if args.lr <= 0 or args.warmup_steps < 0 or not 0 <= args.min_lr_ratio <= 1:
        parser.error("--lr must be positive, --warmup-steps at least 0 and --min-lr-ratio within 0..1")
    return args


def log(message: str) -> None:
    if int(os.environ.get("RANK", "0")) == 0:
        print(f"[train.py] {message}", flush=True)


# --------------------------------------------------------------------------------------------------- model


def read_json(path: str | None) -> dict[str, Any]:
    if not path:
        return {}
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict):
        raise SystemExit(f"train.py: {path} must hold a JSON object")
    return data


def load_model(args: argparse.Namespace, peft_config: dict[str, Any]) -> torch.nn.Module:
    """The causal LM: pretrained weights or a fresh one from its config; recompute and the adapter applied."""
    from transformers import AutoConfig, AutoModelForCausalLM

    quantization = peft_config.get("bitsandbytes")
    if args.init == "random":
        model = AutoModelForCausalLM.from_config(AutoConfig.from_pretrained(args.model))
    else:
        kwargs: dict[str, Any] = {}
        if peft_config.get("lora"):
            # the frozen base in the compute dtype the plan counts, whatever dtype the checkpoint was saved in
            kwargs["dtype"] = DTYPES[args.precision]
        if quantization:
            from transformers import BitsAndBytesConfig

            settings = dict(quantization)
            for key in ("bnb_4bit_compute_dtype", "bnb_4bit_quant_storage"):
                if key in settings:
                    settings[key] = DTYPES[settings[key]]
            kwargs["quantization_config"] = BitsAndBytesConfig(**settings)
        model = AutoModelForCausalLM.from_pretrained(args.model, **kwargs)
    if args.recompute == "full":
        model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
        model.config.use_cache = False
    elif args.recompute == "selective":
        # transformers checkpoints whole layers only; with SDPA / flash attention the attention scores that
        # selective recompute drops are never stored, so running without recompute holds the planned memory.
        log("selective recompute: transformers has no per-op checkpointing; SDPA keeps no attention scores")
    if peft_config.get("lora"):
        from peft import LoraConfig, get_peft_model, prepare_model_for_kbit_training

        if quantization and args.init == "pretrained":
            model = prepare_model_for_kbit_training(
                model, use_gradient_checkpointing=args.recompute == "full"
            )
            # peft upcasts every parameter that is not 4 bit to fp32; the QLoRA authors' script keeps the
            # norms there and puts the embedding and the LM head back in the compute dtype (Dettmers et al.
            # 2023, github.com/artidoro/qlora qlora.py): the plan counts them at 16 bit
            compute = DTYPES[quantization.get("bnb_4bit_compute_dtype", "bf16")]
            for module in (model.get_input_embeddings(), model.get_output_embeddings()):
                if module is not None:
                    module.to(compute)
        model = get_peft_model(model, LoraConfig(**peft_config["lora"]))
    # from_pretrained returns the model in eval mode, where gradient checkpointing recomputes nothing and
    # dropout is off: train as planned
    model.train()
    return model


# -------------------------------------------------------------------------------------------- learning rate


def lr_factor(step: int, warmup_steps: int, total_steps: int, min_ratio: float) -> float:
    """The share of the peak learning rate for optimizer step `step` (0-based): linear warmup over
    warmup_steps (the first step at 1 / warmup_steps of the peak), then a cosine from the peak down to
    min_ratio x the peak at the last step."""
    if step < warmup_steps:
        return (step + 1) / warmup_steps
    progress = min(1.0, (step - warmup_steps) / max(1, total_steps - 1 - warmup_steps))
    return min_ratio + (1.0 - min_ratio) * 0.5 * (1.0 + math.cos(math.pi * progress))


def lr_schedule(args: argparse.Namespace) -> Any:
    """A callable building the schedule on an optimizer (what deepspeed.initialize and accelerate's
    DummyScheduler take); every runner steps it once per optimizer step."""

    def build(optimizer: torch.optim.Optimizer) -> torch.optim.lr_scheduler.LambdaLR:
        return torch.optim.lr_scheduler.LambdaLR(
            optimizer, lambda step: lr_factor(step, args.warmup_steps, args.steps, args.min_lr_ratio)
        )

    return build


def adamw(params: list[torch.nn.Parameter], lr: float) -> torch.optim.Optimizer:
    """AdamW with its fused kernel (torch.optim.AdamW(fused=True), CPU and CUDA): the step updates the weights
    and both moments in one pass and makes no temporaries the size of the parameters, as the plan counts it
    (the foreach and single-tensor paths hold one or two fp32 copies of the parameters during the step)."""
    return torch.optim.AdamW(params, lr=lr, fused=True)


def current_lr(optimizer: Any) -> float:
    return float(optimizer.param_groups[0]["lr"])


# ---------------------------------------------------------------------------------------------------- data


def token_blocks(
    args: argparse.Namespace, vocab_size: int, dp_rank: int, dp_size: int
) -> Iterator[torch.Tensor]:
    """Endless [seq_len] token blocks for one data-parallel rank (ranks of one TP group read the same)."""
    if args.data == "synthetic":
        generator = torch.Generator().manual_seed(1234 + dp_rank)
        while True:
            yield torch.randint(0, vocab_size, (args.seq_len,), generator=generator)
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(args.model)
    ids = tokenizer(Path(args.data).read_text(encoding="utf-8"))["input_ids"]
    blocks = [ids[i : i + args.seq_len] for i in range(0, len(ids) - args.seq_len + 1, args.seq_len)]
    mine = blocks[dp_rank::dp_size]
    if not mine:
        raise SystemExit(f"train.py: {args.data} holds fewer than {dp_size} blocks of {args.seq_len} tokens")
    while True:
        for block in mine:
            yield torch.tensor(block)


def batches(blocks: Iterator[torch.Tensor], micro_batch: int, device: torch.device) -> Iterator[torch.Tensor]:
    while True:
        yield torch.stack([next(blocks) for _ in range(micro_batch)]).to(device)


def vocab_of(model: torch.nn.Module) -> int:
    config: Any = model.config
    return int(config.vocab_size)


def report_layout(model: torch.nn.Module, extra: dict[str, int]) -> None:
    """One line per rank with what this rank holds (a ZeRO-3 shard counts its own partition) and trains (a LoRA
    adapter's parameters only), so a dry run shows the layout really is split:
    `GPU_ADVISOR_LAYOUT {"rank": 0, "local_param_elements": ..., "trainable_param_elements": ...}`."""
    local = trainable = 0
    for param in model.parameters():
        shard = getattr(param, "ds_tensor", None)  # DeepSpeed ZeRO-3's partition
        if shard is None and hasattr(param, "to_local"):  # FSDP2's DTensor: this rank's shard
            shard = param.to_local()
        held = int(shard.numel()) if shard is not None else int(param.numel())
        local += held
        trainable += held if param.requires_grad else 0
    line = {
        "rank": int(os.environ.get("RANK", "0")),
        "local_param_elements": local,
        "trainable_param_elements": trainable,
        "world_size": int(os.environ.get("WORLD_SIZE", "1")),
        "gradient_checkpointing": bool(getattr(model, "is_gradient_checkpointing", False)),
        **extra,
    }
    # one write per line: print() writes the text and its newline apart, and the ranks share one stdout
    sys.stdout.write("GPU_ADVISOR_LAYOUT " + json.dumps(line, sort_keys=True) + "\n")
    sys.stdout.flush()


def device_for_rank() -> torch.device:
    if torch.cuda.is_available():
        local = int(os.environ.get("LOCAL_RANK", "0"))
        torch.cuda.set_device(local)
        return torch.device("cuda", local)
    return torch.device("cpu")


# ------------------------------------------------------------------------------------------------- runners


def run_deepspeed(args: argparse.Namespace, peft_config: dict[str, Any]) -> float:
    import deepspeed

    deepspeed.init_distributed()
    ds_config = read_json(args.deepspeed)
    if "optimizer" in ds_config:  # --lr (launch.sh's LR) is the peak, whatever the file was written with
        ds_config["optimizer"].setdefault("params", {})["lr"] = args.lr
    keep = None
    if ds_config.get("zero_optimization", {}).get("stage") == 3:
        from transformers.integrations import HfDeepSpeedConfig

        # alive while the model is built or loaded: transformers then does it inside deepspeed.zero.Init, so
        # every layer is partitioned as it is made and no rank holds the whole model
        keep = HfDeepSpeedConfig(ds_config)
    model = load_model(args, peft_config)
    trainable = [p for p in model.parameters() if p.requires_grad]
    optimizer = None if "optimizer" in ds_config else adamw(trainable, args.lr)
    engine, _, _, scheduler = deepspeed.initialize(
        model=model,
        model_parameters=trainable,
        optimizer=optimizer,
        config=ds_config,
        lr_scheduler=lr_schedule(args),
    )
    # DeepSpeed lays AutoTP out as a (data parallel, tensor parallel) mesh, TP innermost: the ranks of one TP
    # group are consecutive and read the same data. Expert parallel reuses the data-parallel ranks.
    tp = int(ds_config.get("tensor_parallel", {}).get("autotp_size", 1))
    dp_rank, dp_size = engine.global_rank // tp, engine.world_size // tp
    micro, accumulation = engine.train_micro_batch_size_per_gpu(), engine.gradient_accumulation_steps()
    report_layout(engine.module, {"data_parallel_rank": dp_rank, "data_parallel_size": dp_size,
                                  "train_batch_size": int(engine.train_batch_size())})  # fmt: skip
    basic = getattr(engine.optimizer, "optimizer", engine.optimizer)  # ZeRO wraps the optimizer it steps
    log(f"DeepSpeed: world {engine.world_size}, data parallel {dp_size}, ZeRO {engine.zero_optimization_stage()}, "
        f"micro-batch {micro}, accumulation {accumulation}, optimizer {type(basic).__name__}")  # fmt: skip
    data = batches(token_blocks(args, vocab_of(model), dp_rank, dp_size), micro, engine.device)
    loss_value = float("nan")
    for step in range(args.steps):
        for _ in range(accumulation):
            tokens = next(data)
            loss = engine(input_ids=tokens, labels=tokens).loss
            engine.backward(loss)
            engine.step()  # the optimizer and the schedule step at the last micro-batch of the step
            loss_value = float(loss.detach().float())
        log(f"step {step + 1}/{args.steps} loss {loss_value:.4f} lr {scheduler.get_last_lr()[0]:.3g}")
    if args.output:
        engine.save_checkpoint(args.output)
    del keep
    _leave_together()
    return loss_value


def _leave_together() -> None:
    """Every rank finishes its step before the process group goes: a rank that exits while another is still
    in a collective (DeepSpeed's CPU communication threads) aborts at exit ("terminate called without an
    active exception") and torchrun then fails the whole run."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def run_accelerate(args: argparse.Namespace, peft_config: dict[str, Any]) -> float:
    from accelerate import Accelerator
    from accelerate.utils import DummyOptim, DummyScheduler

    accelerator = Accelerator(gradient_accumulation_steps=args.grad_accum)
    model = load_model(args, peft_config)
    params = [p for p in model.parameters() if p.requires_grad]
    plugin = accelerator.state.deepspeed_plugin
    micro = args.micro_batch
    if plugin is not None and "optimizer" in plugin.deepspeed_config:
        ds_config = plugin.deepspeed_config
        micro = int(ds_config.get("train_micro_batch_size_per_gpu", micro))
        ds_config["optimizer"].setdefault("params", {})["lr"] = args.lr
        # DeepSpeed builds the optimizer from the config, and the schedule on it (DummyScheduler's callable)
        optimizer: Any = DummyOptim(params)
        scheduler: Any = DummyScheduler(optimizer, lr_scheduler_callable=lr_schedule(args))
    else:
        optimizer = adamw(params, args.lr)
        scheduler = lr_schedule(args)(optimizer)
    model, optimizer, scheduler = accelerator.prepare(model, optimizer, scheduler)
    report_layout(
        accelerator.unwrap_model(model),
        {"data_parallel_rank": accelerator.process_index, "data_parallel_size": accelerator.num_processes},
    )
    zero = f", ZeRO {plugin.zero_stage} from the DeepSpeed config" if plugin is not None else ""
    log(f"accelerate: {accelerator.distributed_type.value}, {accelerator.num_processes} process(es), "
        f"mixed precision {accelerator.mixed_precision}{zero}")  # fmt: skip
    data = batches(
        token_blocks(args, vocab_of(accelerator.unwrap_model(model)), accelerator.process_index,
                     accelerator.num_processes), micro, accelerator.device,
    )  # fmt: skip
    loss_value = float("nan")
    for step in range(args.steps):
        for _ in range(accelerator.gradient_accumulation_steps):
            with accelerator.accumulate(model):
                tokens = next(data)
                loss = model(input_ids=tokens, labels=tokens).loss
                accelerator.backward(loss)
                optimizer.step()
                scheduler.step()  # accelerate steps it only when the optimizer stepped
                optimizer.zero_grad()
                loss_value = float(loss.detach().float())
        log(f"step {step + 1}/{args.steps} loss {loss_value:.4f} lr {current_lr(optimizer):.3g}")
    if args.output:
        accelerator.wait_for_everyone()
        accelerator.unwrap_model(model).save_pretrained(
            args.output, is_main_process=accelerator.is_main_process
        )
    return loss_value


def run_ddp(args: argparse.Namespace, peft_config: dict[str, Any]) -> float:
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel

    device = device_for_rank()
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    model = load_model(args, peft_config).to(device)
    # gradient_as_bucket_view: the gradients are views into DDP's all-reduce buckets instead of a second copy of
    # them (torch's DDP docs: it saves memory the size of the gradients), as the plan counts them: once; and
    # zero_grad(set_to_none=False) below keeps them those views, so the micro-batches under no_sync accumulate
    # into the buckets too instead of into new gradient tensors beside them
    wrapped: Any = model  # one rank has nothing to all-reduce: no DDP, no buckets (as the plan counts it)
    if dist.get_world_size() > 1:
        wrapped = DistributedDataParallel(
            model, device_ids=[device.index] if device.type == "cuda" else None, gradient_as_bucket_view=True
        )
    optimizer = adamw([p for p in model.parameters() if p.requires_grad], args.lr)
    scheduler = lr_schedule(args)(optimizer)
    rank, world = dist.get_rank(), dist.get_world_size()
    report_layout(model, {"data_parallel_rank": rank, "data_parallel_size": world})
    log(f"DDP: {world} process(es), micro-batch {args.micro_batch}, accumulation {args.grad_accum}")
    data = batches(token_blocks(args, vocab_of(model), rank, world), args.micro_batch, device)
    dtype = DTYPES[args.precision]
    loss_value = float("nan")
    for step in range(args.steps):
        for micro_step in range(args.grad_accum):
            tokens = next(data)
            deferred = (
                micro_step < args.grad_accum - 1 and wrapped is not model
            )  # all-reduce at the last only
            with (
                wrapped.no_sync() if deferred else _nothing(),
                torch.autocast(device.type, dtype=dtype, enabled=dtype != torch.float32),
            ):
                loss = wrapped(input_ids=tokens, labels=tokens).loss / args.grad_accum
            loss.backward()
            loss_value = float(loss.detach().float()) * args.grad_accum
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad(set_to_none=False)
        log(f"step {step + 1}/{args.steps} loss {loss_value:.4f} lr {current_lr(optimizer):.3g}")
    if args.output and rank == 0:
        model.save_pretrained(args.output)  # type: ignore[operator]
    _leave_together()
    return loss_value


def run_fsdp2(args: argparse.Namespace, peft_config: dict[str, Any]) -> float:
    import torch.distributed as dist
    from torch.distributed.fsdp import CPUOffloadPolicy, MixedPrecisionPolicy, fully_shard

    device = device_for_rank()
    dist.init_process_group("nccl" if device.type == "cuda" else "gloo")
    on_meta = args.init == "random"  # built without storage; to_empty + init_weights fill this rank's shards
    with torch.device("meta") if on_meta else _nothing():
        model = load_model(args, peft_config)
    dtype = DTYPES[args.precision]
    policy: dict[str, Any] = {
        "mp_policy": MixedPrecisionPolicy(param_dtype=dtype, reduce_dtype=torch.float32),
        "reshard_after_forward": args.reshard,
    }
    if args.offload_all:
        policy["offload_policy"] = CPUOffloadPolicy()
    # transformers names the blocks FSDP should wrap one by one: _no_split_modules (the decoder layer class)
    layer_classes = set(getattr(model, "_no_split_modules", None) or ())
    units = [module for module in model.modules() if type(module).__name__ in layer_classes]
    for unit in units:
        fully_shard(unit, **policy)
    # the root (embedding, final norm, LM head) stays gathered from its forward to its backward, which begins at
    # once: resharding it would gather it again at the loss (torch's fully_shard docs: False for the root)
    fully_shard(model, **{**policy, "reshard_after_forward": False})
    if on_meta:
        model.to_empty(device="cpu" if args.offload_all else device)
        model.init_weights()  # type: ignore[operator]  # also recomputes the rotary buffers
    optimizer = adamw([p for p in model.parameters() if p.requires_grad], args.lr)
    scheduler = lr_schedule(args)(optimizer)
    rank, world = dist.get_rank(), dist.get_world_size()
    report_layout(
        model, {"data_parallel_rank": rank, "data_parallel_size": world, "fsdp_units": len(units) + 1}
    )
    log(
        f"FSDP2: {world} process(es), {len(units)} layer units + the root, reshard after forward {args.reshard}, "
        f"micro-batch {args.micro_batch}, accumulation {args.grad_accum}"
    )
    data = batches(token_blocks(args, vocab_of(model), rank, world), args.micro_batch, device)
    loss_value = float("nan")
    for step in range(args.steps):
        for _ in range(args.grad_accum):
            # every micro-batch's gradients are reduce-scattered into the sharded ones (ZeRO-2/3, as planned);
            # set_requires_gradient_sync(False) would keep the whole model's unsharded gradients between them
            tokens = next(data)
            loss = model(input_ids=tokens, labels=tokens).loss / args.grad_accum
            loss.backward()
            loss_value = float(loss.detach().float()) * args.grad_accum
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        log(f"step {step + 1}/{args.steps} loss {loss_value:.4f} lr {current_lr(optimizer):.3g}")
    if args.output:
        from torch.distributed.checkpoint.state_dict import StateDictOptions, get_model_state_dict

        full = get_model_state_dict(model, options=StateDictOptions(full_state_dict=True, cpu_offload=True))
        if rank == 0:
            model.save_pretrained(args.output, state_dict=full)  # type: ignore[operator]
    _leave_together()
    return loss_value


class _nothing:
    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        return None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    peft_config = read_json(args.peft)
    runners = {"deepspeed": run_deepspeed, "accelerate": run_accelerate, "ddp": run_ddp, "fsdp2": run_fsdp2}
    runner = runners[args.runner]
    loss = runner(args, peft_config)
    log(f"done: {args.steps} step(s), last loss {loss:.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
