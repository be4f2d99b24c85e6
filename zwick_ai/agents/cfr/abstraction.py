"""Information abstractions of the trick games (``zwikken``, ``zwicken``) for compiled MCCFR.

:func:`decision` gives, for the player to move, the table key of his (abstracted) information set
and his actions in the set's order (the table stores one strategy entry per position). Three
abstractions (``TRICK_ABSTRACTIONS``):

* ``none``: the exact information set (:func:`~zwick_ai.agents.cfr.keys.tricks_key`); the legal
  actions in id order.
* ``suits`` (lossless): suit isomorphism. Suits with a role keep their own labels (the trump suit
  0, the permanent trump's suit 1); the other suits are relabelled canonically: first by the ranks
  the player was dealt or drew in them (more and higher first), then by the order in which they first
  showed up in the rest of his observations (upcards, cut, plays). The key hashes the relabelled
  observation history (the cards of one sorted run of own deals, draws or discards as a set: their
  order is the card-id order, which a relabelling would change) and the relabelled legal actions.
  So two information sets that differ by a permutation of interchangeable suits get one key, and
  equal keys mean equal relabelled histories and legal actions. Packs whose suits hold different
  ranks are not relabelled.
* ``buckets`` (lossy): what a player needs to choose, coarsened.

  - *Public*: phase, own seat from forehand, the highest bid and its bidder (relative seat), per
    seat (relative to ours) its status, bid, whether it plays the tricks and its tricks (capped at
    2), the number of upcards and searches, the exchange counts, the gambler (relative seat); in
    the play: the trick number, cards played in it, whether the led suit is trump and who is
    winning it (relative seat) with a trump or not.
  - *Private hand bucket*: number of trumps, number of trumps and of side cards no unseen card
    beats, the greedy hand strength (:func:`~zwick_ai.agents.tricks_greedy.strength`) in quarter
    tricks (capped at 3.75) and whether the hand holds a winning combination (zwik).
  - *Actions*: cards are grouped by what they do: in the play by (trump or not, beats the card now
    winning / leads / cannot beat, unseen higher cards of its suit capped at 2, counts card points
    or not), each group played by its cheapest card (:func:`~zwick_ai.agents.tricks_greedy` order:
    side cards before trumps, fewest points, lowest rank); discards by (trump or not, unseen higher
    capped at 2), each group by its lowest card. Other actions stay themselves. The key includes
    the groups present, so equal keys mean equal abstract action sets.

  Imperfect recall: earlier cards of the hand and the exact cards played are forgotten.

>>> from zwick_ai import tricks as trick_engine
>>> r = trick_engine.rules("zwikken", variant="parlett", players=3)
>>> a = trick_engine.scripted(r, [["AH", "KH", "QS"], ["QC", "JS", "AC"], ["KC", "JC", "TS"]], upcard="TH")
>>> b = trick_engine.scripted(r, [["AH", "KH", "QC"], ["QS", "JC", "AS"], ["KS", "JS", "TC"]], upcard="TH")
>>> import numpy as np
>>> mask, out = np.zeros(123, np.bool_), np.zeros(123, np.int64)
>>> p = int(a.arr[1])
>>> decision(a.arr, r.cfg, p, SUITS, mask, out)[0] == decision(b.arr, r.cfg, p, SUITS, mask, out)[0]
True
>>> decision(a.arr, r.cfg, p, NONE, mask, out)[0] == decision(b.arr, r.cfg, p, NONE, mask, out)[0]
False
"""

from __future__ import annotations

import numpy as np

from zwick_ai.agents.cfr.core import mix64, sort_together
from zwick_ai.agents.cfr.keys import tricks_key
from zwick_ai.agents.tricks_greedy import cheapness, is_trump, unseen_higher, winning
from zwick_ai.agents.tricks_greedy import strength as hand_strength
from zwick_ai.jit import kernel
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels

TRICK_ABSTRACTIONS = ("none", "suits", "buckets")
NONE, SUITS, BUCKETS = 0, 1, 2
_SALT = np.uint64(0x632BE59BD9B4E019)
_RUN_KINDS = 3  # own deal, own draw, own discard: sorted runs hashed as sets


@kernel
def _chain(h, token):
    return mix64(h ^ (np.uint64(token) + _SALT))


@kernel
def suit_symmetric(cfg):
    """Do all four suits hold the same ranks in this pack?"""
    for r in range(13):
        f = trick_arrays.in_pack(cfg, r)
        for su in range(1, 4):
            if trick_arrays.in_pack(cfg, 13 * su + r) != f:
                return False
    return True


