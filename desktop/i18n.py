"""Interface language: Qt translators, the default QLocale, and the live switch.

English is the source language (every tr() string is English); Russian comes from
assets/i18n/gpu_advisor_ru.qm, built from gpu_advisor_ru.ts by `make translations` (pyside6-lrelease) and
shipped in the package (gpu_advisor_assets) and the bundle. Qt's own strings (the standard buttons of message
boxes, the file dialog, the undo action's "Undo %1") come from Qt's qtbase_<lang>.qm, which PySide6 ships.

The language in effect is one of SUPPORTED_LANGUAGES. The user's choice is "en", "ru" or "" (follow the system:
Russian when the system locale is Russian, else English). ``set_language`` installs the translators and the
default QLocale, so desktop/fmt.py formats numbers the chosen language's way (1 234,5 in Russian);
``switch_language`` does the same while the app runs and then retranslates every window in place, so nothing
the user typed is lost.
"""

from __future__ import annotations

import sys
from importlib.resources import files
from importlib.resources.abc import Traversable

from PySide6.QtCore import QCoreApplication, QLibraryInfo, QLocale, QTranslator
from PySide6.QtWidgets import QApplication

SOURCE_LANGUAGE = "en"
SUPPORTED_LANGUAGES = ("en", "ru")
CATALOG_NAME = "gpu_advisor"  # assets/i18n/gpu_advisor_<lang>.qm
LOCALES = {
    "en": (QLocale.Language.English, QLocale.Country.UnitedStates),
    "ru": (QLocale.Language.Russian, QLocale.Country.Russia),
}

# Translators installed now (kept referenced: Qt does not own them, and a collected one would vanish).
_installed: list[QTranslator] = []
_current = SOURCE_LANGUAGE


def resolve_language(choice: str | None, system: QLocale | None = None) -> str:
    """The language to use: the explicit choice if supported, else the system's when supported, else English."""
    code = (choice or "").strip().lower()
    if code in SUPPORTED_LANGUAGES:
        return code
    system_code = (system or QLocale.system()).name().split("_")[0].lower()
    return system_code if system_code in SUPPORTED_LANGUAGES else SOURCE_LANGUAGE


def translations_dir() -> Traversable:
    """The folder that holds the .qm files (a Traversable inside the gpu_advisor_assets package)."""
    return files("gpu_advisor_assets") / "i18n"


def qm_path(language: str) -> str:
    return str(translations_dir() / f"{CATALOG_NAME}_{language}.qm")


def _load(translator: QTranslator, path: str) -> bool:
    return bool(path) and translator.load(path)


def _make_translators(language: str) -> list[QTranslator]:
    """Our catalog plus Qt's own for ``language``; English needs only its plural forms ("1 quote", "2 quotes":
    gpu_advisor_en.qm), and works without them (then "1 quote(s)")."""
    if language == SOURCE_LANGUAGE:
        plurals = QTranslator()
        return [plurals] if _load(plurals, qm_path(language)) else []
    ours = QTranslator()
    if not _load(ours, qm_path(language)):
        raise FileNotFoundError(
            f"the {language} translation {qm_path(language)} is missing; run `make translations`"
        )
    translators = [ours]
    qt_dir = QLibraryInfo.path(QLibraryInfo.LibraryPath.TranslationsPath)
    qt_own = QTranslator()
    if qt_own.load(f"qtbase_{language}", qt_dir):  # optional: a stripped Qt may lack it
        translators.append(qt_own)
    return translators


def set_language(choice: str | None, app: QCoreApplication | None = None, strict: bool = False) -> str:
    """Install the translators and default QLocale for ``choice`` ("en", "ru", "" = system); returns the code.

    Safe to call again: the previous translators are removed first. Needs a QCoreApplication to exist. A missing
    .qm file raises FileNotFoundError when ``strict``; otherwise the app says so on stderr and stays in English
    (a broken install must still open).
    """
    global _current
    app = app or QCoreApplication.instance()
    if app is None:
        raise RuntimeError("set_language needs a QCoreApplication")
    language = resolve_language(choice)
    try:
        translators = _make_translators(language)  # load first: a missing file changes nothing
    except FileNotFoundError as exc:
        if strict:
            raise
        sys.stderr.write(f"gpu-advisor: {exc}; the interface stays in English\n")
        language, translators = SOURCE_LANGUAGE, []
    for old in _installed:
        app.removeTranslator(old)
    _installed.clear()
    for translator in translators:
        app.installTranslator(translator)
        _installed.append(translator)
    QLocale.setDefault(QLocale(*LOCALES[language]))
    _current = language
    return language


def retranslate_windows() -> None:
    """Call retranslate() on every top-level window that has one (the main window passes it to its pages)."""
    if QApplication.instance() is None:
        return
    from shiboken6 import isValid

    for widget in QApplication.topLevelWidgets():
        if not isValid(widget):  # a menu or dialog Qt already deleted, still listed until the event loop runs
            continue
        # Spin boxes and date fields keep the locale they were made with: give every window the new default,
        # which their children inherit, so 1234.5 reads "1 234,5" in Russian in every field too.
        widget.setLocale(QLocale())
        retranslate = getattr(type(widget), "retranslate", None)  # our windows define it; Qt's never do
        if callable(retranslate):
            retranslate(widget)


def switch_language(choice: str | None) -> str:
    """Change the language of the running app in place: translators, locale, then every window's texts.

    Inputs, tables, undo history and the open plan stay as they are; only texts and formatted numbers change.
    """
    language = set_language(choice)
    retranslate_windows()
    return language
