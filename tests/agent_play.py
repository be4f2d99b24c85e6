"""Zwicker states reached by the greedy agent and whole games played by named agents, shared by
the agent tests."""

from __future__ import annotations

import numpy as np
import pyspiel

from zwick_ai.agents.base import make_agent
from zwick_ai.games import zwicker_bridge

DITHMARSCHEN = "zwicker(variant=dithmarschen,players=4)"


def greedy_turns(seed: int, turns: int, spec: str = DITHMARSCHEN) -> tuple[pyspiel.Game, pyspiel.State]:
    """The game ``spec`` and its deal ``seed`` after ``turns`` greedy whole moves (chance: the first
    outcome), so that some cards are played and the stock is partly dealt."""
    game = pyspiel.load_game(spec)
    state = zwicker_bridge.state_from_seed(game, seed)
    greedy = make_agent("greedy", game, seed=1)
    for _ in range(turns):
        for action in greedy.act(state):
            state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
    return game, state


def play_whole_game(game: pyspiel.Game, specs: list[str], seed: int) -> tuple[pyspiel.State, int]:
    """Deal ``seed`` played to the end, seat q by agent ``specs[q % len(specs)]`` (seeded q) and chance
    by ``np.random.default_rng(seed)``; every sub-action is checked against the legal actions.
    Returns the final state and the count of whole decisions."""
    agents = [make_agent(specs[q % len(specs)], game, seed=q) for q in range(game.num_players())]
    state = zwicker_bridge.state_from_seed(game, seed)
    rng = np.random.default_rng(seed)
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=probs)))
            continue
        for action in agents[state.current_player()].act(state):
            assert action in state.legal_actions()
            state.apply_action(action)
        decisions += 1
    return state, decisions
