"""Compiled strong play under joker rules and the control variate (zwick_ai.analysis.joker.net_play)."""

from __future__ import annotations

import itertools

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401
from zwick_ai import cards, zwicker
from zwick_ai.agents import joker_policies, value_model
from zwick_ai.agents.base import make_agent
from zwick_ai.analysis.joker import net_play
from zwick_ai.eval.selfplay import hand_seeds
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import deals as zwicker_deals
from zwick_ai.zwicker import policy_codes
from zwick_ai.zwicker.features import NFEAT
from zwick_ai.zwicker.layout import KIND_ASK, KIND_BUILD, KIND_CAPTURE, M_CARD, M_KIND, R_SIDE_OF, S_STOCK_TOP

DITH = zwicker.rules("dithmarschen")
#: a micro game with two stage deals after the opening (4 and then 2 cards left in the stock)
MICRO = zwicker.rules(
    "dithmarschen", players=2, ranks="A34", suits="CD", jokers=(15,), hand_size=1, table_size=1, stages=3
)


def models(rules):
    move = value_model.load_model(value_model.shipped_model_path(rules.variant, rules.players, "move")).arrays()
    value = value_model.load_model(value_model.shipped_model_path(rules.variant, rules.players, "value")).arrays()
    return move, value


def random_value_model(seed: int, kind: str = "value", deck: int = 0) -> tuple:
    """Any function of the position keeps the correction's mean at zero: a random perceptron (a
    value model, or an after model for a deck of ``deck`` cards)."""
    rng = np.random.default_rng(seed)
    n = value_model.input_size(kind, deck)
    layers = [(rng.normal(size=(n, 8)), rng.normal(size=8)), (rng.normal(size=(8, 4)), rng.normal(size=4))]
    layers.append((rng.normal(size=(4, 1)), rng.normal(size=1)))
    meta = {"kind": kind, "deck": deck}
    return value_model.ValueModel(np.zeros(n), np.ones(n) * 10, layers, meta).arrays()


def test_greedy_seats_reproduce_the_joker_policy_playouts_with_the_control_variate_on():
    seeds = hand_seeds(3, 40)
    orders, dealers = zwicker_deals.deal_orders(DITH.array(), seeds)
    play = joker_policies.play_seed_of(seeds)
    specs = ["hold", "greedy", "min_points:k=3", "early"]
    ref = joker_policies.play_orders(DITH, orders, dealers, play, specs)
    pol, ks = joker_policies.policy_arrays(specs, 4)
    mm, vm = models(DITH)
    seats = net_play.SeatPlay(np.zeros(4, np.int64), pol, ks)
    out = net_play.play_net_deals(DITH.array(), orders, dealers, play, seats, mm, vm, 4, seeds)
    assert (
        (out.scores == ref.scores).all() and (out.won_side == ref.won_side).all() and (out.jplays == ref.jplays).all()
    )
    assert np.abs(out.corrections).sum() > 0  # corrections were made (and did not disturb the play)


