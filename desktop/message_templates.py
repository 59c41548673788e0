"""The translatable template of every planner message code (context "PlannerMessages"), in English.

desktop/messages.py renders a planner.messages.Message through this table: it looks the code up here, translates
the template with Qt and fills in the values formatted for the interface language. Each template is marked with
QT_TRANSLATE_NOOP so pyside6-lupdate finds it (assets/i18n/gpu_advisor_ru.ts holds the Russian).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from PySide6 import QtCore

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)

CONTEXT = "PlannerMessages"

# English sources: the planner's templates (planner/messages.py TEMPLATES) without its format specs.
TEMPLATES: Mapping[str, object] = {  # QT_TRANSLATE_NOOP returns its text (typed object by the stubs)
    # strategy families
    "family.ddp": QT_TRANSLATE_NOOP("PlannerMessages", "DDP"),
    "family.zero": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO-{zero}"),
    "family.zero3": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO-3/FSDP"),
    "family.optimizer_offload": QT_TRANSLATE_NOOP("PlannerMessages", "{family} + optimizer offload"),
    "family.all_offload": QT_TRANSLATE_NOOP("PlannerMessages", "{family} + all offload"),
    # what an excluded entry stands for
    "excluded.family.data_parallel_only": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{family} without tensor/pipeline parallel"
    ),
    "excluded.family.tensor_pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "tensor/pipeline parallel"),
    "excluded.family.zero_with_pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO-{zero} + pipeline parallel"),
    "excluded.family.pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "pipeline parallel"),
    "excluded.family.gpu_count": QT_TRANSLATE_NOOP("PlannerMessages", "{gpus} GPUs"),
    "excluded.family.inference": QT_TRANSLATE_NOOP("PlannerMessages", "{precision} inference"),
    "excluded.family.precision_on_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "{precision} on {gpu_id}"),
    # why it was excluded
    "excluded.needs_memory": QT_TRANSLATE_NOOP(
        "PlannerMessages", "needs {need_bytes} per GPU, has {capacity_bytes} on {gpu}"
    ),
    "excluded.needs_memory_layout": QT_TRANSLATE_NOOP(
        "PlannerMessages", "needs {need_bytes} per GPU ({strategy}, {gpus} GPUs), has {capacity_bytes} on {gpu}"
    ),
    "excluded.pipeline_needs_zero01": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "not searched: pipeline parallel runs with ZeRO stage 0 or 1 only (DeepSpeed's pipeline engine: \"ZeRO-2 "
        "and ZeRO-3 are incompatible with pipeline parallelism\"; Megatron-LM's distributed optimizer is ZeRO-1); "
        "pin ZeRO 0/1 to use a pipeline, or PP 1 to keep ZeRO-2/3",
    ),
    "excluded.no_layout_divides": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "no tp x pp x dp layout divides {gpus} GPUs for {model} (tp must divide {heads} heads, dp at most the "
        "global batch)",
    ),
    "excluded.no_serving_layout": QT_TRANSLATE_NOOP(
        "PlannerMessages", "no tensor/pipeline layout is possible on {where}"
    ),
    "excluded.serving_needs_memory": QT_TRANSLATE_NOOP(
        "PlannerMessages", "needs {need_bytes} per GPU at the lightest layout on {where}, has {capacity_bytes}"
    ),
    "gpu.precision_needs_capability": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{gpu} (compute capability {capability}) cannot run {precision}: it needs compute capability "
        "{needed_capability} or newer",
    ),
    "gpu.no_precision_support": QT_TRANSLATE_NOOP("PlannerMessages", "{gpu} has no {precision} support"),
    # where: a GPU count and type
    "where.gpus": QT_TRANSLATE_NOOP("PlannerMessages", "{gpus} x {gpu}"),
    "where.one_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "one {gpu}"),
    "where.exact_gpus": QT_TRANSLATE_NOOP("PlannerMessages", "{gpus} GPUs"),
    "where.up_to_gpus": QT_TRANSLATE_NOOP("PlannerMessages", "up to {gpus} GPUs"),
    # advice
    "advice.ddp_cannot_work": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "Plain data parallel (DDP) cannot work on {gpu}: the model states alone are {state_bytes} per GPU "
        "against {capacity_bytes}; they need sharding, e.g. {hint} (the fastest option uses {strategy}).",
    ),
    "advice.nothing_fits_training": QT_TRANSLATE_NOOP(
        "PlannerMessages", "Nothing fits on {upto} x {gpu} ({capacity_bytes} each). Try: {ideas}."
    ),
    "advice.nothing_fits_training_lightest": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "Nothing fits on {upto} x {gpu} ({capacity_bytes} each): the lightest layout ({strategy}) "
        "still needs {need_bytes} per GPU. Try: {ideas}.",
    ),
    "idea.more_gpus_training": QT_TRANSLATE_NOOP("PlannerMessages", "more GPUs"),
    "idea.zero3_offload": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO-3 with CPU offload"),
    "idea.lora_instead": QT_TRANSLATE_NOOP("PlannerMessages", "LoRA or QLoRA instead of full training"),
    "idea.qlora_instead": QT_TRANSLATE_NOOP("PlannerMessages", "QLoRA (a 4-bit base model) instead of LoRA"),
    "idea.shorter_sequence": QT_TRANSLATE_NOOP("PlannerMessages", "a shorter sequence"),
    "idea.bigger_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "a GPU with more memory"),
    "advice.serving_does_not_fit": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{model} in {precision} does not fit {where} ({need_bytes} needed per GPU, {capacity_bytes} available). "
        "What would: {ideas}.",
    ),
    "idea.int4_fits_one_gpu": QT_TRANSLATE_NOOP(
        "PlannerMessages", "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes} on one GPU, fits one GPU"
    ),
    "idea.int4_needs_gpus": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes} on one GPU, needs about {gpus} GPUs with tensor "
        "parallel",
    ),
    "idea.offload_weights": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "offload the weights to CPU RAM (accelerate device_map, llama.cpp): runs, but every token streams "
        "{streamed_bytes} or more over PCIe, about {token_time_s} per token",
    ),
    "idea.more_gpus": QT_TRANSLATE_NOOP("PlannerMessages", "more GPUs: at least {gpus} x {gpu} with tensor parallel"),
    "advice.limits_not_met": QT_TRANSLATE_NOOP("PlannerMessages", "No option meets the deadline and budget.{sentences}"),
    "advice.fastest": QT_TRANSLATE_NOOP("PlannerMessages", "Fastest: {wall_time_s} on {gpus} x {gpu}."),
    "advice.cheapest": QT_TRANSLATE_NOOP("PlannerMessages", "Cheapest: {cost} on {gpus} x {gpu}."),
    # notes on one option
    "option.global_batch_differs": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "global batch {effective_batch} sequences (dp {dp} x micro-batch {micro_batch} x {accumulation_steps} "
        "accumulation steps), not {global_batch}",
    ),
    "option.decode_memory_bound": QT_TRANSLATE_NOOP(
        "PlannerMessages", "decode is memory bandwidth-bound at batch {batch}"
    ),
    "option.decode_compute_bound": QT_TRANSLATE_NOOP("PlannerMessages", "decode is compute-bound at batch {batch}"),
    "option.misses_target": QT_TRANSLATE_NOOP("PlannerMessages", "misses the {target_tokens_per_second} tokens/s target"),
    "option.users_queued": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{queued} users per replica wait for one of its {slots} sequence slots"
    ),
    "option.misses_targets": QT_TRANSLATE_NOOP("PlannerMessages", "MISSES THE TARGETS: {missed}"),
    "option.overloaded": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{request_rate} requests/s overload it: requests arrive faster than its replicas finish them",
    ),
    "target.ttft": QT_TRANSLATE_NOOP("PlannerMessages", "TTFT p90 {ttft_s} against the {target_s} target"),
    "target.tpot": QT_TRANSLATE_NOOP("PlannerMessages", "TPOT {tpot_s} against the {target_s} target"),
    "advice.serving_targets_closest": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "No option meets the targets within {limit} GPUs: the closest are shown, closest first, each marked with "
        "what it misses.",
    ),
    "advice.serving_targets_need_gpus": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "What would meet them: {gpus} x {gpu}, {replicas} replica(s) of TP {tp} x PP {pp} (planned and checked: "
        "TTFT p90 {ttft_s}, TPOT {tpot_s}, {tokens_per_s} tokens/s).",
    ),
    "advice.serving_targets_unreachable": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "No number of GPUs meets them on {gpu}: the closest, TP {tp} x PP {pp}, reaches TTFT p90 {ttft_s} and "
        "TPOT {tpot_s}; a faster GPU, a smaller or quantised model, a shorter prompt or looser targets would "
        "be needed.",
    ),
    # memory model notes
    "memory.kv_heads_replicated": QT_TRANSLATE_NOOP(
        "PlannerMessages", "tp {tp} exceeds the {kv_heads} KV heads: each KV head is replicated on {replicas} ranks"
    ),
    "memory.seq_beyond_context": QT_TRANSLATE_NOOP(
        "PlannerMessages", "sequence length {seq_len} exceeds {model}'s context of {context} tokens"
    ),
    "memory.qlora_ignores_precision": QT_TRANSLATE_NOOP(
        "PlannerMessages", "QLoRA keeps the base in NF4 and computes in bf16; precision {precision} is not used"
    ),
    "memory.zero_with_one_rank": QT_TRANSLATE_NOOP(
        "PlannerMessages", "ZeRO stage {zero} with dp 1 shards nothing: there is only one data-parallel rank"
    ),
    "memory.zero_with_pipeline": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "ZeRO-{zero} with pipeline parallel: DeepSpeed's pipeline engine accepts ZeRO stage 0 or 1 only, and "
        "TorchTitan's FSDP keeps each stage's parameters whole between forward and backward under PP; these "
        "figures assume full ZeRO-{zero} sharding",
    ),
    "memory.kv_precision_training": QT_TRANSLATE_NOOP(
        "PlannerMessages", "KV-cache precision only matters for inference"
    ),
    "memory.zero_inference": QT_TRANSLATE_NOOP(
        "PlannerMessages", "ZeRO stages shard training state; ignored for inference"
    ),
    "memory.optimizer_offload_inference": QT_TRANSLATE_NOOP(
        "PlannerMessages", "inference has no optimizer state to offload"
    ),
    "memory.recompute_inference": QT_TRANSLATE_NOOP(
        "PlannerMessages", "activation recompute only matters for training"
    ),
    "memory.sequence_parallel_without_tp": QT_TRANSLATE_NOOP(
        "PlannerMessages", "sequence parallel has no effect without tensor parallel"
    ),
    "memory.selective_with_flash": QT_TRANSLATE_NOOP(
        "PlannerMessages", "selective recompute saves nothing more with flash attention (no score matrix is stored)"
    ),
    "memory.inflight_without_pipeline": QT_TRANSLATE_NOOP(
        "PlannerMessages", "in-flight micro-batches only apply to pipeline parallel; with pp 1 one micro-batch is live"
    ),
    "memory.first_stage_fullest": QT_TRANSLATE_NOOP(
        "PlannerMessages", "figures are for the first pipeline stage (stage {stage} of {stages}), the fullest"
    ),
    "memory.last_stage_fullest": QT_TRANSLATE_NOOP(
        "PlannerMessages", "figures are for the last pipeline stage (stage {stage} of {stages}), the fullest"
    ),
    "memory.offload_host_ram_optimizer": QT_TRANSLATE_NOOP(
        "PlannerMessages", "offload needs {host_bytes} of CPU RAM per GPU (optimizer offloaded to the host)"
    ),
    "memory.offload_host_ram_all": QT_TRANSLATE_NOOP(
        "PlannerMessages", "offload needs {host_bytes} of CPU RAM per GPU (all offloaded to the host)"
    ),
    "memory.deepseek_without_mtp": QT_TRANSLATE_NOOP(
        "PlannerMessages", "DeepSeek-V3 counted without its 14B multi-token-prediction module (671B main model)"
    ),
    # errors a person can fix
    "error.seq_and_batch_positive": QT_TRANSLATE_NOOP(
        "PlannerMessages", "sequence length and batch must be at least 1"
    ),
    "error.tokens_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the number of tokens must be positive"),
    "error.tokens_per_s_positive": QT_TRANSLATE_NOOP(
        "PlannerMessages", "the tokens-per-second target must be positive"
    ),
    "error.users_positive": QT_TRANSLATE_NOOP("PlannerMessages", "concurrent users must be at least 1"),
    "error.users_or_rate": QT_TRANSLATE_NOOP("PlannerMessages", "give concurrent users or a request rate, not both"),
    "error.output_longer_than_sequence": QT_TRANSLATE_NOOP(
        "PlannerMessages", "the output length ({output_len}) must be shorter than the sequence length ({seq_len})"
    ),
    "error.gpus_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the number of GPUs must be at least 1"),
    "error.max_gpus_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the maximum number of GPUs must be at least 1"),
    "error.deadline_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the deadline must be positive"),
    "error.headroom_range": QT_TRANSLATE_NOOP("PlannerMessages", "the memory headroom must be between 0 and {limit} of each GPU's memory, got {headroom}"),
    "error.cannot_pin": QT_TRANSLATE_NOOP("PlannerMessages", "cannot pin {fields}; pin one of: {choices}"),
    "error.top_positive": QT_TRANSLATE_NOOP("PlannerMessages", "--top must be at least 1"),
    "error.chosen_hardware_unplannable": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "nothing to plan on: {reasons}; choose a GPU of the catalog (gpu-advisor gpus lists them) or "
        "add this GPU as your own GPU type",
    ),
    "error.no_gpu_type": QT_TRANSLATE_NOOP("PlannerMessages", "choose at least one GPU type"),
    "error.budget_currency": QT_TRANSLATE_NOOP(
        "PlannerMessages", "the budget is in {budget_currency} but prices are in {price_currency}; convert first"
    ),
    "error.no_model": QT_TRANSLATE_NOOP(
        "PlannerMessages", "no model given: name a preset, a size such as 7b, a config.json or a model folder"
    ),
    "error.no_such_path": QT_TRANSLATE_NOOP("PlannerMessages", "no such file or folder: {path}"),
    "error.no_such_path_hub_id": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "no such file or folder: {path} (a Hugging Face model id? GPU Advisor works offline: download its "
        "config.json and give its path)",
    ),
    "error.unknown_model": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "unknown model {text}: not a preset ({presets}), a size such as 7b, a config.json or a model folder",
    ),
    "error.no_exchange_rate": QT_TRANSLATE_NOOP(
        "PlannerMessages", "no exchange rate for {source}->{target}; set one in Settings"
    ),
    # -- ledger (planner/store) errors: planner/messages.py's block of the same name, same order ---------
    "store.rental_quote": QT_TRANSLATE_NOOP("PlannerMessages", "rental quote"),
    "store.purchase_quote": QT_TRANSLATE_NOOP("PlannerMessages", "purchase quote"),
    "store.rental_quotes": QT_TRANSLATE_NOOP("PlannerMessages", "rental quotes"),
    "store.purchase_quotes": QT_TRANSLATE_NOOP("PlannerMessages", "purchase quotes"),
    "quote.gpu_lookalike": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gpu: unknown GPU '{text}' (did you mean {hint}?)",
    ),
    "quote.gpu_refused": QT_TRANSLATE_NOOP("PlannerMessages", "gpu: {reason}"),
    "quote.not_a_number": QT_TRANSLATE_NOOP("PlannerMessages", "{field} must be a number, got {value}"),
    "quote.not_finite": QT_TRANSLATE_NOOP("PlannerMessages", "{field} must be a finite number, got {value}"),
    "quote.not_positive": QT_TRANSLATE_NOOP("PlannerMessages", "{field} must be > 0"),
    "quote.negative": QT_TRANSLATE_NOOP("PlannerMessages", "{field} must be >= 0"),
    "quote.above_limit": QT_TRANSLATE_NOOP("PlannerMessages", "{field} must be at most {limit}, got {value}"),
    "quote.above_limit_w": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be at most {limit} W, got {value}",
    ),
    "quote.above_limit_per_gpu": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be at most {limit} ({per_gpu_limit} per GPU), got {value}",
    ),
    "quote.gpu_count": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be a whole number between 1 and {limit}, got {value}",
    ),
    "quote.not_a_date": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be a date YYYY-MM-DD, got '{value}'",
    ),
    "quote.date_empty": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be a date YYYY-MM-DD (it is empty)",
    ),
    "quote.bad_currency": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "currency must be one of {choices} or another 3-letter ISO code, got '{value}'",
    ),
    "quote.currency_required": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "currency is required ({choices} or another 3-letter ISO code)",
    ),
    "quote.bad_choice": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be one of {choices}, got '{value}'",
    ),
    "quote.bad_choice_or_empty": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} must be one of {choices} or empty, got '{value}'",
    ),
    "quote.too_long": QT_TRANSLATE_NOOP("PlannerMessages", "{field} is longer than {limit} characters"),
    "quote.required": QT_TRANSLATE_NOOP("PlannerMessages", "{field} is required"),
    "quote.price_required": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "price_per_gpu_hour or price_per_instance_hour is required",
    ),
    "quote.prices_disagree": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "price_per_instance_hour {per_instance} does not match price_per_gpu_hour {per_gpu} x {gpus} GPUs "
        "= {expected} (they must agree within 1%)",
    ),
    "quote.unusable_price": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} works out to {price}, which is not a usable price",
    ),
    "quote.valid_before_quoted": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "valid_until must not be before quoted_on",
    ),
    "quote.overhead_range": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "server_overhead_fraction must be between 0 and 10 (0.3 means +30%)",
    ),
    "quote.rate_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the exchange rate must be a number > 0"),
    "csv.row_width": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{cells} cells but the header has {columns} columns",
    ),
    "csv.duplicate_of_row": QT_TRANSLATE_NOOP("PlannerMessages", "duplicate of row {row}"),
    "csv.duplicate_of_quote": QT_TRANSLATE_NOOP("PlannerMessages", "duplicate of {label} #{quote_id}"),
    "csv.missing_columns": QT_TRANSLATE_NOOP("PlannerMessages", "missing columns: {columns}"),
    "csv.unknown_columns": QT_TRANSLATE_NOOP("PlannerMessages", "unknown columns: {columns}"),
    "csv.repeated_columns": QT_TRANSLATE_NOOP("PlannerMessages", "repeated columns: {columns}"),
    "csv.missing_price_column": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "missing columns: price_per_gpu_hour or price_per_instance_hour",
    ),
    "error.csv_header": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{name}: {problems} (expected columns: {columns})",
    ),
    "error.csv_empty": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{name} is empty: expected a header row naming the columns {columns}",
    ),
    "error.csv_unreadable": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{name}: not a readable CSV file near line {line}: {detail}",
    ),
    "error.csv_no_rows": QT_TRANSLATE_NOOP("PlannerMessages", "{name} has a header but no {quotes}"),
    "error.csv_is_folder": QT_TRANSLATE_NOOP("PlannerMessages", "{path} is a folder, not a CSV file"),
    "error.csv_too_big": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{name} is {size} bytes; the limit for a quote file is {limit} bytes",
    ),
    "error.csv_not_utf8": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{name} is not UTF-8 text (byte {byte} on line {line}); save it as 'CSV UTF-8' and import it "
        "again",
    ),
    "error.file_missing": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: no such file"),
    "error.file_unreadable": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: cannot read it ({reason})"),
    "error.cannot_write": QT_TRANSLATE_NOOP("PlannerMessages", "cannot write {path}: {reason}"),
    "error.import_refused": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{file} refused: {bad} bad row(s) of {total}; nothing was imported (fix them, or use "
        "--skip-invalid to import the {good} good row(s)); row 1 is the header",
    ),
    "error.quote_invalid": QT_TRANSLATE_NOOP("PlannerMessages", "cannot store the {label}: {reasons}"),
    "error.quote_duplicate": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "this {label} is already stored as #{quote_id}",
    ),
    "error.quote_missing": QT_TRANSLATE_NOOP("PlannerMessages", "there is no {label} #{quote_id}"),
    "error.quote_unknown_fields": QT_TRANSLATE_NOOP("PlannerMessages", "unknown {label} fields: {fields}"),
    "error.quote_change_duplicate": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "this change would make {label} #{quote_id} the same as #{existing}",
    ),
    "error.quote_reference_edit": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); "
        "reference rows can't be edited (hide them with --mine)",
    ),
    "error.quote_reference_delete": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); "
        "reference rows can't be deleted (hide them with --mine)",
    ),
    "error.probe_label_too_long": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "the machine label is {length} characters; the limit is {limit}",
    ),
    "error.probe_duplicate": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "this probe report is already stored as run #{run_id}",
    ),
    "error.probe_run_missing": QT_TRANSLATE_NOOP("PlannerMessages", "there is no probe run #{run_id}"),
    "error.report_unusable": QT_TRANSLATE_NOOP("PlannerMessages", "not a usable probe report: {detail}"),
    "error.probe_cannot_start": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot start gpu-probe ({command}): {reason}",
    ),
    "error.probe_stalled": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gpu-probe printed nothing for {seconds} s and was stopped, with every process it started; nothing "
        "was saved: run it again, or run gpu-probe --progress by hand to see where it stops",
    ),
    "error.probe_failed": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gpu-probe failed with exit code {exit_code}; nothing was saved",
    ),
    "error.probe_no_report": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gpu-probe finished without writing a report; nothing was saved",
    ),
    "error.report_target_folder": QT_TRANSLATE_NOOP("PlannerMessages", "cannot write {path}: it is a folder"),
    "error.report_target_no_folder": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot write {path}: no such folder {folder}",
    ),
    "error.plan_name_empty": QT_TRANSLATE_NOOP("PlannerMessages", "a saved plan needs a name"),
    "error.plan_name_too_long": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a plan name is limited to {limit} characters",
    ),
    "error.plan_missing": QT_TRANSLATE_NOOP("PlannerMessages", "there is no saved plan #{plan_id}"),
    "error.rate_invalid": QT_TRANSLATE_NOOP("PlannerMessages", "{reasons}"),
    "error.user_gpu_needs_id": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a GPU type needs an id, e.g. 'my-rtx-5090'",
    ),
    "error.user_gpu_in_catalog": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{gpu_id} is already in the GPU catalog; choose another id for your GPU type",
    ),
    "error.user_gpu_exists": QT_TRANSLATE_NOOP("PlannerMessages", "you already have a GPU type {gpu_id}"),
    "error.user_gpu_missing": QT_TRANSLATE_NOOP("PlannerMessages", "there is no user GPU type {gpu_id}"),
    "error.user_gpu_unknown_fields": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "unknown GPU type fields: {fields}",
    ),
    "error.user_gpu_incomplete": QT_TRANSLATE_NOOP("PlannerMessages", "incomplete GPU type: {detail}"),
    "error.db_is_folder": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is a folder; give the database file's path",
    ),
    "error.db_cannot_create_folder": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot create the folder {folder}: {reason}",
    ),
    "error.db_unreadable": QT_TRANSLATE_NOOP("PlannerMessages", "cannot read the database {path}: {reason}"),
    "error.db_cannot_use": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot use the database {path}: {reason}; choose another file with --db",
    ),
    "error.db_cannot_move_aside": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is not a usable database and could not be moved aside ({reason}); choose another database "
        "file (--db PATH on the command line)",
    ),
    "error.db_newer": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} was written by a newer GPU Advisor (database version {version}; this one reads up to "
        "{latest}); it was left unchanged: update GPU Advisor or choose another file with --db",
    ),
    "error.db_foreign": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is an SQLite database of another program; it was left unchanged: choose another file with "
        "--db",
    ),
    "error.db_disk_full": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot write the database {path}: the disk is full ({detail}); free some space and try again",
    ),
    "error.db_read_only": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot write the database {path}: the file or its folder is read-only ({detail}); choose a "
        "writable file with --db",
    ),
    "error.db_cannot_open": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot open the database {path} ({detail}); check that its folder exists and may be written, or "
        "choose another file with --db",
    ),
    "error.db_corrupt": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "the database {path} is damaged ({detail}); start GPU Advisor again to move it aside and begin a "
        "fresh one",
    ),
    "error.db_locked": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "the database {path} is locked by another program ({detail}); try again when it has finished",
    ),
    "error.db_busy": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "the database {path} is busy: another GPU Advisor window or command has been writing to it for "
        "over {waited_s}; try again when it has finished",
    ),
    "error.db_io": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot use the database {path}: the system reported an error ({detail})",
    ),
    "error.db_bad_version": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} says it has database version {version}, which no GPU Advisor writes; it was left unchanged: "
        "restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_table": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} lacks the table {table} that database version {version} has (another tool changed it); it was "
        "left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_column": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} lacks the column {column} of the table {table} that database version {version} has (another "
        "tool changed it); it was left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_bad_cell": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path}: the column {column} of row {row} of the table {table} holds {found} where "
        "{expected} belongs (another tool wrote it); the file was left unchanged: correct or delete that row with an SQLite "
        'tool, e.g. sqlite3 {path} "DELETE FROM {table} WHERE rowid = {row}", or choose another file with '
        "--db"
    ),
    "error.db_bad_setting": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path}: the setting {key} holds a value GPU Advisor cannot read (another tool wrote it); the file was "
        "left unchanged: delete it with an SQLite tool, e.g. sqlite3 {path} \"DELETE FROM settings WHERE key = "
        "'{key}'\", and set it again",
    ),
    "error.db_cannot_upgrade": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "cannot upgrade {path} from database version {version} ({detail}): it holds tables of another "
        "version; it was left unchanged: restore it from a backup or choose another file with --db"
    ),
    # files a user names and files the app writes (planner/files.py), hostile input (issue 14)
    "error.would_overwrite": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} exists; it was left unchanged: add --force to replace it, or choose another name",
    ),
    "error.export_would_overwrite": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{folder} already holds {count} file(s) an export writes (such as {name}); they were left unchanged: add "
        "--force to replace them, or choose another folder",
    ),
    "error.value_too_large": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{what} {value} is absurdly large (limit {limit})",
    ),
    "quote.ambiguous_number": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{field} {value} is ambiguous: the comma may separate thousands or mark decimals; write 1000 or 1.000 (or 1,000.00)",
    ),
    "error.os": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path}: {reason}",
    ),
    "error.argument_not_utf8": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "argument {position} ({text}) is not UTF-8 text; type it again in UTF-8 (or rename the file)",
    ),
    "error.option_value_double_dash": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{option}=--: '--' cannot be the value of {option}; give another value",
    ),
    "file_kind.folder": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a folder",
    ),
    "file_kind.fifo": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a FIFO (named pipe)",
    ),
    "file_kind.device": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a device",
    ),
    "file_kind.socket": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a socket",
    ),
    "file_kind.special": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a special file",
    ),
    "error.not_regular_file": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is {kind}, not a regular file; give the path of an ordinary file",
    ),
    "error.file_too_large": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is {size} bytes; the limit is {limit} bytes",
    ),
    "error.export_is_database": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is the database in use; choose another file for the export",
    ),
    "error.db_not_sqlite": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path} is not a GPU Advisor database (it is not an SQLite file); it was left unchanged: check the --db path or choose another file",
    ),
    # a layout in words
    "layout.label": QT_TRANSLATE_NOOP("PlannerMessages", "{parts}"),
    "layout.tp": QT_TRANSLATE_NOOP("PlannerMessages", "TP {degree}"),
    "layout.pp": QT_TRANSLATE_NOOP("PlannerMessages", "PP {degree}"),
    "layout.ep": QT_TRANSLATE_NOOP("PlannerMessages", "EP {degree}"),
    "layout.dp": QT_TRANSLATE_NOOP("PlannerMessages", "DP {degree}"),
    "layout.selective_recompute": QT_TRANSLATE_NOOP("PlannerMessages", "selective recompute"),
    "layout.full_recompute": QT_TRANSLATE_NOOP("PlannerMessages", "full recompute"),
    "layout.micro_batch": QT_TRANSLATE_NOOP("PlannerMessages", "micro-batch {micro_batch}"),
    # what a person calls a choice
    "choice.task": QT_TRANSLATE_NOOP("PlannerMessages", "task"),
    "choice.precision": QT_TRANSLATE_NOOP("PlannerMessages", "precision"),
    "choice.kv_precision": QT_TRANSLATE_NOOP("PlannerMessages", "KV-cache precision"),
    "choice.optimizer": QT_TRANSLATE_NOOP("PlannerMessages", "optimizer"),
    "choice.lora_target": QT_TRANSLATE_NOOP("PlannerMessages", "LoRA target"),
    "choice.recompute": QT_TRANSLATE_NOOP("PlannerMessages", "recompute mode"),
    "choice.offload": QT_TRANSLATE_NOOP("PlannerMessages", "offload mode"),
    "choice.rank_by": QT_TRANSLATE_NOOP("PlannerMessages", "ranking"),
    "choice.confidence": QT_TRANSLATE_NOOP("PlannerMessages", "confidence"),
    "choice.calibration_source": QT_TRANSLATE_NOOP("PlannerMessages", "calibration source"),
    "choice.engine": QT_TRANSLATE_NOOP("PlannerMessages", "serving engine"),
    "choice.weight_format": QT_TRANSLATE_NOOP("PlannerMessages", "weight format"),
    # quantities the errors name
    "quantity.micro_batch": QT_TRANSLATE_NOOP("PlannerMessages", "micro-batch"),
    "quantity.seq_len": QT_TRANSLATE_NOOP("PlannerMessages", "sequence length"),
    "quantity.inflight": QT_TRANSLATE_NOOP("PlannerMessages", "in-flight micro-batches"),
    "quantity.lora_rank": QT_TRANSLATE_NOOP("PlannerMessages", "LoRA rank"),
    "quantity.pinned": QT_TRANSLATE_NOOP("PlannerMessages", "a pinned strategy value"),
    "quantity.purchase_price": QT_TRANSLATE_NOOP("PlannerMessages", "the purchase price"),
    "quantity.rent_price": QT_TRANSLATE_NOOP("PlannerMessages", "the rent price"),
    "quantity.rent_prices": QT_TRANSLATE_NOOP("PlannerMessages", "rent prices"),
    "quantity.spot_rent_price": QT_TRANSLATE_NOOP("PlannerMessages", "the spot rent price"),
    "quantity.reserved_rent_price": QT_TRANSLATE_NOOP("PlannerMessages", "the reserved rent price"),
    "quantity.infra_overhead": QT_TRANSLATE_NOOP("PlannerMessages", "the infrastructure overhead"),
    "quantity.power_per_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "the power per GPU"),
    "quantity.pue": QT_TRANSLATE_NOOP("PlannerMessages", "PUE"),
    "quantity.electricity_price": QT_TRANSLATE_NOOP("PlannerMessages", "the electricity price"),
    "quantity.hours_per_day": QT_TRANSLATE_NOOP("PlannerMessages", "hours per day"),
    "quantity.days_per_week": QT_TRANSLATE_NOOP("PlannerMessages", "days per week"),
    "quantity.utilisation": QT_TRANSLATE_NOOP("PlannerMessages", "utilisation"),
    "quantity.resale_fraction": QT_TRANSLATE_NOOP("PlannerMessages", "the resale fraction"),
    "quantity.maintenance": QT_TRANSLATE_NOOP("PlannerMessages", "maintenance"),
    "quantity.spot_overhead": QT_TRANSLATE_NOOP("PlannerMessages", "the spot overhead"),
    "quantity.spot_interruption_rate": QT_TRANSLATE_NOOP(
        "PlannerMessages", "the spot interruption rate (reclaims per node-hour)"
    ),
    "quantity.checkpoint_write_time": QT_TRANSLATE_NOOP("PlannerMessages", "the checkpoint write time"),
    "quantity.restart_time": QT_TRANSLATE_NOOP("PlannerMessages", "the restart time"),
    "quantity.catalog_purchase_price": QT_TRANSLATE_NOOP("PlannerMessages", "the catalog's purchase price"),
    "quantity.default_electricity_price": QT_TRANSLATE_NOOP("PlannerMessages", "the default electricity price"),
    # more errors a person can fix
    "error.unknown_choice": QT_TRANSLATE_NOOP("PlannerMessages", "unknown {what} {text}; choose one of: {choices}"),
    "error.zero_stage": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO stage must be 0, 1, 2 or 3, got {value}"),
    "error.must_be_whole": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must be a whole number, got {value}"),
    "error.must_be_positive": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must be positive, got {value}"),
    "error.must_be_finite": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must be a finite number, got {value}"),
    "error.absurdly_large": QT_TRANSLATE_NOOP("PlannerMessages", "{what} {value} is absurdly large (limit {limit})"),
    "error.not_a_number": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must be a number, got {value}"),
    "error.number_too_long": QT_TRANSLATE_NOOP("PlannerMessages", "{what} is {chars} characters long; a number here has at most {limit}"),
    "error.out_of_range": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must be from {low} to {high}, got {value}"),
    "error.too_many_gpus": QT_TRANSLATE_NOOP("PlannerMessages", "dp x tp x pp = {gpus} GPUs is absurdly large (limit {limit})"),
    "error.tp_heads": QT_TRANSLATE_NOOP("PlannerMessages", "tensor parallel {tp} does not divide the {heads} attention heads of {model}"),
    "error.tp_kv_heads": QT_TRANSLATE_NOOP("PlannerMessages", "tensor parallel {tp} does not divide the {kv_heads} KV heads of {model} (nor do the KV heads divide it, which would allow replicating them)"),
    "error.pp_layers": QT_TRANSLATE_NOOP("PlannerMessages", "pipeline parallel {pp} is larger than the {layers} layers of {model}"),
    "error.ep_dense": QT_TRANSLATE_NOOP("PlannerMessages", "expert parallel {ep} needs a mixture-of-experts model; {model} is dense"),
    "error.ep_experts": QT_TRANSLATE_NOOP("PlannerMessages", "expert parallel {ep} does not divide the {experts} experts of {model}"),
    "error.ep_dp_tp": QT_TRANSLATE_NOOP("PlannerMessages", "expert parallel {ep} must divide dp x tp = {dp_tp} (expert-parallel ranks are carved out of the data- and tensor-parallel ranks)"),
    "error.learned_positions": QT_TRANSLATE_NOOP("PlannerMessages", "sequence length {seq_len} exceeds {model}'s {context} learned positions"),
    "error.full_training_int": QT_TRANSLATE_NOOP("PlannerMessages", "full training in {precision} is not supported; use bf16/fp16/fp8/fp32, or --task qlora for a 4-bit base"),
    "error.lora_no_targets": QT_TRANSLATE_NOOP("PlannerMessages", "LoRA needs at least one target module; choose from {choices}"),
    "error.no_throughput_figure": QT_TRANSLATE_NOOP("PlannerMessages", "{gpu} has no {dtype} throughput figure"),
    "error.mfu_range": QT_TRANSLATE_NOOP("PlannerMessages", "MFU must be between 0 and 1, got {mfu}"),
    "error.bandwidth_fraction_range": QT_TRANSLATE_NOOP("PlannerMessages", "the bandwidth fraction must be between 0 and 1, got {fraction}"),
    "error.comm_overlap_range": QT_TRANSLATE_NOOP("PlannerMessages", "the communication overlap must be between 0 and 1, got {overlap}"),
    "error.batch_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the batch must be at least one sequence"),
    "error.must_not_be_negative": QT_TRANSLATE_NOOP("PlannerMessages", "{what} must not be negative"),
    "error.spot_no_progress": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "at {rate} reclaims per node-hour a job on {nodes} node(s) spends nearly all its time redoing lost work "
        "and restarting ({restart_s} each): spot cannot run it",
    ),
    "error.gpu_flag_empty": QT_TRANSLATE_NOOP("PlannerMessages", "--gpu needs a GPU id; see `gpu-advisor gpus`"),
    "error.price_flags_both": QT_TRANSLATE_NOOP("PlannerMessages", "give either --price-per-gpu-hour or --price-from-quotes, not both"),
    # mixed GPU pools (planner.search.pools): the ways to run one job and why the best wins
    "pool.name.alone": QT_TRANSLATE_NOOP("PlannerMessages", "{gpu} alone"),
    "pool.name.pool": QT_TRANSLATE_NOOP("PlannerMessages", "the whole pool"),
    "pool.name.pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "the pipeline over the types"),
    "pool.name.separate": QT_TRANSLATE_NOOP("PlannerMessages", "separate jobs"),
    "pool.reason.only": QT_TRANSLATE_NOOP("PlannerMessages", "{way} is the only way that fits"),
    "pool.reason.faster": QT_TRANSLATE_NOOP("PlannerMessages", "{way} is {speedup}x faster than {runner}: {why}"),
    "pool.reason.faster_by_percent": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{way} is {faster_percent}% faster than {runner}: {why}"
    ),
    "pool.why.pool": QT_TRANSLATE_NOOP("PlannerMessages", "the extra GPUs bring more than the gradient sync at the slower pace costs"),
    "pool.why.pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "each type holds layers in proportion to its speed, so the slowest stage, the bubble ({bubble_percent}% of the step) and the sends between types cost less than the runner-up's losses"),
    "pool.why.alone_over_pool": QT_TRANSLATE_NOOP("PlannerMessages", "the pool's common layout and gradient sync at the slower pace cost more than its extra GPUs bring; the other GPUs stay free for separate jobs"),
    "pool.why.alone_over_pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "the pipeline's slowest stage, bubble and sends between types cost more than its extra GPUs bring; the other GPUs stay free for separate jobs"),
    "pool.why.faster_type": QT_TRANSLATE_NOOP("PlannerMessages", "its GPUs run this job faster"),
    "pool.way.pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "{stages} pipeline stages ({groups}) x dp {dp}, {microbatches} micro-batches per step: the slowest stage takes {pace_s} per micro-batch, the bubble {bubble_percent}% of the step, a send between types {boundary_send_s} at the slower link"),
    "pool.way.stage_group": QT_TRANSLATE_NOOP("PlannerMessages", "{stages} x {gpu}, layers per stage: {layers}"),
    "pool.way.stage_group_range": QT_TRANSLATE_NOOP("PlannerMessages", "{stages} x {gpu}, layers per stage: {fewest}-{most}"),
    "pool.way.separate": QT_TRANSLATE_NOOP("PlannerMessages", "each type runs its own job: together {aggregate_tokens_per_s} tokens/s, but one run goes at its own job's pace, {tokens_per_s} tokens/s on {gpu} alone; the other GPUs run other jobs"),
    "pool.pipeline.no_shape": QT_TRANSLATE_NOOP("PlannerMessages", "no pipeline over the types: no tensor-parallel size and pipeline copies give every type a stage within {limit} stages"),
    "pool.pipeline.stage_too_big": QT_TRANSLATE_NOOP("PlannerMessages", "no pipeline over the types fits: at best stage {stage} on {gpu} ({layers} layers) needs {need_bytes} per GPU, has {capacity_bytes} ({strategy})"),
    "pool.pipeline.precision": QT_TRANSLATE_NOOP("PlannerMessages", "no pipeline over the types: {refusal}"),
    "error.nothing_to_export": QT_TRANSLATE_NOOP("PlannerMessages", "nothing to export: no option fits"),
    "error.cannot_write_export": QT_TRANSLATE_NOOP("PlannerMessages", "cannot write the export to {directory}: {reason}"),
    "error.spot_inputs_negative": QT_TRANSLATE_NOOP("PlannerMessages", "spot interruption rate, restart overhead and checkpoint interval must not be negative"),
    "error.run_cost_negative": QT_TRANSLATE_NOOP("PlannerMessages", "GPU-hours and the price per GPU-hour must not be negative"),
    "error.rentbuy_gpus_large": QT_TRANSLATE_NOOP("PlannerMessages", "{gpus} GPUs is absurdly large (limit {limit})"),
    "error.purchase_large": QT_TRANSLATE_NOOP("PlannerMessages", "the purchase price {price} is absurdly large (limit {limit})"),
    "error.power_range": QT_TRANSLATE_NOOP("PlannerMessages", "the power per GPU must be between 0 and {limit} W (0 leaves electricity out), got {power} W"),
    "error.pue_range": QT_TRANSLATE_NOOP("PlannerMessages", "PUE must be between {low} and {high} (facility power / IT power), got {pue}"),
    "error.hours_per_day_range": QT_TRANSLATE_NOOP("PlannerMessages", "hours per day must be between 0 and 24"),
    "error.days_per_week_range": QT_TRANSLATE_NOOP("PlannerMessages", "days per week must be between 0 and 7"),
    "error.utilisation_range": QT_TRANSLATE_NOOP("PlannerMessages", "utilisation must be between 0 and 1 (for example 0.6)"),
    "error.horizon_range": QT_TRANSLATE_NOOP("PlannerMessages", "the horizon must be between 1 and 240 months"),
    "error.resale_range": QT_TRANSLATE_NOOP("PlannerMessages", "the resale fraction must be between 0 and 1"),
    "error.hybrid_range": QT_TRANSLATE_NOOP("PlannerMessages", "hybrid owned GPUs must be between 0 and the number of GPUs"),
    "error.hybrid_whole_groups": QT_TRANSLATE_NOOP("PlannerMessages", "hybrid owned GPUs must be whole groups of {job_gpus} (the GPUs one job needs at once)"),
    "error.job_gpus_range": QT_TRANSLATE_NOOP("PlannerMessages", "a job of {job_gpus} GPUs must need between 1 and the {gpus} GPUs compared"),
    "error.runs_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the job's GPU-hours and its runs per month must be positive"),
    "error.runs_do_not_fit": QT_TRANSLATE_NOOP("PlannerMessages", "{runs} runs a month do not fit the schedule of {gpus} GPUs: at most {fit} do"),
    "error.no_hardware_chosen": QT_TRANSLATE_NOOP("PlannerMessages", "choose at least one GPU type, machine or quote to plan on"),
    # where a price came from (planner/resolver.py)
    "price.user_set": QT_TRANSLATE_NOOP("PlannerMessages", "{price}/GPU-h, set by you"),
    "price.mine_one": QT_TRANSLATE_NOOP("PlannerMessages", "your quote: {price}/GPU-h"),
    "price.reference_one": QT_TRANSLATE_NOOP("PlannerMessages", "reference quote: {price}/GPU-h"),
    "price.mine_median": QT_TRANSLATE_NOOP("PlannerMessages", "median of {count} of your quotes ({low} to {high}/GPU-h)"),
    "price.reference_median": QT_TRANSLATE_NOOP("PlannerMessages", "median of {count} reference quotes ({low} to {high}/GPU-h)"),
    "price.quote": QT_TRANSLATE_NOOP("PlannerMessages", "{provider}, {quote_kind}: {price}/GPU-h, quoted {quoted_date}"),
    "price.for_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "price for {gpu_id}: {source}"),
    "price.none": QT_TRANSLATE_NOOP("PlannerMessages", "no stored on-demand quote for {gpu_id}: no cost shown"),
    "resolver.quote_gone": QT_TRANSLATE_NOOP("PlannerMessages", "quote {quote_id} is no longer in the database"),
    "resolver.run_gone": QT_TRANSLATE_NOOP("PlannerMessages", "probe run {run_id} is no longer in the database"),
    "resolver.run_without_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "probe run {run_id} measured no GPU the catalog knows: it cannot plan"),
    "error.optimizer_offload_zero": QT_TRANSLATE_NOOP("PlannerMessages", "optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offload_optimizer)"),
    "error.param_offload_zero3": QT_TRANSLATE_NOOP("PlannerMessages", "offloading parameters needs ZeRO stage 3 / FSDP full shard (DeepSpeed offload_param)"),
    "error.spec_positive": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: {field} must be a positive integer, got {value}"),
    "error.spec_negative": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: {field} must not be negative, got {value}"),
    "error.spec_gqa": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: {heads} attention heads are not a multiple of {kv_heads} KV heads"),
    "error.spec_norm": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: norm must be rmsnorm or layernorm, got {norm}"),
    "error.spec_experts_per_token": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: experts_per_token must be between 1 and {experts}"),
    "error.spec_moe_ffn": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: moe_ffn (expert intermediate size) must be positive"),
    "error.spec_dense_layers": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: dense_layers ({dense_layers}) must be fewer than layers ({layers})"),
    "error.spec_mla": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: MLA needs positive v_head_dim and qk head dims"),
    "error.spec_layer_types": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{where}: layer_types lists {kinds} layers but the model has {layers}"
    ),
    "error.spec_layer_kind": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: layer kind {kind} is unknown or lacks its window"),
    "error.config_remote_code": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{path}: model_type {model_type} names its own code (auto_map); code from a model folder is never run, "
        "so this model cannot be read",
    ),
    "error.unknown_preset": QT_TRANSLATE_NOOP("PlannerMessages", "unknown model preset {name}; presets: {presets}"),
    "error.size_not_number": QT_TRANSLATE_NOOP("PlannerMessages", "model size must be a number of billions, got {billions}"),
    "error.size_range": QT_TRANSLATE_NOOP("PlannerMessages", "model size {billions}B is outside {low}B..{high}B"),
    "error.size_too_small": QT_TRANSLATE_NOOP("PlannerMessages", "model size {billions}B is too small for a Llama-like shape"),
    "error.config_missing_key": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: missing key {key} (needed for model_type {model_type})"),
    "error.config_key_int": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: key {key} must be a positive integer, got {value}"),
    "error.config_key_bool": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: key {key} must be true or false, got {value}"),
    "error.config_too_large": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: {size} bytes is too large for a config.json"),
    "error.cannot_read": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: cannot read ({kind}: {reason})"),
    "error.config_bad_json": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: malformed JSON ({reason} at line {line})"),
    "error.config_not_object": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: expected a JSON object, got {kind}"),
    "error.config_no_model_type": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: missing key 'model_type'"),
    "error.config_model_type": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: model_type {model_type} is not supported; supported: {supported}"),
    "error.config_mlp_only_layers": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: key 'mlp_only_layers' must be a list of layer numbers"),
    "error.imported_size": QT_TRANSLATE_NOOP("PlannerMessages", "{where}: model size {billions}B parameters is outside {low}B..{high}B; check the sizes in the file"),
    "error.trace_needs_config": QT_TRANSLATE_NOOP("PlannerMessages", "{model}: a trace builds the model from its config.json; give a config.json or a model folder"),
    "error.trace_too_deep": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "a trace of {layers} decoder layers would take too long (about 1 s per layer); it runs at most "
        "{limit}, as deep as the deepest published model (Llama 3.1 405B: 126): use the analytic figures",
    ),
    "error.trace_task": QT_TRANSLATE_NOOP("PlannerMessages", "a trace runs pretrain, finetune, lora or inference, not {task} (QLoRA's 4-bit kernels need CUDA)"),
    "error.trace_layout": QT_TRANSLATE_NOOP("PlannerMessages", "a LoRA trace covers data, pipeline and expert parallel; LoRA is not traced under tensor parallel"),
    "error.trace_failed": QT_TRANSLATE_NOOP("PlannerMessages", "the memory trace failed: {reason}"),
    "error.safetensors_short": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: not a safetensors file (shorter than its 8-byte header length)"),
    "error.safetensors_header": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: header length {header} bytes is absurd for a {size}-byte file"),
    "error.safetensors_not_json": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: malformed safetensors header (not JSON)"),
    "error.safetensors_not_object": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: malformed safetensors header (not a JSON object)"),
    "error.safetensors_shape": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: tensor {tensor} has no valid 'shape' in the header"),
    "error.not_a_folder": QT_TRANSLATE_NOOP("PlannerMessages", "{path}: not a folder"),
    "error.no_gpu_given": QT_TRANSLATE_NOOP("PlannerMessages", "no GPU given; see `gpu-advisor gpus` for the ids"),
    "error.unknown_gpu": QT_TRANSLATE_NOOP("PlannerMessages", "unknown GPU {text}; see `gpu-advisor gpus`"),
    "error.unknown_gpu_close": QT_TRANSLATE_NOOP("PlannerMessages", "unknown GPU {text} (did you mean: {ids}?); see `gpu-advisor gpus`"),
    "error.gpu_type_sizes": QT_TRANSLATE_NOOP("PlannerMessages", "a GPU type needs a positive memory size and memory bandwidth"),
    "error.gpu_type_dtypes": QT_TRANSLATE_NOOP("PlannerMessages", "unknown dtype(s) {dtypes} in TFLOPS; use {choices}"),
    "error.gpu_type_tflops": QT_TRANSLATE_NOOP("PlannerMessages", "a GPU type needs at least one TFLOPS figure (for example bf16)"),
    "error.currency_code": QT_TRANSLATE_NOOP("PlannerMessages", "{code} is not a currency code; use a 3-letter code such as USD, EUR or RUB"),
    "error.currency_mismatch": QT_TRANSLATE_NOOP("PlannerMessages", "cannot add {other} to {currency} without converting first"),
    "error.rate_positive": QT_TRANSLATE_NOOP("PlannerMessages", "the exchange rate for {code} must be a positive number, got {rate}"),
    "error.no_rate_for_default": QT_TRANSLATE_NOOP("PlannerMessages", "no exchange rate for USD->{currency} to convert {what}; set one in Settings (or give {flag} in {currency})"),
    "error.no_reference_price": QT_TRANSLATE_NOOP("PlannerMessages", "give --purchase-per-gpu: the catalog has no reference price for {gpu}"),
    "error.years_at_least_a_month": QT_TRANSLATE_NOOP("PlannerMessages", "--years must be at least one month (0.1)"),
}  # fmt: skip
