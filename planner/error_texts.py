"""English texts of the error codes a person can fix (planner.errors.UserError.message) and of the ledger's
(planner/store) errors; planner.messages.TEMPLATES joins them with planner.message_texts. The format spec
language is planner.messages' (render_en); desktop/message_templates.py holds the translated twin of each."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

ERROR_TEXTS: Mapping[str, str] = MappingProxyType({
    # -- errors a person can fix (planner.errors.UserError.message) -------------------------------------------
    "error.unknown_choice": "unknown {what} {text!r}; choose one of: {choices}",
    "error.zero_stage": "ZeRO stage must be 0, 1, 2 or 3, got {value!r}",
    "error.runtime_refused": "the {runtime} runtime cannot run this layout: {reason}",
    "error.runtime_refuses_task": "the {runtime} runtime cannot run {task} training: {reason}",
    "error.no_runtime": "no runtime runs this training layout ({reasons})",
    "error.must_be_whole": "{what} must be a whole number, got {value!r}",
    "error.must_be_positive": "{what} must be positive, got {value:number}",
    "error.must_be_finite": "{what} must be a finite number, got {value}",
    "error.absurdly_large": "{what} {value:number} is absurdly large (limit {limit:number})",
    "error.not_a_number": "{what} must be a number, got {value!r}",
    "error.number_too_long": "{what} is {chars} characters long; a number here has at most {limit}",
    "error.out_of_range": "{what} must be from {low:number} to {high:number}, got {value:number}",
    "error.too_many_gpus": "dp x tp x pp = {gpus:,} GPUs is absurdly large (limit {limit:,})",
    "error.tp_heads": "tensor parallel {tp} does not divide the {heads} attention heads of {model}",
    "error.tp_kv_heads": (
        "tensor parallel {tp} does not divide the {kv_heads} KV heads of {model} (nor do the KV heads divide it, "
        "which would allow replicating them)"
    ),
    "error.pp_layers": "pipeline parallel {pp} is larger than the {layers} layers of {model}",
    "error.ep_dense": "expert parallel {ep} needs a mixture-of-experts model; {model} is dense",
    "error.ep_experts": "expert parallel {ep} does not divide the {experts} experts of {model}",
    "error.ep_dp_tp": (
        "expert parallel {ep} must divide dp x tp = {dp_tp} (expert-parallel ranks are carved out of the data- "
        "and tensor-parallel ranks)"
    ),
    "error.learned_positions": "sequence length {seq_len} exceeds {model}'s {context} learned positions",
    "error.full_training_int": (
        "full training in {precision} is not supported; use bf16/fp16/fp8/fp32, or --task qlora for a 4-bit base"
    ),
    "error.lora_no_targets": "LoRA needs at least one target module; choose from {choices}",
    "error.no_throughput_figure": "{gpu} has no {dtype} throughput figure",
    "error.mfu_range": "MFU must be between 0 and 1, got {mfu}",
    "error.bandwidth_fraction_range": "the bandwidth fraction must be between 0 and 1, got {fraction}",
    "error.comm_overlap_range": "the communication overlap must be between 0 and 1, got {overlap}",
    "error.batch_positive": "the batch must be at least one sequence",
    "error.must_not_be_negative": "{what} must not be negative",
    "error.spot_no_progress": "at {rate:g} reclaims per node-hour a job on {nodes} node(s) spends nearly all its "
    "time redoing lost work and restarting ({restart_s:,.0f} s each): spot cannot run it",
    "error.gpu_flag_empty": "--gpu needs a GPU id; see `gpu-advisor gpus`",
    "error.price_flags_both": "give either --price-per-gpu-hour or --price-from-quotes, not both",
    "error.nothing_to_export": "nothing to export: no option fits",
    "error.cannot_write_export": "cannot write the export to {directory}: {reason}",
    "error.spot_inputs_negative": (
        "spot interruption rate, restart overhead and checkpoint interval must not be negative"
    ),
    "error.run_cost_negative": "GPU-hours and the price per GPU-hour must not be negative",
    "error.rentbuy_gpus_large": "{gpus:,} GPUs is absurdly large (limit {limit:,})",
    "error.purchase_large": "the purchase price {price:g} is absurdly large (limit {limit:g})",
    "error.would_overwrite": "{path} exists; it was left unchanged: add --force to replace it, or choose another name",
    "error.export_would_overwrite": (
        "{folder} already holds {count} file(s) an export writes (such as {name}); they were left unchanged: add "
        "--force to replace them, or choose another folder"
    ),
    "error.value_too_large": "{what} {value:g} is absurdly large (limit {limit:g})",
    "error.power_range": (
        "the power per GPU must be between 0 and {limit:.0f} W (0 leaves electricity out), got {power:g} W"
    ),
    "error.pue_range": "PUE must be between {low:.1f} and {high:.1f} (facility power / IT power), got {pue:g}",
    "error.hours_per_day_range": "hours per day must be between 0 and 24",
    "error.days_per_week_range": "days per week must be between 0 and 7",
    "error.utilisation_range": "utilisation must be between 0 and 1 (for example 0.6)",
    "error.horizon_range": "the horizon must be between 1 and 240 months",
    "error.resale_range": "the resale fraction must be between 0 and 1",
    "error.hybrid_range": "hybrid owned GPUs must be between 0 and the number of GPUs",
    "error.hybrid_whole_groups": "hybrid owned GPUs must be whole groups of {job_gpus} (the GPUs one job needs at once)",
    "error.job_gpus_range": "a job of {job_gpus:gpus} must need between 1 and the {gpus:gpus} compared",
    "error.runs_positive": "the job's GPU-hours and its runs per month must be positive",
    "error.runs_do_not_fit": "{runs:g} runs a month do not fit the schedule of {gpus:gpus}: at most {fit} do",
    "error.optimizer_offload_zero": "optimizer offload needs ZeRO stage 1, 2 or 3 (DeepSpeed offload_optimizer)",
    "error.param_offload_zero3": (
        "offloading parameters needs ZeRO stage 3 / FSDP full shard (DeepSpeed offload_param)"
    ),
    "error.seq_and_batch_positive": "sequence length and batch must be at least 1",
    "error.tokens_positive": "the number of tokens must be positive",
    "error.tokens_per_s_positive": "the tokens-per-second target must be positive",
    "error.users_positive": "concurrent users must be at least 1",
    "error.users_or_rate": "give concurrent users or a request rate, not both",
    "error.output_longer_than_sequence": (
        "the output length ({output_len}) must be shorter than the sequence length ({seq_len})"
    ),
    "error.gpus_positive": "the number of GPUs must be at least 1",
    "error.max_gpus_positive": "the maximum number of GPUs must be at least 1",
    "error.deadline_positive": "the deadline must be positive",
    "error.headroom_range": "the memory headroom must be between 0 and {limit:.0%} of each GPU's memory, got {headroom:g}",
    "error.cannot_pin": "cannot pin {fields}; pin one of: {choices}",
    "error.top_positive": "--top must be at least 1",
    "error.chosen_hardware_unplannable": (
        "nothing to plan on: {reasons:clauses}; choose a GPU of the catalog (gpu-advisor gpus lists them) or "
        "add this GPU as your own GPU type"
    ),
    "error.no_gpu_type": "choose at least one GPU type",
    "error.no_hardware_chosen": "choose at least one GPU type, machine or quote to plan on",
    "error.budget_currency": "the budget is in {budget_currency} but prices are in {price_currency}; convert first",
    "error.no_model": "no model given: name a preset, a size such as 7b, a config.json or a model folder",
    "error.no_such_path": "no such file or folder: {path}",
    "error.no_such_path_hub_id": (
        "no such file or folder: {path} (a Hugging Face model id? GPU Advisor works offline: download its "
        "config.json and give its path)"
    ),
    "error.unknown_model": (
        "unknown model {text!r}: not a preset ({presets}), a size such as 7b, a config.json or a model folder"
    ),
    "error.spec_positive": "{where}: {field} must be a positive integer, got {value!r}",
    "error.spec_negative": "{where}: {field} must not be negative, got {value}",
    "error.spec_gqa": "{where}: {heads} attention heads are not a multiple of {kv_heads} KV heads",
    "error.spec_norm": "{where}: norm must be rmsnorm or layernorm, got {norm!r}",
    "error.spec_experts_per_token": "{where}: experts_per_token must be between 1 and {experts}",
    "error.spec_moe_ffn": "{where}: moe_ffn (expert intermediate size) must be positive",
    "error.spec_dense_layers": "{where}: dense_layers ({dense_layers}) must be fewer than layers ({layers})",
    "error.spec_mla": "{where}: MLA needs positive v_head_dim and qk head dims",
    "error.spec_layer_types": "{where}: layer_types lists {kinds} layers but the model has {layers}",
    "error.spec_layer_kind": "{where}: layer kind {kind!r} is unknown or lacks its window",
    "error.config_remote_code": (
        "{path}: model_type {model_type!r} names its own code (auto_map); code from a model folder is never run, "
        "so this model cannot be read"
    ),
    "error.unknown_preset": "unknown model preset {name!r}; presets: {presets}",
    "error.size_not_number": "model size must be a number of billions, got {billions!r}",
    "error.size_range": "model size {billions:g}B is outside {low:g}B..{high:g}B",
    "error.size_too_small": "model size {billions:g}B is too small for a Llama-like shape",
    "error.config_missing_key": "{path}: missing key {key!r} (needed for model_type {model_type})",
    "error.config_key_int": "{path}: key {key!r} must be a positive integer, got {value!r}",
    "error.config_key_bool": "{path}: key {key!r} must be true or false, got {value!r}",
    "error.config_too_large": "{path}: {size} bytes is too large for a config.json",
    "error.file_missing": "{path}: no such file",
    "error.cannot_read": "{path}: cannot read ({kind}: {reason})",
    "error.config_bad_json": "{path}: malformed JSON ({reason} at line {line})",
    "error.config_not_object": "{path}: expected a JSON object, got {kind}",
    "error.config_no_model_type": "{path}: missing key 'model_type'",
    "error.config_model_type": "{path}: model_type {model_type!r} is not supported; supported: {supported}",
    "error.config_mlp_only_layers": "{path}: key 'mlp_only_layers' must be a list of layer numbers",
    "error.imported_size": (
        "{where}: model size {billions:.3g}B parameters is outside {low:g}B..{high:g}B; check the sizes in the file"
    ),
    "error.trace_needs_config": (
        "{model}: a trace builds the model from its config.json; give a config.json or a model folder"
    ),
    "error.trace_too_deep": (
        "a trace of {layers} decoder layers would take too long (about 1 s per layer); it runs at most "
        "{limit}, as deep as the deepest published model (Llama 3.1 405B: 126): use the analytic figures"
    ),
    "error.trace_task": "a trace runs pretrain, finetune, lora or inference, not {task} (QLoRA's 4-bit kernels need CUDA)",
    "error.trace_layout": "a LoRA trace covers data, pipeline and expert parallel; LoRA is not traced under tensor parallel",
    "error.trace_failed": "the memory trace failed: {reason}",
    "error.safetensors_short": "{path}: not a safetensors file (shorter than its 8-byte header length)",
    "error.safetensors_header": "{path}: header length {header} bytes is absurd for a {size}-byte file",
    "error.safetensors_not_json": "{path}: malformed safetensors header (not JSON)",
    "error.safetensors_not_object": "{path}: malformed safetensors header (not a JSON object)",
    "error.safetensors_shape": "{path}: tensor {tensor!r} has no valid 'shape' in the header",
    "error.not_a_folder": "{path}: not a folder",
    "error.no_gpu_given": "no GPU given; see `gpu-advisor gpus` for the ids",
    "error.unknown_gpu": "unknown GPU {text!r}; see `gpu-advisor gpus`",
    "error.unknown_gpu_close": "unknown GPU {text!r} (did you mean: {ids}?); see `gpu-advisor gpus`",
    "error.gpu_type_sizes": "a GPU type needs a positive memory size and memory bandwidth",
    "error.gpu_type_dtypes": "unknown dtype(s) {dtypes} in TFLOPS; use {choices}",
    "error.gpu_type_tflops": "a GPU type needs at least one TFLOPS figure (for example bf16)",
    "error.currency_code": "{code!r} is not a currency code; use a 3-letter code such as USD, EUR or RUB",
    "error.currency_mismatch": "cannot add {other} to {currency} without converting first",
    "error.rate_positive": "the exchange rate for {code} must be a positive number, got {rate}",
    "error.no_rate_for_default": (
        "no exchange rate for USD->{currency} to convert {what}; set one in Settings (or give {flag} in {currency})"
    ),
    "error.no_reference_price": "give --purchase-per-gpu: the catalog has no reference price for {gpu}",
    "error.years_at_least_a_month": "--years must be at least one month (0.1)",
    "error.no_exchange_rate": "no exchange rate for {source}->{target}; set one in Settings",
    # -- ledger (planner/store) errors ---------------------------------------------------------------------
    # what a stored quote is called inside other messages
    "store.rental_quote": "rental quote",
    "store.purchase_quote": "purchase quote",
    "store.rental_quotes": "rental quotes",
    "store.purchase_quotes": "purchase quotes",
    # why one quote (a form, a CSV row) is refused
    "quote.gpu_lookalike": "gpu: unknown GPU {text!r} (did you mean {hint}?)",
    "quote.gpu_refused": "gpu: {reason}",
    "quote.ambiguous_number": (
        "{field} {value} is ambiguous: the comma may separate thousands or mark decimals; write 1000 or 1.000 "
        "(or 1,000.00)"
    ),
    "quote.not_a_number": "{field} must be a number, got {value}",
    "quote.not_finite": "{field} must be a finite number, got {value}",
    "quote.not_positive": "{field} must be > 0",
    "quote.negative": "{field} must be >= 0",
    "quote.above_limit": "{field} must be at most {limit:,.0f}, got {value}",
    "quote.above_limit_w": "{field} must be at most {limit:,.0f} W, got {value}",
    "quote.above_limit_per_gpu": "{field} must be at most {limit:,.0f} ({per_gpu_limit:,.0f} per GPU), got {value}",
    "quote.gpu_count": "{field} must be a whole number between 1 and {limit:,}, got {value}",
    "quote.not_a_date": "{field} must be a date YYYY-MM-DD, got {value!r}",
    "quote.date_empty": "{field} must be a date YYYY-MM-DD (it is empty)",
    "quote.bad_currency": "currency must be one of {choices} or another 3-letter ISO code, got {value!r}",
    "quote.currency_required": "currency is required ({choices} or another 3-letter ISO code)",
    "quote.bad_choice": "{field} must be one of {choices}, got {value!r}",
    "quote.bad_choice_or_empty": "{field} must be one of {choices} or empty, got {value!r}",
    "quote.too_long": "{field} is longer than {limit} characters",
    "quote.required": "{field} is required",
    "quote.price_required": "price_per_gpu_hour or price_per_instance_hour is required",
    "quote.prices_disagree": (
        "price_per_instance_hour {per_instance:g} does not match price_per_gpu_hour {per_gpu:g} x {gpus:gpus} = "
        "{expected:g} (they must agree within 1%)"
    ),
    "quote.unusable_price": "{field} works out to {price}, which is not a usable price",
    "quote.valid_before_quoted": "valid_until must not be before quoted_on",
    "quote.overhead_range": "server_overhead_fraction must be between 0 and 10 (0.3 means +30%)",
    "quote.rate_positive": "the exchange rate must be a number > 0",
    # quote CSV files: one row, the header
    "csv.row_width": "{cells} cells but the header has {columns} columns",
    "csv.duplicate_of_row": "duplicate of row {row}",
    "csv.duplicate_of_quote": "duplicate of {label} #{quote_id}",
    "csv.missing_columns": "missing columns: {columns}",
    "csv.unknown_columns": "unknown columns: {columns}",
    "csv.repeated_columns": "repeated columns: {columns}",
    "csv.missing_price_column": "missing columns: price_per_gpu_hour or price_per_instance_hour",
    "error.csv_header": "{name}: {problems:clauses} (expected columns: {columns})",
    "error.csv_empty": "{name} is empty: expected a header row naming the columns {columns}",
    "error.csv_unreadable": "{name}: not a readable CSV file near line {line}: {detail}",
    "error.csv_no_rows": "{name} has a header but no {quotes}",
    "error.csv_is_folder": "{path} is a folder, not a CSV file",
    "error.csv_too_big": "{name} is {size} bytes; the limit for a quote file is {limit} bytes",
    "error.csv_not_utf8": (
        "{name} is not UTF-8 text (byte {byte} on line {line}); save it as 'CSV UTF-8' and import it again"
    ),
    "error.file_unreadable": "{path}: cannot read it ({reason})",
    "error.os": "{path}: {reason}",
    "error.argument_not_utf8": "argument {position} ({text}) is not UTF-8 text; type it again in UTF-8 (or rename the file)",
    "error.option_value_double_dash": "{option}=--: '--' cannot be the value of {option}; give another value",
    "file_kind.folder": "a folder",
    "file_kind.fifo": "a FIFO (named pipe)",
    "file_kind.device": "a device",
    "file_kind.socket": "a socket",
    "file_kind.special": "a special file",
    "error.not_regular_file": "{path} is {kind}, not a regular file; give the path of an ordinary file",
    "error.file_too_large": "{path} is {size} bytes; the limit is {limit} bytes",
    "error.cannot_write": "cannot write {path}: {reason}",
    "error.export_is_database": "{path} is the database in use; choose another file for the export",
    "error.import_refused": (
        "{file} refused: {bad} bad row(s) of {total}; nothing was imported (fix them, or use --skip-invalid to "
        "import the {good} good row(s)); row 1 is the header"
    ),
    # stored quotes
    "error.quote_invalid": "cannot store the {label}: {reasons:clauses}",
    "error.quote_duplicate": "this {label} is already stored as #{quote_id}",
    "error.quote_missing": "there is no {label} #{quote_id}",
    "error.quote_unknown_fields": "unknown {label} fields: {fields}",
    "error.quote_change_duplicate": "this change would make {label} #{quote_id} the same as #{existing}",
    "error.quote_reference_edit": (
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows "
        "can't be edited (hide them with --mine)"
    ),
    "error.quote_reference_delete": (
        "{label} #{quote_id} is a reference price shipped with GPU Advisor ({who}, {quoted_on}); reference rows "
        "can't be deleted (hide them with --mine)"
    ),
    # probe runs and reports
    "error.probe_label_too_long": "the machine label is {length:,} characters; the limit is {limit}",
    "error.probe_duplicate": "this probe report is already stored as run #{run_id}",
    "error.probe_run_missing": "there is no probe run #{run_id}",
    "error.report_unusable": "not a usable probe report: {detail}",
    "error.probe_cannot_start": "cannot start gpu-probe ({command}): {reason}",
    "error.probe_stalled": (
        "gpu-probe printed nothing for {seconds} s and was stopped, with every process it started; nothing "
        "was saved: run it again, or run gpu-probe --progress by hand to see where it stops"
    ),
    "error.probe_failed": "gpu-probe failed with exit code {exit_code}; nothing was saved",
    "error.probe_no_report": "gpu-probe finished without writing a report; nothing was saved",
    "error.report_target_folder": "cannot write {path}: it is a folder",
    "error.report_target_no_folder": "cannot write {path}: no such folder {folder}",
    # saved plans, settings, the user's GPU types
    "error.plan_name_empty": "a saved plan needs a name",
    "error.plan_name_too_long": "a plan name is limited to {limit} characters",
    "error.plan_missing": "there is no saved plan #{plan_id}",
    "error.rate_invalid": "{reasons:clauses}",
    "error.user_gpu_needs_id": "a GPU type needs an id, e.g. 'my-rtx-5090'",
    "error.user_gpu_in_catalog": "{gpu_id} is already in the GPU catalog; choose another id for your GPU type",
    "error.user_gpu_exists": "you already have a GPU type {gpu_id}",
    "error.user_gpu_missing": "there is no user GPU type {gpu_id}",
    "error.user_gpu_unknown_fields": "unknown GPU type fields: {fields}",
    "error.user_gpu_incomplete": "incomplete GPU type: {detail}",
    # the database file: opening it, and the machine it lives on (planner.store.errors.StoreEnvironmentError)
    "error.db_is_folder": "{path} is a folder; give the database file's path",
    "error.db_cannot_create_folder": "cannot create the folder {folder}: {reason}",
    "error.db_unreadable": "cannot read the database {path}: {reason}",
    "error.db_not_sqlite": (
        "{path} is not a GPU Advisor database (it is not an SQLite file); it was left unchanged: check the --db "
        "path or choose another file"
    ),
    "error.db_cannot_use": "cannot use the database {path}: {reason}; choose another file with --db",
    "error.db_cannot_move_aside": (
        "{path} is not a usable database and could not be moved aside ({reason}); choose another database file "
        "(--db PATH on the command line)"
    ),
    "error.db_newer": (
        "{path} was written by a newer GPU Advisor (database version {version}; this one reads up to {latest}); "
        "it was left unchanged: update GPU Advisor or choose another file with --db"
    ),
    "error.db_foreign": (
        "{path} is an SQLite database of another program; it was left unchanged: choose another file with --db"
    ),
    "error.db_disk_full": "cannot write the database {path}: the disk is full ({detail}); free some space and try again",
    "error.db_read_only": (
        "cannot write the database {path}: the file or its folder is read-only ({detail}); choose a writable file "
        "with --db"
    ),
    "error.db_cannot_open": (
        "cannot open the database {path} ({detail}); check that its folder exists and may be written, or choose "
        "another file with --db"
    ),
    "error.db_corrupt": (
        "the database {path} is damaged ({detail}); start GPU Advisor again to move it aside and begin a fresh one"
    ),
    "error.db_locked": "the database {path} is locked by another program ({detail}); try again when it has finished",
    "error.db_busy": (
        "the database {path} is busy: another GPU Advisor window or command has been writing to it for over "
        "{waited_s:.0f} s; try again when it has finished"
    ),
    "error.db_io": "cannot use the database {path}: the system reported an error ({detail})",
    "error.db_bad_version": (
        "{path} says it has database version {version}, which no GPU Advisor writes; it was left unchanged: "
        "restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_table": (
        "{path} lacks the table {table} that database version {version} has (another tool changed it); it was "
        "left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_missing_column": (
        "{path} lacks the column {column} of the table {table} that database version {version} has (another "
        "tool changed it); it was left unchanged: restore it from a backup or choose another file with --db"
    ),
    "error.db_bad_cell": (
        "{path}: the column {column} of row {row} of the table {table} holds {found} where "
        "{expected} belongs (another tool wrote it); the file was left unchanged: correct or delete that row with an SQLite "
        'tool, e.g. sqlite3 {path} "DELETE FROM {table} WHERE rowid = {row}", or choose another file with '
        "--db"
    ),
    "error.db_bad_setting": (
        "{path}: the setting {key} holds a value GPU Advisor cannot read (another tool wrote it); the file was "
        "left unchanged: delete it with an SQLite tool, e.g. sqlite3 {path} \"DELETE FROM settings WHERE key = "
        "'{key}'\", and set it again"
    ),
    "error.db_cannot_upgrade": (
        "cannot upgrade {path} from database version {version} ({detail}): it holds tables of another "
        "version; it was left unchanged: restore it from a backup or choose another file with --db"
    ),
})  # fmt: skip
