"""Structured planner messages: codes plus raw values, one English template table, English text unchanged.

Expected texts are written out by hand from the wording the planner has always printed (README examples and
the CLI), so a template edit that changes what `gpu-advisor plan` prints fails here.
"""

from __future__ import annotations

import string

import pytest

from planner.errors import UserError
from planner.layout_text import family_message
from planner.messages import TEMPLATES, Message, format_bytes, format_duration, msg, render_en
from planner.vocabulary import Layout

GIB = 2**30
TIB = 2**40


def test_bytes_and_names_render_in_the_cli_wording():
    reason = msg(
        "excluded.needs_memory", need_bytes=1.03 * TIB, capacity_bytes=80 * GIB, gpu="NVIDIA H100 SXM5 80GB"
    )
    assert reason.text == "needs 1.0 TiB per GPU, has 80 GiB on NVIDIA H100 SXM5 80GB"
    assert str(reason) == reason.text == render_en(reason)
    host = msg("memory.offload_host_ram_optimizer", host_bytes=19.71 * GIB)
    assert host.text == "offload needs 19.71 GiB of CPU RAM per GPU (optimizer offloaded to the host)"


def test_strategies_nested_messages_and_clauses():
    strategy = Layout(dp=32, tp=2, zero=3, offload="optimizer")
    excluded = msg(
        "excluded.needs_memory_layout",
        need_bytes=178 * GIB,
        strategy=strategy,
        gpus=64,
        capacity_bytes=80 * GIB,
        gpu="H100",
    )
    assert excluded.text == (
        "needs 178 GiB per GPU (ZeRO-3/FSDP + optimizer offload, TP 2, DP 32, micro-batch 1, 64 GPUs), "
        "has 80 GiB on H100"
    )
    ideas = (
        msg("idea.more_gpus", gpus=8, gpu="RTX 4090"),
        msg("idea.int4_fits_one_gpu", int4_bytes=20 * GIB),
    )
    advice = msg(
        "advice.serving_does_not_fit",
        model="Llama 3.1 70B",
        precision="bf16",
        where=msg("where.one_gpu", gpu="RTX 4090"),
        need_bytes=135 * GIB,
        capacity_bytes=24 * GIB,
        ideas=ideas,
    )
    assert advice.text == (
        "Llama 3.1 70B in bf16 does not fit one RTX 4090 (135 GiB needed per GPU, 24 GiB available). What would: "
        "more GPUs: at least 8 x RTX 4090 with tensor parallel; int4 weights (GPTQ/AWQ, about 4.25 bits): 20 GiB "
        "on one GPU, fits one GPU."
    )
    offload = msg("idea.offload_weights", streamed_bytes=111 * GIB, token_time_s=3.7004)
    assert offload.text.endswith("every token streams 111 GiB or more over PCIe, about 3.7 s per token")


def test_sentences_follow_the_first_one_with_a_space():
    from planner.money import Money

    none = msg("advice.limits_not_met", sentences=())
    assert none.text == "No option meets the deadline and budget."
    both = msg(
        "advice.limits_not_met",
        sentences=(
            msg("advice.fastest", wall_time_s=220 * 86400, gpus=64, gpu="H100"),
            msg("advice.cheapest", cost=Money(830334, "USD"), gpus=32, gpu="H100"),
        ),
    )
    assert both.text == (
        "No option meets the deadline and budget. Fastest: 220.0 days on 64 x H100. Cheapest: $830,334 on 32 x H100."
    )


@pytest.mark.parametrize(
    ("strategy", "family"),
    [
        (Layout(zero=0), "DDP"),
        (Layout(zero=1), "ZeRO-1"),
        (Layout(zero=2, offload="optimizer"), "ZeRO-2 + optimizer offload"),
        (Layout(zero=3), "ZeRO-3/FSDP"),
        (Layout(zero=3, offload="all"), "ZeRO-3/FSDP + all offload"),
    ],
)
def test_strategy_family_names_are_their_messages(strategy, family):
    assert family_message(strategy).text == family


def _sample(name: str, spec: str):
    """A value of the kind a placeholder expects (by its format spec and the unit in its name)."""
    if spec == "label":
        return Layout()
    if spec in ("clauses", "sentences", "list"):
        return (msg("family.ddp"), msg("family.zero", zero=1))
    if spec in ("bytes", "gib2") or name.endswith("_bytes"):
        return 3 * GIB
    if spec in ("days", "g", ".1f") or name.endswith("_s"):
        return 1.5
    return 2