@kernel
def suit_labels(s, cfg, player, label):
    """``label[suit]`` = the canonical label of each suit for ``player`` (module docstring)."""
    for su in range(4):
        label[su] = su
    if not suit_symmetric(cfg):
        return
    trump = trick_arrays.trump(s)
    perm = trick_arrays.permanent_trump(cfg)
    psuit = perm // 13 if perm >= 0 else -1
    fixed = np.full(4, -1, np.int64)
    if trump >= 0:
        fixed[trump] = 0
    if psuit >= 0 and psuit != trump:
        fixed[psuit] = 1
    owned = np.zeros(4, np.int64)  # rank bits of the cards dealt to or drawn by the player
    first = np.full(4, 1 << 30, np.int64)  # first other observation of the suit
    for i in range(trick_arrays.history_length(s)):
        c = trick_arrays.event_card(s, i)
        if c < 0 or not trick_arrays.seen_by(s, i, player):
            continue
        if trick_arrays.received_by(s, i) == player:
            owned[c // 13] |= 1 << (c % 13)
        elif first[c // 13] > i:
            first[c // 13] = i
    free_labels = np.zeros(4, np.int64)
    nl = 0
    for lab in range(4):
        used = False
        for su in range(4):
            if fixed[su] == lab:
                used = True
        if not used:
            free_labels[nl] = lab
            nl += 1
    done = np.zeros(4, np.bool_)
    for su in range(4):
        if fixed[su] >= 0:
            label[su] = fixed[su]
            done[su] = True
    for k in range(nl):
        best = -1
        for su in range(4):
            if done[su]:
                continue
            if best < 0 or owned[su] > owned[best] or (owned[su] == owned[best] and first[su] < first[best]):
                best = su
        label[best] = free_labels[k]
        done[best] = True


@kernel
def _relabel_card(c, label):
    return label[c // 13] * 13 + c % 13


@kernel
def _relabel_action(a, label):
    """Action ``a`` with its card (of a play or a discard) relabelled."""
    c = trick_arrays.played_card(a)
    if c < 0:
        c = trick_arrays.discarded_card(a)
    return a if c < 0 else a - c + _relabel_card(c, label)


@kernel
def _suits_key(s, cfg, player, mask, out):
    label = np.zeros(4, np.int64)
    suit_labels(s, cfg, player, label)
    h = mix64(np.uint64(player + 1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(77))
    run_kind = -1
    run = np.uint64(0)
    for i in range(trick_arrays.history_length(s)):
        kind, who, v = trick_arrays.observed_event(s, i, player)
        if kind < 0:
            continue
        rk = trick_arrays.private_run(s, i, player)  # which sorted run this event belongs to
        if trick_arrays.seen_by(s, i, player):
            if trick_arrays.is_action(s, i):
                v = _relabel_action(v, label)
            elif v >= 0:
                v = _relabel_card(v, label)
        token = np.uint64(kind) | (np.uint64(who + 1) << np.uint64(8)) | (np.uint64(v + 2) << np.uint64(16))
        if rk != run_kind and run_kind >= 0:
            h = _chain(h, run + np.uint64(run_kind))
            run = np.uint64(0)
        run_kind = rk
        if rk >= 0:
            run += mix64(token + _SALT)  # order-free: a sorted run is a set
        else:
            h = _chain(h, token)
    if run_kind >= 0:
        h = _chain(h, run + np.uint64(run_kind))
    tricks_kernels.legal_mask(s, cfg, mask)
    vals = np.empty(trick_arrays.NUM_ACTIONS, np.int64)
    n = 0
    for a in range(trick_arrays.NUM_ACTIONS):
        if mask[a]:
            out[n] = a
            vals[n] = _relabel_action(a, label)
            n += 1
    sort_together(vals, out, n)
    h = _chain(h, np.uint64(1000 + n))
    for i in range(n):
        h = _chain(h, np.uint64(vals[i]))
    return h, n


@kernel
def _buckets_key(s, cfg, player, mask, out):
    n_pl = trick_arrays.seat_count(s)
    ph = trick_arrays.phase(s)
    perm = trick_arrays.permanent_trump(cfg)
    rel_dealer = (player - trick_arrays.dealer(s) - 1) % n_pl
    h = mix64(np.uint64(ph + 1) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(991))
    h = _chain(h, np.uint64(rel_dealer))
    hp = trick_arrays.high_bidder(s)
    h = _chain(h, np.uint64(trick_arrays.high_bid(s) * 16 + ((hp - player) % n_pl if hp >= 0 else 9)))
    for k in range(n_pl):
        q = (player + k) % n_pl
        st = trick_arrays.status(s, q)
        bid = trick_arrays.bid(s, q)
        tin = 1 if trick_arrays.in_tricks(s, q) else 0
        tr = min(trick_arrays.tricks_won(s, q), 2)
        h = _chain(h, np.uint64(((st * 8 + bid) * 2 + tin) * 4 + tr))
    sp = trick_arrays.speler(s)
    h = _chain(
        h,
        np.uint64(
            trick_arrays.upcard_count(s) * 64 + trick_arrays.searches(s) * 8 + ((sp - player) % n_pl if sp >= 0 else 7)
        ),
    )
    h = _chain(
        h,
        np.uint64(
            trick_arrays.exchange_declared(s) * 8
            + trick_arrays.exchange_discarded(s)
            + 64 * trick_arrays.auction_round(s)
        ),
    )
    # the private hand bucket
    trump = trick_arrays.trump(s)
    hc = np.empty(trick_arrays.NC, np.int32)
    m = tricks_kernels.hand(s, player, hc)
    ntr = 0
    sure_t = 0
    sure_s = 0
    for i in range(m):
        t = is_trump(s, cfg, hc[i])
        if t:
            ntr += 1
        if unseen_higher(s, cfg, player, hc[i]) == 0:
            if t:
                sure_t += 1
            else:
                sure_s += 1
    st4 = min(int(hand_strength(s, cfg, player) * 4.0), 15)
    zwik = 1 if tricks_kernels.combo_value(s, cfg, player) > 0 else 0
    h = _chain(h, np.uint64((((ntr * 4 + sure_t) * 4 + sure_s) * 16 + st4) * 2 + zwik))
    who, best = -1, -1
    if trick_arrays.in_play(s):
        who, best = winning(s, cfg)
        led = trick_arrays.led_suit(s)
        lt = 2 if led < 0 else (1 if led == trump else 0)
        bt = 2 if best < 0 else (1 if is_trump(s, cfg, best) else 0)
        rw = (who - player) % n_pl if who >= 0 else 7
        h = _chain(
            h,
            np.uint64(
                (((trick_arrays.trick_number(s) * 8 + trick_arrays.played_to_trick(s)) * 4 + lt) * 4 + bt) * 8 + rw
            ),
        )
    # abstract actions: one per group, its representative in out, groups in descriptor order
    tricks_kernels.legal_mask(s, cfg, mask)
    desc = np.empty(trick_arrays.NUM_ACTIONS, np.int64)
    rank = np.empty(trick_arrays.NUM_ACTIONS, np.int64)
    n = 0
    for a in range(trick_arrays.NUM_ACTIONS):
        if not mask[a]:
            continue
        if trick_arrays.in_play(s) and trick_arrays.played_card(a) >= 0:
            c = trick_arrays.played_card(a)
            beat = 2 if best < 0 else (1 if tricks_kernels.beats(c, best, trump, perm) else 0)
            d = (((1 if is_trump(s, cfg, c) else 0) * 4 + beat) * 4 + min(unseen_higher(s, cfg, player, c), 2)) * 2 + (
                1 if tricks_kernels.POINTS[c % 13] > 0 else 0
            )
            cost = cheapness(s, cfg, c)
        elif trick_arrays.discarded_card(a) >= 0:
            c = trick_arrays.discarded_card(a)
            d = 100 + (1 if is_trump(s, cfg, c) else 0) * 4 + min(unseen_higher(s, cfg, player, c), 2)
            cost = c
        else:
            d = 1000 + a
            cost = 0
        j = -1
        for i in range(n):
            if desc[i] == d:
                j = i
        if j < 0:
            desc[n], out[n], rank[n] = d, a, cost
            n += 1
        elif cost < rank[j]:
            out[j], rank[j] = a, cost
    sort_together(desc, out, n)
    h = _chain(h, np.uint64(1000 + n))
    for i in range(n):
        h = _chain(h, np.uint64(desc[i]))
    return h, n


@kernel
def decision(s, cfg, player, abstraction, mask, out):
    """(key, n): the table key of ``player``'s (abstracted) information set at ``s`` (the player to
    move) and in ``out[:n]`` his actions in the set's order, one per abstract action (module
    docstring). Keys are never 0."""
    if abstraction == NONE:
        tricks_kernels.legal_mask(s, cfg, mask)
        n = 0
        for a in range(trick_arrays.NUM_ACTIONS):
            if mask[a]:
                out[n] = a
                n += 1
        return tricks_key(s, player), n
    if abstraction == SUITS:
        h, n = _suits_key(s, cfg, player, mask, out)
    else:
        h, n = _buckets_key(s, cfg, player, mask, out)
    k = np.int64(h)
    return (k if k != 0 else np.int64(1)), n


def abstraction_id(name: str) -> int:
    """The compiled id of a trick-game abstraction name (``ValueError`` listing the valid ones)."""
    if name not in TRICK_ABSTRACTIONS:
        raise ValueError(f"unknown trick-game abstraction {name!r}; valid: {', '.join(TRICK_ABSTRACTIONS)}")
    return TRICK_ABSTRACTIONS.index(name)
