"""The PyInstaller spec, the build scripts, the GitHub Actions workflow and the desktop assets, checked without
building anything (the build itself runs in `make package-check` and in CI)."""

from __future__ import annotations

import ast
import configparser
import struct
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
SPEC = ROOT / "packaging" / "gpu_advisor.spec"
WORKFLOW = ROOT / "packaging" / "github-ci.yml"


def spec_tree() -> ast.Module:
    source = SPEC.read_text(encoding="utf-8")
    compile(source, str(SPEC), "exec")  # valid Python for PyInstaller's exec()
    return ast.parse(source)


def calls_named(tree: ast.Module, name: str) -> list[ast.Call]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == name
    ]


def keyword(call: ast.Call, name: str) -> ast.expr | None:
    return next((kw.value for kw in call.keywords if kw.arg == name), None)


BUILD_MARKER = "# ---- the build:"


def spec_helpers() -> dict:
    """The spec's constants and helper functions (the part above its build marker), executed without
    PyInstaller: its imports are dropped, SPECPATH is provided as PyInstaller would."""
    head = SPEC.read_text(encoding="utf-8").split(BUILD_MARKER, 1)[0]
    body = [
        node
        for node in ast.parse(head).body
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("PyInstaller"))
        and not (isinstance(node, ast.Import) and any(alias.name == "PyInstaller" for alias in node.names))
    ]
    namespace: dict = {"SPECPATH": str(SPEC.parent)}
    exec(compile(ast.Module(body=body, type_ignores=[]), str(SPEC), "exec"), namespace)  # noqa: S102
    return namespace


def test_spec_builds_two_executables_in_one_folder():
    tree = spec_tree()
    names = {ast.literal_eval(keyword(call, "name")) for call in calls_named(tree, "EXE")}
    assert names == {"gpu-advisor", "gpu-probe"}
    (collect,) = calls_named(tree, "COLLECT")
    assert ast.literal_eval(keyword(collect, "name")) == "gpu-advisor"
    # Both executables go into the one COLLECT, so they share _internal/ (one copy of Qt, numpy, Python).
    collected = {arg.id for arg in collect.args if isinstance(arg, ast.Name)}
    assert {"gui_exe", "probe_exe"} <= collected
    for call in calls_named(tree, "EXE"):
        assert ast.literal_eval(keyword(call, "exclude_binaries")) is True  # one folder, never --onefile


def test_gui_has_no_console_window_on_windows_and_probe_is_a_console_program():
    tree = spec_tree()
    by_name = {ast.literal_eval(keyword(call, "name")): call for call in calls_named(tree, "EXE")}
    assert ast.unparse(keyword(by_name["gpu-advisor"], "console")) == "not IS_WINDOWS"
    assert ast.literal_eval(keyword(by_name["gpu-probe"], "console")) is True


def test_spec_excludes_other_qt_bindings_unused_qt_modules_and_torch_from_the_gui():
    helpers = spec_helpers()
    assert {"PyQt5", "PyQt6", "PySide2"} <= set(helpers["OTHER_BINDINGS"])
    unused = set(helpers["UNUSED_QT"])
    assert {"PySide6.QtWebEngineCore", "PySide6.Qt3DCore", "PySide6.QtQuick", "PySide6.QtQml"} <= unused
    assert {"PySide6.QtMultimedia", "PySide6.QtPdf"} <= unused
    # pyqtgraph's PlotCurveItem imports QtOpenGL unconditionally; the app draws with QtGui/QtWidgets.
    assert not {"PySide6.QtGui", "PySide6.QtWidgets", "PySide6.QtOpenGL", "PySide6.QtCore"} & unused
    assert {"tkinter", "_tkinter"} <= set(helpers["UNUSED_PYTHON"])
    assert "torch" in helpers["TORCH_STACK"]


def test_spec_keeps_the_platform_plugins_each_os_needs_and_drops_the_rest():
    keep = spec_helpers()["keep_entry"]

    def kept(dest: str) -> bool:
        return keep((dest, "/src/" + dest, "BINARY"))

    assert kept("PySide6/Qt/plugins/platforms/libqxcb.so")
    assert kept("PySide6/Qt/plugins/platforms/libqoffscreen.so")
    assert kept("PySide6\\plugins\\platforms\\qwindows.dll")  # Windows wheel layout, backslashes
    assert kept("PySide6\\plugins\\platforms\\qoffscreen.dll")
    assert not kept("PySide6/Qt/plugins/platforms/libqwayland.so")
    assert not kept("PySide6/Qt/plugins/platforms/libqminimalegl.so")
    assert not kept("PySide6/Qt/plugins/platforms/libqvnc.so")
    assert not kept("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so")
    assert not kept("PySide6/Qt/plugins/tls/libqopensslbackend.so")
    assert not kept("PySide6/Qt/plugins/platformthemes/libqgtk3.so")
    assert kept("PySide6/Qt/plugins/platformthemes/libqxdgdesktopportal.so")
    assert kept("PySide6/Qt/plugins/imageformats/libqsvg.so")
    assert not kept("PySide6/Qt/plugins/imageformats/libqpdf.so")
    # Qt's own translations only for the languages the app ships; the app's own .qm files always.
    assert kept("PySide6/Qt/translations/qtbase_ru.qm")
    assert not kept("PySide6/Qt/translations/qtbase_de.qm")
    assert kept("gpu_advisor_assets/i18n/gpu_advisor_ru.qm")
    assert kept("PySide6/Qt/lib/libQt6Widgets.so.6")


