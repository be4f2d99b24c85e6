"""Every rule and worked example of docs/rules.md Part A (Zwicker), as tests.

The expectations are worked out by hand from docs/rules.md Part A and zwicker/RULE_CHOICES.md (the
comments show the arithmetic); they are never copied from a run. Every test takes the ``impl``
fixture (conftest.py) and uses only its functions ``deal``, ``from_snapshot``, ``snapshot``,
``legal_moves``, ``apply``, ``score``, ``is_zwick``, so that every implementation (the reference
and the numba engine) must pass the same tests.
"""

from __future__ import annotations

import random

import pytest

from tests.zwicker.util import make_snapshot
from zwick_ai.cards import format_card, parse_card
from zwick_ai.zwicker.layout import (
    PHASE_AFTER_ZWICK_TRAIL,
    PHASE_DIETZE_TRAIL,
    PHASE_NORMAL,
    PHASE_OVER,
)
from zwick_ai.zwicker.rules import Rules, rules
from zwick_ai.zwicker.snapshot import (
    MoveKey,
    Snapshot,
    Unit,
)


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------
def c(name: str) -> int:
    return parse_card(name)


def cs(*names: str) -> tuple[int, ...]:
    """Sorted ids of unique card names (also accepts one space-separated string)."""
    if len(names) == 1 and " " in names[0]:
        names = tuple(names[0].split())
    return tuple(sorted(parse_card(n) for n in names))


def sets(*groups: str) -> set[frozenset[int]]:
    """A set of card sets, each written as a space-separated string."""
    return {frozenset(cs(*g.split())) for g in groups}


def trail(card: str) -> MoveKey:
    return MoveKey("trail", c(card))


def cap(card: str, *taken: str) -> MoveKey:
    return MoveKey("capture", c(card), taken=cs(*taken))


def build(card: str, target: tuple[str, ...] | list[str], value: int, owner: int) -> MoveKey:
    return MoveKey("build", c(card), target=cs(*target) if target else (), value=value, owner=owner)


def ask(partner: int, value: int) -> MoveKey:
    return MoveKey("ask", -1, value=value, owner=partner)


def loose(card: str) -> Unit:
    return Unit(cards=(c(card),), value=0, owner=-1, build=False)


def state(impl, r: Rules, **kw):
    return impl.from_snapshot(r, make_snapshot(r, **kw))


def captures_of(moves: list[MoveKey], card: str | int) -> set[frozenset[int]]:
    cid = card if isinstance(card, int) else c(card)
    return {frozenset(m.taken) for m in moves if m.kind == "capture" and m.card == cid}


def builds_of(moves: list[MoveKey], card: str) -> set[tuple[tuple[int, ...], int, int]]:
    return {(m.target, m.value, m.owner) for m in moves if m.kind == "build" and m.card == c(card)}


def play(impl, r: Rules, st, *moves: MoveKey):
    for m in moves:
        st = impl.apply(r, st, m)
    return st


def snap(impl, r: Rules, st) -> Snapshot:
    return impl.snapshot(r, st)


def others(n: int, start: int = 0) -> list[list[str]]:
    """Filler hands of one low club each for seats that do not matter in a test."""
    return [[f"{rank}C"] for rank in "23456789"[start : start + n]]


# ---------------------------------------------------------------------------------------------
# A.4 seed examples
# ---------------------------------------------------------------------------------------------
def test_classic_king_takes_9_plus_5(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["KS", "2C"], ["3D"]], table=["9C", "5D"])
    # K = 14 = 9 + 5; the 2 matches nothing, and capture is compulsory: the only move.
    assert impl.legal_moves(r, st) == [cap("KS", "9C", "5D")]


def test_classic_queen_takes_both_queens_and_9_plus_4_as_a_zwick(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["QH", "2C"], ["3D"]], table=["QC", "QD", "9S", "4H"])
    moves = impl.legal_moves(r, st)
    # groups adding up to 13: {QC}, {QD}, {9S 4H}; any union of them may be taken
    assert captures_of(moves, "QH") == sets("QC", "QD", "9S 4H", "QC QD", "QC 9S 4H", "QD 9S 4H", "QC QD 9S 4H")
    assert all(m.kind == "capture" for m in moves)  # compulsory capture
    zwick = cap("QH", "QC", "QD", "9S", "4H")
    assert impl.is_zwick(r, st, zwick)
    assert not impl.is_zwick(r, st, cap("QH", "QC", "QD"))
    after = snap(impl, r, impl.apply(r, st, zwick))
    assert after.table == ()
    assert after.zwicks == (1, 0)
    assert after.won == (cs("QH QC QD 9S 4H"), ())
    assert after.last_capturer == 0 and after.to_move == 1 and after.phase == PHASE_NORMAL
    # no point cards; most cards 1 + one Zwick 3
    assert impl.score(r, impl.apply(r, st, zwick)) == (4, 0)


def test_dithmarschen_jack_as_12_takes_9_plus_3_but_a_6_cannot(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["JC", "6D"], ["2H"], ["4H"], ["5H"]], table=["9S", "3H"])
    moves = impl.legal_moves(r, st)
    assert captures_of(moves, "JC") == sets("9S 3H")
    assert captures_of(moves, "6D") == set()  # 9 - 3 would be subtraction: values only add


def test_dithmarschen_15_joker_on_3_4_7_8_jack(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["X15"], ["2H"], ["5C"], ["4C"]], table=["3C", "4D", "7H", "8S", "JD"])
    # groups of 15: {8,7}, {J as 12, 3}, {8,4,3} (J as 2 needs 13 from 3,4,7,8: impossible).
    # Disjoint unions: the three groups and {8,7} + {J,3}; {8,4,3} meets both others.
    assert captures_of(impl.legal_moves(r, st), "X15") == sets("8S 7H", "JD 3C", "8S 7H JD 3C", "8S 4D 3C")


def test_dithmarschen_jack_takes_2_4_6_and_10_jack_as_a_zwick(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["JC"], ["3H"], ["5H"], ["7H"]], table=["2D", "4S", "6C", "TH", "JS"])
    moves = impl.legal_moves(r, st)
    # as 12: groups {J as 12}, {2,10}, {2,4,6}, {10, J as 2}, {4,6, J as 2}; disjoint unions add
    # {J,2,10}, {J,2,4,6} and {2,4,6,10,J} (twice). As 2: {2}, {J as 2}, {2, J}.
    assert captures_of(moves, "JC") == sets(
        "JS",
        "2D TH",
        "2D 4S 6C",
        "TH JS",
        "4S 6C JS",
        "JS 2D TH",
        "JS 2D 4S 6C",
        "2D 4S 6C TH JS",
        "2D",
        "2D JS",
    )
    assert impl.is_zwick(r, st, cap("JC", "2D", "4S", "6C", "TH", "JS"))
    # only the set matters: the whole table is proved twice ({2,4,6}+{10,J} and {2,10}+{4,6,J})
    # but is one move
    assert len([m for m in moves if m.kind == "capture" and m.card == c("JC")]) == 10


def test_dithmarschen_queen_takes_13_build_and_9_build_plus_4(impl):
    r = rules("dithmarschen")
    b9 = {"cards": ["5C", "4C"], "value": 9, "owner": 1}
    b13 = {"cards": ["8D", "5D"], "value": 13, "owner": 1}
    st = state(impl, r, hands=[["QS", "9S"], ["9D", "QD"], ["2H"], ["3H"]], table=[b9, b13, "4H"])
    moves = impl.legal_moves(r, st)
    assert captures_of(moves, "QS") == sets("8D 5D", "5C 4C 4H", "8D 5D 5C 4C 4H")
    assert impl.is_zwick(r, st, cap("QS", "8D", "5D", "5C", "4C", "4H"))
    # a build counts only its announced value: the 9 takes the 9-build, nothing else
    assert captures_of(moves, "9S") == sets("5C 4C")


