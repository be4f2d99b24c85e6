"""A greedy heuristic for the trick games (Zwikken, Zwicken), compiled so that search rollouts use it.

:func:`greedy_action` chooses the action of the player to move from what that player may know: his
own hand, the upcards, the cut card shown at the bottom, the cards played face up, and the calls.
It never reads another seat's cards. It is deterministic (ties go to the lowest action id).

The heuristic (docs/rules.md Parts B and C):

* **Card value.** A card's chance to take a trick is read from how many unseen cards of its
  (effective) suit beat it. A trump with no unseen higher trump is worth 1 trick, with one 0.7,
  two 0.45, three 0.3, more 0.2; a side card with no unseen higher card (an Ace) is worth 0.5,
  with one higher 0.15, otherwise 0.05. The hand's strength is the sum over its cards.
* **Zwik.** A winning combination (:func:`zwick_ai.tricks.kernels.combo_value`: three of a rank,
  1853 suit triplets, three trumps with the option) is always played/asked for: it takes the pot
  before the tricks.
* **Bid/ask** (parlett, modern): bid the lowest legal level when strength >= 1.6 + 0.3 x the
  highest level already bid (the gambler needs about two tricks), otherwise pass; the call
  announcing the trump ten ("... en ik ken hem") is used whenever it is legal, and the upcard that
  the ten could be swapped for counts in place of the ten.
* **Play or pass** (1853): play with strength >= 1.0 (a player who takes no trick pays the pot).
* **Stay and exchange** (Zwicken): stay with strength >= 1.0, or when nobody has stayed and this is
  the last player (a lone stayer takes the pot); exchange every card worth less than 0.3 (as far
  as the talon goes), discarding the weakest. Otherwise pass.
* **Search** (dealer after all passed): turn a new trump when holding an Ace, else end the deal.
* **Ten swap:** swap when the upcard outranks the ten or completes a zwik, unless the ten is part
  of a zwik.
* **Play.** Follow and trump duties are the engine's (only legal cards are considered). Leading:
  lead a trump with no unseen higher trump, else a side card with no unseen higher card of its
  suit, else the lowest card (side cards before trumps). Following: if some legal card beats the
  card now winning, play the cheapest winner (side cards before trumps, then lowest rank); when
  not last to play, prefer the cheapest winner that no unseen card can beat. Otherwise throw the
  lowest card (side cards before trumps, fewest card points, lowest rank).

Strength against uniform random play (``python benchmarks/bench_tricks_agents.py``; chips per deal
of a greedy seat minus a random player in the same seat on the same duplicate deals, seats
rotated, 2,000 deals, 95% CI; table in ``benchmarks/README.md``): modern Zwikken 3 players +0.33
[+0.28, +0.37], parlett 3 players +0.38 [+0.34, +0.42], Zwicken 4 players +0.42 [+0.38, +0.46],
1853 4 players +0.12 [+0.09, +0.15].

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai import tricks as trick_engine
>>> r = trick_engine.rules("zwikken", variant="parlett", players=3)
>>> s = trick_engine.scripted(r, [["AH", "KH", "QH"], ["QS", "JS", "AC"], ["KC", "QC", "JC"]], upcard="TH")
>>> trick_engine.action_name(r, int(greedy_action(s.arr, r.cfg)))   # three top trumps: bid
'bid 1'
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels

BID_BASE = 1.6  # strength needed to bid against nobody (about two tricks)
BID_STEP = 0.3  # extra strength per level already bid
PLAY_MIN = 1.0  # 1853 play / Zwicken stay
EXCHANGE_BELOW = 0.3  # Zwicken: exchange cards worth less


@kernel
def unseen_higher(s, cfg, p, c):
    """Cards of ``c``'s effective suit that beat it and that seat ``p`` has not seen (not in his
    hand, not an upcard, not the shown bottom card, not played face up, not in the trick)."""
    trump = trick_arrays.trump(s)
    perm = trick_arrays.permanent_trump(cfg)
    suit = tricks_kernels.eff_suit(c, trump, perm)
    k = 0
    for x in range(trick_arrays.NC):
        if x == c or not trick_arrays.in_pack(cfg, x):
            continue
        if (
            trick_arrays.in_hand(s, x, p)
            or trick_arrays.is_upcard(s, x)
            or trick_arrays.is_bottom(s, x)
            or trick_arrays.is_played(s, x)
        ):
            continue
        if tricks_kernels.eff_suit(x, trump, perm) == suit and tricks_kernels.strength(
            x, perm
        ) > tricks_kernels.strength(c, perm):
            k += 1
    return k


@kernel
def card_value(s, cfg, p, c):
    """Rough number of tricks card ``c`` takes for seat ``p`` (module docstring)."""
    h = unseen_higher(s, cfg, p, c)
    t = trick_arrays.trump(s)
    if t >= 0 and tricks_kernels.eff_suit(c, t, trick_arrays.permanent_trump(cfg)) == t:
        if h == 0:
            return 1.0
        if h == 1:
            return 0.7
        if h == 2:
            return 0.45
        if h == 3:
            return 0.3
        return 0.2
    if h == 0:
        return 0.5
    if h == 1:
        return 0.15
    return 0.05


@kernel
def strength(s, cfg, p):
    """Sum of :func:`card_value` over seat ``p``'s hand."""
    hc = np.empty(trick_arrays.NC, dtype=np.int32)
    m = tricks_kernels.hand(s, p, hc)
    total = 0.0
    for i in range(m):
        total += card_value(s, cfg, p, hc[i])
    return total


