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
  a long task does not keep the exit waiting.

The stop signals (:data:`STOP_SIGNALS`) are blocked and only remembered while workers are being
started (:func:`stop_signals_deferred`): a worker half made by an interrupt prints a traceback
reading what its parent never sent.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
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
    "kill_pool",
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


def _start_worker(parent: int, initializer: Callable[[], Any] | None) -> None:
    """In each worker: ignore Ctrl-C, die with the parent, lift the inherited signal block, then
    the pool's own initializer."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)  # blocked while the pool started it
    if initializer is not None:
        initializer()


class _Pool(ProcessPoolExecutor):
    """A spawn pool whose workers start with :func:`_start_worker`, started with the stop signals
    deferred (:meth:`submit`), and killed when a ``with`` block is left by an exception."""

    def __init__(self, workers: int, initializer: Callable[[], Any] | None = None):
        super().__init__(
            workers,
            mp_context=multiprocessing.get_context("spawn"),
            initializer=functools.partial(_start_worker, os.getpid(), initializer),
        )

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        with stop_signals_deferred():  # workers are started at the first submits
            return super().submit(fn, *args, **kwargs)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> bool | None:
        if exc_type is not None:
            kill_pool(self)
            return None
        return super().__exit__(exc_type, exc, tb)


def worker_pool(workers: int, initializer: Callable[[], Any] | None = None) -> ProcessPoolExecutor:
    """A ``spawn`` process pool of ``workers`` whose workers behave as the module docstring says;
    use it as a context manager (or call :func:`kill_pool` / ``shutdown`` yourself)."""
    return _Pool(workers, initializer)


def kill_pool(pool: ProcessPoolExecutor) -> None:
    """Stop a pool now: queued tasks are dropped and running ones killed."""
    workers = list((getattr(pool, "_processes", None) or {}).values())
    pool.shutdown(wait=False, cancel_futures=True)
    for process in workers:
        process.kill()
    for process in workers:
        process.join(timeout=5)
