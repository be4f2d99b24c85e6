"""VectorGame against the OpenSpiel game, move by move: deals, observations, legal masks, returns,
restarts with the next unused deal seed, illegal actions and the information-state tensor."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.games.zwicker_bridge import seed_actions, state_from_seed
from zwick_ai.vector import VectorGame

GAMES = [
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grupp,players=3)",
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=6,team_size=2)",
    "zwicker(variant=christiansen,players=3,utility=win_loss)",
    "zwicker(variant=dithmarschen,players=2,first_dealer=low_cut,dietze_min_table=4)",
]


def play_against_openspiel(game_string: str, num_games: int, hands: int, information_state: bool = False) -> int:
    """Step ``num_games`` games with seeded random legal actions until ``hands`` hands have ended,
    checking every step against OpenSpiel states dealt by the same seeds; returns the steps made."""
    game = pyspiel.load_game(game_string)
    vector = VectorGame(game_string, num_games=num_games, seed=100, information_state=information_state)
    ts = vector.reset()
    states = [state_from_seed(game, 100 + i) for i in range(num_games)]
    next_seed = 100 + num_games
    rng = np.random.default_rng(0)
    ended = steps = 0
    while ended < hands:
        for i, state in enumerate(states):
            player = state.current_player()
            assert ts.current_player[i] == player
            assert np.flatnonzero(ts.legal_mask[i]).tolist() == state.legal_actions()
            tensor = state.information_state_tensor(player) if information_state else state.observation_tensor(player)
            np.testing.assert_array_equal(ts.observation[i], np.asarray(tensor, np.float32))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask])
        ts = vector.step(actions)
        steps += 1
        for i, state in enumerate(states):
            state.apply_action(int(actions[i]))
            if state.is_terminal():
                assert ts.terminated[i]
                np.testing.assert_array_equal(ts.rewards[i], np.asarray(state.returns(), np.float32))
                assert ts.deal_seed[i] == next_seed
                states[i] = state_from_seed(game, next_seed)
                next_seed += 1
                ended += 1
            else:
                assert not ts.terminated[i] and not ts.rewards[i].any()
    return steps


@pytest.mark.parametrize("game_string", GAMES)
def test_matches_openspiel(game_string: str) -> None:
    assert play_against_openspiel(game_string, num_games=2, hands=2) > 20


def test_information_state_tensor() -> None:
    play_against_openspiel("zwicker(variant=grossenwiehe,players=4)", num_games=2, hands=1, information_state=True)


@pytest.mark.slow
@pytest.mark.parametrize("game_string", GAMES)
def test_matches_openspiel_200_games(game_string: str) -> None:
    play_against_openspiel(game_string, num_games=50, hands=200)


def test_deal_seeds_are_the_tournament_deals() -> None:
    game = pyspiel.load_game("zwicker(variant=classic,players=2,first_dealer=high_cut)")
    vector = VectorGame(str(game), num_games=3, seed=7)
    ts = vector.reset()
    assert ts.deal_seed.tolist() == [7, 8, 9]
    for i in range(3):
        state = game.new_initial_state()
        for action in seed_actions(game, 7 + i):
            state.apply_action(action)
        np.testing.assert_array_equal(vector.state_array(i), state.array)


def test_illegal_action_names_the_game_and_steps_nothing() -> None:
    vector = VectorGame("zwicker(variant=dithmarschen,players=4)", num_games=3, seed=0)
    ts = vector.reset()
    before = [vector.state_array(i) for i in range(3)]
    actions = np.array([np.flatnonzero(mask)[0] for mask in ts.legal_mask])
    bad = int(np.flatnonzero(~ts.legal_mask[1])[0])
    actions[1] = bad
    legal = np.flatnonzero(ts.legal_mask[1]).tolist()
    with pytest.raises(ValueError) as error:
        vector.step(actions)
    assert f"illegal action {bad} in game 1 " in str(error.value) and str(error.value).endswith(f"legal: {legal}")
    for i in range(3):
        np.testing.assert_array_equal(vector.state_array(i), before[i])


def test_random_opponents_leave_only_the_learner_seat() -> None:
    vector = VectorGame("zwicker(variant=dithmarschen,players=2)", num_games=4, seed=3, opponents={1: "random"})
    ts = vector.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(300):
        assert (ts.current_player == 0).all()
        ts = vector.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask]))
        ended += int(ts.terminated.sum())
        assert (ts.rewards.sum(axis=1) == 0).all()
    assert ended > 0
    with pytest.raises(ValueError, match="unknown compiled opponent"):
        VectorGame("zwicker(variant=dithmarschen,players=2)", num_games=1, opponents={1: "strong"})
