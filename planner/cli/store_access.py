"""Opening the ledger for a CLI command: one line on stderr when a damaged database had to be moved aside."""

from __future__ import annotations

import sys
from typing import Any

from planner.errors import UserError
from planner.messages import msg
from planner.store import Store, StoreProtocol, default_db_path


def open_store() -> StoreProtocol:
    """The Store at --db / GPU_ADVISOR_DB / the user data folder (the dispatcher has already applied --db)."""
    path = default_db_path()

    def waiting() -> None:
        sys.stderr.write(
            f"gpu-advisor: waiting: another GPU Advisor window or command is writing to {path} "
            "(e.g. a long import); this command goes on when it has finished\n"
        )

    try:
        store = Store.open(path, on_wait=waiting)
    except OSError as exc:  # the file system refused something Store.open does not explain itself
        reason = exc.strerror or str(exc)
        raise UserError.of(msg("error.db_cannot_use", path=str(exc.filename or ""), reason=reason)) from None
    if store.recovered_from is not None:
        sys.stderr.write(
            f"gpu-advisor: the database {store.path} could not be read; it was moved to {store.recovered_from} "
            "and a fresh one was created\n"
        )
    return store


SQLITE_MAX_ROW_ID = 2**63 - 1


def row_id(text: str) -> int:
    """argparse type for a stored row's id: a whole number 1..2**63-1 (SQLite's INTEGER range); a bigger one
    is no id that can exist, and refused in one line instead of an OverflowError in SQLite."""
    import argparse

    try:
        number = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid id: {text[:40]!r} (a whole number)") from None
    if not 1 <= number <= SQLITE_MAX_ROW_ID:
        raise argparse.ArgumentTypeError(f"invalid id: {text[:40]!r} (ids run from 1 to {SQLITE_MAX_ROW_ID})")
    return number


def money(amount: float | None, currency: str | None) -> dict[str, Any] | None:
    """Money as the CLI's JSON writes it: {"amount", "currency"} (None when there is no amount)."""
    return None if amount is None else {"amount": amount, "currency": currency}


def table(headers: list[str], rows: list[list[str]]) -> str:
    """A plain text table with columns padded to their widest cell."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(headers, *rows, strict=True)]
    lines = [
        "  ".join(str(cell).ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip()
        for line in [headers, *rows]
    ]
    return "\n".join(lines)
