"""The engine's own guarantees: conservation and score totals over thousands of compiled hands,
determinism, the public position API, and clear errors for bad input."""

from __future__ import annotations

import numpy as np
import pytest
from numba import njit

from zwick_ai import cards as C
from zwick_ai import zwicker
from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker import policy_codes
from zwick_ai.zwicker.rules import PLAYER_COUNTS

CONFIGS = [(v, p) for v in zwicker.VARIANTS for p in PLAYER_COUNTS[v][0]]


def check_conservation(state: zwicker.ZwickerState) -> None:
    snap = zwicker.snapshot(state)
    places = [c for h in snap.hands for c in h] + [c for u in snap.table for c in u.cards]
    places += list(snap.stock) + [c for w in snap.won for c in w]
    assert sorted(places) == sorted(state.rules.deck), "a card is missing or in two places"


@pytest.mark.parametrize("variant,players", CONFIGS, ids=[f"{v}-{p}" for v, p in CONFIGS])
def test_score_totals_over_compiled_hands(variant, players):
    r = zwicker.rules(variant, players)
    hands = 1000
    for policy in (policy_codes.POLICY_RANDOM, policy_codes.POLICY_GREEDY):
        pol = np.full(players, policy, dtype=np.int64)
        scores, zw, won_side, _, plies = K.play_hands(r.array(), np.arange(hands, dtype=np.int64), pol)
        cards = scores.sum(axis=1) - zw.sum(axis=1) * r.zwick_points
        # Most cards scores unless tied: then nobody gets it.
        assert set(np.unique(cards)) <= {r.card_total, r.card_total - r.most_cards_points}
        assert (cards == r.card_total).mean() > 0.5
        # With someone capturing, every card ends in a won pile (leftovers go to the last capturer).
        in_deck = np.zeros(C.NUM_CARDS, dtype=bool)
        in_deck[list(r.deck)] = True
        assert (won_side[:, in_deck] >= 0).all()
        assert (plies >= r.deck_size - sum(n for k, n, _ in r.plan.first if k == "table")).all()


@pytest.mark.parametrize(
    "variant,options",
    [("grupp", {"joker_capture": "never"}), ("dithmarschen", {"after_zwick": "all_trail"}),
     ("dithmarschen", {"dietze_min_table": 4}), ("classic", {"forced_capture": False, "dietze_loose_builds": True}),
     ("grossenwiehe", {"subtract": "either", "capture_values": "several"})],
)  # fmt: skip
def test_conservation_every_step(variant, options):
    r = zwicker.rules(variant, **options)
    rng = np.random.default_rng(0)
    for seed in range(15):
        s = zwicker.deal(r, seed)
        while not zwicker.is_over(s):
            check_conservation(s)
            moves = zwicker.legal_moves(s)
            assert moves, "a player to move always has a legal move"
            s = zwicker.apply(s, moves[rng.integers(len(moves))])
        check_conservation(s)
        total = sum(zwicker.score(s)) - sum(zwicker.zwicks(s)) * r.zwick_points
        assert total in (r.card_total, r.card_total - r.most_cards_points)


def test_same_seed_same_hand_any_batching():
    r = zwicker.rules("dithmarschen")
    pol = np.zeros(4, dtype=np.int64)
    seeds = np.arange(40, dtype=np.int64)
    whole = K.play_hands(r.array(), seeds, pol)[0]
    parts = np.concatenate([K.play_hands(r.array(), seeds[i : i + 7], pol)[0] for i in range(0, 40, 7)])
    assert (whole == parts).all()
    assert zwicker.snapshot(zwicker.deal(r, 5)) == zwicker.snapshot(zwicker.deal(r, 5))
    assert zwicker.snapshot(zwicker.deal(r, 5)) != zwicker.snapshot(zwicker.deal(r, 6))


