"""numba kernels of the trick-and-pot engine: chance outcomes, legal actions, apply, trick winner,
settlement and random playouts, all on the flat int32 state array of :mod:`~zwick_ai.tricks.layout`.

Every rule set runs through the same code; rule differences are read from the ``cfg`` array.
Chance: each hand (and each exchange draw) is dealt as an increasing run of card ids with exact
combinatorial probabilities, so that one set of cards is one chance path (this keeps exact solving
small); upcards, re-turns and cuts are uniform over the cards still unseen.
"""

import numpy as np

from zwick_ai.chance_runs import run_probabilities
from zwick_ai.jit import kernel
from zwick_ai.tricks import layout as tricks_layout

POINTS = np.array([0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 3, 4], dtype=np.int32)  # 2..A: J1 Q2 K3 A4


# ---- small helpers ---------------------------------------------------------------------------------
@kernel
def pf(p, f):
    """Index of player field ``f`` of seat ``p``."""
    return tricks_layout.S_PLAYERS + f * tricks_layout.NP + p


@kernel
def seat(s, i):
    """Seat of the ``i``-th player from forehand (the dealer's left)."""
    return (s[tricks_layout.S_DEALER] + 1 + i) % s[tricks_layout.S_N]


@kernel
def hand(s, p, out):
    """Fill ``out`` with seat ``p``'s cards in id order; returns how many."""
    k = 0
    code = tricks_layout.L_HAND + p
    for c in range(tricks_layout.NC):
        if s[tricks_layout.S_LOC + c] == code:
            out[k] = c
            k += 1
    return k


@kernel
def eff_suit(c, trump, perm):
    """The suit a card counts as: the permanent trump (7D) belongs to the trump suit only."""
    if c == perm and trump >= 0:
        return trump
    return c // 13


@kernel
def strength(c, perm):
    """Rank order within a suit; the permanent trump ranks between the trump Ace and King."""
    if c == perm:
        return 2 * tricks_layout.ACE - 1
    return 2 * (c % 13)


@kernel
def beats(c, best, trump, perm):
    """Does card ``c`` beat the card ``best`` now winning the trick?"""
    sc = eff_suit(c, trump, perm)
    sb = eff_suit(best, trump, perm)
    if sc == sb:
        return strength(c, perm) > strength(best, perm)
    return sc == trump


@kernel
def stock_count(s, with_bottom):
    k = 0
    for c in range(tricks_layout.NC):
        loc = s[tricks_layout.S_LOC + c]
        if loc == tricks_layout.L_STOCK or (with_bottom and loc == tricks_layout.L_BOTTOM):
            k += 1
    return k


@kernel
def push_hist(s, kind, who, value):
    h = s[tricks_layout.S_HLEN]
    if h < tricks_layout.MAXH:
        s[tricks_layout.S_HIST + 3 * h] = kind
        s[tricks_layout.S_HIST + 3 * h + 1] = who
        s[tricks_layout.S_HIST + 3 * h + 2] = value
        s[tricks_layout.S_HLEN] = h + 1


@kernel
def pay(s, p, amount):
    """Seat ``p`` pays ``amount`` into the pot (negative: takes it out)."""
    s[pf(p, tricks_layout.P_NET)] -= amount
    s[tricks_layout.S_POT] += amount


@kernel
def end_deal(s, result):
    s[tricks_layout.S_PHASE] = tricks_layout.PH_END
    s[tricks_layout.S_CUR] = tricks_layout.CUR_OVER
    s[tricks_layout.S_RESULT] = result


# ---- setting up --------------------------------------------------------------------------------------
@kernel
def new_state(cfg):
    """The position before the shuffle: every pack card in the stock, the first chance node next."""
    s = np.zeros(tricks_layout.S_SIZE, dtype=np.int32)
    n = cfg[tricks_layout.C_N]
    s[tricks_layout.S_N] = n
    s[tricks_layout.S_DEALER] = cfg[tricks_layout.C_DEALER]
    s[tricks_layout.S_POT] = cfg[tricks_layout.C_POT]
    s[tricks_layout.S_POT_START] = cfg[tricks_layout.C_POT]
    s[tricks_layout.S_POT0] = cfg[tricks_layout.C_POT]
    s[tricks_layout.S_TRUMP] = -1
    for k in range(4):
        s[tricks_layout.S_UP + k] = -1
    s[tricks_layout.S_LAST] = -1
    s[tricks_layout.S_HIGHP] = -1
    s[tricks_layout.S_SWAPK] = -1
    s[tricks_layout.S_BOTTOM] = -1
    s[tricks_layout.S_SPELER] = -1
    s[tricks_layout.S_ZWIKP] = -1
    s[tricks_layout.S_LEDSUIT] = -1
    s[tricks_layout.S_CUTCARD] = -1
    s[tricks_layout.S_SEVENLOST] = -1
    s[tricks_layout.S_LEADER] = -1
    for p in range(tricks_layout.NP):
        s[pf(p, tricks_layout.P_TCARD)] = -1
    for c in range(tricks_layout.NC):
        s[tricks_layout.S_LOC + c] = tricks_layout.L_STOCK if cfg[tricks_layout.C_INPACK + c] else tricks_layout.L_OUT
    for i in range(3 * tricks_layout.NP + 2):
        s[tricks_layout.S_TL + i] = -1
    s[tricks_layout.S_CUR] = tricks_layout.CUR_CHANCE
    s[tricks_layout.S_PHASE] = tricks_layout.PH_CUT if cfg[tricks_layout.C_HUPF] else tricks_layout.PH_DEAL
    return s


