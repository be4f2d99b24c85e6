"""How every ``zwick`` command stops: Ctrl-C (SIGINT), ``kill PID`` (SIGTERM) and a closed
terminal (SIGHUP) are one and the same interrupt, from the first line of :func:`zwick_ai.cli.main`
to the last, compiling included.

The first stop signal raises :class:`Interrupt` (a ``KeyboardInterrupt``) in the main thread; the
command's ``with`` blocks stop its worker processes (:mod:`zwick_ai.processes`) and keep what is
complete (records are written line by line, results files whole); :func:`main` then prints one line
and exits with ``128 + signal`` (130, 143, 129), without a traceback. Once a signal has come, any
exception on the way out is its consequence (numba reports an interrupt inside compiled code as a
``SystemError``, a compile cut short as a ``RuntimeError``) and is reported as the interrupt. A
second signal while the command is stopping ends the process at once (its workers die with it),
and so does a command still running :data:`GRACE` seconds after the first (an interrupt that
landed in a finalizer is only printed by Python, never raised: the command would run on).

A signal that was ignored when the command started (``nohup``, a background job's SIGINT) stays
ignored.
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterator
from types import FrameType

__all__ = [
    "EXIT_CODES",
    "Interrupt",
    "caused_by_interrupt",
    "exit_code",
    "handled",
    "leave_at_once_from_now",
    "received",
    "reclaim",
]

#: the stop signals and the exit status of a command they stopped (``128 + signal``, as shells report)
EXIT_CODES = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}


class Interrupt(KeyboardInterrupt):
    """A stop signal arrived (``signum``)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


#: seconds a stopped command has to wind up before the process ends anyway
GRACE = 8.0

_state: dict[str, int | None] = {"signum": None, "active": 0, "raised": 0, "exiting": 0}
#: seconds between tries to raise an interrupt that came while a finalizer or a C callback ran
RETRY = 0.02


def received() -> int | None:
    """The first stop signal of this command, or None."""
    return _state["signum"]


def _on_signal(signum: int, frame: FrameType | None) -> None:
    import threading

    if _state["raised"]:  # a second signal while the command stops: leave now (its workers die with it)
        _leave_now(signum, "")
        return
    if _state["signum"] is None:
        _state["signum"] = signum
        watchdog = threading.Timer(GRACE, _leave_now, (signum, "zwick: interrupted (stopped at once)\n"))
        watchdog.daemon = True
        watchdog.start()
    if _in_finalizer(frame):  # Python would only print an exception raised here: try again in a moment
        import _thread

        retry = threading.Timer(RETRY, _thread.interrupt_main, (signum,))
        retry.daemon = True
        retry.start()
        return
    _state["raised"] = 1
    raise Interrupt(signum)


def _in_finalizer(frame: FrameType | None) -> bool:
    """Whether ``frame`` runs where an exception is printed and dropped instead of raised: a
    ``__del__``, a weakref or ``atexit`` callback, or llvmlite's callbacks from compiled LLVM code."""
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or any(part in code.co_filename for part in _CALLBACK_FILES):
            return True
        frame = frame.f_back
    return False


#: source files whose functions run as finalizers or as callbacks from C (numba's compiler, LLVM)
_CALLBACK_FILES = (f"{os.sep}llvmlite{os.sep}", f"{os.sep}weakref.py", f"{os.sep}atexit")


def _leave_now(signum: int, line: str) -> None:
    """End the process at once with the status of ``signum`` (from any thread; no locks taken):
    while the command runs, or while the ``zwick`` program exits after it
    (:func:`leave_at_once_from_now`); a command run in a process that goes on is left alone."""
    if not _state["active"] and not _state["exiting"]:
        return  # the command has ended and the process is not ours to end
    if line and _state["active"]:  # an ended command has said it was interrupted
        os.write(2, line.encode())
    os._exit(EXIT_CODES.get(signal.Signals(signum), 128 + signum))


def _install() -> dict[int, object]:
    """Our handler for every stop signal not ignored now; returns the handlers it replaced."""
    previous: dict[int, object] = {}
    for signum in EXIT_CODES:
        current = signal.getsignal(signum)
        if current == signal.SIG_IGN:
            continue
        previous[signum] = signal.signal(signum, _on_signal)
    return previous


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """Within the block the stop signals raise :class:`Interrupt` (module docstring); the handlers
    before it are put back at its end. Outside the main thread nothing changes."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _state["signum"] = None
    _state["raised"] = 0
    _state["active"] = 1
    previous = _install()
    try:
        yield
    finally:
        _state["active"] = 0
        for signum, handler in previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]


@contextlib.contextmanager
def reclaim() -> Iterator[None]:
    """Put the stop-signal handlers back in place for the block (a library such as Ray installs its
    own when it starts) and turn an interrupt that numba reports as a ``SystemError`` back into
    an interrupt."""
    import threading

    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = _install()
    try:
        yield
    except SystemError as error:
        if caused_by_interrupt(error):
            raise Interrupt(received() or signal.SIGINT) from None
        raise
    finally:
        for signum, handler in previous.items():
            if handler is not _on_signal:
                signal.signal(signum, handler)  # type: ignore[arg-type]


def leave_at_once_from_now() -> None:
    """For a process whose command has ended: a stop signal from now on (while the interpreter
    shuts down, joining worker pools and flushing files) ends the process at once with
    ``128 + signal`` and no traceback. The output so far is flushed first; ignored signals stay
    ignored. The watchdog of a stopped command (:data:`GRACE` seconds from its signal) covers this
    exit too: a thread a library left behind cannot hold the process for ever."""
    import sys

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    _state["exiting"] = 1
    for signum in EXIT_CODES:
        if signal.getsignal(signum) != signal.SIG_IGN:
            signal.signal(signum, _exit_at_once)


def _exit_at_once(signum: int, frame: FrameType | None) -> None:
    os._exit(EXIT_CODES.get(signal.Signals(signum), 128 + signum))


def caused_by_interrupt(error: BaseException) -> bool:
    """Whether ``error`` is an interrupt, or was raised while one was being handled."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def exit_code(default: int = 130) -> int:
    """The exit status of a stopped command: ``128 + signal`` of the signal that stopped it."""
    signum = received()
    return EXIT_CODES.get(signal.Signals(signum), 128 + signum) if signum is not None else default
