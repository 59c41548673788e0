"""The Plan page's one state object: the user's choices, the latest result, the selection and the document.

Pure Python (no Qt): PlanInputs is a frozen dataclass of JSON-friendly values (saved plans store it as a dict);
PlanState holds the current inputs, the latest planner result, the selected option and whether the open plan
has unsaved changes, and tells listeners what changed ("inputs", "result", "selection", "document"). Widgets
write through PlanState.update(); charts and tables redraw from PlanState. The Qt side wraps it in
desktop.pages.plan.PlanStateAdapter, which re-emits notifications as a Qt signal.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from planner.errors import UserError
from planner.limits import LIMITS
from planner.resolver import MAX_INTERRUPTIONS_PER_NODE_HOUR
from planner.search.types import DEFAULT_MEMORY_HEADROOM, MAX_MEMORY_HEADROOM
from planner.vocabulary import Precision, RankBy, Runtime, Task

if TYPE_CHECKING:
    from planner.search import PlanOption, PlanResult

MODEL_KINDS = ("preset", "size", "path")
# The options table shows the planner's first TABLE_ROWS options; the selection is one of those rows.
TABLE_ROWS = 12
# The strategy fields Expert mode may pin, as the CLI's --dp --tp --pp --zero --micro-batch do.
PIN_FIELDS = ("dp", "tp", "pp", "zero", "micro_batch")
# The rankings the Plan page offers (the command line also ranks by cost per token).
PAGE_RANKINGS = (RankBy.TIME, RankBy.COST)
TOKENS_MODES = ("tokens", "dataset")
LOAD_MODES = ("users", "rate")  # serving load: concurrent users or a request rate

CHECKPOINT_STORAGES = ("pfs", "nvme")  # planner.scale.STORAGES, in the order the page offers them


@dataclass(frozen=True)
class PlanInputs:
    """Everything the user chose on the Plan page. Units in names; None means "use the planner's default"."""

    task: Task = Task.LORA
    model_kind: str = "preset"  # "preset" | "size" | "path"
    preset: str = "llama-3.1-8b"
    size_billions: float = 7.0
    model_path: str = ""
    precision: Precision = Precision.BF16
    seq_len: int = 4096
    global_batch: int = 32  # sequences per optimizer step (training) or per forward pass (serving)
    tokens_mode: str = "tokens"  # "tokens": train_tokens; "dataset": dataset_tokens x epochs
    train_tokens: float = 1e9
    dataset_tokens: float = 1e8
    epochs: float = 3.0
    tokens_per_second: float = 1000.0  # serving target, all users together
    concurrent_users: int = 8
    # Serving, as `plan --prompt-tokens --output-len --users | --request-rate --ttft-ms --tpot-ms` take them: the
    # context is prompt + output; the load is concurrent users or a request rate (load_mode); a target of None is
    # no target.
    prompt_tokens: int = 3840
    output_tokens: int = 256
    load_mode: str = "users"  # "users" | "rate"
    request_rate: float = 1.0  # requests per second over all replicas (load_mode "rate")
    ttft_target_ms: float | None = None  # time to first token at p90
    tpot_target_ms: float | None = None  # mean time per output token
    hardware: tuple[str, ...] = ("catalog:h100-sxm", "catalog:a100-sxm-80gb", "catalog:rtx-4090")
    exact_gpus: int | None = None  # plan exactly this many GPUs (None: search up to max_gpus)
    max_gpus: int = 64
    budget_amount: float | None = None
    deadline_days: float | None = None
    mfu: float | None = None  # model FLOPs utilisation override, 0..1
    efficiency: float | None = None  # memory-bandwidth efficiency override for decode, 0..1
    rank_by: RankBy = RankBy.TIME
    memory_headroom: float = DEFAULT_MEMORY_HEADROOM  # share of each GPU's memory left free, 0..0.9
    host_ram_gib: float | None = None  # CPU RAM per node for offloaded states (None: twice the node's GPU memory)
    lora_rank: int = 16  # LoRA / QLoRA adapter rank
    pin_dp: int | None = None  # Expert mode: strategy fields fixed by the user (None: searched)
    pin_tp: int | None = None
    pin_pp: int | None = None
    pin_zero: int | None = None
    pin_micro_batch: int | None = None
    runtime: str | None = None  # Expert mode: the training runtime every option runs in (None: chosen per layout)
    # Failures and checkpoints (training goodput), as the CLI's --failures-per-million-gpu-hours,
    # --checkpoint-storage, --checkpoint-gb-per-s and --checkpoint-interval-minutes take them (None: the default).
    failures_per_million_gpu_hours: float | None = None
    checkpoint_storage: str = "pfs"  # "pfs" | "nvme"
    checkpoint_gb_per_s: float | None = None  # overrides checkpoint_storage
    checkpoint_interval_minutes: float | None = None  # None: Daly's optimum
    # Spot capacity, as `plan --spot [--spot-interruptions-per-node-hour R]`: priced from the spot quotes, nodes
    # reclaimed at R per instance-hour (None: the quotes' stated rate, else AWS's top band).
    spot: bool = False
    spot_interruptions_per_node_hour: float | None = None
    # A mixed pool, as `plan --pool` takes it: (GPU id, count) rows; a count of 0 keeps the row but plans nothing.
    pool: tuple[tuple[str, int], ...] = ()

    @property
    def is_training(self) -> bool:
        return self.task != Task.INFERENCE

    @property
    def training_tokens(self) -> float:
        """Tokens the run processes: train_tokens, or dataset tokens x epochs."""
        if self.tokens_mode == "dataset":
            return float(self.dataset_tokens) * float(self.epochs)
        return float(self.train_tokens)

    @property
    def pinned(self) -> dict[str, int]:
        """The pinned strategy fields ({"tp": 8, "zero": 3}), as planner.search.Constraints.pinned takes them."""
        values = {name: getattr(self, f"pin_{name}") for name in PIN_FIELDS}
        return {name: int(value) for name, value in values.items() if value is not None}

    @property
    def model_text(self) -> str:
        """What planner.models.resolve_model() takes for this choice."""
        if self.model_kind == "size":
            return f"{self.size_billions:g}b"
        if self.model_kind == "path":
            return self.model_path
        return self.preset

    def to_dict(self) -> dict[str, object]:
        """JSON-friendly values (choices as their plain text) for saved plans."""
        data: dict[str, object] = dataclasses.asdict(self)
        data.update(task=self.task.value, precision=self.precision.value, rank_by=self.rank_by.value)
        data["hardware"] = list(self.hardware)
        data["pool"] = [[gpu_id, count] for gpu_id, count in self.pool]
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlanInputs:  # Any: a saved plan's JSON values
        """Inputs from a saved plan; unknown keys are ignored and missing ones take today's defaults."""
        known = {f.name for f in dataclasses.fields(cls)}
        values = {k: v for k, v in data.items() if k in known}
        if "hardware" in values:
            values["hardware"] = tuple(str(h) for h in values["hardware"] or ())
        if "pool" in values:
            values["pool"] = _pool_rows(values["pool"])
        return cls(**values).validated()

    @property
    def pool_counts(self) -> dict[str, int]:
        """GPU id -> count of the pool's types with at least one GPU (a type at 0 is absent)."""
        counts: dict[str, int] = {}
        for gpu_id, count in self.pool:
            if count > 0:
                counts[gpu_id] = counts.get(gpu_id, 0) + count
        return counts

    def validated(self) -> PlanInputs:
        """A copy with out-of-range choices pulled back to something the planner accepts."""
        changes: dict[str, Any] = {
            "task": _choice(Task, self.task, Task.LORA),
            "precision": _choice(Precision, self.precision, Precision.BF16),
            "rank_by": _choice(RankBy, self.rank_by, RankBy.TIME),
        }
        if changes["rank_by"] not in PAGE_RANKINGS:
            changes["rank_by"] = RankBy.TIME
        if self.model_kind not in MODEL_KINDS:
            changes["model_kind"] = "preset"
        if self.tokens_mode not in TOKENS_MODES:
            changes["tokens_mode"] = "tokens"
        for name, low in (("seq_len", 1), ("global_batch", 1), ("max_gpus", 1), ("concurrent_users", 1),
                          ("lora_rank", 1), ("prompt_tokens", 1), ("output_tokens", 1)):  # fmt: skip
            if int(getattr(self, name)) < low:
                changes[name] = low
        if self.load_mode not in LOAD_MODES:
            changes["load_mode"] = "users"
        if not (_non_negative(self.request_rate) and self.request_rate > 0):
            changes["request_rate"] = 1.0
        for name in ("ttft_target_ms", "tpot_target_ms"):
            value = getattr(self, name)
            if value is not None and not (_non_negative(value) and value > 0):
                changes[name] = None  # 0 or text: no target
        if not 0 <= float(self.memory_headroom) <= MAX_MEMORY_HEADROOM:
            changes["memory_headroom"] = DEFAULT_MEMORY_HEADROOM
        host, host_limit = self.host_ram_gib, LIMITS["host_ram_gib"]
        if host is not None and not (_non_negative(host) and host_limit.low <= host <= host_limit.high):
            changes["host_ram_gib"] = None  # not a size of CPU RAM: the planner's default
        limits = {"failures_per_million_gpu_hours": math.inf, "checkpoint_gb_per_s": math.inf,
                  "checkpoint_interval_minutes": math.inf,
                  "spot_interruptions_per_node_hour": MAX_INTERRUPTIONS_PER_NODE_HOUR}  # fmt: skip
        for name, limit in limits.items():
            value = getattr(self, name)
            if value is not None and not (_non_negative(value) and value <= limit):
                changes[name] = None
        if not isinstance(self.spot, bool):
            changes["spot"] = False
        if self.checkpoint_storage not in CHECKPOINT_STORAGES:
            changes["checkpoint_storage"] = "pfs"
        if not self.checkpoint_gb_per_s:
            changes["checkpoint_gb_per_s"] = None  # 0 GB/s is no storage: back to the profile
        if not self.checkpoint_interval_minutes:
            changes["checkpoint_interval_minutes"] = None
        changes["pool"] = _pool_rows(self.pool)
        if self.runtime is not None and self.runtime not in Runtime.values():
            changes["runtime"] = None  # a saved plan may hold any text here
        for name in PIN_FIELDS:
            value = getattr(self, f"pin_{name}")
            if value is not None and (
                int(value) < (0 if name == "zero" else 1) or (name == "zero" and value > 3)
            ):
                changes[f"pin_{name}"] = None
        return dataclasses.replace(self, **changes)


