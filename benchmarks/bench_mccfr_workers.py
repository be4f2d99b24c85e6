"""MCCFR iterations a second on every Zwicker board of the leaderboard, one worker against two.

``zwick train mccfr --workers 2`` runs the traversals on two threads and adds their table changes
up every ``--sync`` iterations each (``zwick_ai/learn/cfr/merge.py``). This measures, per board, in
one run alternating the two settings (the machine is shared: the ratio is the figure), the
iterations a second of probe-sampling MCCFR with the ``coarse`` abstraction from an empty table,
warm-up compile excluded, and writes ``benchmarks/cfr/mccfr_workers.csv``::

    python benchmarks/bench_mccfr_workers.py --iterations 2000 --rounds 2
"""

from __future__ import annotations

import argparse
import csv
import time
from pathlib import Path

import pyspiel

import zwick_ai.games  # noqa: F401
from zwick_ai.learn.cfr import MCCFRSolver

BOARDS = {
    "classic 2p": "zwicker(variant=classic,players=2)",
    "classic 4p": "zwicker(variant=classic,players=4)",
    "grupp 4p": "zwicker(variant=grupp,players=4)",
    "dithmarschen 4p": "zwicker(variant=dithmarschen,players=4)",
    "grossenwiehe 4p": "zwicker(variant=grossenwiehe,players=4)",
    "christiansen 3p": "zwicker(variant=christiansen,players=3)",
}


def rate(game: pyspiel.Game, workers: int, iterations: int, sync: int) -> float:
    """Iterations a second of ``iterations`` from an empty table (compile excluded)."""
    solver = MCCFRSolver(game, "probe", 1, "coarse", workers=workers, sync=sync)
    solver.warm_up()
    start = time.perf_counter()
    solver.run(iterations)
    return iterations / (time.perf_counter() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--iterations", type=int, default=2000, help="iterations a measurement (a multiple of 2 * sync)")
    ap.add_argument("--sync", type=int, default=500, help="iterations each worker runs between merges")
    ap.add_argument("--rounds", type=int, default=2, help="alternations of one and two workers per board")
    ap.add_argument("--out", default="benchmarks/cfr/mccfr_workers.csv")
    args = ap.parse_args()
    rows = []
    for board, name in BOARDS.items():
        game = pyspiel.load_game(name)
        rates: dict[int, list[float]] = {1: [], 2: []}
        for _ in range(args.rounds):
            for workers in (1, 2):
                rates[workers].append(rate(game, workers, args.iterations, args.sync))
        one, two = (sum(rates[w]) / len(rates[w]) for w in (1, 2))
        rows.append([board, f"{one:.1f}", f"{two:.1f}", f"{two / one:.2f}"])
        print(f"{board:16s} one worker {one:8.1f} it/s   two workers {two:8.1f} it/s   x{two / one:.2f}", flush=True)
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["board", "one_worker_its", "two_workers_its", "ratio"])
        w.writerows(rows)


if __name__ == "__main__":
    main()
