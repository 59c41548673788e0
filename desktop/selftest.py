"""`gpu-advisor --self-test`: prove that this installation works, from a source tree or from the bundle.

Each check exercises a real piece end to end, in a temporary folder (nothing of the user's is touched):

- bundle_data: the catalog, the probe-report schema and the app icons are found through importlib.resources
  (the part a frozen app gets wrong first);
- qt_platform: Qt starts offscreen and the native platform plugin for this OS is present (xcb / windows);
- nvml: the NVIDIA inventory is read; no driver or no GPU is a pass with the reason ("no NVIDIA GPU");
- database: a quote, a setting and a plan are written through planner.store.Store, the file is closed,
  reopened and read back;
- translations: the Russian catalog loads and translates the menus (then English again);
- plan: planner.search.plan() places a 7B QLoRA fine-tune on one 24 GB card;
- main_window: the main window opens offscreen with its five pages and reads the inventory;
- render: every page and every chart on it is rendered to a PNG (none blank); charts in a background tab are
  brought forward first, charts hidden on purpose (telemetry without a GPU) are listed as hidden;
- probe: where this build can probe (torch present), a short CPU probe runs in a CHILD process (the bundled
  gpu-probe or `python -m profiler`) and its report passes the schema; otherwise a pass saying why not;
- no_torch_in_gui: torch was never imported into this (GUI) process.

It prints a JSON summary {"ok", "variant", "frozen", "seconds", "checks": [{name, ok, seconds, detail}]} on
stdout (and to --summary FILE), then exits 0, or 1 after naming the failed checks on stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from planner.files import write_atomically

# A CPU probe is a few seconds of matmuls and copies; the limit only catches a hung child.
PROBE_TIMEOUT_S = 180
# Waiting for background jobs (NVML read, plan search) before rendering a page.
IDLE_TIMEOUT_S = 20
PAGE_IDS = ("hardware", "quotes", "plan", "rent_buy", "settings")


@dataclass
class CheckResult:
    """One line of the summary; seconds is wall-clock time of the check."""

    name: str
    ok: bool
    seconds: float
    detail: Any = None


@dataclass
class SelfTest:
    """State shared between checks: the temporary folder and the window the render check reuses."""

    workdir: Path
    images_dir: Path
    results: list[CheckResult] = field(default_factory=list)
    app: Any = None
    window: Any = None

    def run(self, name: str, check: Callable[[SelfTest], Any]) -> CheckResult:
        """Run one check; an exception (or AssertionError) fails it with the message, never the self-test."""
        started = time.perf_counter()
        try:
            detail = check(self)
            ok = True
        except Exception as exc:  # every failure is reported, the remaining checks still run
            ok = False
            last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
            where = f" ({Path(last[0].filename).name}:{last[0].lineno})" if last else ""
            detail = f"{type(exc).__name__}: {exc}{where}"
        result = CheckResult(name, ok, round(time.perf_counter() - started, 3), detail)
        self.results.append(result)
        return result


# --- checks -----------------------------------------------------------------------------------------------------
def check_bundle_data(_test: SelfTest) -> dict[str, Any]:
    """Package data found the way the app finds it: importlib.resources, never paths relative to the cwd."""
    from importlib.resources import files

    from planner.gpus import load_catalog
    from planner.models import list_presets

    catalog = load_catalog()
    assert len(catalog) >= 10, f"GPU catalog has only {len(catalog)} entries"
    presets = list_presets()
    assert presets, "no model presets"
    schema = json.loads(files("profiler").joinpath("probe_report.schema.json").read_text(encoding="utf-8"))
    assert isinstance(schema, dict) and schema, "empty probe report schema"
    icon = files("gpu_advisor_assets").joinpath("icons", "gpu-advisor-256.png")
    assert icon.is_file(), "app icon missing from gpu_advisor_assets"
    return {"gpus": len(catalog), "model_presets": len(presets), "probe_report_schema": True, "icon": True}


def check_qt_platform(test: SelfTest) -> dict[str, Any]:
    """Qt runs offscreen here, and the plugin a person's desktop needs ships with this build."""
    from PySide6.QtCore import QLibraryInfo, qVersion

    assert test.app is not None, "no QApplication"
    platform_name = test.app.platformName()
    assert platform_name == "offscreen", f"running on platform {platform_name!r}, not offscreen"
    plugins_dir = Path(QLibraryInfo.path(QLibraryInfo.LibraryPath.PluginsPath)) / "platforms"
    found = sorted(p.name for p in plugins_dir.glob("*") if p.is_file()) if plugins_dir.is_dir() else []
    native = {"win32": "qwindows", "darwin": "qcocoa"}.get(sys.platform, "qxcb")
    assert any(native in name for name in found), f"native platform plugin {native} missing in {plugins_dir}"
    return {"qt": qVersion(), "platform": platform_name, "platform_plugins": found}


