"""Seconds per decision of several Zwicker agents on the same positions, in one process (the
agents alternate position by position, so they share the machine's load): the ratios are the
result, the absolute times depend on the load. Positions: every third decision with two or more
moves of seat 0 in greedy games.

    PYTHONPATH=. python benchmarks/search_speed.py --variant dithmarschen --deals 6 \\
        --agents "ismcts:iters=2000;expert:time=0,iters=2000,endgame=0,pool=256,infer=0.25"
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import make_agent
from zwick_ai.agents.base import Agent
from zwick_ai.eval.match import play_game


class Collector(Agent):
    """Plays as ``inner`` and keeps a copy of each of its positions with two or more moves."""

    def __init__(self, inner: Agent, states: list):
        super().__init__(inner.game, 0)
        self.inner, self.states = inner, states
        self.name = inner.name

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, state: pyspiel.State) -> list[int]:
        if len(state.candidate_rows()) > 1:
            self.states.append(state.clone())
        return self.inner.act(state)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="dithmarschen")
    ap.add_argument("--players", type=int, default=0)
    ap.add_argument("--deals", type=int, default=6)
    ap.add_argument("--agents", default="ismcts:iters=2000;expert:time=0,iters=2000,endgame=0,pool=256,infer=0.25")
    args = ap.parse_args()
    players = f",players={args.players}" if args.players else ""
    game = pyspiel.load_game(f"zwicker(variant={args.variant}{players})")
    states: list[pyspiel.State] = []
    for deal in range(args.deals):
        seats = [Collector(make_agent("greedy", game), states)]
        seats += [make_agent("greedy", game) for _ in range(game.num_players() - 1)]
        play_game(game, seats, deal_seed=100 + deal, labels=False)
    states = states[::3]
    specs = args.agents.split(";")
    agents = [make_agent(s, game) for s in specs]
    for a in agents:
        a.act(states[0])  # compile
    spent = np.zeros(len(agents))
    ess: list[list[float]] = [[] for _ in agents]
    for st in states:
        for i, a in enumerate(agents):
            t = time.perf_counter()
            a.act(st)
            spent[i] += time.perf_counter() - t
            if "pool_ess" in getattr(a, "last", {}):
                ess[i].append(a.last["pool_ess"])
    for i, s in enumerate(specs):
        pool = f"; median pool ESS {np.median(ess[i]):.0f}" if ess[i] else ""
        print(
            f"{s}: {spent[i] / len(states) * 1000:.1f} ms a decision over {len(states)} positions; "
            f"speed vs the first {spent[0] / spent[i]:.2f}x{pool}"
        )


if __name__ == "__main__":
    main()
