"""Hypothesis strategies for hostile input: text, numbers, command lines, model files, quote CSVs, probe reports.

Every strategy mixes values a user would type (so inputs get past argparse into the code behind it) with
values nobody should: non-UTF-8 bytes (decoded the way Python decodes argv, os.fsdecode / surrogateescape),
control characters, formula cells, shell syntax, 5,000-digit numbers, NaN, infinities, 1e308, 1e-300.

Generated text never contains "/" or NUL, never starts with "~" and is never "." or "..": whatever a test uses
it for, a path it forms stays inside the sandbox folder the test runs in.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import struct
from dataclasses import dataclass

from hypothesis import strategies as st

# ------------------------------------------------------------------------------------------------- text

MARKER = "FUZZ_MARKER"  # the only thing an injected shell payload ever does: `touch FUZZ_MARKER` in the sandbox
HOSTILE_WORDS = (
    "--", "-", "-1", "--json", "=", "=1+1", "=HYPERLINK(\"x\")", "+7 495", "-5%", "@SUM(A1)", "'=x", "'quoted",
    "''", "'", "\"", "\\", "\\n", "$(touch FUZZ_MARKER)", "`touch FUZZ_MARKER`", "a;touch FUZZ_MARKER",
    "x\ntouch FUZZ_MARKER\n", "a\nb", "a\rb", "\t", " ", "  padded  ", "\u00a0", "\u202eevil", "\ufeffbom",
    "é", "ü" * 3, "日本語", "🚀", "İ", "ß", "null", "None", "[]", "{}", "NaN", "Infinity", "0x10", "%s%n",
    "{0}", "${HOME}", "*", "?", "[a-z]", "a" * 201, "b" * 2001, "c" * 300, "d" * 5000, "\x1b[31mred", "\x7f",
    # issue 30: a window title, a screen clear, the C1 CSI, a bell, a backspace over what was shown
    "\x1b]0;pwned\x07", "x\x1b[2J\x1b[H", "\x9b31mred", "\x07", "ok\x08\x08no",
)  # fmt: skip


def _safe(text: str) -> bool:
    return "/" not in text and "\x00" not in text and text not in (".", "..") and not text.startswith("~")


# Text as typed (no lone surrogates: those come from bytes below, as Python makes them from argv).
_typed = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="/\x00"), max_size=40)
# Arbitrary bytes, decoded the way Python decodes a command line it cannot read as UTF-8.
_bytes = st.binary(min_size=1, max_size=24).map(os.fsdecode)

hostile_text = st.one_of(st.sampled_from(HOSTILE_WORDS), _typed, _bytes).filter(_safe)


def text_or(*valid: str) -> st.SearchStrategy[str]:
    """Mostly one of the valid values (to get past the parser), sometimes hostile text."""
    return st.one_of(st.sampled_from(valid), st.sampled_from(valid), hostile_text) if valid else hostile_text


# ------------------------------------------------------------------------------------------------- numbers

EDGE_NUMBERS = (
    "0", "-0", "1", "2", "8", "-1", "-8", "1e308", "-1e308", "1e309", "1e-300", "5e-324", "nan", "NaN", "-nan",
    "inf", "-inf", "Infinity", "9" * 5000, "-" + "9" * 40, "99999999999999999999", "9223372036854775808",
    "4294967296", "0x10", "0o7", "1_000", "1,000", "1.000", "1 000", "2,99", "1.5", "1e3", " 7 ", "", "+3",
    "٣", "١٠", "0.0", "1e", "e5", "--", "0000000000008",
    # issue 30: 309 digits overflow a float, tiny positives divide by almost nothing (Infinity, ZeroDivision)
    "9" * 309, "1" + "0" * 308, "1e-9", "1.7e308", "4.9e-324", "1e-320", "0.000001",
)  # fmt: skip


def number_text(valid: tuple[str, ...] = ("1", "2", "4", "8")) -> st.SearchStrategy[str]:
    return st.one_of(
        st.sampled_from(valid),
        st.sampled_from(EDGE_NUMBERS),
        st.integers(min_value=-(10**30), max_value=10**30).map(str),
        st.floats(allow_nan=True, allow_infinity=True).map(repr),
        hostile_text,
    )


# ------------------------------------------------------------------------------------------------- command lines

GPU_IDS = ("h100-sxm", "a100-sxm-80gb", "rtx-4090", "l4", "mi300x", "b200", "v100-sxm2-32gb")
# Values by argparse dest, for options whose valid forms the parser alone does not say (free text, paths).
VALID_VALUES: dict[str, tuple[str, ...]] = {
    "model": ("7b", "0.5b", "llama-3.1-8b", "mixtral-8x7b", "deepseek-v3", "Llama 3.1 70B", "model", "config.json"),
    "gpu": (*GPU_IDS, "h100-sxm,rtx-4090", "local", "H100 SXM"),
    "currency": ("USD", "EUR", "RUB", "usd"),
    "kind": ("on-demand", "spot", "reserved-1y", "committed"),
    "interconnect": ("nvlink", "pcie", "infiniband", ""),
    "quoted_on": ("2026-01-01", "2026-09-10", "2026-02-30", "9999-12-31", "01/02/2026"),
    "valid_until": ("2026-12-31", "2025-01-01", ""),
    "lora_targets": ("q,k,v,o", "gate,up,down", "q,,k", "all"),
    "provider": ("RunPod", "Lambda", "'=cmd", "=1+1"), "vendor": ("Reseller", "@evil"),
    # Paths: names inside the sandbox (see tests/fuzz/sandbox.py), a missing one, an over-long one.
    "db": ("fuzz.sqlite", "second.sqlite", "quotes.csv", "notes.txt", "model", "x" * 300),
    "file": ("quotes.csv", "purchase.csv", "report.json", "missing.csv", "notes.txt", "model", "fuzz.sqlite",
             "x" * 300),
    "export": ("exports", "exports-2", "quotes.csv", "x" * 300),
    "report_file": ("probe.json", "model", "x" * 300),
}
NUMERIC_TEXT_DESTS = {"gpus_per_instance", "price_per_gpu_hour", "price_per_instance_hour", "min_term_hours",
                      "gpus", "price", "server_overhead_fraction", "power_w"}  # fmt: skip
JSON_DESTS = {"json", "json_output"}  # flags that make the command print JSON on stdout


@dataclass(frozen=True)
class Command:
    """One `gpu-advisor` subcommand as its argparse parser describes it."""

    words: tuple[str, ...]  # ("quotes", "add")
    parser: argparse.ArgumentParser

    @property
    def name(self) -> str:
        return " ".join(self.words)

    def options(self) -> list[argparse.Action]:
        return [a for a in self.parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]

    def positionals(self) -> list[argparse.Action]:
        return [a for a in self.parser._actions
                if not a.option_strings and not isinstance(a, argparse._SubParsersAction)]  # fmt: skip


def commands() -> list[Command]:
    """Every subcommand of the real parser (planner.cli.build_parser), nested ones included."""
    from planner.cli import build_parser

    found: list[Command] = []

    def walk(parser: argparse.ArgumentParser, words: tuple[str, ...]) -> None:
        subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
        if words and (not subs or not all(s.required for s in subs)):
            found.append(Command(words, parser))
        for sub in subs:
            for name, child in sub.choices.items():
                walk(child, (*words, name))

    walk(build_parser(), ())
    return found


def _valid_value(action: argparse.Action) -> st.SearchStrategy[str]:
    if action.choices is not None:
        return st.sampled_from([str(c) for c in action.choices])
    if action.type in (int, float) or action.dest in NUMERIC_TEXT_DESTS:
        return st.sampled_from(("1", "2", "4", "8", "16", "0.5", "2.5", "1000"))
    return st.sampled_from(VALID_VALUES.get(action.dest) or ("x", "RunPod", "a b"))


def _hostile_value(action: argparse.Action) -> st.SearchStrategy[str]:
    if action.type in (int, float) or action.dest in NUMERIC_TEXT_DESTS:
        return number_text()
    return hostile_text


@st.composite
def _option(draw, action: argparse.Action, hostile: bool) -> list[str]:
    name = draw(st.sampled_from(action.option_strings))
    if action.nargs == 0:
        return [name]
    value = draw(_hostile_value(action) if hostile else _valid_value(action))
    # "--opt=VALUE" and "--opt VALUE" parse differently (a VALUE starting with "-" is a new option in the second)
    return [f"{name}={value}"] if draw(st.booleans()) else [name, value]


@st.composite
def command_line(draw, command: Command) -> tuple[list[str], bool]:
    """(argv, prints JSON) for `command`: global options, the subcommand and some of its options, most with
    values a user would type and a few (none to three) hostile, so inputs reach the code behind the parser."""
    argv: list[str] = []
    if draw(st.integers(0, 4)) == 0:
        argv += ["--db", draw(text_or(*VALID_VALUES["db"]))]
    if draw(st.integers(0, 6)) == 0:
        argv += [f"--lang={draw(text_or('en', 'ru'))}"]
    argv += list(command.words)
    chosen = [a for a in command.options() if draw(st.integers(0, 9)) < (9 if a.required else 2)]
    positionals = command.positionals()
    hostile = set(draw(st.lists(st.integers(0, len(chosen) + len(positionals)), max_size=3)))
    wants_json = False
    for index, action in enumerate(chosen):
        argv += draw(_option(action, index in hostile))
        wants_json |= action.dest in JSON_DESTS and action.nargs == 0
    for index, action in enumerate(positionals, start=len(chosen)):
        if draw(st.integers(0, 19)):
            if index in hostile:
                value = draw(number_text() if action.type is int else hostile_text)
            else:
                value = draw(st.sampled_from(("1", "2", "16") if action.type is int else VALID_VALUES["file"]))
            argv += ["--", value] if value.startswith("-") and draw(st.booleans()) else [value]
    if draw(st.integers(0, 40)) == 0:
        extra = draw(st.sampled_from(("--help", "-h", "--version", "--", "extra")))
        argv.append(extra)
        wants_json &= extra not in ("--help", "-h", "--version")  # these print text and exit 0
    return argv, wants_json


# ------------------------------------------------------------------------------------------------- model files

LLAMA = {"model_type": "llama", "hidden_size": 4096, "num_hidden_layers": 32, "num_attention_heads": 32,
         "num_key_value_heads": 8, "intermediate_size": 14336, "vocab_size": 128256,
         "max_position_embeddings": 131072, "_name_or_path": "meta-llama/Llama-3.1-8B"}  # fmt: skip
BASE_CONFIGS = (
    LLAMA,
    {**LLAMA, "model_type": "mixtral", "num_local_experts": 8, "num_experts_per_tok": 2},
    {"model_type": "gpt2", "n_embd": 768, "n_head": 12, "n_layer": 12, "vocab_size": 50257, "n_positions": 1024},
    {"model_type": "qwen2_moe", "hidden_size": 2048, "num_hidden_layers": 24, "num_attention_heads": 16,
     "num_key_value_heads": 16, "intermediate_size": 5632, "vocab_size": 151936, "num_experts": 60,
     "num_experts_per_tok": 4, "moe_intermediate_size": 1408, "shared_expert_intermediate_size": 5632,
     "decoder_sparse_step": 1, "mlp_only_layers": []},
    {"model_type": "deepseek_v3", "hidden_size": 7168, "num_hidden_layers": 61, "num_attention_heads": 128,
     "intermediate_size": 18432, "vocab_size": 129280, "n_routed_experts": 256, "num_experts_per_tok": 8,
     "n_shared_experts": 1, "moe_intermediate_size": 2048, "first_k_dense_replace": 3, "moe_layer_freq": 1,
     "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_rope_head_dim": 64, "qk_nope_head_dim": 128,
     "v_head_dim": 128},
)  # fmt: skip


def _nested(depth: int) -> object:
    value: object = 1
    for _ in range(depth):
        value = {"a": value}
    return value


json_value = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-(10**20), 10**20), st.floats(allow_nan=False),
              hostile_text, st.sampled_from([0, -1, 10**30, 10**400, 1e308, 1e-300, 2**63, 2**64 + 1, 0.5])),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(hostile_text, inner, max_size=3)),
    max_leaves=8,
)  # fmt: skip


@st.composite
def config_json(draw) -> dict:
    """A config.json: one of the supported families with some keys removed, retyped or made absurd."""
    config = copy.deepcopy(draw(st.sampled_from(BASE_CONFIGS)))
    for _ in range(draw(st.integers(0, 2))):
        key = draw(st.sampled_from([*config, "_name_or_path", "model_type", "head_dim", "tie_word_embeddings"]))
        action = draw(st.integers(0, 3))
        if action == 0:
            config.pop(key, None)
        elif action == 1:
            config[key] = draw(json_value)
        else:  # a plausible-looking number: the shape checks and the size limit have to catch it
            config[key] = draw(st.sampled_from((0, 1, 2, 3, 7, 64, 4096, 10**6, 10**9, 10**12, 2**31, 10**19)))
    if draw(st.integers(0, 3)) == 0:
        config["_name_or_path"] = draw(hostile_text)
    return config


RAW_CONFIG_TEXTS = (
    "", "{", "[]", "null", "1", '"x"', "{}", '{"model_type": NaN}', '{"model_type": "llama",}',
    "\ufeff{}", '{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}",
    '{"a":' * 100_000 + "1" + "}" * 100_000, "[" * 100_000 + "]" * 100_000,
)  # fmt: skip


@st.composite
def config_bytes(draw) -> bytes:
    """config.json bytes: a generated config in some encoding, or raw hostile text."""
    if draw(st.integers(0, 4)) == 0:
        return draw(st.sampled_from(RAW_CONFIG_TEXTS)).encode()
    text = json.dumps(draw(config_json()), ensure_ascii=draw(st.booleans()))
    encoding = draw(st.sampled_from(("utf-8", "utf-8", "utf-8-sig", "utf-16", "latin-1")))
    return text.encode(encoding, errors="surrogatepass" if encoding.startswith("utf") else "replace")


SAFETENSORS_BASE = {"model.embed_tokens.weight": {"dtype": "BF16", "shape": [128256, 4096], "data_offsets": [0, 0]},
                    "__metadata__": {"format": "pt"}}  # fmt: skip


@st.composite
def safetensors_file(draw) -> bytes:
    """A .safetensors file's first bytes: the 8-byte header length and a JSON header (no tensor data)."""
    header = copy.deepcopy(SAFETENSORS_BASE)
    for index in range(draw(st.integers(0, 3))):
        header[f"t{index}"] = {"dtype": "F16", "shape": draw(st.one_of(
            st.lists(st.integers(1, 10**5), max_size=3), st.lists(st.integers(1, 10**5), max_size=3),
            st.lists(st.integers(-5, 10**6), max_size=4),
            st.lists(st.sampled_from([10**30, 2**63, 10**400, -1, 0, 1.5, "4096", None, [4096]]), max_size=3),
            json_value)), "data_offsets": [0, 0]}  # fmt: skip
    raw_choice = draw(st.integers(0, 5))
    if raw_choice == 0:
        body = draw(st.sampled_from((b"", b"{", b"[]", b"\xff\xfe", b'{"w": {"shape": [' + b"9" * 5000 + b"]}}",
                                     b'{"w": {"shape": ' + b"[" * 50_000 + b"]" * 50_000 + b"}}")))  # fmt: skip
    else:
        body = json.dumps(header).encode()
    length = draw(st.sampled_from((len(body), len(body), len(body) + 1, 0, 2**64 - 1, 100_000_001, 7)))
    return struct.pack("<Q", length) + body


