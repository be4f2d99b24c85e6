"""How much the opponent model's weights (``expert:infer=TAU``) sharpen the drawn worlds toward the
true deal: at the decisions of seat 0 in games of ``--players`` agents, a pool of worlds is drawn by
the exact determinizer and weighted by :func:`zwick_ai.agents.expert_search.world_log_weight` at
each temperature and opponent model (``--models greedy,net``: :func:`zwick_ai.agents.expert_search.opponent_values`);
reported per model and temperature: the weighted share of the other seats' hand cards that
sit in the seat that truly holds them (uniform worlds: ``tau=0``), and the effective sample size
of the weights.

    PYTHONPATH=. python benchmarks/inference_accuracy.py --variant dithmarschen --deals 10 --taus 0,0.5,1,2,4
    PYTHONPATH=. python benchmarks/inference_accuracy.py --deals 8 --models greedy,net --opponents ismcts:iters=2000
"""

from __future__ import annotations

import argparse
import json

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import expert_search, make_agent, value_model, zwicker_search
from zwick_ai.agents.base import Agent
from zwick_ai.agents.net import model_for
from zwick_ai.eval.match import play_game
from zwick_ai.zwicker import history
from zwick_ai.zwicker.layout import MAX_HAND, R_PLAYERS, S_HAND_N, S_HANDS


def hand_accuracy(R: np.ndarray, real: np.ndarray, world: np.ndarray, p: int) -> float:
    """Share of the other seats' hand cards that ``world`` puts in the seat holding them in ``real``."""
    right = total = 0
    for q in range(int(R[R_PLAYERS])):
        if q == p:
            continue
        n = int(real[S_HAND_N + q])
        truth = set(real[S_HANDS + q * MAX_HAND : S_HANDS + q * MAX_HAND + n].tolist())
        mine = world[S_HANDS + q * MAX_HAND : S_HANDS + q * MAX_HAND + n].tolist()
        right += sum(c in truth for c in mine)
        total += n
    return right / total if total else float("nan")


class Probe(Agent):
    """Plays as ``inner``; at its decisions draws a pool and scores the weights of every ``tau``
    under every opponent model (name -> model arrays)."""

    def __init__(self, inner: Agent, taus: list[float], pool: int, rows: list[dict], models: dict[str, tuple]):
        super().__init__(inner.game, 0)
        self.inner, self.taus, self.pool, self.rows, self.models = inner, taus, pool, rows, models
        self.name = inner.name

    def reset(self, seed: int) -> None:
        self.inner.reset(seed)

    def act(self, state: pyspiel.State) -> list[int]:
        if len(state.candidate_rows()) > 1:
            d = zwicker_search.DecisionSetup(state, np.random.default_rng(len(self.rows)))
            meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
            inference = expert_search.Inference(0.0, value_model.empty_model())
            states, _ = expert_search.draw_pool(d.worlds, meta, self.pool, inference)
            acc = np.array([hand_accuracy(d.rules_array, d.real, s, d.player) for s in states])
            if np.isfinite(acc).all():
                row: dict = {"stage_plies": int(d.state_array[history.XB + history.X_NPLY]) - int(d.det.t0)}
                for name, mm in self.models.items():
                    for tau in self.taus:
                        if tau == 0:
                            w = np.ones(len(states))
                        else:
                            lw = np.array(
                                [
                                    expert_search.world_log_weight(
                                        d.rules_array,
                                        d.state_array,
                                        d.det.S0,
                                        s,
                                        d.player,
                                        d.det.t0,
                                        tau,
                                        d.workspace,
                                        mm,
                                    )
                                    for s in states
                                ]
                            )
                            w = np.exp(lw - lw.max())
                        row[f"acc_{name}_{tau:g}"] = float((w * acc).sum() / w.sum())
                        row[f"ess_{name}_{tau:g}"] = float(w.sum() ** 2 / (w * w).sum())
                self.rows.append(row)
        return self.inner.act(state)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--variant", default="dithmarschen")
    ap.add_argument("--players", type=int, default=0)
    ap.add_argument("--deals", type=int, default=10)
    ap.add_argument("--pool", type=int, default=200)
    ap.add_argument("--taus", default="0,0.5,1,2,4")
    ap.add_argument("--opponents", default="greedy", help="the agent at every other seat")
    ap.add_argument("--models", default="greedy", help="opponent models of the weights: greedy, net")
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    taus = [float(t) for t in args.taus.split(",")]
    players = f",players={args.players}" if args.players else ""
    game = pyspiel.load_game(f"zwicker(variant={args.variant}{players})")
    models = {
        m: model_for(game, kind="move").arrays() if m == "net" else value_model.empty_model()
        for m in args.models.split(",")
    }
    rows: list[dict] = []
    for deal in range(args.deals):
        agents = [Probe(make_agent("greedy", game), taus, args.pool, rows, models)]
        agents += [make_agent(args.opponents, game, seed=s) for s in range(1, game.num_players())]
        play_game(game, agents, deal_seed=deal, labels=False)
    out: dict = {"decisions": len(rows), "pool": args.pool, "opponents": args.opponents}
    for name in models:
        for tau in taus:
            acc = np.array([r[f"acc_{name}_{tau:g}"] for r in rows])
            ess = np.array([r[f"ess_{name}_{tau:g}"] for r in rows])
            out[f"{name} tau={tau:g}"] = {
                "accuracy": round(float(acc.mean()), 4),
                "accuracy_ci95": round(float(1.96 * acc.std(ddof=1) / np.sqrt(len(acc))), 4),
                "median_ess": round(float(np.median(ess)), 1),
            }
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
