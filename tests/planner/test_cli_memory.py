"""`gpu-advisor models` and `gpu-advisor memory`: output shapes, the issue's "Shows" commands, exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from planner.cli import main

SHOWS = ["memory", "--model", "llama-3.1-70b", "--task", "train", "--precision", "bf16", "--zero", "3", "--dp", "64",
         "--seq-len", "4096", "--runtime", "fsdp2", "--json"]  # fmt: skip
P_70B = 70_553_706_496


def run_json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_models_json_lists_every_preset_with_counts_and_sources(capsys):
    payload = run_json(capsys, ["models", "--json"])
    ids = [m["id"] for m in payload["models"]]
    assert "llama-3.1-70b" in ids and "deepseek-v3" in ids and len(ids) == 15
    mixtral = next(m for m in payload["models"] if m["id"] == "mixtral-8x7b")
    assert mixtral["params"] == 46_702_792_704 and mixtral["active_params"] < mixtral["params"]
    assert all(m["source"].startswith("https://") and m["source_date"] for m in payload["models"])


def test_models_table_has_units(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    assert "Llama 3.1 405B" in out and "405.85 B" in out and "tok" in out


def test_shows_training_command_follows_the_zero_paper(capsys):
    payload = run_json(capsys, SHOWS)
    assert set(payload) >= {"model", "per_gpu_bytes", "fits", "gpu", "notes", "assumptions"}
    assert payload["model"] == {"name": "Llama 3.1 70B", "params": P_70B, "active_params": P_70B}
    per_gpu = payload["per_gpu_bytes"]
    assert list(per_gpu) == [
        "weights",
        "gradients",
        "optimizer",
        "activations",
        "kv_cache",
        "overhead",
        "total",
    ]
    # ZeRO-3 (FSDP2): 16P/N model states plus, at the backward peak, the root unit (embedding + LM head + final
    # norm) and one 855,654,400-parameter layer gathered in bf16 and three layer-sized bf16 communication buffers
    layer, root = 855_654_400, 2 * 128256 * 8192 + 8192
    states = per_gpu["weights"] + per_gpu["gradients"] + per_gpu["optimizer"]
    assert abs(states - (16 * P_70B / 64 + 2 * (root + layer) + 6 * layer)) <= 3
    assert per_gpu["optimizer"] == -(-8 * P_70B // 64)
    assert per_gpu["kv_cache"] == 0
    # the total is the step's peak: the sum less what is never held at once (gradients vs activations)
    peak = payload["peak"]
    assert (
        per_gpu["total"] == sum(v for k, v in per_gpu.items() if k != "total") - peak["not_concurrent_bytes"]
    )
    assert peak["phase"] == "backward"
    assert payload["fits"] is None and payload["gpu"] is None


def test_shows_inference_command_kv_cache_to_the_byte(capsys):
    argv = [a for a in SHOWS if a not in ("--zero", "3", "--dp", "64")]
    argv[argv.index("train")] = "inference"
    payload = run_json(capsys, argv)
    assert payload["per_gpu_bytes"]["kv_cache"] == 2 * 80 * 1 * 4096 * 8 * 128 * 2


def test_gpu_option_says_whether_it_fits(capsys):
    pytest.importorskip("planner.gpus")
    small = run_json(capsys, ["memory", "--model", "llama-2-7b", "--task", "qlora", "--recompute", "full",
                              "--seq-len", "1024", "--gpu", "rtx-4090", "--json"])  # fmt: skip
    assert small["fits"] is True and "4090" in small["gpu"]
    big = run_json(
        capsys, ["memory", "--model", "llama-3.1-70b", "--task", "train", "--gpu", "h100-sxm", "--json"]
    )
    assert big["fits"] is False


def test_gpu_local_without_a_gpu_reports_null_with_a_reason(capsys):
    payload = run_json(capsys, ["memory", "--model", "7b", "--task", "inference", "--gpu", "local", "--json"])
    assert payload["fits"] is None and payload["gpu"] is None
    assert any("cannot say whether it fits" in note for note in payload["notes"])


def test_gpu_local_with_a_fake_h100_board(capsys, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "h100x8")
    payload = run_json(
        capsys, ["memory", "--model", "llama-3.1-8b", "--task", "inference", "--gpu", "local", "--json"]
    )
    assert payload["fits"] is True and "H100" in payload["gpu"]


def test_human_table_shows_gib_and_assumptions(capsys):
    assert main(["memory", "--model", "mixtral-8x7b", "--task", "inference", "--tp", "2"]) == 0
    out = capsys.readouterr().out
    for term in ("weights", "gradients", "optimizer", "activations", "kv_cache", "overhead", "total"):
        assert term in out
    assert "GiB" in out and "12.88 B active" in out


def test_config_json_path_and_lora_options(tmp_path, capsys):
    config = tmp_path / "config.json"
    config.write_text(json.dumps({"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "n_head": 12,
                                  "vocab_size": 50257, "n_positions": 1024}))  # fmt: skip
    payload = run_json(capsys, ["memory", "--model", str(config), "--task", "lora", "--lora-rank", "8",
                                "--lora-targets", "q,v", "--seq-len", "1024", "--json"])  # fmt: skip
    assert payload["model"]["params"] == 124_439_808
    # rank 8 on q and v: GPT-2 computes q, k, v in one c_attn (768 -> 2304), so peft puts one adapter there:
    # 12 layers x 8 x (768 + 2304) adapter params, fp32 gradients (4 bytes each)
    assert payload["per_gpu_bytes"]["gradients"] == 4 * 12 * 8 * (768 + 2304)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["memory", "--model", "llama-99b-turbo"], "unknown model 'llama-99b-turbo'"),
        (
            ["memory", "--model", "llama-3.1-70b", "--batch", "0"],
            "--batch must be from 1 to 10,000,000, got 0",
        ),
        (["memory", "--model", "llama-3.1-70b", "--seq-len", "-5"], "--seq-len must be from 1 to"),
        (["memory", "--model", "llama-3.1-70b", "--tp", "3"], "does not divide the 64 attention heads"),
        (["memory", "--model", "llama-3.1-70b", "--pp", "100"], "larger than the 80 layers"),
    ],
)
def test_bad_input_is_one_line_on_stderr_with_exit_code_2(capsys, argv, message):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_a_negative_model_size_is_one_line_exit_2_in_either_spelling(capsys):
    # "--model -7b": argparse takes -7b for an option and says the value is missing; "--model=-7b" reaches the
    # model and is refused as a size. Both: one line, exit code 2.
    assert main(["memory", "--model", "-7b"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--model: expected one argument" in err
    assert main(["memory", "--model=-7b"]) == 2
    err = capsys.readouterr().err
    assert err == "gpu-advisor: model size -7B is outside 0.05B..10000B\n"


@pytest.mark.slow
def test_malformed_config_json_exits_2_without_traceback_in_a_real_process(tmp_path):
    broken = tmp_path / "config.json"
    broken.write_text("{not json")
    env = dict(os.environ, PYTHONPATH=os.getcwd())
    code = "import sys; from planner.cli import main; sys.exit(main(sys.argv[1:]))"
    done = subprocess.run(
        [sys.executable, "-c", code, "memory", "--model", str(broken)],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 2
    assert "malformed JSON" in done.stderr and str(broken) in done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr
    unknown = subprocess.run(
        [sys.executable, "-c", code, "memory", "--model", "7b", "--zero", "5"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert unknown.returncode == 2 and "Traceback" not in unknown.stderr


def test_gpu_local_on_a_mig_partitioned_a100_compares_with_one_mig_instance(capsys, monkeypatch):
    """A CUDA process on a MIG GPU sees one MIG instance, not the whole card (NVIDIA MIG user guide)."""
    monkeypatch.setenv("GPU_ADVISOR_FAKE_NVML", "mig")  # an A100 80GB split 3g.40gb + 2g.20gb + 1g.10gb
    # 30B parameters in bf16 = 60 GB of weights alone: fits the 80 GB card, not its largest 40 GB instance
    payload = run_json(
        capsys, ["memory", "--model", "30b", "--task", "inference", "--gpu", "local", "--json"]
    )
    assert payload["per_gpu_bytes"]["weights"] > 42_144_366_592  # the 3g.40gb instance's memory in the fake
    assert payload["fits"] is False
    assert any("MIG" in note and "3 instance" in note for note in payload["notes"]), payload["notes"]


# --- memory --trace -------------------------------------------------------------------------------------------

TINY_LLAMA = {"model_type": "llama", "hidden_size": 128, "intermediate_size": 344, "num_hidden_layers": 2,
              "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}  # fmt: skip


def test_trace_of_a_preset_or_an_untraceable_layout_is_one_line_exit_2(capsys, tmp_path):
    assert main(["memory", "--model", "llama-3.1-8b", "--trace"]) == 2
    err = capsys.readouterr().err
    assert "config.json" in err and err.count("\n") == 1 and "Traceback" not in err
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    assert main(["memory", "--model", str(path), "--trace", "--task", "lora", "--tp", "2"]) == 2
    err = capsys.readouterr().err
    assert "LoRA is not traced under tensor parallel" in err and err.count("\n") == 1
    assert main(["memory", "--model", str(path), "--trace", "--task", "qlora"]) == 2
    assert "QLoRA" in capsys.readouterr().err


def test_a_config_deeper_than_the_trace_runs_is_refused_before_any_child_starts(
    capsys, tmp_path, monkeypatch
):
    """Issue 30: a 100,000-layer config kept the trace busy for hours; the deepest published model (Llama 3.1
    405B, 126 layers, https://huggingface.co/meta-llama/Llama-3.1-405B/blob/main/config.json) still traces."""
    import subprocess

    from planner.memory import MemoryConfig
    from planner.memory.trace import MAX_TRACE_LAYERS, trace_arguments
    from planner.models import get_preset

    assert get_preset("llama-3.1-405b").layers == 126 <= MAX_TRACE_LAYERS

    def no_child(*args, **kwargs):
        raise AssertionError("a child was started")

    monkeypatch.setattr(subprocess, "run", no_child)
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TINY_LLAMA, "num_hidden_layers": 100_000}), encoding="utf-8")
    assert main(["memory", "--model", str(path), "--trace"]) == 2
    err = capsys.readouterr().err
    assert "a trace of 100000 decoder layers would take too long" in err and err.count("\n") == 1
    path.write_text(json.dumps({**TINY_LLAMA, "num_hidden_layers": 126}), encoding="utf-8")
    from planner.models import load_hf_config

    assert "--config" in trace_arguments(load_hf_config(path), MemoryConfig(task="train", seq_len=128))


