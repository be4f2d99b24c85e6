"""VectorGame against the OpenSpiel game, move by move: deals, observations, legal masks, returns,
restarts with the next unused deal seed, illegal actions and the information-state tensor; for
every Zwicker variant and both trick games (whose chance outcomes follow the tournaments' deal
seeds, :func:`zwick_ai.games.seeded_deals.chance_action`)."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import zwicker
from zwick_ai.games.seeded_deals import chance_action, deal
from zwick_ai.games.zwicker_bridge import move_actions, seed_actions, state_from_seed
from zwick_ai.vector import VectorGame

#: every Zwicker variant at its default players, and the option sets above
ALL_VARIANTS: list[str] = []
TRICK_GAMES = [
    "zwikken(variant=historic)",
    "zwikken(variant=parlett)",
    "zwikken(variant=modern,players=5)",
    "zwicken(players=4)",
    "zwicken(players=3)",
]
GAMES = [
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grupp,players=3)",
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=6,team_size=2)",
    "zwicker(variant=christiansen,players=3,utility=win_loss)",
    "zwicker(variant=dithmarschen,players=2,first_dealer=low_cut,dietze_min_table=4)",
]


ALL_VARIANTS += [f"zwicker(variant={v})" for v in zwicker.VARIANTS] + GAMES


def dealt(game: pyspiel.Game, seed: int) -> pyspiel.State:
    """The OpenSpiel state of deal ``seed`` at its first decision, as tournaments deal it."""
    return deal(game, seed)


def settle(state: pyspiel.State, seed: int) -> None:
    """Resolve chance nodes as tournaments do (the trick games' draws and turn-ups)."""
    while state.is_chance_node():
        state.apply_action(chance_action(state, seed))


def play_against_openspiel(game_string: str, num_games: int, hands: int, information_state: bool = False) -> int:
    """Step ``num_games`` games with seeded random legal actions until ``hands`` hands have ended,
    checking every step against OpenSpiel states dealt by the same seeds; returns the steps made."""
    game = pyspiel.load_game(game_string)
    vector = VectorGame(game_string, num_games=num_games, seed=100, information_state=information_state)
    ts = vector.reset()
    states = [dealt(game, 100 + i) for i in range(num_games)]
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
        next_seed_of = ts.deal_seed.copy()  # the deal each game plays before this step
        ts = vector.step(actions)
        steps += 1
        for i, state in enumerate(states):
            state.apply_action(int(actions[i]))
            settle(state, int(next_seed_of[i]))
            if state.is_terminal():
                assert ts.terminated[i]
                np.testing.assert_array_equal(ts.rewards[i], np.asarray(state.returns(), np.float32))
                assert ts.deal_seed[i] == next_seed
                states[i] = dealt(game, next_seed)
                next_seed += 1
                ended += 1
            else:
                assert not ts.terminated[i] and not ts.rewards[i].any()
    return steps


@pytest.mark.parametrize("game_string", GAMES + TRICK_GAMES)
def test_matches_openspiel(game_string: str) -> None:
    assert play_against_openspiel(game_string, num_games=2, hands=2) >= 4


@pytest.mark.parametrize("game_string", ["zwicker(variant=grossenwiehe,players=4)", "zwicken(players=4)"])
def test_information_state_tensor(game_string: str) -> None:
    play_against_openspiel(game_string, num_games=2, hands=1, information_state=True)


@pytest.mark.slow
@pytest.mark.parametrize("game_string", ALL_VARIANTS + TRICK_GAMES)
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


def test_reset_with_a_seed_deals_as_a_game_made_with_it() -> None:
    game = "zwicker(variant=dithmarschen,players=2,ranks=9TJQKA)"
    moved = VectorGame(game, num_games=4, seed=1, opponents={1: "greedy"})
    moved.step(_last_legal(moved.reset().legal_mask))
    fresh = VectorGame(game, num_games=4, seed=9, opponents={1: "greedy"})
    a, b = moved.reset(seed=9), fresh.reset()
    assert a.deal_seed.tolist() == [9, 10, 11, 12] and moved.seed == 9
    ended = 0
    for _ in range(60):  # the greedy seat's tie-breaks follow the seed too
        np.testing.assert_array_equal(a.observation, b.observation)
        np.testing.assert_array_equal(a.legal_mask, b.legal_mask)
        np.testing.assert_array_equal(a.rewards, b.rewards)
        ended += int(a.terminated.sum())
        a, b = moved.step(_last_legal(a.legal_mask)), fresh.step(_last_legal(b.legal_mask))
    assert ended > 0


def _last_legal(mask: np.ndarray) -> np.ndarray:
    """The highest legal action of every game."""
    return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


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


def test_greedy_opponents_play_the_engines_greedy_moves() -> None:
    """Replays each game's logged moves on an OpenSpiel state dealt by its seed: every move of the
    compiled greedy seats is a move of the best greedy value, and the replay ends in the same state."""
    from zwick_ai.zwicker import kernels as engine_kernels
    from zwick_ai.zwicker.history import L_SEAT, LOGW, X_LOG, X_NPLY, X_PLEN, X_PREFIX, XB, logged_row_into

    game_string = "zwicker(variant=dithmarschen,players=4)"
    game = pyspiel.load_game(game_string)
    vector = VectorGame(game_string, num_games=6, seed=11, opponents={1: "greedy", 2: "greedy", 3: "greedy"})
    ts = vector.reset()
    rng = np.random.default_rng(2)
    for _ in range(25):
        assert (ts.current_player == 0).all()
        ts = vector.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask]))
    R = game.rules.array()
    greedy_moves = 0
    for i in range(vector.num_games):
        a = vector.state_array(i)
        state = state_from_seed(game, int(ts.deal_seed[i]))
        for t in range(int(a[XB + X_NPLY])):
            row = logged_row_into(a[XB:], t, np.zeros(8, np.int64))
            if a[XB + X_LOG + t * LOGW + L_SEAT] != 0:
                S = state.engine_state().arr
                moves = engine_kernels.legal_moves(R, S, np.zeros(engine_kernels.WS_SIZE, np.int64))
                values = [engine_kernels.greedy_value(R, S, r) for r in moves]
                assert engine_kernels.greedy_value(R, S, row) == pytest.approx(max(values))
                greedy_moves += 1
            for action in move_actions(state, row):
                state.apply_action(action)
        for k in range(int(a[XB + X_PLEN])):
            state.apply_action(int(a[XB + X_PREFIX + k]))
        np.testing.assert_array_equal(state.array, a)
    assert greedy_moves > 20


