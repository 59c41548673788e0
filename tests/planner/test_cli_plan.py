"""`gpu-advisor gpus`, `plan` and `rentbuy`: JSON shapes, detected GPUs, one-line errors with exit code 2."""

from __future__ import annotations

import json

import pytest

from planner.cli import main

STRATEGY_KEYS = {"dp", "tp", "pp", "ep", "zero", "recompute", "offload", "micro_batch", "virtual_stages"}


def run_json(capsys, *argv):
    code = main([*argv, "--json"])
    out = capsys.readouterr().out
    assert code == 0
    return json.loads(out)


def test_shows_command_returns_ranked_fitting_options(capsys):
    payload = run_json(capsys, "plan", "--model", "llama-3.1-70b", "--task", "train", "--gpu", "h100-sxm",
                       "--max-gpus", "512", "--tokens", "1e12", "--price-per-gpu-hour", "3.75")  # fmt: skip
    assert {"options", "excluded", "search_ms"} <= set(payload)
    options = payload["options"]
    assert options and all(option["fits"] for option in options)
    for option in options:
        assert set(option["strategy"]) == STRATEGY_KEYS
        assert option["gpu"] == "h100-sxm" and option["gpus"] <= 512
        assert isinstance(option["per_gpu_bytes"]["total"], int)
        assert option["cost"]["currency"] == "USD"
        assert option["cost"]["amount"] == pytest.approx(option["gpu_hours"] * 3.75)
        assert option["confidence"] in ("measured", "catalog spec", "user-set")
    wall = [option["wall_time_s"] for option in options]
    assert wall == sorted(wall)
    assert any(item["family"] == "DDP without tensor/pipeline parallel" for item in payload["excluded"])


def test_plan_without_price_has_null_cost(capsys):
    payload = run_json(capsys, "plan", "--model", "llama-3.1-8b", "--task", "lora", "--gpu", "rtx-4090",
                       "--gpus", "1", "--batch", "8", "--seq-len", "2048")  # fmt: skip
    assert payload["options"][0]["cost"] is None
    assert payload["options"][0]["gpus"] == 1


def test_inference_that_does_not_fit_gives_advice(capsys):
    payload = run_json(capsys, "plan", "--model", "llama-3.1-70b", "--task", "inference", "--gpu", "rtx-4090",
                       "--gpus", "1")  # fmt: skip
    assert payload["options"] == []
    assert "int4" in " ".join(payload["advice"])


