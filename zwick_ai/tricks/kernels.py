"""numba kernels of the trick-and-pot engine: chance outcomes, legal actions, apply, trick winner,
settlement and random playouts, all on the flat int32 state array of :mod:`~zwick_ai.tricks.layout`.

Every rule set runs through the same code; rule differences are read from the ``cfg`` array.
Chance: each hand (and each exchange draw) is dealt as an increasing run of card ids with exact
combinatorial probabilities, so that one set of cards is one chance path (this keeps exact solving
small); upcards, re-turns and cuts are uniform over the cards still unseen.
"""

import numpy as np
from numba import njit

from zwick_ai.chance_runs import run_probabilities
from zwick_ai.tricks.layout import (
    A_BID,
    A_BID_KEN,
    A_DISCARD,
    A_EXCH,
    A_KEEP,
    A_PASS,
    A_PASS_KEN,
    A_PLAY,
    A_PLAYDECL,
    A_SEARCH,
    A_STOP,
    A_SWAP,
    ACE,
    AUCTION_CYCLIC,
    BETE_POT,
    BETE_STAKE,
    C_ACELEAD,
    C_ANBIETEN,
    C_AUCTION,
    C_BETE,
    C_DEALER,
    C_DEALER_ANTE,
    C_DECLARE,
    C_DUTY,
    C_FORCED,
    C_GEZWICKT,
    C_H,
    C_HUPF,
    C_INPACK,
    C_JUMP,
    C_JUMPMODE,
    C_LONE,
    C_LUBBERS,
    C_MAXLEVEL,
    C_MAXSEARCH,
    C_N,
    C_PARTPOT,
    C_PERM,
    C_POT,
    C_REPEAT_VOID,
    C_SEARCH_ANTE,
    C_TENSWAP,
    C_THREE_TRUMPS,
    C_UPPAIR,
    C_WIN,
    C_ZWIK,
    C_ZWIK_BETE,
    C_ZWIK_WHO,
    CUR_CHANCE,
    CUR_OVER,
    DECL_PLAYPASS,
    DUTY_HISTORIC,
    DUTY_PARLETT,
    DUTY_ZWICKEN,
    H_ACT,
    H_CUT,
    H_DEAL,
    H_DRAW,
    H_DRAWPUB,
    H_HIDDEN,
    H_UP,
    L_BOTTOM,
    L_DISC,
    L_FD,
    L_HAND,
    L_OUT,
    L_PLAYED,
    L_STOCK,
    L_UP,
    MAXH,
    NC,
    NP,
    NUM_ACTIONS,
    P_ANN,
    P_ASKED,
    P_BID,
    P_IN,
    P_LED,
    P_NET,
    P_PASSR1,
    P_POINTS,
    P_STATUS,
    P_TCARD,
    P_TFD,
    P_TRICKS,
    PH_AUCTION,
    PH_CUT,
    PH_DEAL,
    PH_DECLARE,
    PH_DISCARD,
    PH_DRAW,
    PH_END,
    PH_PLAY,
    PH_SEARCH,
    PH_SWAP,
    PH_UPCARD,
    R_LONE,
    R_REPEAT,
    R_STOP,
    R_TRICKS,
    R_VOID,
    R_ZWIK,
    S_BOTTOM,
    S_CUR,
    S_CUTCARD,
    S_CUTS,
    S_DEAL_J,
    S_DEAL_Q,
    S_DEALER,
    S_DRAWN,
    S_EXD,
    S_EXK,
    S_HIGH,
    S_HIGHP,
    S_HIST,
    S_HLEN,
    S_LAST,
    S_LEADER,
    S_LEDSUIT,
    S_LOC,
    S_N,
    S_NPART,
    S_NPLAYED,
    S_NSEARCH,
    S_NUP,
    S_PASSES,
    S_PHASE,
    S_PLAYERS,
    S_POT,
    S_POT0,
    S_POT_START,
    S_RESULT,
    S_ROUND,
    S_SEVENLOST,
    S_SIZE,
    S_SPELER,
    S_SWAPK,
    S_TL,
    S_TRICK,
    S_TRUMP,
    S_TURN,
    S_UP,
    S_ZWIKP,
    SEARCH_ANTE_EVERY,
    SEARCH_ANTE_FIRST,
    SEVEN,
    SWAP_ANNOUNCED,
    SWAP_CURRENT,
    TEN,
    TOKEN_KINDS,
    WHO_ALL,
    WHO_ASKERS,
    WIN_GAMBLER,
    WIN_POINTS,
    WIN_SHARES,
    ZWIK_HIST_RANK,
    ZWIK_HIST_SUIT,
    ZWIK_MODERN,
    ZWIK_NONE,
)

POINTS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], dtype=np.int32)  # 2..A: J1 Q2 K3 A4


# ---- small helpers ---------------------------------------------------------------------------------
@njit(cache=True)
def pf(p, f):
    """Index of player field ``f`` of seat ``p``."""
    return S_PLAYERS + f * NP + p