def test_dual_card_stays_dual_on_the_table(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["AS"], ["2H"], ["3H"], ["4H"]], table=["AC", "TD"])
    # A as 11: {AC as 11}, {TD, AC as 1}; A as 1: {AC as 1}
    assert captures_of(impl.legal_moves(r, st), "AS") == sets("AC", "TD AC")


def test_one_value_per_play_and_capture_values_several(impl):
    hands = [["JH"], ["3H"], ["4H"], ["6H"]]
    r = rules("dithmarschen")
    st = state(impl, r, hands=hands, table=["2C", "7D", "5D"])
    # J as 2: {2}; J as 12: {7,5}; one value per play, so not both at once
    assert captures_of(impl.legal_moves(r, st), "JH") == sets("2C", "7D 5D")
    r = rules("dithmarschen", capture_values="several")
    st = state(impl, r, hands=hands, table=["2C", "7D", "5D"])
    assert captures_of(impl.legal_moves(r, st), "JH") == sets("2C", "7D 5D", "2C 7D 5D")
    assert impl.is_zwick(r, st, cap("JH", "2C", "7D", "5D"))


# ---------------------------------------------------------------------------------------------
# A.4 compulsory capture
# ---------------------------------------------------------------------------------------------
def test_forced_capture_on_and_off_in_classic(impl):
    kw = dict(hands=[["5C", "2D"], ["3S"]], table=["5S", "8H"])
    r = rules("classic", 2)
    assert impl.legal_moves(r, state(impl, r, **kw)) == [cap("5C", "5S")]
    r = rules("classic", 2, forced_capture=False)
    expected = [
        cap("5C", "5S"),
        build("5C", ["5S"], 10, -1),
        build("5C", ["8H"], 13, -1),
        build("2D", ["5S"], 7, -1),
        build("2D", ["8H"], 10, -1),
        trail("5C"),
        trail("2D"),
    ]
    assert impl.legal_moves(r, state(impl, r, **kw)) == sorted(expected)


def test_no_capture_possible_allows_trails_and_builds_in_classic(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["3C", "2D"], ["3S"]], table=["9S"])
    assert impl.legal_moves(r, st) == sorted(
        [build("3C", ["9S"], 12, -1), build("2D", ["9S"], 11, -1), trail("3C"), trail("2D")]
    )


def test_capture_is_never_compulsory_in_joker_variants(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["5C", "2D"], ["3H"], ["4H"], ["6H"]], table=["5S"])
    moves = impl.legal_moves(r, st)
    assert cap("5C", "5S") in moves
    assert trail("5C") in moves and trail("2D") in moves


# ---------------------------------------------------------------------------------------------
# A.5 builds in classic and grupp
# ---------------------------------------------------------------------------------------------
def test_classic_4_on_7_makes_11_which_acts_as_an_ace(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["4C", "AS"], ["3D"]], table=["7D"])
    # no capture (4, 11 vs 7); A on 7 would be 18 > 14
    assert impl.legal_moves(r, st) == sorted([build("4C", ["7D"], 11, -1), trail("4C"), trail("AS")])
    st = impl.apply(r, st, build("4C", ["7D"], 11, -1))
    after = snap(impl, r, st)
    assert after.table == (Unit(cs("4C", "7D"), 11, -1, True),)
    assert after.to_move == 1
    # built on further, still <= 14: 3 on 11 makes 14
    assert impl.legal_moves(r, st) == sorted([build("3D", ["4C", "7D"], 14, -1), trail("3D")])
    # the Ace takes it; a 7 or a 4 cannot take a part of it
    build11 = {"cards": ["4C", "7D"], "value": 11}
    st = state(impl, r, hands=[["AS", "7S", "4H"], ["3D"]], table=[build11])
    assert impl.legal_moves(r, st) == [cap("AS", "4C", "7D")]
    # no build over 14 (7 + 11, 4 + 11), no partial capture
    st = state(impl, r, hands=[["7S", "4H"], ["3D"]], table=[build11])
    assert impl.legal_moves(r, st) == sorted([trail("7S"), trail("4H")])


def test_classic_build_needs_a_table_unit(impl):
    r = rules("classic", 2, forced_capture=False)
    st = state(impl, r, hands=[["4C", "5D"], ["3D"]], table=[])
    assert impl.legal_moves(r, st) == sorted([trail("4C"), trail("5D")])


def test_grupp_wild_joker_builds_any_value_up_to_14(impl):
    r = rules("grupp", 2, forced_capture=False)
    st = state(impl, r, hands=[["XW"], ["3D"]], table=["9C"])
    moves = impl.legal_moves(r, st)
    xw = snap(impl, r, st).hands[0][0]
    # the joker as 2..5 on the 9; it can also take the 9 (as 9)
    built = {(m.target, m.value) for m in moves if m.kind == "build"}
    assert built == {(cs("9C"), v) for v in (11, 12, 13, 14)}
    assert captures_of(moves, xw) == sets("9C")


# ---------------------------------------------------------------------------------------------
# A.6 builds in dithmarschen, grossenwiehe, christiansen
# ---------------------------------------------------------------------------------------------
def test_table_9_hand_2_7_ace(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["2C", "7D", "AS"], ["3H"], ["4H"], ["5H"]], table=["9C"])
    # 2 -> 9+2 = 11 (held: A) or 9-2 = 7 (held: 7); 7 -> 9-7 = 2 (held: 2); the A gives 8, 10
    # or 20, all unheld; no single-card build is held either; nothing captures.
    expected = [
        build("2C", ["9C"], 11, 0),
        build("2C", ["9C"], 7, 0),
        build("7D", ["9C"], 2, 0),
        trail("2C"),
        trail("7D"),
        trail("AS"),
    ]
    assert impl.legal_moves(r, st) == sorted(expected)


def test_builds_go_down_to_value_1(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["2D", "AS"], ["3H"], ["4H"], ["5H"]], table=["3C"])
    assert build("2D", ["3C"], 1, 0) in impl.legal_moves(r, st)  # 3 - 2 = 1, held: the Ace


def test_subtract_either_allows_played_minus_old(impl):
    kw = dict(hands=[["9D", "5S"], ["3H"], ["4H"], ["6H"]], table=["4C"])
    r = rules("dithmarschen")
    # default: 9 on 4 gives 13 (unheld); 4 - 9 < 1
    assert builds_of(impl.legal_moves(r, state(impl, r, **kw)), "9D") == set()
    r = rules("dithmarschen", subtract="either")
    assert builds_of(impl.legal_moves(r, state(impl, r, **kw)), "9D") == {(cs("4C"), 5, 0)}


def test_queen_build_13_or_3_depends_on_the_other_card(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["QC", "QD"], ["3H"], ["4H"], ["5H"]], table=[])
    assert builds_of(impl.legal_moves(r, st), "QC") == {((), 13, 0), ((), 3, 0)}
    st = state(impl, r, hands=[["QC", "3D"], ["3H"], ["4H"], ["5H"]], table=[])
    assert builds_of(impl.legal_moves(r, st), "QC") == {((), 3, 0)}


def test_ten_on_a_6_plus_4_build_announced_10(impl):
    r = rules("dithmarschen")
    b10 = {"cards": ["6C", "4C"], "value": 10, "owner": 1}
    st = state(impl, r, hands=[["TD", "TH"], ["TS"], ["2H"], ["3H"]], table=[b10])
    m = build("TD", ["6C", "4C"], 10, 0)
    assert m in impl.legal_moves(r, st)
    after = snap(impl, r, impl.apply(r, st, m))
    # the last modifier becomes the owner; the unit keeps its place, the cards are merged
    assert after.table == (Unit(cs("6C 4C TD"), 10, 0, True),)


def test_jack_on_the_25_joker_announced_13(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["JC", "QD"], ["2H"], ["3H"], ["4H"]], table=["X25"])
    assert build("JC", ["X25"], 13, 0) in impl.legal_moves(r, st)  # 25 - 12 = 13, held: Q
    st = state(impl, r, hands=[["JC", "5D"], ["2H"], ["3H"], ["4H"]], table=["X25"])
    moves = impl.legal_moves(r, st)
    # 25-12 = 13, 25-2 = 23, 25-5 = 20 unheld; 27, 37, 30 exceed the largest joker (25)
    assert not any(m.kind == "build" and m.target == cs("X25") for m in moves)


