"""Strength of the compiled Zwicker ISMCTS against the random and greedy agents, on duplicate deals.

Every deal (seed) is played twice with ``eval.match.play_game``: the hero (default
``ismcts:iters=2000``) at the even seats and the opponent at the odd seats, then swapped, so both
sides of the same cards are played by each agent. The score of a deal is the hero seats' mean
points minus the opponent seats' mean points (cards, most cards and Zwicks; in Dithmarschen with
four players that is the hero team's point difference), averaged over the two seatings. Reported:
its mean with a 95% t-interval (``zwick_ai.stats.mean_ci``) per pairing.

The pairings are played round-robin, one deal each in turn, and every played deal is appended to
``--out`` (JSON lines) at once, so a run stopped by ``--minutes`` still reports every pairing with
about the same number of deals; ``--summary`` prints the table of an existing file. Run::

    python benchmarks/strength_search.py --deals 400 --minutes 60 --out strength.jsonl
    python benchmarks/strength_search.py --summary --out strength.jsonl
"""

from __future__ import annotations

import argparse
import json
import os
import time

import pyspiel

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai.agents import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.stats import mean_ci

GAMES = ("zwicker(variant=dithmarschen,players=4)", "zwicker(variant=classic,players=4)")
OPPONENTS = ("random", "greedy")


def deal_score(game: pyspiel.Game, hero: str, opponent: str, deal_seed: int) -> float:
    """Hero's mean point lead over the opponent seats on one deal, averaged over both seatings."""
    n = game.num_players()
    side_of = game.rules.side_of
    total = 0.0
    for hero_parity in (0, 1):
        agents = [make_agent(hero if q % 2 == hero_parity else opponent, game, seed=q) for q in range(n)]
        rec = play_game(game, agents, deal_seed=deal_seed, labels=False)
        mine = [rec.points[side_of(q)] for q in range(n) if q % 2 == hero_parity]
        theirs = [rec.points[side_of(q)] for q in range(n) if q % 2 != hero_parity]
        total += sum(mine) / len(mine) - sum(theirs) / len(theirs)
    return total / 2


def summary(path: str) -> None:
    rows: dict[tuple[str, str, str], list[float]] = {}
    for line in open(path):
        r = json.loads(line)
        rows.setdefault((r["game"], r["hero"], r["opponent"]), []).append(r["score"])
    print("| game | hero | opponent | deals (x2 seatings) | hero lead, points per deal | 95% CI |")
    print("|---|---|---|---:|---:|---|")
    for (g, h, o), xs in sorted(rows.items()):
        m = mean_ci(xs)
        print(f"| {g} | {h} | {o} | {m.n} | {m.mean:+.2f} | [{m.ci95[0]:+.2f}, {m.ci95[1]:+.2f}] |")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hero", default="ismcts:iters=2000")
    ap.add_argument("--deals", type=int, default=400, help="deals per pairing")
    ap.add_argument("--minutes", type=float, default=0.0, help="stop after this long (0 = no limit)")
    ap.add_argument("--first-seed", type=int, default=0)
    ap.add_argument("--out", default="strength_search.jsonl")
    ap.add_argument("--summary", action="store_true", help="only print the table of --out")
    args = ap.parse_args()
    if not args.summary:
        done = set()
        if os.path.exists(args.out):
            for line in open(args.out):
                r = json.loads(line)
                done.add((r["game"], r["hero"], r["opponent"], r["deal"]))
        games = {spec: pyspiel.load_game(spec) for spec in GAMES}
        t0 = time.time()
        with open(args.out, "a") as f:
            for d in range(args.first_seed, args.first_seed + args.deals):
                for spec in GAMES:
                    for opp in OPPONENTS:
                        if (spec, args.hero, opp, d) in done:
                            continue
                        if args.minutes and time.time() - t0 > 60 * args.minutes:
                            break
                        score = deal_score(games[spec], args.hero, opp, d)
                        rec = {"game": spec, "hero": args.hero, "opponent": opp, "deal": d, "score": score}
                        f.write(json.dumps(rec) + "\n")
                        f.flush()
                if args.minutes and time.time() - t0 > 60 * args.minutes:
                    break
    summary(args.out)


if __name__ == "__main__":
    main()
