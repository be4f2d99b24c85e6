"""Measure a saved Zwicker MCCFR policy file (for example a leaderboard's pruned ``policy-minN``)
against a greedy field on ``evaluate.py``'s duplicate deals, as ``evaluate.py`` measures a run's
table: minus greedy in the same seats, points a deal, 95% CI, with greedy's fallback at sets the
file lacks (as the leaderboard plays it) and with ``fallback=uniform``; rows to ``--out`` (JSONL),
a row already there is not measured again.

    python experiments/mccfr-zwicker/policy_vs_greedy.py --out experiments/results/mccfr-zwicker/greedy-start/leaderboard-policies.jsonl \\
        experiments/results/mccfr-zwicker/dithmarschen4-coarse-probe/policy-min500
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents.cfr.core import ROW_FIELDS, Table
from zwick_ai.agents.cfr.policy_file import Policy
from zwick_ai.agents.cfr.zwicker_abstraction import zwicker_abstraction_id
from zwick_ai.learn.cfr.zwicker_mccfr import strength

sys.path.insert(0, str(Path(__file__).parent))
from evaluate import SEED  # noqa: E402  (the script beside this one)


def policy_table(policy: Policy) -> Table:
    """The policy file's average strategy as a table (its probabilities as the average weights)."""
    n = len(policy)
    rows = np.zeros((n, ROW_FIELDS), np.int64)
    rows[:, 0] = policy.keys  # the player column is not read in play
    rows[:, 2], rows[:, 3] = policy.offsets, policy.counts
    if policy.visits is not None:
        rows[:, 4] = policy.visits
    probs = policy.probs.astype(np.float64)
    return Table.from_arrays(rows, policy.actions.astype(np.int16), np.zeros_like(probs), probs)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("policies", nargs="+", help="policy files (path without .json/.npz)")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {(r["policy"], r["fallback"], r["deals"]) for r in map(json.loads, out.read_text().splitlines())}
    for path in args.policies:
        policy = Policy(path)
        if policy.zwicker_abstraction is None:
            sys.exit(f"{path}: not a Zwicker abstraction's policy file")
        R = pyspiel.load_game(policy.game).rules.array()
        table = policy_table(policy)
        for fallback in ("greedy", "random"):
            if (path, fallback, args.deals) in done:
                continue
            t0 = time.perf_counter()
            abst = zwicker_abstraction_id(policy.zwicker_abstraction)
            st = strength(R, abst, table, args.deals, SEED, "greedy", "greedy", fallback)
            row = {
                "policy": path,
                "abstraction": policy.zwicker_abstraction,
                "iterations": policy.meta["iterations"],
                "sets": len(policy),
                "opponent": "greedy",
                "fallback": fallback,
                "deals": args.deals,
                "seed": SEED,
                **{k: round(float(v), 4) for k, v in st.items()},
                "seconds": round(time.perf_counter() - t0, 1),
            }
            out.parent.mkdir(parents=True, exist_ok=True)
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