def test_ten_on_the_30_joker_announced_20_needs_the_20_joker(impl):
    r = rules("christiansen")
    st = state(impl, r, hands=[["TD", "X20"], ["2H"], ["3H"]], table=["X30"])
    assert build("TD", ["X30"], 20, 0) in impl.legal_moves(r, st)
    st = state(impl, r, hands=[["TD", "9C"], ["2H"], ["3H"]], table=["X30"])
    assert builds_of(impl.legal_moves(r, st), "TD") & {(cs("X30"), 20, 0)} == set()


def test_build_over_14_only_with_that_joker(impl):
    r = rules("christiansen")
    st = state(impl, r, hands=[["5C", "X20"], ["2H"], ["3H"]], table=["TD", "9S"])
    moves = impl.legal_moves(r, st)
    assert build("5C", ["TD"], 15, 0) not in moves  # no 15-joker held
    st = state(impl, r, hands=[["5C", "X15"], ["2H"], ["3H"]], table=["TD", "9S"])
    assert build("5C", ["TD"], 15, 0) in impl.legal_moves(r, st)


def test_table_order_new_builds_and_trails_at_the_end_taken_units_leave_the_rest_in_order(impl):
    r = rules("dithmarschen")
    hands = [["QC", "QD", "9H"], ["2H"], ["3H"], ["4H"]]
    st = state(impl, r, hands=hands, table=["9C", "5D", "2S"])
    after = snap(impl, r, impl.apply(r, st, build("QC", [], 3, 0)))
    assert after.table == (loose("9C"), loose("5D"), loose("2S"), Unit(cs("QC"), 3, 0, True))
    after = snap(impl, r, impl.apply(r, st, trail("9H")))
    assert after.table == (loose("9C"), loose("5D"), loose("2S"), loose("9H"))
    after = snap(impl, r, impl.apply(r, st, cap("9H", "9C")))
    assert after.table == (loose("5D"), loose("2S"))
    r = rules("classic", 2)
    st = state(impl, r, hands=[["KS"], ["3C"]], table=["2C", "9S", "3D", "5H"])
    after = snap(impl, r, impl.apply(r, st, cap("KS", "9S", "5H")))
    assert after.table == (loose("2C"), loose("3D"))


# ---------------------------------------------------------------------------------------------
# A.7 jokers
# ---------------------------------------------------------------------------------------------
def test_20_joker_takes_15_joker_plus_5_unless_joker_sum_capture_is_off(impl):
    kw = dict(hands=[["X20", "2C"], ["2H"], ["3H"], ["4H"]], table=["X15", "5C"])
    r = rules("dithmarschen")
    assert captures_of(impl.legal_moves(r, state(impl, r, **kw)), "X20") == sets("X15 5C")
    r = rules("dithmarschen", joker_sum_capture=False)
    assert captures_of(impl.legal_moves(r, state(impl, r, **kw)), "X20") == set()


def test_a_table_joker_can_be_built_down_and_then_taken(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["5D", "TC"], ["2H"], ["3H"], ["4H"]], table=["X15"])
    m = build("5D", ["X15"], 10, 0)  # 15 - 5, held: the 10
    assert m in impl.legal_moves(r, st)
    after = snap(impl, r, impl.apply(r, st, m))
    assert after.table == (Unit(cs("X15 5D"), 10, 0, True),)


def test_grupp_wild_joker_counts_any_value_from_2_to_14(impl):
    r = rules("grupp", 2)
    snapshot = make_snapshot(r, hands=[["KS", "2C"], ["3C"]], table=["XW"])
    joker = frozenset(snapshot.table[0].cards)
    moves = impl.legal_moves(r, impl.from_snapshot(r, snapshot))
    assert captures_of(moves, "KS") == {joker} and captures_of(moves, "2C") == {joker}
    # played: one value 2..14 for all groups, so 9 and 6 but not 9 + 6 = 15
    snapshot = make_snapshot(r, hands=[["XW"], ["3C"]], table=["9C", "6D"])
    moves = impl.legal_moves(r, impl.from_snapshot(r, snapshot))
    assert captures_of(moves, snapshot.hands[0][0]) == sets("9C", "6D")


def grupp_joker_position(impl, joker_capture: str, table: list):
    r = rules("grupp", 2, joker_capture=joker_capture, forced_capture=False)
    snapshot = make_snapshot(r, hands=[["5D", "XW"], ["2C"]], table=table)
    return r, impl.from_snapshot(r, snapshot), snapshot.hands[0][1], snapshot.table


@pytest.mark.parametrize("option", ["any", "joker_only", "lone_joker_only", "never"])
def test_grupp_joker_capture_options(impl, option):
    r, st, my_joker, table = grupp_joker_position(impl, option, ["XW", "5C"])
    table_joker = table[0].cards[0]
    moves = impl.legal_moves(r, st)
    five = frozenset(cs("5C"))
    joker = frozenset([table_joker])
    expected_5d = {"any": {joker, five, joker | five}}.get(option, {five})
    assert captures_of(moves, "5D") == expected_5d
    joker_taken_by_joker = any(table_joker in s for s in captures_of(moves, my_joker))
    assert joker_taken_by_joker == (option in ("any", "joker_only"))
    # under every setting but "any" no build is made on a unit with a wild joker
    on_joker = [m for m in moves if m.kind == "build" and table_joker in m.target]
    assert bool(on_joker) == (option == "any")
    # the joker alone on the table
    r, st, my_joker, table = grupp_joker_position(impl, option, ["XW"])
    alone = frozenset(table[0].cards)
    expected_alone = {"any": {alone}, "joker_only": set(), "lone_joker_only": {alone}, "never": set()}
    assert captures_of(impl.legal_moves(r, st), "5D") == expected_alone[option]


@pytest.mark.parametrize("option", ["any", "joker_only", "lone_joker_only", "never"])
def test_grupp_joker_capture_applies_to_builds_containing_a_joker(impl, option):
    r = rules("grupp", 2, joker_capture=option)
    st = state(impl, r, hands=[["TD"], ["2C"]], table=[{"cards": ["XW", "3C"], "value": 10}])
    taken = captures_of(impl.legal_moves(r, st), "TD")
    # joker_only: the played card is no joker; lone_joker_only: the build is the only unit
    assert bool(taken) == (option in ("any", "lone_joker_only"))


def test_joker_sweep_is_zwick_option(impl):
    for option, expected in ((True, 1), (False, 0)):
        r = rules("grupp", 2, joker_sweep_is_zwick=option)
        snapshot = make_snapshot(r, hands=[["XW", "2D"], ["3C"]], table=["5C"])
        st = impl.from_snapshot(r, snapshot)
        m = MoveKey("capture", snapshot.hands[0][-1], taken=cs("5C"))
        assert impl.legal_moves(r, st) == [m]  # forced: the joker (as 5) is the only capture
        assert impl.is_zwick(r, st, m) == option
        after = snap(impl, r, impl.apply(r, st, m))
        assert after.zwicks == (expected, 0) and after.table == () and after.last_capturer == 0
        # a sweep by an ordinary card is a Zwick either way
        st = state(impl, r, hands=[["5D"], ["3C"]], table=["5C"])
        assert impl.is_zwick(r, st, cap("5D", "5C"))


# ---------------------------------------------------------------------------------------------
# A.6 owner's duty
# ---------------------------------------------------------------------------------------------
def test_one_queen_cannot_guard_a_3_build_and_a_13_build(impl):
    r = rules("dithmarschen")
    b3 = {"cards": ["AC", "2C"], "value": 3, "owner": 0}
    st = state(impl, r, hands=[["QS", "8D"], ["2H"], ["3H"], ["4H"]], table=[b3, "5H"])
    moves = impl.legal_moves(r, st)
    assert build("8D", ["5H"], 13, 0) not in moves
    assert trail("8D") in moves and trail("QS") not in moves  # the Queen guards the 3-build
    st = state(impl, r, hands=[["QS", "QH", "8D"], ["2H"], ["3H"], ["4H"]], table=[b3, "5H"])
    assert build("8D", ["5H"], 13, 0) in impl.legal_moves(r, st)


