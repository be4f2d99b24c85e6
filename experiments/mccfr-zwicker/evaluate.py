"""Measure MCCFR runs on the full Zwicker games as the issue of strength asks: each run's table
(its latest checkpoint) against a greedy field and a random field on the same duplicate deals as
the field's own agent in its seats, with the table's own play everywhere (``fallback=uniform``:
a uniformly random legal move where the set is unseen) and, beside it, with greedy's fallback;
per row the share of our decisions found in the table and the table's sets.

Rows go to ``--out`` (JSONL) as they are measured; a row already there (run, iterations,
opponent, fallback, deals) is not measured again.

    python experiments/mccfr-zwicker/evaluate.py --deals 300 --out experiments/results/mccfr-zwicker/equal-budget/eval.jsonl \\
        runs/mccfr-stakes/classic2-stakes runs/mccfr-stakes/dithmarschen4-stakes ...
"""

from __future__ import annotations

import argparse
import itertools
import json
import time
from pathlib import Path

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.learn.cfr import load_checkpoint
from zwick_ai.learn.cfr.mccfr import MCCFRSolver
from zwick_ai.learn.cfr.zwicker_mccfr import strength

SEED = 20261207  # other deals than the training curve's (seed 12345)


def measure(
    run: Path, deals: int, out: Path, opponents: list[str], fallbacks: list[str], plays: tuple[str, ...] = ("sample",)
) -> None:
    """Append the rows of ``run`` not yet in ``out`` (module docstring); ``plays``: the table's
    average strategy sampled and/or its argmax played."""
    out.parent.mkdir(parents=True, exist_ok=True)
    done = set()
    if out.exists():
        for line in out.read_text().splitlines():
            r = json.loads(line)
            done.add((r["run"], r["iterations"], r["opponent"], r["fallback"], r["deals"], r.get("play", "sample")))
    solver, meta = load_checkpoint(run / "checkpoint")
    assert isinstance(solver, MCCFRSolver) and solver.zwicker, f"{run}: not a Zwicker MCCFR run"
    for opponent, fallback, play in itertools.product(opponents, fallbacks, plays):
        key = (run.name, solver.iteration, opponent, fallback, deals, play)
        if key in done:
            continue
        t0 = time.perf_counter()
        st = strength(solver.cfg, solver._abst, solver.table, deals, SEED, opponent, opponent, fallback, play)
        row = {
            "run": key[0],
            "game": meta["game"],
            "abstraction": meta["abstraction"],
            "averaging": meta.get("averaging", "uniform"),
            "field": meta.get("field", "self"),
            **({"greedy_prior": meta["greedy_prior"]} if "greedy_prior" in meta else {}),
            "play": play,
            "sampling": meta["variant"],
            "iterations": solver.iteration,
            "sets": solver.table.num_rows,
            "opponent": opponent,
            "fallback": fallback,  # random: uniform over the legal whole moves (fallback=uniform)
            "deals": deals,
            "seed": SEED,
            **{k: round(float(v), 4) for k, v in st.items()},
            "seconds": round(time.perf_counter() - t0, 1),
        }
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(json.dumps(row), flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("runs", nargs="+", help="training folders (each with checkpoint.npz/.json)")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--out", required=True)
    ap.add_argument("--fallbacks", default="random,greedy", help="random is the agent's fallback=uniform")
    ap.add_argument("--opponents", default="greedy,random")
    ap.add_argument(
        "--plays", default="sample", help="sample and/or argmax (the average strategy's most likely action)"
    )
    args = ap.parse_args()
    for run in args.runs:
        ops, fbs, plays = (x.split(",") for x in (args.opponents, args.fallbacks, args.plays))
        measure(Path(run), args.deals, Path(args.out), ops, fbs, tuple(plays))


if __name__ == "__main__":
    main()