@njit(cache=True)
def seat(s, i):
    """Seat of the ``i``-th player from forehand (the dealer's left)."""
    return (s[S_DEALER] + 1 + i) % s[S_N]


@njit(cache=True)
def hand(s, p, out):
    """Fill ``out`` with seat ``p``'s cards in id order; returns how many."""
    k = 0
    code = L_HAND + p
    for c in range(NC):
        if s[S_LOC + c] == code:
            out[k] = c
            k += 1
    return k


@njit(cache=True)
def eff_suit(c, trump, perm):
    """The suit a card counts as: the permanent trump (7D) belongs to the trump suit only."""
    if c == perm and trump >= 0:
        return trump
    return c // 13


@njit(cache=True)
def strength(c, perm):
    """Rank order within a suit; the permanent trump ranks between the trump Ace and King."""
    if c == perm:
        return 2 * ACE - 1
    return 2 * (c % 13)


@njit(cache=True)
def beats(c, best, trump, perm):
    """Does card ``c`` beat the card ``best`` now winning the trick?"""
    sc = eff_suit(c, trump, perm)
    sb = eff_suit(best, trump, perm)
    if sc == sb:
        return strength(c, perm) > strength(best, perm)
    return sc == trump


@njit(cache=True)
def stock_count(s, with_bottom):
    k = 0
    for c in range(NC):
        loc = s[S_LOC + c]
        if loc == L_STOCK or (with_bottom and loc == L_BOTTOM):
            k += 1
    return k


@njit(cache=True)
def push_hist(s, kind, who, value):
    h = s[S_HLEN]
    if h < MAXH:
        s[S_HIST + 3 * h] = kind
        s[S_HIST + 3 * h + 1] = who
        s[S_HIST + 3 * h + 2] = value
        s[S_HLEN] = h + 1


@njit(cache=True)
def pay(s, p, amount):
    """Seat ``p`` pays ``amount`` into the pot (negative: takes it out)."""
    s[pf(p, P_NET)] -= amount
    s[S_POT] += amount


@njit(cache=True)
def end_deal(s, result):
    s[S_PHASE] = PH_END
    s[S_CUR] = CUR_OVER
    s[S_RESULT] = result


# ---- setting up --------------------------------------------------------------------------------------
@njit(cache=True)
def new_state(cfg):
    """The position before the shuffle: every pack card in the stock, the first chance node next."""
    s = np.zeros(S_SIZE, dtype=np.int32)
    n = cfg[C_N]
    s[S_N] = n
    s[S_DEALER] = cfg[C_DEALER]
    s[S_POT] = cfg[C_POT]
    s[S_POT_START] = cfg[C_POT]
    s[S_POT0] = cfg[C_POT]
    s[S_TRUMP] = -1
    for k in range(4):
        s[S_UP + k] = -1
    s[S_LAST] = -1
    s[S_HIGHP] = -1
    s[S_SWAPK] = -1
    s[S_BOTTOM] = -1
    s[S_SPELER] = -1
    s[S_ZWIKP] = -1
    s[S_LEDSUIT] = -1
    s[S_CUTCARD] = -1
    s[S_SEVENLOST] = -1
    s[S_LEADER] = -1
    for p in range(NP):
        s[pf(p, P_TCARD)] = -1
    for c in range(NC):
        s[S_LOC + c] = L_STOCK if cfg[C_INPACK + c] else L_OUT
    for i in range(3 * NP + 2):
        s[S_TL + i] = -1
    s[S_CUR] = CUR_CHANCE
    s[S_PHASE] = PH_CUT if cfg[C_HUPF] else PH_DEAL
    return s


# ---- chance ------------------------------------------------------------------------------------------
@njit(cache=True)
def _sorted_run(s, need, ids, probs, k0):
    """Outcomes for the next card of an increasing run of ``need`` cards from the stock (no bottom)."""
    last = s[S_LAST]
    avail = 0
    for c in range(last + 1, NC):
        if s[S_LOC + c] == L_STOCK:
            avail += 1
    n = run_probabilities(avail, need, probs, k0)
    k = k0
    for c in range(last + 1, NC):
        if k == k0 + n:
            break
        if s[S_LOC + c] == L_STOCK:
            ids[k] = c
            k += 1
    return k


@njit(cache=True)
def chance_outcomes(s, cfg, ids, probs):
    """Fill the chance outcomes (card ids, ascending) and their probabilities; returns how many."""
    ph = s[S_PHASE]
    k = 0
    if ph == PH_DEAL:
        return _sorted_run(s, cfg[C_H] - s[S_DEAL_J], ids, probs, 0)
    if ph == PH_DRAW:
        need = s[S_EXK] - s[S_DRAWN]
        if stock_count(s, False) >= need:
            return _sorted_run(s, need, ids, probs, 0)
        # The talon runs out: the rest of it, then the bottom card, come in a fixed order.
        for c in range(NC):
            if s[S_LOC + c] == L_STOCK:
                ids[0] = c
                probs[0] = 1.0
                return 1
        ids[0] = s[S_BOTTOM]
        probs[0] = 1.0
        return 1
    if ph == PH_CUT or ph == PH_UPCARD:
        m = stock_count(s, False)
        for c in range(NC):
            if s[S_LOC + c] == L_STOCK:
                ids[k] = c
                probs[k] = 1.0 / m
                k += 1
        return k
    return 0


