"""Cold and warm start of the README's first command, ``zwick tournament``.

Runs ``python -m zwick_ai.cli tournament ARGS`` twice with one fresh ``NUMBA_CACHE_DIR``: first
with the cache empty (everything compiles), then again into a new output folder (everything loads
from the cache). Reports per run the wall time until the first game is written (start-up and
compiling; one game), the whole wall time, the CPU time of the command and its workers, and the
load average of the machine (it is shared: under load every wall time stretches, CPU times much
less). Usage::

    python benchmarks/bench_cold_start.py                 # the README's command, 144 games
    python benchmarks/bench_cold_start.py --deals 2       # only the start-up, a few games
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def run_once(cache: str, out: Path, extra: list[str]) -> dict[str, float]:
    """One run of the command; wall seconds to the first game and in all, CPU seconds."""
    env = {**os.environ, "NUMBA_CACHE_DIR": cache}
    argv = [sys.executable, "-m", "zwick_ai.cli", "tournament", "--out", str(out), *extra]
    load = os.getloadavg()[0]
    cpu0, t0 = children_cpu(), time.perf_counter()
    proc = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    first = None
    games = out / "games.jsonl"
    while proc.poll() is None:
        if first is None and games.exists() and games.stat().st_size > 0:
            first = time.perf_counter() - t0
        time.sleep(0.05)
    wall = time.perf_counter() - t0
    stderr = proc.stderr.read() if proc.stderr else ""
    if proc.returncode != 0:
        raise SystemExit(f"the command failed:\n{stderr[-3000:]}")
    notices = stderr.count("compiling the numba engine")  # one per process that compiled
    return {
        "first_game": first if first is not None else wall,
        "wall": wall,
        "cpu": children_cpu() - cpu0,
        "load": load,
        "notices": float(notices),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--deals", type=int, default=None, help="deals (default: the command's, 24)")
    parser.add_argument("--workers", type=int, default=None, help="workers (default: the command's)")
    args = parser.parse_args()
    extra = ["--quiet"]
    if args.deals is not None:
        extra += ["--deals", str(args.deals)]
    if args.workers is not None:
        extra += ["--workers", str(args.workers)]
    with tempfile.TemporaryDirectory() as cache, tempfile.TemporaryDirectory() as outs:
        rows = [("cold (empty cache)", run_once(cache, Path(outs) / "cold", extra))]
        rows.append(("warm (cached)", run_once(cache, Path(outs) / "warm", extra)))
    print(f"`zwick tournament {' '.join(extra)}`, Python {sys.version.split()[0]}, {os.cpu_count()} cores\n")
    print("| run | to the first game (s) | whole run (s) | CPU (s) | load average | processes that compiled |")
    print("|---|---|---|---|---|---|")
    for name, r in rows:
        print(
            f"| {name} | {r['first_game']:.0f} | {r['wall']:.0f} | {r['cpu']:.0f} | {r['load']:.1f} "
            f"| {r['notices']:.0f} |"
        )


if __name__ == "__main__":
    main()
