"""The main window: navigation between the five pages, menus, status bar, remembered geometry and page."""

from __future__ import annotations

import functools
import platform
import sys
from typing import Any

from PySide6.QtCore import QRect, QSignalBlocker, QSize, Qt, QTimer, qVersion
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence, QPaintEvent, QUndoGroup
from PySide6.QtWidgets import (
    QLabel,
    QListWidget,
    QListWidgetItem,
    QMainWindow,
    QMessageBox,
    QProgressBar,
    QSplitter,
    QStackedWidget,
    QStyle,
    QWidget,
)
from shiboken6 import isValid

from desktop.context import AppContext
from desktop.pages.registry import PAGE_IDS, PAGES, page_title
from desktop.wheel_guard import ensure_wheel_guard

GEOMETRY_KEY = "window/geometry"
STATE_KEY = "window/state"
PAGE_KEY = "window/page"
DEFAULT_SIZE = QSize(1280, 820)
WARM_IMPORT_DELAY_MS = 300  # after the window's first paints: a thread importing meanwhile would slow them
# pages that need pyqtgraph and the planner: remembered as the last page shown, the window shows first and the page
# is built once both are imported on pool threads (built before the window, it held it back 4-5 s)
OPENED_AFTER_IMPORTS = ("plan", "rent_buy")
# pages built hidden in idle turns once their widgets are on the shelf (desktop/shelf.py): a first click only shows
# them (building one on the click was 30-40 ms of the GUI thread before its first layout and paint)
BUILT_AHEAD = ("plan", "rent_buy")
LAY_OUT_TRIES = 100  # idle steps (20 ms apart, or more) a page built ahead waits for its jobs before its layout
QUIET_STEPS = 3  # ... and how many of them in a row must find it with no job running and no timer due

# Standard icons per page (no image files needed; they follow the platform style).
_PAGE_ICONS = {
    "hardware": QStyle.StandardPixmap.SP_ComputerIcon,
    "quotes": QStyle.StandardPixmap.SP_FileDialogDetailedView,
    "plan": QStyle.StandardPixmap.SP_FileDialogContentsView,
    "rent_buy": QStyle.StandardPixmap.SP_DialogApplyButton,
    "settings": QStyle.StandardPixmap.SP_FileDialogInfoView,
}


def package_version(name: str) -> str | None:
    """Installed distribution version, read from metadata (never imports the package: torch stays out)."""
    from importlib.metadata import PackageNotFoundError  # here: 40-70 ms of start-up for the About box
    from importlib.metadata import version as dist_version

    try:
        return dist_version(name)
    except PackageNotFoundError:
        return None