def test_one_card_guards_several_builds_of_the_same_value(impl):
    r = rules("dithmarschen")
    b3a = {"cards": ["AC", "2C"], "value": 3, "owner": 0}
    b3b = {"cards": ["AD", "2D"], "value": 3, "owner": 0}
    st = state(impl, r, hands=[["QS", "8D"], ["2H"], ["3H"], ["4H"]], table=[b3a, b3b])
    moves = impl.legal_moves(r, st)
    assert trail("8D") in moves and trail("QS") not in moves


def test_last_x_card_only_takes_all_own_x_builds(impl):
    r = rules("dithmarschen")
    b1 = {"cards": ["4C", "3C"], "value": 7, "owner": 0}
    b2 = {"cards": ["5D", "2D"], "value": 7, "owner": 0}
    st = state(impl, r, hands=[["7S", "KH"], ["2H"], ["3H"], ["4H"]], table=[b1, b2, "7H"])
    moves = [m for m in impl.legal_moves(r, st) if m.card == c("7S")]
    assert sorted(moves) == sorted([cap("7S", "4C 3C 5D 2D"), cap("7S", "4C 3C 5D 2D 7H")])


def test_nobody_builds_with_his_last_card_except_for_partner(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["5C"], ["2H"], ["9S"], ["KC"]], table=["4D"])
    assert impl.legal_moves(r, st) == [trail("5C")]  # 4 + 5 = 9 would be unheld
    b9 = {"cards": ["6H", "3H"], "value": 9, "owner": 2}
    st = state(impl, r, hands=[["5C"], ["2H"], ["9S"], ["KC"]], table=["4D", b9])
    # the partner (seat 2) owns a 9-build: 4 + 5 = 9 for him
    assert impl.legal_moves(r, st) == sorted([trail("5C"), build("5C", ["4D"], 9, 2)])
    after = snap(impl, r, impl.apply(r, st, build("5C", ["4D"], 9, 2)))
    assert after.table == (Unit(cs("4D 5C"), 9, 2, True), Unit(cs("6H 3H"), 9, 2, True))
    assert after.hands[0] == () and after.to_move == 1


def test_no_builds_for_opponents_or_in_individual_games(impl):
    r = rules("christiansen")  # individuals: no partner builds
    b9 = {"cards": ["6H", "3H"], "value": 9, "owner": 1}
    st = state(impl, r, hands=[["5C"], ["9S"], ["KC"]], table=["4D", b9])
    assert impl.legal_moves(r, st) == [trail("5C")]
    r = rules("dithmarschen")  # seat 1 is an opponent of seat 0
    st = state(impl, r, hands=[["5C"], ["9S"], ["2C"], ["KC"]], table=["4D", b9])
    assert impl.legal_moves(r, st) == [trail("5C")]


def test_a_build_for_partner_still_checks_the_movers_own_duty(impl):
    r = rules("dithmarschen")
    b7 = {"cards": ["4C", "3C"], "value": 7, "owner": 0}
    b9 = {"cards": ["6H", "3H"], "value": 9, "owner": 2}
    m = build("7S", ["2D"], 9, 2)  # 2 + 7 = 9 for the partner
    st = state(impl, r, hands=[["7S", "5C"], ["2H"], ["9S"], ["KC"]], table=[b7, b9, "2D"])
    assert m not in impl.legal_moves(r, st)  # the 7S guards seat 0's own 7-build
    st = state(impl, r, hands=[["7S", "7H"], ["2H"], ["9S"], ["KC"]], table=[b7, b9, "2D"])
    assert m in impl.legal_moves(r, st)


def test_for_partner_with_teams_of_three_names_the_partner(impl):
    r = rules("grossenwiehe", 6)  # sides (0, 2, 4) and (1, 3, 5)
    b9a = {"cards": ["6H", "3H"], "value": 9, "owner": 2}
    b9b = {"cards": ["6S", "3S"], "value": 9, "owner": 4}
    hands = [["5C"], ["2H"], ["9S"], ["2S"], ["9H"], ["2D"]]
    st = state(impl, r, hands=hands, table=["4D", b9a, b9b])
    assert builds_of(impl.legal_moves(r, st), "5C") == {(cs("4D"), 9, 2), (cs("4D"), 9, 4)}


# ---------------------------------------------------------------------------------------------
# A.6 asking the partner (grossenwiehe, magger)
# ---------------------------------------------------------------------------------------------
def test_magger_asks_are_offered_for_every_value_buildable_for_partner(impl):
    r = rules("grossenwiehe")  # 4 players, 0+2 vs 1+3, magger on
    st = state(impl, r, hands=[["5C", "KD"], ["2H"], ["9S", "2D"], ["3C"]], table=["4D"])
    moves = impl.legal_moves(r, st)
    # values the mover could build: 5 alone 5, on 4: 9; K alone 4 or 14, on 4: 8, 4 (4 == 4), 18
    assert sorted(m for m in moves if m.kind == "ask") == sorted(ask(2, n) for n in (4, 5, 8, 9, 14, 18))
    assert not any(m.kind == "build" and m.owner == 2 for m in moves)


def test_magger_yes_allows_the_build_for_partner(impl):
    r = rules("grossenwiehe")
    st = state(impl, r, hands=[["5C", "KD"], ["2H"], ["9S", "2D"], ["3C"]], table=["4D"])
    st = impl.apply(r, st, ask(2, 9))
    after = snap(impl, r, st)
    assert after.asked == (2, 9, 1) and after.to_move == 0 and after.phase == PHASE_NORMAL
    moves = impl.legal_moves(r, st)
    assert not any(m.kind == "ask" for m in moves)  # once per turn
    assert {(m.target, m.value) for m in moves if m.kind == "build" and m.owner == 2} == {(cs("4D"), 9)}
    st = impl.apply(r, st, build("5C", ["4D"], 9, 2))
    after = snap(impl, r, st)
    assert after.asked == (-1, -1, -1) and after.to_move == 1
    assert after.table == (Unit(cs("4D 5C"), 9, 2, True),)


def test_magger_no_allows_nothing(impl):
    r = rules("grossenwiehe")
    st = state(impl, r, hands=[["5C", "KD"], ["2H"], ["9S", "2D"], ["3C"]], table=["4D"])
    st = impl.apply(r, st, ask(2, 5))
    assert snap(impl, r, st).asked == (2, 5, 0)
    assert not any(m.kind == "build" and m.owner == 2 for m in impl.legal_moves(r, st))


def test_magger_answer_uses_the_owners_duty_matching(impl):
    r = rules("grossenwiehe")
    b13 = {"cards": ["8D", "5D"], "value": 13, "owner": 2}
    for partner_hand, answer in ((["QS"], 0), (["QS", "QH"], 1)):
        st = state(impl, r, hands=[["2C", "KD"], ["5H"], partner_hand, ["6C"]], table=["AH", b13])
        assert ask(2, 3) in impl.legal_moves(r, st)  # 2 on the Ace (as 1) makes 3
        # one Queen cannot answer for the 13-build and a 3-build
        assert snap(impl, r, impl.apply(r, st, ask(2, 3))).asked == (2, 3, answer)


def test_no_ask_for_a_value_the_partner_already_owns(impl):
    r = rules("grossenwiehe")
    b9 = {"cards": ["6H", "3H"], "value": 9, "owner": 2}
    st = state(impl, r, hands=[["5C", "KD"], ["2H"], ["9S", "2D"], ["3C"]], table=["4D", b9])
    moves = impl.legal_moves(r, st)
    assert ask(2, 9) not in moves and build("5C", ["4D"], 9, 2) in moves