def check_nvml(_test: SelfTest) -> dict[str, Any]:
    """read_inventory never raises; no driver or no GPU is a valid answer with its reason."""
    from profiler.nvml_inventory import read_inventory

    inventory = read_inventory()
    if not inventory.available:
        return {"available": False, "reason": inventory.reason, "gpus": 0}
    return {
        "available": True,
        "driver_version": inventory.driver_version,
        "gpus": [str(gpu.name) for gpu in inventory.gpus],
    }


def check_database(test: SelfTest) -> dict[str, Any]:
    """Write through Store, close, reopen, read back: the same file a person's data lives in."""
    from planner.store import Store

    path = test.workdir / "selftest.sqlite"
    quote = {
        "provider": "Self-test Cloud",
        "offer": "1x RTX 4090",
        "gpu": "rtx-4090",
        "gpus_per_instance": 1,
        "price_per_gpu_hour": 0.34,
        "currency": "USD",
        "kind": "on-demand",
        "quoted_on": "2026-01-15",
        "source": "gpu-advisor --self-test",
    }
    store = Store.open(path)
    try:
        quote_id = store.rental_quotes.add(quote)
        store.settings.set("selftest/marker", {"written": True, "n": 3})
        plan_id = store.plans.save("self-test plan", {"model": "mistral-7b"}, {"best": "rtx-4090 x1"})
    finally:
        store.close()
    store = Store.open(path)
    try:
        mine = [row for row in store.rental_quotes.find(mine_only=True) if row["id"] == quote_id]
        assert len(mine) == 1, f"quote {quote_id} not found after reopening"
        assert mine[0]["provider"] == quote["provider"] and abs(mine[0]["price_per_gpu_hour"] - 0.34) < 1e-9
        assert store.settings.get("selftest/marker") == {"written": True, "n": 3}, "setting not read back"
        plan = store.plans.get(plan_id)
        assert plan and plan["name"] == "self-test plan", "plan not read back"
    finally:
        store.close()
    return {"file_bytes": path.stat().st_size, "quote_id": quote_id, "plan_id": plan_id}


def check_translations(test: SelfTest) -> dict[str, Any]:
    """The Russian interface loads (assets/i18n/gpu_advisor_ru.qm through importlib.resources), then English."""
    from PySide6.QtCore import QCoreApplication

    from desktop.i18n import set_language

    try:
        assert set_language("ru", test.app, strict=True) == "ru"
        # "&File" is the File menu's title (desktop/main_window.py); any translated catalog changes it.
        file_menu_ru = QCoreApplication.translate("MainWindow", "&File")
    finally:
        set_language("en", test.app)
    assert file_menu_ru != "&File", "the Russian catalog loaded but does not translate the File menu"
    return {"ru_file_menu": file_menu_ru}


