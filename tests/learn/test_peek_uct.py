"""``peek-uct``: its worlds keep every player's true hand (and everything else but the undealt
stock's order), and it plays legal whole moves."""

from __future__ import annotations

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401
from zwick_ai.agents import zwicker_search as ZS
from zwick_ai.agents.base import make_agent
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker.layout import S_STOCK, S_STOCK_LEN, S_STOCK_TOP


def _state(seed: int = 3):
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, seed)
    greedy = make_agent("greedy", game, seed=1)
    for _ in range(3):  # a few turns in: some cards played, the stock partly dealt
        for action in greedy.act(state):
            state.apply_action(action)
        while state.is_chance_node():
            state.apply_action(state.legal_actions()[0])
    return game, state


def test_peek_worlds_keep_the_true_hands_and_shuffle_only_the_stock():
    _, state = _state()
    real = state.engine_state().arr[: len(ZS.DecisionSetup(state, np.random.default_rng(0)).real)].copy()
    top, length = int(real[S_STOCK_TOP]), int(real[S_STOCK_LEN])
    assert length - top >= 2
    rng = np.random.default_rng(5)
    orders = set()
    for _ in range(20):
        world = ZS.peek_world(real, rng)
        outside = np.ones(len(real), bool)
        outside[S_STOCK + top : S_STOCK + length] = False
        assert np.array_equal(world[outside], real[outside])  # hands, table, dealt cards: the truth
        assert sorted(world[S_STOCK + top : S_STOCK + length]) == sorted(real[S_STOCK + top : S_STOCK + length])
        orders.add(tuple(world[S_STOCK + top : S_STOCK + length]))
    assert len(orders) > 1  # the stock's order is drawn afresh


def test_peek_uct_plays_a_legal_whole_move():
    game, state = _state(4)
    agent = make_agent("peek-uct:worlds=4,iters=30", game, seed=2)
    actions = agent.act(state)
    legal = {tuple(zwicker_bridge.move_actions(state, row)) for row in state.candidate_rows()}
    assert tuple(actions) in legal
