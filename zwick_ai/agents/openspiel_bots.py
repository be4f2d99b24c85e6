"""OpenSpiel's own search bots as agents of the three games, for comparison with ours.

* ``openspiel-ismcts`` — OpenSpiel's Python ``open_spiel.python.algorithms.ismcts.ISMCTSBot``
  (Cowling et al.'s ISMCTS, keyed by information-state strings; ``selection=uct`` or ``puct``) with a
  ``RandomRolloutEvaluator``. Worlds come from our games' ``resample_from_infostate``, driven by a
  sampler drawn from the agent's generator (OpenSpiel's default hands the game a fresh
  ``UniformProbabilitySampler(0, 1)`` on every call, which is not seeded reproducibly).
  ``final=most_visited`` plays the most visited action, ``max_value`` the best mean; ``samples=k``
  draws k worlds per search and reuses them (OpenSpiel's ``max_world_samples``).
* ``openspiel-mcts`` — OpenSpiel's Python ``open_spiel.python.algorithms.mcts.MCTSBot`` run on
  determinized worlds: for each of ``worlds`` worlds resampled from the player's information
  (so it cannot peek at hidden cards), ``mcts_search`` with ``sims`` simulations (no MCTS-Solver
  backups); each world votes for its most visited action; ties go to more root visits in total,
  then to the lower action id.

Both are Python and slow (every node is a Python clone); the C++ ``pyspiel.MCTSBot`` and
``pyspiel.ISMCTSBot`` crash on Python games (docs/openspiel.md) and are not used. In Zwicker
they choose the sub-actions of a move one at a time (:func:`~zwick_ai.agents.base.bot_decision`).
``c`` is UCT's exploration constant on the game's raw returns (chips in the trick games). Every
random choice comes from the agent's seed, so games are reproducible.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents.base import make_agent
>>> from zwick_ai.eval.match import deal
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> agent = make_agent("openspiel-ismcts:sims=20", game, seed=2)
>>> state = deal(game, 4)
>>> acts = agent.act(state)
>>> agent.reset(2); acts == agent.act(state) and acts[0] in state.legal_actions()
True
>>> make_agent("openspiel-ismcts:final=best", game)
Traceback (most recent call last):
...
ValueError: final='best' is not valid; valid: most_visited, max_value
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python.algorithms import ismcts, mcts

from zwick_ai.agents.base import Agent, Param, bot_decision, register

FINALS = {
    "most_visited": ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
    "max_value": ismcts.ISMCTSFinalPolicyType.MAX_VALUE,
}
SELECTIONS = {"uct": ismcts.ChildSelectionPolicy.UCT, "puct": ismcts.ChildSelectionPolicy.PUCT}


def _check(params: dict[str, Any]) -> None:
    if "final" in params and params["final"] not in FINALS:
        raise ValueError(f"final={params['final']!r} is not valid; valid: {', '.join(FINALS)}")
    if "selection" in params and params["selection"] not in SELECTIONS:
        raise ValueError(f"selection={params['selection']!r} is not valid; valid: {', '.join(SELECTIONS)}")
    if params.get("samples", 0) < 0:
        raise ValueError(f"samples={params['samples']} is not valid; use 0 (a new world every simulation) or more")
    for key in ("sims", "rollouts", "worlds"):
        if key in params and params[key] < 1:
            raise ValueError(f"{key}={params[key]} is not valid; give at least 1")
    if params["c"] < 0:
        raise ValueError(f"c={params['c']} is not valid; the exploration constant must be >= 0")


def _sampler(rng: np.random.Generator) -> Callable[[], float]:
    """A probability sampler for ``resample_from_infostate`` drawing from ``rng``."""
    return lambda: float(rng.random())


def _random_state(rng: np.random.Generator) -> np.random.RandomState:
    """OpenSpiel's bots take a legacy ``RandomState``; seed one from the agent's generator."""
    return np.random.RandomState(int(rng.integers(2**31)))  # noqa: NPY002


@register(
    "openspiel-ismcts",
    params=[
        Param("sims", int, 1000, "simulations per sub-action"),
        Param("c", float, 2.0, "UCT exploration constant on raw returns"),
        Param("final", str, "most_visited", "final choice: most_visited or max_value"),
        Param("rollouts", int, 1, "random rollouts per leaf evaluation"),
        Param("selection", str, "uct", "child selection: uct or puct (uniform priors)"),
        Param("samples", int, 0, "distinct worlds per search, reused (0 = a new world every simulation)"),
    ],
    summary="OpenSpiel's Python ISMCTSBot with random rollouts and our resamplers.",
    check=_check,
)
class OpenSpielIsmctsAgent(Agent):
    """OpenSpiel's ``ISMCTSBot`` (module docstring)."""

    def act(self, state: pyspiel.State) -> list[int]:
        rs = _random_state(self.rng)
        bot = ismcts.ISMCTSBot(
            self.game,
            mcts.RandomRolloutEvaluator(n_rollouts=self.params["rollouts"], random_state=rs),
            uct_c=self.params["c"],
            max_simulations=self.params["sims"],
            random_state=rs,
            max_world_samples=self.params["samples"] or ismcts.UNLIMITED_NUM_WORLD_SAMPLES,
            final_policy_type=FINALS[self.params["final"]],
            child_selection_policy=SELECTIONS[self.params["selection"]],
        )
        sampler = _sampler(self.rng)
        bot.set_resampler(lambda st, player: st.resample_from_infostate(player, sampler))
        return bot_decision(bot, state)