@kernel
def is_trump(s, cfg, c):
    """Card ``c`` is a trump (in the trump suit under the deal's card order)."""
    t = trick_arrays.trump(s)
    return t >= 0 and tricks_kernels.eff_suit(c, t, trick_arrays.permanent_trump(cfg)) == t


@kernel
def cheapness(s, cfg, c):
    """Order of cheapness for throwing or winning: side cards before trumps, then card points,
    then rank."""
    return (
        (1000 if is_trump(s, cfg, c) else 0)
        + 100 * tricks_kernels.POINTS[c % 13]
        + tricks_kernels.strength(c, trick_arrays.permanent_trump(cfg))
    )


@kernel
def winning(s, cfg):
    """(seat, card) now winning the trick among face-up cards; (-1, -1) if none."""
    n = trick_arrays.seat_count(s)
    q = trick_arrays.leader(s)
    best, who = -1, -1
    for _ in range(n):
        c = trick_arrays.trick_card(s, q)
        if c >= 0 and not trick_arrays.face_down(s, q):
            if best < 0 or tricks_kernels.beats(c, best, trick_arrays.trump(s), trick_arrays.permanent_trump(cfg)):
                best, who = c, q
        q = (q + 1) % n
    return who, best


@kernel
def _play(s, cfg, p, mask):
    best = winning(s, cfg)[1]
    pick = -1
    if trick_arrays.played_to_trick(s) == 0:
        # lead a sure winner (trumps first), else the cheapest card
        score = -1
        for c in range(trick_arrays.NC):
            if mask[c] and unseen_higher(s, cfg, p, c) == 0:
                v = (2 if is_trump(s, cfg, c) else 1) * 100 + tricks_kernels.strength(
                    c, trick_arrays.permanent_trump(cfg)
                )
                if v > score:
                    score, pick = v, c
        if pick >= 0:
            return pick
    elif best >= 0:
        last = trick_arrays.played_to_trick(s) == trick_arrays.taking_part(s) - 1
        cheapest, cheapest_sure = -1, -1
        for c in range(trick_arrays.NC):
            if mask[c] and tricks_kernels.beats(c, best, trick_arrays.trump(s), trick_arrays.permanent_trump(cfg)):
                if cheapest < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, cheapest):
                    cheapest = c
                if unseen_higher(s, cfg, p, c) == 0:
                    if cheapest_sure < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, cheapest_sure):
                        cheapest_sure = c
        if cheapest >= 0:
            return cheapest if last or cheapest_sure < 0 else cheapest_sure
    for c in range(trick_arrays.NC):
        if mask[c] and (pick < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, pick)):
            pick = c
    return pick


@kernel
def _first(mask, lo, hi):
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@kernel
def _auction(s, cfg, p, mask):
    zwik = tricks_kernels.combo_value(s, cfg, p) > 0
    est = strength(s, cfg, p)
    ken = mask[trick_arrays.A_PASS_KEN]
    if ken:
        # the announced ten may be swapped for the upcard: count the upcard instead
        up = trick_arrays.upcard(s, trick_arrays.upcard_count(s) - 1)
        ten = trick_arrays.ten_of(up)
        est += max(0.0, card_value(s, cfg, p, up) - card_value(s, cfg, p, ten))
    if zwik or est >= BID_BASE + BID_STEP * trick_arrays.high_bid(s):
        a = _first(mask, trick_arrays.A_BID_KEN, trick_arrays.A_BID_KEN + 4) if ken else -1
        if a < 0:
            a = _first(mask, trick_arrays.A_BID, trick_arrays.A_BID + 4)
        if a >= 0:
            return a
    return trick_arrays.A_PASS_KEN if ken else trick_arrays.A_PASS