# ------------------------------------------------------------------------------------------------- quote CSVs


@dataclass(frozen=True)
class Locale:
    """How a spreadsheet in some locale writes a CSV: the delimiter, the decimal mark, the thousands mark."""

    delimiter: str
    decimal: str
    thousands: str


LOCALES = (Locale(",", ".", ""), Locale(",", ".", ","), Locale(";", ",", ""), Locale(";", ",", "."),
           Locale(";", ",", " "), Locale(";", ".", ","), Locale("\t", ".", ""))  # fmt: skip


def format_number(value: float, locale: Locale, decimals: int) -> str:
    """`value` as that locale writes it, e.g. 1234.5 -> "1.234,50" for Locale(";", ",", ".")."""
    text = f"{value:,.{decimals}f}" if locale.thousands else f"{value:.{decimals}f}"
    return text.replace(",", "\0").replace(".", locale.decimal).replace("\0", locale.thousands)


@dataclass(frozen=True)
class QuoteRow:
    provider: str
    note: str
    price: float  # what the user meant, per GPU-hour
    price_text: str  # how the cell spells it
    gpu: str


@st.composite
def quote_rows(draw, locale: Locale, saved) -> list[QuoteRow]:
    """1-4 rows; `saved` maps text to what the file's encoding can hold (what the file then says)."""
    rows = []
    for index in range(draw(st.integers(1, 4))):
        price = draw(st.sampled_from((0.5, 2.99, 1000.0, 1234.5, 25000.0, 999999.0)))
        decimals = draw(st.sampled_from((0, 2)))
        if price != int(price):
            decimals = max(decimals, 2)
        rows.append(QuoteRow(
            provider=saved(f"p{index} " + draw(text_or("RunPod", "Lambda", "'=cmd", "'+7", "=SUM(A1)", "-x", "@x"))),
            note=saved(draw(text_or("", "example", "'-5% promo", "=HYPERLINK(\"x\")", "a;b,c\"d", "line\nbreak"))),
            price=price, price_text=format_number(price, locale, decimals),
            gpu=draw(st.sampled_from(("h100-sxm", "H100 SXM", "a100-sxm-80gb", "rtx-4090"))),
        ))  # fmt: skip
    return rows


