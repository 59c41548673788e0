"""Every `gpu-advisor` subcommand against generated arguments (in this process, through desktop.entry.main).

Properties: exit 0, or exit 2 with one line on stderr; never a traceback or a hang; --json prints strict JSON;
a refused command writes nothing to the database; a --db that names a file that is not SQLite is not moved
aside; what `quotes add --json` says it stored is what was typed (less surrounding whitespace).
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import pytest
from hypothesis import given

from tests.fuzz.harness import (
    Violation,
    explorer,
    fuzz_settings,
    is_sqlite,
    moved_aside,
    run_in_process,
    strict_json,
    table_counts,
)
from tests.fuzz.sandbox import fake_probe_command, populate
from tests.fuzz.strategies import command_line, commands

pytestmark = pytest.mark.slow

COMMANDS = commands()
# Costly commands (a plan search, a probe child) get fewer examples; the cheap ones more.
WEIGHTS = {"plan": 1.5, "memory": 1.5, "quotes add": 1.5, "rentbuy": 1.5, "probe": 0.3, "validate": 0.2}
# `validate` replays the shipped validation set with leave-one-out refits (about 9 s of CPU whatever its
# arguments): a longer limit, so a busy machine is not read as a hang.
TIMEOUTS_S = {"validate": 120.0}
TEXT_FIELDS = ("provider", "offer", "region", "source", "note", "vendor")


def seed(sandbox: Path) -> None:
    """A database with the fixture quotes and one probe run, so list, delete and plan have rows to work on."""
    for argv in (["quotes", "import", "quotes.csv"], ["quotes", "import", "--purchase", "purchase.csv"],
                 ["probe", "import", "report.json"]):  # fmt: skip
        run = run_in_process(argv, "seed")
        assert run.code == 0, run.stderr


def stored_text_problems(argv: list[str], stdout: bytes) -> list[Violation]:
    """`quotes add ... --json`: each text option given is stored as typed (whitespace around it aside)."""
    stored = strict_json(stdout)
    given_values: dict[str, str] = {}
    for index, arg in enumerate(argv):
        name, equals, value = arg.partition("=")
        if not equals and index + 1 < len(argv):
            value = argv[index + 1]
        field = name.removeprefix("--")
        if field in TEXT_FIELDS and name.startswith("--"):
            given_values[field] = value
    problems = []
    for field, typed in given_values.items():
        kept = stored.get(field) if isinstance(stored, dict) else None
        if kept != typed.strip():
            hint = "[leading-apostrophe] " if typed.strip().startswith("'") else ""
            problems.append(Violation("wrong-value", f"{hint}{field} {typed!r} stored as {kept!r}"))
    return problems


def finite_prices(stdout: bytes) -> list[Violation]:
    payload = strict_json(stdout)
    prices = [payload.get(key) for key in ("price_per_gpu_hour", "price_per_instance_hour", "price")]
    amounts = [p["amount"] for p in prices if isinstance(p, dict) and isinstance(p.get("amount"), float)]
    return [Violation("wrong-value", f"price {a!r}") for a in amounts if not math.isfinite(a) or a <= 0]


@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c.name)
def test_every_subcommand_survives_generated_arguments(command, sandbox, monkeypatch):
    monkeypatch.setenv("GPU_ADVISOR_PROBE_CMD", fake_probe_command())
    populate(sandbox)
    seed(sandbox)
    db = Path(os.environ["GPU_ADVISOR_DB"])
    fuzz = explorer(f"cli args: {command.name}")

    @fuzz_settings(WEIGHTS.get(command.name, 1.0))
    @given(command_line(command))
    def explore(case):
        argv, wants_json = case
        populate(sandbox)
        before = table_counts(db)
        was_sqlite = is_sqlite(db)
        run = run_in_process(argv, fuzz.entry, wants_json=wants_json,
                             **({"timeout_s": TIMEOUTS_S[command.name]} if command.name in TIMEOUTS_S else {}))
        extra = [Violation("moved-aside", f"{p.name}") for p in moved_aside(sandbox)]
        if was_sqlite and not is_sqlite(db):
            if not any(arg.startswith("--db") for arg in argv):  # it destroyed the database it was using
                extra.append(Violation("db-destroyed", "the database file is no longer SQLite after this command"))
            db.unlink()  # (with --db elsewhere it merely overwrote a file it was told to write)
            seed(sandbox)
        for path in moved_aside(sandbox):
            path.unlink()  # a fixture file the store renamed; populate() writes it again
        if run.code == 2 and before and table_counts(db) != before:
            extra.append(Violation("db-written", "a refused command changed the database"))
        if command.name in ("quotes add", "quotes add-purchase") and run.code == 0 and wants_json:
            extra += stored_text_problems(argv, run.stdout) + finite_prices(run.stdout)
        fuzz.check(run, extra)

    explore()
    fuzz.finish()