@njit(cache=True)
def _start_deal(s):
    s[S_PHASE] = PH_DEAL
    s[S_DEAL_Q] = 0
    s[S_DEAL_J] = 0
    s[S_LAST] = -1
    s[S_CUR] = CUR_CHANCE


@njit(cache=True)
def _cut(s, cfg, c):
    """Hupf und Sprung: an Ace or a Seven passes the deal; 7D jumps it (docs/rules.md C)."""
    push_hist(s, H_CUT, -1, c)
    s[S_CUTS] += 1
    s[S_CUTCARD] = c
    n = s[S_N]
    r = c % 13
    if s[S_PASSES] < n and (r == ACE or r == SEVEN):
        d = s[S_DEALER]
        ante = cfg[C_DEALER_ANTE]
        if c == cfg[C_PERM]:
            if cfg[C_JUMPMODE] == 0:
                newd = (d + n - 1) % n  # rearhand; every player in between is skipped
                for i in range(1, n - 1):
                    pay(s, (d + i) % n, ante)
            else:
                newd = (d + 2) % n  # next but one (Alvensleben): one player skipped
                pay(s, (d + 1) % n, ante)
        else:
            newd = (d + 1) % n
        pay(s, newd, ante)
        s[S_DEALER] = newd
        s[S_PASSES] += 1
        return
    s[S_BOTTOM] = c
    s[S_LOC + c] = L_BOTTOM
    _start_deal(s)


@njit(cache=True)
def _begin_round(s, cfg):
    """After a trump is turned: the declaring round or the auction starts with forehand."""
    s[S_TURN] = 0
    s[S_CUR] = seat(s, 0)
    if cfg[C_DECLARE] != 0:
        s[S_PHASE] = PH_DECLARE
        return
    n = s[S_N]
    for p in range(n):
        s[pf(p, P_STATUS)] = 0
        s[pf(p, P_BID)] = 0
        s[pf(p, P_ASKED)] = 0
        s[pf(p, P_PASSR1)] = 0
    s[S_HIGH] = 0
    s[S_HIGHP] = -1
    s[S_ROUND] = 1
    s[S_PHASE] = PH_AUCTION


@njit(cache=True)
def _turn_up(s, cfg, c):
    k = s[S_NUP]
    repeated = False
    for j in range(k):
        if s[S_UP + j] // 13 == c // 13:
            repeated = True
    s[S_UP + k] = c
    s[S_NUP] = k + 1
    s[S_LOC + c] = L_UP
    if repeated and cfg[C_REPEAT_VOID]:
        end_deal(s, R_REPEAT)  # modern: a suit seen before forces everyone to pass
        return
    s[S_TRUMP] = c // 13
    _begin_round(s, cfg)


@njit(cache=True)
def apply_chance(s, cfg, c):
    ph = s[S_PHASE]
    if ph == PH_CUT:
        _cut(s, cfg, c)
    elif ph == PH_DEAL:
        p = seat(s, s[S_DEAL_Q])
        push_hist(s, H_DEAL, p, c)
        s[S_LOC + c] = L_HAND + p
        s[S_LAST] = c
        s[S_DEAL_J] += 1
        if s[S_DEAL_J] == cfg[C_H]:
            s[S_DEAL_J] = 0
            s[S_DEAL_Q] += 1
            s[S_LAST] = -1
            if s[S_DEAL_Q] == s[S_N]:
                s[S_PHASE] = PH_UPCARD
    elif ph == PH_UPCARD:
        push_hist(s, H_UP, -1, c)
        _turn_up(s, cfg, c)
    elif ph == PH_DRAW:
        p = seat(s, s[S_TURN])
        push_hist(s, H_DRAWPUB if c == s[S_BOTTOM] else H_DRAW, p, c)
        s[S_LOC + c] = L_HAND + p
        s[S_LAST] = c
        s[S_DRAWN] += 1
        if s[S_DRAWN] == s[S_EXK]:
            _next_declarer(s, cfg)


