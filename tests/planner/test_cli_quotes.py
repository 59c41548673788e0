"""`gpu-advisor quotes ...`, `probe`, `probe import` and `history` from the command line."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from planner.cli import main
from planner.store import RENTAL_COLUMNS, Store
from tests.fixtures.store_reports import report_dict, write_report

REPO = Path(__file__).resolve().parents[2]
ROW = {
    "provider": "Lambda",
    "offer": "8x",
    "gpu": "h100-sxm",
    "gpus_per_instance": "8",
    "price_per_gpu_hour": "2.99",
    "currency": "USD",
    "kind": "on-demand",
    "quoted_on": "2026-09-10",
}


def run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def write_csv(path: Path, rows: list[dict]) -> Path:
    with open(path, "w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(RENTAL_COLUMNS), extrasaction="ignore")
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_fresh_db_lists_reference_prices_marked(capsys, tmp_path):
    db = tmp_path / "fresh" / "ledger.sqlite"
    code, out, _ = run(capsys, "--db", str(db), "quotes", "list", "--gpu", "h100-sxm")
    assert code == 0 and db.exists()
    assert "reference" in out and "RunPod" in out and "3.49" in out
    assert "--mine hides them" in out
    code, out, _ = run(capsys, "--db", str(db), "quotes", "list", "--mine")
    assert code == 0 and out.startswith("you have no quotes of your own yet")


def test_add_then_list_json(capsys):
    code, out, _ = run(
        capsys,
        "quotes",
        "add",
        "--provider",
        "Lambda",
        "--gpu",
        "H100 SXM",
        "--gpus",
        "8",
        "--instance-price",
        "23.92",
        "--quoted-on",
        "2026-09-10",
        "--interconnect",
        "nvlink",
        "--min-term-hours",
        "1",
        "--json",
    )
    assert code == 0
    added = json.loads(out)
    # 23.92 USD per 8-GPU instance-hour = 2.99 USD per GPU-hour; a 1-hour minimum term is 3600 s.
    assert added["price_per_gpu_hour"] == {"amount": pytest.approx(2.99), "currency": "USD"}
    assert added["price_per_instance_hour"] == {"amount": 23.92, "currency": "USD"}
    assert (added["gpu"], added["origin"], added["min_term_s"]) == ("h100-sxm", "user", 3600.0)
    code, out, _ = run(capsys, "quotes", "list", "--mine", "--json")
    listed = json.loads(out)
    assert listed["kind"] == "rental" and [q["id"] for q in listed["quotes"]] == [added["id"]]
    code, out, _ = run(capsys, "quotes", "list", "--json", "--provider", "aws")
    assert {q["origin"] for q in json.loads(out)["quotes"]} == {"reference"}


def test_list_with_an_unknown_gpu_says_so(capsys):
    code, _, err = run(capsys, "quotes", "list", "--gpu", "H1OO")
    assert code == 2 and "unknown GPU 'H1OO' (did you mean h100-sxm?)" in err


def test_bad_add_is_one_line_exit_2(capsys):
    code, out, err = run(capsys, "quotes", "add", "--provider", "X", "--gpu", "H1OO", "--price", "0")
    assert code == 2 and out == ""
    assert err.count("\n") == 1
    assert (
        "gpu: unknown GPU 'H1OO' (did you mean h100-sxm?)" in err and "price_per_gpu_hour must be > 0" in err
    )


def test_import_two_bad_rows_of_ten(capsys, tmp_path):
    rows = [{**ROW, "offer": f"node-{i}"} for i in range(10)]
    rows[5]["price_per_gpu_hour"] = "0"  # spreadsheet row 7: the header is row 1
    rows[8]["kind"] = "hourly"  # row 10
    path = write_csv(tmp_path / "ten.csv", rows)
    code, out, err = run(capsys, "quotes", "import", str(path))
    assert code == 2
    lines = err.splitlines()
    assert lines[0] == "row 7: price_per_gpu_hour must be > 0"
    assert lines[1].startswith(
        "row 10: kind must be one of on-demand, spot, reserved-1y, reserved-3y, committed"
    )
    assert "refused: 2 bad row(s) of 10; nothing was imported" in lines[2] and "the 8 good row(s)" in lines[2]
    assert Store.open().rental_quotes.count(mine_only=True) == 0
    code, out, err = run(capsys, "quotes", "import", str(path), "--skip-invalid", "--json")
    assert code == 0
    result = json.loads(out)
    assert (result["added"], result["refused"], result["rows"]) == (8, False, 10)
    assert [e["row"] for e in result["errors"]] == [7, 10]
    code, out, _ = run(capsys, "quotes", "import", str(path), "--skip-invalid")
    assert code == 0 and "imported 0 rental quote(s)" in out and "8 duplicate(s) not added" in out


def test_export_import_round_trip_and_delete(capsys, tmp_path):
    run(
        capsys,
        "quotes",
        "add",
        "--provider",
        "Lambda",
        "--gpu",
        "h100-sxm",
        "--price",
        "2.99",
        "--quoted-on",
        "2026-09-10",
        "--note",
        "=cmd|' /C calc'!A0",
    )
    exported = tmp_path / "mine.csv"
    code, out, _ = run(capsys, "quotes", "export", str(exported))
    assert code == 0 and out.startswith("wrote 1 of your own quotes")
    assert "'=cmd" in exported.read_text(encoding="utf-8-sig")
    other = tmp_path / "other.sqlite"
    code, _, _ = run(capsys, "--db", str(other), "quotes", "import", str(exported))
    assert code == 0
    code, out, _ = run(capsys, "--db", str(other), "quotes", "list", "--mine", "--json")
    (quote,) = json.loads(out)["quotes"]
    assert quote["note"] == "=cmd|' /C calc'!A0" and quote["price_per_gpu_hour"]["amount"] == 2.99
    code, _, _ = run(capsys, "--db", str(other), "quotes", "delete", str(quote["id"]))
    assert code == 0
    code, out, err = run(capsys, "--db", str(other), "quotes", "delete", "1")
    assert code == 2 and "reference price shipped with GPU Advisor" in err


def test_export_all_and_purchase_quotes(capsys, tmp_path):
    code, out, _ = run(
        capsys,
        "quotes",
        "add-purchase",
        "--vendor",
        "Reseller",
        "--gpu",
        "h100-sxm",
        "--gpus",
        "8",
        "--price",
        "240000",
        "--quoted-on",
        "2026-09-10",
        "--server-overhead",
        "0.25",
        "--json",
    )
    assert code == 0
    # 240,000 USD for 8 GPUs = 30,000 USD per GPU.
    assert json.loads(out)["price_per_gpu"] == {"amount": 30000.0, "currency": "USD"}
    code, out, _ = run(capsys, "quotes", "list", "--purchase", "--mine", "--json")
    assert [q["vendor"] for q in json.loads(out)["quotes"]] == ["Reseller"]
    code, out, _ = run(capsys, "quotes", "export", str(tmp_path / "p.csv"), "--purchase", "--all")
    assert code == 0 and "reference prices included" in out
    code, out, _ = run(capsys, "quotes", "list", "--purchase")
    assert "reference" in out and "1,599.00" in out  # RTX 4090 launch MSRP (NVIDIA launch announcement)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"", "is empty"),
        (b"\xff\xfe\x00p\x00r", "is not UTF-8 text"),
        (b"provider,gpu,cost\n", "missing columns: currency, quoted_on; unknown columns: 'cost'"),
    ],
)
def test_import_file_problems(capsys, tmp_path, content, message):
    path = tmp_path / "in.csv"
    path.write_bytes(content)
    code, _, err = run(capsys, "quotes", "import", str(path))
    assert code == 2 and message in err and err.count("\n") == 1


def test_absurd_gpu_counts_and_prices_are_one_line_from_the_command_and_from_a_file(capsys, tmp_path):
    code, out, err = run(capsys, "quotes", "add", "--provider", "X", "--gpu", "h100-sxm", "--gpus", "1e23",
                         "--price", "2", "--quoted-on", "2026-09-01")  # fmt: skip
    assert code == 2 and out == "" and err.count("\n") == 1
    assert "gpus_per_instance must be a whole number between 1 and 100,000, got 1e23" in err
    path = write_csv(
        tmp_path / "in.csv", [{**ROW, "gpus_per_instance": "1e23"}, {**ROW, "price_per_gpu_hour": "1e308"}]
    )
    code, out, err = run(capsys, "quotes", "import", str(path), "--skip-invalid")
    assert code == 0 and "Traceback" not in err
    assert Store.open().rental_quotes.count(mine_only=True) == 0
    assert main(["quotes", "list", "--mine", "--json"]) == 0
    json.loads(capsys.readouterr().out, parse_constant=pytest.fail)  # strict JSON: no Infinity


def test_missing_file_is_a_clear_error(capsys, tmp_path):
    code, _, err = run(capsys, "quotes", "import", str(tmp_path / "nope.csv"))
    assert code == 2 and "no such file" in err


# ---------------------------------------------------------------------------------------------------------------
# probe, probe import, history
# ---------------------------------------------------------------------------------------------------------------


def test_probe_import_refuses_a_machine_label_longer_than_200_characters(capsys, tmp_path):
    # The label names the machine in every history table, like a report's hostname (capped by the loader).
    path = write_report(tmp_path / "rented.json", hostname="rented-box")
    code, _, err = run(capsys, "probe", "import", str(path), "--label", "x" * 201)
    assert code == 2 and err == "gpu-advisor: the machine label is 201 characters; the limit is 200\n"
    assert Store.open().probe_runs.all() == []
    assert run(capsys, "probe", "import", str(path), "--label", "x" * 200)[0] == 0


def test_probe_import_and_history(capsys, tmp_path):
    path = write_report(tmp_path / "rented.json", hostname="rented-box", bf16_flop_per_s=7.9e14)
    code, out, _ = run(capsys, "probe", "import", str(path), "--json")
    assert code == 0
    imported = json.loads(out)
    assert (imported["machine"], imported["source"]) == ("rented-box (imported)", "imported")
    code, out, _ = run(capsys, "history", "--json")
    (listed,) = json.loads(out)["runs"]
    assert listed["best_bf16_flop_per_s"] == 7.9e14 and listed["memory_bandwidth_bytes_per_s"] == 2.9e12
    assert listed["devices"] == ["NVIDIA H100 80GB HBM3"]
    code, out, _ = run(capsys, "history")
    # 7.9e14 FLOP/s = 790.0 TFLOPS; 2.9e12 B/s = 2,900.0 GB/s
    assert "790.0 TFLOPS" in out and "2,900.0 GB/s" in out and "rented-box (imported)" in out
    code, _, err = run(capsys, "probe", "import", str(path))
    assert code == 2 and "already stored as run" in err


def test_probe_import_refuses_an_invalid_report(capsys, tmp_path):
    bad = report_dict()
    del bad["devices"][0]["measurements"][0]["unit"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(bad))
    code, _, err = run(capsys, "probe", "import", str(path))
    assert code == 2 and "devices[0].measurements[0].unit" in err and err.count("\n") == 1
    path.write_text("{not json")
    code, _, err = run(capsys, "probe", "import", str(path))
    assert code == 2 and "not valid JSON" in err


FAKE_PROBE = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, {repo!r})
    from pathlib import Path
    from tests.fixtures.store_reports import write_report

    args = sys.argv[1:]
    if {fail!r}:
        print("CUDA error: device lost", file=sys.stderr)
        sys.exit(3)
    assert args[0] in ("--quick", "--full"), args
    write_report(Path(args[args.index("--json") + 1]), hostname="this-host", bf16_flop_per_s=1.5e12)
    print("GPU Advisor probe (quick)")  # what gpu-probe prints on stdout: a summary, then where the report went
    print(f"report written to {{args[args.index('--json') + 1]}}")
    """
)


