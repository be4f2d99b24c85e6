"""Where the compile time of the README's first command goes, from an empty numba cache.

Default: plays ``zwick tournament --deals 1 --workers 1`` in this process with a fresh
``NUMBA_CACHE_DIR`` and numba's compile events, then prints the compiled specialisations (count,
CPU seconds), the entry points with their inclusive CPU seconds and every function compiled more
than once. ``--two-processes``: runs ``agents.zwicker_precompile``'s two halves (this process and
its helper, fresh cache) and prints each half's CPU seconds and the critical path, i.e. the wall
time on an idle machine with a core per process. Usage::

    PYTHONPATH=. python benchmarks/compile_profile.py
    PYTHONPATH=. python benchmarks/compile_profile.py --two-processes
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections import Counter

os.environ["NUMBA_CACHE_DIR"] = tempfile.mkdtemp(prefix="numba-cold-")

from numba.core import event  # noqa: E402  (after NUMBA_CACHE_DIR)


class Recorder(event.Listener):
    """Per compiled specialisation: name, argument types, inclusive CPU seconds, nesting depth."""

    def __init__(self) -> None:
        self.stack: list[float] = []
        self.rows: list[tuple[str, str, float, int]] = []

    def on_start(self, ev: event.Event) -> None:
        self.stack.append(time.process_time())

    def on_end(self, ev: event.Event) -> None:
        spent = time.process_time() - self.stack.pop()
        f = ev.data["dispatcher"].py_func
        self.rows.append((f"{f.__module__}.{f.__qualname__}", str(ev.data["args"]), spent, len(self.stack)))


def profile_tournament() -> None:
    recorder = Recorder()
    event.register("numba:compile", recorder)
    from zwick_ai.cli import main

    out = tempfile.mkdtemp(prefix="tournament-")
    t0 = time.process_time()
    main(["tournament", "--deals", "1", "--workers", "1", "--quiet", "--out", f"{out}/t"])
    rows = recorder.rows
    top = sorted((r for r in rows if r[3] == 0), key=lambda r: -r[2])
    print(f"CPU {time.process_time() - t0:.1f} s in all, {sum(r[2] for r in top):.1f} s compiling; ", end="")
    print(f"{len(rows)} specialisations; load average {os.getloadavg()[0]:.1f}\n\nentry points (inclusive CPU s):")
    for name, args, spent, _ in top:
        print(f"  {spent:6.1f}  {name}{args[:100]}")
    repeated = {n: c for n, c in Counter(r[0] for r in rows if r[0].startswith("zwick_ai")).items() if c > 1}
    print(f"\nzwick_ai functions compiled more than once: {repeated or 'none'}")


def cpu_of(pid: int) -> float:
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def profile_two_processes() -> None:
    import resource

    from zwick_ai.agents import zwicker_precompile as P
    from zwick_ai.agents import zwicker_search as ZS

    wall = time.perf_counter()
    ZS.new_tree(2)
    helper = P.start_helper(True)
    P._chance_and_setup(True)
    here_setup = time.process_time()
    P._wait_for(helper, P.MOVES_DONE)
    helper_moves = cpu_of(helper.pid)
    t = time.process_time()
    P._turns()
    here_turns = time.process_time() - t
    assert helper.stdout is not None
    helper.stdout.read()
    helper.wait()
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    helper_all = usage.ru_utime + usage.ru_stime
    critical = max(here_setup, helper_moves) + max(here_turns, helper_all - helper_moves)
    print(
        f"this process: {here_setup:.1f} s CPU to the end of its first half (start-up included), turns {here_turns:.1f}"
    )
    print(f"helper: {helper_moves:.1f} s CPU to the move generator, {helper_all:.1f} in all")
    print(f"critical path {critical:.1f} s CPU, both {here_setup + here_turns + helper_all:.1f}; ", end="")
    print(f"wall here {time.perf_counter() - wall:.1f} s at load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    profile_two_processes() if "--two-processes" in sys.argv[1:] else profile_tournament()