def test_issue_example_position_and_moves():
    r = zwicker.rules("dithmarschen", players=4)
    s = zwicker.position(
        r, hands=[["JS", "6D"], [], [], []], table=["9C", "3H", {"cards": ["7H", "4D"], "value": 11, "owner": 1}],
        to_move=0, seed=0,
    )  # fmt: skip
    assert zwicker.hand(s, 0) == ["6D", "JS"]
    assert zwicker.table(s) == ["9C", "3H", "[4D+7H=11 by 1]"]
    assert len(zwicker.stock(s)) == 55 - 2 - 4
    moves = {str(m) for m in zwicker.legal_moves(s)}
    assert "JS=12 takes 9C+3H" in moves  # a Jack as 12 takes 9+3
    assert not any(m.startswith("6D=") for m in moves)  # a 6 captures nothing here
    m = next(m for m in zwicker.legal_moves(s) if m.kind == "capture")
    assert m.card == "JS" and m.units == ("9C", "3H") and m.target is None and not m.zwick
    assert m.taken == ("9C", "3H")  # notation, like m.card (in card-id order)
    assert m.key.taken == tuple(sorted(C.parse_cards(["9C", "3H"])))
    assert m.taken == tuple(C.format_card(c) for c in m.key.taken)
    before = zwicker.snapshot(s)
    s2 = zwicker.apply(s, m)
    assert zwicker.snapshot(s) == before, "apply must not change its input"
    assert sorted(zwicker.won(s2)[0]) == ["3H", "9C", "JS"]
    assert zwicker.to_move(s2) == 1 or zwicker.hand(s2, 1) == []


def test_zwick_string_and_scoring():
    r = zwicker.rules("classic", players=2)
    s = zwicker.position(r, hands=[["QS", "2C"], ["3C"]], table=["QH", "QD", "9C", "4S"], to_move=0, stock=[])
    best = max(zwicker.legal_moves(s), key=lambda m: len(m.taken))
    assert str(best) == "QS=13 takes QH QD 9C+4S (zwick)"
    assert len(best.taken) == 4 and len(best.units) == 4 and not best.is_for_partner
    s2 = zwicker.apply(s, best)
    assert zwicker.zwicks(s2) == (1, 0) and zwicker.score(s2)[0] >= 3


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"hands": [["ZZ"], ["2C"]]}, "unknown card"),
        ({"hands": [["QS", "QS"], ["2C"]]}, "duplicate card"),
        ({"hands": [["X30"], ["2C"]]}, "not in the classic deck"),
        ({"hands": [["QS"], ["2C"]], "table": [{"cards": ["7H", "4D"], "value": 12}]}, "cannot carry value 12"),
        ({"hands": [["QS"], ["2C"]], "table": [{"cards": ["7H", "4D"], "value": 11, "owner": 1}]}, "no owner"),
        ({"hands": [["QS"]]}, "one hand per player"),
        ({"hands": [[], ["2C"]], "to_move": 0}, "holds no card"),
        ({"hands": [["QS"], ["2C"]], "stock": ["3C"], "won": [[], []]}, "not placed anywhere"),
    ],
)
def test_malformed_positions_are_explained(kwargs, message):
    r = zwicker.rules("classic", players=2)
    with pytest.raises(ValueError, match=message):
        zwicker.position(r, **kwargs)


def test_owner_variants_need_owners_and_possible_values():
    r = zwicker.rules("dithmarschen")
    with pytest.raises(ValueError, match="needs an owner"):
        zwicker.position(r, [["QS"], [], [], []], [{"cards": ["7H", "4D"], "value": 11}])
    with pytest.raises(ValueError, match="possible values"):
        zwicker.position(r, [["QS"], [], [], []], [{"cards": ["7H", "4D"], "value": 20, "owner": 0}])
    s = zwicker.position(r, [["QS", "3C"], [], [], []], [{"cards": ["7H", "4D"], "value": 3, "owner": 0}])
    assert zwicker.table(s) == ["[4D+7H=3 by 0]"]  # 7 - 4 = 3, a subtraction build


def test_illegal_move_lists_the_legal_ones():
    r = zwicker.rules("classic", players=2)
    s = zwicker.position(r, hands=[["QS"], ["2C"]], table=["QH"], stock=[])
    with pytest.raises(ValueError, match=r"illegal move .*legal moves: QS=13 takes QH"):
        zwicker.apply(s, "QS trails")  # forced capture in classic
    for text in ("\n", "QS\ntrails", "QS=13 takes QH\r\nx"):  # a user's text never breaks the line
        with pytest.raises(ValueError, match="illegal move") as e:
            zwicker.apply(s, text)
        assert "\n" not in str(e.value) and "\r" not in str(e.value), str(e.value)


@pytest.mark.parametrize(
    "variant,players,options,message",
    [
        ("skat", None, {}, "valid variants: classic, grupp"),
        ("dithmarschen", 5, {}, "2, 3, 4 players"),
        ("dithmarschen", 4, {"joker_capture": "never"}, "applies only to grupp"),
        ("grupp", 4, {"joker_capture": "sometimes"}, "valid values: any, joker_only"),
        ("classic", 4, {"colour": "red"}, "valid options: forced_capture"),
        ("dithmarschen", 4, {"jokers": (16,)}, "invalid joker value 16"),
        ("classic", 2, {"hand_size": 30}, "first deal needs"),
    ],
)
def test_rules_errors_say_what_is_valid(variant, players, options, message):
    with pytest.raises(ValueError, match=message):
        zwicker.rules(variant, players, **options)


