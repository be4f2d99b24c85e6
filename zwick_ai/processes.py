"""Worker processes that never outlive the run that started them, and never print a traceback when
the run is stopped.

Every pool of the package (tournament backends, self-play generations, value-training chunks) is
made by :func:`worker_pool`: a ``concurrent.futures`` pool started with ``spawn`` whose workers

* ignore Ctrl-C (SIGINT reaches the whole foreground process group; the main process stops the
  workers itself, so an interrupt prints nothing from them),
* die with the main process, however it ends (Linux: ``PR_SET_PDEATHSIG``; a worker whose parent
  is gone before that is set leaves at once), so neither they nor the ``multiprocessing`` resource
  tracker, which ends when the last of them has, are left behind after a ``kill -9``,
* are killed, not waited for, when the block is left by an exception (an interrupt or an error):
  a long task does not keep the exit waiting,
* lead a process group (and session) of their own, which the pool ends with them: a process a
  task started (an outside agent's ``sleep 300``, a fork) does not outlive the pool,
* can note what they are doing (:func:`note`) in a folder the main process reads when one of them
  dies (:func:`read_note`): the task, and the agent that was to move.

The stop signals (:data:`STOP_SIGNALS`) are blocked and only remembered while workers are being
started (:func:`stop_signals_deferred`): a worker half made by an interrupt prints a traceback
reading what its parent never sent.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import json
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import resource_tracker
from typing import Any

from zwick_ai import deferred_signals

__all__ = [
    "STOP_SIGNALS",
    "die_with_parent",
    "descendants",
    "end_descendants",
    "kill_pool",
    "note",
    "read_note",
    "stop_signals_deferred",
    "worker_pool",
]

#: the signals that stop a run: Ctrl-C, ``kill PID`` and a closed terminal
STOP_SIGNALS = frozenset(deferred_signals.STOP_SIGNALS)
_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int | None = None) -> None:
    """Make this process receive SIGKILL when its parent ends (Linux; elsewhere nothing). With
    ``parent`` (the pid the parent had), leave at once when the parent has ended already."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):  # no prctl here: the main process still stops its workers
            pass
    if parent is not None and os.getppid() != parent:
        os._exit(1)


@contextlib.contextmanager
def stop_signals_deferred() -> Iterator[None]:
    """Block the stop signals in the block (worker processes started here inherit the mask and
    lift it in :func:`_start_worker`) and remember them; at its end the first one is raised again
    for the usual handler. Only in the main thread (signals are handled there)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    # Python's resource tracker unblocks the signals when it starts: it starts first
    resource_tracker.ensure_running()
    got: list[int] = []

    def remember(signum: int, frame: object) -> None:
        got.append(signum)

    handlers = {s: signal.signal(s, remember) for s in STOP_SIGNALS}
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, STOP_SIGNALS)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
        for s, handler in handlers.items():
            signal.signal(s, handler)
        if got:
            signal.raise_signal(got[0])


#: this process as a pool worker: the folder its notes go to, and whether it leads its own group
_worker: dict[str, Any] = {"notes": None, "leader": False, "fields": {}, "fd": None}


def _start_worker(parent: int, initializer: Callable[[], Any] | None, notes: str | None = None) -> None:
    """In each worker: ignore Ctrl-C, die with the parent, lead a session of its own (what its
    tasks start stays in its group), lift the inherited signal block, then the pool's own
    initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    try:
        os.setsid()
        _worker["leader"] = True
    except OSError:  # already leading one (an initializer of an older pool did it)
        _worker["leader"] = os.getpgid(0) == os.getpid()
    _worker["notes"] = notes
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked while the pool started it
    if initializer is not None:
        initializer()


def note(**fields: Any) -> None:
    """Record what this worker is doing (``fields`` update the last note; JSON values) where the
    main process reads it if the worker dies (:func:`read_note`); nothing outside a pool worker
    with a notes folder. Cheap: one ``pwrite`` of a short line."""
    folder = _worker["notes"]
    if folder is None:
        return
    _worker["fields"].update(fields)
    if _worker["fd"] is None:
        _worker["fd"] = os.open(os.path.join(folder, f"{os.getpid()}.json"), os.O_WRONLY | os.O_CREAT, 0o600)
    data = json.dumps(_worker["fields"]).encode()
    os.pwrite(_worker["fd"], data, 0)
    os.ftruncate(_worker["fd"], len(data))


