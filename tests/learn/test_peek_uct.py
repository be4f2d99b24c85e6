"""The reference ceilings ``peek-uct`` and ``cheat-uct``: peek-uct's worlds keep every player's true
hand (and everything else but the undealt stock's order), cross-checked against the engine's view
of the true state; cheat-uct's world is the true state; both play legal whole moves through whole
games of every variant."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401
from tests.agent_play import greedy_turns, play_whole_game
from zwick_ai import zwicker
from zwick_ai.agents import zwicker_search
from zwick_ai.agents.base import make_agent
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker.layout import S_STOCK, S_STOCK_LEN, S_STOCK_TOP

GAMES = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=classic,players=2)",
    "zwicker(variant=grupp,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=christiansen,players=3)",
]


def _engine_view(rules, arr: np.ndarray) -> dict:
    """What the engine's public functions say of a position: hands, table, cards won, score, stock."""
    s = zwicker.ZwickerState(rules, np.asarray(arr, np.int32).copy())
    return {
        "hands": [zwicker.hand(s, q) for q in range(rules.players)],
        "table": zwicker.table(s),
        "won": zwicker.won(s),
        "score": zwicker.score(s),
        "to_move": zwicker.to_move(s),
        "stock": zwicker.stock(s),
    }


def test_peek_worlds_keep_the_true_hands_and_shuffle_only_the_stock():
    """The compiled draw of every peek-uct iteration: the engine sees the true hands, table, cards
    won and score in every world; only the order of the undealt stock changes (and it does)."""
    _, state = greedy_turns(3, 3)
    truth = state.engine_state()
    real = zwicker_search.DecisionSetup(state, np.random.default_rng(0)).real
    assert np.array_equal(real, truth.arr[: len(real)])  # what the agent reads is the engine's full state
    top, length = int(real[S_STOCK_TOP]), int(real[S_STOCK_LEN])
    assert length - top >= 5
    want = _engine_view(truth.rules, truth.arr)
    outside = np.ones(len(real), bool)
    outside[S_STOCK + top : S_STOCK + length] = False
    zwicker_search._seed(11)
    world = real.copy()
    orders, first_cards = set(), set()
    for _ in range(200):
        zwicker_search.peek_draw(real, world)
        got = _engine_view(truth.rules, world)
        assert {k: v for k, v in got.items() if k != "stock"} == {k: v for k, v in want.items() if k != "stock"}
        assert sorted(got["stock"]) == sorted(want["stock"])
        assert np.array_equal(world[outside], real[outside])  # nothing else moves
        orders.add(tuple(got["stock"]))
        first_cards.add(got["stock"][0])
    assert len(orders) > 150  # a fresh order nearly every time
    assert len(first_cards) == length - top  # every stock card comes first sometimes (uniform shuffle)
    # the Python draw of the PIMC mode keeps the same things
    pworld = zwicker_search.peek_world(real, np.random.default_rng(5))
    assert np.array_equal(pworld[outside], real[outside])


def _root(state, spec: str, seed: int) -> tuple[np.ndarray, np.ndarray]:
    params = {"iters": 300, "time": 0.0, "c": 0.7, "rollout": "random", "worlds": 0}
    setup = zwicker_search.DecisionSetup(state, np.random.default_rng(seed))
    if spec == "peek":
        _, visits, mean = zwicker_search.peek_root(setup, params)
    else:
        _, visits, mean = zwicker_search.root_search(state, params, np.random.default_rng(seed), cheat=True)
    return visits, mean


def _empty_stock_state():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 8)
    greedy = make_agent("greedy", game, seed=1)
    while True:
        S = state.engine_state().arr
        if S[S_STOCK_TOP] >= S[S_STOCK_LEN] and len(state.candidate_rows()) > 1:
            return state
        for action in greedy.act(state):
            state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
        assert not state.is_terminal()


def test_peek_search_is_cheat_uct_once_the_stock_is_empty_and_differs_before():
    """With nothing left to shuffle, peek-uct's worlds are the true state, so its search equals
    cheat-uct's (same seed, same budget) visit for visit; with a stock left they differ."""
    state = _empty_stock_state()
    peek, cheat = _root(state, "peek", 4), _root(state, "cheat", 4)
    assert np.array_equal(peek[0], cheat[0]) and np.allclose(peek[1], cheat[1])
    _, early = greedy_turns(5, 2)
    assert not np.array_equal(_root(early, "peek", 4)[0], _root(early, "cheat", 4)[0])


def test_cheat_uct_world_is_the_true_state():
    """cheat-uct searches the engine's full state, every hand and the stock's order as they are."""
    _, state = greedy_turns(6, 3)
    truth = state.engine_state()
    setup = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    assert _engine_view(truth.rules, setup.real) == _engine_view(truth.rules, truth.arr)
    assert np.array_equal(setup.real, truth.arr[: len(setup.real)])


@pytest.mark.parametrize("spec", GAMES)
def test_peek_and_cheat_uct_play_legal_whole_games(spec):
    game = pyspiel.load_game(spec)
    state, decisions = play_whole_game(game, ["peek-uct:iters=40", "cheat-uct:iters=40"], seed=2)
    assert decisions > 10
    assert len(state.returns()) == game.num_players()


def test_specs_budgets_and_the_pimc_mode():
    game, state = greedy_turns(4, 3)
    legal = {tuple(zwicker_bridge.move_actions(state, row)) for row in state.candidate_rows()}
    for spec in ("peek-uct:time=0.02", "peek-uct:iters=50", "peek-uct:worlds=4,iters=30", "cheat-uct:time=0.02"):
        assert tuple(make_agent(spec, game, seed=2).act(state)) in legal, spec
    assert make_agent("peek-uct:iters=80", game, seed=3).act(state) == make_agent("peek-uct:iters=80", game, 3).act(
        state
    )
    for bad in ("peek-uct:worlds=-1", "peek-uct:worlds=3,iters=0", "peek-uct:c=-1"):
        with pytest.raises(ValueError):
            make_agent(bad, game)
    with pytest.raises(ValueError, match="zwicker"):
        make_agent("peek-uct", pyspiel.load_game("zwikken"))
    assert {"peek-uct", "cheat-uct"} <= {info.name for info in zwick_ai.agents.registered()}