class DeterminizedMCTSBot(pyspiel.Bot):
    """OpenSpiel's ``MCTSBot`` on ``worlds`` worlds resampled from the player's information, voting."""

    def __init__(self, game: pyspiel.Game, sims: int, worlds: int, c: float, rollouts: int, rng: np.random.Generator):
        pyspiel.Bot.__init__(self)
        rs = _random_state(rng)
        evaluator = mcts.RandomRolloutEvaluator(n_rollouts=rollouts, random_state=rs)
        self.mcts = mcts.MCTSBot(game, c, sims, evaluator, solve=False, random_state=rs)
        self.worlds = worlds
        self.sampler = _sampler(rng)

    def step(self, state: pyspiel.State) -> int:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        player = state.current_player()
        votes: dict[int, int] = {}
        visits: dict[int, int] = {}
        for _ in range(self.worlds):
            world = state.resample_from_infostate(player, self.sampler)
            root = self.mcts.mcts_search(world)
            best = root.best_child().action
            votes[best] = votes.get(best, 0) + 1
            for child in root.children:
                visits[child.action] = visits.get(child.action, 0) + child.explore_count
        return max(legal, key=lambda a: (votes.get(a, 0), visits.get(a, 0), -a))

    def restart_at(self, state: pyspiel.State) -> None:
        pass

    def inform_action(self, state: pyspiel.State, player_id: int, action: int) -> None:
        pass

    def provides_policy(self) -> bool:
        return False


@register(
    "openspiel-mcts",
    params=[
        Param("sims", int, 200, "MCTS simulations per world"),
        Param("worlds", int, 10, "determinized worlds per sub-action"),
        Param("c", float, 2.0, "UCT exploration constant on raw returns"),
        Param("rollouts", int, 1, "random rollouts per leaf evaluation"),
    ],
    summary="OpenSpiel's Python MCTSBot on determinized worlds (resampled, no peeking), voting.",
    check=_check,
)
class OpenSpielMctsAgent(Agent):
    """OpenSpiel's ``MCTSBot`` on determinized worlds (module docstring)."""

    def act(self, state: pyspiel.State) -> list[int]:
        p = self.params
        bot = DeterminizedMCTSBot(self.game, p["sims"], p["worlds"], p["c"], p["rollouts"], self.rng)
        return bot_decision(bot, state)


__all__ = ["FINALS", "SELECTIONS", "DeterminizedMCTSBot", "OpenSpielIsmctsAgent", "OpenSpielMctsAgent"]
