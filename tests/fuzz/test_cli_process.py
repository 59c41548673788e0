"""What only a real `gpu-advisor` process shows: bytes in argv that are not UTF-8, and a closed or broken stdout.

Properties: exit 0 or exit 2 with one line; never a traceback (not even "Exception ignored" at exit); --json
output that does reach stdout is strict JSON.
"""

from __future__ import annotations

import os

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tests.fuzz.harness import explorer, fuzz_settings, run_children, run_in_process
from tests.fuzz.sandbox import fake_probe_command, populate

pytestmark = pytest.mark.slow

# Where a text option or a file name goes, with "{}" for the bytes.
TEMPLATES = (
    ["quotes", "add", "--provider", "{}", "--gpu", "h100-sxm", "--price", "2.5", "--json"],
    ["quotes", "add", "--provider", "RunPod", "--gpu", "h100-sxm", "--price", "2.5", "--note", "{}"],
    ["quotes", "add-purchase", "--vendor", "{}", "--gpu", "h100-sxm", "--price", "240000"],
    ["quotes", "list", "--provider", "{}", "--json"],
    ["quotes", "list", "--gpu", "{}"],
    ["quotes", "import", "{}"],
    ["quotes", "export", "{}"],
    ["probe", "import", "{}"],
    ["probe", "import", "report.json", "--label", "{}", "--json"],
    ["memory", "--model", "{}"],
    ["plan", "--model", "7b", "--gpu", "{}", "--gpus", "8"],
    ["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--currency", "{}", "--json"],
    ["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2", "--currency", "{}"],
    ["--db", "{}", "quotes", "list"],
)
# Bytes no UTF-8 decoder accepts, mixed with ordinary ones; never "/" or NUL (a path stays in the sandbox).
raw_bytes = st.binary(min_size=1, max_size=16).filter(lambda b: b"/" not in b and b"\0" not in b)
invalid_utf8 = st.tuples(raw_bytes, st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\x80abc", b"\xfe"]))


@pytest.fixture
def seeded(sandbox, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe_command())
    populate(sandbox)
    for argv in (["quotes", "import", "quotes.csv"], ["probe", "import", "report.json"]):
        assert run_in_process(argv, "seed").code == 0
    return sandbox


def test_non_utf8_bytes_in_argv(seeded):
    fuzz = explorer("cli argv bytes (child)")

    @fuzz_settings(0.7)
    @given(st.sampled_from(TEMPLATES), invalid_utf8)
    def explore(template, parts):
        value = parts[0] + parts[1]
        argv = [os.fsencode(a) if a != "{}" else value for a in template]
        (run,) = run_children([(argv, fuzz.entry, {"cwd": seeded, "wants_json": "--json" in template})])
        fuzz.check(run)

    explore()
    fuzz.finish()


# One ordinary invocation of each subcommand (with and without --json) whose stdout the caller has closed.
ORDINARY = (
    (["models"], False), (["models", "--json"], True), (["gpus", "--json"], True), (["history"], False),
    (["history", "--json"], True), (["quotes", "list"], False), (["quotes", "list", "--json"], True),
    (["quotes", "list", "--purchase", "--json"], True),
    (["quotes", "add", "--provider", "A", "--gpu", "h100-sxm", "--price", "2", "--json"], True),
    (["quotes", "delete", "1", "--json"], True), (["quotes", "import", "quotes.csv", "--json"], True),
    (["quotes", "export", "out.csv"], False), (["probe", "import", "report.json", "--json"], True),
    (["probe", "--no-save"], False), (["memory", "--model", "7b", "--json"], True), (["memory", "--model", "7b"], False),
    (["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--json"], True),
    (["rentbuy", "--gpu", "h100-sxm", "--rent-per-gpu-hour", "2", "--json"], True), (["--version"], False),
    (["--help"], False), (["nonsense"], False),
)  # fmt: skip


@pytest.mark.parametrize("mode", ["closed", "broken"])
def test_closed_or_broken_stdout(seeded, mode):
    """`gpu-advisor ... >&-` (fd 1 closed) and `gpu-advisor ... | head -c0` (the reader has gone)."""
    fuzz = explorer("closed stdout")
    jobs = [(argv, fuzz.entry, {"cwd": seeded, "stdout": mode}) for argv, _ in ORDINARY]
    for run in run_children(jobs):
        fuzz.check(run)
    fuzz.finish()