def check_plan(_test: SelfTest) -> dict[str, Any]:
    """A 7B QLoRA fine-tune on one 24 GB card must fit: the base weights in NF4 take about 7.2e9 x 4.5 bit / 8
    = 4 GB (the QLoRA paper fits a 65B model in under 48 GB), leaving room for adapters and activations."""
    from planner.gpus import get_gpu
    from planner.models import get_preset
    from planner.search import Constraints, Workload, plan
    from planner.vocabulary import Task

    model = get_preset("mistral-7b")
    workload = Workload(task=Task.QLORA, seq_len=2048, global_batch=8, tokens=1e8)
    result = plan(model, workload, [get_gpu("rtx-4090")], Constraints(max_gpus=1))
    fitting = [option for option in result.options if option.fits]
    assert fitting, f"no fitting option for 7B QLoRA on one RTX 4090 (excluded: {result.excluded[:3]})"
    best = fitting[0]
    return {
        "options": len(result.options),
        "best": f"{best.gpus} x {best.gpu.id}",
        "memory_per_gpu_bytes": best.memory.total_bytes,
        "search_ms": round(result.search_ms, 1),
    }


def check_main_window(test: SelfTest) -> dict[str, Any]:
    """The real main window with its pages, on a store in the temporary folder, showing the NVML result."""
    from desktop.context import AppContext, open_store
    from desktop.main_window import MainWindow

    store, problem = open_store(test.workdir / "window.sqlite")
    assert problem is None, f"database not opened: {problem}"
    context = AppContext(store=store)
    window = MainWindow(context)
    window.resize(1280, 820)
    window.show()
    test.window = window
    shown_after_start_s = process_age_s()  # includes interpreter start-up (and the bundle's bootloader)
    answered = wait_until(
        test.app, lambda: context.inventory_ready or context.inventory_error is not None, IDLE_TIMEOUT_S
    )
    assert answered, f"the NVML inventory did not arrive within {IDLE_TIMEOUT_S} s"
    assert context.inventory_error is None, f"reading the inventory failed: {context.inventory_error}"
    page_ids = [page.page_id for page in window.pages]
    assert tuple(page_ids) == PAGE_IDS, f"pages {page_ids}"
    return {
        "title": window.windowTitle(),
        "pages": page_ids,
        "gpus_label": window.gpus_label.text(),
        "window_shown_after_process_start_s": shown_after_start_s,
    }


def check_render(test: SelfTest) -> dict[str, Any]:
    """Every page (filled with its example) and every pyqtgraph chart on it rendered to a non-blank PNG."""
    import pyqtgraph as pg

    window = test.window
    assert window is not None, "main window did not open"
    test.images_dir.mkdir(parents=True, exist_ok=True)
    written: list[str] = []
    hidden: list[str] = []
    for page in window.pages:
        page.load_example()
        window.show_page(page.page_id)
        wait_until(test.app, lambda: window.context.jobs.running_count == 0, IDLE_TIMEOUT_S)
        settle(test.app)
        written.append(save_non_blank(window.grab().toImage(), test.images_dir / f"{page.page_id}.png"))
        for index, chart in enumerate(page.findChildren(pg.GraphicsView)):
            if not chart.isVisible() and reveal(chart):
                settle(test.app)
            if chart.isVisible() and chart.width() > 0 and chart.height() > 0:
                image = chart.grab().toImage()
                written.append(save_non_blank(image, test.images_dir / f"{page.page_id}-chart{index}.png"))
            else:
                hidden.append(f"{page.page_id}-chart{index}")
    charts = [name for name in written if "-chart" in name]
    assert len(charts) >= 2, f"only {len(charts)} charts rendered: {written}"
    # Charts still hidden are hidden on purpose (live telemetry without an NVIDIA GPU, for one).
    return {
        "images": len(written),
        "charts": len(charts),
        "hidden_charts": hidden,
        "folder": str(test.images_dir),
    }