@dataclass(frozen=True)
class QuoteFile:
    rows: tuple[QuoteRow, ...]
    locale: Locale
    data: bytes
    encoding: str


@st.composite
def quote_csv(draw) -> QuoteFile:
    """A rental quote CSV as a spreadsheet in some locale would save it, sometimes damaged."""
    import csv
    import io

    locale = draw(st.sampled_from(LOCALES))
    encoding = draw(st.sampled_from(("utf-8", "utf-8", "utf-8-sig", "utf-16", "cp1252", "latin-1")))
    errors = "surrogateescape" if encoding == "utf-8" else "replace"

    def saved(text: str) -> str:
        return text.encode(encoding, errors).decode(encoding, errors)

    rows = draw(quote_rows(locale, saved))
    header = ["provider", "gpu", "price_per_gpu_hour", "currency", "quoted_on", "note"]
    if draw(st.integers(0, 5)) == 0:
        header = [draw(st.sampled_from((h, h.upper(), f" {h} "))) for h in header]
    buffer = io.StringIO(newline="")
    terminator = draw(st.sampled_from(("\r\n", "\n")))
    quoting = draw(st.sampled_from((csv.QUOTE_MINIMAL, csv.QUOTE_ALL)))
    if terminator == "\n" and any("\r" in row.provider + row.note for row in rows):
        quoting = csv.QUOTE_ALL  # QUOTE_MINIMAL quotes only the terminator's characters: a bare \r would end the row
    writer = csv.writer(buffer, delimiter=locale.delimiter, lineterminator=terminator, quoting=quoting)
    writer.writerow(header)
    for row in rows:
        writer.writerow([row.provider, row.gpu, row.price_text, "USD", "2026-09-10", row.note])
    text = buffer.getvalue()
    damage = draw(st.integers(0, 7))
    if damage == 0:
        text += draw(hostile_text)
    elif damage == 1:
        text = text.replace(locale.delimiter, draw(st.sampled_from((",", ";", "\t", "|"))), 1)
    data = text.encode(encoding, errors=errors)
    if damage == 2:
        data += b"\xff\xfe\x00"
    return QuoteFile(tuple(rows), locale, data, encoding)