def test_trace_arguments_carry_the_model_parallel_layout(tmp_path):
    from planner.memory import MemoryConfig
    from planner.memory.trace import trace_arguments
    from planner.models import load_hf_config
    from planner.vocabulary import Layout

    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    layout = Layout(dp=2, tp=2, pp=2, zero=3, micro_batch=2)
    config = MemoryConfig(
        task="train", seq_len=128, layout=layout, sequence_parallel=True, inflight_microbatches=1
    )
    arguments = trace_arguments(load_hf_config(path), config)
    assert "--sequence-parallel" in arguments
    options = {a: arguments[i + 1] for i, a in enumerate(arguments) if a in ("--tp", "--pp", "--ep", "--dp", "--zero",
                                                                               "--inflight", "--batch", "--config")}  # fmt: skip
    assert options == {"--tp": "2", "--pp": "2", "--ep": "1", "--dp": "2", "--zero": "3", "--inflight": "1",
                       "--batch": "2", "--config": str(path)}  # fmt: skip


@pytest.mark.slow
def test_trace_runs_the_transformers_model_beside_the_analytic_figures(capsys, tmp_path):
    transformers = pytest.importorskip(
        "transformers", reason="needs the trace extra (installed by `make test`)"
    )
    torch = pytest.importorskip("torch")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    argv = ["memory", "--model", str(path), "--trace", "--task", "train", "--seq-len", "128", "--batch", "2"]
    payload = run_json(capsys, [*argv, "--gpu", "h100-sxm", "--json"])
    trace = payload["trace"]
    # independent count: transformers' own model on the meta device
    hf = transformers.AutoConfig.for_model(
        "llama", **{k: v for k, v in TINY_LLAMA.items() if k != "model_type"}
    )
    with torch.device("meta"):
        expected = sum(p.numel() for p in transformers.AutoModelForCausalLM.from_config(hf).parameters())
    assert trace["traced"]["parameter_count"] == expected == payload["model"]["params"]
    assert trace["traced"]["fake_tensors"] is True and trace["wall_s"] > 0 and trace["timeline"]
    peak = trace["comparison"]["peak"]
    assert (
        peak["traced_bytes"] == trace["traced"]["peak_bytes"] and 0.9 < peak["ratio"] < 1.1
    )  # issue 16: 10%
    assert payload["fits"] is True and "H100" in payload["gpu"]  # --gpu still answers beside the trace
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "per GPU" in out and "analytic against traced" in out  # both tables, side by side


