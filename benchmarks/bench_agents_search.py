"""ISMCTS simulations per second: the compiled Zwicker ISMCTS against OpenSpiel's Python
``ISMCTSBot`` on the same ``zwicker`` game and positions, measured in one run.

One simulation (iteration) is the same unit for both: draw a world consistent with the mover's
information state, descend the tree, expand, roll out randomly to the end of the hand, back up.
OpenSpiel's bot uses ``RandomRolloutEvaluator(n_rollouts=1)``, resamples a world every simulation
through the game's own exact resampler (``state.resample_from_infostate``, its default
resampling mode) and searches over sub-actions (``allow_inconsistent_action_sets=True``, because
other players' legal sub-actions differ between worlds); ours searches whole moves with random
rollouts in compiled code.

Positions: the decision states (start of a turn) of ``--deals`` seeded deals played by the greedy
agent, every ``--every``-th, so early and late positions of whole hands are included. On each
position both searches run back to back (the machine is shared; interleaving keeps the load
alike), ours for ``--iters`` iterations, OpenSpiel's for ``--os-sims`` simulations (one
``step``). Reported: total simulations / total seconds per game, overall and for the first and
second half of the hand (by cards still to play). Run::

    python benchmarks/bench_agents_search.py                     # a few minutes
    python benchmarks/bench_agents_search.py --deals 4 --every 3 --iters 1000 --os-sims 40
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai.agents import make_agent, zwicker_search
from zwick_ai.games import zwicker_bridge
from zwick_ai.games.decisions import apply_decision
from zwick_ai.zwicker.layout import S_HAND_N, S_STOCK_LEN, S_STOCK_TOP

GAMES = ("zwicker(variant=dithmarschen,players=4)", "zwicker(variant=classic,players=4)")


def positions(game: pyspiel.Game, deals: int, every: int) -> list[tuple[pyspiel.State, float]]:
    """(state, fraction of the hand's cards still to play) for every ``every``-th greedy decision."""
    out = []
    greedy = make_agent("greedy", game, seed=0)
    k = 0
    for d in range(deals):
        s = zwicker_bridge.state_from_seed(game, 1000 + d)
        total = None
        while not s.is_terminal():
            if s.is_chance_node():
                s.apply_action(s.chance_outcomes()[0][0])
                continue
            a = s.array
            left = int(a[S_HAND_N : S_HAND_N + game.num_players()].sum() + a[S_STOCK_LEN] - a[S_STOCK_TOP])
            total = total or left
            if k % every == 0 and len(s.candidate_rows()) > 1:
                out.append((s.clone(), left / total))
            k += 1
            apply_decision(s, greedy.act(s))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=3)
    ap.add_argument("--every", type=int, default=4)
    ap.add_argument("--iters", type=int, default=1000)
    ap.add_argument("--os-sims", type=int, default=30)
    ap.add_argument("--games", nargs="*", default=list(GAMES))
    args = ap.parse_args()
    params = {"iters": args.iters, "time": 0.0, "c": 0.7, "rollout": "random"}
    print(f"ours: {args.iters} iterations per position; OpenSpiel ISMCTSBot: {args.os_sims} simulations per position")
    print()
    print("| game | positions | part | ours sims/s | OpenSpiel sims/s | ratio |")
    print("|---|---:|---|---:|---:|---:|")
    for spec in args.games:
        game = pyspiel.load_game(spec)
        ps = positions(game, args.deals, args.every)
        rng = np.random.default_rng(0)
        zwicker_search.ismcts_decision(ps[0][0], {**params, "iters": 10}, rng)  # compile outside the timing
        rows = []  # (late?, ours seconds, os seconds)
        for i, (s, left) in enumerate(ps):
            t0 = time.perf_counter()
            zwicker_search.ismcts_decision(s, params, rng)
            t1 = time.perf_counter()
            bot = ismcts.ISMCTSBot(
                game,
                mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np.random.RandomState(i)),
                uct_c=2.0,
                max_simulations=args.os_sims,
                random_state=np.random.RandomState(i),
                allow_inconsistent_action_sets=True,
            )
            bot.step(s)
            t2 = time.perf_counter()
            rows.append((left < 0.5, t1 - t0, t2 - t1))
        for part, sel in (("all", rows), ("early", [r for r in rows if not r[0]]), ("late", [r for r in rows if r[0]])):
            if not sel:
                continue
            ours = len(sel) * args.iters / sum(r[1] for r in sel)
            theirs = len(sel) * args.os_sims / sum(r[2] for r in sel)
            print(f"| {spec} | {len(sel)} | {part} | {ours:,.0f} | {theirs:,.0f} | {ours / theirs:,.0f}x |", flush=True)


if __name__ == "__main__":
    main()