def _non_negative(value: object) -> bool:
    """A finite number of at least 0 (a saved plan may hold text, true or NaN where a figure belongs)."""
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0


def _pool_rows(rows: object) -> tuple[tuple[str, int], ...]:
    """Pool rows from a saved plan or the page: (GPU id, count >= 0) pairs; malformed rows are dropped."""
    kept: list[tuple[str, int]] = []
    for row in rows if isinstance(rows, list | tuple) else ():
        if isinstance(row, list | tuple) and len(row) == 2 and isinstance(row[1], int) and row[1] >= 0:
            kept.append((str(row[0]), int(row[1])))
    return tuple(kept)


def _choice(kind: type[Task] | type[Precision] | type[RankBy], value: object, default: Any) -> Any:
    """`value` as a member of `kind`, or `default` when it names none (a saved plan from another version)."""
    try:
        return kind.parse(value)
    except UserError:
        return default


Listener = Callable[[str], None]


@dataclass
class PlanState:
    """Current inputs + latest result + selection + document (saved plan id/name, unsaved changes).

    Notifications: listeners get one word: "inputs" (re-plan), "result" (redraw), "selection" (redraw the
    selected option's charts), "document" (title / save state changed).
    """

    inputs: PlanInputs = field(default_factory=PlanInputs)
    result: PlanResult | None = None
    error: str | None = None  # why the last plan failed, in the interface language; None when it worked
    selected: int = 0  # index into result.options
    plan_id: int | None = None  # the saved plan this state was loaded from / saved to
    plan_name: str = ""
    dirty: bool = False
    _listeners: list[Listener] = field(default_factory=list, repr=False)

    # -- notification ------------------------------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> None:
        self._listeners.append(listener)

    def _notify(self, what: str) -> None:
        for listener in list(self._listeners):
            listener(what)

    # -- inputs ------------------------------------------------------------------------------------------------
    def update(self, **changes: Any) -> bool:
        """Change some inputs; True (and an "inputs" notification) when anything actually changed."""
        new = dataclasses.replace(self.inputs, **changes).validated()
        if new == self.inputs:
            return False
        self.inputs = new
        if not self.dirty:
            self.dirty = True
            self._notify("document")
        self._notify("inputs")
        return True

    def replace_inputs(self, inputs: PlanInputs, *, dirty: bool) -> None:
        self.inputs = inputs.validated()
        self.dirty = dirty
        self._notify("document")
        self._notify("inputs")

    # -- results -----------------------------------------------------------------------------------------------
    # The selection and the headline derive from the result: `selected` is a row of the table (one of the
    # first TABLE_ROWS options), `best` is the planner's first fitting option whatever is selected.
    def set_result(self, result: PlanResult) -> None:
        """Take a new planner result; keep the same option selected when the table still shows it."""
        previous = self.selected_option
        self.result, self.error = result, None
        self.selected = 0
        if previous is not None:
            for index, option in enumerate(self.shown_options):
                if _same_option(option, previous):
                    self.selected = index
                    break
        self._notify("result")

    def set_error(self, message: str) -> None:
        self.result, self.error, self.selected = None, message, 0
        self._notify("result")

    @property
    def options(self) -> tuple[PlanOption, ...]:
        return self.result.options if self.result is not None else ()

    @property
    def shown_options(self) -> tuple[PlanOption, ...]:
        """The rows of the options table: the planner's ranking, at most TABLE_ROWS."""
        return self.options[:TABLE_ROWS]

    @property
    def best(self) -> PlanOption | None:
        """The planner's best option that fits (its first), or None when nothing fits."""
        return next((option for option in self.options if option.fits), None)

    @property
    def selected_option(self) -> PlanOption | None:
        shown = self.shown_options
        return shown[self.selected] if 0 <= self.selected < len(shown) else None

    def select(self, index: int) -> None:
        if index != self.selected and 0 <= index < len(self.shown_options):
            self.selected = index
            self._notify("selection")

    # -- document ----------------------------------------------------------------------------------------------
    def mark_saved(self, plan_id: int | None, name: str) -> None:
        self.plan_id, self.plan_name, self.dirty = plan_id, name, False
        self._notify("document")

    def mark_new(self) -> None:
        self.plan_id, self.plan_name, self.dirty = None, "", False
        self._notify("document")


def _same_option(a: PlanOption, b: PlanOption) -> bool:
    """The same GPU type, count and layout (results are rebuilt on each plan, so compare by value)."""
    return a.gpu.id == b.gpu.id and a.gpus == b.gpus and a.layout == b.layout