def test_micro_variant_is_small_and_complete():
    r = zwicker.rules("dithmarschen", 2, ranks="A2345", suits="CD", jokers=(15,), hand_size=2, table_size=2, stages=1)
    assert r.deck_size == 11 and r.card_total == 5 + 2 + 3  # X15 5, two Aces 1 each, most cards 3
    for seed in range(50):
        s = zwicker.deal(r, seed)
        assert len(zwicker.stock(s)) == 5 and len(zwicker.table(s)) == 2
        while not zwicker.is_over(s):
            s = zwicker.apply(s, zwicker.legal_moves(s)[0])
        assert len(zwicker.stock(s)) == 5  # one stage only: the rest is never dealt


@njit(cache=False)
def _bits_kernel(xs):
    out = np.empty((xs.shape[0], 2), np.int64)
    for i in range(xs.shape[0]):
        out[i, 0] = K.lowest_bit(xs[i])
        out[i, 1] = K.popcount(xs[i])
    return out


def test_bit_intrinsics_match_python():
    rng = np.random.default_rng(5)
    xs = rng.integers(1, 2**62, size=500, dtype=np.int64)
    xs[:63] = np.left_shift(np.int64(1), np.arange(63, dtype=np.int64))  # every single bit
    got = _bits_kernel(xs)
    for x, (low, count) in zip(xs.tolist(), got.tolist(), strict=True):
        assert low == (x & -x).bit_length() - 1
        assert count == bin(x).count("1")


@njit(cache=False)
def _union_values(W, na, need):
    X = np.empty(4 * 256, np.int64)
    K.fill_sum_table(W, na)
    K.fill_union_table(W, na, need, X)
    return W[K.W_UNI : K.W_UNI + (1 << na)].copy()


def _sums(opts, mask):
    totals = {0}
    for j, options in enumerate(opts):
        if mask >> j & 1:
            totals = {t + o for t in totals for o in options}
    return totals


def _splits(opts, mask, v):
    """Brute force: ``mask`` splits into groups each adding up to ``v``."""
    if mask == 0:
        return True
    low = mask & -mask
    rest = mask ^ low
    sub = rest
    while True:
        group = sub | low
        if v in _sums(opts, group) and _splits(opts, mask ^ group, v):
            return True
        if sub == 0:
            return False
        sub = (sub - 1) & rest


def test_union_table_matches_brute_force_partitions():
    """W_UNI[M] has bit v exactly when M splits into groups each adding up to v (v in need)."""
    rng = np.random.default_rng(11)
    for _ in range(40):
        na = int(rng.integers(1, 8))
        opts = [sorted({int(v) for v in rng.integers(1, 15, size=int(rng.integers(1, 3)))}) for _ in range(na)]
        W = K.new_workspace()
        for j, o in enumerate(opts):
            W[K.W_AOPT + j * K.MAX_OPTS : K.W_AOPT + j * K.MAX_OPTS + len(o)] = o
            W[K.W_ANOPT + j] = len(o)
            W[K.W_ASUMOK + j] = 1
        need = 0
        for v in rng.integers(1, 28, size=4).tolist():
            need |= 1 << v
        got = _union_values(W, na, np.int64(need))

        for mask in range(1, 1 << na):
            want = sum(1 << v for v in range(1, 63) if need >> v & 1 and _splits(opts, mask, v))
            assert got[mask] == want, (opts, mask)


def test_a_build_for_partner_seat_0_is_for_a_partner():
    """``for_partner`` is a seat, and seat 0 is falsy: ``is_for_partner`` says whether there is one."""
    r = zwicker.rules("dithmarschen", 4)
    b9 = {"cards": ["6H", "3H"], "value": 9, "owner": 0}
    s = zwicker.position(r, hands=[["9S"], ["KC"], ["5C"], ["2H"]], table=["4D", b9], to_move=2, stock=[])
    build, trail = sorted(zwicker.legal_moves(s), key=lambda m: m.kind)
    assert build.kind == "build" and build.for_partner == 0 and build.is_for_partner
    assert str(build) == "5C builds 9 on 4D for partner 0"
    assert trail.kind == "trail" and trail.for_partner is None and not trail.is_for_partner
    assert build.taken == () and build.units == ()
