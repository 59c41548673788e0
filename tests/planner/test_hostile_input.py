"""Issue 14's fixes at the unit level: the file reader and writer (planner/files.py), the CSV number rule and the
formula guard's round trip (planner/store/quotes.py). The fuzzing harness (tests/fuzz/) drives the same code
through the CLI with generated input; these pin each rule with a hand-written case."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

from planner.errors import UserError
from planner.files import read_user_file, write_all_atomically, write_atomically
from planner.store.quotes import clean_rental_quote, guard_formula, unguard_formula

QUOTE = {"provider": "Acme", "gpu": "h100-sxm", "currency": "USD", "quoted_on": "2026-09-10"}


def price_of(text: str) -> tuple[float | None, list[str]]:
    row, reasons = clean_rental_quote({**QUOTE, "price_per_gpu_hour": text})
    return row["price_per_gpu_hour"], [reason.text for reason in reasons]


@pytest.mark.parametrize("text, meant", [
    ("2,99", 2.99),  # a decimal comma
    ("1,234.50", 1234.5),  # both marks: the last is the decimal mark
    ("1.234,50", 1234.5),
    ("1,000,000", 1_000_000.0),  # two of one mark: grouping
    ("1.000.000", 1_000_000.0),
    ("1000", 1000.0),
])  # fmt: skip
def test_numbers_with_separators_are_read_by_the_stated_rule(text, meant):
    price, reasons = price_of(text)
    assert reasons == [] and price == pytest.approx(meant)


@pytest.mark.parametrize("text", ["1,000", "3,490", "-1,000"])
def test_one_comma_before_three_digits_is_refused_as_ambiguous(text):
    price, reasons = price_of(text)
    assert price is None and len(reasons) == 1 and "ambiguous" in reasons[0]


@pytest.mark.parametrize(
    "typed", ["=SUM(A1)", "+7", "-5% promo", "@x", "'=not a formula", "''", "plain", "'quoted"]
)
def test_the_export_guard_round_trips_every_text(typed):
    assert unguard_formula(guard_formula(typed)) == typed


def test_typed_text_keeps_its_leading_apostrophe():
    row, reasons = clean_rental_quote({**QUOTE, "price_per_gpu_hour": "2", "note": "'=not a formula"})
    assert reasons == [] and row["note"] == "'=not a formula"


def test_a_fifo_is_refused_at_once(tmp_path):
    fifo = tmp_path / "quotes.csv"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="FIFO"):  # without O_NONBLOCK the open() would wait for a writer
        read_user_file(fifo, 1000)


def test_an_endless_device_and_a_folder_are_refused(tmp_path):
    with pytest.raises(UserError, match="is a device, not a regular file"):
        read_user_file("/dev/zero", 1000)
    with pytest.raises(UserError, match="is a folder, not a regular file"):
        read_user_file(tmp_path, 1000)


def test_a_file_over_the_bound_is_refused_naming_both_sizes(tmp_path):
    big = tmp_path / "big.json"
    big.write_bytes(b"x" * 1001)
    with pytest.raises(UserError, match="1001 bytes; the limit is 1000 bytes"):
        read_user_file(big, 1000)
    assert read_user_file(big, 1001) == b"x" * 1001


def test_writing_over_a_fifo_is_refused_and_the_fifo_kept(tmp_path):
    fifo = tmp_path / "out.csv"
    os.mkfifo(fifo)
    with pytest.raises(UserError, match="FIFO"):
        write_atomically(fifo, "a,b\n")
    assert fifo.is_fifo()


def test_a_write_that_fails_part_way_keeps_every_old_file(tmp_path):
    """A file-size limit (RLIMIT_FSIZE, as a full disk) makes the second of two files fail: both old files stay,
    and no temporary file is left behind. Run in a child so that the limit does not touch this process."""
    (tmp_path / "a.txt").write_text("old a\n")
    (tmp_path / "b.txt").write_text("old b\n")
    script = textwrap.dedent(f"""
        import resource, sys
        from pathlib import Path
        from planner.errors import UserError
        from planner.files import write_all_atomically
        resource.setrlimit(resource.RLIMIT_FSIZE, (4096, 4096))
        folder = Path({str(tmp_path)!r})
        try:
            write_all_atomically({{folder / "a.txt": "new a\\n", folder / "b.txt": "b" * 10000}})
        except UserError as exc:
            print(exc)
            sys.exit(2)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, done.stderr
    assert "cannot write" in done.stdout and "b.txt" in done.stdout
    assert (tmp_path / "a.txt").read_text() == "old a\n" and (tmp_path / "b.txt").read_text() == "old b\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "b.txt"]


def test_a_successful_write_replaces_the_files_and_keeps_their_mode(tmp_path):
    script = tmp_path / "launch.sh"
    script.write_text("old\n")
    script.chmod(0o700)
    write_all_atomically({script: "new\n", tmp_path / "fresh.txt": b"bytes"})
    assert script.read_text() == "new\n" and (script.stat().st_mode & 0o777) == 0o700
    assert (tmp_path / "fresh.txt").read_bytes() == b"bytes"
