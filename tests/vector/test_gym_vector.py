"""The Gymnasium vector environment steps exactly like VectorGame with the same opponents."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason='the vector environment needs the "rl" extra: pip install -e ".[rl]"')

from zwick_ai.envs.vector import SeatVectorEnv  # noqa: E402
from zwick_ai.vector import VectorGame  # noqa: E402

GAME = "zwicker(variant=dithmarschen,players=2)"


def test_steps_like_vector_game() -> None:
    env = SeatVectorEnv(GAME, num_envs=3, seat=1, seed=5)
    vector = VectorGame(GAME, num_games=3, seed=5, opponents={0: "random"})
    obs, info = env.reset()
    ts = vector.reset()
    assert env.observation_space.shape == obs.shape
    rng = np.random.default_rng(2)
    ended = 0
    for _ in range(200):
        np.testing.assert_array_equal(obs, ts.observation)
        np.testing.assert_array_equal(env.action_masks(), ts.legal_mask)
        np.testing.assert_array_equal(info["deal_seed"], ts.deal_seed)
        assert (ts.current_player == 1).all()
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask])
        obs, rewards, terminated, truncated, info = env.step(actions)
        ts = vector.step(actions)
        np.testing.assert_array_equal(rewards, ts.rewards[:, 1])
        np.testing.assert_array_equal(terminated, ts.terminated)
        assert not truncated.any()
        ended += int(terminated.sum())
    assert ended > 0
