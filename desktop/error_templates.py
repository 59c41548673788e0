"""The Russian-translatable twins of the planner's error texts (planner.error_texts: the errors a person can fix
and the ledger's errors), one QT_TRANSLATE_NOOP per code in the PlannerMessages context; desktop.message_templates
joins them with the rest (assets/i18n/gpu_advisor_ru.ts holds the Russian)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import cast

from PySide6 import QtCore

# Qt's marker for pyside6-lupdate (it finds the calls by this name), typed: it returns its text unchanged.
QT_TRANSLATE_NOOP = cast("Callable[[str, str], str]", QtCore.QT_TRANSLATE_NOOP)

ERROR_TEMPLATES: Mapping[str, object] = {  # QT_TRANSLATE_NOOP returns its text (typed object by the stubs)
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
    # -- ledger (planner/store) errors: planner/error_texts.py's block of the same name, same order ---------
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
    # more errors a person can fix
    "error.unknown_choice": QT_TRANSLATE_NOOP("PlannerMessages", "unknown {what} {text}; choose one of: {choices}"),
    "error.zero_stage": QT_TRANSLATE_NOOP("PlannerMessages", "ZeRO stage must be 0, 1, 2 or 3, got {value}"),
    "error.runtime_refused": QT_TRANSLATE_NOOP("PlannerMessages", "the {runtime} runtime cannot run this layout: {reason}"),
    "error.runtime_refuses_task": QT_TRANSLATE_NOOP("PlannerMessages", "the {runtime} runtime cannot run {task} training: {reason}"),
    "error.no_runtime": QT_TRANSLATE_NOOP("PlannerMessages", "no runtime runs this training layout ({reasons})"),
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