def check_probe(test: SelfTest) -> dict[str, Any]:
    """A short CPU probe in a child process; the GUI process itself never imports torch."""
    from desktop.probe_command import probe_availability, probe_command
    from profiler.report import load_report

    availability = probe_availability()
    if not availability.available:
        return {"ran": False, "reason": availability.reason.splitlines()[0]}
    report_path = test.workdir / "probe.json"
    command = probe_command(["--quick", "--device", "cpu", "--json", str(report_path)])
    environment = {**os.environ, "PYTHONUNBUFFERED": "1", "GPU_ADVISOR_SELFTEST": "1"}
    started = time.perf_counter()
    completed = subprocess.run(
        command,
        env=environment,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        timeout=PROBE_TIMEOUT_S,
        check=False,
        **_no_window_flags(),
    )
    child_s = time.perf_counter() - started
    stderr_tail = completed.stderr.decode("utf-8", "replace").strip().splitlines()[-3:]
    assert completed.returncode == 0, f"probe exited with {completed.returncode}: {' | '.join(stderr_tail)}"
    report = load_report(report_path)
    measured = [
        m
        for device in report.devices
        for m in device.get("measurements", [])
        if m.get("ok") and m.get("value")
    ]
    assert measured, "the probe report holds no successful measurement"
    matmul = report.best("matmul", device="cpu")
    return {
        "ran": True,
        "command": " ".join([Path(command[0]).name, *command[1:-5]]),  # without the 5 arguments above
        "child_seconds": round(child_s, 2),
        "measurements_ok": len(measured),
        "cpu_best_matmul_flop_per_s": matmul,
    }


def check_no_torch(_test: SelfTest) -> dict[str, Any]:
    """The GUI process never imports torch; the probe is a child (docs/architecture.md, process model)."""
    assert "torch" not in sys.modules, "torch was imported into the GUI process"
    return {"torch_in_gui_process": False}


CHECKS: tuple[tuple[str, Callable[[SelfTest], Any]], ...] = (
    ("bundle_data", check_bundle_data),
    ("qt_platform", check_qt_platform),
    ("nvml", check_nvml),
    ("database", check_database),
    ("translations", check_translations),
    ("plan", check_plan),
    ("main_window", check_main_window),
    ("render", check_render),
    ("probe", check_probe),
    ("no_torch_in_gui", check_no_torch),
)


