"""The clock of the searches' time budgets (``time=`` in an agent spec).

``wall`` (the default) is real time: ``time=0.1`` is a tenth of a second, whatever else the machine
is doing. ``cpu`` is the CPU time of the searching thread: on a loaded machine a search still gets
the work it would do in that time on an idle core (less only by what sharing caches and memory
costs), so agents can be compared at equal time while other jobs run. A tournament chooses it for
its games (``zwick tournament --clock cpu``; ``clock = "cpu"`` in a leaderboard file); the clock is
per process.

>>> use("cpu"); current()
'cpu'
>>> use("wall"); t0 = now(); now() >= t0
True
"""

from __future__ import annotations

import time
from collections.abc import Callable

#: the clocks by name
CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.thread_time}

_chosen = ["wall"]


def use(name: str) -> None:
    """Make ``name`` (``wall`` or ``cpu``) the clock of every time budget in this process."""
    if name not in CLOCKS:
        raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, not {name!r}")
    _chosen[0] = name


def current() -> str:
    """The name of the clock in use."""
    return _chosen[0]


def now() -> float:
    """A reading of the clock in use (seconds; only differences mean anything)."""
    return CLOCKS[_chosen[0]]()
