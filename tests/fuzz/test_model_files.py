"""config.json files, safetensors headers and model folders given as --model (planner.models through the CLI).

Properties: exit 0, or exit 2 with one line naming the file; never a traceback or a hang; --json output is
strict JSON with whole, positive parameter counts.
"""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import Violation, explorer, fuzz_settings, run_in_process, strict_json
from tests.fuzz.sandbox import write_model_folder
from tests.fuzz.strategies import LLAMA, config_bytes, hostile_text, safetensors_file

pytestmark = pytest.mark.slow

COUNTER = itertools.count()


def count_problems(stdout: bytes) -> list[Violation]:
    model = strict_json(stdout).get("model", {})
    params = model.get("params")
    if not isinstance(params, int) or params <= 0:
        return [Violation("wrong-value", f"params {params!r}")]
    return []


def check_memory(fuzz, target: str) -> None:
    run = run_in_process(["memory", "--model", target, "--task", "inference", "--json"], fuzz.entry, wants_json=True)
    fuzz.check(run, count_problems(run.stdout) if run.code == 0 and run.stdout else [])


def test_config_json_files(sandbox):
    fuzz = explorer("model files: config.json")

    @fuzz_settings(2.0)
    @given(config_bytes())
    def explore(data):
        path = sandbox / f"config-{next(COUNTER)}.json"
        path.write_bytes(data)
        check_memory(fuzz, str(path))

    explore()
    fuzz.finish()


def test_safetensors_headers(sandbox):
    fuzz = explorer("model files: safetensors headers")

    @fuzz_settings(2.0)
    @given(st.lists(safetensors_file(), min_size=1, max_size=3))
    def explore(shards):
        folder = write_model_folder(sandbox / f"model-{next(COUNTER)}", LLAMA, tuple(shards))
        check_memory(fuzz, str(folder))

    explore()
    fuzz.finish()


def test_model_folders_with_hostile_names(sandbox):
    """A folder name and a config.json from a hub: both end up as the model's name in plans."""
    fuzz = explorer("model files: folder (memory, plan)")

    @fuzz_settings(1.0)
    @given(hostile_text, config_bytes())
    def explore(name, data):
        folder = sandbox / f"{next(COUNTER)}-{name}"  # never "", "." or "..": the number comes first
        if len(folder.name.encode("utf-8", "surrogateescape")) > 255:
            folder = sandbox / f"{next(COUNTER)}-long"
        write_model_folder(folder, data)
        check_memory(fuzz, str(folder))
        run = run_in_process(["plan", "--model", str(folder), "--gpu", "h100-sxm", "--gpus", "8", "--json"],
                             fuzz.entry, wants_json=True)  # fmt: skip
        fuzz.check(run)

    explore()
    fuzz.finish()