def read_note(folder: str, pid: int) -> dict[str, Any] | None:
    """The last note of worker ``pid`` (None if it wrote none)."""
    try:
        with open(os.path.join(folder, f"{pid}.json"), encoding="utf-8", errors="replace") as f:
            text = f.read()
        fields, _ = json.JSONDecoder().raw_decode(text)  # a note cut short by the death keeps its start
    except (OSError, ValueError):
        return None
    return fields if isinstance(fields, dict) else None


def _pids() -> list[tuple[int, int, int]]:
    """``(pid, parent pid, process group)`` of every process (Linux ``/proc``; elsewhere none)."""
    out = []
    for entry in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as f:
                fields = f.read().rsplit(b")", 1)[1].split()  # after the name, which may hold spaces
            out.append((int(entry), int(fields[1]), int(fields[2])))
        except (OSError, IndexError, ValueError):
            continue  # ended meanwhile
    return out


def descendants() -> set[int]:
    """The pids of the processes this one started, directly or not (Linux; elsewhere none)."""
    return _descendants(os.getpid(), _pids())


def _descendants(me: int, table: list[tuple[int, int, int]]) -> set[int]:
    """The descendants of ``me`` in ``table`` (:func:`_pids`)."""
    children: dict[int, list[int]] = {}
    for pid, ppid, _ in table:
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = [me]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def end_descendants(spare: set[int] | frozenset[int] = frozenset()) -> list[int]:
    """Kill (SIGKILL) every process this one started, directly or not, but those in ``spare``
    (they were there before), and, in a pool worker that leads its own group, every other
    member of the group (a daemon that left its parent); returns their pids. A task of someone
    else's code calls it when done, so nothing it started lives on."""
    me = os.getpid()
    table = _pids()
    found = _descendants(me, table) - spare
    if _worker["leader"]:
        found |= {pid for pid, _, group in table if group == me and pid != me}
    for pid in found:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    return sorted(found)


def _end_groups(pids: list[int]) -> None:
    """Kill what is left of the process groups the workers ``pids`` led (what their tasks started)."""
    for pid in pids:
        with contextlib.suppress(OSError):
            os.killpg(pid, signal.SIGKILL)


class _Pool(ProcessPoolExecutor):
    """A spawn pool whose workers start with :func:`_start_worker`, started with the stop signals
    deferred (:meth:`submit`), killed when a ``with`` block is left by an exception, and whose
    workers' process groups end with it (:meth:`shutdown`)."""

    def __init__(self, workers: int, initializer: Callable[[], Any] | None = None, notes: str | None = None):
        super().__init__(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=functools.partial(_start_worker, os.getpid(), initializer, notes),
        )
        self.worker_pids: list[int] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        with stop_signals_deferred():  # workers are started at the first submits
            future = super().submit(fn, *args, **kwargs)
        self.worker_pids += [p for p in (self._processes or {}) if p not in self.worker_pids]
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=wait, cancel_futures=cancel_futures)
        if wait:
            _end_groups(self.worker_pids)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool | None:
        if exc_type is not None:
            kill_pool(self)
            return None
        return super().__exit__(exc_type, exc, tb)


def worker_pool(
    workers: int, initializer: Callable[[], Any] | None = None, notes: str | None = None
) -> ProcessPoolExecutor:
    """A ``spawn`` process pool of ``workers`` whose workers behave as the module docstring says;
    use it as a context manager (or call :func:`kill_pool` / ``shutdown`` yourself). ``notes``: a
    folder where the workers' :func:`note` calls go."""
    return _Pool(workers, initializer, notes)


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued tasks are dropped, running ones killed with their process groups."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pids = list(getattr(pool, "worker_pids", [])) or [p.pid for p in workers]
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown(wait=False) forgets it
    results = getattr(pool, "_result_queue", None)
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.kill()
    _end_groups(pids)
    for process in workers:
        process.join(timeout=5)
    # A worker killed while it sent a result leaves the manager thread reading the rest of that
    # message for ever: this process holds the pipe's other end too, so no end of file comes.
    # Closing our end gives the thread its end of file once the workers are gone.
    writer = getattr(results, "_writer", None)
    if writer is not None and manager is not None and manager.is_alive():
        with contextlib.suppress(OSError):
            writer.close()
    # The pool's manager thread closes its wake-up pipe as it ends; until then, the exit hook of
    # concurrent.futures (Python 3.11) may write to that pipe as it closes: "Bad file descriptor".
    if manager is not None:
        manager.join(timeout=5)
