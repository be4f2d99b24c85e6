"""Trick-game agents: greedy against random, ISMCTS against greedy and random (chips per deal on
duplicate deals, seats rotated, 95% CI), and the compiled ISMCTS's iterations per second against
OpenSpiel's Python ISMCTSBot on the same positions. Prints Markdown tables.

    python benchmarks/bench_tricks_agents.py [--deals 1000] [--search-deals 150] [--iters 1000]

Strength: on every deal the hero plays each seat in turn against a field of one agent; the baseline
is the field agent itself in that seat on the same deal (same field seeds), so the paired
difference is "chips gained per deal by putting the hero in a seat". Each deal (averaged over the
seats) is one observation of the CI.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import make_agent
from zwick_ai.agents.tricks_search import ismcts_decision
from zwick_ai.eval.match import deal, play_game
from zwick_ai.stats import mean_ci, paired_diff_ci
from zwick_ai.tricks import layout as L

GAMES = [
    "zwikken(variant=modern,players=3)",
    "zwikken(variant=parlett,players=3)",
    "zwicken(players=4)",
    "zwikken(variant=historic,players=4)",
]


def duplicate(game: pyspiel.Game, hero: str, field: str, deals: int) -> tuple[np.ndarray, np.ndarray]:
    """Per deal: the hero's chips averaged over the seats it took, and the field agent's chips in
    the same seats of the all-field game."""
    n = game.num_players()
    hero_chips = np.zeros(deals)
    base_chips = np.zeros(deals)
    for d in range(deals):
        base = play_game(game, [make_agent(field, game) for _ in range(n)], deal_seed=d, labels=False).returns
        for seat in range(n):
            agents = [make_agent(hero if q == seat else field, game) for q in range(n)]
            hero_chips[d] += play_game(game, agents, deal_seed=d, labels=False).returns[seat] / n
            base_chips[d] += base[seat] / n
    return hero_chips, base_chips


def strength_row(game_string: str, hero: str, field: str, deals: int) -> str:
    game = pyspiel.load_game(game_string)
    t0 = time.perf_counter()
    h, b = duplicate(game, hero, field, deals)
    diff = paired_diff_ci(h, b)
    return (
        f"| {game_string} | {hero} | {field} | {deals} | {mean_ci(h)} | {mean_ci(b)} | "
        f"**{diff.mean:+.3f}** [{diff.ci95[0]:+.3f}, {diff.ci95[1]:+.3f}] | {time.perf_counter() - t0:.0f} s |"
    )


def positions(game: pyspiel.Game, count: int) -> list[pyspiel.State]:
    """The first decision of deals 0.. and a decision in the tricks of each (greedy play to it)."""
    out = []
    for d in range(count):
        st = deal(game, d)
        out.append(st.clone())
        g = [make_agent("greedy", game, seed=q) for q in range(game.num_players())]
        while not st.is_terminal():
            if st.is_chance_node():
                st.apply_action(st.chance_outcomes()[0][0])
                continue
            if st.array[L.S_PHASE] == L.PH_PLAY and len(st.legal_actions()) > 1:
                out.append(st.clone())
                break
            st.apply_action(g[st.current_player()].act(st)[0])
    return out


def speed_row(game_string: str, count: int, ours: int, theirs: int) -> str:
    game = pyspiel.load_game(game_string)
    states = [s for s in positions(game, count) if len(s.legal_actions()) > 1]
    rng = np.random.default_rng(0)
    params = {"iters": ours, "time": 0.0, "c": 0.7, "rollout": "random"}
    ismcts_decision(states[0], {**params, "iters": 10}, rng)  # compile
    t0 = time.perf_counter()
    for s in states:
        ismcts_decision(s, params, rng)
    our_rate = ours * len(states) / (time.perf_counter() - t0)
    bot = make_agent(f"openspiel-ismcts:sims={theirs},c=2", game, seed=0)
    t0 = time.perf_counter()
    for s in states:
        bot.act(s)
    their_rate = theirs * len(states) / (time.perf_counter() - t0)
    return f"| {game_string} | {len(states)} | {our_rate:,.0f} | {their_rate:,.0f} | {our_rate / their_rate:,.0f}x |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--deals", type=int, default=1000, help="duplicate deals for greedy vs random")
    ap.add_argument("--search-deals", type=int, default=150, help="duplicate deals for ISMCTS")
    ap.add_argument("--iters", type=int, default=1000, help="ISMCTS iterations per decision")
    ap.add_argument("--speed-deals", type=int, default=10, help="deals whose positions time the searches")
    ap.add_argument("--parts", default="greedy,speed,ismcts", help="comma-separated: greedy, speed, ismcts")
    args = ap.parse_args()
    parts = args.parts.split(",")
    head = (
        "| game | hero | field | deals | hero chips/deal | field agent in the same seats | "
        "difference (95% CI) | time |\n|---|---|---|---|---|---|---|---|"
    )
    if "greedy" in parts:
        print("### Greedy against random\n\n" + head, flush=True)
        for g in GAMES:
            print(strength_row(g, "greedy", "random", args.deals), flush=True)
    if "speed" in parts:
        print(
            "\n### ISMCTS iterations per second (compiled vs OpenSpiel's Python ISMCTSBot)\n\n"
            "| game | positions | ours (it/s) | OpenSpiel ISMCTSBot (sims/s) | ratio |\n|---|---|---|---|---|",
            flush=True,
        )
        for g in GAMES:
            print(speed_row(g, args.speed_deals, 2000, 100), flush=True)
    if "ismcts" in parts:
        print(f"\n### ISMCTS ({args.iters} iterations) against greedy and random\n\n" + head, flush=True)
        for g in GAMES[:3]:
            for rollout in ("greedy", "random"):
                hero = f"ismcts:iters={args.iters},rollout={rollout}"
                for field in ("greedy", "random"):
                    print(strength_row(g, hero, field, args.search_deals), flush=True)


if __name__ == "__main__":
    main()
