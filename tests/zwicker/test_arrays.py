"""The engine array readers of :mod:`zwick_ai.zwicker.arrays` against the raw layout reads they
replace, on positions of real hands of every variant (Python calls and compiled calls)."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from zwick_ai import cards, zwicker
from zwick_ai.zwicker import arrays, kernels
from zwick_ai.zwicker import layout as engine_layout
from zwick_ai.zwicker.engine import move_from_row


def _positions(variant: str, players: int, seed: int, every: int = 3) -> list[tuple[np.ndarray, np.ndarray]]:
    """(R, S) of every ``every``-th position of a greedy hand, the end included."""
    r = zwicker.rules(variant, players=players)
    R = r.array()
    state = zwicker.deal(r, seed)
    rng = np.random.default_rng(seed)
    out = []
    ply = 0
    while not zwicker.is_over(state):
        if ply % every == 0:
            out.append((R, state.arr.copy()))
        rows = zwicker.legal_rows(state)
        zwicker.apply_row(state, rows[int(rng.integers(len(rows)))])
        ply += 1
    out.append((R, state.arr.copy()))
    return out


CASES = [("dithmarschen", 4), ("grossenwiehe", 4), ("classic", 2), ("grupp", 3), ("christiansen", 4)]


@pytest.mark.parametrize("variant,players", CASES)
def test_readers_match_the_raw_layout(variant: str, players: int) -> None:
    lay = engine_layout
    for R, S in _positions(variant, players, seed=5):
        assert arrays.stage(S) == S[lay.S_STAGE]
        assert arrays.dealer(S) == S[lay.S_DEALER]
        assert arrays.plies(S) == S[lay.S_PLIES]
        assert arrays.stock_top(S) == S[lay.S_STOCK_TOP]
        assert arrays.stock_left(S) == S[lay.S_STOCK_LEN] - S[lay.S_STOCK_TOP]
        assert list(arrays.undealt(S)) == list(S[lay.S_STOCK + S[lay.S_STOCK_TOP] : lay.S_STOCK + S[lay.S_STOCK_LEN]])
        assert arrays.cards_in_hands(R, S) == sum(S[lay.S_HAND_N + q] for q in range(players))
        last = S[lay.S_STOCK_TOP] >= S[lay.S_STOCK_LEN] or S[lay.S_STAGE] + 1 >= R[lay.R_MAX_STAGES]
        assert arrays.last_stage(R, S) == last
        for p in range(players):
            n = S[lay.S_HAND_N + p]
            assert arrays.hand_size(S, p) == n
            raw = [S[lay.S_HANDS + p * lay.MAX_HAND + i] for i in range(n)]
            assert [arrays.hand_card(S, p, i) for i in range(n)] == raw
            assert list(arrays.hand_cards(S, p)) == raw
        n = S[lay.S_NUNITS]
        assert arrays.unit_count(S) == n
        assert list(arrays.unit_anchors(S)) == [S[lay.S_UNITS + i] for i in range(n)]
        for i in range(n):
            a = S[lay.S_UNITS + i]
            assert arrays.unit_anchor(S, i) == a
            assert arrays.unit_value(S, a) == S[lay.S_UVALUE + a]
            assert arrays.unit_owner(S, a) == S[lay.S_UOWNER + a]
            assert arrays.is_build(S, a) == bool(S[lay.S_UBUILD + a])
            pts, x = 0, a
            while x != -1:
                assert arrays.on_table(S, x) and arrays.anchor_of(S, x) == a
                pts += R[lay.R_POINTS + x]
                assert arrays.next_card(S, x) == S[lay.S_NEXT + x]
                x = S[lay.S_NEXT + x]
            assert arrays.unit_points(R, S, a) == pts
        won = arrays.won_sides(S)
        for c in range(cards.NUM_CARDS):
            loc = S[lay.S_LOC + c]
            side = loc - lay.LOC_WON if lay.LOC_WON <= loc < lay.LOC_WON + R[lay.R_NSIDES] else -1
            assert arrays.won_side(S, c) == side == won[c]
            assert arrays.dealt_to(S, c) == S[lay.S_DEALT_TO + c] == arrays.dealt_seats(S)[c]
        for s in range(R[lay.R_NSIDES]):
            assert arrays.zwicks(S, s) == S[lay.S_ZWICKS + s]
            deck = [R[lay.R_DECK + k] for k in range(R[lay.R_DECK_SIZE])]
            expect = sum(R[lay.R_POINTS + c] for c in deck if S[lay.S_LOC + c] == lay.LOC_WON + s)
            assert arrays.points_won(R, S, s) == expect
        assert arrays.last_capturer(S) == S[lay.S_LAST_CAPT]
        assert (arrays.asked_seat(S), arrays.asked_value(S), arrays.ask_answer(S)) == (
            S[lay.S_ASK_Q],
            S[lay.S_ASK_N],
            S[lay.S_ASK_ANS],
        )


@pytest.mark.parametrize("variant,players", CASES)
def test_rule_readers_match_the_raw_layout(variant: str, players: int) -> None:
    lay = engine_layout
    r = zwicker.rules(variant, players=players)
    R = r.array()
    assert [arrays.deck_card(R, k) for k in range(R[lay.R_DECK_SIZE])] == list(r.deck)
    assert arrays.zwick_points(R) == R[lay.R_ZWICK_POINTS]
    assert arrays.max_stages(R) == R[lay.R_MAX_STAGES]
    for c in r.deck:
        assert arrays.points(R, c) == R[lay.R_POINTS + c]
        assert arrays.is_wild(R, c) == cards.is_wild_joker(c)
        assert arrays.is_valued_joker(R, c) == cards.is_valued_joker(c)
        assert arrays.is_joker(R, c) == (cards.is_wild_joker(c) or cards.is_valued_joker(c))
        assert arrays.top_value(R, c) == max(R[lay.R_VAL1 + c], R[lay.R_VAL2 + c])


def test_move_readers_and_move_identity() -> None:
    lay = engine_layout
    for _, S in _positions("grossenwiehe", 4, seed=3, every=5)[:-1]:
        rows = zwicker.legal_rows(zwicker.ZwickerState(zwicker.rules("grossenwiehe", players=4), S))
        for k, row in enumerate(rows):
            assert arrays.move_value(row) == row[lay.M_VALUE]
            assert arrays.move_target(row) == row[lay.M_TARGET]
            assert arrays.move_owner(row) == row[lay.M_OWNER]
            assert arrays.is_zwick(row) == (row[lay.M_ZWICK] == 1)
            assert arrays.find_move(rows, row) == k  # the legal moves of a position are distinct
            other = row.copy()
            other[lay.M_VALUE] += 1
            assert not arrays.same_move(row, other)
        for x in rows[:6]:
            for y in rows[:6]:
                key = [lay.M_CARD, lay.M_VALUE, lay.M_MASK, lay.M_TARGET, lay.M_OWNER]
                assert arrays.before(x, y) == (tuple(x[key]) < tuple(y[key]))


@njit(cache=True)
def _compiled_reads(R, S):
    """The readers inlined into a compiled caller."""
    total = 0
    for p in range(R[engine_layout.R_PLAYERS]):
        for i in range(arrays.hand_size(S, p)):
            total += arrays.hand_card(S, p, i)
        total += arrays.hand_cards(S, p).shape[0] * 1000
    for i in range(arrays.unit_count(S)):
        total += arrays.unit_points(R, S, arrays.unit_anchor(S, i)) * 7
    return total + arrays.stock_left(S) * 100000 + arrays.undealt(S).shape[0]


def test_compiled_callers_read_the_same() -> None:
    lay = engine_layout
    for R, S in _positions("dithmarschen", 4, seed=9):
        expect = 0
        for p in range(4):
            n = S[lay.S_HAND_N + p]
            expect += sum(int(S[lay.S_HANDS + p * lay.MAX_HAND + i]) for i in range(n)) + n * 1000
        for i in range(S[lay.S_NUNITS]):
            expect += int(arrays.unit_points(R, S, S[lay.S_UNITS + i])) * 7
        left = int(S[lay.S_STOCK_LEN] - S[lay.S_STOCK_TOP])
        assert _compiled_reads(R, S) == expect + left * 100000 + left


def test_translate_row_follows_the_units() -> None:
    """A capture row of a position rewritten for the same table listed in reverse takes the same cards."""
    r = zwicker.rules("dithmarschen", players=4)
    s = zwicker.position(r, hands=[["5C", "3D"], ["4C"], ["9C"], ["8C"]], table=["5D", "KS", "5H"], to_move=0, stock=[])
    t = zwicker.position(r, hands=[["5C", "3D"], ["4C"], ["9C"], ["8C"]], table=["5H", "KS", "5D"], to_move=0, stock=[])
    for m in zwicker.legal_moves(s):
        row = arrays.translate_row(np.array(m.row, np.int64), s.arr, t.arr)
        assert move_from_row(t, row).key == m.key


def test_position_hash_is_the_engine_state_and_mix_steps() -> None:
    r = zwicker.rules("dithmarschen", players=4)
    R = r.array()
    a, b = zwicker.deal(r, 1), zwicker.deal(r, 2)
    assert arrays.position_hash(R, a.arr) == arrays.position_hash(R, a.copy().arr)
    assert arrays.position_hash(R, a.arr) != arrays.position_hash(R, b.arr)
    assert arrays.mix_hash(np.uint64(1), 2) != arrays.mix_hash(np.uint64(1), 3)
    S = kernels.empty_state(R)
    assert arrays.cards_in_hands(R, S) == 0
