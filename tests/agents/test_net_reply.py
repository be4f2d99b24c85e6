"""``net:reply=K``: the after model's one-answer look-ahead. Where nothing is hidden (two players,
stock empty: the other hand is the unseen cards) every drawn world is the truth, so the compiled
values must equal a plain recomputation from the true position; elsewhere only the after model's
best moves get values, and the agent plays whole games."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import net as net_agent
from zwick_ai.agents import value_model
from zwick_ai.agents.base import make_agent
from zwick_ai.learn import model_files
from zwick_ai.zwicker import engine, kernels
from zwick_ai.zwicker.features import CARD_BLOCK, NFEAT, side_diff
from zwick_ai.zwicker.layout import PHASE_OVER, R_NSIDES, R_SIDE_OF, S_PHASE, S_TO_MOVE
from zwick_ai.zwicker.model_scores import after_values


def random_after_model(path, deck: int, seed: int = 3) -> str:
    rng = np.random.default_rng(seed)
    n = NFEAT + CARD_BLOCK * deck
    layers = [(rng.normal(size=(n, 16)) * 0.3, rng.normal(size=16)), (rng.normal(size=(16, 8)), rng.normal(size=8))]
    layers.append((rng.normal(size=(8, 1)), rng.normal(size=1)))
    model = value_model.ValueModel(np.zeros(n), np.ones(n), layers, {"kind": "after", "deck": deck})
    model_files.save_model(model, path)
    return str(path)


def plain_two_ply(R, S, rows, first, m, top):
    """The look-ahead written out on the true position: each of the ``top`` best moves, the next
    player's best answer by the after model, the mover's side's value after it."""
    p = S[S_TO_MOVE]
    side = R[R_SIDE_OF + p]
    W = kernels.new_workspace()
    out = np.full(len(rows), -np.inf)
    for i in np.argsort(-first, kind="stable")[:top]:
        after = S.copy()
        kernels.apply_move(R, after, rows[i], W)
        if after[S_PHASE] == PHASE_OVER:
            out[i] = side_diff(kernels.score(R, after).astype(np.float64), side, R[R_NSIDES])
            continue
        buf, scratch = kernels.new_buffers()
        buf, scratch, n = kernels.gen_moves(R, after, buf, W, scratch)
        best = after_values(R, after, buf, n, m, W)[:n].max()
        out[i] = best if R[R_SIDE_OF + after[S_TO_MOVE]] == side else -best
    return out


def test_with_nothing_hidden_the_look_ahead_is_the_true_positions(tmp_path):
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    path = random_after_model(tmp_path / "after.npz", game.rules.deck_size)
    agent = make_agent(f"net:model={path},reply=3", game, seed=4)
    checked = 0
    for seed in range(6):
        state = game.new_initial_state()
        rng = np.random.default_rng(seed)
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
                continue
            decision = state.decision()
            if not engine.stock(state.engine_state()) and len(decision.candidates) > 1 and not state.move_prefix():
                rows, first = agent.values(state)
                setup_values = net_agent.reply_values(
                    *_setup_arguments(state, agent),
                    rows,
                    first,
                    net_agent.REPLY_TOP,
                    3,
                    agent.model,
                )
                want = plain_two_ply(
                    decision.rules_array, decision.position, rows, first, agent.model, net_agent.REPLY_TOP
                )
                finite = np.isfinite(want)
                assert np.array_equal(finite, np.isfinite(setup_values))
                np.testing.assert_allclose(setup_values[finite], want[finite], rtol=1e-9, atol=1e-9)
                checked += 1
            for a in agent.act(state):
                state.apply_action(a)
    assert checked >= 10


def _setup_arguments(state, agent):
    from zwick_ai.agents import zwicker_search

    s = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    return s.worlds, meta


def test_only_the_best_moves_are_looked_at_and_games_finish():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    agent = make_agent("net:model=after,reply=2", game, seed=1)
    state = game.new_initial_state()
    rng = np.random.default_rng(7)
    looked = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        rows, first = agent.values(state)
        if looked < 5 and len(rows) > net_agent.REPLY_TOP:
            v = net_agent.reply_values(
                *_setup_arguments(state, agent),
                rows,
                first,
                net_agent.REPLY_TOP,
                2,
                agent.model,
            )
            best = set(np.argsort(-first, kind="stable")[: net_agent.REPLY_TOP])
            assert {i for i in range(len(v)) if np.isfinite(v[i])} <= best
            looked += 1
        for a in agent.act(state):
            state.apply_action(a)
    assert looked == 5 and state.returns()


def test_reply_is_checked(tmp_path):
    two = pyspiel.load_game("zwicker(variant=classic,players=2)")
    three = pyspiel.load_game("zwicker(variant=christiansen,players=3)")
    with pytest.raises(ValueError, match="needs an after model"):
        make_agent("net:reply=4", two)
    path = random_after_model(tmp_path / "after.npz", three.rules.deck_size)
    with pytest.raises(ValueError, match="two sides"):
        make_agent(f"net:model={path},reply=4", three)
    with pytest.raises(ValueError, match="reply=-1 is not valid"):
        make_agent("net:model=after,reply=-1", two)
