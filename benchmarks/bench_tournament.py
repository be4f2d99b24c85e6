"""Tournament throughput: games/s with 1 vs 2 local worker processes (the scaling ratio) and the
overhead of Ray against local processes, in one run on the same tournament.

On a machine shared with other jobs, Linux's autogroup scheduler
(``/proc/sys/kernel/sched_autogroup_enabled``) gives every autogroup (one per ``setsid``) an equal
CPU share, however many processes it runs: local workers stay in the command's autogroup, so under
load two of them get about the CPU of one, while Ray's daemons start autogroups of their own.
``local x2 (own groups)`` starts each local worker in a new one (``os.setsid``), which compares
like with like; on a machine without competing jobs the plain local pool gets both cores anyway.

For each backend: ``startup`` is creating it and playing a few one-game warm-up tasks (worker
processes start, import numba/OpenSpiel and load the compiled kernels from numba's cache);
``run`` is the whole tournament on the warmed backend, in a fresh folder. All runs must give the
same games (checked), so the figures compare only where the games ran.

    python benchmarks/bench_tournament.py                      # ismcts:iters=50 vs greedy, 30 deals
    python benchmarks/bench_tournament.py --agents "greedy;random" --deals 200 --no-ray
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import tempfile
import time
from pathlib import Path

from zwick_ai.backends import Backend, LocalBackend, make_backend
from zwick_ai.eval import tournament as T
from zwick_ai.eval.tournament.games import task_key


def warm_up(backend: Backend, t: T.Tournament) -> None:
    """A few one-game tasks, so each worker has started and compiled/loaded its kernels."""
    tasks = T.tasks(t, deals=[0])[:1] * (2 * backend.workers)
    for _ in backend.map_unordered(T.play_task, tasks, chunksize=1):
        pass


def measure(name: str, workers: int, t: T.Tournament, folder: Path, own_groups: bool = False) -> dict:
    t0 = time.perf_counter()
    backend = LocalBackend(workers, initializer=os.setsid) if own_groups else make_backend(name, workers)
    with backend:
        warm_up(backend, t)
        t1 = time.perf_counter()
        T.run_tournament(t, folder, backend=backend, progress=False, plots=False)
        t2 = time.perf_counter()
    games = [json.loads(x) for x in (folder / "games.jsonl").read_text().splitlines()]
    key = {task_key(g): {k: v for k, v in g.items() if k != "seconds"} for g in games}
    return {
        "backend": f"{name} x{workers}" + (" (own groups)" if own_groups else ""),
        "startup_s": t1 - t0,
        "run_s": t2 - t1,
        "games": len(games),
        "games_per_s": len(games) / (t2 - t1),
        "key": key,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agents", default="ismcts:iters=50;greedy", help="';'-separated specs")
    parser.add_argument("--variant", default="dithmarschen")
    parser.add_argument("--deals", type=int, default=30)
    parser.add_argument("--no-ray", action="store_true", help="skip Ray (also skipped when not installed)")
    args = parser.parse_args()
    t = T.Tournament(args.agents.split(";"), params={"variant": args.variant}, deals=args.deals, seed=1)
    plans = [("local", 1, False), ("local", 2, False), ("local", 2, True)]
    if not args.no_ray and importlib.util.find_spec("ray") is not None:
        plans.append(("ray", 2, False))
    print(f"tournament: {';'.join(t.agents)} on {t.variant}, {t.deals} deals, {t.games} games")
    print(f"load average before: {os.getloadavg()[0]:.1f} (2 cores)")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (name, workers, own) in enumerate(plans):
            rows.append(measure(name, workers, t, Path(tmp) / str(i), own_groups=own))
    for r in rows[1:]:
        if r["key"] != rows[0]["key"]:
            raise SystemExit(f"{r['backend']} played different games than {rows[0]['backend']}")
    print("\n| backend | startup (s) | run (s) | games/s | vs local x1 |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['backend']} | {r['startup_s']:.1f} | {r['run_s']:.1f} | {r['games_per_s']:.2f} "
            f"| {r['games_per_s'] / rows[0]['games_per_s']:.2f}x |"
        )
    print("\nall backends played identical games")
    if len(rows) > 3:
        print(
            f"Ray x2 vs local x2 (own groups): run time {rows[3]['run_s'] / rows[2]['run_s']:.2f}x, "
            f"startup {rows[3]['startup_s']:.1f} s vs {rows[2]['startup_s']:.1f} s"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