@pytest.mark.slow
def test_trace_under_tensor_and_pipeline_parallel_shows_one_ranks_figures(capsys, tmp_path):
    pytest.importorskip("transformers", reason="needs the trace extra (installed by `make test`)")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY_LLAMA), encoding="utf-8")
    argv = ["memory", "--model", str(path), "--trace", "--task", "train", "--precision", "fp32", "--seq-len", "128",
            "--batch", "2", "--tp", "2", "--pp", "2", "--json"]  # fmt: skip
    trace = run_json(capsys, argv)["trace"]
    traced = trace["traced"]
    # hand count of one rank: the first stage holds layer 0 and the embedding, the last layer 1, the final norm
    # and the untied LM head; tp 2 halves every matrix (q/k/v/o, gate/up/down, embedding rows, head rows) and
    # leaves the norms whole
    h, kv, ffn, vocab = 128, 2 * 32, 344, 1000
    matrices = (h * h * 2 + h * kv * 2 + 3 * h * ffn) // 2
    first = vocab * h // 2 + matrices + 2 * h
    last = matrices + 2 * h + h + vocab * h // 2
    counts = {s["stage"]["index"]: s for s in traced["stages"]}
    assert set(counts) == {0, 1} and traced["stage"]["index"] in counts
    assert traced["local_parameter_count"] == (first if traced["stage"]["index"] == 0 else last)
    assert counts[0]["stage"]["inflight"] == 2 and counts[1]["stage"]["inflight"] == 1  # 1F1B
    why = trace["comparison"]["peak"]["why"]
    assert "tensor parallel 2" in why and "pipeline stage" in why


