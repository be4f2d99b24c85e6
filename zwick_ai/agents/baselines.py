"""Baseline agents: uniform random and the greedy heuristics.

``random`` chooses uniformly among the legal **whole decisions** (Zwicker: whole moves, the same
distribution as the compiled ``POLICY_RANDOM`` of :mod:`zwick_ai.zwicker.kernels`; trick games:
actions).

``greedy`` (Zwicker) scores every legal whole move with the compiled
:func:`zwick_ai.zwicker.kernels.greedy_value` and plays a best one (ties at random):

* a capture scores ``10 + points taken (played card included) + Zwick bonus + 0.1 * cards taken``:
  take as many points as possible, count a Zwick at its value, prefer more cards among equals;
* a build scores ``1 + 0.01 * value``: better than giving a card away, worse than any capture;
* a trail scores ``-(points of the card) - 0.01 * its value``: when nothing else is possible, give
  away the cheapest, lowest card — so jokers (the dearest cards) are held as long as possible;
* asking a partner (Großenwiehe) is never chosen.

The trick games' greedy agents live in :mod:`zwick_ai.agents.tricks_greedy`.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents.base import make_agent
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> from zwick_ai.games import zwicker_bridge
>>> state = zwicker_bridge.state_from_seed(game, 4)
>>> acts = make_agent("greedy", game, seed=0).act(state)
>>> len(acts) >= 1 and all(isinstance(a, int) for a in acts)
True
"""

from __future__ import annotations

import numpy as np
import pyspiel

from zwick_ai.agents.base import Agent, legal_decisions, register
from zwick_ai.agents.tricks_greedy import greedy_decision
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import kernels


@register("random", summary="uniform over the legal whole decisions (Zwicker: whole moves).")
class RandomAgent(Agent):
    """Uniform over the legal whole decisions."""

    def act(self, state: pyspiel.State) -> list[int]:
        if hasattr(state, "move_prefix"):  # a zwicker state: whole moves
            rows = state.decision().candidates
            return zwicker_bridge.move_actions(state, rows[int(self.rng.integers(len(rows)))])
        legal = state.legal_actions()
        return [int(legal[int(self.rng.integers(len(legal)))])]


def greedy_scores(state: pyspiel.State) -> tuple[np.ndarray, np.ndarray]:
    """(candidate move rows, greedy score of each) for a Zwicker state at the start of a turn."""
    decision = state.decision()
    rows, R, S = decision.candidates, decision.rules_array, decision.position
    return rows, np.array([kernels.greedy_value(R, S, r) for r in rows])


@register(
    "greedy",
    summary="Zwicker: best immediate points, Zwick bonus, holds jokers; trick games: bids by hand strength, "
    "wins tricks cheaply.",
)
class GreedyAgent(Agent):
    """Zwicker's greedy heuristic (module docstring); the trick games' heuristic is
    :mod:`zwick_ai.agents.tricks_greedy` (deterministic)."""

    def act(self, state: pyspiel.State) -> list[int]:
        if self.game_name != "zwicker":
            return greedy_decision(state)
        rows, scores = greedy_scores(state)
        best = np.flatnonzero(scores >= scores.max() - 1e-9)
        return zwicker_bridge.move_actions(state, rows[int(best[self.rng.integers(len(best))])])


__all__ = ["GreedyAgent", "RandomAgent", "greedy_scores", "legal_decisions"]