@kernel
def _declare(s, cfg, p, mask):
    zwik = tricks_kernels.combo_value(s, cfg, p) > 0
    est = strength(s, cfg, p)
    if trick_arrays.declares_play_or_pass(cfg):
        if mask[trick_arrays.A_PLAYDECL] and (zwik or est >= PLAY_MIN or not mask[trick_arrays.A_PASS]):
            return trick_arrays.A_PLAYDECL
        return trick_arrays.A_PASS
    n = trick_arrays.seat_count(s)
    nobody = True
    for q in range(n):
        if trick_arrays.status(s, q) == 1:
            nobody = False
    if est >= PLAY_MIN or (nobody and trick_arrays.turn(s) == n - 1):
        hc = np.empty(trick_arrays.NC, dtype=np.int32)
        m = tricks_kernels.hand(s, p, hc)
        weak = 0
        for i in range(m):
            if card_value(s, cfg, p, hc[i]) < EXCHANGE_BELOW:
                weak += 1
        for k in range(weak, -1, -1):
            if mask[trick_arrays.A_EXCH + k]:
                return trick_arrays.A_EXCH + k
    return trick_arrays.A_PASS


@kernel
def _discard(s, cfg, p, mask):
    """Discard the weakest cards: of the cards still allowed (above the last discard), the
    ``left`` weakest, lowest id first (discards go in increasing order)."""
    hc = np.empty(trick_arrays.NC, dtype=np.int32)
    m = tricks_kernels.hand(s, p, hc)
    left = trick_arrays.exchange_declared(s) - trick_arrays.exchange_discarded(s)
    val = np.empty(m, dtype=np.float64)
    cand = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        val[i] = card_value(s, cfg, p, hc[i])
        cand[i] = hc[i] > trick_arrays.run_last(s)
    chosen = np.zeros(m, dtype=np.bool_)
    for _ in range(left):
        j = -1
        for i in range(m):
            if cand[i] and not chosen[i] and (j < 0 or val[i] < val[j]):
                j = i
        if j >= 0:
            chosen[j] = True
    for i in range(m):
        if chosen[i] and mask[trick_arrays.A_DISCARD + hc[i]]:
            return trick_arrays.A_DISCARD + hc[i]
    return _first(mask, trick_arrays.A_DISCARD, trick_arrays.A_DISCARD + trick_arrays.NC)


@kernel
def _swap(s, cfg, p):
    up = trick_arrays.offered_upcard(s)
    ten = trick_arrays.ten_of(up)
    before = tricks_kernels.combo_value(s, cfg, p)
    trick_arrays.swap_places(s, up, ten)  # try the swap on the array (the ten in p's hand), then undo it
    after = tricks_kernels.combo_value(s, cfg, p)
    trick_arrays.swap_places(s, up, ten)
    if after > before:
        return trick_arrays.A_SWAP
    perm = trick_arrays.permanent_trump(cfg)
    if before == 0 and tricks_kernels.strength(up, perm) > tricks_kernels.strength(ten, perm):
        return trick_arrays.A_SWAP
    return trick_arrays.A_KEEP


@kernel
def _search(s, p):
    for c in range(trick_arrays.NC):
        if trick_arrays.in_hand(s, c, p) and trick_arrays.is_ace(c):
            return trick_arrays.A_SEARCH
    return trick_arrays.A_STOP


@kernel
def greedy_action(s, cfg):
    """The greedy action of the player to move (module docstring); -1 at chance or terminal nodes."""
    p = trick_arrays.to_move(s)
    if p < 0:
        return -1
    mask = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.bool_)
    tricks_kernels.legal_mask(s, cfg, mask)
    if trick_arrays.in_play(s):
        a = _play(s, cfg, p, mask)
    elif trick_arrays.in_auction(s):
        a = _auction(s, cfg, p, mask)
    elif trick_arrays.in_declare(s):
        a = _declare(s, cfg, p, mask)
    elif trick_arrays.in_discard(s):
        a = _discard(s, cfg, p, mask)
    elif trick_arrays.in_swap(s):
        a = _swap(s, cfg, p)
    elif trick_arrays.in_search(s):
        a = _search(s, p)
    else:
        a = -1
    if a < 0 or not mask[a]:
        a = _first(mask, 0, trick_arrays.NUM_ACTIONS)  # never reached with legal rules; keeps the policy total
    return a


def greedy_decision(state) -> list[int]:
    """The greedy decision (one action) for a ``zwikken``/``zwicken`` OpenSpiel state."""
    decision = state.decision()
    return [int(greedy_action(decision.position, decision.config))]


__all__ = [
    "card_value",
    "cheapness",
    "greedy_action",
    "greedy_decision",
    "is_trump",
    "strength",
    "unseen_higher",
    "winning",
]
