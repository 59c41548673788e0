"""Quote CSVs as spreadsheets in different locales save them, imported through `gpu-advisor quotes import`.

Properties: exit 0, or exit 2 with the bad rows and one summary line; never a traceback or a hang; a refused
import writes nothing (row counts of every table compared); what an accepted import stores is what the file
meant: the price per GPU-hour the spreadsheet showed (a thousands separator read as a decimal mark is a 1000x
error unless a warning says so; "1,000" and, in a semicolon file, "1.000" are refused as ambiguous), and text
cells as typed (surrounding whitespace aside; a leading "'" before =, +, -, @ or another "'" is the guard
`quotes export` writes, and is read as one: planner.store.quotes.unguard_formula).
"""

from __future__ import annotations

import itertools
import math
import os
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from planner.store.quotes import unguard_formula
from tests.fuzz.harness import (
    Violation,
    explorer,
    fuzz_settings,
    run_in_process,
    strict_json,
    table_counts,
)
from tests.fuzz.strategies import hostile_text, quote_csv

pytestmark = pytest.mark.slow

COUNTER = itertools.count()
# An import may read an ambiguous number by an explicit rule if it says so (issue 14): a stderr line with one
# of these words counts as that warning.
WARNING_WORDS = ("thousand", "ambiguous", "separator", "decimal", "locale")
GPU_IDS = {"h100-sxm": "h100-sxm", "H100 SXM": "h100-sxm", "a100-sxm-80gb": "a100-sxm-80gb", "rtx-4090": "rtx-4090"}


def stored_problems(quote_file, stored: list[dict], warned: bool) -> list[Violation]:
    """Each stored quote must be one the file meant, with its price and its text as typed."""
    meant = {row.provider.strip(): row for row in quote_file.rows}
    problems = []
    for quote in stored:
        row = meant.get(quote["provider"])
        if row is None:
            typed = next((r.provider for r in quote_file.rows if r.provider.strip().lstrip("'") == quote["provider"]), "")
            hint = "[leading-apostrophe] " if typed.strip().startswith("'") else ""
            problems.append(Violation("wrong-value", f"{hint}provider stored as {quote['provider']!r}"))
            continue
        amount = quote["price_per_gpu_hour"]["amount"]
        if not math.isclose(amount, row.price, rel_tol=1e-9) and not warned:
            grouped = quote_file.locale.thousands and quote_file.locale.thousands in row.price_text
            hint = "[thousands-separator] " if grouped else ""
            problems.append(Violation("wrong-value", f"{hint}price {row.price_text!r} (meant {row.price:g}) "
                                                     f"stored as {amount:g} without a warning"))  # fmt: skip
        if quote["note"] != unguard_formula(row.note).strip():  # "'=x" in a CSV is the export's guard of "=x"
            hint = "[leading-apostrophe] " if row.note.strip().startswith("'") else ""
            problems.append(Violation("wrong-value", f"{hint}note {row.note!r} stored as {quote['note']!r}"))
        if quote["gpu"] != GPU_IDS[row.gpu]:
            problems.append(Violation("wrong-value", f"gpu {row.gpu!r} stored as {quote['gpu']!r}"))
    return problems


def test_rental_quote_csv_import(sandbox):
    fuzz = explorer("quotes CSV import (rental)")

    @fuzz_settings(2.0)
    @given(quote_csv(), st.booleans())
    def explore(quote_file, skip_invalid):
        number = next(COUNTER)
        db = sandbox / f"quotes-{number}.sqlite"
        path = sandbox / f"quotes-{number}.csv"
        path.write_bytes(quote_file.data)
        assert run_in_process(["--db", str(db), "history"], "seed").code == 0  # a fresh ledger, seeded
        before = table_counts(db)
        argv = ["--db", str(db), "quotes", "import", str(path), "--json", *(["--skip-invalid"] * skip_invalid)]
        run = run_in_process(argv, fuzz.entry, wants_json=True)
        extra = []
        if run.code == 2 and table_counts(db) != before:
            extra.append(Violation("db-written", "a refused import changed the database"))
        if run.code == 0:
            listed = run_in_process(["--db", str(db), "quotes", "list", "--mine", "--json"], "list")
            warned = any(word in run.stderr.lower() for word in WARNING_WORDS)
            extra += stored_problems(quote_file, strict_json(listed.stdout)["quotes"], warned)
        fuzz.check(run, extra)
        for leftover in (db, path):
            leftover.unlink(missing_ok=True)

    explore()
    fuzz.finish()


PURCHASE_HEADER = "vendor,gpu,gpus,price,currency,quoted_on,server_overhead_fraction,power_w,note"


def test_purchase_quote_csv_import(sandbox):
    """Purchase files: hostile cells in every column; all or nothing."""
    fuzz = explorer("quotes CSV import (purchase)")
    hostile = st.one_of(hostile_text, st.sampled_from(("1e308", "-1", "0", "nan", "1,000", "1.000,50", "'=1+1",
                                                       "2026-02-30", "usd", "9" * 400, "")))  # fmt: skip
    row = st.tuples(st.lists(st.tuples(st.integers(0, 8), hostile), max_size=2), hostile_text)

    @fuzz_settings(1.0)
    @given(st.lists(row, min_size=1, max_size=4), st.sampled_from((",", ";")), st.booleans())
    def explore(changes, delimiter, skip_invalid):
        import csv
        import io

        rows = []
        for number, (cells, note) in enumerate(changes):
            values = [f"v{number}", "h100-sxm", "8", "240000", "USD", "2026-09-10", "0.25", "700", note]
            for column, value in cells:
                values[column] = value
            rows.append(values)

        buffer = io.StringIO(newline="")
        writer = csv.writer(buffer, delimiter=delimiter)
        writer.writerow(PURCHASE_HEADER.split(","))
        writer.writerows(rows)
        path = sandbox / f"purchase-{next(COUNTER)}.csv"
        path.write_bytes(buffer.getvalue().encode("utf-8", "surrogateescape"))
        db = Path(os.environ["GPU_ADVISOR_DB"])
        run_in_process(["history"], "seed")
        before = table_counts(db)
        argv = ["quotes", "import", "--purchase", str(path), "--json", *(["--skip-invalid"] * skip_invalid)]
        run = run_in_process(argv, fuzz.entry, wants_json=True)
        extra = []
        if run.code == 2 and table_counts(db) != before:
            extra.append(Violation("db-written", "a refused import changed the database"))
        fuzz.check(run, extra)

    explore()
    fuzz.finish()
