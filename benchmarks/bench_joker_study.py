"""Joker-policy playouts: compiled per-seat policies vs the engine's greedy playouts and vs the same
policy as an OpenSpiel agent, as ratios within one run; and the cost of one joker study.

    python benchmarks/bench_joker_study.py            # about a minute on a quiet core
    python benchmarks/bench_joker_study.py --quick

Prints a Markdown table per variant: hands/s of ``kernels.play_hands`` (greedy), of
``joker_policies.play_seeds`` with ``greedy`` and with ``hold`` at every seat, and of
``eval.match.play_game`` with ``joker:policy=hold`` agents at every seat (OpenSpiel states, one
whole decision per call), with the compiled/agent ratio.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import zwicker
from zwick_ai.agents import joker_policies as JP
from zwick_ai.agents.base import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker import policy_codes


def best_rate(run, hands: int, reps: int = 3) -> float:
    best = 0.0
    for rep in range(reps):
        seeds = np.arange(rep * hands, (rep + 1) * hands, dtype=np.int64)
        t = time.perf_counter()
        run(seeds)
        best = max(best, hands / (time.perf_counter() - t))
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    hands = 300 if args.quick else 2000
    games = 2 if args.quick else 6
    print(
        "| variant | engine greedy hands/s | joker greedy hands/s | joker hold hands/s | hold as OpenSpiel agent hands/s | compiled/agent |"
    )
    print("|---|---|---|---|---|---|")
    for variant in ("dithmarschen", "grossenwiehe", "christiansen", "grupp"):
        r = zwicker.rules(variant)
        R = r.array()
        pol = np.full(r.players, policy_codes.POLICY_GREEDY, np.int64)
        K.play_hands(R, np.arange(2, dtype=np.int64), pol)
        JP.play_seeds(r, np.arange(2), ["hold"])
        engine = best_rate(lambda s, R=R, pol=pol: K.play_hands(R, s, pol), hands)
        greedy = best_rate(lambda s, r=r: JP.play_seeds(r, s, ["greedy"]), hands)
        hold = best_rate(lambda s, r=r: JP.play_seeds(r, s, ["hold"]), hands)
        game = pyspiel.load_game(f"zwicker(variant={variant})")
        agents = [make_agent("joker:policy=hold", game, seed=p) for p in range(r.players)]
        play_game(game, agents, deal_seed=0, labels=False)
        t = time.perf_counter()
        for g in range(games):
            play_game(game, agents, deal_seed=g + 1, labels=False)
        agent = games / (time.perf_counter() - t)
        print(f"| {variant} | {engine:,.0f} | {greedy:,.0f} | {hold:,.0f} | {agent:.2f} | {hold / agent:,.0f}× |")


if __name__ == "__main__":
    main()
