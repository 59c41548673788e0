"""The planner's one vocabulary: what a user can choose, as enums, and the parallel layout as one value.

Every layer (memory, perf, search, costs, exports, the CLI and the GUI) names a task, a precision, a recompute
or offload mode, a ZeRO stage and a layout with these types, so a choice means the same thing everywhere.
The enums are StrEnum / IntEnum: they compare equal to their plain values ("bf16", 3), which is what JSON,
the database and the command line carry; `parse()` turns user text into a member or raises UserError.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import Self

from planner.errors import UserError
from planner.messages import Message, msg


class _Choice(StrEnum):
    """A StrEnum whose members can be parsed from user text, with aliases."""

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {}

    @classmethod
    def parse(cls, text: object, what: Message | None = None) -> Self:
        """The member named by `text` (a member, its value or an alias); UserError naming the choices.

        what: the name of the choice in the error ("KV-cache precision"); default: the class's label()."""
        if isinstance(text, cls):
            return text
        if isinstance(text, str):
            key = cls.aliases().get(text.strip().lower(), text.strip().lower())
            for member in cls:
                if member.value == key:
                    return member
        choices = ", ".join(member.value for member in cls)
        raise UserError.of(msg("error.unknown_choice", what=what or cls.label(), text=text, choices=choices))

    @classmethod
    def label(cls) -> Message:
        """What a person calls this choice ("task", "recompute mode"), as a message (codes "choice.*")."""
        return msg("choice." + re.sub(r"(?<!^)(?=[A-Z])", "_", cls.__name__).lower())

    @classmethod
    def values(cls) -> tuple[str, ...]:
        return tuple(member.value for member in cls)

    @classmethod
    def choices(cls) -> tuple[str, ...]:
        """Every spelling parse() accepts: the values, then the aliases (the command line's `choices`)."""
        return (*cls.values(), *cls.aliases())


class Task(_Choice):
    """What the GPUs do. Pretraining and full fine-tuning hold the same memory and do the same work per
    token; they differ in the data and in the defaults the GUI offers."""

    INFERENCE = "inference"
    PRETRAIN = "pretrain"
    FINETUNE = "finetune"
    LORA = "lora"
    QLORA = "qlora"

    @classmethod
    def aliases(cls) -> dict[str, str]:
        # "train" is the memory subcommand's documented spelling (docs/cli.md).
        return {"train": "pretrain", "training": "pretrain", "fine-tune": "finetune", "full": "finetune"}

    @property
    def is_training(self) -> bool:
        return self is not Task.INFERENCE

    @property
    def is_full_training(self) -> bool:
        """Every weight is trained (pretraining or full fine-tuning): gradients and optimizer state for all."""
        return self in (Task.PRETRAIN, Task.FINETUNE)

    @property
    def is_adapter(self) -> bool:
        return self in (Task.LORA, Task.QLORA)


class Precision(_Choice):
    """The number format the weights are stored and multiplied in. int8/int4 are weight-only formats
    (activations stay 16-bit); fp8 needs compute capability 8.9 or newer."""

    FP32 = "fp32"
    BF16 = "bf16"
    FP16 = "fp16"
    FP8 = "fp8"
    INT8 = "int8"
    INT4 = "int4"

    @property
    def is_weight_only(self) -> bool:
        return self in (Precision.INT8, Precision.INT4)


class Optimizer(_Choice):
    ADAMW = "adamw"
    ADAMW8BIT = "adamw8bit"
    SGD = "sgd"


class LoraTarget(_Choice):
    """The matrices a LoRA adapter can wrap: attention q, k, v, o and the MLP's gate, up and down."""

    Q = "q"
    K = "k"
    V = "v"
    O = "o"  # noqa: E741 (the attention output projection's usual name)
    GATE = "gate"
    UP = "up"
    DOWN = "down"


class Recompute(_Choice):
    """Activation recomputation: none, selective (attention core only, Korthikanti et al. 2022) or full
    (each layer's input only, recomputed in the backward)."""

    NONE = "none"
    SELECTIVE = "selective"
    FULL = "full"


