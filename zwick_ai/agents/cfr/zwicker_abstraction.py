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

**``stakes``** (:func:`stakes_decision`) is scaled to each variant and keyed on features only.
Both abstractions above bucket points for classic Zwicker (3+ points is one bucket) and hash the
whole sorted descriptor list into the key, so jokers and dual values multiply the sets. ``stakes``
measures every amount in shares of the variant's card total (:func:`stakes_bucket`: a 20-point
joker and a 3-point card fall apart in Großenwiehe), keeps jokers held and on the table by their
points, buckets builds up to the variant's largest, trails a joker apart from an Ace, and treats
the partner question as the build for partner it prepares. Its abstract actions are a fixed
alphabet of :data:`STAKES_CLASSES` classes (:func:`stakes_class`; ``stakes-lite``: the same
features with :data:`STAKES_LITE_CLASSES` coarser classes, :data:`LITE_OF`); the key hashes features of
the hand, the table and the score (:func:`stakes_features`) and which classes are present, so a
set fixes its actions as CFR assumes; the absent ones are masked (index -1;
:func:`present_strategy`). Training with ``stakes`` starts from greedy
(:func:`~zwick_ai.learn.cfr.zwicker_mccfr.regret_strategy`).

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

ZWICKER_ABSTRACTIONS = ("buckets", "coarse", "stakes", "stakes-lite")
BUCKETS, COARSE, STAKES, STAKES_LITE = 0, 1, 2, 3
MAX_GROUPS = 64  # distinct descriptors of one decision (far more than ever occur)
# ``stakes``: a fixed alphabet of abstract actions (the classes of :func:`stakes_class`)
_PTS_BUCKETS = 6  # :func:`stakes_bucket`
_LEFT = 3  # a capture leaves: nothing (a Zwick), one unit (a Zwick threat), more
_TRAILS = 5  # low plain, high plain (an Ace, a Ten...), a point card, a small joker, a big joker
_BUILDS = 4  # the build's value in quarters of the variant's largest build
CAPTURE_CLASSES = _PTS_BUCKETS * _LEFT
TRAIL_CLASSES = _TRAILS * 2  # x the table after it: one unit, more
BUILD_CLASSES = _BUILDS * 2  # x for oneself / for partner
ASK_CLASSES = _BUILDS  # the value asked, i.e. the build for partner it prepares
STAKES_CLASSES = CAPTURE_CLASSES + TRAIL_CLASSES + BUILD_CLASSES + ASK_CLASSES


