"""planner.exports: the six files written for a chosen plan option.

Expectations come from the tools' own documented rules, written out here:
- DeepSpeed config JSON (https://www.deepspeed.ai/docs/config-json/): train_batch_size must equal
  train_micro_batch_size_per_gpu x gradient_accumulation_steps x data-parallel size; zero_optimization.stage;
  offload_optimizer / offload_param take {"device": "cpu"}; offload_param only exists for stage 3;
  bf16.enabled / fp16.enabled.
- accelerate's config file (what `accelerate config` writes): distributed_type, num_machines, num_processes,
  mixed_precision, and an fsdp_config / deepspeed_config / megatron_lm_config section for that backend.
- torchrun: --nnodes and --nproc-per-node; processes = nodes x per node.
- PDF 1.4 (ISO 32000-1 section 7.5): header "%PDF-1.x", objects, an xref table whose byte offsets point at
  "N 0 obj", a trailer with /Size and /Root, "startxref" + the xref offset, and "%%EOF".
"""

from __future__ import annotations

import re
import struct
import zlib

from planner.exports import ExportInputs
from planner.exports.configs import accelerate_config, deepspeed_config
from planner.exports.launch import launch_script
from planner.exports.report import report_pdf
from planner.gpus import get_gpu
from planner.memory import MemoryConfig, estimate_memory
from planner.messages import msg
from planner.models import get_preset
from planner.money import Money
from planner.search import PlanOption, PlanResult
from planner.vocabulary import Layout

GIB = 2**30


def make_option(gpu_id: str, strategy: Layout, *, task="finetune", precision="bf16", grad_accum=1, nodes=None,
                seq_len=4096, cost=None, fits=True):  # fmt: skip
    """A PlanOption with a real memory breakdown (planner.memory) for the given layout."""
    gpu = get_gpu(gpu_id)
    model = get_preset("llama-3.1-70b")
    memory = estimate_memory(
        model, MemoryConfig(task=task, precision=precision, layout=strategy, seq_len=seq_len)
    )
    gpus = strategy.dp * strategy.tp * strategy.pp
    return PlanOption(
        gpu=gpu,
        gpus=gpus,
        layout=strategy,
        memory=memory,
        fits=fits,
        step_time_s=12.5,
        tokens_per_s=80_000.0,
        wall_time_s=25_000.0,
        gpu_hours=gpus * 25_000.0 / 3600,
        cost=cost,
        cost_per_million_tokens=None,
        confidence="catalog spec",
        precision=precision,
        nodes=nodes if nodes is not None else max(1, gpus // gpu.gpus_per_node),
        gradient_accumulation_steps=grad_accum,
    )


def result_of(*options) -> PlanResult:
    advice = (msg("advice.cheapest", cost=Money(1234.5, "USD"), gpus=64, gpu="H100 SXM"),)
    return PlanResult(options=tuple(options), excluded=(), search_ms=1.0, advice_messages=advice)


# ------------------------------------------------------------------------------------------ ds_config.json


def test_zero3_offload_config_has_documented_keys_and_consistent_batch():
    # 64 GPUs = dp 64; micro-batch 2; the planner chose 2 accumulation steps: 2 x 2 x 64 = 256 sequences.
    option = make_option("h100-sxm", Layout(dp=64, zero=3, offload="all", micro_batch=2, recompute="full"),
                         grad_accum=2)  # fmt: skip
    config = deepspeed_config(option, ExportInputs(task="finetune", precision="bf16"))
    assert config["train_micro_batch_size_per_gpu"] == 2
    assert config["gradient_accumulation_steps"] == 2
    assert config["train_batch_size"] == 256
    assert config["zero_optimization"]["stage"] == 3
    assert config["zero_optimization"]["offload_optimizer"]["device"] == "cpu"
    assert config["zero_optimization"]["offload_param"]["device"] == "cpu"
    assert config["bf16"] == {"enabled": True}
    assert config["fp16"] == {"enabled": False}


def test_zero2_has_no_parameter_offload_and_fp16_switches_precision():
    # DeepSpeed: offload_param is only valid with stage 3; with ZeRO-2 only the optimizer can move to the CPU.
    option = make_option(
        "a100-sxm-80gb", Layout(dp=8, zero=2, offload="optimizer", micro_batch=1), precision="fp16"
    )
    config = deepspeed_config(option, ExportInputs(task="finetune", precision="fp16"))
    assert config["zero_optimization"]["stage"] == 2
    assert config["zero_optimization"]["offload_optimizer"] == {"device": "cpu", "pin_memory": True}
    assert "offload_param" not in config["zero_optimization"]
    assert config["fp16"]["enabled"] is True and config["bf16"]["enabled"] is False


def test_gradient_accumulation_from_global_batch_when_the_option_has_none():
    # An option the training search did not time (no accumulation figure of its own): 1024 sequences over
    # dp 16 x micro-batch 4 = 64 per step -> 16 accumulation steps.
    option = make_option("h100-sxm", Layout(dp=16, zero=1, micro_batch=4), task="pretrain", grad_accum=None)
    config = deepspeed_config(option, ExportInputs(task="pretrain", global_batch=1024))
    assert config["gradient_accumulation_steps"] == 16
    assert config["train_batch_size"] == 4 * 16 * 16


# ---------------------------------------------------------------------------------- accelerate_config.yaml


def test_single_gpu_accelerate_is_no_distribution():
    option = make_option("h100-sxm", Layout(dp=1), task="lora")
    config = accelerate_config(option, ExportInputs(task="lora", precision="bf16"))
    assert config["distributed_type"] == "NO"
    assert (config["num_machines"], config["num_processes"]) == (1, 1)


# ------------------------------------------------------------------------------------------------ launch.sh


def test_serving_launch_uses_vllm_with_tensor_parallel():
    option = make_option("h100-sxm", Layout(tp=4), task="inference", nodes=1)
    script = launch_script(
        option, ExportInputs(task="inference", model="meta-llama/Llama-3.1-70B", seq_len=8192)
    )
    assert (
        "vllm serve" in script and "--tensor-parallel-size 4" in script and "--max-model-len 8192" in script
    )


# ------------------------------------------------------------------------------------- all six files, csv


# ------------------------------------------------------------------------------------------------ report.pdf


def parse_pdf(data: bytes) -> dict:
    """A structural check of a PDF without a PDF library: header, xref offsets, trailer, startxref, EOF."""
    assert data.startswith(b"%PDF-1.")
    assert data.rstrip().endswith(b"%%EOF")
    startxref = int(re.search(rb"startxref\s+(\d+)\s+%%EOF\s*$", data).group(1))
    assert data[startxref : startxref + 4] == b"xref"
    header = re.match(rb"xref\s+0 (\d+)\s+", data[startxref:])
    count = int(header.group(1))
    table = data[startxref + header.end() :].split(b"\n")[:count]
    assert table[0].startswith(b"0000000000 65535 f")
    for number, line in enumerate(table[1:], start=1):
        offset = int(line[:10])
        assert data[offset:].startswith(b"%d 0 obj" % number), f"xref entry {number} points elsewhere"
    trailer = data[data.index(b"trailer", startxref) :]
    assert b"/Size %d" % count in trailer and b"/Root" in trailer
    pages = re.findall(rb"/Type /Page\b", data)
    text = b""
    for match in re.finditer(rb"/Filter /FlateDecode >>\nstream\n", data):
        length = int(re.search(rb"/Length (\d+)", data[max(0, match.start() - 60) : match.start()]).group(1))
        text += zlib.decompress(data[match.end() : match.end() + length])
    return {"objects": count - 1, "pages": len(pages), "content": text}


def _rgb_png(width: int, height: int) -> bytes:
    raw = b"".join(b"\x00" + bytes([200, 30, 30]) * width for _ in range(height))

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
    )