def test_mfu_changes_time_and_confidence(capsys):
    # A user-set MFU replaces the operator model's compute: the step's FLOPs at 0.5 x the dense peak.
    args = ("plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "8", "--tokens", "1e10")
    base = run_json(capsys, *args)["options"][0]
    flat = run_json(capsys, *args, "--mfu", "0.5", "--zero", str(base["strategy"]["zero"]),
                    "--micro-batch", str(base["strategy"]["micro_batch"]), "--tp", "1", "--pp", "1",
                    "--recompute", "none")["options"][0]  # fmt: skip
    assert flat["confidence"] == "user-set" and base["confidence"] == "catalog spec"
    # Llama 3.1 8B: 8,030,261,248 params less the 525,336,576 input-embedding lookup = 7,504,924,672 matmul
    # params; 6 x that + 12 x 32 layers x 4096 tokens x 4096 width FLOPs per token, 1024 x 4096 tokens per step,
    # on 8 x 989.4e12 x 0.5 FLOP/s.
    per_token = 6 * 7_504_924_672 + 12 * 32 * 4096 * 4096
    tokens = 8 * flat["strategy"]["micro_batch"] * flat["gradient_accumulation_steps"] * 4096
    assert flat["time_breakdown_s"]["compute_s"] == pytest.approx(per_token * tokens / (8 * 989.4e12 * 0.5))
    assert flat["mfu"] < 0.5  # communication and the optimizer come on top


def test_rentbuy_json_shape_and_figures(capsys):
    payload = run_json(capsys, "rentbuy", "--gpu", "h100-sxm", "--gpus", "1", "--rent-per-gpu-hour", "2.80",
                       "--purchase-per-gpu", "27500", "--power-w", "700", "--pue", "1.3",
                       "--electricity-per-kwh", "0.12", "--years", "3")  # fmt: skip
    assert {"break_even_gpu_hours", "break_even_months", "break_even_utilization", "totals", "monthly",
            "recommendation"} <= set(payload)  # fmt: skip
    assert set(payload["totals"]) >= {"rent", "buy", "hybrid"}
    assert set(payload["monthly"]) >= {"month", "rent", "buy", "hybrid"}
    assert len(payload["monthly"]["month"]) == 37
    assert payload["break_even_months"] == pytest.approx(
        14.0, abs=0.5
    )  # 27,500 / (2.80 - 0.109) / 730.5 h, see test_costs
    assert payload["totals"]["rent"]["currency"] == "USD"


def test_rentbuy_uses_catalog_price_and_tdp(capsys):
    payload = run_json(capsys, "rentbuy", "--gpu", "rtx-4090", "--gpus", "4", "--rent-per-gpu-hour", "0.34")
    # RTX 4090 launch MSRP $1,599 x 4 GPUs on day 0.
    assert payload["monthly"]["buy"][0] == pytest.approx(4 * 1599)


def test_gpus_lists_catalog_and_detected(capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    rows = run_json(capsys, "gpus")
    ids = [row["id"] for row in rows]
    assert "h100-sxm" in ids and "rtx-4090" in ids and "mi300x" in ids
    h100 = rows[ids.index("h100-sxm")]
    assert h100["detected"] is True and len(h100["detected_indices"]) == 8
    assert rows[ids.index("a100-sxm-80gb")]["detected"] is False
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "none")
    assert not any(row["detected"] for row in run_json(capsys, "gpus"))


def test_plan_export_writes_files(capsys, tmp_path):
    code = main(
        [
            "plan",
            "--model",
            "llama-3.1-8b",
            "--gpu",
            "h100-sxm",
            "--gpus",
            "8",
            "--export",
            str(tmp_path / "out"),
        ]
    )
    assert code == 0
    assert (tmp_path / "out" / "ds_config.json").exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxn"],
        ["plan", "--model", "no-such-model", "--gpu", "h100-sxm"],
        ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--gpus", "0"],
        ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--mfu", "3"],
        ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--price-per-gpu-hour", "-1"],
        ["plan", "--model", "llama-3.1-8b", "--gpu", "h100-sxm", "--currency", "dollars"],
        ["rentbuy", "--gpu", "a100-sxm-80gb", "--rent-per-gpu-hour", "1.39"],
        ["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2", "--utilization", "2"],
    ],
)
def test_invalid_input_is_one_line_and_exit_code_2(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("gpu-advisor: ") and err.count("\n") == 1


# --- QA: inputs that used to be accepted (rc 0 with inf/NaN in the JSON, or a traceback) -------------------------

PLAN_7B = ["plan", "--model", "llama-3.1-8b", "--task", "train", "--gpu", "h100-sxm"]
RENT_H100 = ["rentbuy", "--gpu", "h100-sxm", "--gpus", "8", "--rent-per-gpu-hour", "2.8", "--purchase-per-gpu",
             "27500"]  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        # non-finite numbers: json.dump wrote Infinity/NaN (not JSON) or "$inf" into the table
        (["--tokens", "inf"], "--tokens must be a finite number"),
        (["--price-per-gpu-hour", "nan"], "--price-per-gpu-hour must be a finite number"),
        (["--price-per-gpu-hour", "inf"], "--price-per-gpu-hour must be a finite number"),
        (["--budget", "inf"], "--budget must be a finite number"),
        (["--deadline-days", "inf"], "--deadline-days must be a finite number"),
        (["--inter-node-gbps", "inf"], "--inter-node-gbps must be a finite number"),
        # absurd sizes: 1e40 tokens is 10^26 times Llama 3's 15T; 1e8 GPUs; a 10^11-sequence batch
        (["--tokens", "1e40"], "--tokens 1e+40 is absurdly large"),
        (["--price-per-gpu-hour", "1e300"], "--price-per-gpu-hour 1e+300 is absurdly large"),
        (["--gpus", "100000000"], "--gpus 100,000,000 is absurdly large"),
        (["--max-gpus", "10000000000"], "--max-gpus 10,000,000,000 is absurdly large"),
        (["--batch", "100000000000"], "--batch 100,000,000,000 is absurdly large"),
        (["--seq-len", "100000000000"], "--seq-len 100,000,000,000 is absurdly large"),
        # a pinned layout the model cannot take: it said "Nothing fits ... try more GPUs" instead of why
        (["--tp", "7"], "tensor parallel 7 does not divide the 32 attention heads"),
        (["--pp", "1000"], "pipeline parallel 1000 is larger than the 32 layers"),
        (["--ep", "2"], "expert parallel 2 needs a mixture-of-experts model"),
        (["--task", "lora", "--lora-rank", "100000"], "--lora-rank 100,000 is absurdly large"),
        # two prices: --price-from-quotes was silently ignored
        (
            ["--price-per-gpu-hour", "3", "--price-from-quotes"],
            "either --price-per-gpu-hour or --price-from-quotes",
        ),
    ],
)
def test_plan_refuses_non_finite_absurd_and_impossible_input(capsys, extra, message):
    assert main([*PLAN_7B, *extra]) == 2
    captured = capsys.readouterr()
    assert message in captured.err, captured.err
    assert captured.err.startswith("gpu-advisor: ") and captured.err.count("\n") == 1
    assert captured.out == ""