# --- helpers ----------------------------------------------------------------------------------------------------
def wait_until(app: Any, condition: Callable[[], bool], timeout_s: float) -> bool:
    """Process Qt events until condition() holds or timeout_s passes; True when it held."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        app.processEvents()
        if condition():
            return True
        time.sleep(0.01)
    return condition()


def reveal(widget: Any) -> bool:
    """Bring the tab that holds widget to the front in every QTabWidget above it; True if any tab changed."""
    from PySide6.QtWidgets import QTabWidget

    changed = False
    ancestor = widget.parentWidget()
    while ancestor is not None:
        if isinstance(ancestor, QTabWidget):
            for index in range(ancestor.count()):
                tab = ancestor.widget(index)
                if (
                    tab is not None
                    and (tab is widget or tab.isAncestorOf(widget))
                    and ancestor.currentIndex() != index
                ):
                    ancestor.setCurrentIndex(index)
                    changed = True
        ancestor = ancestor.parentWidget()
    return changed


def settle(app: Any, rounds: int = 5) -> None:
    """Let queued layout and paint events (and pyqtgraph's deferred redraws) run before grabbing."""
    for _ in range(rounds):
        app.processEvents()
        time.sleep(0.01)


def save_non_blank(image: Any, path: Path) -> str:
    """Save a QImage as PNG after checking it is not one flat colour (a blank render)."""
    assert not image.isNull() and image.width() > 0 and image.height() > 0, f"{path.name}: empty image"
    step_x, step_y = max(1, image.width() // 24), max(1, image.height() // 24)
    colours = {
        image.pixel(x, y) for x in range(0, image.width(), step_x) for y in range(0, image.height(), step_y)
    }
    assert len(colours) > 1, f"{path.name}: the rendered image is one flat colour"
    assert image.save(str(path), "PNG"), f"could not write {path}"
    return path.name


def _no_window_flags() -> dict[str, Any]:
    """On Windows, start the console child without flashing a console window from the windowed app."""
    if sys.platform == "win32":
        return {"creationflags": getattr(subprocess, "CREATE_NO_WINDOW", 0)}
    return {}


def ensure_output_streams() -> None:
    """The windowed Windows executable has no stdout: attach to the terminal that started it, if any."""
    if sys.stdout is not None and sys.stderr is not None:
        return
    if sys.platform == "win32":
        try:
            import ctypes

            if ctypes.windll.kernel32.AttachConsole(-1):  # ATTACH_PARENT_PROCESS
                sys.stdout = sys.stdout or open("CONOUT$", "w", encoding="utf-8")  # noqa: SIM115
                sys.stderr = sys.stderr or open("CONOUT$", "w", encoding="utf-8")  # noqa: SIM115
                return
        except (AttributeError, OSError):
            pass
    sys.stdout = sys.stdout or open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    sys.stderr = sys.stderr or open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115


def isolate(workdir: Path) -> None:
    """Point the database and the window settings at the temporary folder, and force Qt offscreen."""
    os.environ["GPU_ADVISOR_DB"] = str(workdir / "default.sqlite")
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    from desktop.context import set_settings_path

    set_settings_path(str(workdir / "settings.ini"))


def make_application() -> Any:
    """The QApplication exactly as `gpu-advisor` configures it (names, icon, high-DPI policy, chart theme)."""
    from desktop.app import create_application

    return create_application([])


def process_age_s() -> float | None:
    """Seconds since the operating system started this process (Linux: /proc; elsewhere None)."""
    try:
        stat = Path("/proc/self/stat").read_text().rsplit(")", 1)[1].split()
        start_ticks = int(stat[19])  # field 22 of /proc/<pid>/stat: start time in clock ticks after boot
        uptime_s = float(Path("/proc/uptime").read_text().split()[0])
        return round(uptime_s - start_ticks / os.sysconf("SC_CLK_TCK"), 3)
    except (OSError, ValueError, IndexError, AttributeError):
        return None


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="gpu-advisor --self-test", add_help=False)
    parser.add_argument("--self-test", action="store_true")
    parser.add_argument("--summary", metavar="FILE", help="also write the JSON summary to FILE")
    parser.add_argument("--images", metavar="DIR", help="keep the rendered pages and charts in DIR")
    args, _ignored = parser.parse_known_args(argv)  # global options (--db, --lang) do not apply here
    return args


def summarise(test: SelfTest, started: float) -> dict[str, Any]:
    from desktop.probe_command import build_info, is_frozen
    from planner.cli import version

    return {
        "ok": all(result.ok for result in test.results),
        "version": version(),
        "variant": build_info().get("variant"),
        "frozen": is_frozen(),
        "python": platform.python_version(),
        "platform": f"{sys.platform}-{platform.machine()}",
        "seconds": round(time.perf_counter() - started, 3),
        "checks": [asdict(result) for result in test.results],
    }


def main(argv: list[str] | None = None) -> int:
    """Run every check; print the JSON summary; 0 when all passed, 1 otherwise."""
    started = time.perf_counter()
    ensure_output_streams()
    args = parse_args(list(sys.argv[1:] if argv is None else argv))
    with tempfile.TemporaryDirectory(prefix="gpu-advisor-selftest-") as tmp:
        workdir = Path(tmp)
        isolate(workdir)
        images_dir = Path(args.images) if args.images else workdir / "images"
        test = SelfTest(workdir=workdir, images_dir=images_dir)
        test.app = make_application()
        try:
            for name, check in CHECKS:
                test.run(name, check)
        finally:
            close_window(test)
    summary = summarise(test, started)
    text = json.dumps(summary, indent=2, default=str)
    print(text, flush=True)
    if args.summary:
        write_atomically(args.summary, text + "\n")
    failed = [result.name for result in test.results if not result.ok]
    if failed:
        print(f"gpu-advisor self-test FAILED: {', '.join(failed)}", file=sys.stderr, flush=True)
        return 1
    return 0


def close_window(test: SelfTest) -> None:
    """Stop the window's background work and the store without the unsaved-changes question of closeEvent."""
    window = test.window
    if window is None:
        return
    for page in window.pages:
        shutdown = getattr(page, "shutdown", None)
        if shutdown is not None:
            shutdown()
    window.context.shutdown()
    window.hide()
    store = getattr(window.context, "store", None)
    if store is not None and hasattr(store, "close"):
        store.close()
    window.deleteLater()
    settle(test.app)