def test_spec_ships_assets_catalog_schema_and_build_info():
    source = SPEC.read_text(encoding="utf-8")
    build = source.split(BUILD_MARKER, 1)[1]
    for needle in (
        'collect_data_files("planner")',
        'collect_data_files("profiler")',
        "asset_datas()",
        "BUILD_INFO",
    ):
        assert needle in build
    helpers = spec_helpers()
    assert helpers["ROOT"] == ROOT
    shipped = {Path(src).relative_to(ROOT).as_posix(): dest for src, dest in helpers["asset_datas"]()}
    assert shipped["assets/icons/gpu-advisor-256.png"].replace("\\", "/") == "gpu_advisor_assets/icons"
    assert shipped["assets/__init__.py"] == "gpu_advisor_assets"  # importable: importlib.resources finds it
    assert shipped["assets/gpu-advisor.desktop"] == "gpu_advisor_assets"


def workflow() -> dict:
    return yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))


def test_workflow_is_valid_yaml_with_a_linux_and_windows_lite_and_full_matrix():
    data = workflow()
    triggers = data.get("on", data.get(True))  # YAML 1.1 reads a bare `on` as True
    assert {"push", "pull_request", "workflow_dispatch"} <= set(triggers)
    job = data["jobs"]["bundle"]
    matrix = job["strategy"]["matrix"]
    assert any(os_name.startswith("ubuntu") for os_name in matrix["os"])
    assert any(os_name.startswith("windows") for os_name in matrix["os"])
    assert set(matrix["variant"]) == {"lite", "full"}
    assert job["runs-on"] == "${{ matrix.os }}"
    assert job["defaults"]["run"]["shell"] == "bash"  # the same scripts on Windows (Git Bash)
    assert job["env"]["QT_QPA_PLATFORM"] == "offscreen"
    for step in job["steps"]:
        assert "uses" in step or "run" in step, step


def test_workflow_runs_the_same_build_and_check_scripts_as_the_make_target():
    runs = [step.get("run", "") for step in workflow()["jobs"]["bundle"]["steps"]]
    assert "bash packaging/build.sh ${{ matrix.variant }}" in runs
    assert "bash packaging/check.sh ${{ matrix.variant }}" in runs
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    target = makefile.split("\npackage-check:", 1)[1].split("\n\n", 1)[0]
    assert "packaging/build.sh $(VARIANT)" in target and "packaging/check.sh $(VARIANT)" in target
    # torch for "full" comes from the same pin as the Makefile's TORCH_PIN
    pin = next(line.split("?=")[1].strip() for line in makefile.splitlines() if line.startswith("TORCH_PIN"))
    assert workflow()["jobs"]["bundle"]["env"]["TORCH_PIN"] == pin


def test_check_script_self_tests_the_gui_and_probes_with_the_full_bundle():
    script = (ROOT / "packaging" / "check.sh").read_text(encoding="utf-8")
    assert '"$bundle/gpu-advisor$exe" --self-test' in script
    assert '"$bundle/gpu-probe$exe" --quick' in script
    assert "QT_QPA_PLATFORM=offscreen" in script


def test_desktop_entry_names_an_executable_and_an_installed_icon():
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive in desktop entries
    parser.read(ROOT / "assets" / "gpu-advisor.desktop", encoding="utf-8")
    entry = parser["Desktop Entry"]
    assert entry["Type"] == "Application" and entry["Exec"] == "gpu-advisor"
    assert entry["Icon"] == "gpu-advisor" and entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")  # the spec requires the trailing separator
    install = (ROOT / "packaging" / "install-desktop-entry.sh").read_text(encoding="utf-8")
    assert "icons/hicolor/${size}x${size}/apps/gpu-advisor.png" in install


def png_size(path: Path) -> tuple[int, int]:
    """Width and height from the PNG IHDR chunk (bytes 16-24), no image library needed."""
    header = path.read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n", path
    return struct.unpack(">II", header[16:24])


def test_icons_exist_at_every_size_and_the_ico_holds_several():
    for size in (16, 24, 32, 48, 64, 128, 256, 512):
        assert png_size(ROOT / "assets" / "icons" / f"gpu-advisor-{size}.png") == (size, size)
    ico = (ROOT / "assets" / "icons" / "gpu-advisor.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind) == (0, 1) and count >= 5  # type 1 = icon
    widths = {ico[6 + 16 * i] or 256 for i in range(count)}  # width 0 in ICONDIRENTRY means 256
    assert {16, 32, 48, 256} <= widths
