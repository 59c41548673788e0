"""The Plan page's "Trace exactly": the tracing child's lines become progress and a result, the dialog puts the
analytic and traced figures side by side, Cancel stops the child, and the GUI process never imports torch."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from desktop.pages.trace_memory import TraceMemoryDialog, TraceProcess
from planner.memory import MemoryConfig, estimate_memory
from planner.models import get_preset, load_hf_config
from planner.vocabulary import Layout

TINY = {"model_type": "llama", "hidden_size": 128, "intermediate_size": 344, "num_hidden_layers": 2,
        "num_attention_heads": 4, "num_key_value_heads": 2, "vocab_size": 1000}  # fmt: skip
ROOT = Path(__file__).resolve().parents[2]
CHILD_TIMEOUT_MS = 240_000  # the child imports torch and transformers: tens of seconds on a busy machine


def test_the_childs_lines_become_progress_and_one_result(qtbot):
    process = TraceProcess()
    stages, results = [], []
    process.progress.connect(lambda stage, elapsed: stages.append((stage, elapsed)))
    process.finished.connect(results.append)
    process._ended = False  # a run without a child: feed and end as the QProcess slots would
    process.feed(b'{"event": "progress", "stage": "forward", "elapsed_s": 1.5}\nnot json\n{"event": "res')
    process.feed(b'ult", "result": {"peak_bytes": 10}}\n')
    process.end()
    process.end()  # once only
    assert stages == [("forward", 1.5)]
    assert results == [{"peak_bytes": 10}]


def test_a_child_error_is_reported_in_its_own_words(qtbot):
    process = TraceProcess()
    failures = []
    process.failed.connect(failures.append)
    process._ended = False
    process.feed(
        b'{"event": "error", "message": "transformers builds no causal LM for model_type \'bert\'"}\n'
    )
    process.end()
    assert failures == ["transformers builds no causal LM for model_type 'bert'"]


def test_a_preset_cannot_be_traced_and_the_dialog_says_why(qtbot):
    model = get_preset("llama-3.1-8b")
    config = MemoryConfig(task="train", seq_len=1024)
    dialog = TraceMemoryDialog(model, config, estimate_memory(model, config))
    qtbot.addWidget(dialog)
    assert dialog.start() is False
    assert "config.json" in dialog.status.text()
    assert dialog.table.item(0, 1).text()  # the analytic figures are shown anyway


@pytest.mark.slow
@pytest.mark.parametrize("layout", [Layout(micro_batch=2), Layout(tp=2, pp=2, micro_batch=2)], ids=["dp", "tp-pp"])
def test_a_real_trace_fills_the_table_and_torch_stays_out_of_the_gui(qtbot, tmp_path, layout):
    if importlib.util.find_spec("transformers") is None:  # find_spec: this test process must not import it
        pytest.skip("needs the trace extra (installed by `make test`)")
    path = tmp_path / "config.json"
    path.write_text(json.dumps(TINY), encoding="utf-8")
    model = load_hf_config(path)
    config = MemoryConfig(task="train", precision="bf16", seq_len=128, layout=layout)
    dialog = TraceMemoryDialog(model, config, estimate_memory(model, config))
    qtbot.addWidget(dialog)
    with qtbot.waitSignal(dialog.process.finished, timeout=CHILD_TIMEOUT_MS):
        assert dialog.start()
    peak = dialog.rows["peak"]
    assert isinstance(peak["traced_bytes"], int) and peak["traced_bytes"] > 0
    if layout.model_parallel == 1:
        assert 0.9 < peak["ratio"] < 1.1
    else:  # one rank of the layout; the peak row says what differs from the analytic (Megatron-style) rank
        assert "tensor parallel 2" in str(peak["why"]) and "pipeline stage" in str(peak["why"])
    assert dialog.table.item(5, 2).text() not in ("", "…")


@pytest.mark.slow
def test_the_trace_action_imports_neither_torch_nor_transformers():
    code = (
        "import sys, desktop.pages.trace_memory, desktop.pages.plan; "
        "print(sorted(m for m in ('torch', 'transformers', 'peft') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT,
                         env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})  # fmt: skip
    assert out.stdout.strip() == "[]"


@pytest.mark.slow
def test_cancel_stops_the_child(qtbot, tmp_path):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({**TINY, "num_hidden_layers": 80, "hidden_size": 8192, "intermediate_size": 28672,
                                "num_attention_heads": 64, "num_key_value_heads": 8}), encoding="utf-8")  # fmt: skip
    model = load_hf_config(path)
    config = MemoryConfig(task="train", seq_len=4096)
    dialog = TraceMemoryDialog(model, config, estimate_memory(model, config))
    qtbot.addWidget(dialog)
    assert dialog.start()
    with qtbot.waitSignal(dialog.process.failed, timeout=30_000) as failed:
        qtbot.wait(500)
        dialog.cancel()
    assert failed.args == ["Cancelled"]
    assert not dialog.process.running
