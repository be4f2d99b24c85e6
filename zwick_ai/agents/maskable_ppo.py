"""A trained sb3-contrib ``MaskablePPO`` policy as an agent (the ``rl`` extra; ``experiments/rl``).

Spec ``ppo:policy=PATH`` (a ``.zip`` saved by ``MaskablePPO.save``), ``sample=false``: the
policy acts on the information-state tensor of its seat passed through :func:`policy_features`
(the same transform the training environment applied) with the legal actions as its mask, one
OpenSpiel action at a time until its decision is complete (a Zwicker move is its sub-actions).
By default it takes the most probable legal action; ``sample=true`` draws from the masked policy
with the agent's seeded generator, so play stays reproducible.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents.base import Agent, Param, decision_over, register

#: what to install when sb3-contrib is missing
INSTALL_HINT = 'the ppo agent needs the "rl" extra: pip install -e ".[rl]"'


def policy_features(tensor: np.ndarray) -> np.ndarray:
    """What the policy network sees of an information-state tensor: ``log(1 + x)`` as float32.

    The tensors mix one-hots with counts and ply numbers in the hundreds; the logarithm keeps
    every entry informative on one scale without statistics that would have to be saved."""
    return np.log1p(np.asarray(tensor, dtype=np.float32))


def _load(path: str) -> Any:
    try:
        import torch
        from sb3_contrib import MaskablePPO
    except ImportError as e:
        raise ValueError(f"{INSTALL_HINT} ({e})") from None
    if not Path(path).is_file():
        raise ValueError(f"ppo: no policy file {path!r}")
    torch.set_num_threads(1)  # one decision is tiny; the machine is shared
    return MaskablePPO.load(path, device="cpu")


@register(
    "ppo",
    params=(
        Param("policy", str, "", "path of a MaskablePPO .zip trained on this game (experiments/rl)"),
        Param("sample", bool, False, "draw from the masked policy instead of taking its most probable action"),
    ),
)
class MaskablePPOAgent(Agent):
    """A trained MaskablePPO policy (sb3-contrib) on the information-state tensor with the legal-action mask."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        if not params["policy"]:
            raise ValueError("ppo: give the policy file, e.g. ppo:policy=experiments/rl/ppo.zip")
        self.model = _load(params["policy"])
        want = tuple(game.information_state_tensor_shape())
        got = tuple(self.model.observation_space.shape)
        if got != want:
            raise ValueError(
                f"ppo: {params['policy']} was trained on observations of shape {got}; {game} has {want} (another game?)"
            )
        if self.model.action_space.n != game.num_distinct_actions():
            raise ValueError(
                f"ppo: {params['policy']} has {self.model.action_space.n} actions; {game} has {game.num_distinct_actions()}"
            )

    def probabilities(self, state: pyspiel.State) -> np.ndarray:
        """The masked policy's probability of every action of ``state.current_player()``."""
        import torch

        player = state.current_player()
        obs = policy_features(np.asarray(state.information_state_tensor(player)))
        mask = np.zeros(self.game.num_distinct_actions(), dtype=bool)
        mask[state.legal_actions()] = True
        with torch.no_grad():
            obs_t, _ = self.model.policy.obs_to_tensor(obs)
            dist = self.model.policy.get_distribution(obs_t, action_masks=mask[None, :])
            probs = dist.distribution.probs[0].cpu().numpy().astype(np.float64)
        probs[~mask] = 0.0
        return probs / probs.sum()

    def act(self, state: pyspiel.State) -> list[int]:
        player = state.current_player()
        work = state.clone()
        actions: list[int] = []
        while not actions or not decision_over(work, player):
            probs = self.probabilities(work)
            a = int(self.rng.choice(len(probs), p=probs)) if self.params["sample"] else int(np.argmax(probs))
            actions.append(a)
            work.apply_action(a)
        return actions