# ------------------------------------------------------------------------------------------------- probe reports


def base_report(devices: int = 1) -> dict:
    """A valid version-1 probe report of `devices` H100s (built with profiler.report's own helpers)."""
    from profiler.report import measurement_dict, new_report_dict

    machine = {"hostname": "rented-box", "os": "Linux", "cpu": "x86_64", "cpu_count": 8, "ram_bytes": 2**36,
               "python": "3.11.7", "torch": "2.13.0", "cuda": "12.4"}  # fmt: skip
    nvml = {"available": True, "reason": None, "driver_version": "550.54", "cuda_driver_version": "12.4",
            "gpus": [{"index": i, "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{i}"} for i in range(devices)]}
    entries = [{"device": f"cuda:{i}", "name": "NVIDIA H100 80GB HBM3", "uuid": f"GPU-{i}", "kind": "cuda",
                "measurements": [measurement_dict("matmul", dtype="bf16", value=7.9e14, method="fuzz"),
                                 measurement_dict("memory_bandwidth", value=2.9e12, method="fuzz")],
                "telemetry": [{"t_s": 0.1, "sm_clock_mhz": 1980.0}]} for i in range(devices)]  # fmt: skip
    return new_report_dict("quick", machine, nvml, entries, created_at="2026-09-14T10:31:02Z")


