"""What the ``expert`` agent does with its time: per decision, which search ran (ISMCTS or the
exact endgame), ISMCTS iterations, endgame worlds solved, positions searched and seconds, beside
``ismcts`` at the same time budget in the same games (the two alternate seats, under the same load).

    python benchmarks/expert_budget.py --variant dithmarschen --deals 4 --spec expert:time=0.1 --ismcts ismcts:time=0.1
"""

from __future__ import annotations

import argparse
import json
import time
from collections import defaultdict

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import make_agent
from zwick_ai.agents.base import Agent
from zwick_ai.agents.search import resolved_budget
from zwick_ai.agents.zwicker_search import ismcts_decision
from zwick_ai.eval.match import play_game


class Recorder(Agent):
    """Wraps an agent and keeps one row per decision (mode, counters, seconds)."""

    def __init__(self, inner: Agent, rows: list[dict]):
        super().__init__(inner.game, 0)
        self.inner, self.rows = inner, rows
        self.name = inner.name

    @property
    def spec(self) -> str:
        return self.inner.spec

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, state: pyspiel.State) -> list[int]:
        t = time.perf_counter()
        if self.inner.name == "ismcts":
            # the ismcts agent does not report its counters: call the backend with a node count
            acts = ismcts_decision(state, resolved_budget(self.inner.params), self.inner.rng)
            row = {"mode": "ismcts"}
        else:
            acts = self.inner.act(state)
            row = dict(getattr(self.inner, "last", {}))
        row["seconds"] = time.perf_counter() - t
        row["moves"] = len(state.candidate_rows())
        self.rows.append(row)
        return acts


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="dithmarschen")
    ap.add_argument("--players", type=int, default=0)
    ap.add_argument("--deals", type=int, default=4)
    ap.add_argument("--spec", default="expert:time=0.1")
    ap.add_argument("--ismcts", default="ismcts:time=0.1")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    players = f",players={args.players}" if args.players else ""
    game = pyspiel.load_game(f"zwicker(variant={args.variant}{players})")
    rows: dict[str, list[dict]] = defaultdict(list)
    n = game.num_players()
    for deal in range(args.deals):
        for swap in (0, 1):
            agents = []
            for seat in range(n):
                spec = args.spec if (seat + swap) % 2 == 0 else args.ismcts
                agents.append(Recorder(make_agent(spec, game, seed=seat), rows[spec]))
            play_game(game, agents, deal_seed=deal, labels=False)
    out = {}
    for spec, rs in rows.items():
        by_mode: dict[str, list[dict]] = defaultdict(list)
        for r in rs:
            if r["moves"] > 1:
                by_mode[r["mode"]].append(r)
        summary = {}
        for mode, xs in sorted(by_mode.items()):
            summary[mode] = {
                "decisions": len(xs),
                "seconds_mean": float(np.mean([x["seconds"] for x in xs])),
                "seconds_max": float(np.max([x["seconds"] for x in xs])),
                **{
                    k: float(np.mean([x[k] for x in xs]))
                    for k in ("iters", "worlds", "nodes", "pool_seconds")
                    if k in xs[0]
                },
            }
        out[spec] = summary
        print(f"{spec}:")
        for mode, s in summary.items():
            print(f"  {mode}: " + ", ".join(f"{k}={v:.4g}" for k, v in s.items()))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