class Offload(_Choice):
    """What ZeRO-Offload / ZeRO-Infinity moves to CPU RAM: nothing, the optimizer state, or also the weights."""

    NONE = "none"
    OPTIMIZER = "optimizer"
    ALL = "all"


class Runtime(_Choice):
    """The framework a training plan's memory is counted for and its export runs: DeepSpeed (ZeRO 0-3, offload,
    AutoTP / AutoEP; its 16-bit weights and gradients beside fp32 master weights), PyTorch FSDP2 (fully_shard
    with a MixedPrecisionPolicy: fp32 shards, 16-bit gathered units), PyTorch DDP with autocast, or torchtitan
    (FSDP2 x TP x PP x EP)."""

    DEEPSPEED = "deepspeed"
    FSDP2 = "fsdp2"
    DDP = "ddp"
    TORCHTITAN = "torchtitan"


class RankBy(_Choice):
    TIME = "time"
    COST = "cost"
    COST_PER_TOKEN = "cost_per_token"

    @classmethod
    def aliases(cls) -> dict[str, str]:
        return {"cost-per-token": "cost_per_token"}


class Confidence(_Choice):
    """What a figure's GPU rates rest on."""

    MEASURED = "measured"
    CATALOG_SPEC = "catalog spec"
    USER_SET = "user-set"


class ZeroStage(IntEnum):
    """ZeRO stage (Rajbhandari et al. 2020, arXiv 1910.02054): 0 = plain data parallel (DDP), 1 = optimizer
    state sharded, 2 = + gradients, 3 = + weights (FSDP FULL_SHARD is the same partitioning)."""

    NONE = 0
    OPTIMIZER = 1
    GRADIENTS = 2
    WEIGHTS = 3

    @classmethod
    def parse(cls, value: object) -> ZeroStage:
        """The stage `value` names (0..3, as a number or text); UserError otherwise (True is not a stage)."""
        if isinstance(value, bool) or not isinstance(value, int | str):
            raise UserError.of(msg("error.zero_stage", value=value))
        try:
            return cls(int(value))
        except ValueError:
            raise UserError.of(msg("error.zero_stage", value=value)) from None


@dataclass(frozen=True, slots=True)
class Layout:
    """How one job is spread over GPUs: dp x tp x pp GPUs; ep splits the experts inside the data-parallel
    group (it reuses dp's ranks), ZeRO shards model states over dp, micro_batch is sequences per GPU per
    forward pass (serving: concurrent sequences per replica), virtual_stages is model chunks per pipeline rank
    (interleaved 1F1B, Narayanan et al. 2021; 1 = plain 1F1B)."""

    dp: int = 1
    tp: int = 1
    pp: int = 1
    ep: int = 1
    zero: ZeroStage = ZeroStage.NONE
    recompute: Recompute = Recompute.NONE
    offload: Offload = Offload.NONE
    micro_batch: int = 1
    virtual_stages: int = 1

    FIELDS = ("dp", "tp", "pp", "ep", "zero", "recompute", "offload", "micro_batch", "virtual_stages")

    @property
    def gpus(self) -> int:
        """GPUs the layout occupies: expert parallelism reuses the data-parallel ranks."""
        return self.dp * self.tp * self.pp

    @property
    def model_parallel(self) -> int:
        """GPUs that hold one copy of the model together (one serving replica)."""
        return self.tp * self.pp

    def as_dict(self) -> dict[str, int | str]:
        """Plain values for JSON: {"dp": 8, "zero": 3, "recompute": "selective", ...}."""
        return {
            "dp": self.dp,
            "tp": self.tp,
            "pp": self.pp,
            "ep": self.ep,
            "zero": int(self.zero),
            "recompute": str(self.recompute),  # str(): a member or the plain text it was built with
            "offload": str(self.offload),
            "micro_batch": self.micro_batch,
            "virtual_stages": self.virtual_stages,
        }