def fake_probe(tmp_path: Path, fail: bool = False) -> str:
    script = tmp_path / ("fail_probe.py" if fail else "fake_probe.py")
    script.write_text(FAKE_PROBE.format(repo=str(REPO), fail=fail))
    return f"{sys.executable} {script}"


def test_probe_runs_the_child_and_saves_this_machine(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe(tmp_path))
    kept = tmp_path / "kept.json"
    code, out, _ = run(capsys, "probe", "--quick", "--json", str(kept))
    assert code == 0 and "saved probe run #1 for this machine" in out
    assert json.loads(kept.read_text())["machine"]["hostname"] == "this-host"
    (listed,) = Store.open().probe_runs.all()
    assert (listed.machine, listed.source, listed.best_bf16_flop_per_s) == (
        "this machine",
        "local",
        1.5e12,
    )
    code, out, _ = run(capsys, "probe", "--full", "--no-save")
    assert code == 0 and "not saved" in out


def test_probe_names_only_a_report_file_that_exists(capfd, tmp_path, monkeypatch):
    # Without --json FILE the child writes its report to a temporary file that is deleted once it is stored:
    # the output must not send the user looking for it, but say where the run went (the store's run id).
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe(tmp_path))
    assert main(["probe", "--quick"]) == 0
    out = capfd.readouterr().out  # file descriptors: the child's own stdout included
    assert "GPU Advisor probe (quick)" in out and "saved probe run #1 for this machine" in out
    assert "report written to" not in out
    kept = tmp_path / "kept.json"
    assert main(["probe", "--quick", "--json", str(kept), "--no-save"]) == 0
    out = capfd.readouterr().out
    assert f"report written to {kept}" in out and kept.exists()


