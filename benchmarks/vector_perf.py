"""Where a ``VectorGame`` step's CPU time goes, by compiled function: a Linux ``perf`` profile of
the benchmark's loop (``bench_vector.py``'s driver, one thread) with the names of numba's
functions, which ``perf`` cannot see by itself (they live in memory the JIT wrote).

The process compiles the engine afresh in a temporary numba cache (so that every function's
LLVM module is in memory: functions loaded from the on-disk cache have none), plays the batch
for a moment, writes ``/tmp/perf-<pid>.map`` (each compiled function's address, size and name,
which ``perf report`` reads), then records itself with ``perf record`` while it plays on and
prints the functions with the largest share of the samples. Functions that LLVM inlined into
their callers count as their callers. Needs ``perf`` (``linux-perf``) and permission to record
(``kernel.perf_event_paranoid`` at most 2 for one's own process). Run::

    python benchmarks/vector_perf.py                       # 1,024 games, 12 s of samples
    python benchmarks/vector_perf.py --games 64 --seconds 20 --top 40
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

_CACHE = tempfile.mkdtemp(prefix="zwick-perf-numba-")
os.environ["NUMBA_CACHE_DIR"] = _CACHE  # a fresh compile: every function's module stays in memory

import numba  # noqa: E402
import numpy as np  # noqa: E402
from bench_vector import GAME, random_legal  # noqa: E402
from numba.core.registry import CPUDispatcher  # noqa: E402

from zwick_ai.vector import VectorGame  # noqa: E402

#: the longest span a function is given in the map when the next known address is farther away
MAX_SPAN = 1 << 16


def short_name(symbol: str) -> str:
    """``module.function`` out of numba's mangled symbol (``_ZN`` then length-prefixed names) for a
    zwick_ai function, else the symbol's first 80 characters.

    >>> short_name("_ZN8zwick_ai6vector13zwicker_batch11step_serialB4v231B38c8t")
    'vector.zwicker_batch.step_serial'
    """
    at = symbol.find("8zwick_ai")
    if at < 0:
        return symbol[:80]
    names: list[str] = []
    while at < len(symbol) and symbol[at].isdigit() and len(names) < 4:
        digits = re.match(r"\d+", symbol[at:])
        assert digits is not None
        length = int(digits.group())
        at += len(digits.group())
        names.append(symbol[at : at + length])
        at += length
    return ".".join(names[1:])


def write_perf_map(path: str) -> int:
    """Write ``perf``'s map of every compiled function of every numba dispatcher in the process;
    returns how many. A function's size is taken as the distance to the next address (at most
    :data:`MAX_SPAN`)."""
    entries: set[tuple[int, str]] = set()
    seen: set[int] = set()
    for obj in gc.get_objects():
        if not isinstance(obj, CPUDispatcher):
            continue
        for cres in list(obj.overloads.values()):
            library = cres.library  # type: ignore[attr-defined]  # numba's stubs omit it
            if id(library) in seen:
                continue
            seen.add(id(library))
            try:
                module = library._final_module  # noqa: SLF001  (numba keeps no public handle)
            except AttributeError:
                continue
            for function in module.functions:
                if function.is_declaration:
                    continue
                address = library.get_pointer_to_function(function.name)
                if address:
                    entries.add((int(address), function.name))
    ordered = sorted(entries)
    with open(path, "w") as fh:
        for k, (address, name) in enumerate(ordered):
            span = min(ordered[k + 1][0] - address, MAX_SPAN) if k + 1 < len(ordered) else MAX_SPAN
            fh.write(f"{address:x} {span:x} {short_name(name)}\n")
    return len(ordered)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1024, help="batch size (default: 1024)")
    parser.add_argument("--seconds", type=float, default=12.0, help="seconds of samples (default: 12)")
    parser.add_argument("--top", type=int, default=30, help="functions to print (default: 30)")
    args = parser.parse_args()
    if shutil.which("perf") is None:
        sys.exit("vector_perf: perf is not installed (Debian: apt install linux-perf)")
    print("compiling the engine afresh (a minute or two) ...", flush=True)
    numba.set_num_threads(1)
    vector = VectorGame(GAME, num_games=args.games, seed=0, threads=1)
    ts = vector.reset()
    actions = np.zeros(args.games, np.int64)
    rng = np.arange(args.games, dtype=np.uint64)
    for _ in range(50):
        random_legal(ts.legal_mask, actions, rng)
        ts = vector.step(actions)
    count = write_perf_map(f"/tmp/perf-{os.getpid()}.map")
    data = os.path.join(_CACHE, "perf.data")
    recorder = subprocess.Popen(
        ["perf", "record", "-F", "2999", "-p", str(os.getpid()), "-o", data, "--", "sleep", str(args.seconds)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    time.sleep(0.5)  # let perf attach
    steps, start = 0, time.perf_counter()
    while recorder.poll() is None:
        random_legal(ts.legal_mask, actions, rng)
        ts = vector.step(actions)
        steps += args.games
    rate = steps / (time.perf_counter() - start)
    report = subprocess.run(
        ["perf", "report", "-i", data, "--no-children", "--sort", "symbol", "-g", "none", "--stdio"],
        capture_output=True,
        text=True,
        check=False,
    )
    print(
        f"{args.games} games, one thread: {rate:,.0f} agent steps/s while recorded; {count} compiled functions mapped"
    )
    print("uptime:", os.popen("uptime").read().strip())
    shown = 0
    for line in report.stdout.splitlines():
        if line.strip() and not line.startswith("#"):
            print(" ".join(line.split()).replace("[.] ", ""))
            shown += 1
            if shown >= args.top:
                break
    shutil.rmtree(_CACHE, ignore_errors=True)
    os.remove(f"/tmp/perf-{os.getpid()}.map")


if __name__ == "__main__":
    main()
