"""The translatable template of every planner message code (context "PlannerMessages"), in English.

desktop/messages.py renders a planner.messages.Message through this table: it looks the code up here, translates
the template with Qt and fills in the values formatted for the interface language. Each template is marked with
QT_TRANSLATE_NOOP so pyside6-lupdate finds it (assets/i18n/gpu_advisor_ru.ts holds the Russian).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from PySide6 import QtCore

from desktop.error_templates import ERROR_TEMPLATES

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)

CONTEXT = "PlannerMessages"

# English sources: the planner's templates (planner.messages.TEMPLATES) without its format specs; the errors'
# are in desktop/error_templates.py.
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
    "excluded.needs_host_ram": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "fits the GPU, but its {gpus} GPU(s) per node offload {need_bytes} to CPU RAM, more than the node's "
        "{host_bytes} (--host-ram-gib)",
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
    "advice.only_tight_options": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "Nothing fits on {gpu} within the {headroom_percent}% memory headroom ({capacity_bytes} of "
        "{memory_bytes}): the options shown fit only inside it (tight). The headroom is for the CUDA "
        "context, the allocator's fragmentation and NCCL buffers; a tight option runs out of memory if they "
        "take more than its margin.",
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
    "option.runtime_choice": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{runtime} chosen, the most useful tokens/s that fits: {candidates}"
    ),
    "option.runtime_candidate": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{runtime} {need_bytes} per GPU, step {step_time_s}, {useful_tokens_per_s} useful tokens/s",
    ),
    "option.runtime_candidate_too_big": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{runtime} {need_bytes} per GPU, does not fit"
    ),
    "option.runtime_candidate_refused": QT_TRANSLATE_NOOP("PlannerMessages", "{runtime} cannot run this layout"),
    "option.tight_headroom": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "TIGHT: needs {need_bytes} of {memory_bytes}, inside the {headroom_percent}% headroom; "
        "{margin_bytes} left for the CUDA context, allocator and NCCL buffers",
    ),
    "option.gradient_reduction.bucketed": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gradients: {runtime} reduces them over the data-parallel ranks in {wire_bits}-bit buckets of "
        "{bucket_bytes} beside the backward; the embedding's, produced last, is the exposed tail",
    ),
    "option.gradient_reduction.per_layer": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gradients: {runtime} reduce-scatters them over the data-parallel ranks in {wire_bits} bits, one "
        "collective per layer beside the backward; the embedding's, produced last, is the exposed tail",
    ),
    "option.gradient_reduction.after_backward": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "gradients: {runtime} all-reduces them over the data-parallel ranks in {wire_bits}-bit buffers of "
        "{bucket_bytes} after the backward, nothing hidden",
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
    "serving.speculative_decoding": QT_TRANSLATE_NOOP(
        "PlannerMessages", "speculative decoding is not modelled (one token per sequence per decode step)"
    ),
    "option.disaggregated": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "disaggregated: a prefill pool of {prefill_replicas} x TP {prefill_tp} sends each prompt's KV cache "
        "({transfer_s}) to a decode pool of {decode_replicas} x TP {decode_tp} (the layout shown)",
    ),
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
    "memory.towers_not_counted": QT_TRANSLATE_NOOP(
        "PlannerMessages",
        "{model}'s vision tower and projector ({towers}: {params:number} parameters) are not in this plan; "
        "it covers the text decoder only",
    ),
    "memory.towers_size_unknown": QT_TRANSLATE_NOOP(
        "PlannerMessages", "{model}'s {towers} (size not read) are not in this plan; it covers the text decoder only"
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
    "choice.runtime": QT_TRANSLATE_NOOP("PlannerMessages", "runtime"),
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
    # mixed GPU pools (planner.search.pools): the ways to run one job and why the best wins
    "pool.name.alone": QT_TRANSLATE_NOOP("PlannerMessages", "{gpu} alone"),
    "pool.name.pool": QT_TRANSLATE_NOOP("PlannerMessages", "the whole pool"),
    "pool.name.pipeline": QT_TRANSLATE_NOOP("PlannerMessages", "the pipeline over the types"),
    "pool.name.separate": QT_TRANSLATE_NOOP("PlannerMessages", "separate jobs"),
    "pool.reason.only": QT_TRANSLATE_NOOP("PlannerMessages", "{way} is the only way that fits"),
    "pool.reason.none_fits": QT_TRANSLATE_NOOP("PlannerMessages", "nothing fits on any type of the pool"),
    "pool.reason.serving_only": QT_TRANSLATE_NOOP("PlannerMessages", "{way} is the only way that fits; {kept}"),
    "pool.reason.serving_more": QT_TRANSLATE_NOOP("PlannerMessages", "{way} serves {ratio}x what {runner} does; {kept}"),
    "pool.kept": QT_TRANSLATE_NOOP("PlannerMessages", "with its largest replica down it serves {tokens_per_s} tokens/s"),
    "pool.kept.enough": QT_TRANSLATE_NOOP("PlannerMessages", "with its largest replica down it serves {tokens_per_s} tokens/s, enough for the target"),
    "pool.kept.short": QT_TRANSLATE_NOOP("PlannerMessages", "with its largest replica down it serves {tokens_per_s} tokens/s, short of the target"),
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
    **ERROR_TEMPLATES,
}  # fmt: skip