def test_plan_export_to_an_unusable_place_is_one_line(capsys, tmp_path):
    a_file = tmp_path / "taken.txt"
    a_file.write_text("the user's file")
    for target in (a_file, a_file / "sub"):  # a file where the folder should be; a folder under a file
        assert main([*PLAN_7B, "--gpus", "8", "--export", str(target)]) == 2
        err = capsys.readouterr().err
        assert err.startswith("gpu-advisor: cannot write the export") and err.count("\n") == 1
    assert a_file.read_text() == "the user's file"


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--years", "nan"], "--years must be a finite number"),  # was a ValueError traceback
        (["--years", "inf"], "--years must be a finite number"),  # was an OverflowError traceback
        (["--rent-per-gpu-hour", "inf"], "--rent-per-gpu-hour must be a finite number"),  # printed "$nan"
        (["--purchase-per-gpu", "inf"], "--purchase-per-gpu must be a finite number"),
        (["--purchase-per-gpu", "1e300"], "--purchase-per-gpu 1e+300 is absurdly large"),
        (["--gpus", "100000000000"], "--gpus 100,000,000,000 is absurdly large"),
        (["--power-w", "inf"], "--power-w must be a finite number"),
        (["--electricity-per-kwh", "inf"], "--electricity-per-kwh must be a finite number"),
        # issue 30: values that divided by almost nothing (Infinity in --json) or overflowed
        (["--years", "1.7e308"], "--years 1.7e+308 is absurdly large (limit 100)"),
        (["--hours-per-day", "5e-324"], "--hours-per-day must be from 0.01 to 24"),
        (["--utilization", "5e-324"], "--utilization must be from 0.001 to 1"),
        (["--days-per-week", "5e-324"], "--days-per-week must be from 0.01 to 7"),
    ],
)
def test_rentbuy_refuses_non_finite_and_absurd_input(capsys, extra, message):
    assert main([*RENT_H100, *extra]) == 2
    captured = capsys.readouterr()
    assert message in captured.err, captured.err
    assert captured.err.startswith("gpu-advisor: ") and captured.err.count("\n") == 1


def test_gpus_json_gives_the_reference_price_as_money(capsys):
    rows = run_json(capsys, "gpus")
    h100 = next(row for row in rows if row["id"] == "h100-sxm")
    # README (JSON contract): money in JSON is {"amount", "currency"}; the catalog's H100 SXM reference price is $27,500
    assert h100["purchase_price"] == {"amount": 27500, "currency": "USD"}
    mi300x = next(row for row in rows if row["id"] == "mi300x")
    assert mi300x["purchase_price"] is None  # no public price in the catalog


@pytest.mark.parametrize(
    ("extra", "expected_output_len"),
    [
        # a 128-token prompt with a 2,048-token output was planned as 1,088 output tokens, silently
        (["--seq-len", "2176", "--output-len", "2048"], 2048),
        # without --output-len the default 256 is shortened to half a short sequence, leaving a prompt
        (["--seq-len", "128"], 64),
        (["--seq-len", "4096"], 256),
    ],
)
def test_serving_plans_the_output_length_the_user_gave(extra, expected_output_len):
    from planner.cli import build_parser
    from planner.cli.plan_cmd import workload_from_args

    args = build_parser().parse_args(["plan", "--model", "llama-3.1-8b", "--task", "inference", *extra])
    assert workload_from_args(args).output_len == expected_output_len


def test_an_output_longer_than_the_sequence_is_refused_not_shortened(capsys):
    argv = ["plan", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "h100-sxm", "--gpus", "1"]
    assert main([*argv, "--seq-len", "2176", "--output-len", "3000"]) == 2
    assert (
        "the output length (3000) must be shorter than the sequence length (2176)" in capsys.readouterr().err
    )


def test_a_probe_run_of_a_gpu_outside_the_catalog_says_so_instead_of_choose_a_gpu(capsys, tmp_path):
    """Issue 30: `--gpu run:ID` of a run that measured a GPU the catalog lacks said "choose at least one GPU
    type"; it now names the run and why it cannot be planned on, in one line, exit 2."""
    from planner.store import Store
    from tests.fixtures.store_reports import report

    db = tmp_path / "ledger.sqlite"
    with Store.open(db) as store:
        run_id = store.probe_runs.save(report(gpu_name="NVIDIA Imaginary X9000"))
    assert main(["--db", str(db), "plan", "--model", "llama-3.1-8b", "--gpu", f"run:{run_id}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "choose at least one" not in err
    assert f"probe run {run_id} measured no GPU the catalog knows" in err
