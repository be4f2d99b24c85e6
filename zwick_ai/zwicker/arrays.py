"""Reading the engine's arrays: a Zwicker position, its rules and its move rows (the API of searches and learners).

The engine keeps a position in one int32 array ``S``, a rule set in one int32 array ``R`` and a
move in one int64 row (:mod:`zwick_ai.zwicker.layout`). Code outside the engine reads them through
the small functions here instead of the raw offsets, so that the layout can change in one place.
Each function is a compiled kernel that numba inlines into its compiled callers (as fast as the raw
read); Python code calls the same functions.

The few layout names code outside the engine still uses are the public vocabulary of a decision:
``M_KIND``, ``M_CARD``, ``M_MASK`` and the ``KIND_*`` codes of a move row, ``MOVE_WIDTH``, ``S_TO_MOVE``
and ``S_PHASE`` (``PHASE_OVER``) of a position, ``R_PLAYERS``, ``R_NSIDES``, ``R_SIDE_OF`` and
``R_DECK_SIZE`` of the rules, ``RULES_SIZE``, and the codec's ``M_FIELDS`` and ``M_SPARE``.

Seats, sides and cards are the engine's: a seat ``p`` is ``0..players-1``, a side ``0..sides-1``
(``R[R_SIDE_OF + p]``), a card the global card id of :mod:`zwick_ai.cards`. A table *unit* (a
loose card or a build) is known by its anchor card; units are numbered oldest first.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen", players=4)
>>> state = zwicker.deal(r, seed=7)
>>> S, R = state.arr, r.array()
>>> [int(hand_size(S, p)) for p in range(4)], int(unit_count(S)), int(stock_left(S))
([4, 4, 4, 4], 3, 36)
>>> [zwick_ai.cards.format_card(int(c)) for c in hand_cards(S, 0)] == zwicker.hand(state, 0)
True
>>> int(points(R, zwick_ai.cards.parse_card("10D"))), bool(is_joker(R, zwick_ai.cards.parse_card("2C")))
(3, False)
"""

from __future__ import annotations

import numpy as np

import zwick_ai.cards
from zwick_ai.jit import kernel, reader
from zwick_ai.zwicker import layout

NUM_CARDS = zwick_ai.cards.NUM_CARDS  # card ids are 0..NUM_CARDS-1 in every rule set


# ------------------------------------------------------------------------------------------------
# The rules array R
# ------------------------------------------------------------------------------------------------
@reader
def deck_card(R, k):
    """Card ``k`` of the rule set's deck (``0 <= k < R[layout.R_DECK_SIZE]``), in increasing card ids."""
    return R[layout.R_DECK + k]


@reader
def points(R, c):
    """Points card ``c`` scores when won."""
    return R[layout.R_POINTS + c]


@reader
def is_wild(R, c):
    """Card ``c`` is a wild joker (it matches any value)."""
    return R[layout.R_IS_WILD + c] == 1


@reader
def is_valued_joker(R, c):
    """Card ``c`` is a valued joker (``X15``..``X30``)."""
    return R[layout.R_IS_VJOKER + c] == 1


@reader
def is_joker(R, c):
    """Card ``c`` is a joker of either kind."""
    return R[layout.R_IS_VJOKER + c] == 1 or R[layout.R_IS_WILD + c] == 1


@reader
def top_value(R, c):
    """The highest value card ``c`` matches (a dual card's higher one; 0 for a wild joker)."""
    return max(R[layout.R_VAL1 + c], R[layout.R_VAL2 + c])


@reader
def zwick_points(R):
    """Points of one Zwick."""
    return R[layout.R_ZWICK_POINTS]


@reader
def players(R):
    """Seats at the table."""
    return R[layout.R_PLAYERS]


@reader
def sides(R):
    """Sides (a side is one player, or a team of partners)."""
    return R[layout.R_NSIDES]


@reader
def side_of(R, p):
    """The side of seat ``p``."""
    return R[layout.R_SIDE_OF + p]


@reader
def max_stages(R):
    """The most stages (deals) a hand has."""
    return R[layout.R_MAX_STAGES]


# ------------------------------------------------------------------------------------------------
# The position S: turn, stage, hands and stock
# ------------------------------------------------------------------------------------------------
@reader
def to_move(S):
    """The seat to move (meaningless once :func:`is_over`)."""
    return S[layout.S_TO_MOVE]


