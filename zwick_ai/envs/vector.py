"""A Gymnasium vector environment of one learning seat on :class:`zwick_ai.vector.VectorGame`:
every other seat is played in compiled code, so each sub-environment is one game at the seat's
turns. Observations are the seat's observation (or information-state) tensor, actions OpenSpiel
action ids, rewards the seat's return when its game ends (0 before). A game that ends restarts at
once (``autoreset_mode`` same-step: the returned observation is the new deal's, the episode's end
is in ``terminations``). ``action_masks()`` gives the legal actions, as sb3-contrib's MaskablePPO
asks for them.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium.vector import AutoresetMode

from zwick_ai.vector import VectorGame


class SeatVectorEnv(gymnasium.vector.VectorEnv):
    """``num_envs`` games of ``game_string`` for the learner at ``seat``; the other seats play
    ``opponent`` (a compiled opponent of :data:`zwick_ai.vector.OPPONENTS`)."""

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(
        self,
        game_string: str,
        num_envs: int,
        seat: int = 0,
        opponent: str = "random",
        seed: int = 0,
        information_state: bool = False,
    ):
        probe = VectorGame(game_string, num_games=1)
        others = {s: opponent for s in range(probe.num_players) if s != seat}
        if not 0 <= seat < probe.num_players:
            raise ValueError(f"seat must be in 0..{probe.num_players - 1}, got {seat}")
        self.vector_game = VectorGame(
            game_string, num_envs, seed, opponents=others, information_state=information_state
        )
        self.seat = seat
        self.num_envs = num_envs
        size = self.vector_game.observation_size
        self.single_observation_space = gymnasium.spaces.Box(-np.inf, np.inf, shape=(size,), dtype=np.float32)
        self.single_action_space = gymnasium.spaces.Discrete(self.vector_game.num_actions)
        self.observation_space = gymnasium.vector.utils.batch_space(self.single_observation_space, num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, num_envs)
        self._mask = np.zeros((num_envs, self.vector_game.num_actions), np.bool_)

    def reset(self, *, seed: int | list[int] | None = None, options: dict[str, Any] | None = None):
        """Deal every game again (``seed``: a new first deal seed)."""
        if isinstance(seed, int):
            self.vector_game.seed = seed
        ts = self.vector_game.reset()
        self._mask = ts.legal_mask
        return ts.observation.copy(), {"deal_seed": ts.deal_seed.copy()}

    def step(self, actions: np.ndarray):
        """One decision of the seat in every game."""
        ts = self.vector_game.step(np.asarray(actions))
        self._mask = ts.legal_mask
        rewards = ts.rewards[:, self.seat].astype(np.float64)
        truncated = np.zeros(self.num_envs, np.bool_)
        info = {"deal_seed": ts.deal_seed.copy()}
        return ts.observation.copy(), rewards, ts.terminated.copy(), truncated, info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every game (bool [num_envs, actions])."""
        return self._mask.copy()


def stable_baselines_vec_env(envs: list[SeatVectorEnv], scale: float = 1.0, features: Any = None) -> Any:
    """The games of ``envs`` (e.g. one :class:`SeatVectorEnv` per seat) as one stable-baselines3
    ``VecEnv`` with ``action_masks`` for MaskablePPO: observations through ``features`` (default:
    as they are), rewards divided by ``scale``, episode returns in ``info["episode"]`` like SB3's
    monitor (in game units, ``r``) when a game ends."""
    from stable_baselines3.common.vec_env import VecEnv

    transform = features if features is not None else (lambda x: x)

    class _Adapter(VecEnv):
        def __init__(self) -> None:
            self.parts = envs
            total = sum(e.num_envs for e in envs)
            box = envs[0].single_observation_space
            space = gymnasium.spaces.Box(-np.inf, np.inf, shape=box.shape, dtype=np.float32)
            super().__init__(total, space, envs[0].single_action_space)
            self._actions = np.zeros(total, np.int64)
            self.episode_returns: list[float] = []

        def reset(self) -> np.ndarray:
            return transform(np.concatenate([e.reset()[0] for e in self.parts]))

        def step_async(self, actions: np.ndarray) -> None:
            self._actions = np.asarray(actions, np.int64)

        def step_wait(self) -> Any:
            obs, rewards, dones = [], [], []
            at = 0
            for e in self.parts:
                o, r, d, _, _ = e.step(self._actions[at : at + e.num_envs])
                at += e.num_envs
                obs.append(o)
                rewards.append(r)
                dones.append(d)
            observation = transform(np.concatenate(obs))
            reward = np.concatenate(rewards)
            done = np.concatenate(dones)
            infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
            for i in np.flatnonzero(done):
                infos[i] = {"terminal_observation": observation[i], "episode": {"r": float(reward[i]), "l": 0}}
                self.episode_returns.append(float(reward[i]))
            return observation, reward / scale, done, infos

        def close(self) -> None:
            return None

        def action_masks(self) -> np.ndarray:
            return np.concatenate([e.action_masks() for e in self.parts])

        def get_attr(self, attr_name: str, indices: Any = None) -> list[Any]:
            return [getattr(self, attr_name)] * self.num_envs

        def set_attr(self, attr_name: str, value: Any, indices: Any = None) -> None:
            setattr(self, attr_name, value)

        def env_method(self, method_name: str, *args: Any, indices: Any = None, **kwargs: Any) -> list[Any]:
            if method_name != "action_masks":
                raise AttributeError(f"no method {method_name!r} on the vector games")
            return list(np.concatenate([e.action_masks() for e in self.parts]))

        def env_is_wrapped(self, wrapper_class: Any, indices: Any = None) -> list[bool]:
            return [False] * self.num_envs

        def seed(self, seed: int | None = None) -> list[int | None]:
            return [seed] * self.num_envs

    return _Adapter()