def test_probe_failure_saves_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe(tmp_path, fail=True))
    code, _, err = run(capsys, "probe")
    assert code == 2 and "gpu-probe failed with exit code 3; nothing was saved" in err
    assert Store.open().probe_runs.all() == []


@pytest.mark.slow
def test_probe_command_never_imports_torch_in_the_cli_process(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO), "GPU_ADVISOR_PROBE_CMD": fake_probe(tmp_path)}
    code = (
        "import sys\n"
        "from planner.cli import main\n"
        "rc = main(['probe', '--quick'])\n"
        "assert 'torch' not in sys.modules, 'the CLI imported torch'\n"
        "sys.exit(rc)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_probe_report_file_in_a_missing_folder_is_refused_in_one_line_before_probing(
    capsys, tmp_path, monkeypatch
):
    # If the child ran, this command would fail with a different message ("cannot start gpu-probe").
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", str(tmp_path / "no-such-probe"))
    code, _, err = run(capsys, "probe", "--quick", "--json", str(tmp_path / "missing" / "report.json"))
    assert code == 2 and err.count("\n") == 1, err
    assert err.startswith("gpu-advisor: cannot write") and "no such folder" in err


def test_probe_never_saves_a_report_left_in_the_json_file_by_an_earlier_run(capsys, tmp_path, monkeypatch):
    """issue 30 item 6: a child that writes no report (here: a no-op command) left FILE's old report to be saved
    as a new run; the child now writes into this run's own folder, so nothing is saved and FILE is untouched."""
    stale = tmp_path / "report.json"
    write_report(stale)
    before = stale.read_bytes()
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", f"{sys.executable} -c pass")
    code, _, err = run(capsys, "probe", "--json", str(stale))
    assert code == 2 and err.count("\n") == 1
    assert Store.open().probe_runs.all() == [] and stale.read_bytes() == before
