"""One seeded episode of an OpenSpiel game of ours, as the environments see it (no RL library needed).

Chance follows :mod:`zwick_ai.games.seeded_deals`: the deal of seed ``s`` is ``deal(game, s)`` and
every later chance event ``chance_action(state, s)``, so an environment episode reset with
deal seed ``s`` deals exactly the cards of deal ``s`` in a tournament or ``play_game``.

Observations are the information-state tensor (``perfect_recall=True``) of the observing seat, or
with ``information_state=False`` its observation tensor (what ``VectorGame`` and ``PolicyAgent``
observe by default), read through one reused OpenSpiel observer, as ``float32``; the action mask is ``int8`` over
``num_distinct_actions`` (all zero for a seat that is not to move).

>>> import pyspiel, zwick_ai.games
>>> game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
>>> ep = Episode(game)
>>> ep.start(deal_seed=4)
>>> ep.observation(ep.state.current_player()).shape == tuple(game.information_state_tensor_shape())
True
>>> int(ep.action_mask(ep.state.current_player()).sum()) == len(ep.state.legal_actions())
True
"""

from __future__ import annotations

import numpy as np
import pyspiel
from open_spiel.python.observation import make_observation

from zwick_ai.games.seeded_deals import chance_action, deal


def observation_shape(game: pyspiel.Game, information_state: bool) -> tuple[int, ...]:
    """The shape of the tensor the environments observe."""
    shape = game.information_state_tensor_shape() if information_state else game.observation_tensor_shape()
    return tuple(shape)


def observation_bound(game: pyspiel.Game) -> float:
    """An upper bound of every entry of the game's information-state tensors (all are >= 0).

    The entries are one-hots, counts of cards, stages and plies, announced values and points so
    far. Plies and cards are at most ``max_game_length`` (every card played is at least one
    action), a side's points at most the largest return (a side scoring everything while the
    others score nothing), and build values at most the largest joker value (< 31)."""
    return float(game.max_game_length() + max(abs(game.max_utility()), abs(game.min_utility())) + 31)


class Episode:
    """The state of one deal, advanced through chance by its deal seed, with observations."""

    def __init__(self, game: pyspiel.Game, information_state: bool = True):
        self.game = game
        self.num_actions = game.num_distinct_actions()
        self.information_state = bool(information_state)
        kind = pyspiel.IIGObservationType(perfect_recall=self.information_state)
        self._observer = make_observation(game, kind)
        self.deal_seed = 0
        self.state: pyspiel.State = game.new_initial_state()

    def start(self, deal_seed: int) -> None:
        """Deal ``deal_seed`` and play chance up to the first decision (or the end)."""
        self.deal_seed = int(deal_seed)
        self.state = deal(self.game, self.deal_seed)
        self.run_chance()

    def run_chance(self) -> None:
        """Apply the seeded chance events until a player is to move or the deal is over."""
        while self.state.is_chance_node():
            self.state.apply_action(chance_action(self.state, self.deal_seed))

    def observation(self, player: int) -> np.ndarray:
        """The information-state (or observation) tensor of ``player`` (a new array)."""
        self._observer.set_from(self.state, player)
        return np.array(self._observer.tensor, dtype=np.float32)

    def action_mask(self, player: int) -> np.ndarray:
        """1 at each legal action of ``player`` when it is to move, else all zero."""
        mask = np.zeros(self.num_actions, dtype=np.int8)
        if not self.state.is_terminal() and self.state.current_player() == player:
            mask[self.state.legal_actions()] = 1
        return mask

    def returns(self) -> list[float]:
        """Each seat's return of the finished deal."""
        return [float(r) for r in self.state.returns()]