# ---- chance ------------------------------------------------------------------------------------------
@kernel
def _sorted_run(s, need, ids, probs, k0):
    """Outcomes for the next card of an increasing run of ``need`` cards from the stock (no bottom)."""
    last = s[tricks_layout.S_LAST]
    avail = 0
    for c in range(last + 1, tricks_layout.NC):
        if s[tricks_layout.S_LOC + c] == tricks_layout.L_STOCK:
            avail += 1
    n = run_probabilities(avail, need, probs, k0)
    k = k0
    for c in range(last + 1, tricks_layout.NC):
        if k == k0 + n:
            break
        if s[tricks_layout.S_LOC + c] == tricks_layout.L_STOCK:
            ids[k] = c
            k += 1
    return k


@kernel
def chance_outcomes(s, cfg, ids, probs):
    """Fill the chance outcomes (card ids, ascending) and their probabilities; returns how many."""
    ph = s[tricks_layout.S_PHASE]
    k = 0
    if ph == tricks_layout.PH_DEAL:
        return _sorted_run(s, cfg[tricks_layout.C_H] - s[tricks_layout.S_DEAL_J], ids, probs, 0)
    if ph == tricks_layout.PH_DRAW:
        need = s[tricks_layout.S_EXK] - s[tricks_layout.S_DRAWN]
        if stock_count(s, False) >= need:
            return _sorted_run(s, need, ids, probs, 0)
        # The talon runs out: the rest of it, then the bottom card, come in a fixed order.
        for c in range(tricks_layout.NC):
            if s[tricks_layout.S_LOC + c] == tricks_layout.L_STOCK:
                ids[0] = c
                probs[0] = 1.0
                return 1
        ids[0] = s[tricks_layout.S_BOTTOM]
        probs[0] = 1.0
        return 1
    if ph == tricks_layout.PH_CUT or ph == tricks_layout.PH_UPCARD:
        m = stock_count(s, False)
        for c in range(tricks_layout.NC):
            if s[tricks_layout.S_LOC + c] == tricks_layout.L_STOCK:
                ids[k] = c
                probs[k] = 1.0 / m
                k += 1
        return k
    return 0


@kernel
def _start_deal(s):
    s[tricks_layout.S_PHASE] = tricks_layout.PH_DEAL
    s[tricks_layout.S_DEAL_Q] = 0
    s[tricks_layout.S_DEAL_J] = 0
    s[tricks_layout.S_LAST] = -1
    s[tricks_layout.S_CUR] = tricks_layout.CUR_CHANCE


@kernel
def _cut(s, cfg, c):
    """Hupf und Sprung: an Ace or a Seven passes the deal; 7D jumps it (docs/rules.md C)."""
    push_hist(s, tricks_layout.H_CUT, -1, c)
    s[tricks_layout.S_CUTS] += 1
    s[tricks_layout.S_CUTCARD] = c
    n = s[tricks_layout.S_N]
    r = c % 13
    if s[tricks_layout.S_PASSES] < n and (r == tricks_layout.ACE or r == tricks_layout.SEVEN):
        d = s[tricks_layout.S_DEALER]
        ante = cfg[tricks_layout.C_DEALER_ANTE]
        if c == cfg[tricks_layout.C_PERM]:
            if cfg[tricks_layout.C_JUMPMODE] == 0:
                newd = (d + n - 1) % n  # rearhand; every player in between is skipped
                for i in range(1, n - 1):
                    pay(s, (d + i) % n, ante)
            else:
                newd = (d + 2) % n  # next but one (Alvensleben): one player skipped
                pay(s, (d + 1) % n, ante)
        else:
            newd = (d + 1) % n
        pay(s, newd, ante)
        s[tricks_layout.S_DEALER] = newd
        s[tricks_layout.S_PASSES] += 1
        return
    s[tricks_layout.S_BOTTOM] = c
    s[tricks_layout.S_LOC + c] = tricks_layout.L_BOTTOM
    _start_deal(s)


@kernel
def _begin_round(s, cfg):
    """After a trump is turned: the declaring round or the auction starts with forehand."""
    s[tricks_layout.S_TURN] = 0
    s[tricks_layout.S_CUR] = seat(s, 0)
    if cfg[tricks_layout.C_DECLARE] != 0:
        s[tricks_layout.S_PHASE] = tricks_layout.PH_DECLARE
        return
    n = s[tricks_layout.S_N]
    for p in range(n):
        s[pf(p, tricks_layout.P_STATUS)] = 0
        s[pf(p, tricks_layout.P_BID)] = 0
        s[pf(p, tricks_layout.P_ASKED)] = 0
        s[pf(p, tricks_layout.P_PASSR1)] = 0
    s[tricks_layout.S_HIGH] = 0
    s[tricks_layout.S_HIGHP] = -1
    s[tricks_layout.S_ROUND] = 1
    s[tricks_layout.S_PHASE] = tricks_layout.PH_AUCTION


@kernel
def _turn_up(s, cfg, c):
    k = s[tricks_layout.S_NUP]
    repeated = False
    for j in range(k):
        if s[tricks_layout.S_UP + j] // 13 == c // 13:
            repeated = True
    s[tricks_layout.S_UP + k] = c
    s[tricks_layout.S_NUP] = k + 1
    s[tricks_layout.S_LOC + c] = tricks_layout.L_UP
    if repeated and cfg[tricks_layout.C_REPEAT_VOID]:
        end_deal(s, tricks_layout.R_REPEAT)  # modern: a suit seen before forces everyone to pass
        return
    s[tricks_layout.S_TRUMP] = c // 13
    _begin_round(s, cfg)


