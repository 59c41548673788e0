"""The app's child processes from a hostile working folder (issue 30 items 1 and 5): `memory --trace` run as a
real `gpu-advisor` process from a model folder that plants its own modules (json.py, argparse.py, torch.py, a
profiler/ package...), with a config deeper than the trace can run in a minute (129 layers to a 400-digit count).

Properties: exit 0 or exit 2 with one line (the trace's refusal names the layer count), never a traceback or a
hang; no planted module ever runs (each writes a marker file when imported), whichever the folder holds.
Configs the trace would run (128 layers or fewer) are left to tests/test_isolated_children.py: a real trace takes
about a minute on a loaded machine, beyond the harness's time limit.
"""

from __future__ import annotations

import itertools
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import Violation, explorer, fuzz_settings, run_child
from tests.fuzz.strategies import LLAMA

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
# Modules a model folder could plant: what the CLI, the trace child and their libraries import first.
PLANTABLE = ("json", "argparse", "torch", "re", "runpy", "typing", "transformers", "sitecustomize", "usercustomize",
             "pathlib", "os", "io", "signal", "encodings", "numpy", "safetensors")  # fmt: skip
PLANTABLE_PACKAGES = ("profiler", "planner", "desktop")

deep_layers = st.one_of(
    st.integers(129, 10**7).map(str),  # deeper than the 128 layers a trace runs
    st.integers(10, 400).map(lambda digits: "9" * digits),  # an integer of any length
)


def plant(folder, names) -> None:
    for name in names:
        payload = f"open({str(folder / ('RAN-' + name))!r}, 'w').close()\n"
        if name in PLANTABLE_PACKAGES:
            (folder / name).mkdir(exist_ok=True)
            (folder / name / "__init__.py").write_text(payload, encoding="utf-8")
            (folder / name / "__main__.py").write_text(payload, encoding="utf-8")
        else:
            (folder / f"{name}.py").write_text(payload, encoding="utf-8")


def test_trace_from_a_folder_with_planted_modules(sandbox):
    fuzz = explorer("children: memory --trace, planted folder")

    @fuzz_settings(0.5)
    @given(st.sets(st.sampled_from(PLANTABLE + PLANTABLE_PACKAGES), min_size=1), deep_layers, st.booleans())
    def explore(names, layers, json_output):
        folder = sandbox / f"model-{next(COUNTER)}"
        folder.mkdir()
        plant(folder, names)
        text = json.dumps({**LLAMA, "num_hidden_layers": 0}).replace('"num_hidden_layers": 0',
                                                                     f'"num_hidden_layers": {layers}')
        (folder / "config.json").write_text(text, encoding="utf-8")
        argv = ["memory", "--model", ".", "--trace", *(["--json"] if json_output else [])]
        run = run_child(argv, fuzz.entry, cwd=folder, wants_json=json_output)
        ran = sorted(path.name for path in folder.glob("RAN-*"))
        extra = [Violation("planted-code-ran", f"{', '.join(ran)} from the working folder")] if ran else []
        if run.code == 0:  # the trace must not run a config this deep
            extra.append(Violation("wrong-value", f"a {len(layers)}-digit layer count was traced"))
        fuzz.check(run, extra)

    explore()
    fuzz.finish()
