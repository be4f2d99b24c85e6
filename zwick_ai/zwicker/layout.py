"""Flat array layouts shared by the Zwicker kernels and their Python wrapper.

A position is one int32 array (``STATE_SIZE`` long) so that copying a state is one ``memcpy``
(OpenSpiel clones by deep-copying attributes; see docs/openspiel.md). A rule set is another int32
array (``RULES_SIZE`` long) built once per :class:`~zwick_ai.zwicker.rules.Rules`.
Per-card tables are indexed by the global card id (:mod:`zwick_ai.cards`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from zwick_ai import cards as C

if TYPE_CHECKING:
    from zwick_ai.zwicker.rules import Rules

NC = C.NUM_CARDS
MAX_PLAYERS = 12
MAX_HAND = 32
MAX_UNITS = 64  # capture sets are 64-bit masks over table units

# ----- location codes (S_LOC) -----
LOC_NONE = -1  # not in this game's deck
LOC_HAND = 0  # + seat
LOC_WON = 16  # + side
LOC_STOCK = 32
LOC_TABLE = 48

# ----- rules array -----
R_PLAYERS = 0
R_NSIDES = 1
R_DUAL = 2
R_WILD = 3
R_OWNER_BUILDS = 4
R_PARTNER_BUILDS = 5
R_MAGGER = 6
R_FORCED = 7
R_JOKER_CAPTURE = 8  # index into rules.JOKER_CAPTURE
R_JOKER_SWEEP_ZWICK = 9
R_JOKER_SUM = 10
R_AFTER_ZWICK = 11  # index into rules.AFTER_ZWICK
R_DIETZE_LOOSE = 12
R_DIETZE_MIN = 13
R_FIRST_DEALER = 14  # index into rules.FIRST_DEALER
R_SUBTRACT_EITHER = 15
R_CAPTURE_SEVERAL = 16
R_MAX_BUILD = 17
R_ZWICK_POINTS = 18
R_MOST_CARDS = 19
R_DECK_SIZE = 20
R_STAGE_HAND = 21
R_STAGE_PACKET = 22
R_FINAL_HAND = 23
R_MAX_STAGES = 24
R_FIRST_NSTEPS = 25
R_FIRST_STEPS = 26  # 8 steps x (kind 0=hands/1=table, count, packet)
R_SIDE_OF = 50  # per seat
R_DECK = 64  # deck card ids (R_DECK_SIZE of them)
R_VAL1 = R_DECK + NC  # first matching value (0 for a wild joker)
R_VAL2 = R_VAL1 + NC  # second value of a dual card, else 0
R_POINTS = R_VAL2 + NC
R_IS_WILD = R_POINTS + NC
R_IS_VJOKER = R_IS_WILD + NC
R_CANON = R_IS_VJOKER + NC  # lowest id of the card's identical copies
R_CUT_RANK = R_CANON + NC  # order for cutting for the deal
RULES_SIZE = R_CUT_RANK + NC

# ----- state array -----
S_TO_MOVE = 0
S_PHASE = 1
S_AZ_LEFT = 2
S_DEALER = 3
S_STAGE = 4
S_LAST_CAPT = 5
S_NUNITS = 6
S_STOCK_TOP = 7  # index in S_STOCK of the next card to deal
S_STOCK_LEN = 8
S_ASK_Q = 9
S_ASK_N = 10
S_ASK_ANS = 11
S_PLIES = 12
S_ZWICKS = 16  # per side
S_WON_N = S_ZWICKS + MAX_PLAYERS  # cards won, per side
S_HAND_N = S_WON_N + MAX_PLAYERS  # cards in hand, per seat
S_UNITS = S_HAND_N + MAX_PLAYERS  # anchor card of each table unit, oldest first
S_HANDS = S_UNITS + MAX_UNITS  # MAX_PLAYERS x MAX_HAND, each hand sorted by id
S_LOC = S_HANDS + MAX_PLAYERS * MAX_HAND  # per card: location code
S_ANCHOR = S_LOC + NC  # per table card: anchor card of its unit
S_NEXT = S_ANCHOR + NC  # per table card: next card of the same unit (-1 = last)
S_UVALUE = S_NEXT + NC  # per anchor: announced build value (0 for a loose card)
S_UOWNER = S_UVALUE + NC  # per anchor: owner seat (-1 none)
S_UBUILD = S_UOWNER + NC  # per anchor: 1 if the unit is a build
S_DEALT_TO = S_UBUILD + NC  # per card: seat it was dealt to (-1 table / stock)
S_STOCK = S_DEALT_TO + NC  # deck order; cards S_STOCK_TOP.. are undealt
STATE_SIZE = S_STOCK + NC

# ----- move records (int64 rows) -----
M_KIND = 0  # KIND_*
M_CARD = 1
M_VALUE = 2  # capture: smallest proving value; build: announced; ask: asked value
M_MASK = 3  # capture: bit i = table unit i taken
M_TARGET = 4  # build: table index built on, -1 new
M_OWNER = 5  # build: owner afterwards; ask: partner asked
M_ZWICK = 6  # capture: 1 if it counts as a Zwick
MOVE_WIDTH = 8

KIND_TRAIL = 0
KIND_CAPTURE = 1
KIND_BUILD = 2
KIND_ASK = 3


def rules_array(rules: Rules) -> np.ndarray:
    """Encode a :class:`Rules` for the kernels."""
    from zwick_ai.zwicker.rules import AFTER_ZWICK, FIRST_DEALER, JOKER_CAPTURE

    a = np.zeros(RULES_SIZE, dtype=np.int32)
    a[R_PLAYERS] = rules.players
    a[R_NSIDES] = rules.num_sides
    a[R_DUAL] = rules.dual
    a[R_WILD] = rules.wild
    a[R_OWNER_BUILDS] = rules.owner_builds
    a[R_PARTNER_BUILDS] = rules.partner_builds
    a[R_MAGGER] = rules.magger
    a[R_FORCED] = rules.forced_capture
    a[R_JOKER_CAPTURE] = JOKER_CAPTURE.index(rules.joker_capture)
    a[R_JOKER_SWEEP_ZWICK] = rules.joker_sweep_is_zwick
    a[R_JOKER_SUM] = rules.joker_sum_capture
    a[R_AFTER_ZWICK] = AFTER_ZWICK.index(rules.after_zwick)
    a[R_DIETZE_LOOSE] = rules.dietze_loose_builds
    a[R_DIETZE_MIN] = rules.dietze_min_table
    a[R_FIRST_DEALER] = FIRST_DEALER.index(rules.first_dealer)
    a[R_SUBTRACT_EITHER] = rules.subtract == "either"
    a[R_CAPTURE_SEVERAL] = rules.capture_values == "several"
    a[R_MAX_BUILD] = rules.max_build
    a[R_ZWICK_POINTS] = rules.zwick_points
    a[R_MOST_CARDS] = rules.most_cards_points
    a[R_DECK_SIZE] = rules.deck_size
    plan = rules.plan
    a[R_STAGE_HAND] = plan.stage_hand
    a[R_STAGE_PACKET] = plan.stage_packet
    a[R_FINAL_HAND] = plan.final_hand
    a[R_MAX_STAGES] = plan.max_stages
    a[R_FIRST_NSTEPS] = len(plan.first)
    for i, (kind, count, packet) in enumerate(plan.first):
        a[R_FIRST_STEPS + 3 * i : R_FIRST_STEPS + 3 * i + 3] = (0 if kind == "hands" else 1, count, packet)
    for seat in range(rules.players):
        a[R_SIDE_OF + seat] = rules.side_of(seat)
    a[R_DECK : R_DECK + rules.deck_size] = rules.deck
    points = dict(rules.points)
    for c in range(NC):
        values = rules.card_values(c)
        a[R_VAL1 + c] = values[0] if values else 0
        a[R_VAL2 + c] = values[1] if len(values) > 1 else 0
        a[R_POINTS + c] = points.get(c, 0)
        a[R_IS_WILD + c] = C.is_wild_joker(c)
        a[R_IS_VJOKER + c] = C.is_valued_joker(c)
        if C.is_wild_joker(c):
            a[R_CANON + c] = C.WILD_JOKER_BASE
            a[R_CUT_RANK + c] = 100
        elif C.is_valued_joker(c):
            a[R_CANON + c] = c
            a[R_CUT_RANK + c] = 50 + C.JOKER_VALUES[c - C.VALUED_JOKER_BASE]
        else:
            a[R_CANON + c] = c % C.PACK_SIZE
            a[R_CUT_RANK + c] = C.rank_of(c)
    return a