@kernel
def apply_chance(s, cfg, c):
    ph = s[tricks_layout.S_PHASE]
    if ph == tricks_layout.PH_CUT:
        _cut(s, cfg, c)
    elif ph == tricks_layout.PH_DEAL:
        p = seat(s, s[tricks_layout.S_DEAL_Q])
        push_hist(s, tricks_layout.H_DEAL, p, c)
        s[tricks_layout.S_LOC + c] = tricks_layout.L_HAND + p
        s[tricks_layout.S_LAST] = c
        s[tricks_layout.S_DEAL_J] += 1
        if s[tricks_layout.S_DEAL_J] == cfg[tricks_layout.C_H]:
            s[tricks_layout.S_DEAL_J] = 0
            s[tricks_layout.S_DEAL_Q] += 1
            s[tricks_layout.S_LAST] = -1
            if s[tricks_layout.S_DEAL_Q] == s[tricks_layout.S_N]:
                s[tricks_layout.S_PHASE] = tricks_layout.PH_UPCARD
    elif ph == tricks_layout.PH_UPCARD:
        push_hist(s, tricks_layout.H_UP, -1, c)
        _turn_up(s, cfg, c)
    elif ph == tricks_layout.PH_DRAW:
        p = seat(s, s[tricks_layout.S_TURN])
        push_hist(s, tricks_layout.H_DRAWPUB if c == s[tricks_layout.S_BOTTOM] else tricks_layout.H_DRAW, p, c)
        s[tricks_layout.S_LOC + c] = tricks_layout.L_HAND + p
        s[tricks_layout.S_LAST] = c
        s[tricks_layout.S_DRAWN] += 1
        if s[tricks_layout.S_DRAWN] == s[tricks_layout.S_EXK]:
            _next_declarer(s, cfg)


# ---- legal actions ---------------------------------------------------------------------------------
@kernel
def _holds_ten(s, p, k):
    """Does seat ``p`` hold the ten of the suit of upcard ``k``?"""
    up = s[tricks_layout.S_UP + k]
    ten = (up // 13) * 13 + tricks_layout.TEN
    return s[tricks_layout.S_LOC + ten] == tricks_layout.L_HAND + p


@kernel
def legal_plays(s, cfg, p, mask):
    """Mark the cards seat ``p`` may play now (trick duties per rule set)."""
    hc = np.empty(tricks_layout.NC, dtype=np.int32)
    m = hand(s, p, hc)
    trump = s[tricks_layout.S_TRUMP]
    perm = cfg[tricks_layout.C_PERM]
    duty = cfg[tricks_layout.C_DUTY]
    lead = s[tricks_layout.S_NPLAYED] == 0
    ntrump = 0
    for i in range(m):
        if eff_suit(hc[i], trump, perm) == trump:
            ntrump += 1
    if duty == tricks_layout.DUTY_HISTORIC and s[tricks_layout.S_TRICK] < cfg[tricks_layout.C_H] - 1:
        # 1853: trumps to every trick but the last; without trump, any card face down.
        for i in range(m):
            if ntrump == 0 or hc[i] // 13 == trump:
                mask[hc[i]] = True
        return
    if lead:
        if duty == tricks_layout.DUTY_ZWICKEN and cfg[tricks_layout.C_ACELEAD] and s[pf(p, tricks_layout.P_LED)] == 0:
            ace = trump * 13 + tricks_layout.ACE
            if s[tricks_layout.S_LOC + ace] == tricks_layout.L_HAND + p:
                mask[ace] = True
                return
        if cfg[tricks_layout.C_LUBBERS] and p == s[tricks_layout.S_SPELER] and m > 1:
            ace = trump * 13 + tricks_layout.ACE
            for i in range(m):
                if hc[i] != ace:
                    mask[hc[i]] = True
            return
        for i in range(m):
            mask[hc[i]] = True
        return
    led = s[tricks_layout.S_LEDSUIT]
    # the card now winning the trick
    best = -1
    q = s[tricks_layout.S_LEADER]
    n = s[tricks_layout.S_N]
    for _ in range(n):
        c = s[pf(q, tricks_layout.P_TCARD)]
        if c >= 0 and s[pf(q, tricks_layout.P_TFD)] == 0:
            if best < 0 or beats(c, best, trump, perm):
                best = c
        q = (q + 1) % n
    nled = 0
    for i in range(m):
        if eff_suit(hc[i], trump, perm) == led:
            nled += 1
    if nled > 0:
        if duty == tricks_layout.DUTY_ZWICKEN:
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
    if ntrump > 0 and duty != tricks_layout.DUTY_HISTORIC:
        nbeat = 0
        for i in range(m):
            c = hc[i]
            if eff_suit(c, trump, perm) == trump and beats(c, best, trump, perm):
                mask[c] = True
                nbeat += 1
        if nbeat > 0:
            return
        if duty == tricks_layout.DUTY_PARLETT and ntrump < m:
            # cannot overtrump: undertrump only with nothing else
            for i in range(m):
                if eff_suit(hc[i], trump, perm) != trump:
                    mask[hc[i]] = True
            return
        for i in range(m):
            if eff_suit(hc[i], trump, perm) == trump or duty == tricks_layout.DUTY_PARLETT:
                mask[hc[i]] = True
        return
    for i in range(m):
        mask[hc[i]] = True


@kernel
def legal_mask(s, cfg, mask):
    """Mark every legal player action of the position (nothing at chance or terminal nodes)."""
    mask[:] = False
    ph = s[tricks_layout.S_PHASE]
    p = s[tricks_layout.S_CUR]
    if p < 0:
        return
    if ph == tricks_layout.PH_PLAY:
        legal_plays(s, cfg, p, mask)
    elif ph == tricks_layout.PH_DECLARE:
        if cfg[tricks_layout.C_DECLARE] == tricks_layout.DECL_PLAYPASS:
            mask[tricks_layout.A_PLAYDECL] = True
            if not cfg[tricks_layout.C_FORCED]:
                mask[tricks_layout.A_PASS] = True
        else:
            mask[tricks_layout.A_PASS] = True
            talon = stock_count(s, True)
            for k in range(4):
                if k <= talon and k <= cfg[tricks_layout.C_H]:
                    mask[tricks_layout.A_EXCH + k] = True
    elif ph == tricks_layout.PH_DISCARD:
        hc = np.empty(tricks_layout.NC, dtype=np.int32)
        m = hand(s, p, hc)
        left = s[tricks_layout.S_EXK] - s[tricks_layout.S_EXD]
        for i in range(m):
            # increasing order, leaving enough higher cards for the remaining discards
            if hc[i] > s[tricks_layout.S_LAST] and m - 1 - i >= left - 1:
                mask[tricks_layout.A_DISCARD + hc[i]] = True
    elif ph == tricks_layout.PH_AUCTION:
        ann = False
        if cfg[tricks_layout.C_TENSWAP] == tricks_layout.SWAP_ANNOUNCED:
            k = s[tricks_layout.S_NUP] - 1
            ann = _holds_ten(s, p, k) and (s[pf(p, tricks_layout.P_ANN)] >> k) & 1 == 0
        mask[tricks_layout.A_PASS] = True
        if ann:
            mask[tricks_layout.A_PASS_KEN] = True
        hi = s[tricks_layout.S_HIGH]
        top = cfg[tricks_layout.C_MAXLEVEL] if cfg[tricks_layout.C_JUMP] else min(hi + 1, cfg[tricks_layout.C_MAXLEVEL])
        for lv in range(hi + 1, top + 1):
            mask[tricks_layout.A_BID + lv - 1] = True
            if ann:
                mask[tricks_layout.A_BID_KEN + lv - 1] = True
    elif ph == tricks_layout.PH_SEARCH:
        mask[tricks_layout.A_SEARCH] = True
        mask[tricks_layout.A_STOP] = True
    elif ph == tricks_layout.PH_SWAP:
        mask[tricks_layout.A_SWAP] = True
        mask[tricks_layout.A_KEEP] = True


@kernel
def legal_actions(s, cfg):
    """Legal player actions, ascending (empty at chance and terminal nodes)."""
    mask = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.bool_)
    legal_mask(s, cfg, mask)
    return np.nonzero(mask)[0].astype(np.int32)


