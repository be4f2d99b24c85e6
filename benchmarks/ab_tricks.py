"""Same-run A/B of the trick games' searches: an older commit's whole package against this tree's.

The older commit is extracted with ``git archive`` into a temporary folder; each round runs the
same workload once with each tree (``PYTHONPATH``), old and new taking turns, in fresh processes
that load their own compiled cache (a warm-up decision first). The workload: ISMCTS (15,000
iterations, greedy and random roll-outs) and PIMC (16 worlds x 1,000 iterations) decisions on nine
fixed positions of Zwikken parlett, Zwikken modern and Zwicken. Prints each round's seconds, the
median ratio new/old and whether both trees made the same decisions. Run::

    python benchmarks/ab_tricks.py --old 9c73c4d --rounds 5
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

WORKLOAD = r"""
import json, time
import numpy as np, pyspiel
import zwick_ai.games  # noqa: F401
from zwick_ai.eval.match import deal
from zwick_ai.agents.tricks_search import ismcts_decision, pimc_decision

def positions():
    out = []
    for spec in ("zwikken(variant=parlett,players=3)", "zwikken(variant=modern,players=3)", "zwicken(players=4)"):
        game = pyspiel.load_game(spec)
        for k in range(4):
            st = deal(game, k)
            rng = np.random.default_rng(k)
            for _ in range(int(rng.integers(0, 12))):
                if st.is_terminal():
                    break
                if st.is_chance_node():
                    ids, p = zip(*st.chance_outcomes())
                    st.apply_action(int(rng.choice(ids, p=np.array(p) / sum(p))))
                else:
                    st.apply_action(int(rng.choice(st.legal_actions())))
            while st.is_chance_node():
                ids, p = zip(*st.chance_outcomes())
                st.apply_action(int(rng.choice(ids, p=np.array(p) / sum(p))))
            if not st.is_terminal():
                out.append(st)
    return out

def run(states):
    out = []
    for st in states:
        out += ismcts_decision(st, {"iters": 15000, "time": 0.0, "c": 0.7, "rollout": "greedy"}, np.random.default_rng(1))
        out += ismcts_decision(st, {"iters": 15000, "time": 0.0, "c": 0.7, "rollout": "random"}, np.random.default_rng(2))
        out += pimc_decision(st, {"worlds": 16, "iters": 1000, "c": 0.7, "rollout": "greedy"}, np.random.default_rng(3))
    return [int(a) for a in out]

states = positions()
run(states[:2])  # warm-up: compile or load the cache
start = time.perf_counter()
decisions = run(states)
print(json.dumps({"seconds": time.perf_counter() - start, "positions": len(states), "decisions": decisions}))
"""


def extract(rev: str, into: Path) -> Path:
    """The package of commit ``rev`` extracted under ``into`` (``git archive``)."""
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "zwick_ai"], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive.stdout, check=True)
    return into


def once(tree: Path) -> dict:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    done = subprocess.run([sys.executable, "-c", WORKLOAD], env=env, check=True, capture_output=True, text=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--old", required=True, help="the older commit (any git revision)")
    ap.add_argument("--rounds", type=int, default=5, help="old/new pairs (default: 5)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        old = extract(args.old, Path(tmp))
        ratios, same = [], True
        for k in range(args.rounds):
            a, b = once(old), once(ROOT)
            ratios.append(b["seconds"] / a["seconds"])
            same &= a["decisions"] == b["decisions"]
            print(f"round {k + 1}: old {a['seconds']:.3f} s, new {b['seconds']:.3f} s, new/old {ratios[-1]:.3f}")
    print(f"median new/old {statistics.median(ratios):.3f} over {args.rounds} rounds; same decisions: {same}")


if __name__ == "__main__":
    main()