@pytest.mark.parametrize("spec", ["net", "net:model=after"])
def test_net_opponents_decide_like_the_net_agent(spec: str) -> None:
    """Replays every hand the compiled ``net`` seats played (snapshots taken before each step, so
    the hands that ended count too) on OpenSpiel states dealt by their seeds: at every decision of
    a net seat the Python ``net`` agent scores the moves, and the move played is one of its best
    (the only one when the best is not tied: then it is the agent's own choice); the replay ends in
    the vector's state."""
    from zwick_ai.agents import make_agent
    from zwick_ai.zwicker.history import L_SEAT, LOGW, X_LOG, X_NPLY, X_PLEN, X_PREFIX, XB, logged_row_into
    from zwick_ai.zwicker.model_scores import TIE

    game_string = "zwicker(variant=dithmarschen,players=4)"
    game = pyspiel.load_game(game_string)
    agent = make_agent(spec, game, seed=0)
    vector = VectorGame(game_string, num_games=8, seed=21, opponents={1: spec, 2: spec, 3: spec})
    ts = vector.reset()
    rng = np.random.default_rng(4)
    hands = []  # (deal seed, state array) of every hand as far as the vector played it
    for _ in range(50):
        assert (ts.current_player == 0).all()
        before = [(int(ts.deal_seed[i]), vector.state_array(i)) for i in range(vector.num_games)]
        ts = vector.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask]))
        hands += [before[i] for i in np.flatnonzero(ts.terminated)]
    hands += [(int(ts.deal_seed[i]), vector.state_array(i)) for i in range(vector.num_games)]
    decisions = untied = 0
    for seed, a in hands:
        state = state_from_seed(game, seed)
        for t in range(int(a[XB + X_NPLY])):
            row = logged_row_into(a[XB:], t, np.zeros(8, np.int64))
            played = move_actions(state, row)
            if a[XB + X_LOG + t * LOGW + L_SEAT] != 0:
                rows, values = agent.values(state)
                best = np.flatnonzero(values >= values.max() - TIE)
                assert played in [move_actions(state, rows[k]) for k in best]
                if len(best) == 1:
                    assert played == agent.act(state)
                    untied += 1
                decisions += 1
            for action in played:
                state.apply_action(action)
        for k in range(int(a[XB + X_PLEN])):
            state.apply_action(int(a[XB + X_PREFIX + k]))
        np.testing.assert_array_equal(state.array, a)
    print(f"{decisions} decisions of the net seats, {untied} with one best move, {len(hands)} hands")
    assert decisions >= 300 and untied >= decisions // 4 and len(hands) > vector.num_games


def test_net_opponent_needs_shipped_weights() -> None:
    with pytest.raises(ValueError, match="no trained after model for classic with 3 players"):
        VectorGame("zwicker(variant=classic,players=3)", num_games=1, opponents={1: "net:model=after"})


def test_trick_game_random_opponents() -> None:
    vector = VectorGame("zwicken(players=4)", num_games=8, seed=5, opponents={1: "random", 2: "random", 3: "random"})
    ts = vector.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(60):
        assert (ts.current_player == 0).all()
        ts = vector.step(np.array([rng.choice(np.flatnonzero(mask)) for mask in ts.legal_mask]))
        ended += int(ts.terminated.sum())
    assert ended > 8
    with pytest.raises(ValueError, match="unknown compiled opponent 'greedy' for zwicken"):
        VectorGame("zwicken(players=4)", num_games=1, opponents={1: "greedy"})


@pytest.mark.parametrize(
    ("game_string", "opponents"),
    [
        ("zwicker(variant=dithmarschen,players=4)", {1: "greedy", 2: "random"}),
        ("zwicker(variant=dithmarschen,players=4)", {1: "net", 2: "net:model=after", 3: "net"}),
        ("zwikken(variant=parlett)", {1: "random", 2: "random"}),
    ],
)
def test_play_does_not_depend_on_the_thread_count(game_string: str, opponents: dict[int, str]) -> None:
    import numba

    threads = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
    one = VectorGame(game_string, num_games=9, seed=4, opponents=opponents, threads=1)
    many = VectorGame(game_string, num_games=9, seed=4, opponents=opponents, threads=threads)
    a, b = one.reset(), many.reset()
    rng = np.random.default_rng(5)
    for _ in range(60):
        for field in ("current_player", "observation", "legal_mask", "deal_seed", "rewards", "terminated"):
            np.testing.assert_array_equal(getattr(a, field), getattr(b, field))
        actions = np.array([rng.choice(np.flatnonzero(mask)) for mask in a.legal_mask])
        a, b = one.step(actions), many.step(actions)