# Where a hostile value can go in a report: a path of keys / indices from the top.
REPORT_PATHS = (
    ("machine", "hostname"), ("machine", "cpu"), ("machine", "ram_bytes"), ("machine", "cpu_count"),
    ("nvml", "gpus", 0, "name"), ("nvml", "gpus", 0, "uuid"), ("nvml", "driver_version"),
    ("devices", 0, "name"), ("devices", 0, "uuid"), ("devices", 0, "device"),
    ("devices", 0, "measurements", 0, "value"), ("devices", 0, "measurements", 1, "value"),
    ("devices", 0, "measurements", 0, "duration_s"), ("devices", 0, "measurements", 0, "details"),
    ("devices", 0, "telemetry", 0, "sm_clock_mhz"), ("devices", 0, "telemetry", 0, "t_s"), ("created_at",),
    ("mode",), ("collectives",),
)  # fmt: skip
# Values of the type the schema wants at each kind of path, but absurd: the loader accepts them.
TYPED_HOSTILE = {
    "name": ("", "bo\udcffx", "\ud800", "a" * 1000, "x\ny", "NVIDIA H100 80GB HBM3\u202e", "$(touch FUZZ_MARKER)"),
    "number": (1e308, 1e-300, 5e-324, 0.0, 1e20, 1e-20, 10**4999, 2**63, 10**19),
}
TYPED_PATH_KIND = {"hostname": "name", "cpu": "name", "uuid": "name", "device": "name", "driver_version": "name",
                   "value": "number", "ram_bytes": "number", "cpu_count": "number", "duration_s": "number",
                   "sm_clock_mhz": "number", "t_s": "number"}  # fmt: skip
