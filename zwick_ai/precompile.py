"""Compiling the numba kernels up front, group by group (``zwick precompile``).

A :class:`Group` names a part of the package and holds a small real workload of it (a game, a few
environment steps, a few training iterations): running it compiles every kernel that part's first
run needs, for the argument types of its real calls, and numba's on-disk cache
(:mod:`zwick_ai._jit_cache`) keeps them, so a later first run loads them in seconds. Whether a
group compiled anything is told by numba's own compile events (:func:`_jit_cache.compile_count`),
which fire only for a real compile, not for code loaded from the cache; so a second run says so.

The workloads themselves import the layers above, so each layer offers its own groups
(:mod:`zwick_ai.eval.warm_up`: games of every agent; :mod:`zwick_ai.envs.warm_up`: environments
and ``VectorGame``; :mod:`zwick_ai.learn.warm_up`: MCCFR), and the command that runs them
(:mod:`zwick_ai.cli.precompile`) lists them in order. The boards they share are named here.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from zwick_ai import _jit_cache

#: the Zwicker board of the default tournament, and a two-player one
ZWICKER = "zwicker(variant=dithmarschen,players=4)"
ZWICKER_2P = "zwicker(variant=classic,players=2)"
#: the trick games at their defaults
TRICK_GAMES = ("zwikken", "zwicken")


@dataclass(frozen=True)
class Group:
    """A part of the package to compile: ``name`` (short, shown on the progress bar), ``what``
    (one line for the notice), ``run`` (the workload; it returns True when a helper process
    compiled part of it, whose compiles this process does not see) and ``rare`` (compiled with
    ``--all`` only)."""

    name: str
    what: str
    run: Callable[[], bool | None]
    rare: bool = False


@dataclass(frozen=True)
class Done:
    """What compiling one group did: its numba compiles in this process (0: all of it came from
    the cache), whether a helper process compiled too, and the wall-clock seconds it took."""

    name: str
    compiles: int
    seconds: float
    helper: bool = False


def chosen(groups: Iterable[Group], rare: bool) -> list[Group]:
    """The groups to run, in their order: every one with ``rare``, else those not marked rare."""
    return [g for g in groups if rare or not g.rare]


@contextmanager
def notice_silenced() -> Iterator[None]:
    """The first-compile notice of :mod:`zwick_ai._jit_cache` switched off (the command says what
    it compiles itself), restored afterwards."""
    before = os.environ.get(_jit_cache.NOTICE_ENV)
    os.environ[_jit_cache.NOTICE_ENV] = "0"
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(_jit_cache.NOTICE_ENV, None)
        else:
            os.environ[_jit_cache.NOTICE_ENV] = before


def run_group(group: Group) -> Done:
    """Run ``group``'s workload; how many kernels it compiled and how long it took."""
    before, began = _jit_cache.compile_count(), time.perf_counter()
    helper = bool(group.run())
    return Done(group.name, _jit_cache.compile_count() - before, time.perf_counter() - began, helper)


def _outcome(done: Done) -> str:
    """One group's outcome in words."""
    if done.helper:
        return f"{done.compiles} compiled here, more in a helper process"
    return f"{done.compiles} compiled" if done.compiles else "loaded from the cache"


def summary(done: list[Done]) -> str:
    """The closing lines: each group's compiles and seconds, then the total (or that everything
    came from the cache)."""
    width = max((len(d.name) for d in done), default=0)
    lines = [f"  {d.name:<{width}}  {_outcome(d)}, {d.seconds:.1f} s" for d in done]
    total, seconds = sum(d.compiles for d in done), sum(d.seconds for d in done)
    if any(d.helper for d in done):
        lines.append(f"compiled in {seconds:.0f} s; later runs load it all from the cache")
    elif total:
        lines.append(f"compiled {total} functions in {seconds:.0f} s; later runs load them from the cache")
    else:
        lines.append(f"everything was already compiled: loaded from the cache in {seconds:.1f} s")
    return "\n".join(lines)
