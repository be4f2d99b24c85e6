"""Milliseconds of CPU a decision for a few agents on the same positions, measured in one run.

Positions: every decision (start of a turn) of ``--deals`` seeded deals of the variant played by
``greedy``. Each agent decides every position (a fresh agent per spec, its first decision
excluded so compiling is not counted); the specs take turns position by position, so a changing
machine load falls alike on all of them. CPU time of the process (``time.process_time``), so the
figures hold on a loaded machine too, up to cache contention. Run::

    python benchmarks/decision_time.py
    python benchmarks/decision_time.py --variant dithmarschen --deals 8 \\
        --agents "net:model=after;net:model=after,reply=16;net:model=after,reply=32"
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents.base import make_agent
from zwick_ai.games import zwicker_bridge

DEFAULT_AGENTS = "net:model=after;net:model=after,reply=8;net:model=after,reply=16;net:model=after,reply=32"


def positions(game: pyspiel.Game, deals: int) -> list[pyspiel.State]:
    """The decision states of ``deals`` seeded deals played by greedy."""
    greedy = make_agent("greedy", game, seed=0)
    found = []
    for seed in range(deals):
        state = zwicker_bridge.state_from_seed(game, seed)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
                continue
            found.append(state.clone())
            for action in greedy.act(state):
                state.apply_action(action)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--variant", default="dithmarschen")
    parser.add_argument("--players", type=int, default=0, help="default: the variant's")
    parser.add_argument("--deals", type=int, default=6)
    parser.add_argument("--agents", default=DEFAULT_AGENTS, help="agent specs separated by ';'")
    args = parser.parse_args()
    players = f",players={args.players}" if args.players else ""
    game = pyspiel.load_game(f"zwicker(variant={args.variant}{players})")
    states = positions(game, args.deals)
    specs = [s.strip() for s in args.agents.split(";") if s.strip()]
    agents = [make_agent(spec, game, seed=1) for spec in specs]
    for agent in agents:  # compile outside the clock
        agent.act(states[0].clone())
    spent = np.zeros((len(specs), len(states)))
    for k, state in enumerate(states):
        for i, agent in enumerate(agents):
            copy = state.clone()
            start = time.process_time()
            agent.act(copy)
            spent[i, k] = time.process_time() - start
    print(f"{args.variant}: {len(states)} positions of {args.deals} greedy deals, CPU ms a decision")
    print("| agent | mean | median | 90th percentile |")
    print("|---|---:|---:|---:|")
    for spec, row in zip(specs, spent, strict=True):
        ms = 1000 * row
        print(f"| `{spec}` | {ms.mean():.2f} | {np.median(ms):.2f} | {np.percentile(ms, 90):.2f} |")


if __name__ == "__main__":
    main()
