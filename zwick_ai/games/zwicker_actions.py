"""The action codec of the OpenSpiel ``zwicker`` game (whole engine moves as short sequences of
sub-actions whose ids keep one meaning in every state of a game), and the numba kernels behind
the game's states: the state array layout, chance, sub-action steps, the observer fill and the
resampler (used by :mod:`zwick_ai.games.zwicker`; nothing here imports OpenSpiel).

A turn is split into sub-decisions. Every legal whole move of the engine
(:func:`zwick_ai.zwicker.legal_rows`) has exactly one *token sequence*; the legal sub-actions at a
point of a turn are the next tokens of the legal moves whose sequence starts with the tokens
chosen so far. The code is prefix-free, so a move is applied as soon as its last token is chosen.

==========================================  ==========================================  =====================
move                                        token sequence                              example strings
==========================================  ==========================================  =====================
trail card c                                ``c, trail``                                ``7D``, ``trail``
capture with c, smallest proving value v,   ``c, as v, take u1, ..., take uk, done``    ``QS``, ``as 13``,
units u1 < ... < uk (by first-card id)                                                  ``take QD``, ``done``
build with c on unit u (or new), value v,   ``c, on u | new build, [for partner +d],    ``2C``, ``on 9C``,
owner = mover or the partner d seats left   build v``                                   ``build 11``
ask the partner d seats left about n        ``ask partner +d for n``                    ``ask partner +2 for 13``
==========================================  ==========================================  =====================

A table unit (loose card or build) is named by its *first card*: the card that started it (the
engine's anchor), which stays its first card until the unit is taken. With
``capture_values=several`` a dual card captures without one announced value: its value token is
``capture`` (``as 0``).

Action ids (``D`` = deck size, ``V`` = largest build or capture value, ``J`` = number of partner
seat offsets, 0 without builds for partners; ``Jask`` = ``J`` with asking, else 0)::

    [0, D)              play deck[i]                       "QS"
    [D, 2D)             take the unit whose first card is deck[i]     "take QS"
    [2D, 3D)            build on the unit whose first card is deck[i] "on QS"
    3D                  trail                              "trail"
    3D+1                new single-card build              "new build"
    3D+2                capture complete                   "done"
    AS + v, v=0..V      capture as value v                 "as 13" ("capture" for v = 0)
    BUILD + v-1         announce build value v = 1..V      "build 11"
    FOR + j             the build goes to the partner offsets[j] seats to the left   "for partner +2"
    ASK + j*V + n-1     ask the partner offsets[j] seats left about value n          "ask partner +2 for 13"

with ``AS = 3D+3``, ``BUILD = AS+V+1``, ``FOR = BUILD+V``, ``ASK = FOR+J``, and
``num_distinct_actions = ASK + Jask*V`` (at most 344, classic with 12 players).

Cards are named as in :mod:`zwick_ai.cards`; a second-pack copy gets a prime (``TD'``) and wild
jokers are numbered (``XW1`` .. ``XW6``) so that units on the table have distinct names.

>>> from zwick_ai import zwicker
>>> codec = Codec(zwicker.rules("dithmarschen", players=4))
>>> codec.num_actions, codec.action_string(codec.as_ + 13), codec.action_string(codec.take + 0)
(220, 'as 13', 'take 2C')
"""

from __future__ import annotations

from math import comb

import numpy as np
from numba import njit

