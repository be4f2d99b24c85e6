"""Information abstractions of Zwicker for the compiled MCCFR of :mod:`~zwick_ai.learn.cfr.zwicker_mccfr`.

:func:`zwicker_decision` gives, for the player to move in an engine state, the table key of his
abstracted information set and his abstract actions, each mapped to one concrete legal whole move
(an index into the move rows). Every feature is something the player sees: his own hand, the
table, the cards won so far (counts and points), the stock size and the stage; never another
player's hand or the stock order.

**Abstract actions: moves grouped by what they do.** Every legal whole move gets a *descriptor*:

* capture: the points it takes (the played card included), the cards it takes, whether it is a
  Zwick (clears the table), whether the played card is a joker;
* trail: the points of the card given away, whether it is a joker, whether its value is high (10+);
* build: the announced value (bucketed), whether the build goes to a partner, on a unit or new;
* ask (Großenwiehe's partner question): the value asked, bucketed;
* and after every move the table it leaves: the units left (0: the move cleared it; 1: a Zwick
  threat, one matching card clears it) and the points left on it.

Moves with equal descriptors form one abstract action, played by its best member by the greedy
heuristic's score (:func:`zwick_ai.zwicker.kernels.greedy_value`; ties by the smallest move
record, so the choice does not depend on the order of the moves). The key includes the sorted
descriptors, so equal keys mean equal abstract action sets and abstract action ``k`` is always
mappable to a move.

**The information-set key** hashes, besides the descriptors: the turn phase (normal, trail after a
Zwick, Dietze trail) and a pending partner question, whether more cards will be dealt and the stock
size in deals, the cards in the own hand and in the next seat's, the seat relative to the dealer,
the table (units, points, builds owned by the own side / the others), the jokers held, whether the
own side captured last (it takes the rest of the table at the end) and the score lead (own side
minus the best other side, cards, most-cards bonus excluded until the end, and Zwicks).

Two granularities (:data:`ZWICKER_ABSTRACTIONS`): ``buckets`` (the features above) and ``coarse``
(fewer buckets: points taken 0 / 1-2 / 3+, units left 0 / 1 / 2+, lead behind / level / ahead,
no relative seat, no per-build ownership). Imperfect recall: the exact cards held and played,
and which cards are still out, are forgotten.

>>> from zwick_ai import zwicker
>>> from zwick_ai.zwicker import kernels
>>> r = zwicker.rules("classic", players=2)
>>> R = r.array()
>>> W = kernels.new_workspace()
>>> S = kernels.new_hand(R, 3, W)
>>> moves = kernels.legal_moves(R, S, W)
>>> out = np.zeros(len(moves), np.int64)
>>> key, n = zwicker_decision(R, S, moves, len(moves), BUCKETS, out)
>>> 1 <= n <= len(moves) and key != 0
True
"""

from __future__ import annotations

import numpy as np

from zwick_ai.agents.cfr.core import mix64, sort_together
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout

ZWICKER_ABSTRACTIONS = ("buckets", "coarse")
BUCKETS, COARSE = 0, 1
MAX_GROUPS = 64  # distinct descriptors of one decision (far more than ever occur)
_SALT = np.uint64(0x5D7E1C2B3A496F81)
_ONE = np.int64(1)


def zwicker_abstraction_id(name: str) -> int:
    """The compiled id of a Zwicker abstraction name (``ValueError`` listing the valid ones)."""
    if name not in ZWICKER_ABSTRACTIONS:
        raise ValueError(f"unknown Zwicker abstraction {name!r}; valid: {', '.join(ZWICKER_ABSTRACTIONS)}")
    return ZWICKER_ABSTRACTIONS.index(name)


@kernel
def _chain(h, token):
    return mix64(h ^ (np.uint64(token) + _SALT))


@kernel
def _cap(x, hi):
    return hi if x > hi else (0 if x < 0 else x)


@kernel
def _lead(R, S, side):
    """Own side's points (cards and Zwicks) minus the best other side's."""
    ns = arrays.sides(R)
    mine = 0
    best = -(1 << 30)
    for sd in range(ns):
        v = arrays.points_won(R, S, sd) + arrays.zwicks(S, sd) * arrays.zwick_points(R)
        if sd == side:
            mine = v
        elif v > best:
            best = v
    return mine - best


@kernel
def _lead_bucket(lead, coarse):
    if coarse:
        return 0 if lead < -3 else (1 if lead <= 3 else 2)
    if lead <= -10:
        return 0
    if lead <= -4:
        return 1
    if lead <= -1:
        return 2
    if lead == 0:
        return 3
    if lead <= 3:
        return 4
    if lead <= 9:
        return 5
    return 6