def test_no_asks_without_magger(impl):
    hands = [["5C", "KD"], ["2H"], ["9S", "2D"], ["3C"]]
    for r in (rules("grossenwiehe", magger=False), rules("dithmarschen")):
        st = state(impl, r, hands=hands, table=["4D"])
        assert not any(m.kind == "ask" for m in impl.legal_moves(r, st))


# ---------------------------------------------------------------------------------------------
# A.9 after_zwick
# ---------------------------------------------------------------------------------------------
def zwick_position(impl, after_zwick: str, third_hand=("5S", "6S"), first_hand=("QH", "2C")):
    r = rules("classic", 3, after_zwick=after_zwick)
    st = state(impl, r, hands=[list(first_hand), ["3D", "4D"], list(third_hand)], table=["QC"])
    return r, impl.apply(r, st, cap("QH", "QC"))


def test_after_zwick_next_trails(impl):
    r, st = zwick_position(impl, "next_trails")
    after = snap(impl, r, st)
    assert (after.to_move, after.phase, after.zwicks) == (1, PHASE_NORMAL, (1, 0, 0))
    assert impl.legal_moves(r, st) == sorted([trail("3D"), trail("4D")])  # empty table


def test_after_zwick_zwicker_trails(impl):
    r, st = zwick_position(impl, "zwicker_trails")
    assert (snap(impl, r, st).to_move, snap(impl, r, st).phase) == (0, PHASE_AFTER_ZWICK_TRAIL)
    assert impl.legal_moves(r, st) == [trail("2C")]
    st = impl.apply(r, st, trail("2C"))
    after = snap(impl, r, st)
    assert (after.to_move, after.phase) == (1, PHASE_NORMAL)
    assert after.table == (loose("2C"),)
    # with his last card the Zwicker has nothing to trail: the next player goes on
    r, st = zwick_position(impl, "zwicker_trails", first_hand=("QH",))
    assert (snap(impl, r, st).to_move, snap(impl, r, st).phase) == (1, PHASE_NORMAL)


def test_after_zwick_all_trail(impl):
    r, st = zwick_position(impl, "all_trail", third_hand=("3S", "6S"))
    seen = []
    for card in ("3D", "3S", "2C"):
        s = snap(impl, r, st)
        seen.append((s.to_move, s.phase, s.az_left))
        moves = impl.legal_moves(r, st)
        assert all(m.kind == "trail" for m in moves)  # seat 2 could take the 3D, but must trail
        st = impl.apply(r, st, trail(card))
    # the round visits seats 1, 2 and then the Zwicker (0); az_left counts the seats still to visit
    az = PHASE_AFTER_ZWICK_TRAIL
    assert seen == [(1, az, 3), (2, az, 2), (0, az, 1)]
    after = snap(impl, r, st)
    assert (after.to_move, after.phase, after.az_left) == (1, PHASE_NORMAL, 0)
    assert after.table == (loose("3D"), loose("3S"), loose("2C"))


def test_after_zwick_all_trail_skips_empty_hands(impl):
    r, st = zwick_position(impl, "all_trail", third_hand=())
    s = snap(impl, r, st)
    assert (s.to_move, s.phase, s.az_left) == (1, PHASE_AFTER_ZWICK_TRAIL, 3)
    st = impl.apply(r, st, trail("3D"))
    s = snap(impl, r, st)
    assert (s.to_move, s.phase, s.az_left) == (0, PHASE_AFTER_ZWICK_TRAIL, 1)  # seat 2 skipped
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert (s.to_move, s.phase, s.az_left) == (1, PHASE_NORMAL, 0)


def test_players_without_cards_are_skipped(impl):
    r = rules("classic", 3)
    st = state(impl, r, hands=[["2C", "3C"], [], ["4D"]], table=["9S"])
    st = impl.apply(r, st, trail("3C"))
    assert snap(impl, r, st).to_move == 2


# ---------------------------------------------------------------------------------------------
# A.9 Dietze options
# ---------------------------------------------------------------------------------------------
def test_dietze_loose_builds(impl):
    build11 = {"cards": ["4C", "7C"], "value": 11}
    kw = dict(hands=[["7H", "2S"], ["3C"]], table=[build11, "3D"])
    r = rules("classic", 2)
    assert captures_of(impl.legal_moves(r, state(impl, r, **kw)), "7H") == set()
    r = rules("classic", 2, dietze_loose_builds=True)
    st = state(impl, r, **kw)
    # card by card: {7C} and {4C, 3D}; the build goes whole, so this is the only capture
    assert captures_of(impl.legal_moves(r, st), "7H") == sets("4C 7C 3D")
    assert impl.is_zwick(r, st, cap("7H", "4C", "7C", "3D"))
    # taking only some cards of a build is not allowed
    st = state(impl, r, hands=[["7H", "2S"], ["3C"]], table=[build11])
    assert captures_of(impl.legal_moves(r, st), "7H") == set()
    # the whole pile at its total still works
    st = state(impl, r, hands=[["AS"], ["3C"]], table=[build11, "3D"])
    assert captures_of(impl.legal_moves(r, st), "AS") == sets("4C 7C")


def test_dietze_min_table_at_the_deal(impl):
    r = rules("dithmarschen", dietze_min_table=4)
    st = impl.deal(r, list(r.deck), 3)
    s = snap(impl, r, st)
    assert len(s.table) == 3 and s.to_move == 0 and s.phase == PHASE_DIETZE_TRAIL
    assert impl.legal_moves(r, st) == sorted(MoveKey("trail", x) for x in s.hands[0])
    st = impl.apply(r, st, MoveKey("trail", s.hands[0][0]))
    s = snap(impl, r, st)
    assert len(s.table) == 4 and s.to_move == 0 and s.phase == PHASE_NORMAL
    r = rules("dithmarschen")
    assert snap(impl, r, impl.deal(r, list(r.deck), 3)).phase == PHASE_NORMAL


def test_dietze_min_table_during_play(impl):
    r = rules("classic", 2, dietze_min_table=4)
    st = state(impl, r, hands=[["5C", "2D", "3D"], ["5S", "9H", "8H"]], table=["5D"])
    st = impl.apply(r, st, cap("5C", "5D"))  # a Zwick: seat 1 must trail up to 4 units
    for card in ("5S", "9H", "8H"):
        s = snap(impl, r, st)
        assert (s.to_move, s.phase) == (1, PHASE_DIETZE_TRAIL)
        assert all(m.kind == "trail" for m in impl.legal_moves(r, st))
        st = impl.apply(r, st, trail(card))
    # seat 1's hand ran out at 3 units: seat 0 continues
    s = snap(impl, r, st)
    assert (s.to_move, s.phase, len(s.table)) == (0, PHASE_DIETZE_TRAIL, 3)
    st = impl.apply(r, st, trail("2D"))
    s = snap(impl, r, st)
    assert (s.to_move, s.phase, len(s.table)) == (0, PHASE_NORMAL, 4)


def test_dietze_min_table_tops_up_from_the_stock_at_the_stage_end(impl):
    r = rules("classic", 2, dietze_min_table=4)
    stock = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "TH", "JH"]
    st = state(impl, r, hands=[["2C"], []], table=["KD"], stock=stock, dealer=1)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    # 2 stock cards to the table (4 units), then 4 each one at a time from forehand (seat 0)
    assert s.table == (loose("KD"), loose("2C"), loose("2H"), loose("3H"))
    assert s.hands == (cs("4H 6H 8H TH"), cs("5H 7H 9H JH"))
    assert (s.stage, s.to_move, s.phase, s.stock) == (1, 0, PHASE_NORMAL, ())


# ---------------------------------------------------------------------------------------------
# A.8 end of hand and scoring
# ---------------------------------------------------------------------------------------------
def test_leftovers_go_to_the_last_capturer(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["2C"], []], table=["KD", "9S"], last_capturer=1)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert s.phase == PHASE_OVER and s.table == () and s.won == ((), cs("KD 9S 2C"))
    assert s.zwicks == (0, 0)  # the sweep at the end is not a Zwick
    assert impl.legal_moves(r, st) == []
    assert impl.score(r, st) == (0, 1)  # most cards only