def test_traced_lora_adapts_the_modules_the_plan_counts(tmp_path):
    """The trace child adapts the module names the planner counts and exports (planner/models/lora_modules.py,
    passed with --lora-modules), not a table of its own: OPT's attention output is self_attn.out_proj, which
    the llama names (o_proj) miss."""
    pytest.importorskip("peft")
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")
    from planner.memory import MemoryConfig, estimate_memory
    from planner.memory.trace import trace_arguments
    from planner.models import load_hf_config
    from profiler import memory_trace
    from profiler.trace_model import add_lora

    opt = {"model_type": "opt", "hidden_size": 32, "ffn_dim": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
           "vocab_size": 96, "max_position_embeddings": 64, "word_embed_proj_dim": 32}  # fmt: skip
    path = tmp_path / "config.json"
    path.write_text(json.dumps(opt), encoding="utf-8")
    spec = load_hf_config(path)
    config = MemoryConfig(
        task="lora", seq_len=16, lora_rank=8, lora_targets=("q", "k", "v", "o"), precision="bf16"
    )
    arguments = trace_arguments(spec, config)
    request = memory_trace.request_from_args(memory_trace.build_parser().parse_args(arguments))
    assert "self_attn.out_proj" in request.lora_modules
    hf = transformers.AutoConfig.for_model("opt", **{k: v for k, v in opt.items() if k != "model_type"})
    with torch.device("meta"):
        model = transformers.AutoModelForCausalLM.from_config(hf)
    model = add_lora(model, "opt", 8, request.lora_targets, request.lora_modules)
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    assert trainable == 2 * 4 * 8 * (32 + 32)  # 2 layers x q, k, v, out_proj x r (d_in + d_out)
    # the plan counts the same adapters (fp32 gradients)
    assert estimate_memory(spec, config).gradients.bytes == 4 * trainable
