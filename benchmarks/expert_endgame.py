"""Cost of the ``expert`` endgame search: positions searched per exact solve of a Dithmarschen
endgame (stock empty, ``--cards`` cards in hands) with and without the transposition table, and
positions per second (one process, the same positions for both).

    PYTHONPATH=. python benchmarks/expert_endgame.py --cards 12 --positions 20
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from tests.agents.test_expert import _endgame_state
from zwick_ai.agents import expert_search
from zwick_ai.games import zwicker_bridge


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="dithmarschen")
    ap.add_argument("--cards", type=int, default=12)
    ap.add_argument("--positions", type=int, default=20)
    args = ap.parse_args()
    game = pyspiel.load_game(f"zwicker(variant={args.variant})")
    rules = game.rules
    R = rules.array()
    states = []
    seed = 0
    while len(states) < args.positions:
        st = _endgame_state(game, seed, args.cards)
        seed += 1
        if st is not None:
            states.append(zwicker_bridge.engine_state(st).arr)
    for use_tt in (True, False):
        ctx = expert_search.new_context(expert_search.TT_BITS)  # a fresh table per position set
        settings = expert_search.SolveSettings(10**9, use_tt, False, float(rules.card_total))
        nodes, secs = [], 0.0
        for S in states:
            stats = np.zeros(expert_search.ST_SIZE, np.int64)
            t = time.perf_counter()
            expert_search.solve(R, S.copy(), 0, -2.0, 2.0, 0, ctx, stats, settings)
            secs += time.perf_counter() - t
            nodes.append(int(stats[expert_search.ST_NODES]))
        print(
            f"tt={use_tt}: {len(states)} positions with {args.cards} cards, nodes per solve "
            f"mean {np.mean(nodes):.0f} median {np.median(nodes):.0f} max {max(nodes)}, "
            f"{sum(nodes) / secs:.0f} nodes/s, {secs / len(states) * 1000:.1f} ms per solve"
        )


if __name__ == "__main__":
    main()
