"""The ``ppo`` agent: a MaskablePPO policy trained on our environment plays legal whole decisions
in ``play_game``, reproducibly, and wrong policy files are refused clearly."""

import numpy as np
import pytest

pytest.importorskip("sb3_contrib", reason='the ppo agent needs the "rl" extra: pip install -e ".[rl]"')

import gymnasium as gym  # noqa: E402
from sb3_contrib import MaskablePPO  # noqa: E402

from zwick_ai.agents import make_agent  # noqa: E402
from zwick_ai.agents.maskable_ppo import policy_features  # noqa: E402
from zwick_ai.envs import load, single_agent_env  # noqa: E402
from zwick_ai.eval.match import play_game  # noqa: E402

GAME = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"


@pytest.fixture(scope="module")
def policy_file(tmp_path_factory):
    env = single_agent_env(GAME)
    box = env.observation_space
    features = gym.spaces.Box(0.0, float(np.log1p(box.high.max())), shape=box.shape, dtype=np.float32)
    env = gym.wrappers.TransformObservation(env, policy_features, features)
    model = MaskablePPO("MlpPolicy", env, n_steps=128, batch_size=64, n_epochs=1, seed=0)
    model.learn(total_timesteps=128)
    path = tmp_path_factory.mktemp("ppo") / "policy.zip"
    model.save(path)
    return str(path)


def test_ppo_agent_plays_whole_legal_decisions_reproducibly(policy_file):
    game = load(GAME)
    records = [
        play_game(game, [make_agent(f"ppo:policy={policy_file}", game), make_agent("random", game)], deal_seed=3)
        for _ in range(2)
    ]
    assert records[0].moves == records[1].moves  # deterministic policy, seeded opponent
    assert records[0].returns[0] == -records[0].returns[1]
    sampled = make_agent(f"ppo:policy={policy_file},sample=true", game, seed=1)
    a = play_game(game, [sampled, make_agent("random", game)], deal_seed=3, agent_seeds=[5, 6])
    b = play_game(game, [sampled, make_agent("random", game)], deal_seed=3, agent_seeds=[5, 6])
    assert a.moves == b.moves  # sampling uses the agent's seeded generator


def test_ppo_probabilities_are_masked(policy_file):
    game = load(GAME)
    agent = make_agent(f"ppo:policy={policy_file}", game)
    env = single_agent_env(GAME)
    env.reset(seed=0)
    state = env.unwrapped.episode.state
    probs = agent.probabilities(state)
    assert np.isclose(probs.sum(), 1.0)
    assert set(np.flatnonzero(probs > 0)) <= set(state.legal_actions())


def test_numpy_policy_equals_stable_baselines(policy_file):
    """The agent's numpy forward pass of the policy gives the masked probabilities sb3-contrib
    computes from the same (trusted, test-made) file."""
    import torch

    game = load(GAME)
    agent = make_agent(f"ppo:policy={policy_file}", game)
    model = MaskablePPO.load(policy_file, device="cpu")  # the test's own file: safe to unpickle here
    env = single_agent_env(GAME)
    for seed in range(3):
        env.reset(seed=seed)
        state = env.unwrapped.episode.state
        obs = policy_features(np.asarray(state.information_state_tensor(state.current_player())))
        mask = np.zeros(game.num_distinct_actions(), dtype=bool)
        mask[state.legal_actions()] = True
        with torch.no_grad():
            obs_t, _ = model.policy.obs_to_tensor(obs)
            dist = model.policy.get_distribution(obs_t, action_masks=mask[None, :])
            want = dist.distribution.probs[0].numpy().astype(np.float64)
        np.testing.assert_allclose(agent.probabilities(state), want, rtol=1e-4, atol=1e-6)


def test_wrong_policy_files_are_refused(policy_file, tmp_path):
    with pytest.raises(ValueError, match="no policy file"):
        make_agent(f"ppo:policy={tmp_path / 'missing.zip'}", load(GAME))
    with pytest.raises(ValueError, match="another game"):
        make_agent(f"ppo:policy={policy_file}", load("zwicken"))
    with pytest.raises(ValueError, match="give the policy file"):
        make_agent("ppo", load(GAME))