# ---- applying player actions -----------------------------------------------------------------------
@kernel
def _next_declarer(s, cfg):
    n = s[tricks_layout.S_N]
    s[tricks_layout.S_TURN] += 1
    if s[tricks_layout.S_TURN] < n:
        s[tricks_layout.S_PHASE] = tricks_layout.PH_DECLARE
        s[tricks_layout.S_CUR] = seat(s, s[tricks_layout.S_TURN])
        return
    cnt = 0
    lone = -1
    for p in range(n):
        if s[pf(p, tricks_layout.P_STATUS)] == 1:
            cnt += 1
            lone = p
    if cnt == 0:
        end_deal(s, tricks_layout.R_VOID)
    elif cnt == 1 and cfg[tricks_layout.C_LONE]:
        pay(s, lone, -s[tricks_layout.S_POT])
        end_deal(s, tricks_layout.R_LONE)
    else:
        for p in range(n):
            s[pf(p, tricks_layout.P_IN)] = 1 if s[pf(p, tricks_layout.P_STATUS)] == 1 else 0
        _before_play(s, cfg)


@kernel
def _auction_next(s, cfg):
    """Move the auction on; at its end start the swaps, a search decision, or end the deal."""
    n = s[tricks_layout.S_N]
    if cfg[tricks_layout.C_AUCTION] == tricks_layout.AUCTION_CYCLIC:
        alive = 0
        for p in range(n):
            if s[pf(p, tricks_layout.P_STATUS)] != 2:
                alive += 1
        if alive == 0:
            _all_passed(s, cfg)
            return
        if s[tricks_layout.S_HIGHP] >= 0 and alive == 1:
            _auction_won(s, cfg)
            return
        q = s[tricks_layout.S_CUR]
        for _ in range(n):
            q = (q + 1) % n
            if s[pf(q, tricks_layout.P_STATUS)] != 2 and q != s[tricks_layout.S_HIGHP]:
                s[tricks_layout.S_CUR] = q
                return
        return
    # two rounds (modern): every player once, then once more if anyone asked
    while True:
        s[tricks_layout.S_TURN] += 1
        if s[tricks_layout.S_TURN] >= n:
            if s[tricks_layout.S_ROUND] == 1 and s[tricks_layout.S_HIGHP] >= 0:
                s[tricks_layout.S_ROUND] = 2
                s[tricks_layout.S_TURN] = -1
                continue
            if s[tricks_layout.S_HIGHP] < 0:
                _all_passed(s, cfg)
            else:
                _auction_won(s, cfg)
            return
        q = seat(s, s[tricks_layout.S_TURN])
        if s[tricks_layout.S_ROUND] == 1:
            s[tricks_layout.S_CUR] = q
            return
        if q != s[tricks_layout.S_HIGHP] and s[tricks_layout.S_HIGH] < cfg[tricks_layout.C_MAXLEVEL]:
            if not (cfg[tricks_layout.C_LUBBERS] and s[pf(q, tricks_layout.P_PASSR1)]):
                s[tricks_layout.S_CUR] = q
                return