def _lite_classes() -> np.ndarray:
    """``stakes-lite``'s class of each ``stakes`` class: captures by four point steps (none, up to
    10% of the card total, 20%, more) and whether they clear the table; trails by the card (plain,
    point card, small joker, big joker) whatever the table after; builds by half of the largest
    build and for whom; the partner question by half."""
    lite = np.empty(STAKES_CLASSES, np.int64)
    steps = (0, 1, 1, 2, 3, 3)  # stakes_bucket 0..5 -> four steps
    for b in range(_PTS_BUCKETS):
        for left in range(_LEFT):
            lite[b * _LEFT + left] = steps[b] * 2 + (0 if left == 0 else 1)
    cards = (0, 0, 1, 2, 3)  # low plain, high plain, point card, small joker, big joker
    for t in range(_TRAILS):
        for after in range(2):
            lite[CAPTURE_CLASSES + t * 2 + after] = 8 + cards[t]
    for v in range(_BUILDS):
        for partner in range(2):
            lite[CAPTURE_CLASSES + TRAIL_CLASSES + v * 2 + partner] = 12 + (v // 2) * 2 + partner
        lite[CAPTURE_CLASSES + TRAIL_CLASSES + BUILD_CLASSES + v] = 16 + v // 2
    return lite


#: ``stakes-lite``: the ``stakes`` key with a coarser alphabet of abstract actions (fewer sets)
LITE_OF = _lite_classes()
STAKES_LITE_CLASSES = int(LITE_OF.max()) + 1
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


# ---- stakes: features scaled to the variant, a fixed alphabet of abstract actions -----------------------
@kernel
def card_total(R):
    """The points of all the variant's cards (20 in classic, 27 Dithmarschen, 31 Christiansen, 80
    Großenwiehe): the unit of the ``stakes`` point buckets."""
    tot = 0
    for k in range(R[layout.R_DECK_SIZE]):
        tot += arrays.points(R, arrays.deck_card(R, k))
    return max(tot, 1)


@kernel
def stakes_bucket(pts, total):
    """Points as a share of the variant's card total: 0 nothing, then up to 4%, 10%, 20%, 30%, more
    (classic: 1, 2, 3-4, 5-6, 10; Großenwiehe: 1-3, 5-8, 10-16, 17-24, 25+; a 20-point joker
    is 25% there, a 3-point card 3.75%)."""
    if pts <= 0:
        return 0
    permille = 1000 * pts // total
    if permille <= 40:
        return 1
    if permille <= 100:
        return 2
    if permille <= 200:
        return 3
    if permille <= 300:
        return 4
    return 5


@kernel
def build_bucket(R, v):
    """A build value in quarters of the variant's largest build (classic 14: 1-4, 5-7, 8-11, 12-14;
    Großenwiehe 30: 1-8, 9-15, 16-23, 24-30)."""
    top = max(R[layout.R_MAX_BUILD], 1)
    return min(_BUILDS - 1, max(0, (_BUILDS * (v - 1)) // top))


@kernel
def _lead_share(lead, total):
    """The score lead in shares of the card total: -30%, -10%, behind, level, ahead, +10%, +30%."""
    permille = 1000 * lead // total
    if permille <= -300:
        return 0
    if permille <= -100:
        return 1
    if lead < 0:
        return 2
    if lead == 0:
        return 3
    if permille < 100:
        return 4
    if permille < 300:
        return 5
    return 6


@kernel
def _share3(pts, total):
    """Points in three steps: none, up to 10% of the card total, more."""
    return 0 if pts <= 0 else (1 if 10 * pts <= total else 2)


@kernel
def _half(b):
    """A side's largest build (0 none, else 1 + its quarter) in three steps: none, low, high."""
    return 0 if b == 0 else (1 if b <= 2 else 2)


@kernel
def stakes_class(R, S, mv, total):
    """The ``stakes`` abstract action of move ``mv``: an index below :data:`STAKES_CLASSES`.
    Captures by the points they take (the played card included) in shares of the card ``total``
    and by what they leave on the table; trails by the card given away (a joker, small or big by its
    points, apart from a plain high card such as an Ace) and the table after; builds by value (up to
    the variant's largest) and for whom; the partner question by the value asked (the build for
    partner it prepares)."""
    kind = mv[layout.M_KIND]
    c = mv[layout.M_CARD]
    n = arrays.unit_count(S)
    if kind == layout.KIND_CAPTURE:
        pts = arrays.points(R, c)
        left = 0
        mask = mv[layout.M_MASK]
        for i in range(n):
            a = arrays.unit_anchor(S, i)
            if (mask >> i) & _ONE:
                x = a
                while x != -1:
                    pts += arrays.points(R, x)
                    x = arrays.next_card(S, x)
            else:
                left += 1
        return stakes_bucket(pts, total) * _LEFT + _cap(left, _LEFT - 1)
    if kind == layout.KIND_TRAIL:
        cp = arrays.points(R, c)
        if arrays.is_joker(R, c):
            t = 3 if stakes_bucket(cp, total) <= 3 else 4
        elif cp > 0:
            t = 2
        else:
            t = 1 if arrays.top_value(R, c) >= 10 else 0
        return CAPTURE_CLASSES + t * 2 + (1 if n >= 1 else 0)
    v = arrays.move_value(mv)
    if kind == layout.KIND_BUILD:
        partner = 1 if arrays.move_owner(mv) != arrays.to_move(S) else 0
        return CAPTURE_CLASSES + TRAIL_CLASSES + build_bucket(R, v) * 2 + partner
    return CAPTURE_CLASSES + TRAIL_CLASSES + BUILD_CLASSES + build_bucket(R, v)  # KIND_ASK


@kernel
def stakes_features(R, S, total):
    """The ``stakes`` key of the player to move's abstract information set (a hash of what he sees,
    never the moves): the turn phase and a pending partner question (its value and answer), the
    deals still to come, the hand's size, its jokers by points (wild jokers counted) and its other
    points, the table's units, points and jokers by points, the largest build of each side, who
    captured last and the score lead, every amount in shares of the variant's card ``total``."""
    p = arrays.to_move(S)
    players = arrays.players(R)
    side = arrays.side_of(R, p)
    n = arrays.unit_count(S)
    h = mix64(np.uint64(STAKES + 1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(4242))
    asked = arrays.asked_value(S)
    ask = 0 if asked < 0 else 1 + (1 if arrays.ask_answer(S) > 0 else 0)
    h = _chain(h, (arrays.phase(S) * 3 + ask) * 8 + (build_bucket(R, asked) if asked >= 0 else 7))
    stock = arrays.stock_left(S)
    more = 0
    if stock > 0 and arrays.stage(S) + 1 < arrays.max_stages(R):
        more = 1 + _cap(stock // (4 * players), 2)
    hand = arrays.hand_size(S, p)
    h = _chain(h, more * 16 + _cap(hand, 15))
    joker_pts = 0
    wild = 0
    plain_pts = 0
    for i in range(hand):
        c = arrays.hand_card(S, p, i)
        if arrays.is_wild(R, c):
            wild += 1
        elif arrays.is_joker(R, c):
            joker_pts += arrays.points(R, c)
        else:
            plain_pts += arrays.points(R, c)
    h = _chain(h, (stakes_bucket(joker_pts, total) * 2 + _cap(wild, 1)) * 3 + _share3(plain_pts, total))
    table_pts = 0
    table_jokers = 0  # their points
    table_wild = 0
    mine = 0
    theirs = 0
    for i in range(n):
        a = arrays.unit_anchor(S, i)
        table_pts += arrays.unit_points(R, S, a)
        x = a
        while x != -1:
            if arrays.is_wild(R, x):
                table_wild = 1
            elif arrays.is_joker(R, x):
                table_jokers += arrays.points(R, x)
            x = arrays.next_card(S, x)
        if arrays.is_build(S, a):
            b = 1 + build_bucket(R, arrays.unit_value(S, a))
            o = arrays.unit_owner(S, a)
            if o >= 0 and arrays.side_of(R, o) == side:
                mine = max(mine, b)
            else:
                theirs = max(theirs, b)
    big = 0 if table_jokers == 0 else (1 if stakes_bucket(table_jokers, total) <= 3 else 2)
    h = _chain(h, ((_cap(n, 3) * 8 + stakes_bucket(table_pts, total)) * 3 + big) * 2 + table_wild)
    h = _chain(h, _half(mine) * 3 + _half(theirs))
    last = arrays.last_capturer(S)
    h = _chain(h, (0 if last < 0 else (1 if last == side else 2)) * 8 + _lead_share(_lead(R, S, side), total))
    return h


@kernel
def stakes_decision(R, S, moves, n, out, lite):
    """The ``stakes`` key at ``S`` (:func:`stakes_features` and the classes present) and in
    ``out[:m]`` the index (into ``moves[:n]``) of the move each abstract action plays, -1 where no
    legal move falls in the class; returns (key, m), m = STAKES_CLASSES (with ``lite``: the
    ``stakes-lite`` classes :data:`LITE_OF`, a key of their own, m = STAKES_LITE_CLASSES). A class's
    move is its best member by the greedy heuristic's score (ties: the smallest move record), as in
    the other abstractions."""
    total = card_total(R)
    h = stakes_features(R, S, total)
    m = STAKES_LITE_CLASSES if lite else STAKES_CLASSES
    if lite:
        h = _chain(h, STAKES_LITE)
    score = np.empty(m, np.float64)
    for i in range(m):
        out[i] = -1
    for k in range(n):
        d = stakes_class(R, S, moves[k], total)
        if lite:
            d = LITE_OF[d]
        v = kernels.greedy_value(R, S, moves[k])
        if out[d] < 0 or _better(R, S, moves[k], v, moves[out[d]], score[d]):
            out[d], score[d] = k, v
    # The classes present are part of the set: an information set must fix its actions. With the
    # features alone, a key where a capture is present at one visit in ten averages that capture
    # to a tenth of its weight, and trails carry the negative regrets of the visits a capture beat.
    present = np.int64(0)
    for d in range(m):
        if out[d] >= 0:
            present |= _ONE << d
    key = np.int64(_chain(h, present))
    return (key if key != 0 else np.int64(1)), m


@kernel
def greedy_action(R, S, moves, idx, m):
    """The abstract action whose move the greedy heuristic scores highest (the first of equal
    ones; each action's move is already its class's best), -1 when none is present."""
    best = -1e18
    pick = -1
    for a in range(m):
        if idx[a] >= 0:
            v = kernels.greedy_value(R, S, moves[idx[a]])
            if v > best + 1e-9:
                best, pick = v, a
    return pick


@kernel
def present_strategy(weights, off, m, idx, out, positive):
    """``out[:m]`` = ``weights[off:off+m]`` (their positive parts with ``positive``: regret matching)
    normalised over the abstract actions present at this decision (``idx[a] >= 0``; ``stakes`` has
    absent ones), 0 at the absent; uniform over the present when they sum to zero. With every
    action present this is :func:`~zwick_ai.agents.cfr.core.regret_matching` (``positive``) or
    :func:`~zwick_ai.agents.cfr.core.normalised`."""
    total = 0.0
    count = 0
    for i in range(m):
        if idx[i] >= 0:
            count += 1
            x = weights[off + i]
            if x > 0.0 or not positive:
                total += x
    for i in range(m):
        x = weights[off + i]
        if idx[i] < 0:
            out[i] = 0.0
        elif total > 0.0:
            out[i] = x / total if (x > 0.0 or not positive) else 0.0
        else:
            out[i] = 1.0 / count


@kernel
def zwicker_decision(R, S, moves, n, abstraction, out):
    """(key, m): the table key of the player to move's abstracted information set at ``S`` and in
    ``out[:m]`` the index (into ``moves[:n]``, the legal whole moves) of the move each abstract
    action plays, abstract actions in descriptor order (module docstring). Keys are never 0.
    ``stakes`` and ``stakes-lite``: :func:`stakes_decision` (a fixed alphabet, -1 where an action
    is absent)."""
    if abstraction >= STAKES:
        return stakes_decision(R, S, moves, n, out, abstraction == STAKES_LITE)
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
    "STAKES",
    "STAKES_CLASSES",
    "STAKES_LITE",
    "STAKES_LITE_CLASSES",
    "LITE_OF",
    "ZWICKER_ABSTRACTIONS",
    "card_total",
    "greedy_action",
    "present_strategy",
    "stakes_bucket",
    "stakes_class",
    "stakes_decision",
    "stakes_features",
    "move_descriptor",
    "state_features",
    "zwicker_abstraction_id",
    "zwicker_decision",
]
