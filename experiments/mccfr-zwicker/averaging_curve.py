"""nash_conv against iterations of MCCFR's weightings on the two-stage micro Zwicker.

Each configuration (sampling, abstraction, averaging) trains from seed 1 and is measured at
1e3, 3e3, ..., up to --iterations by exact best response on the game's whole tree
(probe sampling through the ``coarse`` abstraction: its strategy read as a policy of the tree by
:func:`~zwick_ai.learn.cfr.zwicker_tree.tree_policy`). Rows go to ``curve.csv`` as they are
measured; a rerun skips the configurations already complete (a partial one starts again).

    python experiments/mccfr-zwicker/averaging_curve.py --out experiments/results/mccfr-zwicker/averaging
"""

from __future__ import annotations

import argparse
import copy
import csv
import time
from pathlib import Path

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.learn.cfr.exact import nash_conv
from zwick_ai.learn.cfr.mccfr import MCCFRSolver, table_policy, tree_table
from zwick_ai.learn.cfr.tree import extract
from zwick_ai.learn.cfr.updates import seed_state
from zwick_ai.learn.cfr.zwicker_tree import tree_policy

MICRO1S2 = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=2)"
#: (sampling, abstraction, averaging), the configurations in the order they run
CONFIGS = [
    ("probe", "coarse", "uniform"),
    ("probe", "coarse", "linear"),
    ("probe-unbiased", "coarse", "uniform"),
    ("probe-unbiased", "coarse", "linear"),
    ("probe", "coarse", "discounted"),
    ("outcome", "none", "uniform"),
    ("outcome", "none", "linear"),
]
HEADER = ["sampling", "abstraction", "averaging", "iteration", "seconds", "nash_conv"]


def checkpoints(total: int) -> list[int]:
    points, x = [], 1000
    while x <= total:
        points.append(x)
        x = x * 3 if str(x)[0] == "1" else x * 10 // 3
    return points


def done_configs(path: Path, last: int) -> set[tuple[str, str, str]]:
    if not path.exists():
        return set()
    with path.open() as f:
        rows = list(csv.DictReader(f))
    return {(r["sampling"], r["abstraction"], r["averaging"]) for r in rows if int(r["iteration"]) == last}


def keep_complete(path: Path, complete: set[tuple[str, str, str]]) -> None:
    """Drop the rows of a configuration that did not finish (it runs again whole)."""
    if not path.exists():
        return
    with path.open() as f:
        rows = [r for r in csv.DictReader(f) if (r["sampling"], r["abstraction"], r["averaging"]) in complete]
    with path.open("w", newline="") as f:
        w = csv.DictWriter(f, HEADER)
        w.writeheader()
        w.writerows(rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--iterations", type=int, default=1_000_000)
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / "curve.csv"
    points = checkpoints(args.iterations)
    complete = done_configs(path, points[-1])
    keep_complete(path, complete)
    game = pyspiel.load_game(MICRO1S2)
    print("extracting the game tree (a minute or two)", flush=True)
    tree = extract(game)
    plain: MCCFRSolver | None = None
    for config in CONFIGS:
        if config in complete:
            continue
        sampling, abstraction, averaging = config
        if abstraction == "none":  # the tree backend: its tree is the one extracted above
            if plain is None:
                plain = MCCFRSolver(game, sampling, seed=1, abstraction="none")
            solver = copy.copy(plain)
            assert solver.tree is not None
            solver.table, solver.averaging = tree_table(solver.tree), averaging
            solver.rngs = seed_state(1)[None, :].copy()
            solver.rng = solver.rngs[0]
        else:
            solver = MCCFRSolver(game, sampling, seed=1, abstraction=abstraction, averaging=averaging)
        seconds = 0.0
        for point in points:
            t0 = time.perf_counter()
            solver.run(point - solver.iteration)
            seconds += time.perf_counter() - t0
            pol = (
                table_policy(tree, solver.table)
                if abstraction == "none"
                else tree_policy(tree, game, solver.table, abstraction)
            )
            value = nash_conv(tree, pol)
            new = not path.exists()
            with path.open("a", newline="") as f:
                w = csv.writer(f)
                if new:
                    w.writerow(HEADER)
                w.writerow([sampling, abstraction, averaging, point, f"{seconds:.2f}", f"{value:.6g}"])
            print(sampling, abstraction, averaging, point, round(value, 5), flush=True)
    plot(path, out / "curve.png")


def plot(path: Path, png: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with path.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for config in CONFIGS:
        pts = [r for r in rows if (r["sampling"], r["abstraction"], r["averaging"]) == config]
        if not pts:
            continue
        x = np.array([int(r["iteration"]) for r in pts])
        y = np.array([float(r["nash_conv"]) for r in pts])
        style = "--" if config[1] == "none" else "-"
        ax.loglog(x, y, style, marker="o", ms=3, label=" / ".join(config))
    ax.set_xlabel("iterations")
    ax.set_ylabel("nash_conv (exact)")
    ax.set_title("MCCFR weightings, two-stage micro Zwicker (seed 1)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(png, dpi=110)


if __name__ == "__main__":
    main()