def test_report_pdf_is_structurally_valid_and_carries_the_numbers():
    chosen = make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1))
    data = report_pdf(result_of(chosen), chosen, ExportInputs(task="finetune", model="Llama 3.1 70B"),
                      {"memory chart": _rgb_png(40, 20)})  # fmt: skip
    parsed = parse_pdf(data)
    assert parsed["pages"] >= 1
    assert b"GPU Advisor plan report" in parsed["content"]
    assert b"Memory per GPU" in parsed["content"]
    assert b"/Subtype /Image /Width 40 /Height 20" in data  # the chart went in as an image
    assert b"/Predictor 15" in data


def test_report_pdf_skips_images_pdf_cannot_show_directly():
    # An RGBA PNG (colour type 6) would need its alpha split off; the report keeps the text instead.
    rgba = _rgb_png(4, 4).replace(
        struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0), struct.pack(">IIBBBBB", 4, 4, 8, 6, 0, 0, 0)
    )
    chosen = make_option("h100-sxm", Layout(dp=8, zero=3, micro_batch=1))
    data = report_pdf(result_of(chosen), chosen, ExportInputs(task="finetune"), {"chart": rgba})
    assert b"/Subtype /Image" not in data
    parse_pdf(data)


def test_long_report_flows_onto_more_pages():
    options = [make_option("h100-sxm", Layout(dp=8 * (i + 1), zero=3, micro_batch=1)) for i in range(8)]
    result = PlanResult(
        options=tuple(options),
        excluded=(),
        search_ms=1.0,
        advice_messages=tuple(
            msg("advice.fastest", wall_time_s=86_400.0 * i, gpus=i + 1, gpu="H100") for i in range(80)
        ),
    )
    parsed = parse_pdf(report_pdf(result, options[0], ExportInputs(task="finetune")))
    assert parsed["pages"] >= 2