class MainWindow(QMainWindow):
    def __init__(self, context: AppContext | None = None):
        super().__init__()
        ensure_wheel_guard()  # the wheel changes a field only while it has focus
        self.context = context or AppContext(parent=self)
        if self.context.parent() is None:
            self.context.setParent(self)
        self._document_title = ""
        self._built: dict[str, Any] = {}  # page_id -> page, for the pages shown so far
        self._opening: str | None = None  # the remembered page, shown once the planner and charts are imported
        self._switch_now = False  # show_page: the page current on return, not on the next turn
        self._switch_row = -1  # a page built on a click: shown by _switch_timer in a later turn
        self._switch_timer = QTimer(self)
        self._switch_timer.setSingleShot(True)
        self._switch_timer.setInterval(0)
        self._switch_timer.timeout.connect(self._switch_later)
        self.undo_group = QUndoGroup(self)
        self._build_central()
        self._build_actions()
        self._build_menus()
        self._build_status_bar()
        self._connect_context()
        self.retranslate()
        self.resize(DEFAULT_SIZE)
        self._restore_state()
        self.context.when_store_open(self._store_opened)  # the database opens once the window is up (_window_up)
        # once the window is up and painted, the planning core the Plan and Rent-or-buy pages need is imported on a pool
        # thread (pure Python, no Qt), and their charts, modules and results panel made in idle turns (desktop/shelf.py),
        # so building those pages later costs only their other widgets
        QTimer.singleShot(WARM_IMPORT_DELAY_MS, self._import_planning_core)
        # NVML and the database once the window has painted: the pool threads reading NVML (pynvml's import) and
        # importing planner.store hold the interpreter lock the window's construction and first paint need
        self._up = False
        QTimer.singleShot(WARM_IMPORT_DELAY_MS, self._window_up)  # if no paint comes (never shown, minimised)
        if self.context.inventory_ready:
            QTimer.singleShot(0, lambda: self.context.inventory_changed.emit(self.context.inventory))

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 (Qt override)
        super().paintEvent(event)
        if not self._up:
            QTimer.singleShot(0, self, self._window_up)  # the turn after the first paint

    def _window_up(self) -> None:
        """The window is up: read NVML and open the database, both off the GUI thread."""
        if self._up:
            return
        self._up = True
        if not self.context.inventory_ready:
            self.context.load_inventory()
        self.context.open_store_soon()

    def _import_planning_core(self) -> None:
        """pyqtgraph and the planning core imported on pool threads, then the charts, modules and panels of the
        pages not shown yet made one per idle turn (desktop/shelf.py), charts first."""
        waiting = {"charts": True, "planner": "planner.resolver" not in sys.modules}  # the first page may have it

        def ready(what: str) -> None:
            waiting[what] = False
            if not any(waiting.values()):
                from desktop.shelf import AFTER_PLANNER, CHARTS, stock_ahead

                if self._opening is not None:
                    QTimer.singleShot(0, self, self._open_remembered)  # its own turn, before the idle steps

                stock_ahead(self, CHARTS, self._not_built)
                stock_ahead(self, AFTER_PLANNER, self._not_built)
                for page_id in BUILT_AHEAD:
                    later(self, functools.partial(self._build_ahead, page_id))

        if waiting["planner"]:
            self.context.jobs.run(_import_planning_core, name="import the planner", on_done=lambda _: ready("planner"))
        self.context.when_charts_loaded(lambda: ready("charts"))

    def _not_built(self, page_id: str) -> bool:
        return page_id not in self._built

    def _build_ahead(self, page_id: str) -> None:
        """An idle step: build a page not shown yet, hidden in the stack (its widgets from the shelf), so that a
        click on it only shows it. Its first plan or figures are worked out and drawn while it is hidden, as they
        would be on its first show; a click before this step builds the page itself (_on_navigation)."""
        if page_id not in self._built and "pyqtgraph" in sys.modules:
            page = self.page(page_id)
            later(self, functools.partial(self._lay_out_ahead, page))

    def _lay_out_ahead(self, page: QWidget, tries: int = 0, quiet: int = 0) -> None:
        """An idle step once the page's first figures are in (no job running, no timer of the page due, in
        QUIET_STEPS steps in a row: it is redrawn when they come, and a redraw after the layout undoes part of it): lay
        it out hidden at the size the stack gives it, then paint its charts and then the whole page into a
        picture thrown away, one per idle step (desktop/shelf.py). The resize events, the layout, pyqtgraph's
        axis pictures and the fonts' glyphs are then made: the first show was one turn of 60-80 ms of the GUI
        thread (make bench), most of it those. A page shown meanwhile, or a window resized, is painted as usual."""
        if not isValid(page) or self.stack.currentWidget() is page:
            return
        busy = self.context.jobs.running_count or any(
            timer.isActive() and timer.isSingleShot() for timer in page.findChildren(QTimer)
        )  # a plan, its curves or a redraw still to come
        quiet = 0 if busy else quiet + 1
        if quiet < QUIET_STEPS and tries < LAY_OUT_TRIES:
            later(self, functools.partial(self._lay_out_ahead, page, tries + 1, quiet))
            return
        page.setGeometry(self.stack.contentsRect())
        page.grab(QRect(0, 0, 1, 1))  # the layout and the children's resize events, without painting them
        graphics_view = sys.modules["pyqtgraph"].GraphicsView
        for part in [*page.findChildren(graphics_view), page]:
            if part is page or part.isVisibleTo(page):
                later(self, functools.partial(self._paint_ahead, page, part))

    def _paint_ahead(self, page: QWidget, part: QWidget) -> None:
        if isValid(part) and self.stack.currentWidget() is not page and page.size() == self.stack.contentsRect().size():
            part.grab()

    # -- construction ------------------------------------------------------------------------------------------
    def page(self, page_id: str) -> Any:  # Any: each page has its own methods (pages share only Page's)
        """The page, built now if it has not been shown yet (KeyError for an unknown page)."""
        built = self._built.get(page_id)
        return built if built is not None else self._build_page(page_id)

    @property
    def pages(self) -> list[Any]:
        """Every page in navigation order, each built now if it was not yet (screenshots, the self-test)."""
        return [self.page(page_id) for page_id in PAGE_IDS]

    def built_pages(self) -> list[Any]:
        """The pages built so far (a page is built the first time it is shown, or hidden ahead: BUILT_AHEAD), in
        navigation order."""
        return [self._built[page_id] for page_id in PAGE_IDS if page_id in self._built]

    def _build_page(self, page_id: str) -> Any:
        """Import the page's module and build it in place of its placeholder (the window shows without the
        pages it does not show: their imports and widgets cost start-up time; docs/architecture.md)."""
        import importlib

        entry = PAGES[PAGE_IDS.index(page_id)] if page_id in PAGE_IDS else None
        if entry is None:
            raise KeyError(page_id)
        page = getattr(importlib.import_module(entry.module), entry.class_name)(self.context)
        self._built[page_id] = page
        index = PAGE_IDS.index(page_id)
        placeholder = self.stack.widget(index)
        current = self.stack.currentIndex()
        self.stack.insertWidget(index, page)
        if placeholder is not None:
            self.stack.removeWidget(placeholder)
            placeholder.deleteLater()
        self.stack.setCurrentIndex(current)
        for stack in getattr(page, "undo_stacks", lambda: [])():
            self.undo_group.addStack(stack)
        return page

    def _build_central(self) -> None:
        self.navigation = QListWidget()
        self.navigation.setObjectName("navigation")
        self.navigation.setIconSize(QSize(20, 20))
        self.navigation.setSpacing(2)
        self.navigation.setFrameShape(QListWidget.Shape.NoFrame)
        self.navigation.setMinimumWidth(150)
        self.navigation.setMaximumWidth(220)
        self.stack = QStackedWidget()
        for page_id in PAGE_IDS:
            item = QListWidgetItem(self.style().standardIcon(_PAGE_ICONS[page_id]), "")
            item.setData(Qt.ItemDataRole.UserRole, page_id)
            item.setSizeHint(QSize(150, 36))
            self.navigation.addItem(item)
            self.stack.addWidget(QWidget())  # the page itself is built the first time it is shown
        self.navigation.currentRowChanged.connect(self._on_navigation)
        splitter = QSplitter()
        splitter.setObjectName("mainSplitter")
        splitter.addWidget(self.navigation)
        splitter.addWidget(self.stack)
        splitter.setStretchFactor(1, 1)
        splitter.setCollapsible(1, False)
        splitter.setSizes([170, 1100])
        self.setCentralWidget(splitter)

    def _build_actions(self) -> None:
        self.import_quotes_action = QAction(self)
        self.import_quotes_action.triggered.connect(self.import_quotes)
        self.import_report_action = QAction(self)
        self.import_report_action.triggered.connect(self.import_report)
        self.export_quotes_action = QAction(self)
        self.export_quotes_action.triggered.connect(self.export_quotes)
        self.quit_action = QAction(self)
        self.quit_action.setShortcut(QKeySequence.StandardKey.Quit)
        self.quit_action.setMenuRole(QAction.MenuRole.QuitRole)
        self.quit_action.triggered.connect(self.close)
        self.guide_action = QAction(self)
        self.guide_action.setShortcuts(unique_shortcuts(QKeySequence.StandardKey.HelpContents))
        self.guide_action.triggered.connect(self.show_guide)
        self.about_action = QAction(self)
        self.about_action.setMenuRole(QAction.MenuRole.AboutRole)
        self.about_action.triggered.connect(self.show_about)
        self.undo_action = self.undo_group.createUndoAction(self)
        self.undo_action.setShortcuts(unique_shortcuts(QKeySequence.StandardKey.Undo))
        self.redo_action = self.undo_group.createRedoAction(self)
        # Ctrl+Shift+Z everywhere, and the platform's own Redo keys (Ctrl+Y on Windows), each bound once: a
        # sequence bound twice is "ambiguous" to Qt and does nothing at all.
        self.redo_action.setShortcuts(unique_shortcuts(QKeySequence.StandardKey.Redo, "Ctrl+Shift+Z"))
        self.undo_group.undoTextChanged.connect(lambda _text: self._word_undo_actions())
        self.undo_group.redoTextChanged.connect(lambda _text: self._word_undo_actions())
        self.page_actions: list[QAction] = []
        for index, page_id in enumerate(PAGE_IDS):
            action = QAction(self)
            action.setShortcut(QKeySequence(f"Ctrl+{index + 1}"))
            action.setShortcutContext(Qt.ShortcutContext.WindowShortcut)
            action.triggered.connect(lambda _checked=False, pid=page_id: self.show_page(pid))
            self.page_actions.append(action)

    def _build_menus(self) -> None:
        bar = self.menuBar()
        self.file_menu = bar.addMenu("")
        self.file_menu.addAction(self.import_quotes_action)
        self.file_menu.addAction(self.import_report_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.export_quotes_action)
        self.file_menu.addSeparator()
        self.file_menu.addAction(self.quit_action)
        self.edit_menu = bar.addMenu("")
        self.edit_menu.addAction(self.undo_action)
        self.edit_menu.addAction(self.redo_action)
        self.view_menu = bar.addMenu("")
        for action in self.page_actions:
            self.view_menu.addAction(action)
        self.help_menu = bar.addMenu("")
        self.help_menu.addAction(self.guide_action)
        self.help_menu.addSeparator()
        self.help_menu.addAction(self.about_action)

    def _build_status_bar(self) -> None:
        bar = self.statusBar()
        self.busy_indicator = QProgressBar()
        self.busy_indicator.setRange(0, 0)
        self.busy_indicator.setMaximumWidth(90)
        self.busy_indicator.setMaximumHeight(14)
        self.busy_indicator.setTextVisible(False)
        self.busy_indicator.hide()
        self.gpus_label = QLabel()
        self.db_label = QLabel()
        self.db_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        bar.addPermanentWidget(self.busy_indicator)
        bar.addPermanentWidget(self.gpus_label)
        bar.addPermanentWidget(self.db_label)

    def _connect_context(self) -> None:
        context = self.context
        context.status_message.connect(lambda text: self.statusBar().showMessage(text, 8000))
        context.document_title_changed.connect(self._set_document_title)
        context.inventory_changed.connect(lambda _inventory: self._update_gpus_label())
        context.busy_changed.connect(self.busy_indicator.setVisible)

    # -- translation -------------------------------------------------------------------------------------------
    def retranslate(self) -> None:
        self.file_menu.setTitle(self.tr("&File"))
        self.edit_menu.setTitle(self.tr("&Edit"))
        self.view_menu.setTitle(self.tr("&View"))
        self.help_menu.setTitle(self.tr("&Help"))
        self.import_quotes_action.setText(self.tr("&Import quotes CSV…"))
        self.import_report_action.setText(self.tr("Import &probe report…"))
        self.export_quotes_action.setText(self.tr("&Export quotes CSV…"))
        self.quit_action.setText(self.tr("&Quit"))
        self.about_action.setText(self.tr("&About GPU Advisor"))
        self.guide_action.setText(self.tr("User &guide"))
        self._word_undo_actions()
        for page in self.built_pages():
            page.retranslate()
        for index, page_id in enumerate(PAGE_IDS):
            self.navigation.item(index).setText(page_title(page_id))
            self.page_actions[index].setText(page_title(page_id))
        self._update_title()
        self._update_gpus_label()
        self._update_db_label()

    def _word_undo_actions(self) -> None:
        """ "Undo edit of Price / GPU-h": the command's own words (translated where it was made)."""
        for action, text, plain in (
            (self.undo_action, self.undo_group.undoText(), self.tr("&Undo")),
            (self.redo_action, self.undo_group.redoText(), self.tr("&Redo")),
        ):
            action.setText(self.tr("{0} {1}").format(plain, text) if text else plain)

    def _update_title(self) -> None:
        app_name = self.tr("GPU Advisor")
        self.setWindowTitle(f"{self._document_title} — {app_name}" if self._document_title else app_name)

    def _set_document_title(self, title: str) -> None:
        self._document_title = title
        self._update_title()

    def _update_gpus_label(self) -> None:
        context = self.context
        if not context.inventory_ready:
            self.gpus_label.setText(self.tr("Reading GPUs…"))
            self.gpus_label.setToolTip("")
            return
        count = context.gpu_count()
        if count:
            self.gpus_label.setText(self.tr("GPUs found: {0}").format(count))
            gpus = context.inventory.gpus if context.inventory is not None else []
            self.gpus_label.setToolTip(", ".join(str(gpu.name) for gpu in gpus))
        else:
            self.gpus_label.setText(self.tr("No NVIDIA GPU"))
            self.gpus_label.setToolTip(
                str(getattr(context.inventory, "reason", "") or context.inventory_error or "")
            )

    def _store_opened(self) -> None:
        self._update_db_label()
        QTimer.singleShot(0, self, self._report_store_problem)

    def _update_db_label(self) -> None:
        if not self.context.store_open:
            return  # said once it opens (_store_opened)
        path = str(self.context.store.path)
        if self.context.store_problem:
            self.db_label.setText(self.tr("Temporary database (nothing is kept)"))
        else:
            self.db_label.setText(self.tr("Database: {0}").format(_elide_middle(path, 60)))
        self.db_label.setToolTip(path)

    # -- navigation --------------------------------------------------------------------------------------------
    def current_page(self) -> Any:
        if self._opening is not None:
            self._open_remembered()
        row = self.navigation.currentRow()
        return self.page(PAGE_IDS[row] if 0 <= row < len(PAGE_IDS) else PAGE_IDS[0])

    def _open_remembered(self) -> None:
        """Build and show the remembered page the window opened on (still selected in the navigation)."""
        page_id, self._opening = self._opening, None
        if page_id is not None and self.navigation.currentRow() == PAGE_IDS.index(page_id):
            self._switch_to(PAGE_IDS.index(page_id))

    def show_page(self, page_id: str) -> None:
        """Show the page now, built first if it never was (the caller gets it current on return)."""
        if page_id not in PAGE_IDS:
            raise KeyError(page_id)
        row = PAGE_IDS.index(page_id)
        self._switch_now = True
        try:
            self.navigation.setCurrentRow(row)
        finally:
            self._switch_now = False
        if self.stack.currentIndex() != row:  # selected already, its switch waiting for the next turn
            self._switch_to(row)

    def _on_navigation(self, row: int) -> None:
        """The user picked a page in the list. A page not built yet (clicked before the idle turns built it:
        BUILT_AHEAD) is built in this turn and shown in a later one, after the events and timers waiting: building
        it and its first layout and paint together were one stall of 70-120 ms; the list shows the choice
        meanwhile."""
        if not 0 <= row < len(PAGE_IDS):
            return
        built = PAGE_IDS[row] in self._built
        self.page(PAGE_IDS[row])
        if built or self._switch_now or not self.isVisible():
            self._switch_to(row)
        else:
            self._switch_row = row
            self._switch_timer.start()  # a timer, not a posted call: the events and timers waiting run first

    def _switch_later(self) -> None:
        if self.navigation.currentRow() == self._switch_row:
            self._switch_to(self._switch_row)

    def _switch_to(self, row: int) -> None:
        if 0 <= row < len(PAGE_IDS):
            page = self.page(PAGE_IDS[row])
            self.stack.setCurrentIndex(row)
            activate = getattr(page, "activate_undo", None)
            if activate is not None:
                activate(self.undo_group)
            else:  # Ctrl+Z on a page without undo must not silently undo a quote edit elsewhere
                self.undo_group.setActiveStack(None)  # type: ignore[arg-type]  # Qt takes nullptr: none active

    # -- actions -----------------------------------------------------------------------------------------------
    def import_quotes(self) -> None:
        self.show_page("quotes")
        self.page("quotes").import_csv_dialog()

    def export_quotes(self) -> None:
        self.show_page("quotes")
        self.page("quotes").export_csv_dialog()

    def import_report(self) -> None:
        self.show_page("hardware")
        self.page("hardware").import_report_dialog()

    def about_text(self) -> str:
        inventory = self.context.inventory
        if inventory is not None and getattr(inventory, "available", False):
            driver = str(inventory.driver_version or self.tr("unknown"))
        else:
            reason = getattr(inventory, "reason", None) if inventory is not None else None
            driver = self.tr("none ({0})").format(reason) if reason else self.tr("none")
        torch_version = package_version("torch") or self.tr("not installed (needed only to run the probe)")
        rows = [
            (self.tr("Version"), package_version("gpu-advisor") or "0+source"),
            (self.tr("Qt"), qVersion()),
            ("PySide6", package_version("PySide6-Essentials") or package_version("PySide6") or "?"),
            ("pyqtgraph", package_version("pyqtgraph") or "?"),
            (self.tr("Python"), platform.python_version()),
            ("torch", torch_version),
            (self.tr("NVIDIA driver"), driver),
            (self.tr("Database"), str(self.context.store.path)),
        ]
        table = "".join(
            f"<tr><td><b>{name}</b>&nbsp;&nbsp;</td><td>{value}</td></tr>" for name, value in rows
        )
        intro = self.tr(
            "Plans and prices LLM work on NVIDIA GPUs: will it fit, how fast, with which sharding, "
            "how much, rent or buy. Works offline."
        )
        app_name = self.tr("GPU Advisor")
        return f"<h3>{app_name}</h3><p>{intro}</p><table>{table}</table>"

    def show_guide(self) -> None:
        from desktop.help import UserGuideDialog

        dialog = UserGuideDialog(self)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        self.guide_dialog = dialog
        dialog.open()

    def show_about(self) -> None:
        QMessageBox.about(self, self.tr("About GPU Advisor"), self.about_text())

    def _report_store_problem(self) -> None:
        if not self.context.store_problem:
            return
        box = QMessageBox(
            QMessageBox.Icon.Warning,
            self.tr("Database not opened"),
            self.tr(
                "The database could not be opened:\n{0}\n\nGPU Advisor is running with a temporary database; "
                "nothing you enter now will be kept."
            ).format(self.context.store_problem),
            QMessageBox.StandardButton.Ok,
            self,
        )
        box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        box.open()  # not exec(): never block the event loop

    # -- state -------------------------------------------------------------------------------------------------
    def _restore_state(self) -> None:
        settings = self.context.qsettings()
        geometry = settings.value(GEOMETRY_KEY)
        if geometry is not None:
            self.restoreGeometry(geometry)
        state = settings.value(STATE_KEY)
        if state is not None:
            self.restoreState(state)
        page_id = str(settings.value(PAGE_KEY) or "")
        page_id = page_id if page_id in PAGE_IDS else PAGE_IDS[0]
        if page_id not in OPENED_AFTER_IMPORTS or "planner.resolver" in sys.modules:
            self.show_page(page_id)  # builds that page, and only it
            return
        self._opening = page_id  # selected, and said to be opening, until _import_planning_core has run
        row = PAGE_IDS.index(page_id)
        with QSignalBlocker(self.navigation):
            self.navigation.setCurrentRow(row)
        placeholder = self.stack.widget(row)
        self.opening_label = QLabel(self.tr("Opening {0}…").format(page_title(page_id)), placeholder)
        self.opening_label.setObjectName("hint")
        self.opening_label.move(12, 12)
        self.opening_label.adjustSize()
        self.stack.setCurrentIndex(row)

    def save_state(self) -> None:
        settings = self.context.qsettings()
        settings.setValue(GEOMETRY_KEY, self.saveGeometry())
        settings.setValue(STATE_KEY, self.saveState())
        row = self.navigation.currentRow()
        settings.setValue(PAGE_KEY, PAGE_IDS[row] if 0 <= row < len(PAGE_IDS) else PAGE_IDS[0])
        settings.sync()

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 (Qt override)
        for page in self.built_pages():  # a page never shown has nothing unsaved
            if not page.confirm_close():
                self.show_page(page.page_id)
                event.ignore()
                return
        self.save_state()
        for page in self.built_pages():
            shutdown = getattr(page, "shutdown", None)
            if shutdown is not None:
                shutdown()
        self.context.shutdown()
        event.accept()