@kernel
def _all_passed(s, cfg):
    if s[tricks_layout.S_NSEARCH] < cfg[tricks_layout.C_MAXSEARCH] and stock_count(s, False) > 0:
        s[tricks_layout.S_PHASE] = tricks_layout.PH_SEARCH
        s[tricks_layout.S_CUR] = s[tricks_layout.S_DEALER]
    else:
        end_deal(s, tricks_layout.R_VOID)


@kernel
def _auction_won(s, cfg):
    s[tricks_layout.S_SPELER] = s[tricks_layout.S_HIGHP]
    for p in range(s[tricks_layout.S_N]):
        s[pf(p, tricks_layout.P_IN)] = 1
    _before_play(s, cfg)


@kernel
def _before_play(s, cfg):
    """Ten swaps, then the zwik check, then the tricks."""
    s[tricks_layout.S_SWAPK] = -1
    _advance_swap(s, cfg)


@kernel
def _advance_swap(s, cfg):
    mode = cfg[tricks_layout.C_TENSWAP]
    n = s[tricks_layout.S_N]
    if mode != 0:
        for k in range(s[tricks_layout.S_SWAPK] + 1, s[tricks_layout.S_NUP]):
            if mode == tricks_layout.SWAP_CURRENT and k != s[tricks_layout.S_NUP] - 1:
                continue
            for p in range(n):
                if _holds_ten(s, p, k):
                    if mode == tricks_layout.SWAP_ANNOUNCED and (s[pf(p, tricks_layout.P_ANN)] >> k) & 1 == 0:
                        continue
                    s[tricks_layout.S_SWAPK] = k
                    s[tricks_layout.S_PHASE] = tricks_layout.PH_SWAP
                    s[tricks_layout.S_CUR] = p
                    return
    if _zwik(s, cfg):
        return
    _start_play(s, cfg)


@kernel
def combo_value(s, cfg, p):
    """Value of seat ``p``'s winning combination (0: none); higher wins (docs/rules.md B)."""
    h = cfg[tricks_layout.C_H]
    if h != 3:
        return 0
    hc = np.empty(tricks_layout.NC, dtype=np.int32)
    m = hand(s, p, hc)
    if m != 3:
        return 0
    a, b, c = hc[0], hc[1], hc[2]
    trump = s[tricks_layout.S_TRUMP]
    if cfg[tricks_layout.C_THREE_TRUMPS] and a // 13 == trump and b // 13 == trump and c // 13 == trump:
        return 100000 + c % 13  # three trumps beat any zwik
    mode = cfg[tricks_layout.C_ZWIK]
    if mode == tricks_layout.ZWIK_HIST_SUIT:
        if a // 13 == b // 13 == c // 13:
            r = np.sort(np.array([a % 13, b % 13, c % 13]))
            v = 1000 + r[2] * 169 + r[1] * 13 + r[0]
            return v + 10000 if a // 13 == trump else v
        return 0
    if mode == tricks_layout.ZWIK_NONE or not (a % 13 == b % 13 == c % 13):
        return 0
    r = a % 13
    if mode == tricks_layout.ZWIK_HIST_RANK and r == s[tricks_layout.S_UP + s[tricks_layout.S_NUP] - 1] % 13:
        return 2000  # three of the upcard's rank: with the upcard a quartet
    if mode == tricks_layout.ZWIK_MODERN and r == tricks_layout.TEN:
        return 2000  # zwik of tens is highest
    return 1000 + r


@kernel
def _zwik(s, cfg):
    """Zwik check before play; settles and returns True when a combination wins the pot."""
    who = cfg[tricks_layout.C_ZWIK_WHO]
    n = s[tricks_layout.S_N]
    bestv = 0
    bestp = -1
    for pass_ in range(2):
        for i in range(n):
            p = seat(s, i)
            if who == tricks_layout.WHO_ASKERS:
                ok = s[pf(p, tricks_layout.P_ASKED)] == 1
            elif who == tricks_layout.WHO_ALL:
                ok = True
            else:
                ok = s[pf(p, tricks_layout.P_IN)] == 1
            if not ok:
                continue
            if pass_ == 0:
                v = combo_value(s, cfg, p)
            else:
                # the upcard pair counts only when nobody has a combination
                v = 0
                if cfg[tricks_layout.C_UPPAIR] and cfg[tricks_layout.C_H] >= 2:
                    r = s[tricks_layout.S_UP + s[tricks_layout.S_NUP] - 1] % 13
                    cnt = 0
                    for c in range(tricks_layout.NC):
                        if s[tricks_layout.S_LOC + c] == tricks_layout.L_HAND + p and c % 13 == r:
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
    before = s[tricks_layout.S_POT]
    pay(s, bestp, -before)
    if cfg[tricks_layout.C_ZWIK_BETE]:
        for p in range(n):
            if p != bestp and s[pf(p, tricks_layout.P_IN)] == 1:
                pay(s, p, before)
    s[tricks_layout.S_ZWIKP] = bestp
    end_deal(s, tricks_layout.R_ZWIK)
    return True


