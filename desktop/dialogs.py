"""File dialogs that start where the user was last time for that kind of file, never in the process's working
directory (which, started from a desktop menu, is / or the install folder).

Each kind ("quotes-csv", "probe-report", "model", "export") remembers its own folder in QSettings; the first
time it is the user's Documents folder (or the home folder where there is none). Export folders may be new:
the folder dialog lets the user type a name that does not exist yet, and planner.exports.export_plan creates it.
"""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings, QStandardPaths
from PySide6.QtWidgets import QFileDialog, QWidget

KEY = "dialogs/{0}"


def _settings() -> QSettings:
    from desktop.context import make_qsettings

    return make_qsettings()


def start_folder(kind: str) -> str:
    """The folder a `kind` dialog opens in: the last one used, else Documents, else the home folder."""
    remembered = str(_settings().value(KEY.format(kind), "") or "")
    if remembered and Path(remembered).is_dir():
        return remembered
    documents = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.DocumentsLocation)
    if documents and Path(documents).is_dir():
        return documents
    return str(Path.home())


def remember(kind: str, path: str) -> None:
    """Remember the folder of a chosen file (or a chosen folder's parent, so the next export sits beside it)."""
    if not path:
        return
    chosen = Path(path)
    folder = chosen.parent if (chosen.suffix or kind == "export") else chosen
    settings = _settings()
    settings.setValue(KEY.format(kind), str(folder))
    settings.sync()


def open_file(parent: QWidget, kind: str, title: str, filters: str) -> str:
    path, _ = QFileDialog.getOpenFileName(parent, title, start_folder(kind), filters)
    remember(kind, path)
    return path


def save_file(parent: QWidget, kind: str, title: str, name: str, filters: str) -> str:
    path, _ = QFileDialog.getSaveFileName(parent, title, str(Path(start_folder(kind)) / name), filters)
    remember(kind, path)
    return path


def folder(parent: QWidget, kind: str, title: str) -> str:
    """An existing or a new folder (typed into the dialog's name field)."""
    path = QFileDialog.getExistingDirectory(parent, title, start_folder(kind))
    remember(kind, path)
    return path
