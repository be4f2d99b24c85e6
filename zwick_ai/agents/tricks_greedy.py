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
from numba import njit

from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout

BID_BASE = 1.6  # strength needed to bid against nobody (about two tricks)
BID_STEP = 0.3  # extra strength per level already bid
PLAY_MIN = 1.0  # 1853 play / Zwicken stay
EXCHANGE_BELOW = 0.3  # Zwicken: exchange cards worth less


@njit(cache=True)
def unseen_higher(s, cfg, p, c):
    """Cards of ``c``'s effective suit that beat it and that seat ``p`` has not seen (not in his
    hand, not an upcard, not the shown bottom card, not played face up, not in the trick)."""
    trump = s[tricks_layout.S_TRUMP]
    perm = cfg[tricks_layout.C_PERM]
    suit = tricks_kernels.eff_suit(c, trump, perm)
    k = 0
    for x in range(tricks_layout.NC):
        if x == c or cfg[tricks_layout.C_INPACK + x] == 0:
            continue
        loc = s[tricks_layout.S_LOC + x]
        if (
            loc == tricks_layout.L_HAND + p
            or loc == tricks_layout.L_UP
            or loc == tricks_layout.L_BOTTOM
            or loc == tricks_layout.L_PLAYED
        ):
            continue
        if tricks_kernels.eff_suit(x, trump, perm) == suit and tricks_kernels.strength(
            x, perm
        ) > tricks_kernels.strength(c, perm):
            k += 1
    return k


@njit(cache=True)
def card_value(s, cfg, p, c):
    """Rough number of tricks card ``c`` takes for seat ``p`` (module docstring)."""
    h = unseen_higher(s, cfg, p, c)
    if (
        s[tricks_layout.S_TRUMP] >= 0
        and tricks_kernels.eff_suit(c, s[tricks_layout.S_TRUMP], cfg[tricks_layout.C_PERM]) == s[tricks_layout.S_TRUMP]
    ):
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


@njit(cache=True)
def strength(s, cfg, p):
    """Sum of :func:`card_value` over seat ``p``'s hand."""
    hc = np.empty(tricks_layout.NC, dtype=np.int32)
    m = tricks_kernels.hand(s, p, hc)
    total = 0.0
    for i in range(m):
        total += card_value(s, cfg, p, hc[i])
    return total


@njit(cache=True)
def is_trump(s, cfg, c):
    """Card ``c`` is a trump (in the trump suit under the deal's card order)."""
    return (
        s[tricks_layout.S_TRUMP] >= 0
        and tricks_kernels.eff_suit(c, s[tricks_layout.S_TRUMP], cfg[tricks_layout.C_PERM]) == s[tricks_layout.S_TRUMP]
    )


@njit(cache=True)
def cheapness(s, cfg, c):
    """Order of cheapness for throwing or winning: side cards before trumps, then card points,
    then rank."""
    return (
        (1000 if is_trump(s, cfg, c) else 0)
        + 100 * tricks_kernels.POINTS[c % 13]
        + tricks_kernels.strength(c, cfg[tricks_layout.C_PERM])
    )


@njit(cache=True)
def winning(s, cfg):
    """(seat, card) now winning the trick among face-up cards; (-1, -1) if none."""
    n = s[tricks_layout.S_N]
    q = s[tricks_layout.S_LEADER]
    best, who = -1, -1
    for _ in range(n):
        c = s[tricks_kernels.pf(q, tricks_layout.P_TCARD)]
        if c >= 0 and s[tricks_kernels.pf(q, tricks_layout.P_TFD)] == 0:
            if best < 0 or tricks_kernels.beats(c, best, s[tricks_layout.S_TRUMP], cfg[tricks_layout.C_PERM]):
                best, who = c, q
        q = (q + 1) % n
    return who, best


@njit(cache=True)
def _play(s, cfg, p, mask):
    best = winning(s, cfg)[1]
    pick = -1
    if s[tricks_layout.S_NPLAYED] == 0:
        # lead a sure winner (trumps first), else the cheapest card
        score = -1
        for c in range(tricks_layout.NC):
            if mask[c] and unseen_higher(s, cfg, p, c) == 0:
                v = (2 if is_trump(s, cfg, c) else 1) * 100 + tricks_kernels.strength(c, cfg[tricks_layout.C_PERM])
                if v > score:
                    score, pick = v, c
        if pick >= 0:
            return pick
    elif best >= 0:
        last = s[tricks_layout.S_NPLAYED] == s[tricks_layout.S_NPART] - 1
        cheapest, cheapest_sure = -1, -1
        for c in range(tricks_layout.NC):
            if mask[c] and tricks_kernels.beats(c, best, s[tricks_layout.S_TRUMP], cfg[tricks_layout.C_PERM]):
                if cheapest < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, cheapest):
                    cheapest = c
                if unseen_higher(s, cfg, p, c) == 0:
                    if cheapest_sure < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, cheapest_sure):
                        cheapest_sure = c
        if cheapest >= 0:
            return cheapest if last or cheapest_sure < 0 else cheapest_sure
    for c in range(tricks_layout.NC):
        if mask[c] and (pick < 0 or cheapness(s, cfg, c) < cheapness(s, cfg, pick)):
            pick = c
    return pick


@njit(cache=True)
def _first(mask, lo, hi):
    for a in range(lo, hi):
        if mask[a]:
            return a
    return -1