@kernel
def _start_play(s, cfg):
    s[tricks_layout.S_POT0] = s[tricks_layout.S_POT]
    s[tricks_layout.S_TRICK] = 0
    s[tricks_layout.S_NPLAYED] = 0
    s[tricks_layout.S_LEDSUIT] = -1
    n = s[tricks_layout.S_N]
    cnt = 0
    lead = -1
    for i in range(n):
        p = seat(s, i)
        if s[pf(p, tricks_layout.P_IN)] == 1:
            cnt += 1
            if lead < 0:
                lead = p
    s[tricks_layout.S_NPART] = cnt
    s[tricks_layout.S_LEADER] = lead
    s[tricks_layout.S_CUR] = lead
    s[tricks_layout.S_PHASE] = tricks_layout.PH_PLAY


@kernel
def trick_winner(s, cfg):
    """Seat winning the current (complete) trick."""
    n = s[tricks_layout.S_N]
    trump = s[tricks_layout.S_TRUMP]
    perm = cfg[tricks_layout.C_PERM]
    q = s[tricks_layout.S_LEADER]
    win = q
    best = s[pf(q, tricks_layout.P_TCARD)]
    best_fd = s[pf(q, tricks_layout.P_TFD)] == 1
    for _ in range(n - 1):
        q = (q + 1) % n
        c = s[pf(q, tricks_layout.P_TCARD)]
        if c < 0 or s[pf(q, tricks_layout.P_TFD)] == 1:
            continue  # a face-down card never wins
        if best_fd or beats(c, best, trump, perm):
            win = q
            best = c
            best_fd = False
    return win


@kernel
def _play(s, cfg, p, c):
    trump = s[tricks_layout.S_TRUMP]
    perm = cfg[tricks_layout.C_PERM]
    fd = False
    if (
        cfg[tricks_layout.C_DUTY] == tricks_layout.DUTY_HISTORIC
        and s[tricks_layout.S_TRICK] < cfg[tricks_layout.C_H] - 1
    ):
        fd = c // 13 != trump
    push_hist(s, tricks_layout.H_HIDDEN if fd else tricks_layout.H_ACT, p, tricks_layout.A_PLAY + c)
    s[tricks_layout.S_LOC + c] = tricks_layout.L_FD if fd else tricks_layout.L_PLAYED
    s[pf(p, tricks_layout.P_TCARD)] = c
    s[pf(p, tricks_layout.P_TFD)] = 1 if fd else 0
    s[tricks_layout.S_TL + s[tricks_layout.S_TRICK] * tricks_layout.NP + p] = c + 64 if fd else c
    if s[tricks_layout.S_NPLAYED] == 0:
        s[tricks_layout.S_LEDSUIT] = -1 if fd else eff_suit(c, trump, perm)
        s[pf(p, tricks_layout.P_LED)] = 1
    s[tricks_layout.S_NPLAYED] += 1
    n = s[tricks_layout.S_N]
    if s[tricks_layout.S_NPLAYED] < s[tricks_layout.S_NPART]:
        q = p
        for _ in range(n):
            q = (q + 1) % n
            if s[pf(q, tricks_layout.P_IN)] == 1:
                break
        s[tricks_layout.S_CUR] = q
        return
    _finish_trick(s, cfg)


