"""The environments as the ecosystem expects them: PettingZoo's ``parallel_api_test`` on the
Parallel environment, the ``gymnasium.make`` ids registered on import, and one observation
argument (``information_state``) meaning the same in ``VectorGame``, ``PolicyAgent`` and the
environments: one policy plays the same deal move for move in all of them."""

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason='the RL environments need the "rl" extra: pip install -e ".[rl]"')
pettingzoo = pytest.importorskip("pettingzoo", reason='the RL environments need the "rl" extra: pip install -e ".[rl]"')

from pettingzoo.test import parallel_api_test  # noqa: E402

import zwick_ai.envs  # noqa: E402,F401  (registers the Gymnasium ids)
from zwick_ai.agents.policy import PolicyAgent  # noqa: E402
from zwick_ai.envs import aec_env, load, parallel_env, single_agent_env  # noqa: E402
from zwick_ai.eval.match import play_game  # noqa: E402
from zwick_ai.vector import VectorGame  # noqa: E402

GAMES = ["zwicker(variant=classic,players=2)", "zwicker(variant=dithmarschen)", "zwikken(variant=parlett)", "zwicken"]


@pytest.mark.parametrize("game_string", GAMES)
def test_parallel_api_test(game_string):
    parallel_api_test(parallel_env(game_string), num_cycles=400)


def test_parallel_env_plays_the_seeded_deal_to_the_game_returns():
    env = parallel_env("zwikken(variant=parlett)")
    obs, infos = env.reset(seed=7)
    rng = np.random.default_rng(0)
    total = {a: 0.0 for a in env.possible_agents}
    while env.agents:
        mover = next(a for a in env.agents if infos[a]["to_move"])
        legal = np.flatnonzero(obs[mover]["action_mask"])
        assert all(not obs[a]["action_mask"].any() for a in env.agents if a != mover)
        obs, rewards, terminations, _, infos = env.step({mover: int(rng.choice(legal))})
        for a, r in rewards.items():
            total[a] += r
    assert sum(total.values()) != 0 or all(r == 0 for r in total.values())
    assert env.episode.returns() == [total[a] for a in env.possible_agents]
    env.reset(seed=7)
    with pytest.raises(ValueError, match="agent to move"):
        env.step({})


@pytest.mark.parametrize(("env_id", "kwargs", "players"), [
    ("zwick_ai/Zwicker-v0", {"variant": "classic", "players": 2}, 2),
    ("zwick_ai/Zwicker-v0", {"variant": "dithmarschen", "options": {"ranks": "9TJQKA"}, "seat": 1}, 4),
    ("zwick_ai/Zwikken-v0", {"variant": "parlett", "players": 3, "opponents": ["greedy", "random"]}, 3),
    ("zwick_ai/Zwicken-v0", {}, None),
])  # fmt: skip
def test_gymnasium_make_ids_take_the_variant_and_players(env_id, kwargs, players):
    env = gymnasium.make(env_id, **kwargs)
    assert env.spec is not None and env.spec.id == env_id
    obs, info = env.reset(seed=3)
    game = env.unwrapped.game
    if players is not None:
        assert game.num_players() == players
    assert obs.shape == tuple(game.information_state_tensor_shape())
    for key, value in kwargs.get("options", {}).items():
        assert game.get_parameters()[key] == value
    legal = np.flatnonzero(info["action_mask"])
    env.step(int(legal[0]))
    small = gymnasium.make(env_id, information_state=False, **kwargs)
    assert small.reset(seed=3)[0].shape == tuple(game.observation_tensor_shape())
    with pytest.raises(ValueError):
        gymnasium.make("zwick_ai/Zwicker-v0", variant="nowhere")


def _policy(game, seed):
    """A fixed policy over one observation kind: logits = observation @ W (what training gives is
    such a function of the observation; any one tells whether the four read the same thing)."""
    rng = np.random.default_rng(seed)
    return lambda size: rng.normal(size=(size, game.num_distinct_actions())).astype(np.float32)


@pytest.mark.parametrize("information_state", [False, True])
@pytest.mark.parametrize("game_string", ["zwicker(variant=classic,players=2)", "zwikken(variant=parlett)"])
def test_one_policy_plays_the_same_deal_in_vector_game_policy_agent_and_the_environments(
    game_string, information_state
):
    game = load(game_string)
    size = game.information_state_tensor_size() if information_state else game.observation_tensor_size()
    W = _policy(game, 1)(size)

    def policy_fn(obs, mask):
        return np.where(mask, obs @ W, -np.inf)

    def choose(obs, mask):
        return int(np.argmax(policy_fn(obs[None, :], mask[None, :].astype(bool))[0]))

    seed = 11
    agents = [PolicyAgent(game, policy_fn, information_state=information_state) for _ in range(game.num_players())]
    record = play_game(game, agents, seed)
    want = [a for _, _, actions in record.moves for a in actions]

    vector = VectorGame(game_string, 1, seed=seed, information_state=information_state, threads=1)
    ts, got = vector.reset(), []
    while len(got) < len(want):
        a = choose(ts.observation[0], ts.legal_mask[0])
        got.append(a)
        ts = vector.step(np.array([a]))
    assert got == want

    aec, got = aec_env(game_string, information_state=information_state), []
    aec.reset(seed=seed)
    for _agent in aec.agent_iter():
        obs, _, terminated, _, _ = aec.last()
        a = None if terminated else choose(obs["observation"], obs["action_mask"])
        if a is not None:
            got.append(a)
        aec.step(a)
    assert got == want

    par, got = parallel_env(game_string, information_state=information_state), []
    obs, infos = par.reset(seed=seed)
    while par.agents:
        mover = next(a for a in par.agents if infos[a]["to_move"])
        got.append(choose(obs[mover]["observation"], obs[mover]["action_mask"]))
        obs, _, _, _, infos = par.step({mover: got[-1]})
    assert got == want

    others = [PolicyAgent(game, policy_fn, information_state=information_state) for _ in range(game.num_players() - 1)]
    seat, got = single_agent_env(game_string, 0, others, information_state=information_state), []
    obs, info = seat.reset(seed=seed)
    done = False
    while not done:
        got.append(choose(obs, info["action_mask"]))
        obs, _, done, _, info = seat.step(got[-1])
    mine = [a for who, _, actions in record.moves if who == 0 for a in actions]
    assert got == mine