from zwick_ai.zwicker import kernels as K
from zwick_ai.zwicker.codec import (
    CD_D,
    CD_DECK,
    CD_DIDX,
    CD_J,
    CD_OFS_INDEX,
    CODEC_SIZE,
    COL_NTOK,
    TOK0,
    Codec,
    advance_sel,
    next_tokens,
    next_tokens_sel,
    turn_matrix,
)
from zwick_ai.zwicker.history import (
    DEST_TABLE,
    GB_CD,
    GB_CH,
    L_ANCHOR,
    L_ANSWER,
    L_CARD,
    L_KIND,
    L_NTOK,
    L_OWNER,
    L_SEAT,
    L_VALUE,
    LOGW,
    MAXTOK,
    SS,
    X_ASSIGNED,
    X_CAPT,
    X_CDEST,
    X_CUT,
    X_DEAL_STAGE,
    X_DEALER,
    X_DEALT,
    X_GFILL,
    X_GLAST,
    X_GROUP,
    X_LOG,
    X_NCHANCE,
    X_NCUT,
    X_NPLY,
    X_ORDER,
    X_PLEN,
    X_PREFIX,
    X_TABLE_STAGE,
    XB,
    logged_row_into,
    record_move,
)
from zwick_ai.zwicker.layout import (
    KIND_ASK,
    KIND_BUILD,
    LOC_HAND,
    LOC_STOCK,
    LOC_TABLE,
    LOC_WON,
    MAX_PLAYERS,
    MOVE_WIDTH,
    NC,
    R_CUT_RANK,
    R_FIRST_DEALER,
    R_NSIDES,
    R_PLAYERS,
    R_SIDE_OF,
    RULES_SIZE,
    S_ANCHOR,
    S_ASK_ANS,
    S_ASK_N,
    S_ASK_Q,
    S_DEALT_TO,
    S_HAND_N,
    S_LAST_CAPT,
    S_LOC,
    S_PHASE,
    S_STAGE,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_TO_MOVE,
    S_UBUILD,
    S_UOWNER,
    S_UVALUE,
    S_WON_N,
    S_ZWICKS,
)
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.snapshot import PHASE_OVER

# ================================================================================================
# The game's state array and its kernels (used by :mod:`zwick_ai.games.zwicker`)
# ================================================================================================
CHANCE = -1  # pyspiel.PlayerId.CHANCE
TERMINAL = -4  # pyspiel.PlayerId.TERMINAL

# ---- the game's read-only table G (int32): [rules array | codec | chance layout] -----------------
CH_NGMAX = 0  # groups per dealer (max)
CH_GMAX = 1  # cards per group (max)
CH_FIRST = 2  # 1: the dealer is one chance node; 0: the cut
CH_NG = 4  # per dealer: number of groups
CH_T = CH_NG + MAX_PLAYERS  # GSIZE, GSTAGE, GDEST (P x NGMAX each), then GPOS (P x NGMAX x GMAX)
_BINOM = np.array([[comb(n, k) for k in range(NC + 2)] for n in range(NC + 2)], np.float64)


def game_table(rules: Rules, codec: Codec, groups: list[list[tuple[int, int, list[int]]]]) -> np.ndarray:
    """Pack the rules array, the codec and the chance groups (per dealer) into one int32 array."""
    players = rules.players
    ngmax = max(len(g) for g in groups)
    gmax = max(len(pos) for g in groups for _, _, pos in g)
    cells = players * ngmax
    G = np.full(GB_CH + CH_T + 3 * cells + cells * gmax, -1, np.int32)
    G[:RULES_SIZE] = rules.array()
    G[GB_CD : GB_CD + CODEC_SIZE] = codec.arr
    ch = GB_CH
    G[ch + CH_NGMAX], G[ch + CH_GMAX], G[ch + CH_FIRST] = ngmax, gmax, rules.first_dealer == "random"
    for d, grs in enumerate(groups):
        G[ch + CH_NG + d] = len(grs)
        for g, (stage, dest, pos) in enumerate(grs):
            cell = d * ngmax + g
            G[ch + CH_T + cell] = len(pos)
            G[ch + CH_T + cells + cell] = stage
            G[ch + CH_T + 2 * cells + cell] = dest
            G[ch + CH_T + 3 * cells + cell * gmax : ch + CH_T + 3 * cells + cell * gmax + len(pos)] = pos
    return G


@njit(cache=True, inline="always")
def _cell(G, d, g):
    return d * G[GB_CH + CH_NGMAX] + g


@njit(cache=True, inline="always")
def _gfield(G, k, d, g):
    """Group field k (0 size, 1 stage, 2 destination) of group g for dealer d."""
    cells = G[R_PLAYERS] * G[GB_CH + CH_NGMAX]
    return G[GB_CH + CH_T + k * cells + _cell(G, d, g)]