def test_leftovers_go_to_nobody_without_a_capture(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["2C"], []], table=["KD", "9S"], last_capturer=-1)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert s.phase == PHASE_OVER and s.won == ((), ())
    assert impl.score(r, st) == (0, 0)


def test_capture_with_the_last_card_emptying_the_table_is_a_zwick(impl):
    r = rules("classic", 2)
    st = state(impl, r, hands=[["9C"], []], table=["9S"])
    assert impl.is_zwick(r, st, cap("9C", "9S"))
    st = impl.apply(r, st, cap("9C", "9S"))
    s = snap(impl, r, st)
    assert s.phase == PHASE_OVER and s.zwicks == (1, 0)
    assert impl.score(r, st) == (4, 0)  # most cards 1 + Zwick 3


def test_builds_stay_on_the_table_from_stage_to_stage(impl):
    r = rules("classic", 2)
    stock = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H"]
    st = state(impl, r, hands=[["2C"], []], table=[{"cards": ["4C", "7C"], "value": 11}], stock=stock)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert s.table == (Unit(cs("4C 7C"), 11, -1, True), loose("2C"))
    assert s.stage == 1 and s.hands == (cs("2H 4H 6H 8H"), cs("3H 5H 7H 9H"))


# Points from the table in A.8, per variant: (card, points).
POINTS = {
    "classic": [("TD", 10), ("AS", 2), ("AC", 2), ("7D", 1), ("7S", 1), ("7C", 0), ("TS", 0), ("KH", 0)],
    "grupp": [("TD", 10), ("AH", 2), ("7D", 1), ("7S", 1), ("XW", 0), ("QS", 0)],
    "dithmarschen": [
        ("X25", 7), ("X20", 6), ("X15", 5), ("TD", 3), ("TS", 1), ("2S", 1), ("AC", 1), ("TC", 0),
        ("7D", 0),
    ],
    "grossenwiehe": [
        ("X30", 20), ("X25", 15), ("X22", 12), ("X20", 10), ("X17", 7), ("X15", 5), ("TD", 3),
        ("TC", 1), ("TH", 1), ("TS", 1), ("2S", 1), ("AH", 1), ("2C", 0),
    ],
    "christiansen": [
        ("X30", 7), ("X25", 6), ("X20", 5), ("X15", 4), ("TD", 3), ("TS", 1), ("2S", 1), ("AD", 1),
        ("TC", 0), ("7D", 0),
    ],
}  # fmt: skip
CARD_TOTAL = {"classic": 21, "grupp": 21, "dithmarschen": 30, "grossenwiehe": 83, "christiansen": 34}
MOST_CARDS = {"classic": 1, "grupp": 1, "dithmarschen": 3, "grossenwiehe": 3, "christiansen": 3}
ZWICK_POINTS = {"classic": 3, "grupp": 3, "dithmarschen": 1, "grossenwiehe": 1, "christiansen": 1}


def two_sided(variant: str) -> Rules:
    return rules(variant, 2)


def over_position(r: Rules, won: list[list[int]], zwicks=None) -> Snapshot:
    return Snapshot(
        hands=((),) * r.players,
        table=(),
        stock=(),
        won=tuple(tuple(sorted(w)) for w in won),
        zwicks=tuple(zwicks or (0,) * r.num_sides),
        dealer=0,
        to_move=-1,
        stage=0,
        last_capturer=0,
        phase=PHASE_OVER,
        az_left=0,
        asked=(-1, -1, -1),
    )


@pytest.mark.parametrize("variant", sorted(POINTS))
def test_card_points(impl, variant):
    r = two_sided(variant)
    filler = c("3C")  # no points anywhere
    for name, points in POINTS[variant]:
        st = impl.from_snapshot(r, over_position(r, [[c(name)], [filler]]))
        assert impl.score(r, st) == (points, 0), name  # one card each: no most-cards


@pytest.mark.parametrize("variant", sorted(CARD_TOTAL))
def test_card_totals_most_cards_and_zwicks(impl, variant):
    r = two_sided(variant)
    deck = list(r.deck)
    total, most, zp = CARD_TOTAL[variant], MOST_CARDS[variant], ZWICK_POINTS[variant]
    st = impl.from_snapshot(r, over_position(r, [deck, []], zwicks=(2, 1)))
    assert impl.score(r, st) == (total + 2 * zp, zp)
    # most cards tied: nobody scores it
    if len(deck) % 2 == 0:
        st = impl.from_snapshot(r, over_position(r, [deck[0::2], deck[1::2]]))
        assert sum(impl.score(r, st)) == total - most
    # side 1 holds only the last card of the sorted deck (AS, XW, X25, X30, X30), one of POINTS
    last_points = dict(POINTS[variant])[format_card(deck[-1])]
    st = impl.from_snapshot(r, over_position(r, [deck[:-1], deck[-1:]]))
    assert impl.score(r, st) == (total - last_points, last_points)


def test_grossenwiehe_is_80_when_most_cards_is_tied(impl):
    r = rules("grossenwiehe", 2)
    deck = list(r.deck)  # 58 cards: 29 each
    st = impl.from_snapshot(r, over_position(r, [deck[:29], deck[29:]]))
    assert sum(impl.score(r, st)) == 80


def test_two_packs_score_every_copy(impl):
    r = rules("classic", 5)
    deck = list(r.deck)
    assert len(deck) == 104
    won = [deck, [], [], [], []]
    assert impl.score(r, impl.from_snapshot(r, over_position(r, won)))[0] == 41
    td_twice = [[c("TD"), c("TD") + 52], [1, 2], [3, 4], [5, 6], [7, 8]]  # 3C..9C: no points
    assert impl.score(r, impl.from_snapshot(r, over_position(r, td_twice)))[0] == 20


def test_score_is_valid_during_play(impl):
    r = rules("dithmarschen")
    st = state(impl, r, hands=[["5C"], ["2H"], ["3H"], ["4H"]], table=["5S"], won=[["TD", "X25"], ["TS"]])
    # side 0: 3 + 7 + most cards 3 (2 cards vs 1); side 1: 1
    assert impl.score(r, st) == (13, 1)
    st = impl.apply(r, st, cap("5C", "5S"))  # a Zwick: 1 point
    assert impl.score(r, st) == (14, 1)


def test_partners_pool_cards_and_zwicks(impl):
    r = rules("dithmarschen")  # sides (0, 2) and (1, 3)
    st = state(impl, r, hands=[["2C"], ["3C"], ["5C", "6C"], ["4C"]], table=["5S"], to_move=2)
    after = snap(impl, r, impl.apply(r, st, cap("5C", "5S")))
    assert after.won == (cs("5C 5S"), ()) and after.zwicks == (1, 0)
    assert after.last_capturer == 0 and after.to_move == 3  # the side, not the seat
    r = rules("grossenwiehe", 6, team_size=2)  # sides (0, 3), (1, 4), (2, 5)
    hands = [["2C"], ["3C"], ["4C"], ["6C"], ["5C", "7C"], ["8C"]]
    st = state(impl, r, hands=hands, table=["5S", "9D"], to_move=4)
    after = snap(impl, r, impl.apply(r, st, cap("5C", "5S")))
    assert after.won == ((), cs("5C 5S"), ()) and after.zwicks == (0, 0, 0) and after.last_capturer == 1


# ---------------------------------------------------------------------------------------------
# A.3 deal
# ---------------------------------------------------------------------------------------------
def test_classic_deals_one_at_a_time_from_forehand_then_4_to_the_table(impl):
    r = rules("classic")
    rng = random.Random(7)
    order = list(r.deck)
    rng.shuffle(order)
    s = snap(impl, r, impl.deal(r, order, 3))
    for seat in range(4):
        assert s.hands[seat] == tuple(sorted(order[seat:16:4]))
    assert s.table == tuple(Unit((x,), 0, -1, False) for x in order[16:20])
    assert s.stock == tuple(order[20:])
    assert (s.to_move, s.dealer, s.stage, s.phase) == (0, 3, 0, PHASE_NORMAL)
    assert s.won == ((), (), (), ()) and s.zwicks == (0, 0, 0, 0) and s.last_capturer == -1
    # the dealer's left-hand neighbour is forehand
    s = snap(impl, r, impl.deal(r, order, 1))
    assert s.to_move == 2 and s.hands[2] == tuple(sorted(order[0:16:4]))


