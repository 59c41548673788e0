"""What a page not yet shown will need, made ahead in idle moments after the window is up: its modules imported
and its heaviest widgets built, so the page's first show does neither.

A pyqtgraph chart costs 20-40 ms of the GUI thread to construct (its plot item, axes, view box and their menus),
and the Plan page has two in a results panel of 50 ms more, Rent or buy one chart: built with the page, they
made its first show one stall of 100-190 ms; importing the Plan page's modules is another 15-30 ms.
`stock_ahead` builds one widget per event-loop turn with a pause between (the user's input of that moment is
answered first) and keeps it hidden here; the page `take`s it when it is built, or builds its own when none is
ready. A widget on the shelf is the object the page would build (same class, no arguments), and the page words
and fills it as its own (its retranslate and data calls run after the take).

Every step goes through one queue (`later`) run by one timer, a step per firing: steps of several callers never
pile up into one turn (separate timers that fell due together, on a busy machine, all fired in one turn: a
stall of 100-300 ms).

The Plan page's eight input panels (5-10 ms each) are built ahead the same way, each bound to one PlanState the
shelf makes for them: the page takes that state (`take_state`) and then the panels bound to it (`take_bound`);
a panel not ready, or bound to another state, is built new.
"""

from __future__ import annotations

import functools
import importlib
import sys
from collections import deque
from collections.abc import Callable
from typing import Any, TypeVar, cast

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QWidget
from shiboken6 import isValid

STOCK_PAUSE_MS = 20  # between two steps (each 5-40 ms): the user's events of that moment are answered first

WidgetT = TypeVar("WidgetT", bound=QWidget)
StateT = TypeVar("StateT")

# per page: the (module, class) of each chart it takes from the shelf; they import no planner module, so they
# are built while the planner is imported on a pool thread
CHARTS = {
    "plan": (
        ("desktop.charts.plan_charts", "MemoryBarChart"),
        ("desktop.charts.plan_charts", "ScalingChart"),
    ),
    "rent_buy": (("desktop.charts.rentbuy_chart", "RentBuyChart"),),
}
# per page: its module, and the widgets that import the planner (after its import: the GUI thread would wait
# on its import lock); the results panel takes the two charts built before it
AFTER_PLANNER = {
    "plan": (
        # the page's module, its imports one per step first (together 30-50 ms of the GUI thread)
        *((module, "") for module in ("desktop.plan_state", "desktop.plan_text", "desktop.plan_request",
                                      "desktop.plan_scale_text", "desktop.pages.trace_memory",
                                      "desktop.pages.plan_document", "desktop.pages.plan")),
        ("desktop.pages.plan_results", "ResultsPanel"),
        *((module, name) for module, names in (
            ("desktop.pages.plan_inputs", ("WorkloadPanel", "ModelPanel", "ShapePanel", "HardwarePanel")),
            ("desktop.pages.plan_constraints", ("ConstraintsPanel", "StrategyPanel")),
            ("desktop.pages.plan_scale_inputs", ("ResiliencePanel", "PoolPanel")),
        ) for name in names),
    ),
    "rent_buy": (("desktop.pages.rent_buy", ""),),
}
BOUND = frozenset(("WorkloadPanel", "ModelPanel", "ShapePanel", "HardwarePanel", "ConstraintsPanel",
                   "StrategyPanel", "ResiliencePanel", "PoolPanel"))  # built with the shelf's PlanState  # fmt: skip

_ready: dict[type[QWidget], QWidget] = {}
_queue: deque[tuple[QObject, Callable[[], None]]] = deque()  # (owner, step) waiting for an idle turn
_timer: list[QTimer] = []  # the one timer that runs them (made with the first step)
_states: list[Any] = []  # the PlanState the bound panels on the shelf were built with (at most one)


def take(kind: type[WidgetT]) -> WidgetT:
    """The widget built ahead of this class if one is ready (taken off the shelf), else a new one."""
    widget = _ready.pop(kind, None)
    if widget is None:
        return kind()
    widget.setParent(None)  # the page's layout takes it
    return cast(WidgetT, widget)  # the shelf holds one widget per class, keyed by the class


def take_state(make: Callable[[], StateT]) -> StateT:
    """The state the panels on the shelf are bound to (taken: a later stock makes another), else `make()`."""
    return cast(StateT, _states.pop()) if _states else make()


def take_bound(kind: Callable[[StateT], WidgetT], state: StateT) -> WidgetT:
    """The panel of this class built ahead for `state` if one is ready (taken off the shelf), else a new one."""
    widget = _ready.get(cast(type[QWidget], kind))
    if widget is None or getattr(widget, "state", None) is not state:
        return kind(state)
    del _ready[cast(type[QWidget], kind)]
    widget.setParent(None)  # the page's layout takes it
    return cast(WidgetT, widget)


def stock_ahead(
    owner: QWidget, table: dict[str, tuple[tuple[str, str], ...]], not_built: Callable[[str], bool]
) -> None:
    """Make the steps of `table` (CHARTS, or AFTER_PLANNER once the planner is imported) for the pages that are
    `not_built` yet, one per event-loop turn (a page built meanwhile is skipped: it built its own); `owner` (the
    main window) holds the widgets until a page takes them, so they go with it."""
    for page_id, page_steps in table.items():
        for module, name in page_steps:
            later(owner, functools.partial(_step, owner, page_id, module, name, not_built))


def later(owner: QObject, step: Callable[[], None]) -> None:
    """Run `step` in an idle turn, after the steps queued before it, STOCK_PAUSE_MS after the last (dropped if
    `owner` is deleted first)."""
    _queue.append((owner, step))
    if not _timer:
        timer = QTimer()
        timer.setSingleShot(True)
        timer.setInterval(STOCK_PAUSE_MS)
        timer.timeout.connect(_run_one)
        _timer.append(timer)
    if not _timer[0].isActive():
        _timer[0].start()


def _run_one() -> None:
    try:
        while _queue:
            owner, step = _queue.popleft()
            if isValid(owner):
                step()
                break
    finally:  # a step that raised (logged by the excepthook) does not stop the others
        if _queue:
            _timer[0].start()


def stocking() -> bool:
    """Some steps are still waiting (the bench waits for the idle work after the window shows)."""
    return bool(_queue)


def _shelve(kind: type[QWidget], owner: QWidget, bound: bool) -> None:
    """Build a `kind` held hidden by `owner` (`bound`: with the shelf's PlanState); the shelf forgets it when Qt
    deletes it (its window closed), so a later window never takes or waits on a deleted widget."""
    if bound and not _states:
        from desktop.plan_state import PlanState

        _states.append(PlanState())
    widget = kind(_states[0]) if bound else kind()
    widget.setParent(owner)  # a child of a shown window stays hidden until a layout shows it
    _ready[kind] = widget
    widget.destroyed.connect(lambda: _ready.pop(kind) if _ready.get(kind) is widget else None)


def _step(owner: QWidget, page_id: str, module_name: str, class_name: str, not_built: Callable[[str], bool]) -> None:
    """One step: import `module_name` and, unless `class_name` is "", build that widget for the shelf; nothing
    for a page built meanwhile (it built its own). Only once pyqtgraph is loaded (AppContext.when_charts_loaded
    starts the steps): importing it on the GUI thread is a stall of its own."""
    if "pyqtgraph" not in sys.modules or not not_built(page_id):
        return
    module = importlib.import_module(module_name)
    kind = getattr(module, class_name) if class_name else None
    if kind is not None and kind not in _ready:
        _shelve(kind, owner, class_name in BOUND)
