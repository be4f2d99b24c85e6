"""A policy over actions becomes an agent: :class:`PolicyAgent`.

A policy trained on :class:`zwick_ai.vector.VectorGame` maps a batch of observations ``[B, D]``
(float32) and legal masks ``[B, A]`` (bool) to action logits or probabilities ``[B, A]``. Zwicker's
whole moves are several OpenSpiel actions (sub-actions: ``QS``, ``as 13``, ``done``); the agent asks
the policy for one sub-action at a time, on a copy of the state, with exactly the observation
``VectorGame`` gives there (the observation tensor of the seat to move, or with
``information_state=True`` its information-state tensor), until the decision is complete. It takes
the most probable legal action, or with ``sample=True`` draws one with the agent's seeded
generator, so play stays reproducible.

A torch module is a policy through two lines (``torch.set_num_threads(1)`` keeps one decision's
tiny forward pass off the other cores)::

    def policy_fn(obs, mask):
        return net(torch.from_numpy(obs)).detach().numpy()

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> first_legal = lambda obs, mask: mask.astype(float)  # a "policy": every legal action alike
>>> agent = PolicyAgent(game, first_legal, seed=0)
>>> state = zwicker_bridge.state_from_seed(game, 5)
>>> actions = agent.act(state)
>>> state.current_player() in (0, 1, 2, 3) and len(actions) >= 1
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents.base import Agent
from zwick_ai.games.decisions import compose_decision

#: a policy: (observations [B, D] float32, legal masks [B, A] bool) -> logits or probabilities [B, A]
PolicyFn = Callable[[np.ndarray, np.ndarray], Any]


def observation(state: pyspiel.State, player: int, information_state: bool = False) -> np.ndarray:
    """What ``VectorGame`` observes for ``player`` in ``state``: the observation tensor (or the
    information-state tensor), float32."""
    tensor = state.information_state_tensor(player) if information_state else state.observation_tensor(player)
    return np.asarray(tensor, dtype=np.float32)


def legal_mask(state: pyspiel.State) -> np.ndarray:
    """The legal actions of ``state`` as a bool mask over the game's distinct actions."""
    mask = np.zeros(state.get_game().num_distinct_actions(), dtype=bool)
    mask[state.legal_actions()] = True
    return mask


class PolicyAgent(Agent):
    """A policy function as an agent (module docstring).

    ``policy_fn(obs [B, D], mask [B, A]) -> [B, A]``: logits (default) or, with
    ``probabilities=True``, probabilities; illegal actions are masked out either way.
    ``sample``: draw from the masked policy instead of taking its argmax. ``information_state``:
    observe the information-state tensor (``VectorGame(..., information_state=True)``).
    ``features``: a transform applied to the observations first (e.g. the one a training
    environment applied). ``params``: the spec parameters of a subclass (its ``self.params``)."""

    def __init__(
        self,
        game: pyspiel.Game,
        policy_fn: PolicyFn,
        seed: int = 0,
        sample: bool = False,
        information_state: bool = False,
        probabilities: bool = False,
        features: Callable[[np.ndarray], np.ndarray] | None = None,
        params: dict[str, Any] | None = None,
    ):
        super().__init__(game, seed, **(params or {}))
        self.policy_fn = policy_fn
        self.sample = bool(sample)
        self.information_state = bool(information_state)
        self.gives_probabilities = bool(probabilities)
        self.features = features

    def distribution(self, state: pyspiel.State) -> np.ndarray:
        """The masked policy's probability of every action of ``state.current_player()``."""
        obs = observation(state, state.current_player(), self.information_state)[None, :]
        if self.features is not None:
            obs = np.asarray(self.features(obs), dtype=np.float32)
        mask = legal_mask(state)[None, :]
        out = np.asarray(self.policy_fn(obs, mask), dtype=np.float64)
        if out.shape != mask.shape:
            raise ValueError(f"{self!r}: the policy returned shape {out.shape}, not [B, A] = {mask.shape}")
        row, legal = out[0], mask[0]
        if np.isnan(row[legal]).any() or np.isposinf(row[legal]).any():
            raise ValueError(f"{self!r}: the policy returned NaN or +inf for a legal action")
        if self.gives_probabilities:
            p = np.where(legal, np.clip(row, 0.0, None), 0.0)
        else:
            z = np.where(legal, row, -np.inf)
            p = np.where(legal, np.exp(z - z.max()), 0.0)
        total = p.sum()
        if not total > 0:
            raise ValueError(f"{self!r}: the policy gives no legal action a positive probability")
        return p / total

    def act(self, state: pyspiel.State) -> list[int]:
        return compose_decision(state, self._step)

    def _step(self, state: pyspiel.State) -> int:
        """One action of the decision: drawn from the masked policy (``sample``) or its most probable."""
        p = self.distribution(state)
        return int(self.rng.choice(len(p), p=p)) if self.sample else int(np.argmax(p))


__all__ = ["PolicyAgent", "PolicyFn", "legal_mask", "observation"]
