"""Agents of someone else's under guard: every failure named, every call on a clock.

An agent from outside the package (:mod:`zwick_ai.agents.outside`) is code the harness did not
write. Whatever it does in a call (import, construction, ``reset``, ``identity()``, ``act()``),
the call runs in a :func:`phase` that

* turns any exception, ``SystemExit`` included, into an :class:`AgentFault` that names the agent,
  its seat, what it was doing and the exception's last line, and keeps the full traceback;
* puts the call on a clock: :data:`MOVE_TIME_LIMIT` seconds for a decision,
  :data:`START_TIME_LIMIT` for import and construction (both options of ``zwick tournament``).
  At the limit the call is interrupted (``SIGALRM`` raises :class:`TimeLimitExceeded`, which is
  not an ``Exception``, so ``except Exception`` in the agent does not swallow it); an agent that
  does not return within :data:`GRACE` more seconds (a loop in C, a swallowed interrupt) has its
  process ended with exit code :data:`EXIT_OVERRAN` (a pool worker: the harness sees the death
  and names the agent from the worker's note, :func:`zwick_ai.processes.note`). A call that
  returns after its limit counts as overrun too.

:class:`Guarded` wraps an agent so that every call of it runs in a phase. The built-in agents are
not wrapped: they are the harness's own code (a failure there is a bug with a traceback), and a
long search may take longer than any limit on purpose.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import threading
import time
import traceback
from collections.abc import Iterator
from typing import Any

from zwick_ai._jit_cache import compile_seconds
from zwick_ai.games.game_loop import decision_actions
from zwick_ai.processes import note

__all__ = [
    "EXIT_OVERRAN",
    "GRACE",
    "MOVE_TIME_LIMIT",
    "START_TIME_LIMIT",
    "AgentFault",
    "Guarded",
    "TimeLimitExceeded",
    "failure_line",
    "phase",
    "printable",
]

#: seconds an outside agent may take for one decision (``--move-time-limit``)
MOVE_TIME_LIMIT = 60.0
#: seconds an outside agent may take to be imported and constructed (``--start-time-limit``)
START_TIME_LIMIT = 120.0
#: seconds after the interrupt at the limit before the agent's process is ended
GRACE = 5.0
#: the exit code of a process ended because an agent overran its limit and ignored the interrupt
EXIT_OVERRAN = 124
#: the longest exception text kept in the one line
MAX_TEXT = 300


class TimeLimitExceeded(BaseException):
    """Raised inside an agent's call at its time limit (a ``BaseException``: an agent's
    ``except Exception`` does not hide it)."""


class AgentFault(Exception):
    """An agent failed; ``info`` (JSON values, picklable) says who, where and how:
    ``agent``, ``seat``, ``doing``, ``error`` (the exception's last line), ``traceback``, and
    whatever the caller added (game, deal, seating)."""

    def __init__(self, info: dict[str, Any]):
        super().__init__(failure_line(info))
        self.info = info


def printable(text: str, limit: int = MAX_TEXT) -> str:
    """``text`` on one line without control characters (an agent's message could move the
    terminal's cursor or fake another line), at most ``limit`` characters.

    >>> printable("boom\\n\\x1b[2Jagain")
    'boom \\\\x1b[2Jagain'
    """
    flat = " ".join(text.split("\n"))
    clean = "".join(c if c.isprintable() else repr(c)[1:-1] for c in flat).strip()
    return clean if len(clean) <= limit else clean[: limit - 1] + "…"


def _last_line(error: BaseException) -> str:
    """``Type: message`` of an exception, readable whatever the agent put in it."""
    if isinstance(error, TimeLimitExceeded):
        return str(error)
    try:
        text = str(error)
    except Exception:  # an exception whose __str__ fails too
        text = ""
    name = type(error).__name__
    return printable(f"{name}: {text}" if text.strip() else name)


def failure_line(info: dict[str, Any]) -> str:
    """The one line naming a failure: agent, seat, what it was doing, where, the error.

    >>> failure_line({"agent": "x:Y", "seat": 1, "doing": "move", "error": "KeyError: 3",
    ...               "game": "zwikken()", "deal": 4, "seating": 1})
    "agent 'x:Y' at seat 1 failed in its move (deal 4, seating 1 of zwikken()): KeyError: 3"
    """
    seat = f" at seat {info['seat']}" if info.get("seat") is not None else ""
    where = ", ".join(f"{k} {info[k]}" for k in ("decision", "deal", "seating") if info.get(k) is not None) + (
        f" of {info['game']}" if info.get("game") else ""
    )
    return (
        f"agent {info.get('agent')!r}{seat} failed in its {info.get('doing', 'play')}"
        f"{f' ({where.strip()})' if where.strip() else ''}: {info.get('error')}"
    )


# ------------------------------------------------------------------------------------------------
# The clock: one deadline per process, watched by one thread
# ------------------------------------------------------------------------------------------------
_clock: dict[str, Any] = {"start": None, "compiled": 0.0, "told": False, "limit": 0.0, "thread": None, "what": ""}
_lock = threading.Lock()


def _used() -> float:
    """Seconds the call on the clock has taken, without the package's own compiling in it (a
    first call may compile the engine's kernels: that is not the agent's time). Under ``_lock``."""
    return time.monotonic() - _clock["start"] - (compile_seconds() - _clock["compiled"])


def _on_alarm(signum: int, frame: object) -> None:
    with _lock:
        due = _clock["start"] is not None and _used() >= _clock["limit"]
        limit = _clock["limit"]
    if due:
        raise TimeLimitExceeded(f"no answer within the time limit of {limit:g} s")


def _watch() -> None:
    """Tell the main thread at the limit (``SIGALRM``); end the process :data:`GRACE` seconds later."""
    main = threading.main_thread().ident
    while True:
        time.sleep(0.05)
        with _lock:
            if _clock["start"] is None or _used() < _clock["limit"]:
                continue
            told, what, over = _clock["told"], _clock["what"], _used() - _clock["limit"]
            _clock["told"] = True
        if not told and main is not None:
            signal.pthread_kill(main, signal.SIGALRM)
        elif over >= GRACE:
            note(overran=True)
            if multiprocessing.parent_process() is None:  # a pool worker's death is named by the pool's owner
                with contextlib.suppress(OSError):
                    os.write(2, f"zwick: {what}: no answer within its time limit; its process ended\n".encode())
            os._exit(EXIT_OVERRAN)


def _arm(limit: float | None, what: str) -> None:
    """Start the clock of one call (``limit`` None or 0: no clock)."""
    if not limit:
        return
    if threading.current_thread() is threading.main_thread() and signal.getsignal(signal.SIGALRM) is not _on_alarm:
        signal.signal(signal.SIGALRM, _on_alarm)
    with _lock:
        _clock.update(start=time.monotonic(), compiled=compile_seconds(), told=False, limit=limit, what=what)
        if _clock["thread"] is None or not _clock["thread"].is_alive():
            _clock["thread"] = threading.Thread(target=_watch, name="agent clock", daemon=True)
            _clock["thread"].start()


def _disarm() -> float:
    """Stop the clock; the seconds the call took by it (0 without a clock)."""
    with _lock:
        used = _used() if _clock["start"] is not None else 0.0
        _clock["start"] = None
    return used


@contextlib.contextmanager
def phase(
    spec: str, seat: int | None, doing: str, limit: float | None = None, passes: tuple[type, ...] = (), **where: Any
) -> Iterator[None]:
    """Run the block as agent ``spec`` at ``seat`` ``doing`` something (``move``, ``start``,
    ``identity``, ``reset``) within ``limit`` seconds (None: no limit); any failure in it but
    those of the types ``passes`` becomes an :class:`AgentFault` naming them (``where``: the game,
    deal and seating it adds)."""
    with _lock:
        nested = _clock["start"] is not None
    note(agent=spec, seat=seat, doing=doing, limit=limit)
    if not nested:
        _arm(limit, f"agent {spec!r}")
    error: BaseException | None = None
    try:
        yield
    except (Exception, SystemExit, TimeLimitExceeded) as caught:
        error = caught
    except KeyboardInterrupt as caught:  # in the main program an interrupt is the run's (workers ignore Ctrl-C)
        if multiprocessing.parent_process() is None:
            raise
        error = caught
    finally:
        took = 0.0 if nested else _disarm()
        note(doing=None)
    if error is None and limit and took > limit:
        error = TimeLimitExceeded(f"took {took:.1f} s, over the time limit of {limit:g} s")
    if error is not None and isinstance(error, passes):
        raise error
    if error is not None:
        text = "".join(traceback.format_exception(error))
        info = {"agent": spec, "seat": seat, "doing": doing, "error": _last_line(error), "traceback": text}
        raise AgentFault(info | where) from None


class Guarded:
    """An agent whose every call runs in a :func:`phase` (``seat``; ``limit`` for decisions;
    ``where``: game, deal, seating for the line). Other attributes are the agent's."""

    def __init__(self, agent: Any, seat: int | None, limit: float | None, **where: Any):
        self._agent, self._seat, self._limit, self._where = agent, seat, limit, where

    def act(self, state: Any) -> list[int]:
        """The agent's decision, as a plain list of action ids (whatever it returned is read here,
        on its clock: an object that fails when read is the agent's failure)."""
        spec = self._agent.spec
        with phase(spec, self._seat, "move", self._limit, **self._where):
            return decision_actions(self._agent.act(state), f"agent {spec!r} at seat {self._seat}")

    def reset(self, seed: int) -> None:
        with phase(self._agent.spec, self._seat, "reset", self._limit, **self._where):
            self._agent.reset(seed)

    def identity(self) -> dict[str, Any]:
        with phase(self._agent.spec, self._seat, "identity", self._limit, **self._where):
            return self._agent.identity()

    def fork(self) -> Guarded:
        """The agent's twin (:meth:`zwick_ai.agents.base.Agent.fork`), guarded as this one."""
        with phase(self._agent.spec, self._seat, "fork", self._limit, **self._where):
            return Guarded(self._agent.fork(), self._seat, self._limit, **self._where)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._agent, name)

    def __setattr__(self, name: str, value: Any) -> None:
        """The agent's attributes are set on the agent (``agent.params = ...`` restricts it)."""
        if name.startswith("_"):
            object.__setattr__(self, name, value)
        else:
            setattr(self._agent, name, value)
