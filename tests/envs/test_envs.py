"""The Gymnasium and PettingZoo environments: the libraries' own checkers on every game and
variant, seeded deals equal to tournament deals, and episodes equal to ``play_game``."""

import warnings

import numpy as np
import pytest

gymnasium = pytest.importorskip("gymnasium", reason='the RL environments need the "rl" extra: pip install -e ".[rl]"')
pettingzoo = pytest.importorskip("pettingzoo", reason='the RL environments need the "rl" extra: pip install -e ".[rl]"')

from gymnasium.utils.env_checker import check_env  # noqa: E402
from pettingzoo.test import api_test  # noqa: E402

from zwick_ai.agents import make_agent  # noqa: E402
from zwick_ai.envs import aec_env, load, single_agent_env  # noqa: E402
from zwick_ai.eval.match import deal, play_game  # noqa: E402

GAMES = [
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=classic)",
    "zwicker(variant=grupp)",
    "zwicker(variant=dithmarschen)",
    "zwicker(variant=grossenwiehe)",
    "zwicker(variant=grossenwiehe,players=6)",
    "zwicker(variant=christiansen)",
    "zwikken(variant=historic)",
    "zwikken(variant=parlett)",
    "zwikken(variant=modern)",
    "zwicken",
]


@pytest.mark.parametrize("game_string", GAMES)
def test_pettingzoo_api_test(game_string):
    with warnings.catch_warnings():
        # PettingZoo suggests Box observations; masked games observe a Dict, as its classic games do
        warnings.filterwarnings("ignore", message="Observation space for each agent probably should be")
        warnings.filterwarnings("ignore", message="Observation is not a NumPy array")
        api_test(aec_env(game_string), num_cycles=400, verbose_progress=False)


@pytest.mark.parametrize("game_string", GAMES)
def test_gymnasium_check_env(game_string):
    n = load(game_string).num_players()
    env = single_agent_env(game_string, seat=n - 1, opponents=["greedy"] * (n - 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    bad = [str(w.message) for w in caught if "render modes" not in str(w.message)]  # no spec: nothing to test
    assert bad == []


@pytest.mark.parametrize("game_string", ["zwicker(variant=dithmarschen)", "zwikken(variant=parlett)"])
def test_observation_is_the_information_state_tensor_of_the_seeded_deal(game_string):
    env = single_agent_env(game_string, seat=1)
    obs, info = env.reset(seed=11)
    state = env.unwrapped.episode.state
    assert state.current_player() == 1
    np.testing.assert_array_equal(obs, np.asarray(state.information_state_tensor(1), dtype=np.float32))
    np.testing.assert_array_equal(np.flatnonzero(info["action_mask"]), state.legal_actions())
    # the seeded deal is deal 11 of a tournament: the env's history continues match.deal's
    opening = deal(load(game_string), 11).history()
    assert state.history()[: len(opening)] == opening


def test_seeded_resets_give_the_same_deal_and_other_seeds_another():
    env = single_agent_env("zwicker(variant=classic,players=2)")
    a, _ = env.reset(seed=3)
    b, _ = env.reset(seed=3)
    c, _ = env.reset(seed=4)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # unseeded resets continue from the seeded generator: reproducible too
    env.reset(seed=9)
    first = [env.reset()[1]["deal_seed"] for _ in range(3)]
    env.reset(seed=9)
    assert [env.reset()[1]["deal_seed"] for _ in range(3)] == first


def _play_seat_through_env(env, agent, deal_seed):
    """Let a registry agent play the env's seat, one sub-action per step."""
    obs, info = env.reset(seed=deal_seed)
    seat = env.unwrapped.seat
    n = env.unwrapped.game.num_players()
    from zwick_ai.eval.match import default_agent_seeds

    agent.reset(default_agent_seeds(deal_seed, n)[seat])
    total, done, plan = 0.0, False, []
    while not done:
        if not plan:
            plan = list(agent.act(env.unwrapped.episode.state))
        a = plan.pop(0)
        assert info["action_mask"][a] == 1
        obs, reward, done, trunc, info = env.step(a)
        total += reward
    return total, info


@pytest.mark.parametrize(
    "game_string,specs",
    [
        ("zwicker(variant=dithmarschen)", ["greedy", "random", "greedy", "random"]),
        ("zwicker(variant=classic,players=2)", ["random", "greedy"]),
        ("zwicken", ["greedy", "random", "greedy", "random"]),
    ],
)
def test_an_agent_in_the_env_plays_the_game_play_game_records(game_string, specs):
    game = load(game_string)
    seat = 0
    env = single_agent_env(game_string, seat=seat, opponents=specs[1:])
    for deal_seed in (0, 5):
        reward, info = _play_seat_through_env(env, make_agent(specs[0], game), deal_seed)
        rec = play_game(game, [make_agent(s, game) for s in specs], deal_seed=deal_seed, labels=False)
        assert info["returns"] == rec.returns
        assert reward == rec.returns[seat]


def test_illegal_actions_lose_or_raise():
    env = single_agent_env("zwikken(variant=parlett,players=3)")
    _, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and info["illegal_action"] and reward == env.unwrapped.game.min_utility()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(illegal)
    strict = single_agent_env("zwikken(variant=parlett,players=3)", illegal_action="raise")
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="not legal"):
        strict.step(illegal)


def test_bad_arguments_are_refused_with_what_is_valid():
    with pytest.raises(ValueError, match="give 3 opponent specs"):
        single_agent_env("zwicker(variant=dithmarschen)", opponents=["random"])
    with pytest.raises(ValueError, match="seat must be 0..3"):
        single_agent_env("zwicker(variant=dithmarschen)", seat=4)
    with pytest.raises(ValueError, match="unknown agent"):
        single_agent_env("zwicken", opponents=["nobody", "random", "random"])
    with pytest.raises(ValueError, match="not a zwick_ai game"):
        aec_env("tic_tac_toe")


def test_aec_random_episode_ends_with_the_game_returns():
    env = aec_env("zwicker(variant=dithmarschen)")
    env.reset(seed=2)
    rng = np.random.default_rng(0)
    steps = 0
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        assert env.unwrapped.episode.state.current_player() == int(agent.split("_")[1])
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    returns = env.unwrapped.episode.returns()
    assert steps > 40 and sum(returns) == 0 and returns[0] == returns[2]  # partners share the return
