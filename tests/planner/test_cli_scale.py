"""The goodput term and spot capacity on the command line: `plan` (text and --json), `quotes add`, `rentbuy`."""

from __future__ import annotations

import json
import math

import pytest

from planner.cli import main

LLAMA3 = ("plan", "--model", "llama-3.1-405b", "--gpu", "h100-sxm", "--gpus", "16384", "--seq-len", "8192",
          "--batch", "2048", "--tokens", "15.6e12", "--price-per-gpu-hour", "2", "--spec-only", "--top", "1")  # fmt: skip
SMALL = ("plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "64", "--tokens", "1e11", "--spec-only",
         "--top", "1")  # fmt: skip


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def run_json(capsys, *argv: str) -> dict:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_plan_json_has_the_goodput_term_of_the_llama3_run(capsys):
    option = run_json(capsys, *LLAMA3)["options"][0]
    term = option["goodput"]
    assert 0.87 <= term["effective_fraction"] <= 0.95  # Llama 3: "over 90 %" effective training time
    assert term["interruptions_per_hour"] * 54 * 24 == pytest.approx(419, rel=0.2)  # 419 in 54 days
    assert term["checkpoint_storage"] == "pfs" and term["checkpoint_interval_basis"] == "Daly optimum"
    assert term["restart_s"] == pytest.approx(900 + term["checkpoint_write_s"])
    assert term["wall_time_s"] == pytest.approx(option["wall_time_s"] / term["effective_fraction"])
    assert term["gpu_hours"] == pytest.approx(option["gpu_hours"] / term["effective_fraction"])
    assert term["cost"]["amount"] == pytest.approx(term["gpu_hours"] * 2)  # every lost hour is billed
    assert sum(term["lost_shares"].values()) == pytest.approx(1 - term["effective_fraction"])
    # what the whole-run figures count, and what they do not (the CLI's line under the goodput term)
    assert "failures" in term["whole_run"]["counts"] and "evaluation" in term["whole_run"]["not_counted"]
    # the failure-free figures keep their meaning: training tokens / throughput
    assert option["wall_time_s"] == pytest.approx(15.6e12 / option["tokens_per_s"])


def test_plan_text_shows_the_goodput_lines(capsys):
    code, out, _ = run(capsys, *LLAMA3)
    assert code == 0
    assert "goodput 9" in out and "effective time" in out and "interruptions expected" in out
    # what the whole-run figure counts and what it does not (a model card's total GPU time counts more)
    assert "the run with losses counts: the steady steps" in out and "not counted: evaluation" in out
    assert "(Daly optimum)" in out and "restart 15.0 min" in out


def test_failure_flags(capsys):
    assert run_json(capsys, *SMALL, "--failures-per-million-gpu-hours", "0")["options"][0]["goodput"] is None
    option = run_json(capsys, *SMALL, "--failures-per-million-gpu-hours", "1000", "--restart-minutes", "30",
                      "--checkpoint-interval-minutes", "20", "--checkpoint-storage", "nvme")["options"][0]  # fmt: skip
    term, strategy = option["goodput"], option["strategy"]
    assert term["failures_per_hour"] == pytest.approx(64 * 1000 / 1e6)
    assert term["restart_s"] == 1800 and term["checkpoint_interval_s"] == 1200
    assert term["checkpoint_interval_basis"] == "user-set" and term["checkpoint_storage"] == "nvme"
    # 8B x the bytes its training holds per parameter, over 64 GPUs x 3.5 GB/s: FSDP2 / autocast keep fp32
    # weights + AdamW m, v (4 + 8); Megatron-style tensor/pipeline parallel with ZeRO-0/1 bf16 weights + fp32
    # master + m, v (2 + 12)
    megatron = (strategy["tp"] > 1 or strategy["pp"] > 1) and strategy["zero"] <= 1
    per_param = 14 if megatron else 12
    assert term["checkpoint_write_s"] == pytest.approx(8.03e9 * per_param / (64 * 3.5e9), rel=0.01)


@pytest.mark.parametrize("flag", ["--failures-per-million-gpu-hours", "--restart-minutes",
                                  "--spot-interruptions-per-node-hour", "--checkpoint-gb-per-s"])  # fmt: skip