@kernel
def _finish_trick(s, cfg):
    n = s[tricks_layout.S_N]
    h = cfg[tricks_layout.C_H]
    w = trick_winner(s, cfg)
    pts = 0
    ace_played = False
    seven_by = -1
    ace = s[tricks_layout.S_TRUMP] * 13 + tricks_layout.ACE
    for q in range(n):
        c = s[pf(q, tricks_layout.P_TCARD)]
        if c >= 0:
            pts += POINTS[c % 13]
            if c == ace:
                ace_played = True
            if c == cfg[tricks_layout.C_PERM]:
                seven_by = q
    s[pf(w, tricks_layout.P_TRICKS)] += 1
    s[pf(w, tricks_layout.P_POINTS)] += pts
    if ace_played and seven_by >= 0:
        pay(s, seven_by, cfg[tricks_layout.C_GEZWICKT])  # gezwickt: 7D lost to the trump Ace
        s[tricks_layout.S_SEVENLOST] = seven_by
    last = s[tricks_layout.S_TRICK] == h - 1
    if cfg[tricks_layout.C_WIN] == tricks_layout.WIN_SHARES:
        if cfg[tricks_layout.C_ANBIETEN]:
            if last:
                pay(s, w, -s[tricks_layout.S_POT])  # Anbieten: the last trick takes the whole pot
        else:
            pay(s, w, -(s[tricks_layout.S_POT0] // h))  # a trick is worth 1/3 of the pot, rounded down
    for q in range(n):
        s[pf(q, tricks_layout.P_TCARD)] = -1
        s[pf(q, tricks_layout.P_TFD)] = 0
    s[tricks_layout.S_NPLAYED] = 0
    s[tricks_layout.S_LEDSUIT] = -1
    s[tricks_layout.S_TRICK] += 1
    s[tricks_layout.S_LEADER] = w
    s[tricks_layout.S_CUR] = w
    if last:
        _settle(s, cfg)


@kernel
def stake(s, cfg):
    """The gambler's stake: the pot, or the bid's fraction of it (rounded down)."""
    pot0 = s[tricks_layout.S_POT0]
    if not cfg[tricks_layout.C_PARTPOT]:
        return pot0
    lv = s[pf(s[tricks_layout.S_SPELER], tricks_layout.P_BID)]
    if lv == 1:
        return pot0 // 2
    if lv == 2:
        return pot0 * 2 // 3
    if lv == 3:
        return pot0 * 3 // 4
    return pot0


@kernel
def gambler_won(s, cfg):
    g = s[tricks_layout.S_SPELER]
    n = s[tricks_layout.S_N]
    h = cfg[tricks_layout.C_H]
    if cfg[tricks_layout.C_WIN] == tricks_layout.WIN_GAMBLER:
        tw = s[pf(g, tricks_layout.P_TRICKS)]
        mine = s[pf(g, tricks_layout.P_POINTS)]
        total = 0
        for q in range(n):
            total += s[pf(q, tricks_layout.P_POINTS)]
        return 2 * tw > h or (tw >= 1 and mine > total - mine)
    for q in range(n):
        if q != g and s[pf(q, tricks_layout.P_POINTS)] >= s[pf(g, tricks_layout.P_POINTS)]:
            return False  # a tie for most means everybody loses
    return True


@kernel
def _settle(s, cfg):
    n = s[tricks_layout.S_N]
    win = cfg[tricks_layout.C_WIN]
    if win == tricks_layout.WIN_SHARES:
        for p in range(n):
            if s[pf(p, tricks_layout.P_IN)] == 1 and s[pf(p, tricks_layout.P_TRICKS)] == 0:
                if cfg[tricks_layout.C_BETE] == tricks_layout.BETE_POT:
                    pay(s, p, s[tricks_layout.S_POT0])  # bête: pays the pot's amount
                elif cfg[tricks_layout.C_BETE] == tricks_layout.BETE_STAKE:
                    pay(s, p, cfg[tricks_layout.C_GEZWICKT])  # gezwickt: the basic stake
    elif win == tricks_layout.WIN_GAMBLER or win == tricks_layout.WIN_POINTS:
        g = s[tricks_layout.S_SPELER]
        st = stake(s, cfg)
        if gambler_won(s, cfg):
            pay(s, g, -st)
        else:
            pay(s, g, st)
    end_deal(s, tricks_layout.R_TRICKS)


@kernel
def apply_action(s, cfg, a):
    """Apply a legal player action (no legality check: use :func:`legal_mask`)."""
    p = s[tricks_layout.S_CUR]
    ph = s[tricks_layout.S_PHASE]
    if ph == tricks_layout.PH_PLAY:
        _play(s, cfg, p, a - tricks_layout.A_PLAY)
        return
    if ph == tricks_layout.PH_DISCARD:
        c = a - tricks_layout.A_DISCARD
        push_hist(s, tricks_layout.H_HIDDEN, p, a)
        s[tricks_layout.S_LOC + c] = tricks_layout.L_DISC
        s[tricks_layout.S_LAST] = c
        s[tricks_layout.S_EXD] += 1
        if s[tricks_layout.S_EXD] == s[tricks_layout.S_EXK]:
            s[tricks_layout.S_PHASE] = tricks_layout.PH_DRAW
            s[tricks_layout.S_CUR] = tricks_layout.CUR_CHANCE
            s[tricks_layout.S_LAST] = -1
        return
    push_hist(s, tricks_layout.H_ACT, p, a)
    if ph == tricks_layout.PH_DECLARE:
        if a == tricks_layout.A_PASS:
            s[pf(p, tricks_layout.P_STATUS)] = 2
            _next_declarer(s, cfg)
        elif a == tricks_layout.A_PLAYDECL:
            s[pf(p, tricks_layout.P_STATUS)] = 1
            _next_declarer(s, cfg)
        else:
            k = a - tricks_layout.A_EXCH
            s[pf(p, tricks_layout.P_STATUS)] = 1
            s[tricks_layout.S_EXK] = k
            s[tricks_layout.S_EXD] = 0
            s[tricks_layout.S_DRAWN] = 0
            s[tricks_layout.S_LAST] = -1
            if k == 0:
                _next_declarer(s, cfg)
            else:
                s[tricks_layout.S_PHASE] = tricks_layout.PH_DISCARD
    elif ph == tricks_layout.PH_AUCTION:
        if a == tricks_layout.A_PASS_KEN or a >= tricks_layout.A_BID_KEN and a < tricks_layout.A_BID_KEN + 4:
            s[pf(p, tricks_layout.P_ANN)] |= 1 << (s[tricks_layout.S_NUP] - 1)
        if a == tricks_layout.A_PASS or a == tricks_layout.A_PASS_KEN:
            if cfg[tricks_layout.C_AUCTION] == tricks_layout.AUCTION_CYCLIC or s[tricks_layout.S_ROUND] == 1:
                s[pf(p, tricks_layout.P_STATUS)] = 2
                s[pf(p, tricks_layout.P_PASSR1)] = (
                    1 if s[tricks_layout.S_ROUND] == 1 else s[pf(p, tricks_layout.P_PASSR1)]
                )
        else:
            lv = a - tricks_layout.A_BID + 1 if a < tricks_layout.A_PASS_KEN else a - tricks_layout.A_BID_KEN + 1
            s[pf(p, tricks_layout.P_STATUS)] = 1
            s[pf(p, tricks_layout.P_BID)] = lv
            s[pf(p, tricks_layout.P_ASKED)] = 1
            s[tricks_layout.S_HIGH] = lv
            s[tricks_layout.S_HIGHP] = p
        _auction_next(s, cfg)
    elif ph == tricks_layout.PH_SEARCH:
        if a == tricks_layout.A_STOP:
            end_deal(s, tricks_layout.R_STOP)
            return
        s[tricks_layout.S_NSEARCH] += 1
        mode = cfg[tricks_layout.C_SEARCH_ANTE]
        if mode == tricks_layout.SEARCH_ANTE_EVERY or (
            mode == tricks_layout.SEARCH_ANTE_FIRST and s[tricks_layout.S_NSEARCH] == 1
        ):
            for q in range(s[tricks_layout.S_N]):
                pay(s, q, 1)
        s[tricks_layout.S_PHASE] = tricks_layout.PH_UPCARD
        s[tricks_layout.S_CUR] = tricks_layout.CUR_CHANCE
    elif ph == tricks_layout.PH_SWAP:
        k = s[tricks_layout.S_SWAPK]
        if a == tricks_layout.A_SWAP:
            up = s[tricks_layout.S_UP + k]
            ten = (up // 13) * 13 + tricks_layout.TEN
            s[tricks_layout.S_LOC + up] = tricks_layout.L_HAND + p
            s[tricks_layout.S_LOC + ten] = tricks_layout.L_UP
            s[tricks_layout.S_UP + k] = ten
        _advance_swap(s, cfg)


@kernel
def apply(s, cfg, a):
    """Apply a chance outcome (card id) or a player action, whichever the node expects."""
    if s[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
        apply_chance(s, cfg, a)
    else:
        apply_action(s, cfg, a)


# ---- playouts ----------------------------------------------------------------------------------------
@kernel
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


@kernel
def random_action(mask):
    """A uniformly random action among those set in ``mask`` (at least one; one
    ``np.random.randint`` draw)."""
    k = 0
    for a in range(tricks_layout.NUM_ACTIONS):
        if mask[a]:
            k += 1
    pick = np.random.randint(k)  # noqa: NPY002
    for a in range(tricks_layout.NUM_ACTIONS):
        if mask[a]:
            if pick == 0:
                return a
            pick -= 1
    return -1


@kernel
def random_playout(s, cfg):
    """Play uniformly random actions (and chance) to the end of the deal; returns the steps taken."""
    ids = np.empty(tricks_layout.NC, dtype=np.int32)
    probs = np.empty(tricks_layout.NC, dtype=np.float64)
    mask = np.zeros(tricks_layout.NUM_ACTIONS, dtype=np.bool_)
    steps = 0
    while s[tricks_layout.S_CUR] != tricks_layout.CUR_OVER:
        if s[tricks_layout.S_CUR] == tricks_layout.CUR_CHANCE:
            apply_chance(s, cfg, sample_chance(s, cfg, ids, probs))
        else:
            legal_mask(s, cfg, mask)
            apply_action(s, cfg, random_action(mask))
        steps += 1
    return steps


@kernel
def random_deals(cfg, count, seed):
    """Play ``count`` random deals; rows of (pot change, net 0..5, result, steps) per deal."""
    np.random.seed(seed)  # noqa: NPY002
    out = np.zeros((count, 3 + tricks_layout.NP), dtype=np.int64)
    for i in range(count):
        s = new_state(cfg)
        steps = random_playout(s, cfg)
        out[i, 0] = s[tricks_layout.S_POT] - s[tricks_layout.S_POT_START]
        for p in range(tricks_layout.NP):
            out[i, 1 + p] = s[pf(p, tricks_layout.P_NET)]
        out[i, 1 + tricks_layout.NP] = s[tricks_layout.S_RESULT]
        out[i, 2 + tricks_layout.NP] = steps
    return out


@kernel
def check_invariants(s, cfg):
    """0 when the position is consistent; otherwise a code naming the broken invariant."""
    n = s[tricks_layout.S_N]
    total = s[tricks_layout.S_POT] - s[tricks_layout.S_POT_START]
    for p in range(tricks_layout.NP):
        total += s[pf(p, tricks_layout.P_NET)]
    if total != 0:
        return 1  # chips not conserved
    if s[tricks_layout.S_POT] < 0:
        return 2
    h = cfg[tricks_layout.C_H]
    for p in range(n):
        k = 0
        for c in range(tricks_layout.NC):
            if s[tricks_layout.S_LOC + c] == tricks_layout.L_HAND + p:
                k += 1
        if k > h:
            return 3
    for c in range(tricks_layout.NC):
        inpack = cfg[tricks_layout.C_INPACK + c] == 1
        if inpack != (s[tricks_layout.S_LOC + c] != tricks_layout.L_OUT):
            return 4
    return 0


@kernel
def fill_info_tokens(s, player, ev):
    """Write ``player``'s observed events as one-hot tokens into ``ev`` (rows x TOKEN, zeroed by
    the caller); returns the number of rows used. Other seats' deals are not observed; their
    draws, discards and face-down plays show as hidden tokens."""
    row = 0
    for i in range(s[tricks_layout.S_HLEN]):
        kind = s[tricks_layout.S_HIST + 3 * i]
        who = s[tricks_layout.S_HIST + 3 * i + 1]
        v = s[tricks_layout.S_HIST + 3 * i + 2]
        mine = who == player
        if kind == tricks_layout.H_DEAL:
            if not mine:
                continue
            tk = 0
        elif kind == tricks_layout.H_UP:
            tk = 1
            who = tricks_layout.NP
        elif kind == tricks_layout.H_CUT:
            tk = 2
            who = tricks_layout.NP
        elif kind == tricks_layout.H_DRAW:
            tk = 3 if mine else 4
            if not mine:
                v = -1
        elif kind == tricks_layout.H_DRAWPUB:
            tk = 5
        elif kind == tricks_layout.H_HIDDEN and not mine:
            tk = 7
            v = 1 if v < tricks_layout.A_DISCARD else 0  # 1: a face-down play, 0: a discard
        else:
            tk = 6
        ev[row, tk] = 1.0
        ev[row, tricks_layout.TOKEN_KINDS + who] = 1.0
        if v >= 0:
            ev[row, tricks_layout.TOKEN_KINDS + tricks_layout.NP + 1 + v] = 1.0
        row += 1
    return row
