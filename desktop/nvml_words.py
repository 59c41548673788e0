"""NVML's reasons in the interface language.

profiler.nvml words every refusal in fixed English phrases (it runs headless and in the probe child, where
there is no Qt); the GUI shows them in tooltips, the empty state and the telemetry key. This table holds the
same phrases for translation (context "NvmlWords"); a phrase not in it (a driver's own text) stays as NVML
said it.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

PHRASES = (
    QT_TRANSLATE_NOOP("NvmlWords", "NVML not initialised"),
    QT_TRANSLATE_NOOP("NvmlWords", "invalid argument"),
    QT_TRANSLATE_NOOP("NvmlWords", "not supported on this GPU or driver"),
    QT_TRANSLATE_NOOP("NvmlWords", "no permission"),
    QT_TRANSLATE_NOOP("NvmlWords", "not found"),
    QT_TRANSLATE_NOOP("NvmlWords", "NVIDIA driver not loaded"),
    QT_TRANSLATE_NOOP("NvmlWords", "NVML library not found (libnvidia-ml.so.1 / nvml.dll)"),
    QT_TRANSLATE_NOOP("NvmlWords", "function not in this driver's NVML"),
    QT_TRANSLATE_NOOP("NvmlWords", "GPU is lost (fell off the bus or hung)"),
    QT_TRANSLATE_NOOP("NvmlWords", "NVML/driver version mismatch (reboot after a driver update)"),
    QT_TRANSLATE_NOOP("NvmlWords", "MIG is off"),
    QT_TRANSLATE_NOOP("NvmlWords", "not read"),
    QT_TRANSLATE_NOOP("NvmlWords", "no function to ask"),
    QT_TRANSLATE_NOOP("NvmlWords", "the NVML bindings are not installed (pip install nvidia-ml-py)"),
)
_KNOWN = frozenset(str(phrase) for phrase in PHRASES)


def translated(reason: str) -> str:
    """`reason` in the interface language: each known phrase translated, a "what: why" split at the colon."""
    text = str(reason).strip()
    if text in _KNOWN:
        return QCoreApplication.translate("NvmlWords", text)
    head, colon, tail = text.partition(": ")
    if colon and tail.rstrip(".") in _KNOWN:
        return f"{head}: {QCoreApplication.translate('NvmlWords', tail.rstrip('.'))}"
    return text
