"""How well can a table of an abstraction play greedy at all? Greedy plays every seat of
``evaluate.py``'s duplicate deals; at each decision the abstract information set (the key) and the
abstract action holding greedy's move are noted. A table plays one strategy per key, so at best it
matches greedy at the decisions where greedy takes its key's most frequent action: that share
(over every decision, and over the decisions at keys met at least ``--min`` times, where a key seen
once cannot disagree with itself) bounds from above how close a deterministic table can come to
greedy on greedy's own positions. Also the keys met and the decisions per key.

    python experiments/mccfr-zwicker/greedy_fit.py "zwicker(variant=dithmarschen,players=4)" stakes stakes-lite coarse
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents.cfr.zwicker_abstraction import MAX_GROUPS, zwicker_abstraction_id, zwicker_decision
from zwick_ai.learn.cfr.updates import seed_state
from zwick_ai.learn.cfr.zwicker_mccfr import greedy_move
from zwick_ai.zwicker import arrays, kernels

sys.path.insert(0, str(Path(__file__).parent))
from evaluate import SEED  # noqa: E402  (the script beside this one)


def fit(game: str, abstractions: list[str], deals: int, least: int) -> list[dict]:
    """One row per abstraction (module docstring)."""
    R = pyspiel.load_game(game).rules.array()
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    idx = np.zeros(MAX_GROUPS, np.int64)
    rng = seed_state(SEED)
    ids = [zwicker_abstraction_id(a) for a in abstractions]
    seen: list[defaultdict[int, Counter]] = [defaultdict(Counter) for _ in ids]
    for d in range(deals):
        S = kernels.new_hand(R, SEED + d, W)
        while not arrays.is_over(S):
            buf, X, n = kernels.gen_moves(R, S, buf, W, X)
            k = int(greedy_move(R, S, buf, n, rng))
            for i, a in enumerate(ids):
                key, m = zwicker_decision(R, S, buf, n, a, idx)
                # greedy's abstract action: the one whose move it is, else the one whose move scores as well
                gv = kernels.greedy_value(R, S, buf[k])
                acts = [j for j in range(m) if idx[j] >= 0]
                g = next((j for j in acts if idx[j] == k), None)
                if g is None:  # k is not its class's move: that move scores as well (greedy's tie)
                    g = next(j for j in acts if kernels.greedy_value(R, S, buf[idx[j]]) >= gv - kernels.TIE)
                seen[i][int(key)][g] += 1
            kernels.apply_move(R, S, buf[k], W)
    rows = []
    for name, counts in zip(abstractions, seen, strict=True):
        total = sum(sum(c.values()) for c in counts.values())
        best = sum(max(c.values()) for c in counts.values())
        often = [c for c in counts.values() if sum(c.values()) >= least]
        n_often = sum(sum(c.values()) for c in often)
        rows.append(
            {
                "game": game,
                "abstraction": name,
                "deals": deals,
                "seed": SEED,
                "decisions": total,
                "keys": len(counts),
                "fit": round(best / total, 4),
                f"decisions_at_keys_met_{least}+": n_often,
                f"fit_at_keys_met_{least}+": round(sum(max(c.values()) for c in often) / max(n_often, 1), 4),
            }
        )
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("game")
    ap.add_argument("abstractions", nargs="+")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--min", type=int, default=10, help="keys met at least this often (default: %(default)s)")
    a = ap.parse_args()
    for row in fit(a.game, a.abstractions, a.deals, a.min):
        print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