@reader
def phase(S):
    """The turn phase: 0 normal, 1 trail after a Zwick, 2 Dietze trail, 3 over (``PHASE_*`` of the layout)."""
    return S[layout.S_PHASE]


@reader
def is_over(S):
    """The hand is over."""
    return S[layout.S_PHASE] == layout.PHASE_OVER


@reader
def stage(S):
    """The stage (deal) being played, from 0."""
    return S[layout.S_STAGE]


@reader
def dealer(S):
    """The dealer's seat."""
    return S[layout.S_DEALER]


@reader
def plies(S):
    """Whole moves (questions included) made so far in the hand."""
    return S[layout.S_PLIES]


@reader
def hand_size(S, p):
    """Cards in seat ``p``'s hand."""
    return S[layout.S_HAND_N + p]


@reader
def hand_card(S, p, i):
    """Card ``i`` of seat ``p``'s hand (hands are sorted by card id)."""
    return S[layout.S_HANDS + p * layout.MAX_HAND + i]


@kernel(inline="always")
def hand_cards(S, p):
    """Seat ``p``'s hand, sorted by card id (a view of ``S``)."""
    base = layout.S_HANDS + p * layout.MAX_HAND
    return S[base : base + S[layout.S_HAND_N + p]]


@reader
def empty_hand(S, p):
    """Forget seat ``p``'s hand (the size only: the cards' locations are left as they are)."""
    S[layout.S_HAND_N + p] = 0


@reader
def cards_in_hands(R, S):
    """Cards in all hands together."""
    n = 0
    for q in range(R[layout.R_PLAYERS]):
        n += S[layout.S_HAND_N + q]
    return n


@reader
def stock_top(S):
    """How many cards of the deck order have been dealt (the index of the next one)."""
    return S[layout.S_STOCK_TOP]


@reader
def stock_left(S):
    """Cards still to be dealt."""
    return S[layout.S_STOCK_LEN] - S[layout.S_STOCK_TOP]


@kernel(inline="always")
def undealt(S):
    """The cards still to be dealt, in dealing order (a view of ``S``: shuffle it to reorder the stock)."""
    return S[layout.S_STOCK + S[layout.S_STOCK_TOP] : layout.S_STOCK + S[layout.S_STOCK_LEN]]


@reader
def last_stage(R, S):
    """True in the last stage of the hand: nothing more will be dealt."""
    return S[layout.S_STOCK_TOP] >= S[layout.S_STOCK_LEN] or S[layout.S_STAGE] + 1 >= R[layout.R_MAX_STAGES]


@reader
def dealt_to(S, c):
    """The seat card ``c`` was dealt to (-1: dealt to the table, or not dealt)."""
    return S[layout.S_DEALT_TO + c]


@kernel(inline="always")
def dealt_seats(S):
    """Per card id: :func:`dealt_to` (a view of ``S``)."""
    return S[layout.S_DEALT_TO : layout.S_DEALT_TO + NUM_CARDS]


# ------------------------------------------------------------------------------------------------
# The table
# ------------------------------------------------------------------------------------------------
@reader
def unit_count(S):
    """Units (loose cards and builds) on the table."""
    return S[layout.S_NUNITS]


@reader
def unit_anchor(S, i):
    """The anchor card of table unit ``i`` (oldest first)."""
    return S[layout.S_UNITS + i]


@kernel(inline="always")
def unit_anchors(S):
    """The anchor cards of the table units, oldest first (a view of ``S``)."""
    return S[layout.S_UNITS : layout.S_UNITS + S[layout.S_NUNITS]]


@reader
def next_card(S, c):
    """The card after ``c`` in its table unit (-1 after the last): walk a unit from its anchor."""
    return S[layout.S_NEXT + c]


@reader
def on_table(S, c):
    """Card ``c`` lies on the table."""
    return S[layout.S_LOC + c] == layout.LOC_TABLE


@reader
def anchor_of(S, c):
    """The anchor card of the unit table card ``c`` belongs to."""
    return S[layout.S_ANCHOR + c]


@reader
def unit_value(S, a):
    """The announced value of the build anchored at ``a`` (0 for a loose card)."""
    return S[layout.S_UVALUE + a]


@reader
def unit_owner(S, a):
    """The owner seat of the build anchored at ``a`` (-1: none)."""
    return S[layout.S_UOWNER + a]


@reader
def is_build(S, a):
    """The unit anchored at ``a`` is a build."""
    return S[layout.S_UBUILD + a] != 0


