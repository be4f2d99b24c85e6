"""The ``stakes`` abstraction of Zwicker (zwick_ai.agents.cfr.zwicker_abstraction): its keys
never read a card the player cannot see, keep apart what the variant's scoring keeps apart (a
20-point joker capture and a 3-point one), scale to the variant's card total and largest build,
and map every abstract action to the move a slow Python grouping picks; absent actions are masked
in training and in play."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401
from zwick_ai import zwicker
from zwick_ai.agents.cfr import Policy
from zwick_ai.agents.cfr.zwicker_abstraction import (
    COARSE,
    STAKES,
    STAKES_CLASSES,
    build_bucket,
    card_total,
    present_strategy,
    stakes_bucket,
    stakes_class,
    stakes_features,
    zwicker_decision,
)
from zwick_ai.learn.cfr import MCCFRSolver, save_policy
from zwick_ai.learn.cfr.zwicker_mccfr import regret_strategy
from zwick_ai.zwicker import arrays, kernels
from zwick_ai.zwicker.layout import (
    KIND_CAPTURE,
    KIND_TRAIL,
    M_CARD,
    M_KIND,
    M_MASK,
    M_OWNER,
    M_TARGET,
    M_VALUE,
    S_TO_MOVE,
)

from .test_cfr_zwicker import mid_hand_states, swap_hidden

VARIANTS = ("classic", "grupp", "dithmarschen", "grossenwiehe", "christiansen")


def stakes_of(R, S):
    moves = kernels.legal_moves(R, S, kernels.new_workspace())
    out = np.zeros(max(len(moves), STAKES_CLASSES), np.int64)
    key, m = zwicker_decision(R, S, moves, len(moves), STAKES, out)
    return int(key), moves, out[:m].copy()


def capture_points(R, S, mv) -> int:
    """The points a capture takes, the played card included, by a plain walk over the units."""
    pts = int(arrays.points(R, int(mv[M_CARD])))
    for i, a in enumerate(arrays.unit_anchors(S)):
        if (int(mv[M_MASK]) >> i) & 1:
            pts += int(arrays.unit_points(R, S, int(a)))
    return pts


@pytest.mark.parametrize("variant", VARIANTS)
def test_stakes_keys_forget_hidden_cards(variant):
    players = zwicker.rules(variant).players
    same = 0
    for R, S in mid_hand_states(variant, players, 30, 25):
        p = int(S[S_TO_MOVE])
        key, moves, idx = stakes_of(R, S)
        for q in range(players):
            if q == p:
                continue
            T = swap_hidden(R, S, q)  # another seat's card against the stock: hidden from p
            if T is not None:
                k2, moves2, idx2 = stakes_of(R, T)
                # the legal moves themselves may depend on a partner's hand (a build for partner
                # needs his duty to hold), and the key holds the classes present; where those
                # are the same, so is the key, and where the moves are, every action's move
                if np.array_equal(idx2 >= 0, idx >= 0):
                    assert k2 == key
                    same += 1
                if np.array_equal(moves2, moves):
                    assert np.array_equal(idx2, idx)
    assert same >= 20


@pytest.mark.parametrize("variant", ("classic", "dithmarschen", "grossenwiehe"))
def test_a_stakes_key_fixes_its_abstract_actions(variant):
    """An information set fixes the actions available in it: two decisions with one key have the
    same abstract actions present (else a class present at few of the key's visits would be
    averaged down to the share of visits where it was present)."""
    players = zwicker.rules(variant).players
    present: dict[int, tuple[bool, ...]] = {}
    features: dict[int, set[tuple[bool, ...]]] = {}
    for R, S in mid_hand_states(variant, players, 300, 30):
        key, _, idx = stakes_of(R, S)
        mask = tuple((idx >= 0).tolist())
        assert present.setdefault(key, mask) == mask
        features.setdefault(int(stakes_features(R, S, card_total(R))), set()).add(mask)
    # the check could fail: the same features meet different classes present
    assert any(len(masks) > 1 for masks in features.values())


def test_a_twenty_point_joker_capture_and_a_three_point_capture_differ():
    """Großenwiehe: X30 scores 20 of the 80 points, a Ten 3. Every capture taking 20 points or more
    falls in another abstract action than every capture taking 1 to 3 (``coarse`` puts both in
    its one 3+ bucket)."""
    R = zwicker.rules("grossenwiehe", players=4).array()
    total = card_total(R)
    assert total == 80 and stakes_bucket(20, total) != stakes_bucket(3, total)
    big: set[int] = set()
    small: set[int] = set()
    for R, S in mid_hand_states("grossenwiehe", 4, 400, 30):
        for mv in kernels.legal_moves(R, S, kernels.new_workspace()):
            if mv[M_KIND] != KIND_CAPTURE:
                continue
            pts = capture_points(R, S, mv)
            c = int(stakes_class(R, S, mv, total))
            (big if pts >= 20 else small if 1 <= pts <= 3 else set()).add(c)
    assert big and small and not (big & small)


def test_stakes_scale_to_the_variant():
    totals = {v: int(card_total(zwicker.rules(v).array())) for v in VARIANTS}
    assert totals == {"classic": 20, "grupp": 20, "dithmarschen": 27, "grossenwiehe": 80, "christiansen": 31}
    classic, gw = zwicker.rules("classic").array(), zwicker.rules("grossenwiehe").array()
    # builds in quarters of the largest build: 14 in classic, 30 in Großenwiehe
    assert [int(build_bucket(classic, v)) for v in (1, 4, 5, 8, 11, 12, 14)] == [0, 0, 1, 2, 2, 3, 3]
    assert [int(build_bucket(gw, v)) for v in (7, 8, 9, 15, 16, 23, 24, 30)] == [0, 0, 1, 1, 2, 2, 3, 3]
    # 2 points are 10% of classic's cards but 2.5% of Großenwiehe's
    assert int(stakes_bucket(2, 20)) == 2 and int(stakes_bucket(2, 80)) == 1


def test_a_trailed_joker_is_apart_from_a_trailed_ace():
    R = zwicker.rules("dithmarschen", players=4).array()
    total = card_total(R)
    jokers, aces = set(), set()
    for R, S in mid_hand_states("dithmarschen", 4, 300, 30):
        for mv in kernels.legal_moves(R, S, kernels.new_workspace()):
            if mv[M_KIND] != KIND_TRAIL:
                continue
            c = int(mv[M_CARD])
            cls = int(stakes_class(R, S, mv, total))
            if arrays.is_joker(R, c):
                jokers.add(cls)
            elif arrays.top_value(R, c) >= 10 and arrays.points(R, c) == 0:
                aces.add(cls)
    assert jokers and aces and not (jokers & aces)


def slow_stakes(R, S, moves):
    """Per class, the best move by greedy score (ties: the smallest record), -1 where none."""
    total = int(card_total(R))
    best: dict[int, tuple] = {}
    for k, mv in enumerate(moves):
        d = int(stakes_class(R, S, mv, total))
        rank = (
            -kernels.greedy_value(R, S, mv),
            int(mv[M_CARD]),
            int(mv[M_VALUE]),
            int(mv[M_MASK]),
            int(mv[M_TARGET]),
            int(mv[M_OWNER]),
        )
        if d not in best or rank < best[d][0]:
            best[d] = (rank, k)
    return [best[d][1] if d in best else -1 for d in range(STAKES_CLASSES)]


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_stakes_action_plays_the_move_a_slow_grouping_picks(variant):
    players = zwicker.rules(variant).players
    n = 0
    for R, S in mid_hand_states(variant, players, 12, 20):
        _, moves, idx = stakes_of(R, S)
        assert idx.tolist() == slow_stakes(R, S, moves)
        assert (idx >= 0).sum() >= 1
        n += 1
    assert n >= 10


def test_present_strategy_masks_the_absent_actions():
    w = np.array([3.0, -1.0, 5.0, 2.0])
    idx = np.array([0, 1, -1, 2])
    out = np.zeros(4)
    present_strategy(w, 0, 4, idx, out, True)  # regret matching over the present: 3 and 2
    assert np.allclose(out, [0.6, 0.0, 0.0, 0.4])
    present_strategy(np.zeros(4), 0, 4, idx, out, False)
    assert np.allclose(out, [1 / 3, 1 / 3, 0.0, 1 / 3])


@pytest.mark.parametrize("variant", ("dithmarschen", "grossenwiehe"))
def test_stakes_starts_from_greedy_where_no_regret_is_positive(variant):
    """A new set plays the abstract action holding greedy's move (checked against the best greedy
    score over every legal move); a positive regret hands over to regret matching; ``coarse``
    keeps plain regret matching's uniform start."""
    players = zwicker.rules(variant).players
    n = 0
    for R, S in mid_hand_states(variant, players, 15, 20):
        _, moves, idx = stakes_of(R, S)
        pol = np.zeros(STAKES_CLASSES)
        regret_strategy(R, S, moves, STAKES_CLASSES, STAKES, idx, np.zeros(1), -1, pol)
        g = int(np.argmax(pol))
        assert pol[g] == 1.0 and idx[g] >= 0
        best = max(kernels.greedy_value(R, S, mv) for mv in moves)
        assert kernels.greedy_value(R, S, moves[idx[g]]) == pytest.approx(best)
        regret = np.where(idx >= 0, -1.0, 0.0)
        regret_strategy(R, S, moves, STAKES_CLASSES, STAKES, idx, regret, 0, pol)
        assert pol[g] == 1.0  # only negative regrets: still greedy's
        other = int(np.flatnonzero(idx >= 0)[-1])
        regret[other] = 2.0
        regret_strategy(R, S, moves, STAKES_CLASSES, STAKES, idx, regret, 0, pol)
        assert pol[other] == 1.0
        regret_strategy(R, S, moves, STAKES_CLASSES, COARSE, idx, np.zeros(1), -1, pol)
        assert np.allclose(pol[idx >= 0], 1.0 / (idx >= 0).sum())
        n += 1
    assert n >= 10


def test_stakes_trains_and_plays_only_legal_moves(tmp_path):
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    solver = MCCFRSolver(game, "probe", seed=1, abstraction="stakes", averaging="linear")
    solver.run(3)
    assert solver.key_scheme == "zwicker_stakes" and solver.table.num_rows > 0
    assert set(solver.table.rows[: solver.table.num_rows, 3].tolist()) == {STAKES_CLASSES}
    save_policy(solver, tmp_path / "p", seed=1)
    policy = Policy(tmp_path / "p")
    state = game.new_initial_state()
    found = 0
    while not state.is_terminal() and found < 30:
        if state.is_chance_node():
            state.apply_action(state.chance_outcomes()[0][0])
            continue
        if not state.move_prefix():
            choice = policy.zwicker_lookup(state)
            if choice is not None:
                index, probs = choice.row_of, choice.chances
                assert (index >= 0).all() and np.isclose(probs.sum(), 1.0) and len(index) == len(probs)
                found += 1
        state.apply_action(state.legal_actions()[0])
    with pytest.raises(ValueError, match="stakes abstraction trains with probe"):
        MCCFRSolver(game, "outcome", seed=1, abstraction="stakes")