REPORT_VALUES = (
    None, "", {"unavailable": "x"}, {"name": "x"}, [], 0, -1, 1e308, 1e-300, 5e-324, 10**4999, 10**30, 2**63,
    "bo\udcffx", "\ud800", "a" * 1001, True, 1.5, "2026-13-45T99:99:99Z", _nested(50),
)  # fmt: skip


def set_path(data: dict, path: tuple, value: object) -> None:
    target = data
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


@st.composite
def hostile_report(draw) -> tuple[dict, str]:
    """(report, how it was damaged): a valid report with one to three fields set to hostile values."""
    report = base_report(draw(st.sampled_from((1, 1, 2, 8, 300))))
    changes = []
    for _ in range(draw(st.integers(1, 3))):
        path = draw(st.sampled_from(REPORT_PATHS))
        kind = TYPED_PATH_KIND.get(str(path[-1]), "name" if path[-1] == "name" else None)
        if kind and draw(st.integers(0, 2)):
            value = draw(st.sampled_from(TYPED_HOSTILE[kind]))
        else:
            value = draw(st.one_of(st.sampled_from(REPORT_VALUES), json_value))
        set_path(report, path, value)
        shown = f"<{value.bit_length()}-bit int>" if isinstance(value, int) and value > 10**100 else repr(value)[:40]
        changes.append(f"{'.'.join(map(str, path))}={shown}")
    return report, "; ".join(changes)


def report_bytes(report: dict, ascii_only: bool = True) -> bytes:
    """JSON text of a report; big integers written whole, lone surrogates as \\udcxx escapes."""
    import sys

    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(report, ensure_ascii=ascii_only).encode("utf-8", "surrogatepass")
    finally:
        sys.set_int_max_str_digits(limit)
