"""Each defect class of issue 14 (items 1, 3, 4, 5, 6, and three the harness found) as a test of the CORRECT
behaviour. Each was a strict xfail on the code before the fix (the BEFORE figures in tests/fuzz/README.md); the
fixes made them pass and their marks were removed, with their entries in tests/fuzz/known_defects.py.

The two item 1 tests (a model name written unquoted into launch.sh and accelerate_config.yaml) were
strict xfails until the exports branch (issue 17) landed; they pass now and their entries are gone.
Items 2 and 7 (the probe child's messages as the GUI reads them) are tested in tests/desktop.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from tests.fuzz.harness import (
    all_finite,
    judge,
    run_child,
    run_children,
    run_in_process,
    strict_json,
    table_counts,
)
from tests.fuzz.sandbox import fake_probe_command, populate, write_model_folder
from tests.fuzz.strategies import LLAMA, MARKER, base_report, commands, report_bytes
from tests.fuzz.test_exports import BASH, fake_launchers
from tests.fuzz.test_special_files import make_special


def assert_clean(run, *, accepted_ok: bool = True) -> str:
    """Exit 0 (when allowed) or exit 2 with one line on stderr; never a traceback, a hang or another exit."""
    verdict, violations = judge(run)
    allowed = ("accepted", "refused") if accepted_ok else ("refused",)
    assert verdict in allowed and not violations, f"{verdict}: {violations}\n{run.describe()}\n{run.stderr[-1500:]}"
    return verdict


def plan_export(model: Path, task: str, out: Path):
    argv = ["plan", "--model", str(model), "--gpu", "h100-sxm", "--gpus", "8", "--task", task, "--export", str(out)]
    return run_in_process(argv, "plan --export")


# ------------------------------------------------------------------------------------------------ item 1


@pytest.mark.parametrize(
    "where, task, name",
    [
        ("_name_or_path", "inference", f"evil$(touch {MARKER})"),
        ("_name_or_path", "finetune", f"evil\ntouch {MARKER}\n"),
        ("folder name", "finetune", f"evil\ntouch {MARKER}\n"),
        ("folder name", "inference", f"evil`touch {MARKER}`"),
    ],
)
def test_item1_exported_launch_script_never_runs_a_name_from_config_json(sandbox, where, task, name):
    if where == "folder name":
        model = write_model_folder(sandbox / "hub" / name, {k: v for k, v in LLAMA.items() if k != "_name_or_path"})
    else:
        model = write_model_folder(sandbox / "model", {**LLAMA, "_name_or_path": name})
    out = sandbox / "export"
    if assert_clean(plan_export(model, task, out)) == "refused":
        return
    assert subprocess.run([BASH, "-n", str(out / "launch.sh")], capture_output=True).returncode == 0
    env = {"PATH": str(fake_launchers(sandbox)), "HOME": str(out)}
    subprocess.run([BASH, str(out / "launch.sh")], cwd=out, env=env, capture_output=True, timeout=30, check=False)
    assert not [p for p in out.iterdir() if p.name.startswith(MARKER)], "launch.sh ran the model name"


def test_item1_accelerate_yaml_keeps_its_settings_whatever_the_model_name(sandbox):
    plain = write_model_folder(sandbox / "plain", LLAMA)
    hostile = write_model_folder(sandbox / "hostile", {**LLAMA, "_name_or_path": "x\ninjected_key: 1\nnum_machines: 64"})
    assert plan_export(plain, "finetune", sandbox / "plain-out").code == 0
    if assert_clean(plan_export(hostile, "finetune", sandbox / "hostile-out")) == "refused":
        return
    read = lambda folder: yaml.safe_load((sandbox / folder / "accelerate_config.yaml").read_text())  # noqa: E731
    assert read("hostile-out") == read("plain-out")


@pytest.mark.parametrize("command", ["plan --export", "memory --json"])
def test_item1_a_model_name_that_is_not_text_is_refused_or_cleaned(sandbox, command):
    model = sandbox / "model"
    model.mkdir()
    (model / "config.json").write_text(json.dumps({**LLAMA, "_name_or_path": "name\udcff"}))  # a \\udcff escape
    if command == "plan --export":
        assert_clean(plan_export(model, "finetune", sandbox / "out"))
    else:
        run = run_in_process(["memory", "--model", str(model), "--json"], "model files", wants_json=True)
        assert_clean(run)


# ------------------------------------------------------------------------------------------------ item 3


def import_report(sandbox: Path, report: dict, name: str = "report.json"):
    path = sandbox / name
    path.write_bytes(report_bytes(report))
    return run_in_process(["probe", "import", str(path), "--json"], "probe import", wants_json=True)


def hostile(change: str) -> dict:
    report = base_report()
    if change == "gpu name as an object":
        report["nvml"]["gpus"][0]["name"] = {"unavailable": "not supported"}
    elif change == "null name and uuid":
        report["devices"][0]["name"], report["devices"][0]["uuid"] = "", None
        report["nvml"]["gpus"][0]["name"], report["nvml"]["gpus"][0]["uuid"] = None, None
    elif change == "lone surrogate in the hostname":
        report["machine"]["hostname"] = "box\udcff"
    elif change == "5000-digit integer":
        report["machine"]["ram_bytes"] = 10**4999
    elif change == "integer past 2**63":
        report["devices"][0]["measurements"][0]["value"] = 2**63  # an int where a float is usual
    return report


@pytest.mark.parametrize("change", ["gpu name as an object", "null name and uuid", "lone surrogate in the hostname",
                                    "5000-digit integer", "integer past 2**63"])  # fmt: skip
def test_item3_probe_import_refuses_or_stores_hostile_reports(sandbox, change):
    run_in_process(["history"], "seed")
    before = table_counts(Path(os.environ["GPU_ADVISOR_DB"]))
    run = import_report(sandbox, hostile(change))
    if assert_clean(run) == "refused":
        assert table_counts(Path(os.environ["GPU_ADVISOR_DB"])) == before
    else:
        strict_json(run.stdout)


def absurd(value: float) -> dict:
    report = base_report()
    report["devices"][0]["measurements"][0]["value"] = value  # bf16 matmul, FLOP/s
    return report


@pytest.mark.parametrize("value", [1e308, 1e-300])
def test_item3_absurd_measurement_is_refused_at_import_naming_the_field(sandbox, value):
    run = import_report(sandbox, absurd(value))
    assert_clean(run, accepted_ok=False)
    assert "measurements[0]" in run.stderr


@pytest.mark.parametrize("value", [1e308, 1e-300])
def test_item3_plans_stay_finite_after_an_absurd_measurement(sandbox, value):
    import_report(sandbox, absurd(value))
    run = run_in_process(["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--json"], "plan",
                         wants_json=True)  # fmt: skip
    assert assert_clean(run) == "accepted"
    assert all_finite(strict_json(run.stdout))


@pytest.mark.slow
def test_item3_plan_after_a_20000_device_report_finishes(sandbox):
    (sandbox / "many.json").write_bytes(report_bytes(base_report(20_000)))
    imported = run_child(["probe", "import", "many.json"], "probe import", cwd=sandbox, timeout_s=60)
    if assert_clean(imported) == "refused":
        return
    # Minutes today; a linear calibration takes well under a second. 30 s leaves room for a busy machine.
    plan = run_child(["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--json"], "plan",
                     cwd=sandbox, timeout_s=30, wants_json=True)  # fmt: skip
    assert assert_clean(plan) == "accepted"


def test_item3_history_delete_removes_a_stored_run(sandbox):
    assert import_report(sandbox, base_report()).code == 0
    (run,) = strict_json(run_in_process(["history", "--json"], "history").stdout)["runs"]
    deleted = run_in_process(["history", "delete", str(run["id"])], "history delete")
    assert deleted.code == 0, deleted.stderr
    assert strict_json(run_in_process(["history", "--json"], "history").stdout)["runs"] == []


# ------------------------------------------------------------------------------------------------ item 4

SPECIAL_CASES = (  # (argv with "{}" for the path, where the special file goes, kind)
    (["--db", "{}", "quotes", "list"], "target", "fifo"),
    (["quotes", "import", "{}"], "target", "fifo"),
    (["quotes", "import", "{}"], "target", "dev-zero"),
    (["quotes", "import", "--purchase", "{}"], "target", "dev-urandom"),
    (["probe", "import", "{}"], "target", "fifo"),
    (["memory", "--model", "{folder}"], "config.json", "fifo"),
    (["memory", "--model", "{folder}"], "config.json", "dev-zero"),
    (["memory", "--model", "{folder}"], "model.safetensors", "fifo"),
    (["quotes", "export", "{}"], "target", "fifo"),
    (["probe", "--no-save", "--json", "{}"], "target", "fifo"),
    (["probe", "--no-save", "--json", "{}"], "target", "symlink-loop"),
)


@pytest.mark.slow
def test_item4_special_file_is_refused_not_hung(sandbox, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe_command())
    jobs = []
    for number, (template, where, kind) in enumerate(SPECIAL_CASES):
        folder = sandbox / f"case-{number}"
        model = write_model_folder(folder / "m", LLAMA)
        if where == "config.json":
            (model / "config.json").unlink()
        target = model / where if where != "target" else folder / where
        make_special(target, kind)
        argv = [a.replace("{}", str(target)).replace("{folder}", str(model)) for a in template]
        jobs.append((argv, "special files", {"cwd": folder, "timeout_s": 10}))
    problems = []
    for run in run_children(jobs, parallel=len(jobs)):
        verdict, violations = judge(run)
        if verdict != "refused" or violations:
            problems.append(f"{verdict} {violations}: {run.describe()}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("argv", [
    ["quotes", "add", "--provider", os.fsdecode(b"ab\xff"), "--gpu", "h100-sxm", "--price", "2"],
    ["quotes", "list", "--provider", os.fsdecode(b"\xc3\x28"), "--json"],
], ids=["quotes add --provider", "quotes list --provider"])  # fmt: skip
def test_item4_non_utf8_text_option_is_one_line(sandbox, argv):
    assert_clean(run_in_process(argv, "cli args", wants_json="--json" in argv))


@pytest.mark.parametrize("argv", [["memory", "--model", "m" * 300], ["probe", "--no-save", "--json", "r" * 300]],
                         ids=["memory --model", "probe --json"])  # fmt: skip
def test_item4_over_long_file_name_is_one_line(sandbox, monkeypatch, argv):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe_command())
    assert_clean(run_in_process(argv, "cli args"))


def test_item4_huge_quote_id_is_one_line(sandbox):
    assert_clean(run_in_process(["quotes", "delete", str(10**30)], "cli args"))


@pytest.mark.parametrize("argv", [
    ["plan", "--model", "7b", "--gpu=--", "--gpus", "8"],
    ["memory", "--model", "7b", "--lora-targets=--", "--task", "lora"],
    ["quotes", "add", "--provider=--", "--gpu", "h100-sxm", "--price", "2", "--json"],
], ids=["plan --gpu=--", "memory --lora-targets=--", "quotes add --provider=--"])  # fmt: skip
def test_item4_option_equals_double_dash_is_refused_or_taken_literally(sandbox, argv):
    run = run_in_process(argv, "cli args", wants_json="--json" in argv)
    if assert_clean(run) == "accepted" and "--json" in argv:
        assert strict_json(run.stdout)["provider"] == "--"


@pytest.mark.slow
@pytest.mark.parametrize("argv", [["models", "--json"], ["history", "--json"]], ids=" ".join)
def test_item4_closed_stdout_is_not_a_traceback(sandbox, argv):
    assert_clean(run_child(argv, "closed stdout", cwd=sandbox, stdout="closed"))


@pytest.mark.parametrize("where, text", [
    ("config.json", '{"a":' * 100_000 + "1" + "}" * 100_000),
    ("config.json", '{"model_type": "llama", "hidden_size": ' + "9" * 5000 + "}"),
    ("safetensors", '{"w": {"dtype": "F16", "shape": ' + "[" * 50_000 + "]" * 50_000 + ', "data_offsets": [0, 0]}}'),
    ("safetensors", '{"w": {"dtype": "F16", "shape": [' + "9" * 5000 + '], "data_offsets": [0, 0]}}'),
    ("safetensors", '{"w": {"dtype": "F16", "shape": [' + "9" * 400 + '], "data_offsets": [0, 0]}}'),
], ids=["config nested", "config 5000 digits", "safetensors nested", "safetensors 5000 digits",
        "safetensors 400 digits"])  # fmt: skip
def test_item4_hostile_json_in_model_files_is_one_line(sandbox, where, text):
    if where == "config.json":
        model = write_model_folder(sandbox / "model", text.encode())
    else:
        import struct

        body = text.encode()
        model = write_model_folder(sandbox / "model", LLAMA, (struct.pack("<Q", len(body)) + body,))
    assert_clean(run_in_process(["memory", "--model", str(model), "--json"], "model files", wants_json=True))


# ------------------------------------------------------------------------------------------------ item 5


def test_item5_thousands_separator_in_a_semicolon_csv_is_not_read_as_one(sandbox):
    (sandbox / "de.csv").write_text("provider;gpu;price_per_gpu_hour;currency;quoted_on\n"
                                    'Acme;h100-sxm;"1,000";USD;2026-09-10\n')  # fmt: skip
    run = run_in_process(["quotes", "import", "de.csv"], "quotes import")
    if assert_clean(run) == "refused":
        return
    (quote,) = strict_json(run_in_process(["quotes", "list", "--mine", "--json"], "list").stdout)["quotes"]
    warned = any(word in run.stderr.lower() for word in ("thousand", "ambiguous", "separator", "decimal"))
    assert quote["price_per_gpu_hour"]["amount"] == 1000.0 or warned


def test_item5_a_typed_leading_apostrophe_is_kept(sandbox):
    added = run_in_process(["quotes", "add", "--provider", "Acme", "--gpu", "h100-sxm", "--price", "2",
                            "--note", "'=not a formula", "--json"], "quotes add")  # fmt: skip
    assert strict_json(added.stdout)["note"] == "'=not a formula"
    # and the spreadsheet round trip keeps it: export, then import into a fresh database
    run_in_process(["quotes", "add", "--provider", "Beta", "--gpu", "h100-sxm", "--price", "3", "--note", "=x"], "add")
    assert run_in_process(["quotes", "export", "mine.csv"], "export").code == 0
    fresh = str(sandbox / "fresh.sqlite")
    assert run_in_process(["--db", fresh, "quotes", "import", "mine.csv"], "import").code == 0
    listed = strict_json(run_in_process(["--db", fresh, "quotes", "list", "--mine", "--json"], "list").stdout)
    assert sorted(q["note"] for q in listed["quotes"]) == ["'=not a formula", "=x"]


def test_item5_db_typo_naming_a_csv_is_refused_and_the_csv_kept(sandbox):
    populate(sandbox)
    original = (sandbox / "quotes.csv").read_bytes()
    run = run_in_process(["--db", "quotes.csv", "quotes", "list"], "cli args")
    assert_clean(run, accepted_ok=False)
    assert (sandbox / "quotes.csv").read_bytes() == original
    assert not list(sandbox.glob("quotes.csv.corrupt-*"))


@pytest.mark.parametrize("extra", [["--rent-per-gpu-hour", "1e308"],
                                   ["--rent-per-gpu-hour", "2", "--electricity-per-kwh", "1e308"]],
                         ids=["rent 1e308", "electricity 1e308"])  # fmt: skip
def test_item5_rentbuy_json_is_finite_for_huge_inputs(sandbox, extra):
    run = run_in_process(["rentbuy", "--gpu", "h100-sxm", *extra, "--json"], "cli args: rentbuy", wants_json=True)
    if assert_clean(run) == "accepted":
        assert all_finite(strict_json(run.stdout))


@contextlib.contextmanager
def read_only(folder: Path):
    """`folder` and every file in it read-only, as on read-only media. Root ignores file modes, so as root the
    files are made immutable (chattr +i) instead; the test is skipped where neither can be done."""
    files = [folder, *folder.iterdir()]
    if os.geteuid() != 0:
        for path in files:
            path.chmod(stat.S_IRUSR | stat.S_IXUSR if path.is_dir() else stat.S_IRUSR)
        try:
            yield
        finally:
            for path in files:
                path.chmod(0o755 if path.is_dir() else 0o644)
        return
    chattr = shutil.which("chattr")
    if not chattr or subprocess.run([chattr, "+i", *map(str, files)], capture_output=True).returncode != 0:
        subprocess.run([chattr or "chattr", "-i", *map(str, files)], capture_output=True)
        pytest.skip("running as root without chattr +i: cannot make a read-only database here")
    try:
        yield
    finally:
        subprocess.run([chattr, "-i", *map(str, files)], capture_output=True, check=True)


def test_item5_read_only_database_serves_reads(sandbox):
    folder = sandbox / "media"
    folder.mkdir()
    db = str(folder / "ledger.sqlite")
    assert run_in_process(["--db", db, "quotes", "add", "--provider", "Acme", "--gpu", "h100-sxm", "--price", "2"],
                          "add").code == 0  # fmt: skip
    with read_only(folder):
        listed = run_in_process(["--db", db, "quotes", "list", "--mine", "--json"], "list", wants_json=True)
        history = run_in_process(["--db", db, "history"], "history")
    assert assert_clean(listed) == "accepted"
    assert [q["provider"] for q in strict_json(listed.stdout)["quotes"]] == ["Acme"]
    assert assert_clean(history) == "accepted"


# ------------------------------------------------------------------------------------------------ item 6


def many_quotes(sandbox: Path) -> None:
    rows = "".join(f"Provider {i},h100-sxm,{2 + i / 1000:.3f},USD,2026-09-10,a note to make the export longer\n"
                   for i in range(1500))  # fmt: skip
    (sandbox / "many.csv").write_text("provider,gpu,price_per_gpu_hour,currency,quoted_on,note\n" + rows)
    assert run_in_process(["quotes", "import", "many.csv"], "import").code == 0


@pytest.mark.slow
def test_item6_failed_quotes_export_keeps_the_old_file(sandbox):
    many_quotes(sandbox)  # an export of ~140 KB
    (sandbox / "old.csv").write_text("the export I made last week\n")
    # No file may grow past 64 KiB (RLIMIT_FSIZE): the write fails with EFBIG part way, as on a full disk.
    run = run_child(["quotes", "export", "old.csv"], "quotes export", cwd=sandbox, file_size_limit=65536)
    assert_clean(run, accepted_ok=False)
    assert (sandbox / "old.csv").read_text() == "the export I made last week\n"


@pytest.mark.slow
def test_item6_failed_plan_export_keeps_the_old_files(sandbox):
    out = sandbox / "export"
    out.mkdir()
    for name in ("report.md", "launch.sh", "ds_config.json"):
        (out / name).write_text(f"last week's {name}\n")
    run = run_child(["plan", "--model", "7b", "--gpu", "h100-sxm", "--gpus", "8", "--spec-only", "--export",
                     "export"], "plan --export", cwd=sandbox, file_size_limit=1000)  # fmt: skip
    assert_clean(run, accepted_ok=False)
    for name in ("report.md", "launch.sh", "ds_config.json"):
        assert (out / name).read_text() == f"last week's {name}\n"


# ------------------------------------------------------------------------------------------------ new findings


@pytest.mark.parametrize("argv", [["quotes", "import", "bad\nname.csv"], ["probe", "import", "bad\nname.json"],
                                  ["memory", "--model", "models\nfolder"]],
                         ids=["quotes import", "probe import", "memory --model folder"])  # fmt: skip
def test_new_error_quoting_a_name_with_a_newline_is_one_line(sandbox, argv):
    (sandbox / "models\nfolder").mkdir()  # a folder without a config.json
    assert_clean(run_in_process(argv, "cli args"), accepted_ok=False)


@pytest.mark.slow
def test_new_a_long_model_name_does_not_stall_the_export(sandbox):
    write_model_folder(sandbox / "model", {**LLAMA, "_name_or_path": "d" * 5000})
    # Over a minute today (2,000 characters: 27 s); a linear wrap takes well under a second.
    run = run_child(["plan", "--model", "model", "--gpu", "h100-sxm", "--gpus", "8", "--task", "finetune",
                     "--spec-only", "--export", "out"], "plan --export", cwd=sandbox, timeout_s=20)  # fmt: skip
    assert_clean(run)


def test_new_quotes_export_onto_the_database_keeps_the_database(sandbox):
    db = os.environ["GPU_ADVISOR_DB"]
    assert run_in_process(["quotes", "add", "--provider", "Acme", "--gpu", "h100-sxm", "--price", "2"], "add").code == 0
    assert_clean(run_in_process(["quotes", "export", db], "quotes export"))
    listed = strict_json(run_in_process(["quotes", "list", "--mine", "--json"], "list").stdout)
    assert [q["provider"] for q in listed["quotes"]] == ["Acme"]



@pytest.mark.parametrize("command", [c.name for c in commands()])
def test_new_every_help_text_renders(sandbox, command):
    """Found by the harness after the round 3 merge: a help text with a bare "%" (argparse %-formats them) made
    `gpu-advisor plan --help` end in "ValueError: unsupported format character"."""
    run = run_in_process([*command.split(), "--help"], "cli args")
    assert assert_clean(run) == "accepted" and b"usage: gpu-advisor" in run.stdout
