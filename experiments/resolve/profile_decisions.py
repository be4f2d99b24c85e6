"""Where a ``resolve`` decision's time goes on a full board: seat 0 plays ``--agent``, the others
greedy, for ``--hands`` seeded hands on the CPU clock; per decision the deals at the root, the
depth built, the subgame's nodes and stage ends and the CFR+ iterations run, then the CPU seconds
of each step of :func:`zwick_ai.agents.cfr.resolve.decide` summed over the decisions (the first
decision, which compiles, left out). Prints a table; writes nothing.

    python experiments/resolve/profile_decisions.py --game "zwicker(variant=classic,players=2)" --agent "resolve:time=0.1" --hands 2
"""

from __future__ import annotations

import argparse
import time
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import clock, make_agent
from zwick_ai.agents.cfr import resolve, resolve_tree
from zwick_ai.games import zwicker_bridge

#: the steps of a decision that are timed (module, function name)
STEPS = [
    (resolve, "root_deals"),
    (resolve, "stage_solution"),
    (resolve, "build_subgame"),
    (resolve, "boundary_values"),
    (resolve_tree, "replay_worlds"),
    (resolve.Subgame, "solve"),
]


def timed(seconds: dict[str, float], calls: Counter, owner: Any, name: str) -> None:
    """Replace ``owner.name`` by a wrapper that adds its CPU seconds to ``seconds[name]``."""
    f: Callable[..., Any] = getattr(owner, name)

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            seconds[name] += time.process_time() - t
            calls[name] += 1

    setattr(owner, name, wrapper)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--game", default="zwicker(variant=classic,players=2)")
    ap.add_argument("--agent", default="resolve:time=0.1")
    ap.add_argument("--hands", type=int, default=2)
    args = ap.parse_args()
    clock.use("cpu")
    seconds: dict[str, float] = defaultdict(float)
    calls: Counter = Counter()
    for owner, name in STEPS:
        if hasattr(owner, name):  # an older version may lack a step
            timed(seconds, calls, owner, name)
    game = pyspiel.load_game(args.game)
    rows: list[tuple[float, dict[str, Any]]] = []
    for hand in range(args.hands):
        agents = [make_agent(args.agent if q == 0 else "greedy", game, seed=q) for q in range(game.num_players())]
        state = zwicker_bridge.state_from_seed(game, hand + 100)
        rng = np.random.default_rng(hand)
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(outcomes, p=probs)))
                continue
            agent = agents[state.current_player()]
            t = time.process_time()
            actions = agent.act(state)
            dt = time.process_time() - t
            if state.current_player() == 0 and getattr(agent, "last", None):
                rows.append((dt, agent.last))
                agent.last = {}
                if len(rows) == 1:  # the first decision compiles: left out of the sums
                    seconds.clear()
                    calls.clear()
            for a in actions:
                state.apply_action(a)
    print("cpu_s  deals depth  nodes bounds iters")
    for dt, s in rows[1:]:
        print(f"{dt:5.3f} {s['deals']:6d} {s['depth']:5d} {s['nodes']:6d} {s['bounds']:6d} {s['iters']:5d}")
    kept = rows[1:]
    iters = np.array([s["iters"] for _, s in kept])
    cpu = np.array([dt for dt, _ in kept])
    print(
        f"{len(kept)} decisions: CFR+ iterations median {np.median(iters):.0f}, mean {iters.mean():.0f}, "
        f"{int((iters <= 4).sum())} at 4 or fewer; depth mean {np.mean([s['depth'] for _, s in kept]):.2f}; "
        f"CPU s a decision mean {cpu.mean():.3f}, max {cpu.max():.3f}"
    )
    for name in sorted(seconds, key=seconds.__getitem__, reverse=True):
        print(f"  {name:16s} {seconds[name]:7.3f} s  {100 * seconds[name] / cpu.sum():3.0f}%  ({calls[name]} calls)")


if __name__ == "__main__":
    main()
