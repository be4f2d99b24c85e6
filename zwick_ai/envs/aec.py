"""A PettingZoo AEC environment of any of our games: every seat an agent ``player_<seat>``.

The agent to act is the OpenSpiel player to move; one step is one OpenSpiel action (a Zwicker
move is its sequence of sub-actions, as in the game). Chance plays by the deal seed of
:mod:`zwick_ai.games.seeded_deals`: ``reset(seed=s)`` deals deal ``s`` of a tournament, a reset without a
seed draws the deal seed from the environment's generator. Each agent observes
``{"observation": its information-state tensor (``information_state=False``: its observation
tensor), "action_mask": int8 legal actions}`` (the mask is all zero when it is not to move); the rewards are 0 until the deal ends, then every seat's
return. An illegal action raises ``ValueError``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import AECEnv

from zwick_ai.envs.episode import Episode, observation_bound, observation_shape
from zwick_ai.envs.single import MAX_DEAL_SEED, RENDER_MODES


def agent_name(seat: int) -> str:
    """The PettingZoo agent name of an OpenSpiel seat."""
    return f"player_{seat}"


def masked_space(game: pyspiel.Game, information_state: bool) -> spaces.Dict:
    """One agent's observation space: the tensor and the int8 action mask."""
    shape = observation_shape(game, information_state)
    return spaces.Dict(
        {
            "observation": spaces.Box(0.0, observation_bound(game), shape=shape, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(game.num_distinct_actions(),), dtype=np.int8),
        }
    )


class ZwickAECEnv(AECEnv):
    """All seats of ``game`` as PettingZoo agents, turn by turn."""

    metadata: dict[str, Any] = {"name": "zwick_v0", "render_modes": RENDER_MODES, "is_parallelizable": False}

    def __init__(self, game: pyspiel.Game, render_mode: str | None = None, information_state: bool = True):
        super().__init__()
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.episode = Episode(game, information_state)
        self.possible_agents = [agent_name(p) for p in range(game.num_players())]
        self._seat = {a: p for p, a in enumerate(self.possible_agents)}
        space = masked_space(game, information_state)
        self.observation_spaces = {a: space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(game.num_distinct_actions()) for a in self.possible_agents}
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            deal_seed = int(seed)
        else:
            deal_seed = int(self._np_random.integers(0, MAX_DEAL_SEED))
        self.episode.start(deal_seed)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {"deal_seed": deal_seed} for a in self.agents}
        self.agent_selection = self.agents[0]
        self._after_action()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        seat = self._seat[agent]
        return {"observation": self.episode.observation(seat), "action_mask": self.episode.action_mask(seat)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        state = self.episode.state
        a = int(action)
        if a not in state.legal_actions():
            names = ", ".join(state.action_to_string(self._seat[agent], x) for x in state.legal_actions())
            raise ValueError(f"{agent}: action {a} is not legal here; legal: {names}")
        self._cumulative_rewards[agent] = 0.0
        state.apply_action(a)
        self.episode.run_chance()
        self._after_action()
        self._accumulate_rewards()

    def render(self) -> str | None:
        return str(self.episode.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass

    def _after_action(self) -> None:
        """Select the player to move, or end the deal with every seat's return."""
        state = self.episode.state
        if state.is_terminal():
            for a, r in zip(self.agents, self.episode.returns(), strict=True):
                self.rewards[a] = r
                self.terminations[a] = True
            # every agent is now done: the one selected takes the first dead step (PettingZoo's rule)
        else:
            for a in self.agents:
                self.rewards[a] = 0.0
            self.agent_selection = agent_name(state.current_player())