@reader
def unit_points(R, S, a):
    """Points of the cards of the table unit anchored at ``a``."""
    pts = 0
    x = a
    while x != -1:
        pts += R[layout.R_POINTS + x]
        x = S[layout.S_NEXT + x]
    return pts


# ------------------------------------------------------------------------------------------------
# Won cards, Zwicks and the partner question
# ------------------------------------------------------------------------------------------------
@reader
def won_side(S, c):
    """The side that has won card ``c`` (-1: not won)."""
    loc = S[layout.S_LOC + c]
    return (
        loc - layout.LOC_WON if layout.LOC_WON <= loc < layout.LOC_STOCK else -1
    )  # won cards are at layout.LOC_WON + side


@kernel
def won_sides(S):
    """Per card id: :func:`won_side` (a new array)."""
    out = np.empty(NUM_CARDS, np.int64)
    for c in range(NUM_CARDS):
        out[c] = won_side(S, c)
    return out


@reader
def points_won(R, S, side):
    """Card points ``side`` has won so far (won cards are public)."""
    pts = 0
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        if S[layout.S_LOC + c] == layout.LOC_WON + side:
            pts += R[layout.R_POINTS + c]
    return pts


@reader
def zwicks(S, side):
    """Zwicks ``side`` has made so far."""
    return S[layout.S_ZWICKS + side]


@reader
def last_capturer(S):
    """The side that captured last (it takes what is left on the table at the end; -1: none yet)."""
    return S[layout.S_LAST_CAPT]


@reader
def asked_seat(S):
    """The partner asked this turn (Großenwiehe's question; -1: no question)."""
    return S[layout.S_ASK_Q]


@reader
def asked_value(S):
    """The value asked for this turn (-1: no question)."""
    return S[layout.S_ASK_N]


@reader
def ask_answer(S):
    """The partner's answer this turn: 1 yes, 0 no, -1 no question."""
    return S[layout.S_ASK_ANS]


# ------------------------------------------------------------------------------------------------
# Move rows
# ------------------------------------------------------------------------------------------------
@reader
def move_value(mv):
    """Capture: the smallest value that proves it; build: the announced value; question: the value asked."""
    return mv[layout.M_VALUE]


@reader
def move_target(mv):
    """Build: the table unit index built on (-1: a new build)."""
    return mv[layout.M_TARGET]


@reader
def move_owner(mv):
    """Build: the owner afterwards; question: the partner asked."""
    return mv[layout.M_OWNER]


@reader
def is_zwick(mv):
    """Capture: it counts as a Zwick."""
    return mv[layout.M_ZWICK] == 1


@reader
def same_move(x, y):
    """Two move rows of one position make the same move."""
    return (
        x[layout.M_KIND] == y[layout.M_KIND]
        and x[layout.M_CARD] == y[layout.M_CARD]
        and x[layout.M_VALUE] == y[layout.M_VALUE]
        and x[layout.M_MASK] == y[layout.M_MASK]
        and x[layout.M_TARGET] == y[layout.M_TARGET]
        and x[layout.M_OWNER] == y[layout.M_OWNER]
    )


@kernel
def find_move(rows, row):
    """The index of the first of ``rows`` that makes the same move as ``row`` (-1: none)."""
    for k in range(rows.shape[0]):
        if same_move(rows[k], row):
            return k
    return -1


@reader
def before(x, y):
    """Move row ``x`` comes before ``y`` in the order of card, value, capture mask, build target and
    owner (a fixed order of the moves of one position that does not depend on their listing)."""
    if x[layout.M_CARD] != y[layout.M_CARD]:
        return x[layout.M_CARD] < y[layout.M_CARD]
    if x[layout.M_VALUE] != y[layout.M_VALUE]:
        return x[layout.M_VALUE] < y[layout.M_VALUE]
    if x[layout.M_MASK] != y[layout.M_MASK]:
        return x[layout.M_MASK] < y[layout.M_MASK]
    if x[layout.M_TARGET] != y[layout.M_TARGET]:
        return x[layout.M_TARGET] < y[layout.M_TARGET]
    if x[layout.M_OWNER] != y[layout.M_OWNER]:
        return x[layout.M_OWNER] < y[layout.M_OWNER]
    return False