def test_every_template_renders_with_values_of_its_kinds():
    for code, template in TEMPLATES.items():
        fields = [(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name]
        params = {name: _sample(name, spec) for name, spec in fields}
        text = Message(code, params).text
        assert "{" not in text and text.strip(), code


def test_messages_compare_by_value_and_refuse_unknown_codes():
    assert msg("where.one_gpu", gpu="A100") == msg("where.one_gpu", gpu="A100")
    assert msg("where.one_gpu", gpu="A100") != msg("where.one_gpu", gpu="H100")
    assert len({msg("family.ddp"), msg("family.ddp")}) == 1
    with pytest.raises(TypeError):
        msg("family.zero", zero=1).params["zero"] = 2  # frozen: params are read-only
    with pytest.raises(KeyError):
        msg("no.such.code")


def test_user_errors_carry_the_message_and_keep_the_english_line():
    from planner.models import get_preset
    from planner.search import Workload, plan

    with pytest.raises(UserError) as caught:
        plan(get_preset("llama-3.1-8b"), Workload(task="inference", seq_len=100), _h100())
    assert str(caught.value) == "the output length (256) must be shorter than the sequence length (100)"
    assert caught.value.message == msg("error.output_longer_than_sequence", output_len=256, seq_len=100)
    assert UserError("plain words").message is None


def _h100():
    from planner.gpus import get_gpu

    return [get_gpu("h100-sxm")]


def test_format_bytes_in_binary_units_and_in_one_unit_for_tables():
    assert format_bytes(1.5 * GIB) == "1.5 GiB" and format_bytes(512) == "512 B"
    # README's memory table: 4,306,149,632 B / 2**30 = 4.0105 GiB; one unit, two decimals, thousands separated
    assert format_bytes(4_306_149_632, unit="GiB", decimals=2) == "4.01 GiB"
    assert format_bytes(1234.5 * GIB, unit="GiB", decimals=1) == "1,234.5 GiB"


@pytest.mark.parametrize(
    ("seconds", "text"),
    [
        (0.044, "44.0 ms"),  # a decode step
        (20.74, "20.7 s"),  # a training step: three figures
        (600, "10.0 min"),
        (5400, "1.50 h"),  # 90 minutes read in hours, in reports and on the command line alike
        (2_567_866.8, "29.7 days"),  # README's 512-GPU 70B run: 2,567,866.8 s / 86,400
        (1e8, "1,157 days"),
        (None, "n/a"),
        (float("inf"), "n/a"),
    ],
)
def test_format_duration_is_the_one_rule(seconds, text):
    assert format_duration(seconds) == text


def test_rendering_writes_what_string_formatter_writes_for_every_template():
    """render_en renders from each template's parts parsed once; str.format's own machinery (Formatter.vformat
    with the planner's format specs) must write the same text for every template, values of every kind."""
    from planner.messages import EnglishFormatter, parse_template

    reference = EnglishFormatter()
    for code, template in TEMPLATES.items():
        fields = [(name, spec or "") for _, name, spec, _ in string.Formatter().parse(template) if name]
        params = {name: _sample(name, spec) for name, spec in fields}
        assert render_en(Message(code, params)) == reference.vformat(template, (), params), code
    # fields that are more than a plain name are left to vformat itself
    assert parse_template("{a.b} and {c[0]} and {d:{width}}") is None
    assert parse_template("{{literal}} {n:,} {t!r}") == (("{", None, "", None), ("literal}", None, "", None),
                                                   (" ", "n", ",", None), (" ", "t", "", "r"))  # fmt: skip


def test_rendering_keeps_str_format_conversions_and_missing_values():
    """!r quotes as repr does; a value the message lacks raises KeyError naming it, as str.format does."""
    text = msg("error.unknown_choice", what="task", text="trian", choices="pretrain, finetune").text
    assert text == "unknown task 'trian'; choose one of: pretrain, finetune"
    with pytest.raises(KeyError, match="gpus"):
        render_en(Message("error.too_many_gpus", {"limit": 3}))


def test_the_two_text_tables_split_the_codes_between_them():
    """TEMPLATES joins the error texts and the other texts: a code written into both would be shadowed silently,
    so the two tables must not share one, and every error.* code lives with the errors (which also hold the
    ledger's quote, CSV and file-kind codes)."""
    from planner.error_texts import ERROR_TEXTS
    from planner.message_texts import TEXTS

    assert not TEXTS.keys() & ERROR_TEXTS.keys()
    assert len(TEMPLATES) == len(TEXTS) + len(ERROR_TEXTS)
    assert not [code for code in TEXTS if code.startswith("error.")]


def test_a_gpu_count_says_its_noun_in_its_number():
    """English: "1 GPU", never "1 GPUs" (the plan of a model that fits no layout on one GPU said it twice)."""
    assert msg("where.exact_gpus", gpus=1).text == "1 GPU"
    assert msg("where.exact_gpus", gpus=1024).text == "1,024 GPUs"
    assert msg("where.up_to_gpus", gpus=1).text == "up to 1 GPU"
    divides = msg("excluded.no_layout_divides", gpus=1, model="Llama 2 70B", heads=64).text
    assert divides.startswith("no tp x pp x dp layout divides 1 GPU for Llama 2 70B")
    for code, template in TEMPLATES.items():
        assert "GPU(s)" not in template, code  # a count with its noun: {n:gpus}