def _import_planning_core() -> None:
    """Import what planning needs before any page asks for it (pool thread): the search, the resolver, the
    costs and the exports' inputs. Modules without Qt only; an import error shows when a page imports them."""
    import importlib

    for name in ("planner.resolver", "planner.search", "planner.search.pools", "planner.costs", "planner.exports",
                 "planner.scale"):  # fmt: skip
        try:
            importlib.import_module(name)
        except ImportError:
            return


def unique_shortcuts(standard: QKeySequence.StandardKey, *extra: str) -> list[QKeySequence]:
    """`extra` and the platform's key bindings for `standard`, each sequence once (`extra` first: it is the
    one the menu shows)."""
    sequences = [*(QKeySequence(text) for text in extra), *QKeySequence.keyBindings(standard)]
    seen: dict[str, QKeySequence] = {}
    for sequence in sequences:
        seen.setdefault(sequence.toString(), sequence)
    return list(seen.values())


def _elide_middle(text: str, limit: int) -> str:
    if len(text) <= limit:
        return text
    half = (limit - 1) // 2
    return f"{text[:half]}…{text[-half:]}"


def later(owner: QWidget, step: Any) -> None:
    """desktop.shelf.later (imported when first needed: the window shows without it)."""
    from desktop.shelf import later as shelf_later

    shelf_later(owner, step)
