"""English texts of the planner's message codes other than errors (planner.messages.TEMPLATES joins them with
planner.error_texts): strategy families, layouts in words, choices and quantities, exclusions and their reasons,
advice, option notes, memory notes, mixed pools, and where a price or measurement came from. The format spec
language is planner.messages' (render_en); desktop/message_templates.py holds the translated twin of each."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

TEXTS: Mapping[str, str] = MappingProxyType({
    # -- strategy families (the names people give a sharding layout) ------------------------------------------
    "family.ddp": "DDP",
    "family.zero": "ZeRO-{zero}",
    "family.zero3": "ZeRO-3/FSDP",
    "family.optimizer_offload": "{family} + optimizer offload",
    "family.all_offload": "{family} + all offload",
    # -- a layout in words (planner.layout_text.layout_label) -------------------------------------------------
    "layout.label": "{parts:list}",
    "layout.tp": "TP {degree}",
    "layout.pp": "PP {degree}",
    "layout.ep": "EP {degree}",
    "layout.dp": "DP {degree}",
    "layout.selective_recompute": "selective recompute",
    "layout.full_recompute": "full recompute",
    "layout.micro_batch": "micro-batch {micro_batch}",
    # -- what a person calls a choice of planner.vocabulary, and quantities the errors name -------------------
    "choice.task": "task",
    "choice.precision": "precision",
    "choice.kv_precision": "KV-cache precision",
    "choice.optimizer": "optimizer",
    "choice.lora_target": "LoRA target",
    "choice.recompute": "recompute mode",
    "choice.offload": "offload mode",
    "choice.runtime": "runtime",
    "choice.rank_by": "ranking",
    "choice.confidence": "confidence",
    "choice.calibration_source": "calibration source",
    "choice.engine": "serving engine",
    "choice.weight_format": "weight format",
    "quantity.micro_batch": "micro-batch",
    "quantity.seq_len": "sequence length",
    "quantity.inflight": "in-flight micro-batches",
    "quantity.lora_rank": "LoRA rank",
    "quantity.pinned": "a pinned strategy value",
    "quantity.purchase_price": "the purchase price",
    "quantity.rent_price": "the rent price",
    "quantity.rent_prices": "rent prices",
    "quantity.spot_rent_price": "the spot rent price",
    "quantity.reserved_rent_price": "the reserved rent price",
    "quantity.infra_overhead": "the infrastructure overhead",
    "quantity.power_per_gpu": "the power per GPU",
    "quantity.pue": "PUE",
    "quantity.electricity_price": "the electricity price",
    "quantity.hours_per_day": "hours per day",
    "quantity.days_per_week": "days per week",
    "quantity.utilisation": "utilisation",
    "quantity.resale_fraction": "the resale fraction",
    "quantity.maintenance": "maintenance",
    "quantity.spot_overhead": "the spot overhead",
    "quantity.spot_interruption_rate": "the spot interruption rate (reclaims per node-hour)",
    "quantity.checkpoint_write_time": "the checkpoint write time",
    "quantity.restart_time": "the restart time",
    "quantity.catalog_purchase_price": "the catalog's purchase price",
    "quantity.default_electricity_price": "the default electricity price",
    # -- what an excluded entry stands for --------------------------------------------------------------------
    "excluded.family.data_parallel_only": "{family} without tensor/pipeline parallel",
    "excluded.family.tensor_pipeline": "tensor/pipeline parallel",
    "excluded.family.zero_with_pipeline": "ZeRO-{zero} + pipeline parallel",
    "excluded.family.pipeline": "pipeline parallel",
    "excluded.family.gpu_count": "{gpus:gpus}",
    "excluded.family.inference": "{precision} inference",
    "excluded.family.precision_on_gpu": "{precision} on {gpu_id}",
    # -- why it was excluded ----------------------------------------------------------------------------------
    "excluded.needs_memory": "needs {need_bytes:bytes} per GPU, has {capacity_bytes:bytes} on {gpu}",
    "excluded.needs_host_ram": (
        "fits the GPU, but its {gpus:gpus} per node offload {need_bytes:bytes} to CPU RAM, more than the node's "
        "{host_bytes:bytes} (--host-ram-gib)"
    ),
    "excluded.needs_memory_layout": (
        "needs {need_bytes:bytes} per GPU ({strategy:label}, {gpus:gpus}), has {capacity_bytes:bytes} on {gpu}"
    ),
    "excluded.pipeline_needs_zero01": (
        "not searched: pipeline parallel runs with ZeRO stage 0 or 1 only (DeepSpeed's pipeline engine: \"ZeRO-2 "
        "and ZeRO-3 are incompatible with pipeline parallelism\"; Megatron-LM's distributed optimizer is ZeRO-1); "
        "pin ZeRO 0/1 to use a pipeline, or PP 1 to keep ZeRO-2/3"
    ),
    "excluded.no_layout_divides": (
        "no tp x pp x dp layout divides {gpus:gpus} for {model} (tp must divide {heads} heads, dp at most the "
        "global batch)"
    ),
    "excluded.no_serving_layout": "no tensor/pipeline layout is possible on {where}",
    "excluded.serving_needs_memory": (
        "needs {need_bytes:bytes} per GPU at the lightest layout on {where}, has {capacity_bytes:bytes}"
    ),
    "gpu.precision_needs_capability": (
        "{gpu} (compute capability {capability}) cannot run {precision}: it needs compute capability "
        "{needed_capability} or newer"
    ),
    "gpu.no_precision_support": "{gpu} has no {precision} support",
    # -- where: a GPU count and type ----------------------------------------------------------------------
    "where.gpus": "{gpus} x {gpu}",
    "where.one_gpu": "one {gpu}",
    "where.exact_gpus": "{gpus:gpus}",
    "where.up_to_gpus": "up to {gpus:gpus}",
    # -- advice -------------------------------------------------------------------------------------------
    "advice.ddp_cannot_work": (
        "Plain data parallel (DDP) cannot work on {gpu}: the model states alone are {state_bytes:bytes} per GPU "
        "against {capacity_bytes:bytes}; they need sharding, e.g. {hint} (the fastest option uses "
        "{strategy:label})."
    ),
    "advice.nothing_fits_training": (
        "Nothing fits on {upto} x {gpu} ({capacity_bytes:bytes} each). Try: {ideas:clauses}."
    ),
    "advice.nothing_fits_training_lightest": (
        "Nothing fits on {upto} x {gpu} ({capacity_bytes:bytes} each): the lightest layout ({strategy:label}) "
        "still needs {need_bytes:bytes} per GPU. Try: {ideas:clauses}."
    ),
    "advice.only_tight_options": (
        "Nothing fits on {gpu} within the {headroom_percent:.0f}% memory headroom ({capacity_bytes:bytes} of "
        "{memory_bytes:bytes}): the options shown fit only inside it (tight). The headroom is for the CUDA "
        "context, the allocator's fragmentation and NCCL buffers; a tight option runs out of memory if they "
        "take more than its margin."
    ),
    # what else to try when no training layout fits; only those the plan has not already tried
    "idea.more_gpus_training": "more GPUs",
    "idea.zero3_offload": "ZeRO-3 with CPU offload",
    "idea.lora_instead": "LoRA or QLoRA instead of full training",
    "idea.qlora_instead": "QLoRA (a 4-bit base model) instead of LoRA",
    "idea.shorter_sequence": "a shorter sequence",
    "idea.bigger_gpu": "a GPU with more memory",
    "advice.serving_does_not_fit": (
        "{model} in {precision} does not fit {where} ({need_bytes:bytes} needed per GPU, {capacity_bytes:bytes} "
        "available). What would: {ideas:clauses}."
    ),
    "idea.int4_fits_one_gpu": (
        "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes:bytes} on one GPU, fits one GPU"
    ),
    "idea.int4_needs_gpus": (
        "int4 weights (GPTQ/AWQ, about 4.25 bits): {int4_bytes:bytes} on one GPU, needs about {gpus:gpus} with "
        "tensor parallel"
    ),
    "idea.offload_weights": (
        "offload the weights to CPU RAM (accelerate device_map, llama.cpp): runs, but every token streams "
        "{streamed_bytes:bytes} or more over PCIe, about {token_time_s:.1f} s per token"
    ),
    "idea.more_gpus": "more GPUs: at least {gpus} x {gpu} with tensor parallel",
    "advice.limits_not_met": "No option meets the deadline and budget.{sentences:sentences}",
    "advice.fastest": "Fastest: {wall_time_s:days} days on {gpus} x {gpu}.",
    "advice.cheapest": "Cheapest: {cost} on {gpus} x {gpu}.",
    # -- notes on one option --------------------------------------------------------------------------------
    "option.global_batch_differs": (
        "global batch {effective_batch} sequences (dp {dp} x micro-batch {micro_batch} x {accumulation_steps} "
        "accumulation steps), not {global_batch}"
    ),
    "option.tight_headroom": (
        "TIGHT: needs {need_bytes:bytes} of {memory_bytes:bytes}, inside the {headroom_percent:.0f}% headroom; "
        "{margin_bytes:bytes} left for the CUDA context, allocator and NCCL buffers"
    ),
    "option.gradient_reduction.bucketed": (
        "gradients: {runtime} reduces them over the data-parallel ranks in {wire_bits}-bit buckets of "
        "{bucket_bytes:bytes} beside the backward; the embedding's, produced last, is the exposed tail"
    ),
    "option.gradient_reduction.per_layer": (
        "gradients: {runtime} reduce-scatters them over the data-parallel ranks in {wire_bits} bits, one "
        "collective per layer beside the backward; the embedding's, produced last, is the exposed tail"
    ),
    "option.gradient_reduction.after_backward": (
        "gradients: {runtime} all-reduces them over the data-parallel ranks in {wire_bits}-bit buffers of "
        "{bucket_bytes:bytes} after the backward, nothing hidden"
    ),
    "option.runtime_choice": "{runtime} chosen, the most useful tokens/s that fits: {candidates:clauses}",
    "option.runtime_candidate": (
        "{runtime} {need_bytes:bytes} per GPU, step {step_time_s:duration}, {useful_tokens_per_s:,.0f} useful "
        "tokens/s"
    ),
    "option.runtime_candidate_too_big": "{runtime} {need_bytes:bytes} per GPU, does not fit",
    "option.runtime_candidate_refused": "{runtime} cannot run this layout",
    "option.decode_memory_bound": "decode is memory bandwidth-bound at batch {batch}",
    "option.decode_compute_bound": "decode is compute-bound at batch {batch}",
    "option.misses_target": "misses the {target_tokens_per_second:g} tokens/s target",
    "option.users_queued": "{queued} users per replica wait for one of its {slots} sequence slots",
    "option.misses_targets": "MISSES THE TARGETS: {missed:clauses}",
    "option.overloaded": (
        "{request_rate:g} requests/s overload it: requests arrive faster than its replicas finish them"
    ),
    "target.ttft": "TTFT p90 {ttft_s:ms} against the {target_s:ms} target",
    "target.tpot": "TPOT {tpot_s:ms} against the {target_s:ms} target",
    "serving.speculative_decoding": "speculative decoding is not modelled (one token per sequence per decode step)",
    "option.disaggregated": (
        "disaggregated: a prefill pool of {prefill_replicas} x TP {prefill_tp} sends each prompt's KV cache "
        "({transfer_s:ms}) to a decode pool of {decode_replicas} x TP {decode_tp} (the layout shown)"
    ),
    "advice.serving_targets_closest": (
        "No option meets the targets within {limit} GPUs: the closest are shown, closest first, each marked with "
        "what it misses."
    ),
    "advice.serving_targets_need_gpus": (
        "What would meet them: {gpus} x {gpu}, {replicas} replica(s) of TP {tp} x PP {pp} (planned and checked: "
        "TTFT p90 {ttft_s:ms}, TPOT {tpot_s:ms}, {tokens_per_s:,.0f} tokens/s)."
    ),
    "advice.serving_targets_unreachable": (
        "No number of GPUs meets them on {gpu}: the closest, TP {tp} x PP {pp}, reaches TTFT p90 {ttft_s:ms} and "
        "TPOT {tpot_s:ms}; a faster GPU, a smaller or quantised model, a shorter prompt or looser targets would "
        "be needed."
    ),
    # -- memory model notes (planner/memory/) ------------------------------------------------------------------
    "memory.kv_heads_replicated": (
        "tp {tp} exceeds the {kv_heads} KV heads: each KV head is replicated on {replicas} ranks"
    ),
    "memory.seq_beyond_context": "sequence length {seq_len} exceeds {model}'s context of {context} tokens",
    "memory.towers_not_counted": (
        "{model}'s vision tower and projector ({towers}: {params:number} parameters) are not in this plan; "
        "it covers the text decoder only"
    ),
    "memory.towers_size_unknown": (
        "{model}'s {towers} (size not read) are not in this plan; it covers the text decoder only"
    ),
    "memory.qlora_ignores_precision": (
        "QLoRA keeps the base in NF4 and computes in bf16; precision {precision} is not used"
    ),
    "memory.zero_with_one_rank": (
        "ZeRO stage {zero} with dp 1 shards nothing: there is only one data-parallel rank"
    ),
    "memory.zero_with_pipeline": (
        "ZeRO-{zero} with pipeline parallel: DeepSpeed's pipeline engine accepts ZeRO stage 0 or 1 only, and "
        "TorchTitan's FSDP keeps each stage's parameters whole between forward and backward under PP; these "
        "figures assume full ZeRO-{zero} sharding"
    ),
    "memory.kv_precision_training": "KV-cache precision only matters for inference",
    "memory.zero_inference": "ZeRO stages shard training state; ignored for inference",
    "memory.optimizer_offload_inference": "inference has no optimizer state to offload",
    "memory.recompute_inference": "activation recompute only matters for training",
    "memory.sequence_parallel_without_tp": "sequence parallel has no effect without tensor parallel",
    "memory.selective_with_flash": (
        "selective recompute saves nothing more with flash attention (no score matrix is stored)"
    ),
    "memory.inflight_without_pipeline": (
        "in-flight micro-batches only apply to pipeline parallel; with pp 1 one micro-batch is live"
    ),
    "memory.first_stage_fullest": (
        "figures are for the first pipeline stage (stage {stage} of {stages}), the fullest"
    ),
    "memory.last_stage_fullest": "figures are for the last pipeline stage (stage {stage} of {stages}), the fullest",
    "memory.offload_host_ram_optimizer": (
        "offload needs {host_bytes:gib2} of CPU RAM per GPU (optimizer offloaded to the host)"
    ),
    "memory.offload_host_ram_all": "offload needs {host_bytes:gib2} of CPU RAM per GPU (all offloaded to the host)",
    "memory.deepseek_without_mtp": (
        "DeepSeek-V3 counted without its 14B multi-token-prediction module (671B main model)"
    ),
    # -- mixed GPU pools (planner.search.pools): the ways to run one job and why the best wins -----------------
    "pool.name.alone": "{gpu} alone",
    "pool.name.pool": "the whole pool",
    "pool.name.pipeline": "the pipeline over the types",
    "pool.name.separate": "separate jobs",
    "pool.reason.only": "{way} is the only way that fits",
    "pool.reason.none_fits": "nothing fits on any type of the pool",
    "pool.reason.serving_only": "{way} is the only way that fits; {kept}",
    "pool.reason.serving_more": "{way} serves {ratio:.2f}x what {runner} does; {kept}",
    "pool.kept": "with its largest replica down it serves {tokens_per_s:,.0f} tokens/s",
    "pool.kept.enough": "with its largest replica down it serves {tokens_per_s:,.0f} tokens/s, enough for the target",
    "pool.kept.short": "with its largest replica down it serves {tokens_per_s:,.0f} tokens/s, short of the target",
    "pool.reason.faster": "{way} is {speedup:.2f}x faster than {runner}: {why}",
    "pool.reason.faster_by_percent": "{way} is {faster_percent:.1f}% faster than {runner}: {why}",
    "pool.why.pool": "the extra GPUs bring more than the gradient sync at the slower pace costs",
    "pool.why.pipeline": (
        "each type holds layers in proportion to its speed, so the slowest stage, the bubble "
        "({bubble_percent:.1f}% of the step) and the sends between types cost less than the runner-up's losses"
    ),
    "pool.why.alone_over_pool": (
        "the pool's common layout and gradient sync at the slower pace cost more than its extra GPUs bring; the "
        "other GPUs stay free for separate jobs"
    ),
    "pool.why.alone_over_pipeline": (
        "the pipeline's slowest stage, bubble and sends between types cost more than its extra GPUs bring; the "
        "other GPUs stay free for separate jobs"
    ),
    "pool.why.faster_type": "its GPUs run this job faster",
    "pool.way.pipeline": (
        "{stages} pipeline stages ({groups:clauses}) x dp {dp}, {microbatches} micro-batches per step: the "
        "slowest stage takes {pace_s:.3g} s per micro-batch, the bubble {bubble_percent:.1f}% of the step, a send "
        "between types {boundary_send_s:.3g} s at the slower link"
    ),
    "pool.way.stage_group": "{stages} x {gpu}, layers per stage: {layers}",
    "pool.way.stage_group_range": "{stages} x {gpu}, layers per stage: {fewest}-{most}",
    "pool.way.separate": (
        "each type runs its own job: together {aggregate_tokens_per_s:,.0f} tokens/s, but one run goes at its own "
        "job's pace, {tokens_per_s:,.0f} tokens/s on {gpu} alone; the other GPUs run other jobs"
    ),
    "pool.pipeline.no_shape": (
        "no pipeline over the types: no tensor-parallel size and pipeline copies give every type a stage within "
        "{limit} stages"
    ),
    "pool.pipeline.stage_too_big": (
        "no pipeline over the types fits: at best stage {stage} on {gpu} ({layers} layers) needs {need_bytes:bytes} "
        "per GPU, has {capacity_bytes:bytes} ({strategy:label})"
    ),
    "pool.pipeline.precision": "no pipeline over the types: {refusal}",
    # -- where a price and a measurement came from (planner/resolver.py) --------------------------------------
    "price.user_set": "{price}/GPU-hour, set by you",
    "price.mine_one": "your quote: {price}/GPU-hour",
    "price.reference_one": "reference quote: {price}/GPU-hour",
    "price.mine_median": "median of {count} of your on-demand quotes ({low} to {high}/GPU-hour)",
    "price.reference_median": "median of {count} reference on-demand quotes ({low} to {high}/GPU-hour)",
    "price.quote": "{provider}, {quote_kind}: {price}/GPU-hour, quoted {quoted_date}",
    "price.for_gpu": "price for {gpu_id}: {source}",
    "price.none": "no stored on-demand quote for {gpu_id}: no cost shown",
    "resolver.quote_gone": "quote {quote_id} is no longer in the database",
    "resolver.run_gone": "probe run {run_id} is no longer in the database",
    "resolver.run_without_gpu": "probe run {run_id} measured no GPU the catalog knows: it cannot plan",
})  # fmt: skip
