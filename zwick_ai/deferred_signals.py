"""Signals that arrive inside a library which would swallow them, delivered once it returns.

scikit-learn's ``MLPRegressor.partial_fit`` catches ``KeyboardInterrupt`` (it warns "Training
interrupted by user" and returns as if the epoch had finished), so a Ctrl-C during a fit would let
a run go on and save a half-trained epoch as if it were whole. :func:`deferred_signals` holds
SIGINT, SIGTERM and SIGHUP while its block runs a library call; :meth:`Deferred.deliver` (called
between such calls) and the block's end hand a held signal to the handler that was installed
before, so the program stops exactly as it would have, only a step later.

>>> import signal
>>> with deferred_signals() as held:
...     held.deliver()  # nothing arrived: nothing happens
>>> signal.getsignal(signal.SIGINT) is signal.default_int_handler
True
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any

#: the signals a run treats as "stop now"
STOP_SIGNALS = tuple(s for s in (signal.SIGINT, signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None)


class Deferred:
    """The signals held by one :func:`deferred_signals` block and the handlers they go to."""

    def __init__(self) -> None:
        self.pending: list[int] = []
        self.previous: dict[int, Any] = {}

    def hold(self, signum: int, frame: FrameType | None) -> None:
        if signum not in self.pending:
            self.pending.append(signum)

    def deliver(self) -> None:
        """Hand the first held signal to the handler it would have reached (that handler usually
        raises); the others are dropped, as a second Ctrl-C during a stop would be."""
        if not self.pending:
            return
        signum = self.pending[0]
        self.pending.clear()
        handler = self.previous.get(signum) or signal.SIG_DFL
        if callable(handler):
            handler(signum, None)
        elif handler == signal.SIG_DFL:
            if signum == signal.SIGINT:
                raise KeyboardInterrupt
            signal.signal(signum, signal.SIG_DFL)  # the default action: end the process by the signal
            os.kill(os.getpid(), signum)


@contextmanager
def deferred_signals() -> Iterator[Deferred]:
    """Hold :data:`STOP_SIGNALS` during the block (see the module docstring); outside the main
    thread, where handlers cannot be set, the block runs unguarded."""
    held = Deferred()
    if threading.current_thread() is not threading.main_thread():
        yield held
        return
    for signum in STOP_SIGNALS:
        held.previous[signum] = signal.signal(signum, held.hold)
    try:
        yield held
    finally:
        for signum, handler in held.previous.items():
            signal.signal(signum, handler)
    held.deliver()


__all__ = ["STOP_SIGNALS", "Deferred", "deferred_signals"]
