"""An agent from outside the package that misbehaves on purpose (the tests copy it into a working
folder as ``hostile.py``): at import (``HOSTILE_IMPORT=what``), when built (``init=what``), in
``identity()`` (``ident=what``) or at its decision number ``after + 1`` (``act=what``). ``what``
is one of :data:`WAYS`."""

import ctypes
import os
import signal
import subprocess
import time

from zwick_ai.agents import Agent, Param
from zwick_ai.games.decisions import legal_decisions


def _stamp():
    """Note when the process ends itself (``HOSTILE_STAMP``: a file), to time how soon it is reported."""
    if os.environ.get("HOSTILE_STAMP"):
        with open(os.environ["HOSTILE_STAMP"], "w") as f:
            f.write(repr(time.time()))


#: the ways it misbehaves
WAYS = ("raise", "keyerror", "recursion", "exit", "segfault", "kill9", "hang", "spin", "stubborn", "fork", "forkhang",
        "systemexit", "value", "escape", "illegal")  # fmt: skip


def misbehave(what):
    if what == "raise":
        raise RuntimeError("boom")
    if what == "keyerror":
        raise KeyError("missing")
    if what == "recursion":

        def down(n):
            return down(n + 1)

        down(0)
    if what == "exit":
        _stamp()
        os._exit(7)
    if what == "segfault":
        _stamp()
        ctypes.string_at(0)
    if what == "kill9":
        _stamp()
        os.kill(os.getpid(), signal.SIGKILL)
    if what == "hang":
        time.sleep(300)
    if what == "spin":
        while True:
            pass
    if what == "stubborn":  # swallows the interrupt and goes on sleeping
        while True:
            try:
                time.sleep(300)
            except BaseException:
                pass
    if what in ("fork", "forkhang"):  # a child that would outlive the run, and a daemon that left its parent
        subprocess.Popen(["sleep", os.environ.get("HOSTILE_SLEEP", "300")])
        subprocess.Popen(["sh", "-c", f"sleep {os.environ.get('HOSTILE_SLEEP', '300')} &"])
        if what == "forkhang":
            time.sleep(300)
    if what == "systemexit":
        raise SystemExit(0)
    if what == "value":
        raise ValueError("bad value")
    if what == "escape":
        raise RuntimeError("\x1b[2J\x1b[31mred\nsecond line")


misbehave(os.environ.get("HOSTILE_IMPORT", ""))


def _first_time(marker: str) -> bool:
    """True without a marker file; with one, only for the first caller of any process (it creates the file)."""
    if not marker:
        return True
    try:
        os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


class Hostile(Agent):
    """Plays its first legal decision; misbehaves as told."""

    PARAMS = (
        Param("act", str, "", "what to do at decision number `after`"),
        Param("init", str, "", "what to do when built"),
        Param("ident", str, "", "what to do in identity()"),
        Param("after", int, 0, "decisions to play first"),
        Param("once", str, "", "a file: misbehave only if it does not exist yet (and create it), so once in a run"),
    )

    def __init__(self, game, seed=0, **params):
        super().__init__(game, seed, **params)
        misbehave(self.params["init"])
        self.decisions = 0

    def identity(self):
        misbehave(self.params["ident"])
        return super().identity()

    def act(self, state):
        self.decisions += 1
        if self.decisions > self.params["after"] and _first_time(self.params["once"]):
            if self.params["act"] == "illegal":
                return [10**6]
            misbehave(self.params["act"])
        return list(legal_decisions(state)[0][1])
