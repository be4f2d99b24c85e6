"""A PettingZoo Parallel API environment of any of our games: every seat an agent ``player_<seat>``.

Our games are turn-based, so each ``step(actions)`` applies the action of the one agent to move
(``infos[agent]["to_move"]`` says which; its ``action_mask`` is the only non-zero one) and ignores
the others' entries, which PettingZoo's ``parallel_api_test`` and most Parallel trainers send for
every live agent; a missing or illegal action of the agent to move raises ``ValueError``. Chance
plays by the deal seed, as in :mod:`zwick_ai.envs.aec`: ``reset(seed=s)`` deals deal ``s`` of a
tournament. Observations are ``{"observation", "action_mask"}`` as in the AEC environment (the
information-state tensor, or with ``information_state=False`` the observation tensor); rewards are
0 until the deal ends, then every seat's return, and then every agent terminates together.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel
from gymnasium import spaces
from gymnasium.utils import seeding
from pettingzoo import ParallelEnv

from zwick_ai.envs.aec import agent_name, masked_space
from zwick_ai.envs.episode import Episode
from zwick_ai.envs.single import MAX_DEAL_SEED, RENDER_MODES


class ZwickParallelEnv(ParallelEnv):
    """All seats of ``game`` as PettingZoo Parallel agents; only the agent to move acts a step."""

    metadata: dict[str, Any] = {"name": "zwick_parallel_v0", "render_modes": RENDER_MODES}

    def __init__(self, game: pyspiel.Game, render_mode: str | None = None, information_state: bool = True):
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.game = game
        self.render_mode = render_mode
        self.episode = Episode(game, information_state)
        self.possible_agents = [agent_name(p) for p in range(game.num_players())]
        self.agents: list[str] = []
        self._space = masked_space(game, information_state)
        self._actions = spaces.Discrete(game.num_distinct_actions())
        self._np_random, _ = seeding.np_random(None)

    def observation_space(self, agent: str) -> spaces.Space:
        return self._space  # one object for every agent and call, as PettingZoo asks

    def action_space(self, agent: str) -> spaces.Space:
        return self._actions

    def reset(
        self, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[dict[str, dict[str, np.ndarray]], dict[str, dict[str, Any]]]:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
            deal_seed = int(seed)
        else:
            deal_seed = int(self._np_random.integers(0, MAX_DEAL_SEED))
        self.episode.start(deal_seed)
        self.agents = self.possible_agents[:]
        return self._observations(), self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        state = self.episode.state
        if not self.agents or state.is_terminal():
            raise RuntimeError("the deal is over: call reset()")
        seat = state.current_player()
        mover = agent_name(seat)
        if mover not in actions:
            raise ValueError(f"give the action of {mover}, the agent to move (infos[agent]['to_move'])")
        a = int(actions[mover])
        if a not in state.legal_actions():
            names = ", ".join(state.action_to_string(seat, x) for x in state.legal_actions())
            raise ValueError(f"{mover}: action {a} is not legal here; legal: {names}")
        state.apply_action(a)
        self.episode.run_chance()
        observations, infos = self._observations(), self._infos()
        over = state.is_terminal()
        returns = self.episode.returns() if over else [0.0] * len(self.agents)
        rewards = {x: float(r) for x, r in zip(self.agents, returns, strict=True)}
        terminations = {x: over for x in self.agents}
        truncations = {x: False for x in self.agents}
        if over:
            self.agents = []
        return observations, rewards, terminations, truncations, infos

    def render(self) -> str | None:
        return str(self.episode.state) if self.render_mode == "ansi" else None

    def close(self) -> None:
        pass

    def _observations(self) -> dict[str, dict[str, np.ndarray]]:
        return {
            x: {"observation": self.episode.observation(p), "action_mask": self.episode.action_mask(p)}
            for p, x in enumerate(self.possible_agents)
            if x in self.agents
        }

    def _infos(self) -> dict[str, dict[str, Any]]:
        state = self.episode.state
        mover = -1 if state.is_terminal() else state.current_player()
        return {
            x: {"deal_seed": self.episode.deal_seed, "to_move": p == mover}
            for p, x in enumerate(self.possible_agents)
            if x in self.agents
        }


__all__ = ["ZwickParallelEnv"]
