"""The QApplication and main(): window, high-DPI, palette, settings names, and `--screenshots DIR`.

`gpu-advisor` (desktop.entry) calls main(argv) when no subcommand is given. GUI options:
  --screenshots DIR   render every page offscreen (after its load_example()) to DIR/<page_id>.png, exit 0
  --lang en|ru        interface language for this run (Settings stores the default)
  --db PATH           database file (same as GPU_ADVISOR_DB)
The GUI process never imports torch; NVML is read on a pool thread, so the window appears at once.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from PySide6.QtCore import QCoreApplication
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from desktop.context import AppContext

DEFAULT_SCREENSHOT_SIZE = (1280, 820)
GUI_SWITCH_INTERVAL_S = 0.001


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gpu-advisor", add_help=False)
    parser.add_argument("--screenshots", metavar="DIR", default=None)
    parser.add_argument("--lang", choices=["en", "ru"], default=None)
    parser.add_argument("--db", default=None)
    args, _unknown = parser.parse_known_args(argv)  # Qt's own options (-style, -platform) pass through
    return args


def _icon() -> QIcon:
    from importlib.resources import files

    from PySide6.QtGui import QIcon

    icon = QIcon()
    try:
        folder = files("gpu_advisor_assets") / "icons"
        for size in (16, 24, 32, 48, 64, 128, 256):
            path = folder / f"gpu-advisor-{size}.png"
            if path.is_file():
                icon.addFile(str(path))
    except (ModuleNotFoundError, OSError):
        pass
    return icon


def apply_language(app: QCoreApplication, code: str | None) -> str:
    """Install the translators and default QLocale (numbers, dates) for ``code``; returns the language in effect.

    None or "" follows the system locale (Russian or English). See desktop/i18n.py.
    """
    from desktop.i18n import set_language

    return set_language(code, app)


def create_application(argv: list[str] | None = None) -> QApplication:
    """The one QApplication, configured: names for QSettings, icon, high-DPI policy (the chart palette: desktop.charts)."""
    from PySide6.QtCore import QCoreApplication, Qt
    from PySide6.QtGui import QGuiApplication
    from PySide6.QtWidgets import QApplication

    from desktop.context import APPLICATION, ORGANIZATION

    # The GUI thread takes the interpreter back from a busy worker (a search on a pool thread) within 1 ms
    # instead of Python's default 5 ms: every return from a Qt call waits for it, so under a running search
    # one redraw could otherwise wait tens of milliseconds (make bench: responsiveness).
    sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else None
    if app is None:
        # Fractional scaling (125 %, 150 %) renders crisply instead of rounding to whole multiples.
        QGuiApplication.setHighDpiScaleFactorRoundingPolicy(Qt.HighDpiScaleFactorRoundingPolicy.PassThrough)
        app = QApplication([sys.argv[0] if sys.argv else "gpu-advisor", *(argv or [])])
    QCoreApplication.setOrganizationName(ORGANIZATION)
    QCoreApplication.setApplicationName(APPLICATION)
    QGuiApplication.setApplicationDisplayName("GPU Advisor")
    QGuiApplication.setDesktopFileName("gpu-advisor")
    app.setWindowIcon(_icon())
    # The style follows the system's light or dark scheme (Qt 6.5+); charts take their colours from the palette
    # when their package is first imported (desktop/charts/__init__.py), after this application exists.
    if "desktop.charts" in sys.modules:  # imported before the application (a test, a tool): apply it now
        from desktop.charts.theme import apply_global_chart_theme

        apply_global_chart_theme()
    return app


def _qt_args(argv: list[str]) -> list[str]:
    """Arguments that are not ours (Qt's own, such as -platform offscreen)."""
    ours = {"--screenshots", "--lang", "--db"}
    rest, skip = [], False
    for arg in argv:
        if skip:
            skip = False
            continue
        if arg in ours:
            skip = True
            continue
        if arg.split("=", 1)[0] in ours:
            continue
        rest.append(arg)
    return rest


def main(argv: list[str]) -> int:
    args = parse_args(argv)
    if args.db:
        os.environ["GPU_ADVISOR_DB"] = args.db
    if args.screenshots:
        return take_screenshots(Path(args.screenshots), args.lang, explicit_db=bool(args.db))
    app = create_application(_qt_args(argv))
    from desktop.context import AppContext, make_qsettings

    apply_language(app, args.lang or str(make_qsettings().value("ui/language", "") or ""))
    from desktop.error_log import install_excepthook
    from desktop.main_window import MainWindow

    context = AppContext()
    install_excepthook(context.status_message.emit)  # a bug on the GUI thread: logged, and said in the status bar
    window = MainWindow(context)
    window.show()
    return app.exec()


# --------------------------------------------------------------------------------------------------------------
# Screenshots


def settle(
    app: QCoreApplication, context: AppContext | None = None, timeout_s: float = 10.0, quiet_ms: int = 400
) -> None:
    """Process events until background jobs are done and nothing new happened for ``quiet_ms`` (longer than the
    Plan page waits before its delayed searches: the scaling curves and the pool's comparison)."""
    deadline = time.monotonic() + timeout_s
    quiet_since = time.monotonic()
    while time.monotonic() < deadline:
        app.processEvents()
        busy = context is not None and context.jobs.running_count > 0
        if busy:
            quiet_since = time.monotonic()
        elif (time.monotonic() - quiet_since) * 1000 >= quiet_ms:
            return
        time.sleep(0.01)


def take_screenshots(directory: Path, lang: str | None = None, explicit_db: bool = False) -> int:
    """Render every page to DIR/<page_id>.png offscreen, each after its load_example(); returns 0.

    Unless --db was given, a fresh temporary database is used, and the window settings go to a temporary file,
    so the example data never lands in the user's own files.
    """
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    scratch = Path(tempfile.mkdtemp(prefix="gpu-advisor-shots-"))
    if not explicit_db:
        os.environ["GPU_ADVISOR_DB"] = str(scratch / "screenshots.sqlite")
    from desktop import context as context_module

    context_module.set_settings_path(str(scratch / "settings.ini"))
    app = create_application([])
    apply_language(app, lang or "en")
    from desktop.context import AppContext
    from desktop.main_window import MainWindow

    context = AppContext()
    window = MainWindow(context)
    window.resize(*DEFAULT_SCREENSHOT_SIZE)
    window.show()
    deadline = time.monotonic() + 15
    while not context.inventory_ready and time.monotonic() < deadline:
        settle(app, context, 0.2)
    directory.mkdir(parents=True, exist_ok=True)
    for page in window.pages:
        page.load_example()
        settle(app, context)
    written = []
    for page in window.pages:
        window.show_page(page.page_id)
        settle(app, context)
        target = directory / f"{page.page_id}.png"
        if not window.grab().save(str(target)):
            sys.stderr.write(f"gpu-advisor: could not write {target}\n")
            return 1
        written.append(target)
        # a page may show more than fits one view (the Plan page's goodput and mixed-pool tabs): <page_id>-<view>.png
        for view, show in getattr(page, "screenshot_views", dict)().items():
            show()
            settle(app, context)
            target = directory / f"{page.page_id}-{view}.png"
            if not window.grab().save(str(target)):
                sys.stderr.write(f"gpu-advisor: could not write {target}\n")
                return 1
            written.append(target)
    window.close()
    settle(app, context, 2.0)
    for target in written:
        print(target)
    return 0
