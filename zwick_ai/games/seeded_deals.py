"""Seeded deals: chance as a function of the **deal seed** alone, so a deal can be replayed with
the seats permuted (duplicate play).

Zwicker's deal is exactly ``zwicker.deal(rules, seed)`` (the same hands, table and stock order);
later chance events and every chance event of the trick games are drawn from
``numpy.random.default_rng([seed, len(history)])`` like the trick engine's own seeded deals.
Players are reset with seeds of their own (:func:`default_agent_seeds`), independent of the deal's.

>>> import pyspiel, zwick_ai.games
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> deal(game, 5).history() == deal(game, 5).history(), deal(game, 5).is_chance_node()
(True, False)
"""

from __future__ import annotations

import numpy as np
import pyspiel


def chance_action(state: pyspiel.State, deal_seed: int) -> int:
    """The chance outcome of ``state`` under deal seed ``deal_seed`` (see the module docstring)."""
    outcomes = state.chance_outcomes()
    ids = np.array([a for a, _ in outcomes])
    probs = np.array([p for _, p in outcomes])
    rng = np.random.default_rng([deal_seed, len(state.history())])
    return int(rng.choice(ids, p=probs / probs.sum()))


def default_agent_seeds(deal_seed: int, players: int) -> list[int]:
    """The seed each seat's agent is reset with for deal ``deal_seed`` when none are given."""
    return [int(x) for x in np.random.default_rng([deal_seed, 7919]).integers(0, 2**31, size=players)]


def deal(game: pyspiel.Game, deal_seed: int) -> pyspiel.State:
    """The state after the opening chance events of deal ``deal_seed``."""
    if game.get_type().short_name == "zwicker":
        from zwick_ai.games import zwicker_bridge

        return zwicker_bridge.state_from_seed(game, deal_seed)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(chance_action(state, deal_seed))
    return state
