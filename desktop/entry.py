"""The `gpu-advisor` executable: the GUI when called bare, the planner's subcommands otherwise.

This module imports neither Qt nor torch at import time, so `gpu-advisor memory ...` starts fast and works on
machines without a display.

The GUI opens only when every argument is one it understands: the global options (--db PATH, --lang en|ru), the
GUI's own flags (--screenshots DIR, desktop/app.py; --self-test with --summary FILE and --images DIR,
desktop/selftest.py) and Qt's standard options (-platform offscreen, -style Fusion, ...). Anything else, a typo
such as `gpu-advisor memroy` included, goes to the command-line parser, which names the problem in one line
with exit code 2 instead of opening a window (or, on a server without a display, aborting inside Qt).
"""

from __future__ import annotations

import sys

GLOBAL_OPTIONS = {"--db": None, "--lang": ("en", "ru")}  # option -> allowed values (None: any value)
# Options of the GUI itself, each followed by a value.
GUI_OPTIONS = {"--screenshots": None}
SELF_TEST_FLAG = "--self-test"
SELF_TEST_OPTIONS = {"--summary": None, "--images": None}  # only together with --self-test
# Qt's own command-line options (QGuiApplication / QApplication documentation), which QApplication consumes.
QT_OPTIONS_WITH_VALUE = {
    "-platform",
    "-platformpluginpath",
    "-platformtheme",
    "-plugin",
    "-qwindowgeometry",
    "-qwindowicon",
    "-qwindowtitle",
    "-style",
    "-stylesheet",
    "-session",
    "-display",
    "-geometry",
}
QT_FLAGS = {"-reverse", "-widgetcount", "-nograb", "-dograb", "-sync"}


def _value_options(argv: list[str]) -> dict[str, tuple[str, ...] | None]:
    options: dict[str, tuple[str, ...] | None] = {**GLOBAL_OPTIONS, **GUI_OPTIONS}
    if SELF_TEST_FLAG in argv:
        options.update(SELF_TEST_OPTIONS)
    return options


def wants_gui(argv: list[str]) -> bool:
    """True when every argument is a global option, a GUI flag or a Qt option, each with a valid value.

    `[]`, `--db x.sqlite --lang ru`, `--screenshots DIR`, `--self-test --summary FILE` and `-platform offscreen`
    open the GUI; `memory ...`, `frobnicate`, `--help`, `--version`, `--lang de` and `--db` without a path go to
    the command-line parser (which runs the subcommand or says what is wrong).
    """
    options = _value_options(argv)
    position = 0
    while position < len(argv):
        arg = argv[position]
        name, has_inline_value, inline_value = arg.partition("=")
        if arg == SELF_TEST_FLAG or arg in QT_FLAGS:
            position += 1
            continue
        if name in options or name in QT_OPTIONS_WITH_VALUE:
            if has_inline_value:
                value = inline_value
                position += 1
            elif position + 1 < len(argv):
                value = argv[position + 1]
                position += 2
            else:
                return False  # an option without its value: the parser says so
            allowed = options.get(name)
            if allowed is not None and value not in allowed:
                return False
            continue
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    if argv is None:  # the real entry point: Ctrl-C and closed pipes handled before anything else runs
        from profiler.early_interrupt import exit_on_ctrl_c

        exit_on_ctrl_c("gpu-advisor")  # while profiler.exits is imported
        from profiler.exits import run_entry

        return run_entry("gpu-advisor", lambda: _dispatch(sys.argv[1:]))
    return _dispatch(argv)


def _dispatch(argv: list[str]) -> int:
    argv = list(argv)
    if not wants_gui(argv):
        from planner.cli import main as cli_main

        return cli_main(argv)
    if SELF_TEST_FLAG in argv:  # offscreen checks of this installation (desktop/selftest.py)
        from desktop.selftest import main as self_test

        return self_test(argv)
    from desktop.app import main as gui_main

    return gui_main(argv)


if __name__ == "__main__":
    sys.exit(main())