# ---- legal actions ---------------------------------------------------------------------------------
@njit(cache=True)
def _holds_ten(s, p, k):
    """Does seat ``p`` hold the ten of the suit of upcard ``k``?"""
    up = s[S_UP + k]
    ten = (up // 13) * 13 + TEN
    return s[S_LOC + ten] == L_HAND + p


@njit(cache=True)
def legal_plays(s, cfg, p, mask):
    """Mark the cards seat ``p`` may play now (trick duties per rule set)."""
    hc = np.empty(NC, dtype=np.int32)
    m = hand(s, p, hc)
    trump = s[S_TRUMP]
    perm = cfg[C_PERM]
    duty = cfg[C_DUTY]
    lead = s[S_NPLAYED] == 0
    ntrump = 0
    for i in range(m):
        if eff_suit(hc[i], trump, perm) == trump:
            ntrump += 1
    if duty == DUTY_HISTORIC and s[S_TRICK] < cfg[C_H] - 1:
        # 1853: trumps to every trick but the last; without trump, any card face down.
        for i in range(m):
            if ntrump == 0 or hc[i] // 13 == trump:
                mask[hc[i]] = True
        return
    if lead:
        if duty == DUTY_ZWICKEN and cfg[C_ACELEAD] and s[pf(p, P_LED)] == 0:
            ace = trump * 13 + ACE
            if s[S_LOC + ace] == L_HAND + p:
                mask[ace] = True
                return
        if cfg[C_LUBBERS] and p == s[S_SPELER] and m > 1:
            ace = trump * 13 + ACE
            for i in range(m):
                if hc[i] != ace:
                    mask[hc[i]] = True
            return
        for i in range(m):
            mask[hc[i]] = True
        return
    led = s[S_LEDSUIT]
    # the card now winning the trick
    best = -1
    q = s[S_LEADER]
    n = s[S_N]
    for _ in range(n):
        c = s[pf(q, P_TCARD)]
        if c >= 0 and s[pf(q, P_TFD)] == 0:
            if best < 0 or beats(c, best, trump, perm):
                best = c
        q = (q + 1) % n
    nled = 0
    for i in range(m):
        if eff_suit(hc[i], trump, perm) == led:
            nled += 1
    if nled > 0:
        if duty == DUTY_ZWICKEN:
            nbeat = 0
            for i in range(m):
                c = hc[i]
                if eff_suit(c, trump, perm) == led and beats(c, best, trump, perm):
                    mask[c] = True
                    nbeat += 1
            if nbeat > 0:
                return
        for i in range(m):
            if eff_suit(hc[i], trump, perm) == led:
                mask[hc[i]] = True
        return
    if ntrump > 0 and duty != DUTY_HISTORIC:
        nbeat = 0
        for i in range(m):
            c = hc[i]
            if eff_suit(c, trump, perm) == trump and beats(c, best, trump, perm):
                mask[c] = True
                nbeat += 1
        if nbeat > 0:
            return
        if duty == DUTY_PARLETT and ntrump < m:
            # cannot overtrump: undertrump only with nothing else
            for i in range(m):
                if eff_suit(hc[i], trump, perm) != trump:
                    mask[hc[i]] = True
            return
        for i in range(m):
            if eff_suit(hc[i], trump, perm) == trump or duty == DUTY_PARLETT:
                mask[hc[i]] = True
        return
    for i in range(m):
        mask[hc[i]] = True


@njit(cache=True)
def legal_mask(s, cfg, mask):
    """Mark every legal player action of the position (nothing at chance or terminal nodes)."""
    mask[:] = False
    ph = s[S_PHASE]
    p = s[S_CUR]
    if p < 0:
        return
    if ph == PH_PLAY:
        legal_plays(s, cfg, p, mask)
    elif ph == PH_DECLARE:
        if cfg[C_DECLARE] == DECL_PLAYPASS:
            mask[A_PLAYDECL] = True
            if not cfg[C_FORCED]:
                mask[A_PASS] = True
        else:
            mask[A_PASS] = True
            talon = stock_count(s, True)
            for k in range(4):
                if k <= talon and k <= cfg[C_H]:
                    mask[A_EXCH + k] = True
    elif ph == PH_DISCARD:
        hc = np.empty(NC, dtype=np.int32)
        m = hand(s, p, hc)
        left = s[S_EXK] - s[S_EXD]
        for i in range(m):
            # increasing order, leaving enough higher cards for the remaining discards
            if hc[i] > s[S_LAST] and m - 1 - i >= left - 1:
                mask[A_DISCARD + hc[i]] = True
    elif ph == PH_AUCTION:
        ann = False
        if cfg[C_TENSWAP] == SWAP_ANNOUNCED:
            k = s[S_NUP] - 1
            ann = _holds_ten(s, p, k) and (s[pf(p, P_ANN)] >> k) & 1 == 0
        mask[A_PASS] = True
        if ann:
            mask[A_PASS_KEN] = True
        hi = s[S_HIGH]
        top = cfg[C_MAXLEVEL] if cfg[C_JUMP] else min(hi + 1, cfg[C_MAXLEVEL])
        for lv in range(hi + 1, top + 1):
            mask[A_BID + lv - 1] = True
            if ann:
                mask[A_BID_KEN + lv - 1] = True
    elif ph == PH_SEARCH:
        mask[A_SEARCH] = True
        mask[A_STOP] = True
    elif ph == PH_SWAP:
        mask[A_SWAP] = True
        mask[A_KEEP] = True


@njit(cache=True)
def legal_actions(s, cfg):
    """Legal player actions, ascending (empty at chance and terminal nodes)."""
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    legal_mask(s, cfg, mask)
    return np.nonzero(mask)[0].astype(np.int32)


# ---- applying player actions -----------------------------------------------------------------------
@njit(cache=True)
def _next_declarer(s, cfg):
    n = s[S_N]
    s[S_TURN] += 1
    if s[S_TURN] < n:
        s[S_PHASE] = PH_DECLARE
        s[S_CUR] = seat(s, s[S_TURN])
        return
    cnt = 0
    lone = -1
    for p in range(n):
        if s[pf(p, P_STATUS)] == 1:
            cnt += 1
            lone = p
    if cnt == 0:
        end_deal(s, R_VOID)
    elif cnt == 1 and cfg[C_LONE]:
        pay(s, lone, -s[S_POT])
        end_deal(s, R_LONE)
    else:
        for p in range(n):
            s[pf(p, P_IN)] = 1 if s[pf(p, P_STATUS)] == 1 else 0
        _before_play(s, cfg)


@njit(cache=True)
def _auction_next(s, cfg):
    """Move the auction on; at its end start the swaps, a search decision, or end the deal."""
    n = s[S_N]
    if cfg[C_AUCTION] == AUCTION_CYCLIC:
        alive = 0
        for p in range(n):
            if s[pf(p, P_STATUS)] != 2:
                alive += 1
        if alive == 0:
            _all_passed(s, cfg)
            return
        if s[S_HIGHP] >= 0 and alive == 1:
            _auction_won(s, cfg)
            return
        q = s[S_CUR]
        for _ in range(n):
            q = (q + 1) % n
            if s[pf(q, P_STATUS)] != 2 and q != s[S_HIGHP]:
                s[S_CUR] = q
                return
        return
    # two rounds (modern): every player once, then once more if anyone asked
    while True:
        s[S_TURN] += 1
        if s[S_TURN] >= n:
            if s[S_ROUND] == 1 and s[S_HIGHP] >= 0:
                s[S_ROUND] = 2
                s[S_TURN] = -1
                continue
            if s[S_HIGHP] < 0:
                _all_passed(s, cfg)
            else:
                _auction_won(s, cfg)
            return
        q = seat(s, s[S_TURN])
        if s[S_ROUND] == 1:
            s[S_CUR] = q
            return
        if q != s[S_HIGHP] and s[S_HIGH] < cfg[C_MAXLEVEL]:
            if not (cfg[C_LUBBERS] and s[pf(q, P_PASSR1)]):
                s[S_CUR] = q
                return


@njit(cache=True)
def _all_passed(s, cfg):
    if s[S_NSEARCH] < cfg[C_MAXSEARCH] and stock_count(s, False) > 0:
        s[S_PHASE] = PH_SEARCH
        s[S_CUR] = s[S_DEALER]
    else:
        end_deal(s, R_VOID)


@njit(cache=True)
def _auction_won(s, cfg):
    s[S_SPELER] = s[S_HIGHP]
    for p in range(s[S_N]):
        s[pf(p, P_IN)] = 1
    _before_play(s, cfg)


@njit(cache=True)
def _before_play(s, cfg):
    """Ten swaps, then the zwik check, then the tricks."""
    s[S_SWAPK] = -1
    _advance_swap(s, cfg)


@njit(cache=True)
def _advance_swap(s, cfg):
    mode = cfg[C_TENSWAP]
    n = s[S_N]
    if mode != 0:
        for k in range(s[S_SWAPK] + 1, s[S_NUP]):
            if mode == SWAP_CURRENT and k != s[S_NUP] - 1:
                continue
            for p in range(n):
                if _holds_ten(s, p, k):
                    if mode == SWAP_ANNOUNCED and (s[pf(p, P_ANN)] >> k) & 1 == 0:
                        continue
                    s[S_SWAPK] = k
                    s[S_PHASE] = PH_SWAP
                    s[S_CUR] = p
                    return
    if _zwik(s, cfg):
        return
    _start_play(s, cfg)


@njit(cache=True)
def combo_value(s, cfg, p):
    """Value of seat ``p``'s winning combination (0: none); higher wins (docs/rules.md B)."""
    h = cfg[C_H]
    if h != 3:
        return 0
    hc = np.empty(NC, dtype=np.int32)
    m = hand(s, p, hc)
    if m != 3:
        return 0
    a, b, c = hc[0], hc[1], hc[2]
    trump = s[S_TRUMP]
    if cfg[C_THREE_TRUMPS] and a // 13 == trump and b // 13 == trump and c // 13 == trump:
        return 100000 + c % 13  # three trumps beat any zwik
    mode = cfg[C_ZWIK]
    if mode == ZWIK_HIST_SUIT:
        if a // 13 == b // 13 == c // 13:
            r = np.sort(np.array([a % 13, b % 13, c % 13]))
            v = 1000 + r[2] * 169 + r[1] * 13 + r[0]
            return v + 10000 if a // 13 == trump else v
        return 0
    if mode == ZWIK_NONE or not (a % 13 == b % 13 == c % 13):
        return 0
    r = a % 13
    if mode == ZWIK_HIST_RANK and r == s[S_UP + s[S_NUP] - 1] % 13:
        return 2000  # three of the upcard's rank: with the upcard a quartet
    if mode == ZWIK_MODERN and r == TEN:
        return 2000  # zwik of tens is highest
    return 1000 + r


@njit(cache=True)
def _zwik(s, cfg):
    """Zwik check before play; settles and returns True when a combination wins the pot."""
    who = cfg[C_ZWIK_WHO]
    n = s[S_N]
    bestv = 0
    bestp = -1
    for pass_ in range(2):
        for i in range(n):
            p = seat(s, i)
            if who == WHO_ASKERS:
                ok = s[pf(p, P_ASKED)] == 1
            elif who == WHO_ALL:
                ok = True
            else:
                ok = s[pf(p, P_IN)] == 1
            if not ok:
                continue
            if pass_ == 0:
                v = combo_value(s, cfg, p)
            else:
                # the upcard pair counts only when nobody has a combination
                v = 0
                if cfg[C_UPPAIR] and cfg[C_H] >= 2:
                    r = s[S_UP + s[S_NUP] - 1] % 13
                    cnt = 0
                    for c in range(NC):
                        if s[S_LOC + c] == L_HAND + p and c % 13 == r:
                            cnt += 1
                    if cnt >= 2:
                        v = 500
            if v > bestv:  # ties go to the player nearest forehand
                bestv = v
                bestp = p
        if bestp >= 0:
            break
    if bestp < 0:
        return False
    before = s[S_POT]
    pay(s, bestp, -before)
    if cfg[C_ZWIK_BETE]:
        for p in range(n):
            if p != bestp and s[pf(p, P_IN)] == 1:
                pay(s, p, before)
    s[S_ZWIKP] = bestp
    end_deal(s, R_ZWIK)
    return True


@njit(cache=True)
def _start_play(s, cfg):
    s[S_POT0] = s[S_POT]
    s[S_TRICK] = 0
    s[S_NPLAYED] = 0
    s[S_LEDSUIT] = -1
    n = s[S_N]
    cnt = 0
    lead = -1
    for i in range(n):
        p = seat(s, i)
        if s[pf(p, P_IN)] == 1:
            cnt += 1
            if lead < 0:
                lead = p
    s[S_NPART] = cnt
    s[S_LEADER] = lead
    s[S_CUR] = lead
    s[S_PHASE] = PH_PLAY


@njit(cache=True)
def trick_winner(s, cfg):
    """Seat winning the current (complete) trick."""
    n = s[S_N]
    trump = s[S_TRUMP]
    perm = cfg[C_PERM]
    q = s[S_LEADER]
    win = q
    best = s[pf(q, P_TCARD)]
    best_fd = s[pf(q, P_TFD)] == 1
    for _ in range(n - 1):
        q = (q + 1) % n
        c = s[pf(q, P_TCARD)]
        if c < 0 or s[pf(q, P_TFD)] == 1:
            continue  # a face-down card never wins
        if best_fd or beats(c, best, trump, perm):
            win = q
            best = c
            best_fd = False
    return win


@njit(cache=True)
def _play(s, cfg, p, c):
    trump = s[S_TRUMP]
    perm = cfg[C_PERM]
    fd = False
    if cfg[C_DUTY] == DUTY_HISTORIC and s[S_TRICK] < cfg[C_H] - 1:
        fd = c // 13 != trump
    push_hist(s, H_HIDDEN if fd else H_ACT, p, A_PLAY + c)
    s[S_LOC + c] = L_FD if fd else L_PLAYED
    s[pf(p, P_TCARD)] = c
    s[pf(p, P_TFD)] = 1 if fd else 0
    s[S_TL + s[S_TRICK] * NP + p] = c + 64 if fd else c
    if s[S_NPLAYED] == 0:
        s[S_LEDSUIT] = -1 if fd else eff_suit(c, trump, perm)
        s[pf(p, P_LED)] = 1
    s[S_NPLAYED] += 1
    n = s[S_N]
    if s[S_NPLAYED] < s[S_NPART]:
        q = p
        for _ in range(n):
            q = (q + 1) % n
            if s[pf(q, P_IN)] == 1:
                break
        s[S_CUR] = q
        return
    _finish_trick(s, cfg)


@njit(cache=True)
def _finish_trick(s, cfg):
    n = s[S_N]
    h = cfg[C_H]
    w = trick_winner(s, cfg)
    pts = 0
    ace_played = False
    seven_by = -1
    ace = s[S_TRUMP] * 13 + ACE
    for q in range(n):
        c = s[pf(q, P_TCARD)]
        if c >= 0:
            pts += POINTS[c % 13]
            if c == ace:
                ace_played = True
            if c == cfg[C_PERM]:
                seven_by = q
    s[pf(w, P_TRICKS)] += 1
    s[pf(w, P_POINTS)] += pts
    if ace_played and seven_by >= 0:
        pay(s, seven_by, cfg[C_GEZWICKT])  # gezwickt: 7D lost to the trump Ace
        s[S_SEVENLOST] = seven_by
    last = s[S_TRICK] == h - 1
    if cfg[C_WIN] == WIN_SHARES:
        if cfg[C_ANBIETEN]:
            if last:
                pay(s, w, -s[S_POT])  # Anbieten: the last trick takes the whole pot
        else:
            pay(s, w, -(s[S_POT0] // h))  # a trick is worth 1/3 of the pot, rounded down
    for q in range(n):
        s[pf(q, P_TCARD)] = -1
        s[pf(q, P_TFD)] = 0
    s[S_NPLAYED] = 0
    s[S_LEDSUIT] = -1
    s[S_TRICK] += 1
    s[S_LEADER] = w
    s[S_CUR] = w
    if last:
        _settle(s, cfg)


@njit(cache=True)
def stake(s, cfg):
    """The gambler's stake: the pot, or the bid's fraction of it (rounded down)."""
    pot0 = s[S_POT0]
    if not cfg[C_PARTPOT]:
        return pot0
    lv = s[pf(s[S_SPELER], P_BID)]
    if lv == 1:
        return pot0 // 2
    if lv == 2:
        return pot0 * 2 // 3
    if lv == 3:
        return pot0 * 3 // 4
    return pot0


@njit(cache=True)
def gambler_won(s, cfg):
    g = s[S_SPELER]
    n = s[S_N]
    h = cfg[C_H]
    if cfg[C_WIN] == WIN_GAMBLER:
        tw = s[pf(g, P_TRICKS)]
        mine = s[pf(g, P_POINTS)]
        total = 0
        for q in range(n):
            total += s[pf(q, P_POINTS)]
        return 2 * tw > h or (tw >= 1 and mine > total - mine)
    for q in range(n):
        if q != g and s[pf(q, P_POINTS)] >= s[pf(g, P_POINTS)]:
            return False  # a tie for most means everybody loses
    return True


@njit(cache=True)
def _settle(s, cfg):
    n = s[S_N]
    win = cfg[C_WIN]
    if win == WIN_SHARES:
        for p in range(n):
            if s[pf(p, P_IN)] == 1 and s[pf(p, P_TRICKS)] == 0:
                if cfg[C_BETE] == BETE_POT:
                    pay(s, p, s[S_POT0])  # bête: pays the pot's amount
                elif cfg[C_BETE] == BETE_STAKE:
                    pay(s, p, cfg[C_GEZWICKT])  # gezwickt: the basic stake
    elif win == WIN_GAMBLER or win == WIN_POINTS:
        g = s[S_SPELER]
        st = stake(s, cfg)
        if gambler_won(s, cfg):
            pay(s, g, -st)
        else:
            pay(s, g, st)
    end_deal(s, R_TRICKS)


@njit(cache=True)
def apply_action(s, cfg, a):
    """Apply a legal player action (no legality check: use :func:`legal_mask`)."""
    p = s[S_CUR]
    ph = s[S_PHASE]
    if ph == PH_PLAY:
        _play(s, cfg, p, a - A_PLAY)
        return
    if ph == PH_DISCARD:
        c = a - A_DISCARD
        push_hist(s, H_HIDDEN, p, a)
        s[S_LOC + c] = L_DISC
        s[S_LAST] = c
        s[S_EXD] += 1
        if s[S_EXD] == s[S_EXK]:
            s[S_PHASE] = PH_DRAW
            s[S_CUR] = CUR_CHANCE
            s[S_LAST] = -1
        return
    push_hist(s, H_ACT, p, a)
    if ph == PH_DECLARE:
        if a == A_PASS:
            s[pf(p, P_STATUS)] = 2
            _next_declarer(s, cfg)
        elif a == A_PLAYDECL:
            s[pf(p, P_STATUS)] = 1
            _next_declarer(s, cfg)
        else:
            k = a - A_EXCH
            s[pf(p, P_STATUS)] = 1
            s[S_EXK] = k
            s[S_EXD] = 0
            s[S_DRAWN] = 0
            s[S_LAST] = -1
            if k == 0:
                _next_declarer(s, cfg)
            else:
                s[S_PHASE] = PH_DISCARD
    elif ph == PH_AUCTION:
        if a == A_PASS_KEN or a >= A_BID_KEN and a < A_BID_KEN + 4:
            s[pf(p, P_ANN)] |= 1 << (s[S_NUP] - 1)
        if a == A_PASS or a == A_PASS_KEN:
            if cfg[C_AUCTION] == AUCTION_CYCLIC or s[S_ROUND] == 1:
                s[pf(p, P_STATUS)] = 2
                s[pf(p, P_PASSR1)] = 1 if s[S_ROUND] == 1 else s[pf(p, P_PASSR1)]
        else:
            lv = a - A_BID + 1 if a < A_PASS_KEN else a - A_BID_KEN + 1
            s[pf(p, P_STATUS)] = 1
            s[pf(p, P_BID)] = lv
            s[pf(p, P_ASKED)] = 1
            s[S_HIGH] = lv
            s[S_HIGHP] = p
        _auction_next(s, cfg)
    elif ph == PH_SEARCH:
        if a == A_STOP:
            end_deal(s, R_STOP)
            return
        s[S_NSEARCH] += 1
        mode = cfg[C_SEARCH_ANTE]
        if mode == SEARCH_ANTE_EVERY or (mode == SEARCH_ANTE_FIRST and s[S_NSEARCH] == 1):
            for q in range(s[S_N]):
                pay(s, q, 1)
        s[S_PHASE] = PH_UPCARD
        s[S_CUR] = CUR_CHANCE
    elif ph == PH_SWAP:
        k = s[S_SWAPK]
        if a == A_SWAP:
            up = s[S_UP + k]
            ten = (up // 13) * 13 + TEN
            s[S_LOC + up] = L_HAND + p
            s[S_LOC + ten] = L_UP
            s[S_UP + k] = ten
        _advance_swap(s, cfg)


@njit(cache=True)
def apply(s, cfg, a):
    """Apply a chance outcome (card id) or a player action, whichever the node expects."""
    if s[S_CUR] == CUR_CHANCE:
        apply_chance(s, cfg, a)
    else:
        apply_action(s, cfg, a)


# ---- playouts ----------------------------------------------------------------------------------------
@njit(cache=True)
def sample_chance(s, cfg, ids, probs):
    k = chance_outcomes(s, cfg, ids, probs)
    # numba supports only numpy's legacy random API
    u = np.random.random()  # noqa: NPY002
    acc = 0.0
    for i in range(k):
        acc += probs[i]
        if u < acc:
            return ids[i]
    return ids[k - 1]


@njit(cache=True)
def random_action(mask):
    """A uniformly random action among those set in ``mask`` (at least one; one
    ``np.random.randint`` draw)."""
    k = 0
    for a in range(NUM_ACTIONS):
        if mask[a]:
            k += 1
    pick = np.random.randint(k)  # noqa: NPY002
    for a in range(NUM_ACTIONS):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@njit(cache=True)
def random_playout(s, cfg):
    """Play uniformly random actions (and chance) to the end of the deal; returns the steps taken."""
    ids = np.empty(NC, dtype=np.int32)
    probs = np.empty(NC, dtype=np.float64)
    mask = np.zeros(NUM_ACTIONS, dtype=np.bool_)
    steps = 0
    while s[S_CUR] != CUR_OVER:
        if s[S_CUR] == CUR_CHANCE:
            apply_chance(s, cfg, sample_chance(s, cfg, ids, probs))
        else:
            legal_mask(s, cfg, mask)
            apply_action(s, cfg, random_action(mask))
        steps += 1
    return steps


@njit(cache=True)
def random_deals(cfg, count, seed):
    """Play ``count`` random deals; rows of (pot change, net 0..5, result, steps) per deal."""
    np.random.seed(seed)  # noqa: NPY002
    out = np.zeros((count, 3 + NP), dtype=np.int64)
    for i in range(count):
        s = new_state(cfg)
        steps = random_playout(s, cfg)
        out[i, 0] = s[S_POT] - s[S_POT_START]
        for p in range(NP):
            out[i, 1 + p] = s[pf(p, P_NET)]
        out[i, 1 + NP] = s[S_RESULT]
        out[i, 2 + NP] = steps
    return out


@njit(cache=True)
def check_invariants(s, cfg):
    """0 when the position is consistent; otherwise a code naming the broken invariant."""
    n = s[S_N]
    total = s[S_POT] - s[S_POT_START]
    for p in range(NP):
        total += s[pf(p, P_NET)]
    if total != 0:
        return 1  # chips not conserved
    if s[S_POT] < 0:
        return 2
    h = cfg[C_H]
    for p in range(n):
        k = 0
        for c in range(NC):
            if s[S_LOC + c] == L_HAND + p:
                k += 1
        if k > h:
            return 3
    for c in range(NC):
        inpack = cfg[C_INPACK + c] == 1
        if inpack != (s[S_LOC + c] != L_OUT):
            return 4
    return 0


@njit(cache=True)
def fill_info_tokens(s, player, ev):
    """Write ``player``'s observed events as one-hot tokens into ``ev`` (rows x TOKEN, zeroed by
    the caller); returns the number of rows used. Other seats' deals are not observed; their
    draws, discards and face-down plays show as hidden tokens."""
    row = 0
    for i in range(s[S_HLEN]):
        kind = s[S_HIST + 3 * i]
        who = s[S_HIST + 3 * i + 1]
        v = s[S_HIST + 3 * i + 2]
        mine = who == player
        if kind == H_DEAL:
            if not mine:
                continue
            tk = 0
        elif kind == H_UP:
            tk = 1
            who = NP
        elif kind == H_CUT:
            tk = 2
            who = NP
        elif kind == H_DRAW:
            tk = 3 if mine else 4
            if not mine:
                v = -1
        elif kind == H_DRAWPUB:
            tk = 5
        elif kind == H_HIDDEN and not mine:
            tk = 7
            v = 1 if v < A_DISCARD else 0  # 1: a face-down play, 0: a discard
        else:
            tk = 6
        ev[row, tk] = 1.0
        ev[row, TOKEN_KINDS + who] = 1.0
        if v >= 0:
            ev[row, TOKEN_KINDS + NP + 1 + v] = 1.0
        row += 1
    return row