def translate_row(row: np.ndarray, src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """Move ``row`` of position ``src`` rewritten for position ``dst``, which has the same table
    units listed in another order (units are known by their anchor card): the capture mask and
    the build target follow the units."""
    where = {int(c): j for j, c in enumerate(unit_anchors(dst))}
    units = [where[int(c)] for c in unit_anchors(src)]
    out = row.copy()
    mask = int(row[layout.M_MASK]) & (2**64 - 1)
    moved = sum(1 << units[i] for i in range(len(units)) if mask >> i & 1)
    out[layout.M_MASK] = moved - (1 << 64) if moved >= 1 << 63 else moved  # the kernels' signed 64-bit mask
    if row[layout.M_TARGET] >= 0:
        out[layout.M_TARGET] = units[row[layout.M_TARGET]]
    return out


# ------------------------------------------------------------------------------------------------
# A hash of everything a hand's outcome depends on
# ------------------------------------------------------------------------------------------------
@kernel(inline="always")
def mix_hash(h, x):
    """One step of a splitmix64-style hash combine."""
    h = (h ^ np.uint64(x & 0xFFFFFFFF)) * np.uint64(0x9E3779B97F4A7C15)
    h ^= h >> np.uint64(31)
    return h


@kernel
def _mix_turn(R, S, h):
    """``h`` with the turn, phase, last capture, question state and Zwicks of ``S`` mixed in (the
    part :func:`position_hash` and :func:`public_hash` share)."""
    h = mix_hash(h, (S[layout.S_TO_MOVE] + 2) * 64 + S[layout.S_PHASE])
    h = mix_hash(h, S[layout.S_AZ_LEFT] * 1024 + (S[layout.S_LAST_CAPT] + 2))
    h = mix_hash(h, (S[layout.S_ASK_Q] + 2) * 4096 + (S[layout.S_ASK_N] + 2) * 4 + (S[layout.S_ASK_ANS] + 2))
    for s in range(R[layout.R_NSIDES]):
        h = mix_hash(h, S[layout.S_ZWICKS + s] * 16 + s)
    return h


@kernel
def position_hash(R, S):
    """64-bit hash of everything a hand's outcome from here depends on: each card's location, the
    table units (anchor, value, owner, build flag), whose turn and phase, the question state, the
    last capturing side and the Zwicks (the order of table units and of hands is irrelevant)."""
    h = np.uint64(0x243F6A8885A308D3)
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = S[layout.S_LOC + c]
        h = mix_hash(h, c * 256 + loc + 1)
        if loc == layout.LOC_TABLE:
            an = S[layout.S_ANCHOR + c]
            h = mix_hash(h, an + 1)
            if an == c:
                h = mix_hash(
                    h, S[layout.S_UVALUE + c] * 4096 + (S[layout.S_UOWNER + c] + 1) * 2 + S[layout.S_UBUILD + c]
                )
    return _mix_turn(R, S, h)


@kernel
def public_hash(R, S):
    """64-bit hash of the public part of ``S``: where each seen card is (the table units with their
    value, owner and build flag; the won piles), the hand sizes, the stock's top, the turn, phase,
    stage, question state, last capturing side and Zwicks. Cards in hands or the stock enter only
    as counts."""
    h = np.uint64(0x452821E638D01377)
    for k in range(R[layout.R_DECK_SIZE]):
        c = R[layout.R_DECK + k]
        loc = S[layout.S_LOC + c]
        if loc == layout.LOC_TABLE:
            an = S[layout.S_ANCHOR + c]
            h = mix_hash(h, c * 256 + loc + 1)
            h = mix_hash(h, an + 1)
            if an == c:
                h = mix_hash(
                    h, S[layout.S_UVALUE + c] * 4096 + (S[layout.S_UOWNER + c] + 1) * 2 + S[layout.S_UBUILD + c]
                )
        elif loc >= layout.LOC_WON and loc < layout.LOC_STOCK:
            h = mix_hash(h, c * 256 + loc + 1)
    for q in range(R[layout.R_PLAYERS]):
        h = mix_hash(h, S[layout.S_HAND_N + q] * 64 + q)
    h = mix_hash(h, S[layout.S_STOCK_TOP] * 64 + S[layout.S_STAGE])
    return _mix_turn(R, S, h)


@kernel
def hand_hash(S, q):
    """64-bit hash of seat ``q``'s hand (its card ids, in the engine's sorted order)."""
    h = np.uint64(0x13198A2E03707344) + np.uint64(q)
    for i in range(hand_size(S, q)):
        h = mix_hash(h, hand_card(S, q, i) + 1)
    return mix_hash(h, hand_size(S, q))