def test_grossenwiehe_deals_2_each_5_table_2_each_5_table(impl):
    r = rules("grossenwiehe")
    order = list(r.deck)
    random.Random(3).shuffle(order)
    s = snap(impl, r, impl.deal(r, order, 3))
    for seat in range(4):
        first, second = order[2 * seat : 2 * seat + 2], order[13 + 2 * seat : 15 + 2 * seat]
        assert s.hands[seat] == tuple(sorted(first + second))
    assert [u.cards[0] for u in s.table] == order[8:13] + order[21:26]
    assert s.stock == tuple(order[26:])


def test_dithmarschen_3_players_deal_7_to_the_table_first(impl):
    r = rules("dithmarschen", 3)
    order = list(r.deck)
    random.Random(5).shuffle(order)
    s = snap(impl, r, impl.deal(r, order, 2))
    assert [u.cards[0] for u in s.table] == order[:7]
    assert s.hands[0] == tuple(sorted(order[7:19:3]))


def test_dithmarschen_final_stage_deals_5_each(impl):
    r = rules("dithmarschen")
    stock = [x for x in r.deck if x not in cs("2C", "3C", "KD")][:20]
    names = [format_card(x) for x in stock]
    st = state(impl, r, hands=[["2C"], [], [], []], table=["KD", "3C"], stock=names, stage=1, last_capturer=0)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert s.stage == 2 and [len(h) for h in s.hands] == [5, 5, 5, 5]
    assert s.hands[0] == tuple(sorted(stock[0:20:4]))


def test_grupp_last_stage_one_at_a_time_as_far_as_the_cards_go(impl):
    r = rules("grupp")
    names = ["2H", "3H", "4H", "5H", "6H", "7H"]
    st = state(impl, r, hands=[["2C"], [], [], []], table=["KD"], stock=names, stage=3)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    assert s.hands == (cs("2H 6H"), cs("3H 7H"), cs("4H"), cs("5H"))


def test_grossenwiehe_later_stages_deal_two_at_a_time(impl):
    r = rules("grossenwiehe")
    names = ["2H", "3H", "4H", "5H", "6H", "7H", "8H", "9H", "2D", "3D", "4D", "5D", "6D", "7D", "8D", "9D"]
    st = state(impl, r, hands=[["2C"], [], [], []], table=["KD"], stock=names, last_capturer=0)
    st = impl.apply(r, st, trail("2C"))
    s = snap(impl, r, st)
    # packets of two from forehand (seat 0): 2H 3H | 4H 5H | 6H 7H | 8H 9H, then the diamonds
    assert s.hands == (cs("2H 3H 2D 3D"), cs("4H 5H 4D 5D"), cs("6H 7H 6D 7D"), cs("8H 9H 8D 9D"))


# Per-stage hand sizes from forehand on, and table size, from A.3 (arithmetic in comments).
DEAL_PLANS = [
    # classic: 52 cards; 104 with more than 4 players; 8 table cards for 6, 8, 12 players
    ("classic", 2, 4, [[4] * 2] * 6),  # 48 / 8
    ("classic", 3, 4, [[4] * 3] * 4),  # 48 / 12
    ("classic", 4, 4, [[4] * 4] * 3),  # 48 / 16
    ("classic", 5, 4, [[4] * 5] * 5),  # 100 / 20
    ("classic", 6, 8, [[4] * 6] * 4),  # 96 / 24
    ("classic", 7, 4, [[4] * 7] * 3 + [[3, 3, 2, 2, 2, 2, 2]]),  # 100 = 3 * 28 + 16
    ("classic", 8, 8, [[4] * 8] * 3),  # 96 / 32
    ("classic", 9, 4, [[4] * 9] * 2 + [[4] + [3] * 8]),  # 100 = 2 * 36 + 28
    ("classic", 10, 4, [[4] * 10] * 2 + [[2] * 10]),  # 100 = 2 * 40 + 20
    ("classic", 11, 4, [[4] * 11] * 2 + [[2] + [1] * 10]),  # 100 = 2 * 44 + 12
    ("classic", 12, 8, [[4] * 12] * 2),  # 96 / 48
    # grupp: 58 cards, 4 table, 54 left
    ("grupp", 2, 4, [[4] * 2] * 6 + [[3, 3]]),  # 54 = 6 * 8 + 6
    ("grupp", 3, 4, [[4] * 3] * 4 + [[2, 2, 2]]),  # 54 = 4 * 12 + 6
    ("grupp", 4, 4, [[4] * 4] * 3 + [[2, 2, 1, 1]]),  # 54 = 3 * 16 + 6
    ("grupp", 5, 4, [[4] * 5] * 2 + [[3, 3, 3, 3, 2]]),  # 54 = 2 * 20 + 14
    ("grupp", 6, 4, [[4] * 6] * 2 + [[1] * 6]),  # 54 = 2 * 24 + 6
    ("grupp", 7, 4, [[4] * 7] + [[4, 4, 4, 4, 4, 3, 3]]),  # 54 = 28 + 26
    ("grupp", 8, 4, [[4] * 8] + [[3] * 6 + [2, 2]]),  # 54 = 32 + 22
    # dithmarschen: 55 cards
    ("dithmarschen", 4, 3, [[4] * 4, [4] * 4, [5] * 4]),  # 3 + 16 + 16 + 20
    ("dithmarschen", 2, 3, [[4, 4]] * 5 + [[6, 6]]),  # 3 + 5 * 8 + 12
    ("dithmarschen", 3, 7, [[4] * 3] * 4),  # 7 + 4 * 12
    # grossenwiehe: 58 cards, 10 on the table, 48 left
    ("grossenwiehe", 2, 10, [[4] * 2] * 6),
    ("grossenwiehe", 3, 10, [[4] * 3] * 4),
    ("grossenwiehe", 4, 10, [[4] * 4] * 3),
    ("grossenwiehe", 6, 10, [[4] * 6] * 2),
    # christiansen: 56 cards, 8 on the table, 48 left
    ("christiansen", 2, 8, [[8, 8]] * 3),
    ("christiansen", 3, 8, [[8] * 3] * 2),
    ("christiansen", 4, 8, [[6] * 4] * 2),
]


@pytest.mark.parametrize(("variant", "players", "table", "stages"), DEAL_PLANS)
def test_deal_plans(impl, variant, players, table, stages):
    r = rules(variant, players)
    rng = random.Random(players)
    order = list(r.deck)
    rng.shuffle(order)
    dealer = players - 1  # seat 0 is forehand, so hand sizes read from seat 0 on
    st = impl.deal(r, order, dealer)
    s = snap(impl, r, st)
    assert len(s.table) == table
    seen = {0: [len(h) for h in s.hands]}
    while s.phase != PHASE_OVER:
        st = impl.apply(r, st, rng.choice(impl.legal_moves(r, st)))
        s = snap(impl, r, st)
        if s.phase != PHASE_OVER and s.stage not in seen:
            seen[s.stage] = [len(h) for h in s.hands]
    assert [seen[k] for k in sorted(seen)] == stages


def test_two_packs_with_more_than_4_players_and_identical_copies(impl):
    r = rules("classic", 5)
    assert len(r.deck) == 104
    st = state(impl, r, hands=[["QS", "QS", "2C"], ["3C"], ["4C"], ["5C"], ["6C"]], table=["KD"])
    # only the lowest id of identical cards is playable; Q 13 and 2 take nothing, K 14 builds over 14
    assert impl.legal_moves(r, st) == sorted([trail("2C"), trail("QS")])
    # table copies are not merged: a Queen takes either Queen of spades or both
    st = state(impl, r, hands=[["QH"], ["3C"], ["4C"], ["5C"], ["6C"]], table=["QS", "QS"])
    q1, q2 = c("QS"), c("QS") + 52
    assert captures_of(impl.legal_moves(r, st), "QH") == {
        frozenset([q1]),
        frozenset([q2]),
        frozenset([q1, q2]),
    }


