"""The numba engine against the slow reference: same legal moves and same next states.

Positions come from random trajectories (seeded deals, uniformly random legal moves) and from
synthetic positions with many builds and owners, for every variant, player count and option.
The default suite checks at least 2,000 positions per main variant; ``-m slow`` checks many more.
"""

from __future__ import annotations

import random

import pytest

from tests.zwicker import engine_impl as E
from zwick_ai import cards as C
from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker import reference as Ref
from zwick_ai.zwicker.engine import _build_values
from zwick_ai.zwicker.rules import rules
from zwick_ai.zwicker.snapshot import Snapshot, Unit

MAIN = [("classic", None, {}), ("grupp", None, {}), ("dithmarschen", None, {}), ("grossenwiehe", None, {}),
        ("christiansen", None, {})]  # fmt: skip
OPTIONS = [
    ("classic", 2, {}), ("classic", 6, {}), ("classic", 7, {}), ("classic", 4, {"forced_capture": False}),
    ("grupp", 3, {}), ("grupp", 4, {"joker_capture": "joker_only"}), ("grupp", 4, {"joker_capture": "lone_joker_only"}),
    ("grupp", 4, {"joker_capture": "never"}), ("grupp", 4, {"joker_sweep_is_zwick": False}),
    ("grupp", 4, {"capture_values": "several"}), ("dithmarschen", 2, {}), ("dithmarschen", 3, {}),
    ("dithmarschen", 4, {"after_zwick": "zwicker_trails"}), ("dithmarschen", 4, {"after_zwick": "all_trail"}),
    ("dithmarschen", 4, {"dietze_loose_builds": True}), ("dithmarschen", 4, {"dietze_min_table": 4}),
    ("classic", 4, {"dietze_min_table": 4, "after_zwick": "all_trail"}), ("dithmarschen", 4, {"subtract": "either"}),
    ("dithmarschen", 4, {"joker_sum_capture": False}), ("christiansen", 2, {"capture_values": "several"}),
    ("christiansen", 4, {"first_dealer": "low_cut"}), ("classic", 3, {"first_dealer": "high_cut"}),
    ("grossenwiehe", 2, {}), ("grossenwiehe", 3, {}), ("grossenwiehe", 6, {}), ("grossenwiehe", 6, {"team_size": 2}),
    ("grossenwiehe", 4, {"magger": False}),
    ("dithmarschen", 2, {"ranks": "A2345", "suits": "CD", "jokers": (15,), "hand_size": 2, "table_size": 2, "stages": 1}),
]  # fmt: skip


def compare_trajectories(r, min_states: int, seed: int) -> int:
    """Play random hands with both implementations in lockstep; return the positions compared."""
    R = r.array()
    states = 0
    h = 0
    while states < min_states:
        order, dealer = K.deal_order(R, seed * 100003 + h)
        order = [int(c) for c in order]
        se, sr = E.deal(r, order, int(dealer)), Ref.deal(r, order, int(dealer))
        rng = random.Random(h)
        while True:
            a, b = E.snapshot(r, se), Ref.snapshot(r, sr)
            assert a.canonical() == b.canonical(), f"states differ (hand {h}): engine {a} reference {b}"
            me, mr = E.legal_moves(r, se), Ref.legal_moves(r, sr)
            assert me == mr, (
                f"legal moves differ in {a}: only engine {sorted(set(me) - set(mr))[:5]}, "
                f"only reference {sorted(set(mr) - set(me))[:5]}"
            )
            states += 1
            if not me:
                assert a.phase == 3
                break
            move = rng.choice(me)
            assert E.is_zwick(r, se, move) == Ref.is_zwick(r, sr, move)
            se, sr = E.apply(r, se, move), Ref.apply(r, sr, move)
        h += 1
    return states


@pytest.mark.parametrize("variant,players,options", MAIN, ids=[m[0] for m in MAIN])
def test_main_variants_agree(variant, players, options):
    assert compare_trajectories(rules(variant, players, **options), 2000, seed=1) >= 2000


@pytest.mark.parametrize("variant,players,options", OPTIONS, ids=[f"{v}-{p}-{o}" for v, p, o in OPTIONS])
def test_options_agree(variant, players, options):
    assert compare_trajectories(rules(variant, players, **options), 300, seed=2) >= 300


@pytest.mark.slow
@pytest.mark.parametrize("variant,players,options", MAIN + OPTIONS, ids=[f"{v}-{p}-{o}" for v, p, o in MAIN + OPTIONS])
def test_agree_slow(variant, players, options):
    assert compare_trajectories(rules(variant, players, **options), 20000, seed=3) >= 20000


def synthetic_position(r, rng: random.Random) -> Snapshot:
    """A crowded random position: 2..7 table entries (more units with loose cards), many builds."""
    deck = list(r.deck)
    rng.shuffle(deck)
    hands = [sorted(deck.pop() for _ in range(rng.randint(1, 5))) for _ in range(r.players)]
    table = []
    for _ in range(rng.randint(2, 7)):
        if not deck:
            break
        if r.owner_builds or rng.random() < 0.5:
            k = rng.choice((1, 1, 2, 2, 3))
            cards = [deck.pop() for _ in range(min(k, len(deck)))]
            values = sorted(_build_values(r, cards))
            if values and (rng.random() < 0.7 or len(cards) > 1):
                # Give the build to a seat that holds the value when possible (the owner's duty).
                value = rng.choice(values)
                holders = [p for p in range(r.players) if any(value in r.card_values(c) for c in hands[p])]
                owner = (rng.choice(holders) if holders else rng.randrange(r.players)) if r.owner_builds else -1
                table.append(Unit(tuple(sorted(cards)), value, owner, True))
                continue
            for c in cards:
                table.append(Unit((c,), 0, -1, False))
        else:
            table.append(Unit((deck.pop(),), 0, -1, False))
    to_move = rng.choice([p for p in range(r.players) if hands[p]])
    asked = (-1, -1, -1)
    return Snapshot(
        hands=tuple(tuple(h) for h in hands), table=tuple(table), stock=tuple(deck),
        won=((),) * r.num_sides, zwicks=(0,) * r.num_sides, dealer=(to_move - 1) % r.players,
        to_move=to_move, stage=0, last_capturer=rng.randrange(-1, r.num_sides), phase=0, az_left=0, asked=asked,
    )  # fmt: skip


@pytest.mark.parametrize(
    "variant,players,options", MAIN + OPTIONS[:12], ids=[f"{v}-{p}-{o}" for v, p, o in MAIN + OPTIONS[:12]]
)
def test_synthetic_positions_agree(variant, players, options):
    r = rules(variant, players, **options)
    rng = random.Random(7)
    checked = 0
    for _ in range(150):
        snap = synthetic_position(r, rng)
        se, sr = E.from_snapshot(r, snap), Ref.from_snapshot(r, snap)
        me, mr = E.legal_moves(r, se), Ref.legal_moves(r, sr)
        assert me == mr, f"{C.format_cards(snap.hands[snap.to_move])} on {snap.table}: {set(me) ^ set(mr)}"
        for move in me[:: max(1, len(me) // 6)]:
            a = E.snapshot(r, E.apply(r, se, move)).canonical()
            b = Ref.snapshot(r, Ref.apply(r, sr, move)).canonical()
            assert a == b, f"after {move}: engine {a} reference {b}"
        checked += 1
    assert checked == 150