def test_net_seats_play_the_move_models_best_allowed_move():
    """The compiled choice equals the net agent's scores restricted by the rule (asks never)."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    mm, _ = models(DITH)
    net = make_agent("net", game, seed=0)
    R = DITH.array()
    from zwick_ai.zwicker import kernels

    W = kernels.new_workspace()
    checked = 0
    for seed in range(6):
        state = zwicker_bridge.state_from_seed(game, seed)
        while not state.is_terminal() and checked < 400:
            rows, values = net.values(state)
            S = state.engine_state().arr
            for spec in ("greedy", "hold", "early", "build", "last_stage", "min_points:k=3"):
                code, k = joker_policies.policy_arrays([spec], 1)
                ok = joker_policies.allowed_mask(R, S, rows, int(code[0]), int(k[0]), False)
                allowed = np.zeros(len(rows), np.bool_)
                i = net_play.net_choose(R, S, rows.copy(), len(rows), int(code[0]), int(k[0]), mm, W, allowed)
                assert ok[i] and (allowed == ok).all()
                assert values[i] >= values[ok].max() - 1e-9
                checked += 1
            agent = make_agent("net:joker=hold", game, seed=1)
            acts = agent.act(state)
            ok = joker_policies.allowed_mask(R, S, rows, policy_codes.POLICY_HOLD, 0, False)
            chosen = next(j for j, r in enumerate(rows) if zwicker_bridge.move_actions(state, r) == acts)
            assert ok[chosen] and values[chosen] >= values[ok].max() - 1e-9
            zwick_ai.agents.base.apply_decision(state, net.act(state))
    assert checked >= 300


def test_allowed_moves_follow_each_rule():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    R = DITH.array()
    seen = {"forced": 0, "early": 0, "build": 0}
    for seed in range(30):
        state = zwicker_bridge.state_from_seed(game, seed)
        greedy = make_agent("greedy", game, seed=seed)
        while not state.is_terminal():
            rows = state.candidate_rows()
            S = state.engine_state().arr
            joker = np.array(
                [
                    r[M_KIND] != KIND_ASK
                    and (cards.is_valued_joker(int(r[M_CARD])) or cards.is_wild_joker(int(r[M_CARD])))
                    for r in rows
                ]
            )
            capture = np.array([r[M_KIND] == KIND_CAPTURE for r in rows])
            build = np.array([r[M_KIND] == KIND_BUILD for r in rows])
            hold = joker_policies.allowed_mask(R, S, rows, policy_codes.POLICY_HOLD, 0, True)
            if joker.all():
                assert hold.all()
                seen["forced"] += 1
            else:
                assert (hold == ~joker).all()
            early = joker_policies.allowed_mask(R, S, rows, policy_codes.POLICY_EARLY, 0, True)
            if (joker & capture).any():
                assert (early == (joker & capture)).all()
                seen["early"] += 1
            else:
                assert early.all()
            b = joker_policies.allowed_mask(R, S, rows, policy_codes.POLICY_BUILD, 0, True)
            if (joker & build).any():
                assert (b == (joker & build)).all()
                seen["build"] += 1
            assert joker_policies.allowed_mask(R, S, rows, policy_codes.POLICY_GREEDY, 0, True).all()
            zwick_ai.agents.base.apply_decision(state, greedy.act(state))
    assert seen["forced"] > 0 and seen["early"] > 0


def all_orders(rules):
    return np.array(list(itertools.permutations(rules.deck)), np.int64)


@pytest.mark.parametrize(
    ("kind", "cv_model"),
    [(policy_codes.POLICY_GREEDY, "value"), (policy_codes.POLICY_NET, "value"), (policy_codes.POLICY_NET, "after")],
)
def test_the_correction_has_mean_exactly_zero_over_every_deal_of_a_micro_game(kind, cv_model):
    """Every deck order of the micro game (5,040), one dealer and playout seed: the play is a
    function of the order, each stage deal's outcome is uniform given the past, and the
    expectation is exact (at most 4! orders left), so the corrections sum to zero exactly and the
    corrected mean equals the exact mean of the points (with a value model or an after model)."""
    R = MICRO.array()
    orders = all_orders(MICRO)
    n = len(orders)
    dealers = np.zeros(n, np.int64)
    play = np.full(n, 12345, np.int64)
    pol, ks = joker_policies.policy_arrays(["greedy"], 2)
    mm_move = value_model.ValueModel(
        np.zeros(2 * NFEAT),
        np.ones(2 * NFEAT),
        [(np.eye(2 * NFEAT, 4), np.zeros(4)), (np.ones((4, 2)), np.zeros(2)), (np.ones((2, 1)), np.zeros(1))],
        {"kind": "move"},
    ).arrays()
    vm = random_value_model(7, cv_model, len(MICRO.deck))
    out = net_play.play_net_deals(
        R, orders, dealers, play, net_play.SeatPlay(np.full(2, kind, np.int64), pol, ks), mm_move, vm, 3, np.arange(n)
    )
    corr = out.corrections
    assert np.abs(corr).sum() > 1.0  # the model's values do vary with the cards dealt
    assert abs(corr.sum(axis=(1, 2)).mean()) < 1e-9 * max(1.0, np.abs(corr).sum())
    for t in range(corr.shape[1]):
        for s in range(2):
            assert abs(corr[:, t, s].sum()) < 1e-8 * max(1.0, np.abs(corr[:, t, s]).sum())
    margin = out[0][:, 0] - out[0][:, 1]
    corrected = margin - corr[:, :, 0].sum(axis=1)
    assert corrected.mean() == pytest.approx(margin.mean(), abs=1e-9)
    assert not np.allclose(corrected, margin)


def test_expected_values_enumerate_small_stocks_and_sample_large_ones():
    R = MICRO.array()
    order = np.array(MICRO.deck, np.int64)
    from zwick_ai.zwicker import kernels

    W = kernels.new_workspace()
    S = kernels.empty_state(R)
    kernels.start_hand(R, S, order, 0, W)
    vm = random_value_model(2)
    out = np.zeros(2)
    st = np.zeros(1, np.uint64)
    buf, X = kernels.new_buffers()
    # play until the move that deals the next stage
    while True:
        buf, X, m = kernels.gen_moves(R, S, buf, W, X)
        Sc = S.copy()
        kernels.apply_move(R, Sc, buf[0], W)
        if Sc[S_STOCK_TOP] > S[S_STOCK_TOP]:
            break
        S = Sc
    assert net_play.expected_values(R, S, buf[0].copy(), vm, W, 5, st, out) == 24  # 4 cards left: 4! orders
    seeds = hand_seeds(0, 1)
    orders, dealers = zwicker_deals.deal_orders(DITH.array(), seeds)
    S = kernels.empty_state(DITH.array())
    kernels.start_hand(DITH.array(), S, orders[0], dealers[0], W)
    while True:
        buf, X, m = kernels.gen_moves(DITH.array(), S, buf, W, X)
        Sc = S.copy()
        kernels.apply_move(DITH.array(), Sc, buf[0], W)
        if Sc[S_STOCK_TOP] > S[S_STOCK_TOP]:
            break
        S = Sc
    assert net_play.expected_values(DITH.array(), S, buf[0].copy(), models(DITH)[1], W, 5, st, out) == 5


@pytest.mark.parametrize("cv_model", ["value", "after"])
def test_sampled_corrections_average_zero_on_dithmarschen(cv_model):
    seeds = hand_seeds(11, 300)
    orders, dealers = zwicker_deals.deal_orders(DITH.array(), seeds)
    pol, ks = joker_policies.policy_arrays(["greedy"], 4)
    mm, vm = models(DITH)
    if cv_model == "after":
        vm = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, "after")).arrays()
    out = net_play.play_net_deals(
        DITH.array(),
        orders,
        dealers,
        joker_policies.play_seed_of(seeds),
        net_play.SeatPlay(np.ones(4, np.int64), pol, ks),
        mm,
        vm,
        4,
        seeds,
    )
    c = out.corrections.sum(axis=1)[:, 0]
    se = c.std(ddof=1) / np.sqrt(len(c))
    assert se > 0 and abs(c.mean()) < 4 * se


def test_leaf_side_values_read_an_after_model_by_its_input_size():
    """The after network's value of every side of a running Dithmarschen position, against the
    same sum written out in Python: the exact lead plus the network's points still to come."""
    from zwick_ai.mlp import mlp_forward
    from zwick_ai.zwicker import features, kernels
    from zwick_ai.zwicker.features import F_LEAD, F_ZWICK

    R = DITH.array()
    am = value_model.load_model(value_model.shipped_model_path("dithmarschen", 4, "after")).arrays()
    orders, dealers = zwicker_deals.deal_orders(R, hand_seeds(3, 1))
    W = kernels.new_workspace()
    S = kernels.empty_state(R)
    kernels.start_hand(R, S, orders[0], dealers[0], W)
    buf, X = kernels.new_buffers()
    for _ in range(9):  # a few moves in: captures have made the sides' leads differ
        buf, X, m = kernels.gen_moves(R, S, buf, W, X)
        kernels.apply_move(R, S, buf[m - 1].copy(), W)
    x = np.zeros(am[0].shape[0])
    got = value_model.leaf_side_values(R, S, am, x, np.zeros(2))
    for side in range(2):
        seat = min(p for p in range(4) if R[R_SIDE_OF + p] == side)
        features.after_input(R, S, S, seat, x)
        assert got[side] == pytest.approx(x[F_LEAD] + x[F_ZWICK] + mlp_forward(x, am))
    assert got[0] != pytest.approx(got[1])