@kernel
def move_descriptor(R, S, mv, table_pts, coarse):
    """The abstract action of move ``mv`` (module docstring): a small non-negative integer."""
    kind = mv[layout.M_KIND]
    c = mv[layout.M_CARD]
    n = arrays.unit_count(S)
    joker = 1 if arrays.is_joker(R, c) else 0
    if kind == layout.KIND_CAPTURE:
        pts = arrays.points(R, c)
        cards = 1
        left = 0
        mask = mv[layout.M_MASK]
        for i in range(n):
            a = arrays.unit_anchor(S, i)
            if (mask >> i) & _ONE:
                x = a
                while x != -1:
                    pts += arrays.points(R, x)
                    cards += 1
                    x = arrays.next_card(S, x)
            else:
                left += 1
        pleft = table_pts - (pts - arrays.points(R, c))
        zw = 1 if arrays.is_zwick(mv) else 0
        if coarse:
            pb = 0 if pts == 0 else (1 if pts <= 2 else 2)
            return (((1 * 4 + pb) * 2 + zw) * 3 + _cap(left, 2)) * 2 + joker
        pb = 4 if pts >= 5 else (3 if pts >= 3 else pts)
        cb = _cap(cards - 2, 2)
        return (((((1 * 8 + pb) * 3 + cb) * 2 + zw) * 2 + joker) * 4 + _cap(left, 3)) * 3 + _cap(pleft, 2)
    if kind == layout.KIND_TRAIL:
        cp = arrays.points(R, c)
        high = 1 if arrays.top_value(R, c) >= 10 else 0
        if coarse:
            return ((2 * 2 + (1 if cp > 0 or joker else 0)) * 3 + _cap(n + 1, 2)) * 2 + high
        return ((((2 * 4 + _cap(cp, 2)) * 2 + joker) * 2 + high) * 4 + _cap(n + 1, 3)) * 3 + _cap(table_pts + cp, 2)
    if kind == layout.KIND_BUILD:
        v = arrays.move_value(mv)
        vb = 0 if v <= 7 else (1 if v <= 10 else 2)
        if coarse:
            return 3 * 100 + vb
        partner = 1 if arrays.move_owner(mv) != arrays.to_move(S) else 0
        new = 1 if arrays.move_target(mv) < 0 else 0
        return ((((3 * 4 + vb) * 2 + partner) * 2 + new) * 2 + joker) * 4 + _cap(n + new, 3)
    # KIND_ASK
    v = arrays.move_value(mv)
    return 4 * 1000 + (0 if coarse else (0 if v <= 7 else (1 if v <= 10 else 2)))


@kernel
def _better(R, S, mv, val, best_mv, best_val):
    """Is ``mv`` (greedy score ``val``) a better representative than ``best_mv``? Higher greedy
    score first, then the smallest move record (card, value, mask, target, owner)."""
    if val > best_val + 1e-9:
        return True
    if val < best_val - 1e-9:
        return False
    return arrays.before(mv, best_mv)


@kernel
def state_features(R, S, coarse):
    """The key of the position part of the player to move's abstract information set (a hash)."""
    p = arrays.to_move(S)
    players = arrays.players(R)
    side = arrays.side_of(R, p)
    n = arrays.unit_count(S)
    h = mix64(np.uint64(coarse + 1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(4242))
    ask = 0 if arrays.asked_value(S) < 0 else 1 + (1 if arrays.ask_answer(S) > 0 else 0)
    h = _chain(h, arrays.phase(S) * 3 + ask)
    stock = arrays.stock_left(S)
    more = 1 if stock > 0 and arrays.stage(S) + 1 < arrays.max_stages(R) else 0
    deals = 0
    if more:
        deals = 1 + _cap(stock // (4 * players), 2)
    h = _chain(h, deals)
    hand = arrays.hand_size(S, p)
    nxt = arrays.hand_size(S, (p + 1) % players)
    h = _chain(h, _cap(hand, 8) * 16 + _cap(nxt, 8))
    if not coarse:
        h = _chain(h, (p - arrays.dealer(S) - 1) % players)
    table_pts = 0
    mine = 0
    theirs = 0
    for i in range(n):
        a = arrays.unit_anchor(S, i)
        table_pts += arrays.unit_points(R, S, a)
        if arrays.is_build(S, a):
            o = arrays.unit_owner(S, a)
            if o >= 0 and arrays.side_of(R, o) == side:
                mine = 1
            else:
                theirs = 1
    if coarse:
        h = _chain(h, _cap(n, 4) * 8 + _cap(table_pts, 4))
    else:
        h = _chain(h, ((_cap(n, 6) * 8 + _cap(table_pts, 6)) * 2 + mine) * 2 + theirs)
    jokers = 0
    for i in range(hand):
        if arrays.is_joker(R, arrays.hand_card(S, p, i)):
            jokers += 1
    h = _chain(h, _cap(jokers, 1 if coarse else 2))
    last = arrays.last_capturer(S)
    h = _chain(h, 0 if last < 0 else (1 if last == side else 2))
    h = _chain(h, _lead_bucket(_lead(R, S, side), coarse))
    return h, table_pts


@kernel
def zwicker_decision(R, S, moves, n, abstraction, out):
    """(key, m): the table key of the player to move's abstracted information set at ``S`` and in
    ``out[:m]`` the index (into ``moves[:n]``, the legal whole moves) of the move each abstract
    action plays, abstract actions in descriptor order (module docstring). Keys are never 0."""
    coarse = 1 if abstraction == COARSE else 0
    h, table_pts = state_features(R, S, coarse)
    desc = np.empty(n, np.int64)
    score = np.empty(n, np.float64)
    m = 0
    for k in range(n):
        d = move_descriptor(R, S, moves[k], table_pts, coarse)
        v = kernels.greedy_value(R, S, moves[k])
        j = -1
        for i in range(m):
            if desc[i] == d:
                j = i
                break
        if j < 0:
            desc[m], out[m], score[m] = d, k, v
            m += 1
        elif _better(R, S, moves[k], v, moves[out[j]], score[j]):
            out[j], score[j] = k, v
    sort_together(desc, out, m)  # the groups by descriptor
    h = _chain(h, 100000 + m)
    for i in range(m):
        h = _chain(h, desc[i])
    key = np.int64(h)
    return (key if key != 0 else np.int64(1)), m


__all__ = [
    "BUCKETS",
    "COARSE",
    "ZWICKER_ABSTRACTIONS",
    "move_descriptor",
    "state_features",
    "zwicker_abstraction_id",
    "zwicker_decision",
]
