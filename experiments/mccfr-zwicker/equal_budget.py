"""Train MCCFR on Zwicker boards at one iteration budget in one process (the compiled code is
compiled once), each configuration to ``--iterations`` (resumable: a run continues its
checkpoint), then measure each with ``evaluate.py``'s rows (``fallback`` random = uniform, and
greedy) against a greedy field.

    python experiments/mccfr-zwicker/equal_budget.py --iterations 2000 --runs runs/mccfr-stakes \\
        --out experiments/results/mccfr-zwicker/equal-budget dithmarschen4-stakes dithmarschen4-coarse-linear
"""

from __future__ import annotations

import argparse
import shutil
import sys
from pathlib import Path

from zwick_ai.learn.cfr import MCCFRSolver, TrainOptions, train
from zwick_ai.learn.cfr.mccfr import DEFAULT_SYNC

sys.path.insert(0, str(Path(__file__).parent))
from evaluate import measure  # noqa: E402  (the script beside this one)

#: name -> (game, abstraction, averaging, field, greedy prior); ``-greedy``: trained against a greedy
#: field (not CFR); ``-priorW``: each new set starts with regret and average mass W on greedy's action
CONFIGS = {
    f"{board}-{abst}": (f"zwicker(variant={variant},players={players})", abstraction, averaging, field, prior)
    for board, variant, players in (
        ("classic2", "classic", 2),
        ("classic4", "classic", 4),
        ("grupp4", "grupp", 4),
        ("dithmarschen4", "dithmarschen", 4),
        ("grossenwiehe4", "grossenwiehe", 4),
        ("christiansen3", "christiansen", 3),
    )
    for abst, abstraction, averaging, field, prior in (
        ("stakes", "stakes", "linear", "self", 0.0),
        ("stakes-greedy", "stakes", "linear", "greedy", 0.0),
        ("stakes-lite", "stakes-lite", "linear", "self", 0.0),
        ("stakes-lite-greedy", "stakes-lite", "linear", "greedy", 0.0),
        ("stakes-lite-greedy-prior10", "stakes-lite", "linear", "greedy", 10.0),
        ("stakes-lite-greedy-prior50", "stakes-lite", "linear", "greedy", 50.0),
        ("stakes-lite-greedy-prior200", "stakes-lite", "linear", "greedy", 200.0),
        ("coarse-linear", "coarse", "linear", "self", 0.0),
        ("coarse-uniform", "coarse", "uniform", "self", 0.0),
    )
}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="+", help=f"configurations: {', '.join(CONFIGS)}")
    ap.add_argument("--iterations", type=int, required=True)
    ap.add_argument("--runs", default="runs/mccfr-stakes")
    ap.add_argument("--out", default="experiments/results/mccfr-zwicker/equal-budget")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--plays", default="sample", help="sample and/or argmax: how the table's strategy is played")
    ap.add_argument("--workers", type=int, default=1, help="threads; > 1: --iterations in rounds of workers x 1,000")
    args = ap.parse_args()
    rounds = 1 if args.workers == 1 else args.workers * DEFAULT_SYNC
    if args.iterations % rounds or args.iterations < 2 * rounds:
        ap.error(f"--iterations must be a multiple of {rounds} and at least {2 * rounds} with {args.workers} workers")
    out = Path(args.out)
    for name in args.names:
        game, abstraction, averaging, field, prior = CONFIGS[name]
        run = Path(args.runs) / name
        resume = (run / "checkpoint.json").exists()
        options = TrainOptions(
            seed=1, out=run, resume=resume, eval_every=args.iterations // 2 // rounds * rounds,
            abstraction=abstraction, eval_deals=args.deals, averaging=averaging, workers=args.workers, field=field,
            greedy_prior=prior,
        )  # fmt: skip
        result = train(game, "mccfr", args.iterations, options)
        solver = result.solver
        assert isinstance(solver, MCCFRSolver)
        print(name, solver.iteration, "iterations,", solver.table.num_rows, "sets", flush=True)
        (out / name).mkdir(parents=True, exist_ok=True)
        shutil.copy(run / "strength.csv", out / name / "strength.csv")
        measure(run, args.deals, out / "eval.jsonl", ["greedy"], ["random", "greedy"], args.plays.split(","))


if __name__ == "__main__":
    main()
