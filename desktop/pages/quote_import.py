"""A quote CSV's import: which kind a file holds, the preview of every row it would refuse (with the reason), the
import itself on a pool thread, and the dialog that shows the preview before anything is written.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop.messages import render
from desktop.quote_pricing import (
    LoadProgress,
)
from planner.messages import Message

if TYPE_CHECKING:
    from planner.store import ImportResult, StoreProtocol
    from planner.store.protocols import PurchaseQuoteStore, RentalQuoteStore


PREVIEW_ROWS_SHOWN = 500  # the preview lists this many bad rows; the count says how many there are in all

# --------------------------------------------------------------------------------------------------------------
# CSV preview (pool thread; no widgets)


@dataclass
class ImportPreview:
    path: str
    kind: str
    total: int = 0
    good: int = 0
    bad_rows: int = 0
    errors: list[tuple[int, Message]] = field(default_factory=list)  # (spreadsheet row, reason): the first ones


def detect_quote_kind(path: str) -> str | None:
    """ "rental" or "purchase" from the CSV header (a purchase sheet names vendor and price), None if unclear."""
    try:
        with open(path, encoding="utf-8-sig", errors="replace") as handle:
            header = handle.readline().lower()
    except OSError:
        return None
    cells = {cell.strip() for cell in header.replace(";", ",").split(",")}
    if {"vendor", "price"} <= cells:
        return "purchase"
    if "provider" in cells:
        return "rental"
    return None


def preview_csv(
    store: StoreProtocol, path: str, kind: str, progress: LoadProgress | None = None
) -> ImportPreview:
    """Read and validate every row exactly as the import will, without writing anything. The file streams
    through (a million rows in bounded memory); the preview keeps the first PREVIEW_ROWS_SHOWN reasons."""
    from planner.store.quote_csv import open_quote_csv, stream_quote_csv
    from planner.store.quotes import PURCHASE, RENTAL

    spec = RENTAL if kind == "rental" else PURCHASE
    handle = open_quote_csv(Path(path))  # UserError for a file-level problem
    size = max(Path(path).stat().st_size, 1)
    resolver = store.user_gpus.resolver()
    preview = ImportPreview(path=path, kind=kind)
    for row_number, row in stream_quote_csv(path, spec, handle):
        preview.total += 1
        reasons = [row] if isinstance(row, Message) else spec.clean(row, resolver)[1]
        if reasons:
            preview.bad_rows += 1
            room = PREVIEW_ROWS_SHOWN + 1 - len(preview.errors)  # one more: the dialog says when there are more
            preview.errors.extend((row_number, reason) for reason in reasons[:room])
        else:
            preview.good += 1
        if progress is not None and preview.total % 2000 == 0 and not handle.closed:
            progress(handle.tell() / size, "checking")
    return preview


def import_csv(
    store: StoreProtocol, path: str, kind: str, progress: LoadProgress | None = None
) -> ImportResult:
    """Import a quote CSV (on a pool thread); what it did, with the batch of rows it added (undo takes the
    batch back by its ids in the store: no row of it is held here)."""
    quotes: RentalQuoteStore | PurchaseQuoteStore = (
        store.rental_quotes if kind == "rental" else store.purchase_quotes
    )

    def report(stage: str, done: int, total: int) -> None:
        if progress is not None:
            progress(done / total if total else 0.0, stage)

    return quotes.import_csv(path, skip_invalid=True, progress=report)


class ImportPreviewDialog(QDialog):
    """What an import would do: rows ready, rows refused with their reasons; nothing written until OK."""

    def __init__(self, preview: ImportPreview, parent: QWidget | None = None):
        super().__init__(parent)
        self.preview = preview
        self.setWindowTitle(self.tr("Import preview"))
        summary = QLabel(self)
        summary.setWordWrap(True)
        summary.setText(
            self.tr(
                "{0}: {1} rows, <b>{2} ready to import</b>, {3} refused (listed below; they will be skipped)."
            ).format(preview.path, preview.total, preview.good, preview.bad_rows)
        )
        shown = preview.errors[:PREVIEW_ROWS_SHOWN]
        self.table = QTableWidget(len(shown), 2, self)
        self.table.setTabKeyNavigation(False)  # Tab goes on to the dialog's buttons
        self.table.setHorizontalHeaderLabels([self.tr("Row"), self.tr("Reason")])
        for position, (row_number, reason) in enumerate(shown):
            number = QTableWidgetItem(str(row_number))
            number.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            self.table.setItem(position, 0, number)
            self.table.setItem(position, 1, QTableWidgetItem(render(reason)))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.resizeColumnToContents(0)
        self.table.setVisible(bool(shown))
        self.buttons = QDialogButtonBox(self)
        self.import_button = self.buttons.addButton(
            self.tr("Import valid rows ({0})").format(preview.good), QDialogButtonBox.ButtonRole.AcceptRole
        )
        self.import_button.setEnabled(preview.good > 0)
        self.buttons.addButton(QDialogButtonBox.StandardButton.Cancel)
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(summary)
        if len(preview.errors) > PREVIEW_ROWS_SHOWN:
            layout.addWidget(
                QLabel(self.tr("Showing the first {0} problems.").format(PREVIEW_ROWS_SHOWN), self)
            )
        layout.addWidget(self.table, 1)
        layout.addWidget(self.buttons)
        self.resize(720, 420 if shown else 160)