@njit(cache=True, inline="always")
def _gpos(G, d, g, j):
    cells = G[R_PLAYERS] * G[GB_CH + CH_NGMAX]
    return G[GB_CH + CH_T + 3 * cells + _cell(G, d, g) * G[GB_CH + CH_GMAX] + j]


# ------------------------------------------------------------------------------------------------
# Kernels
# ------------------------------------------------------------------------------------------------
@njit(cache=True)
def _cut_state(R, X, D):
    """(dealer or -1, seat to cut next or -1) after the cut cards so far (as ``cut_for_dealer``)."""
    players = R[R_PLAYERS]
    high = R[R_FIRST_DEALER] == 2  # high_cut
    alive = np.ones(players, np.bool_)
    pos = 0
    ncut = X[X_NCUT]
    ranks = np.full(players, -1, np.int64)
    while True:
        best = -1
        for p in range(players):
            ranks[p] = -1
        for p in range(players):
            if alive[p]:
                if pos >= D:
                    return p, -1
                if pos >= ncut:
                    return -1, p
                ranks[p] = R[R_CUT_RANK + X[X_CUT + pos]]
                pos += 1
                if best == -1 or (ranks[p] > best if high else ranks[p] < best):
                    best = ranks[p]
        count = 0
        last = -1
        for p in range(players):
            if alive[p] and ranks[p] == best:
                count += 1
                last = p
            else:
                alive[p] = False
        if count == 1:
            return last, -1


@njit(cache=True)
def _current(S):
    if S[S_PHASE] == PHASE_OVER:
        return TERMINAL
    return S[S_TO_MOVE]


@njit(cache=True)
def chance_outcomes_k(G, a):
    """(outcome ids, probabilities) of the chance node."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    first_random = G[GB_CH + CH_FIRST]
    BINOM = _BINOM
    X = a[XB:]
    D = CD[CD_D]
    if X[X_DEALER] < 0:
        if first_random:
            players = R[R_PLAYERS]
            return np.arange(players), np.full(players, 1.0 / players)
        free = np.ones(D, np.bool_)
        for k in range(X[X_NCUT]):
            free[CD[CD_DIDX + X[X_CUT + k]]] = False
        ids = np.flatnonzero(free)
        return ids, np.full(ids.shape[0], 1.0 / ids.shape[0])
    d = X[X_DEALER]
    g = X[X_GROUP]
    r = _gfield(G, 0, d, g) - X[X_GFILL]
    last = X[X_GLAST]
    above = 0  # free cards above ``last``
    for i in range(last + 1, D):
        if not X[X_ASSIGNED + CD[CD_DECK + i]]:
            above += 1
    ids = np.empty(above, np.int64)
    probs = np.empty(above, np.float64)
    total = BINOM[above, r]
    n = 0
    higher = above
    for i in range(last + 1, D):
        if X[X_ASSIGNED + CD[CD_DECK + i]]:
            continue
        higher -= 1  # free cards above i
        if higher < r - 1:
            break
        ids[n] = i
        probs[n] = BINOM[higher, r - 1] / total
        n += 1
    return ids[:n], probs[:n]


@njit(cache=True)
def _deal_done(R, a, CD, W):
    """Lay the remaining cards in ascending order and let the engine deal stage 0."""
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    j = 0
    for pos in range(D):
        if X[X_ORDER + pos] < 0:
            while X[X_ASSIGNED + CD[CD_DECK + j]]:
                j += 1
            c = CD[CD_DECK + j]
            X[X_ORDER + pos] = c
            X[X_ASSIGNED + c] = 1
    order = np.empty(D, np.int64)
    for pos in range(D):
        order[pos] = X[X_ORDER + pos]
    K.start_hand(R, S, order, X[X_DEALER], W)
    X[X_DEALT] = 1
    for i in range(D):
        c = CD[CD_DECK + i]
        loc = S[S_LOC + c]
        if loc != LOC_STOCK:
            X[X_DEAL_STAGE + c] = 0
            if loc == LOC_TABLE:
                X[X_TABLE_STAGE + c] = 1
    return _current(S)


@njit(cache=True)
def apply_chance_k(G, a, W, outcome):
    """Apply a chance outcome; return the next current player."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    first_random = G[GB_CH + CH_FIRST]
    X = a[XB:]
    D = CD[CD_D]
    X[X_NCHANCE] += 1
    if X[X_DEALER] < 0:
        if first_random:
            X[X_DEALER] = outcome
        else:
            X[X_CUT + X[X_NCUT]] = CD[CD_DECK + outcome]
            X[X_NCUT] += 1
            dealer, _ = _cut_state(R, X, D)
            if dealer >= 0:
                X[X_DEALER] = dealer
        return CHANCE
    d = X[X_DEALER]
    g = X[X_GROUP]
    f = X[X_GFILL]
    c = CD[CD_DECK + outcome]
    X[X_ORDER + _gpos(G, d, g, f)] = c
    X[X_ASSIGNED + c] = 1
    if _gfield(G, 1, d, g) == 0:
        X[X_CDEST + c] = _gfield(G, 2, d, g)
    X[X_GLAST] = outcome
    f += 1
    if f == _gfield(G, 0, d, g):
        g += 1
        f = 0
        X[X_GLAST] = -1
    X[X_GROUP] = g
    X[X_GFILL] = f
    if g == G[GB_CH + CH_NG + d]:
        return _deal_done(R, a, CD, W)
    return CHANCE