@njit(cache=True)
def _auction(s, cfg, p, mask):
    zwik = tricks_kernels.combo_value(s, cfg, p) > 0
    est = strength(s, cfg, p)
    ken = mask[tricks_layout.A_PASS_KEN]
    if ken:
        # the announced ten may be swapped for the upcard: count the upcard instead
        up = s[tricks_layout.S_UP + s[tricks_layout.S_NUP] - 1]
        ten = (up // 13) * 13 + tricks_layout.TEN
        est += max(0.0, card_value(s, cfg, p, up) - card_value(s, cfg, p, ten))
    if zwik or est >= BID_BASE + BID_STEP * s[tricks_layout.S_HIGH]:
        a = _first(mask, tricks_layout.A_BID_KEN, tricks_layout.A_BID_KEN + 4) if ken else -1
        if a < 0:
            a = _first(mask, tricks_layout.A_BID, tricks_layout.A_BID + 4)
        if a >= 0:
            return a
    return tricks_layout.A_PASS_KEN if ken else tricks_layout.A_PASS


@njit(cache=True)
def _declare(s, cfg, p, mask):
    zwik = tricks_kernels.combo_value(s, cfg, p) > 0
    est = strength(s, cfg, p)
    if cfg[tricks_layout.C_DECLARE] == tricks_layout.DECL_PLAYPASS:
        if mask[tricks_layout.A_PLAYDECL] and (zwik or est >= PLAY_MIN or not mask[tricks_layout.A_PASS]):
            return tricks_layout.A_PLAYDECL
        return tricks_layout.A_PASS
    n = s[tricks_layout.S_N]
    nobody = True
    for q in range(n):
        if s[tricks_kernels.pf(q, tricks_layout.P_STATUS)] == 1:
            nobody = False
    if est >= PLAY_MIN or (nobody and s[tricks_layout.S_TURN] == n - 1):
        hc = np.empty(tricks_layout.NC, dtype=np.int32)
        m = tricks_kernels.hand(s, p, hc)
        weak = 0
        for i in range(m):
            if card_value(s, cfg, p, hc[i]) < EXCHANGE_BELOW:
                weak += 1
        for k in range(weak, -1, -1):
            if mask[tricks_layout.A_EXCH + k]:
                return tricks_layout.A_EXCH + k
    return tricks_layout.A_PASS


@njit(cache=True)
def _discard(s, cfg, p, mask):
    """Discard the weakest cards: of the cards still allowed (above the last discard), the
    ``left`` weakest, lowest id first (discards go in increasing order)."""
    hc = np.empty(tricks_layout.NC, dtype=np.int32)
    m = tricks_kernels.hand(s, p, hc)
    left = s[tricks_layout.S_EXK] - s[tricks_layout.S_EXD]
    val = np.empty(m, dtype=np.float64)
    cand = np.zeros(m, dtype=np.bool_)
    for i in range(m):
        val[i] = card_value(s, cfg, p, hc[i])
        cand[i] = hc[i] > s[tricks_layout.S_LAST]
    chosen = np.zeros(m, dtype=np.bool_)
    for _ in range(left):
        j = -1
        for i in range(m):
            if cand[i] and not chosen[i] and (j < 0 or val[i] < val[j]):
                j = i
        if j >= 0:
            chosen[j] = True
    for i in range(m):
        if chosen[i] and mask[tricks_layout.A_DISCARD + hc[i]]:
            return tricks_layout.A_DISCARD + hc[i]
    return _first(mask, tricks_layout.A_DISCARD, tricks_layout.A_DISCARD + tricks_layout.NC)


@njit(cache=True)
def _swap(s, cfg, p):
    up = s[tricks_layout.S_UP + s[tricks_layout.S_SWAPK]]
    ten = (up // 13) * 13 + tricks_layout.TEN
    before = tricks_kernels.combo_value(s, cfg, p)
    s[tricks_layout.S_LOC + up], s[tricks_layout.S_LOC + ten] = (
        tricks_layout.L_HAND + p,
        tricks_layout.L_UP,
    )  # try the swap on the array, then undo it
    after = tricks_kernels.combo_value(s, cfg, p)
    s[tricks_layout.S_LOC + up], s[tricks_layout.S_LOC + ten] = tricks_layout.L_UP, tricks_layout.L_HAND + p
    if after > before:
        return tricks_layout.A_SWAP
    if before == 0 and tricks_kernels.strength(up, cfg[tricks_layout.C_PERM]) > tricks_kernels.strength(
        ten, cfg[tricks_layout.C_PERM]
    ):
        return tricks_layout.A_SWAP
    return tricks_layout.A_KEEP


@njit(cache=True)
def _search(s, p):
    for c in range(tricks_layout.NC):
        if s[tricks_layout.S_LOC + c] == tricks_layout.L_HAND + p and c % 13 == tricks_layout.ACE:
            return tricks_layout.A_SEARCH
    return tricks_layout.A_STOP


@njit(cache=True)
def greedy_action(s, cfg):
    """The greedy action of the player to move (module docstring); -1 at chance or terminal nodes."""
    p = s[tricks_layout.S_CUR]
    if p < 0:
        return -1
    mask = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.bool_)
    tricks_kernels.legal_mask(s, cfg, mask)
    ph = s[tricks_layout.S_PHASE]
    if ph == tricks_layout.PH_PLAY:
        a = _play(s, cfg, p, mask)
    elif ph == tricks_layout.PH_AUCTION:
        a = _auction(s, cfg, p, mask)
    elif ph == tricks_layout.PH_DECLARE:
        a = _declare(s, cfg, p, mask)
    elif ph == tricks_layout.PH_DISCARD:
        a = _discard(s, cfg, p, mask)
    elif ph == tricks_layout.PH_SWAP:
        a = _swap(s, cfg, p)
    elif ph == tricks_layout.PH_SEARCH:
        a = _search(s, p)
    else:
        a = -1
    if a < 0 or not mask[a]:
        a = _first(mask, 0, tricks_layout.NUM_ACTIONS)  # never reached with legal rules; keeps the policy total
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