def test_identical_wild_jokers_in_hand(impl):
    r = rules("grupp", 2, forced_capture=False)
    snapshot = make_snapshot(r, hands=[["XW", "XW"], ["3C"]], table=[])
    moves = impl.legal_moves(r, impl.from_snapshot(r, snapshot))
    assert moves == [MoveKey("trail", min(snapshot.hands[0]))]


# ---------------------------------------------------------------------------------------------
# apply contract
# ---------------------------------------------------------------------------------------------
def test_apply_rejects_illegal_moves_and_keeps_its_input(impl):
    r = rules("classic", 2)
    snapshot = make_snapshot(r, hands=[["KS", "2C"], ["3D"]], table=["9C", "5D"])
    st = impl.from_snapshot(r, snapshot)
    with pytest.raises(ValueError):
        impl.apply(r, st, trail("2C"))  # capture is compulsory
    with pytest.raises(ValueError):
        impl.apply(r, st, trail("3D"))  # not his card
    impl.apply(r, st, cap("KS", "9C", "5D"))
    assert impl.snapshot(r, st) == snapshot


# ---------------------------------------------------------------------------------------------
# random hands: conservation, scores, always a legal move
# ---------------------------------------------------------------------------------------------
def values_of(r: Rules, card: int) -> set[int]:
    """Matching values per A.2 / A.7 (test-side, for the owner's-duty check)."""
    name = format_card(card)
    if name == "XW":
        return set(range(2, 15))
    if name.startswith("X"):
        return {int(name[1:])}
    rank = name[0]
    if rank in "AJQK":
        high = {"A": 11, "J": 12, "Q": 13, "K": 14}[rank]
        return {high - 10, high} if r.dual else {high}
    return {"23456789T".index(rank) + 2}


def duty_holds(r: Rules, hand: tuple[int, ...], values: set[int]) -> bool:
    """Brute force: can the values be given distinct cards of the hand?"""
    values = sorted(values)
    if not values:
        return True
    v, rest = values[0], values[1:]
    return any(
        v in values_of(r, card) and duty_holds(r, hand[:i] + hand[i + 1 :], set(rest)) for i, card in enumerate(hand)
    )


def check_hand(impl, r: Rules, rng: random.Random) -> dict:
    order = list(r.deck)
    rng.shuffle(order)
    st = impl.deal(r, order, rng.randrange(r.players))
    deck = sorted(r.deck)
    moves_made = 0
    while True:
        s = snap(impl, r, st)
        everything = [x for h in s.hands for x in h] + [x for u in s.table for x in u.cards]
        everything += list(s.stock) + [x for w in s.won for x in w]
        assert sorted(everything) == deck, "conservation"
        moves = impl.legal_moves(r, st)
        if s.phase == PHASE_OVER:
            assert moves == []
            break
        assert moves, "a player always has a legal move until the hand is over"
        assert all(a < b for a, b in zip(moves, moves[1:], strict=False)), "distinct and sorted"
        assert s.hands[s.to_move], "the player to move holds a card"
        if s.phase in (PHASE_AFTER_ZWICK_TRAIL, PHASE_DIETZE_TRAIL):
            assert all(m.kind == "trail" for m in moves)
        units = {u.cards for u in s.table}
        for m in moves:
            assert m.kind == "ask" or m.card in s.hands[s.to_move]
            if m.kind == "build":  # one unit (or none): units are never combined
                assert m.target == () or m.target in units
            if m.kind == "capture":  # whole units only
                taken = set(m.taken)
                assert taken and all(set(u) <= taken or not set(u) & taken for u in units)
        if r.owner_builds:
            for seat in range(r.players):
                owned = {u.value for u in s.table if u.build and u.owner == seat}
                assert duty_holds(r, s.hands[seat], owned), "owner's duty"
        move = rng.choice(moves)
        st = impl.apply(r, st, move)
        moves_made += 1
    s = snap(impl, r, st)
    assert s.hands == ((),) * r.players and s.stock == ()
    variant = r.variant
    total = 41 if r.two_packs else CARD_TOTAL[variant]  # A.8: 41 with two packs
    zp = ZWICK_POINTS[variant]
    counts = [len(w) for w in s.won]
    tied = counts.count(max(counts)) > 1
    if s.last_capturer >= 0:
        assert s.table == ()
        expected = total - (MOST_CARDS[variant] if tied else 0) + zp * sum(s.zwicks)
        assert sum(impl.score(r, st)) == expected
    return {"moves": moves_made, "zwicks": sum(s.zwicks)}


# (variant, players, options, hands in the default run). The default run plays at least 300
# hands per variant (test_random_hands_cover_300_per_variant); slower configurations get fewer.
RANDOM_CONFIGS = [
    ("classic", 2, {}, 70),
    ("classic", 4, {}, 60),
    ("classic", 5, {}, 50),
    ("classic", 7, {"forced_capture": False}, 30),
    ("classic", 3, {"after_zwick": "all_trail", "dietze_loose_builds": True}, 50),
    ("classic", 4, {"dietze_min_table": 4, "after_zwick": "zwicker_trails"}, 50),
    ("grupp", 2, {}, 60),
    ("grupp", 4, {"joker_capture": "joker_only"}, 60),
    ("grupp", 4, {"joker_capture": "lone_joker_only", "joker_sweep_is_zwick": False}, 60),
    ("grupp", 8, {"joker_capture": "never", "capture_values": "several"}, 60),
    ("grupp", 3, {"after_zwick": "zwicker_trails", "dietze_loose_builds": True}, 60),
    ("dithmarschen", 4, {}, 60),
    ("dithmarschen", 2, {"joker_sum_capture": False}, 100),
    ("dithmarschen", 3, {"subtract": "either", "capture_values": "several"}, 80),
    ("dithmarschen", 4, {"dietze_min_table": 4, "dietze_loose_builds": True, "after_zwick": "all_trail"}, 60),
    ("grossenwiehe", 4, {}, 40),
    ("grossenwiehe", 2, {}, 80),
    ("grossenwiehe", 6, {}, 30),
    ("grossenwiehe", 6, {"team_size": 2, "after_zwick": "zwicker_trails"}, 30),
    ("grossenwiehe", 4, {"magger": False, "forced_capture": True}, 120),
    ("christiansen", 3, {}, 75),
    ("christiansen", 2, {"capture_values": "several"}, 75),
    ("christiansen", 4, {"forced_capture": True, "dietze_min_table": 4}, 150),
]


def config_id(config) -> str:
    variant, players, options, _ = config
    return f"{variant}{players}" + "".join(f"-{k}={v}" for k, v in options.items())


def run_random_hands(impl, variant, players, options, hands, seed):
    r = rules(variant, players, **options)
    rng = random.Random(seed)
    stats = [check_hand(impl, r, rng) for _ in range(hands)]
    assert sum(s["moves"] for s in stats) >= hands  # every hand had moves


def test_random_hands_cover_300_per_variant():
    per_variant = {}
    for variant, _, _, hands in RANDOM_CONFIGS:
        per_variant[variant] = per_variant.get(variant, 0) + hands
    assert set(per_variant) == set(CARD_TOTAL) and min(per_variant.values()) >= 300


@pytest.mark.parametrize("config", RANDOM_CONFIGS, ids=config_id)
def test_random_hands(impl, config):
    variant, players, options, hands = config
    run_random_hands(impl, variant, players, options, hands, seed=RANDOM_CONFIGS.index(config))


@pytest.mark.slow
@pytest.mark.parametrize("config", RANDOM_CONFIGS, ids=config_id)
def test_random_hands_many(impl, config):
    variant, players, options, _ = config
    run_random_hands(impl, variant, players, options, 300, seed=12345)