@njit(cache=True)
def turn_k(G, a, W):
    """The candidate moves (with token sequences) of the current partial move."""
    X = a[XB:]
    return turn_matrix(
        G[:RULES_SIZE], a[:SS], G[GB_CD : GB_CD + CODEC_SIZE], X[X_PREFIX : X_PREFIX + MAXTOK], X[X_PLEN], W
    )


@njit(cache=True)
def legal_k(a, M):
    """The legal sub-actions: next tokens of the candidate moves."""
    return next_tokens(M, a[XB + X_PLEN])


@njit(cache=True)
def step_k(G, a, M, sel, tok, W):
    """Apply one sub-action. ``M`` holds the turn's candidate moves with their token sequences and
    ``sel`` the rows still reachable from the sub-actions chosen so far. Returns (candidates,
    reachable rows, legal sub-actions, player to move): within a move ``M`` itself with fewer rows;
    once the move is complete it is applied and the next turn's candidates are returned. The
    player is -100 for an illegal sub-action (nothing changes)."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    X = a[XB:]
    k = X[X_PLEN]
    sel2 = advance_sel(M, sel, k, tok)
    if sel2.shape[0] == 0:
        return M, sel2, np.empty(0, np.int64), np.int64(-100)
    if sel2.shape[0] == 1 and M[sel2[0], COL_NTOK] == k + 1:
        row = np.zeros(MOVE_WIDTH, np.int64)
        for j in range(7):
            row[j] = M[sel2[0], j]
        record_move(R, a, CD, row, k + 1, W)
        return turn_start_k(G, a, W)
    X[X_PREFIX + k] = tok
    X[X_PLEN] = k + 1
    return M, sel2, next_tokens_sel(M, sel2, k + 1), np.int64(a[S_TO_MOVE])  # the mover keeps the turn


@njit(cache=True)
def turn_start_k(G, a, W):
    """(candidates, rows, legal sub-actions, player) at the start of a turn (empty when no one
    decides), like :func:`step_k`."""
    cur = np.int64(_current(a[:SS]))
    if cur < 0 or a[XB + X_DEALT] == 0:
        none = np.empty(0, np.int64)
        return np.empty((0, TOK0), np.int64), none, none, np.int64(cur if a[XB + X_DEALT] else CHANCE)
    M = turn_k(G, a, W)
    return M, np.arange(M.shape[0]), next_tokens(M, a[XB + X_PLEN]), cur


@njit(cache=True)
def chance_step_k(G, a, W, outcome):
    """Apply a chance outcome; returns the player to move next (CHANCE while the deal goes on).
    Once a player decides, :func:`turn_start_k` gives the turn's candidates (two calls, so that
    the many chance steps of a deal return no arrays: boxing each costs about a microsecond)."""
    apply_chance_k(G, a, W, outcome)
    if a[XB + X_DEALT] == 0:
        return np.int64(CHANCE)
    return np.int64(_current(a[:SS]))


@njit(cache=True)
def replay_token_k(G, a, orig, tok, W):
    """Apply sub-action ``tok`` while rebuilding a resampled state from the original's log
    (``orig``): the move of the current ply is taken from that log instead of being generated.
    Legality was established by :func:`resample_k`. Returns the player to move."""
    X = a[XB:]
    OX = orig[XB:]
    t = X[X_NPLY]
    k = X[X_PLEN]
    if t < OX[X_NPLY] and k + 1 == OX[X_LOG + t * LOGW + L_NTOK]:
        row = np.zeros(MOVE_WIDTH, np.int64)
        logged_row_into(OX, t, row)
        record_move(G[:RULES_SIZE], a, G[GB_CD : GB_CD + CODEC_SIZE], row, k + 1, W)
        return np.int64(_current(a[:SS]))
    X[X_PREFIX + k] = tok
    X[X_PLEN] = k + 1
    return np.int64(a[S_TO_MOVE])


@njit(cache=True)
def returns_k(G, a, win_loss):
    """Returns per player (module docstring of :mod:`zwick_ai.games.zwicker`)."""
    R = G[:RULES_SIZE]
    sc = K.score(R, a[:SS])
    ns = R[R_NSIDES]
    players = R[R_PLAYERS]
    out = np.zeros(players, np.float64)
    if win_loss:
        best = sc.max()
        top = 0
        for s in range(ns):
            if sc[s] == best:
                top += 1
        for p in range(players):
            out[p] = (ns - top) if sc[R[R_SIDE_OF + p]] == best else -top
        return out
    total = sc.sum()
    for p in range(players):
        out[p] = ns * sc[R[R_SIDE_OF + p]] - total
    return out


# ---- observer --------------------------------------------------------------------------------------
(
    P_PLAYER,
    P_CURRENT,
    P_DEALER,
    P_PHASE,
    P_STAGE,
    P_HAND,
    P_HAND_SIZES,
    P_STOCK,
    P_TABLE,
    P_BUILD_VALUE,
    P_BUILD_OWNER,
    P_WON,
    P_WON_COUNT,
    P_ZWICKS,
    P_SCORE,
    P_LAST_CAPT,
    P_ASKED,
    P_MOVE,
    P_CUT,
    P_DEALT_TO_ME,
    P_TABLE_DEALT,
    P_PLAYED_AT,
    P_PLAYED_BY,
    P_PLAY_KIND,
    P_PLAY_VALUE,
    P_BUILT_ON,
    P_BUILD_FOR,
    P_ASK_BEFORE,
    P_CAPTURED_AT,
) = range(29)
PIECE_NAMES = (
    "player",
    "current",
    "dealer",
    "phase",
    "stage",
    "hand",
    "hand_sizes",
    "stock",
    "table",
    "build_value",
    "build_owner",
    "won",
    "won_count",
    "zwicks",
    "score",
    "last_capturer",
    "asked",
    "move",
    "cut",
    "dealt_to_me",
    "table_dealt",
    "played_at",
    "played_by",
    "play_kind",
    "play_value",
    "built_on",
    "build_for",
    "ask_before",
    "captured_at",
)
PRIVATE_PIECES = (P_HAND, P_DEALT_TO_ME)


def piece_shapes(rules: Rules, codec: Codec) -> list[tuple[int, tuple[int, ...]]]:
    """(piece id, shape) of every piece of the information-state tensor, in tensor order."""
    d, p, ns, j, a = codec.D, rules.players, rules.num_sides, codec.J_ask, codec.num_actions
    shapes = {
        P_PLAYER: (p,),
        P_CURRENT: (p + 2,),
        P_DEALER: (p,),
        P_PHASE: (4,),
        P_STAGE: (1,),
        P_HAND: (d,),
        P_HAND_SIZES: (p,),
        P_STOCK: (1,),
        P_TABLE: (d, 2),
        P_BUILD_VALUE: (d,),
        P_BUILD_OWNER: (d, p),
        P_WON: (d, ns),
        P_WON_COUNT: (ns,),
        P_ZWICKS: (ns,),
        P_SCORE: (ns,),
        P_LAST_CAPT: (ns,),
        P_ASKED: (j + 2,) if j else (0,),
        P_MOVE: (a,),
        P_CUT: (d,),
        P_DEALT_TO_ME: (d,),
        P_TABLE_DEALT: (d,),
        P_PLAYED_AT: (d,),
        P_PLAYED_BY: (d, p),
        P_PLAY_KIND: (d, 3),
        P_PLAY_VALUE: (d,),
        P_BUILT_ON: (d,),
        P_BUILD_FOR: (d, p) if rules.owner_builds else (0,),
        P_ASK_BEFORE: (d, j + 2) if j else (0,),
        P_CAPTURED_AT: (d,),
    }
    return [(k, s) for k, s in shapes.items() if int(np.prod(s)) > 0]


@njit(cache=True)
def fill_k(G, a, OFF, p, out):
    """Write the observation (and, when the history pieces have offsets, the information state)."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    players = R[R_PLAYERS]
    ns = R[R_NSIDES]
    J = CD[CD_J] if OFF[P_ASKED] >= 0 or OFF[P_ASK_BEFORE] >= 0 else 0
    out[:] = 0.0
    if OFF[P_PLAYER] >= 0:
        out[OFF[P_PLAYER] + p] = 1.0
    dealt = X[X_DEALT] == 1
    over = S[S_PHASE] == PHASE_OVER
    if OFF[P_CURRENT] >= 0:
        if not dealt:
            out[OFF[P_CURRENT] + players] = 1.0
        elif over:
            out[OFF[P_CURRENT] + players + 1] = 1.0
        else:
            out[OFF[P_CURRENT] + S[S_TO_MOVE]] = 1.0
    if OFF[P_DEALER] >= 0 and X[X_DEALER] >= 0:
        out[OFF[P_DEALER] + X[X_DEALER]] = 1.0
    if OFF[P_CUT] >= 0:
        for k in range(X[X_NCUT]):
            out[OFF[P_CUT] + CD[CD_DIDX + X[X_CUT + k]]] = k + 1.0
    if not dealt:
        # During the deal only stage-0 cards already placed are visible: one's own and the table's.
        for i in range(D):
            c = CD[CD_DECK + i]
            dest = X[X_CDEST + c]
            if dest == p:
                if OFF[P_HAND] >= 0:
                    out[OFF[P_HAND] + i] = 1.0
                if OFF[P_DEALT_TO_ME] >= 0:
                    out[OFF[P_DEALT_TO_ME] + i] = 1.0
            elif dest == DEST_TABLE:
                if OFF[P_TABLE] >= 0:
                    out[OFF[P_TABLE] + 2 * i] = 1.0
                if OFF[P_TABLE_DEALT] >= 0:
                    out[OFF[P_TABLE_DEALT] + i] = 1.0
            if dest >= 0 and OFF[P_HAND_SIZES] >= 0:
                out[OFF[P_HAND_SIZES] + dest] += 1.0
        return
    if OFF[P_PHASE] >= 0:
        out[OFF[P_PHASE] + S[S_PHASE]] = 1.0
    if OFF[P_STAGE] >= 0:
        out[OFF[P_STAGE]] = S[S_STAGE]
    if OFF[P_HAND_SIZES] >= 0:
        for q in range(players):
            out[OFF[P_HAND_SIZES] + q] = S[S_HAND_N + q]
    if OFF[P_STOCK] >= 0:
        out[OFF[P_STOCK]] = S[S_STOCK_LEN] - S[S_STOCK_TOP]
    for i in range(D):
        c = CD[CD_DECK + i]
        loc = S[S_LOC + c]
        if loc == LOC_HAND + p and OFF[P_HAND] >= 0:
            out[OFF[P_HAND] + i] = 1.0
        elif loc == LOC_TABLE and OFF[P_TABLE] >= 0:
            anc = S[S_ANCHOR + c]
            if S[S_UBUILD + anc]:
                out[OFF[P_TABLE] + 2 * i + 1] = 1.0
                if anc == c:
                    if OFF[P_BUILD_VALUE] >= 0:
                        out[OFF[P_BUILD_VALUE] + i] = S[S_UVALUE + c]
                    if OFF[P_BUILD_OWNER] >= 0 and S[S_UOWNER + c] >= 0:
                        out[OFF[P_BUILD_OWNER] + i * players + S[S_UOWNER + c]] = 1.0
            else:
                out[OFF[P_TABLE] + 2 * i] = 1.0
        elif loc >= LOC_WON and loc < LOC_WON + ns and OFF[P_WON] >= 0:
            out[OFF[P_WON] + i * ns + loc - LOC_WON] = 1.0
        if OFF[P_DEALT_TO_ME] >= 0 and S[S_DEALT_TO + c] == p and X[X_DEAL_STAGE + c] >= 0:
            out[OFF[P_DEALT_TO_ME] + i] = X[X_DEAL_STAGE + c] + 1.0
        if OFF[P_TABLE_DEALT] >= 0:
            out[OFF[P_TABLE_DEALT] + i] = X[X_TABLE_STAGE + c]
        if OFF[P_CAPTURED_AT] >= 0:
            out[OFF[P_CAPTURED_AT] + i] = X[X_CAPT + c]
    if OFF[P_WON_COUNT] >= 0 or OFF[P_SCORE] >= 0 or OFF[P_ZWICKS] >= 0:
        sc = K.score(R, S)
        for s in range(ns):
            if OFF[P_WON_COUNT] >= 0:
                out[OFF[P_WON_COUNT] + s] = S[S_WON_N + s]
            if OFF[P_ZWICKS] >= 0:
                out[OFF[P_ZWICKS] + s] = S[S_ZWICKS + s]
            if OFF[P_SCORE] >= 0:
                out[OFF[P_SCORE] + s] = sc[s]
    if OFF[P_LAST_CAPT] >= 0 and S[S_LAST_CAPT] >= 0:
        out[OFF[P_LAST_CAPT] + S[S_LAST_CAPT]] = 1.0
    if OFF[P_ASKED] >= 0 and S[S_ASK_Q] >= 0:
        j = CD[CD_OFS_INDEX + (S[S_ASK_Q] - S[S_TO_MOVE]) % players]
        out[OFF[P_ASKED] + j] = 1.0
        out[OFF[P_ASKED] + J] = S[S_ASK_N]
        out[OFF[P_ASKED] + J + 1] = S[S_ASK_ANS]
    if OFF[P_MOVE] >= 0:
        for k in range(X[X_PLEN]):
            out[OFF[P_MOVE] + X[X_PREFIX + k]] = 1.0
    if OFF[P_PLAYED_AT] < 0:
        return
    pend = -1  # ply of a question whose card play has not been seen yet
    for t in range(X[X_NPLY]):
        e = X_LOG + t * LOGW
        kind = X[e + L_KIND]
        seat = X[e + L_SEAT]
        if kind == KIND_ASK:
            pend = t
            continue
        i = CD[CD_DIDX + X[e + L_CARD]]
        out[OFF[P_PLAYED_AT] + i] = t + 1.0
        out[OFF[P_PLAYED_BY] + i * players + seat] = 1.0
        out[OFF[P_PLAY_KIND] + i * 3 + kind] = 1.0
        out[OFF[P_PLAY_VALUE] + i] = X[e + L_VALUE]
        if kind == KIND_BUILD:
            if X[e + L_ANCHOR] >= 0:
                out[OFF[P_BUILT_ON] + i] = CD[CD_DIDX + X[e + L_ANCHOR]] + 1.0
            if OFF[P_BUILD_FOR] >= 0 and X[e + L_OWNER] >= 0:
                out[OFF[P_BUILD_FOR] + i * players + X[e + L_OWNER]] = 1.0
        if pend >= 0:
            if OFF[P_ASK_BEFORE] >= 0:
                f = X_LOG + pend * LOGW
                j = CD[CD_OFS_INDEX + (X[f + L_OWNER] - X[f + L_SEAT]) % players]
                base = OFF[P_ASK_BEFORE] + i * (J + 2)
                out[base + j] = 1.0
                out[base + J] = X[f + L_VALUE]
                out[base + J + 1] = X[f + L_ANSWER]
            pend = -1