def test_negative_failure_figures_are_one_line_errors(capsys, flag):
    code, out, err = run(capsys, *SMALL, flag, "-1")
    assert code == 2 and not out
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_spot_from_quotes_uses_the_quoted_rate_and_compares_with_on_demand(capsys):
    base = ("quotes", "add", "--provider", "Cloud", "--gpu", "h100-sxm", "--gpus-per-instance", "8",
            "--quoted-on", "2026-11-01")  # fmt: skip
    # below every shipped reference quote (the lowest H100 on-demand reference is 1.30 USD), so these are chosen
    assert run(capsys, *base, "--price", "1.00", "--kind", "on-demand")[0] == 0
    added = run_json(capsys, *base, "--price", "0.50", "--kind", "spot", "--interruptions-per-hour", "0.02")
    assert added["interruptions_per_hour"] == 0.02
    payload = run_json(capsys, "plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "64",
                       "--tokens", "1e11", "--spec-only", "--top", "1", "--price-from-quotes", "--spot")  # fmt: skip
    option = payload["options"][0]
    assert option["cost"]["amount"] == pytest.approx(option["gpu_hours"] * 0.50)  # the spot price
    assert option["goodput"]["spot_interruptions_per_hour"] == pytest.approx(0.02 * 8)  # 8 nodes of 8
    spot = payload["spot"]
    assert spot["on_demand_per_useful_gpu_hour"] == pytest.approx(1.00 / spot["on_demand_effective_fraction"])
    assert spot["spot_per_useful_gpu_hour"] == pytest.approx(0.50 / spot["spot_effective_fraction"])
    assert spot["spot_pays"] is True and spot["break_even_nodes"] >= 8
    assert any("spot pays" in note for note in payload["notes"])


def test_quotes_refuse_a_negative_interruption_rate(capsys):
    code, _, err = run(capsys, "quotes", "add", "--provider", "Cloud", "--gpu", "h100-sxm", "--price", "1",
                       "--kind", "spot", "--interruptions-per-hour", "-0.5")  # fmt: skip
    assert code == 2 and "interruptions_per_hour" in err


RENT = ("rentbuy", "--gpu", "h100-sxm", "--gpus", "64", "--rent-per-gpu-hour", "3", "--spot-per-gpu-hour", "1.5",
        "--years", "1")  # fmt: skip


def test_rentbuy_spot_line_follows_the_interruption_rate(capsys):
    totals = [run_json(capsys, *RENT, "--spot-interruptions-per-node-hour", rate)["totals"]["spot"]["amount"]
              for rate in ("0", "0.005", "0.05")]  # fmt: skip
    assert totals[0] == pytest.approx(
        64 * 730.5 * 12 * 1.5
    )  # no reclaims: spot loses nothing more than on demand
    assert totals[0] < totals[1] < totals[2]
    # without a rate: AWS Spot Instance Advisor's top band, 20 % of instances reclaimed a month (as the Rent or
    # buy page and plan --spot assume), -ln(0.8) / 730.5 h = 3.05e-4 per instance-hour; the flat 10 % is gone
    typical = run_json(capsys, *RENT)
    stated = run_json(capsys, *RENT, "--spot-interruptions-per-node-hour", str(-math.log(0.8) / 730.5))
    assert typical["totals"]["spot"]["amount"] == pytest.approx(stated["totals"]["spot"]["amount"])
    assert typical["spot"]["interruptions_per_node_hour"] == pytest.approx(3.0547e-4, rel=1e-4)
    assert totals[0] < typical["totals"]["spot"]["amount"] < totals[1]
    code, out, _ = run(capsys, *RENT, "--spot-interruptions-per-node-hour", "0.05")
    assert code == 0 and "0.05 reclaims per instance-hour x 8 node(s)" in out


def test_exported_report_has_the_goodput_rows(capsys, tmp_path):
    code, _, err = run(capsys, *SMALL, "--export", str(tmp_path / "out"))
    assert code == 0, err
    report = (tmp_path / "out" / "report.md").read_text(encoding="utf-8")
    for row in ("Effective training time", "Lost to restarts / checkpoints / rework", "Wall time with losses",
                "Daly optimum", "failure rate: 19.7 interruptions per million GPU-hours"):  # fmt: skip
        assert row in report


def test_a_chosen_spot_quote_brings_its_rate_and_is_compared_with_on_demand(capsys):
    base = ("quotes", "add", "--provider", "Cloud", "--gpu", "h100-sxm", "--gpus-per-instance", "8",
            "--quoted-on", "2026-11-01")  # fmt: skip
    assert run(capsys, *base, "--price", "1.00", "--kind", "on-demand")[0] == 0
    spot = run_json(capsys, *base, "--price", "0.50", "--kind", "spot", "--interruptions-per-hour", "0.05")
    payload = run_json(capsys, "plan", "--model", "llama-3.1-8b", "--gpu", f"quote:{spot['id']}", "--gpus", "64",
                       "--tokens", "1e11", "--top", "1", "--spot")  # fmt: skip
    assert payload["options"][0]["goodput"]["spot_interruptions_per_hour"] == pytest.approx(0.05 * 8)
    assert payload["spot"]["on_demand_per_useful_gpu_hour"] == pytest.approx(
        1.00 / payload["spot"]["on_demand_effective_fraction"]
    )
    # without a stated rate a spot plan takes AWS's top band
    default = run_json(capsys, *SMALL, "--spot", "--price-per-gpu-hour", "1")["options"][0]["goodput"]
    assert default["spot_interruptions_per_hour"] == pytest.approx(8 * -math.log(0.8) / 730.5)