# ------------------------------------------------------------------------- the tools' own config schemas
# DeepSpeed 0.19.8 (sdist from PyPI, read for these sets; DeepSpeed is not a dependency). Its ZeRO, offload and
# tensor-parallel sections are pydantic models with extra="forbid" (deepspeed/runtime/config_utils.py), so an
# unknown key there stops training at start-up; the sets are the models' field names plus their aliases.
def test_pdf_tables_stay_inside_the_page_and_keep_every_column():
    # The ranked-options table has 11 columns; every header must start and (at the widest glyph, 1 em per
    # character: an upper bound for Helvetica-Bold) end inside the right margin of an A4 page (595 pt, 48 pt margin).
    options = [make_option("h100-sxm", Layout(dp=8 * (i + 1), zero=3, offload="optimizer", micro_batch=1),
                           cost=Money(1234.5 + i, "USD")) for i in range(3)]  # fmt: skip
    data = report_pdf(result_of(*options), options[0], ExportInputs(task="finetune", model="Llama 3.1 70B"))
    content = parse_pdf(data)["content"].decode("latin-1")
    runs = [(float(x), float(size), text) for size, x, _y, text in
            re.findall(r"/F\d ([\d.]+) Tf ([\d.]+) ([\d.]+) Td \((.*?)\) Tj", content)]  # fmt: skip
    assert runs and all(48 - 0.1 <= x <= 595 - 48 for x, _, _ in runs)
    header = (
        "#",
        "GPU",
        "Count",
        "Strategy",
        "Fits",
        "Mem/GPU",
        "Time",
        "GPU-hours",
        "Cost",
        "Per 1M tok",
        "Conf.",
    )
    drawn = {text: (x, size) for x, size, text in runs if text in header}
    assert set(drawn) == set(header)
    for text, (x, size) in drawn.items():
        assert x + len(text) * size <= 595 - 48 + 0.5, text
    for amount in ("1,234.50 USD", "1,235.50 USD", "1,236.50 USD"):  # the Cost column of each row
        assert amount in content


def test_pdf_text_outside_winansi_gets_readable_stand_ins():
    from planner.exports.pdf import pdf_safe

    assert pdf_safe("≈ 3.25 ₽") == "~ 3.25 RUB"
    assert pdf_safe("Модель 70B") == "Model 70B"
    assert pdf_safe("ZeRO-3 × 64 — fits") == "ZeRO-3 × 64 — fits"  # both are WinAnsi characters


# ------------------------------------------------------------------------------------------------ error bands


def test_report_shows_the_chosen_options_own_error_band_beside_its_figures():
    """Hand-built bands: the chosen option's time band -12% .. +15% over 23 runs applies to its step time, wall
    time, GPU-hours and cost; its throughput scales with 1 / time: 1/1.15 - 1 = -13%, 1/0.88 - 1 = +14%.
    Another option's band (-30% .. +40%, 5 runs) must not be what the chosen option shows."""
    import dataclasses

    from planner.exports.report import report_markdown
    from planner.uncertainty import ErrorBand

    chosen = dataclasses.replace(
        make_option("h100-sxm", Layout(dp=64, zero=3, micro_batch=1), cost=Money(12_345.0, "USD")),
        time_band=ErrorBand(-0.12, 0.15, 23, "training/hopper/multi-node"),
    )
    other = dataclasses.replace(
        make_option("a100-sxm-80gb", Layout(dp=64, zero=3, micro_batch=1)),
        time_band=ErrorBand(-0.30, 0.40, 5, "training/ampere/multi-node"),
    )
    report = report_markdown(result_of(other, chosen), chosen, ExportInputs(task="finetune", model="Llama"))
    rows = {line.split("|")[1].strip(): line.split("|")[2].strip() for line in report.splitlines()
            if line.startswith("| ") and line.count("|") == 3}  # fmt: skip
    own = "(-12% .. +15%, from 23 published runs)"
    for item in ("Step time", "Wall time", "GPU-hours", "Cost"):
        assert rows[item].endswith(own), (item, rows[item])
    assert rows["Step time"].startswith("12.5 s")
    assert rows["Throughput"] == "80,000 tokens/s (-13% .. +14%, from 23 published runs)"
    assert rows["Cost per 1M tokens"] == "no price"  # no figure, so no band
    assert "from 5 published runs" not in report


def test_report_without_a_band_shows_the_figures_alone():
    from planner.exports.report import report_markdown

    option = make_option("h100-sxm", Layout(dp=8, zero=3, micro_batch=1))
    report = report_markdown(result_of(option), option, ExportInputs(task="finetune", model="Llama"))
    assert "published runs" not in report
