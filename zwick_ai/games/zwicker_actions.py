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
    CD_PLAY,
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
    L_PHASE,
    L_SEAT,
    L_STAGE,
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
    KIND_CAPTURE,
    KIND_TRAIL,
    LOC_HAND,
    LOC_STOCK,
    LOC_TABLE,
    LOC_WON,
    M_CARD,
    M_KIND,
    M_MASK,
    M_OWNER,
    M_TARGET,
    M_VALUE,
    MAX_HAND,
    MAX_PLAYERS,
    MOVE_WIDTH,
    NC,
    R_CUT_RANK,
    R_DECK_SIZE,
    R_FIRST_DEALER,
    R_NSIDES,
    R_OWNER_BUILDS,
    R_PLAYERS,
    R_SIDE_OF,
    R_SUBTRACT_EITHER,
    R_VAL1,
    R_VAL2,
    RULES_SIZE,
    S_ANCHOR,
    S_ASK_ANS,
    S_ASK_N,
    S_ASK_Q,
    S_AZ_LEFT,
    S_DEALT_TO,
    S_HAND_N,
    S_HANDS,
    S_LAST_CAPT,
    S_LOC,
    S_NUNITS,
    S_PHASE,
    S_STAGE,
    S_STOCK,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_TO_MOVE,
    S_UBUILD,
    S_UNITS,
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


# ---- resampling ------------------------------------------------------------------------------------
@njit(cache=True)
def _stage_start(a):
    """First ply of the current stage (plies logged in the current stage are the last ones)."""
    X = a[XB:]
    stage = a[S_STAGE]
    t = X[X_NPLY]
    while t > 0 and X[X_LOG + (t - 1) * LOGW + L_STAGE] == stage:
        t -= 1
    return t


@njit(cache=True)
def _row_legal_fast(R, Sw, row, W):
    """Legality of the logged move ``row`` for the player to move in a resampled world, decided
    from its world-dependent conditions only: 1 legal, 0 illegal, -1 undecided (use the engine).

    In the owner variants (no forced capture, no identical copies) a capture set, a build value
    and a trail are legal or not by public facts, which are the same in every world consistent
    with the history; what depends on the hidden cards is the card being in hand and the owner's
    duty of the mover (and, for a build for partner, of the partner), exactly as
    ``kernels.gen_moves_ws``/``gen_builds`` test them. Questions and the classic/grupp variants
    (forced capture, identical copies) are left to the engine's move generator."""
    kind = row[M_KIND]
    if R[R_OWNER_BUILDS] == 0 or kind == KIND_ASK:
        return -1
    q = Sw[S_TO_MOVE]
    c = row[M_CARD]
    held = False
    for i in range(Sw[S_HAND_N + q]):
        if Sw[S_HANDS + q * MAX_HAND + i] == c:
            held = True
            break
    if not held:
        return 0
    if kind == KIND_CAPTURE:
        return 1 if K.duty_ok(R, Sw, q, row[M_MASK], 0, c, W) else 0
    if kind == KIND_TRAIL:
        return 1 if K.duty_ok(R, Sw, q, 0, 0, c, W) else 0
    target = row[M_TARGET]
    excl = np.int64(1) << target if target >= 0 else np.int64(0)
    v = row[M_VALUE]
    owner = row[M_OWNER]
    if owner == q:
        return 1 if K.duty_ok(R, Sw, q, excl, v, c, W) else 0
    if not K.duty_ok(R, Sw, q, excl, 0, c, W):
        return 0
    q_excl = excl if target >= 0 and Sw[S_UOWNER + Sw[S_UNITS + target]] == owner else np.int64(0)
    return 1 if K.duty_ok(R, Sw, owner, q_excl, v, -1, W) else 0


@njit(cache=True)
def _row_legal_full(R, Sw, row, W):
    rows = K.legal_moves(R, Sw, W)
    for i in range(rows.shape[0]):
        if (
            rows[i, M_KIND] == row[M_KIND]
            and rows[i, M_CARD] == row[M_CARD]
            and rows[i, M_VALUE] == row[M_VALUE]
            and rows[i, M_MASK] == row[M_MASK]
            and rows[i, M_TARGET] == row[M_TARGET]
            and rows[i, M_OWNER] == row[M_OWNER]
        ):
            return 1
    return 0


@njit(cache=True)
def _replay_ok(R, a, CD, S0w, t0, W, full=False):
    """Replay plies t0.. from ``S0w``: same turn order and phases, every move legal, the same
    answers to questions, and the current partial move still completable. Returns the final
    engine state, or an empty array. ``full`` checks every move with the engine's generator."""
    S = a[:SS]
    X = a[XB:]
    Sw = S0w.copy()
    bad = Sw[:0]
    row = np.zeros(MOVE_WIDTH, np.int64)
    for t in range(t0, X[X_NPLY]):
        e = X_LOG + t * LOGW
        if Sw[S_PHASE] != X[e + L_PHASE] or Sw[S_TO_MOVE] != X[e + L_SEAT]:
            return bad
        logged_row_into(X, t, row)
        ok = -1 if full else _row_legal_fast(R, Sw, row, W)
        if ok == -1:
            ok = _row_legal_full(R, Sw, row, W)
        if ok == 0:
            return bad
        K.apply_move(R, Sw, row, W)
        if X[e + L_KIND] == KIND_ASK and Sw[S_ASK_ANS] != X[e + L_ANSWER]:
            return bad
    for f in (S_PHASE, S_TO_MOVE, S_AZ_LEFT, S_ASK_Q, S_ASK_N, S_ASK_ANS, S_STAGE):
        if Sw[f] != S[f]:
            return bad
    if S[S_PHASE] != PHASE_OVER and X[X_PLEN] > 0:
        M = turn_matrix(R, Sw, CD, X[X_PREFIX : X_PREFIX + MAXTOK], X[X_PLEN], W)
        if M.shape[0] == 0:
            return bad
    return Sw


@njit(cache=True)
def _stage_start_state(R, a, t0, W):
    """The engine state when the current stage began: the deal replayed with the logged moves."""
    X = a[XB:]
    S = K.empty_state(R)
    n = R[R_DECK_SIZE]
    order = np.empty(n, np.int64)
    for i in range(n):
        order[i] = X[X_ORDER + i]
    K.start_hand(R, S, order, X[X_DEALER], W)
    row = np.zeros(MOVE_WIDTH, np.int64)
    for t in range(t0):
        logged_row_into(X, t, row)
        K.apply_move(R, S, row, W)
    return S


@njit(cache=True)
def _world(R, a, S0, S0w, p, pinned, pinned_seat, t0, cards, hidden, need):
    """Write into ``S0w`` the stage start ``S0`` with the hidden seats' hands given by ``cards``
    (first ``need[q]`` cards for each hidden seat ``q`` in ``hidden``, then the stock)."""
    S = a[:SS]
    X = a[XB:]
    S0w[:] = S0
    k = 0
    for h in range(hidden.shape[0]):
        q = hidden[h]
        S0w[S_HAND_N + q] = 0
        for _ in range(need[h]):
            c = cards[k]
            k += 1
            K.hand_insert(S0w, q, c)
            S0w[S_DEALT_TO + c] = q
        if q == pinned_seat:
            K.hand_insert(S0w, q, pinned)
            S0w[S_DEALT_TO + pinned] = q
        for t in range(t0, X[X_NPLY]):
            e = X_LOG + t * LOGW
            if X[e + L_SEAT] == q and X[e + L_KIND] != KIND_ASK:
                c = X[e + L_CARD]
                K.hand_insert(S0w, q, c)
                S0w[S_DEALT_TO + c] = q
    top = S[S_STOCK_TOP]
    for pos in range(top, S[S_STOCK_LEN]):
        c = cards[k]
        k += 1
        S0w[S_STOCK + pos] = c
        S0w[S_LOC + c] = LOC_STOCK
        S0w[S_DEALT_TO + c] = -1


@njit(cache=True)
def _owned_values(S, x):
    """Bit mask of the values of the builds seat ``x`` owns."""
    m = np.int64(0)
    for u in range(S[S_NUNITS]):
        an = S[S_UNITS + u]
        if S[S_UBUILD + an] and S[S_UOWNER + an] == x:
            m |= np.int64(1) << S[S_UVALUE + an]
    return m


@njit(cache=True)
def _covers(R, cards, n, vmask, choice):
    """The owner's-duty test: the distinct values in ``vmask`` match distinct cards of ``cards[:n]``."""
    nv = 0
    vals = np.empty(64, np.int64)
    for v in range(64):
        if (vmask >> v) & 1:
            vals[nv] = v
            nv += 1
    if nv == 0:
        return True
    if nv > n:
        return False
    for k in range(nv):
        choice[k] = -1
    used = np.int64(0)
    i = 0
    while i >= 0:
        if i == nv:
            return True
        j = choice[i]
        if j >= 0:
            used &= ~(np.int64(1) << j)
        j += 1
        while j < n and (((used >> j) & 1) or not K.card_has_value(R, cards[j], vals[i])):
            j += 1
        if j < n:
            choice[i] = j
            used |= np.int64(1) << j
            i += 1
            if i < nv:
                choice[i] = -1
        else:
            choice[i] = -1
            i -= 1
    return False


@njit(cache=True)
def _produces(R, S, c, n):
    """True when card ``c`` could make a build of value ``n`` on the table ``S`` (new, or on some
    unit with +, -, or the same value), ignoring the holding requirement: the public half of the
    condition under which the engine offers a question about ``n`` (``kernels.gen_builds``)."""
    v1 = R[R_VAL1 + c]
    v2 = R[R_VAL2 + c]
    either = R[R_SUBTRACT_EITHER] == 1
    for x in range(2):
        q = v1 if x == 0 else v2
        if q <= 0:
            continue
        if q == n:
            return True
        for u in range(S[S_NUNITS]):
            an = S[S_UNITS + u]
            for y in range(2):
                if S[S_UBUILD + an]:
                    if y == 1:
                        break
                    o = S[S_UVALUE + an]
                else:
                    o = R[R_VAL1 + an] if y == 0 else R[R_VAL2 + an]
                    if o <= 0:
                        continue
                if o + q == n or o - q == n or (either and q - o == n) or (q == o and o == n):
                    return True
    return False


@njit(cache=True)
def _constraints(R, a, S0, t0, W):
    """Necessary conditions that the current stage's history puts on hidden holdings, found by
    replaying its public moves once (owner variants). Rows (kind, seat, ply, a, b, expected):
    kind 0, "after this ply the seat's holding passes the owner's-duty test for the build values
    in mask ``a``" (every move, a build's new owner, and each Magger answer with the asked value
    added, holding at the question); kind 1, "at this question the asker held one of the cards in
    the mask (a: ids 0..62, b: ids 63..125)" that could make a build of the asked value."""
    X = a[XB:]
    n = X[X_NPLY] - t0
    out = np.zeros((3 * n + 1, 6), np.int64)
    if R[R_OWNER_BUILDS] == 0:
        return out[:0]
    Sw = S0.copy()
    row = np.zeros(MOVE_WIDTH, np.int64)
    k = 0
    for t in range(t0, X[X_NPLY]):
        e = X_LOG + t * LOGW
        logged_row_into(X, t, row)
        kind = row[M_KIND]
        seat = X[e + L_SEAT]
        if kind == KIND_ASK:
            x = X[e + L_OWNER]
            v = X[e + L_VALUE]
            out[k, 0], out[k, 1], out[k, 2] = 0, x, t
            out[k, 3] = _owned_values(Sw, x) | (np.int64(1) << v)
            out[k, 5] = X[e + L_ANSWER]
            k += 1
            lo = np.int64(0)
            hi = np.int64(0)
            for c in range(NC):
                if R[R_VAL1 + c] > 0 and _produces(R, Sw, c, v):
                    if c < 63:
                        lo |= np.int64(1) << c
                    else:
                        hi |= np.int64(1) << (c - 63)
            out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 4], out[k, 5] = 1, seat, t, lo, hi, 1
            k += 1
        K.apply_move(R, Sw, row, W)
        if kind != KIND_ASK:
            out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 5] = 0, seat, t, _owned_values(Sw, seat), 1
            k += 1
            if kind == KIND_BUILD and X[e + L_OWNER] != seat:
                x = X[e + L_OWNER]
                out[k, 0], out[k, 1], out[k, 2], out[k, 3], out[k, 5] = 0, x, t, _owned_values(Sw, x), 1
                k += 1
    return out[:k]


@njit(cache=True)
def _later_cards(a, cons):
    """For each constraint row: the cards its seat played after its ply (flat, with offsets)."""
    X = a[XB:]
    n = cons.shape[0]
    start = np.zeros(n + 1, np.int64)
    flat = np.empty(max(1, n * 32), np.int64)
    k = 0
    for r in range(n):
        start[r] = k
        for t in range(cons[r, 2] + 1, X[X_NPLY]):
            e = X_LOG + t * LOGW
            if X[e + L_SEAT] == cons[r, 1] and X[e + L_KIND] != KIND_ASK:
                if k >= flat.shape[0]:
                    bigger = np.empty(2 * flat.shape[0], np.int64)
                    bigger[:k] = flat[:k]
                    flat = bigger
                flat[k] = X[e + L_CARD]
                k += 1
    start[n] = k
    return start, flat


@njit(cache=True)
def _prefilter(R, cons, later, flat, cards, hidden, need, pinned, pinned_seat, buf, choice):
    """True when the drawn hands pass every constraint of :func:`_constraints` (a seat's holding
    after ply t = its drawn hand plus the cards it played later in the stage)."""
    start = 0
    for h in range(hidden.shape[0]):
        q = hidden[h]
        base = 0
        for j in range(need[h]):
            buf[base] = cards[start + j]
            base += 1
        if q == pinned_seat:
            buf[base] = pinned
            base += 1
        for r in range(cons.shape[0]):
            if cons[r, 1] != q:
                continue
            n = base
            for k in range(later[r], later[r + 1]):
                buf[n] = flat[k]
                n += 1
            if cons[r, 0] == 0:
                if _covers(R, buf, n, cons[r, 3], choice) != (cons[r, 5] == 1):
                    return False
            else:
                hit = False
                for j in range(n):
                    c = buf[j]
                    if (cons[r, 3] >> c) & 1 if c < 63 else (cons[r, 4] >> (c - 63)) & 1:
                        hit = True
                        break
                if not hit:
                    return False
        start += need[h]
    return True


@njit(cache=True)
def resample_setup(G, a, p, W):
    """What stays fixed while worlds are drawn for player ``p`` from the state array ``a``: the
    tuple ``(hidden, need, truth, pinned, pinned_seat, t0, S0, cons, later, flat)`` that
    :func:`resample_draw` and :func:`resample_chain` take.

    - ``hidden``: the other seats holding cards; ``need``: the cards each of them gets;
    - ``truth``: the true hidden cards in slot order (each hidden seat's hand, then the stock
      positions in order), a consistent assignment to start the Markov chain from;
    - ``pinned``, ``pinned_seat``: the card the mover already chose in a partial move (it stays
      with the mover and is not drawn) and the mover, or -1, -1;
    - ``t0``: the first ply of the current stage; ``S0``: the engine state at that ply;
    - ``cons``: the cheap necessary conditions of :func:`_constraints`; ``later``, ``flat``: the
      cards each constrained seat played later in the stage (:func:`_later_cards`)."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    players = R[R_PLAYERS]
    mover = S[S_TO_MOVE]
    pinned = -1
    pinned_seat = -1
    if S[S_PHASE] != PHASE_OVER and X[X_PLEN] > 0 and mover != p:
        tok = X[X_PREFIX]
        if tok >= CD[CD_PLAY] and tok < CD[CD_PLAY] + D:
            pinned = CD[CD_DECK + tok - CD[CD_PLAY]]
            pinned_seat = mover
    nh = 0
    for q in range(players):
        if q != p and S[S_HAND_N + q] > 0:
            nh += 1
    hidden = np.empty(nh, np.int64)
    need = np.empty(nh, np.int64)
    h = 0
    for q in range(players):
        if q != p and S[S_HAND_N + q] > 0:
            hidden[h] = q
            need[h] = S[S_HAND_N + q] - (1 if q == pinned_seat else 0)
            h += 1
    nstock = S[S_STOCK_LEN] - S[S_STOCK_TOP]
    truth = np.empty(need.sum() + nstock, np.int64)
    k = 0
    for h in range(nh):
        q = hidden[h]
        for i in range(S[S_HAND_N + q]):
            c = S[S_HANDS + q * MAX_HAND + i]
            if c != pinned:
                truth[k] = c
                k += 1
    for pos in range(S[S_STOCK_TOP], S[S_STOCK_LEN]):
        truth[k] = S[S_STOCK + pos]
        k += 1
    t0 = _stage_start(a)
    S0 = _stage_start_state(R, a, t0, W)
    cons = _constraints(R, a, S0, t0, W)
    later, flat = _later_cards(a, cons)
    return hidden, need, truth, pinned, pinned_seat, t0, S0, cons, later, flat


@njit(cache=True)
def _setup_ok(R, setup, cards, buf, choice):
    """True when the slot assignment ``cards`` passes the cheap constraints of ``setup``."""
    hidden, need, _, pinned, pinned_seat, _, _, cons, later, flat = setup
    return _prefilter(R, cons, later, flat, cards, hidden, need, pinned, pinned_seat, buf, choice)


@njit(cache=True)
def resample_world(G, a, p, setup, cards, S0w, W):
    """The current engine state of the world whose hidden slots hold ``cards`` (``setup`` from
    :func:`resample_setup`; ``S0w`` is scratch of the stage-start state's size), or an empty
    array when the current stage does not replay identically in it (:func:`_replay_ok`)."""
    R = G[:RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    hidden, need, _, pinned, pinned_seat, t0, S0, _, _, _ = setup
    _world(R, a, S0, S0w, p, pinned, pinned_seat, t0, cards, hidden, need)
    return _replay_ok(R, a, CD, S0w, t0, W)


@njit(cache=True)
def resample_draw(G, a, p, setup, cards, tries, W):
    """Exact rejection sampling: permute ``cards`` (in place, each draw a uniform permutation of
    the hidden cards into the slots) until the current stage replays identically, at most
    ``tries`` times. Returns (draws made, the accepted world's engine state or an empty array).
    The necessary conditions of :func:`_constraints` are tested first because they are cheap."""
    R = G[:RULES_SIZE]
    total = cards.shape[0]
    buf = np.empty(NC + 8, np.int64)
    choice = np.empty(64, np.int64)
    S0w = setup[6].copy()
    for n in range(tries):
        for i in range(total - 1, 0, -1):
            j = np.random.randint(i + 1)
            cards[i], cards[j] = cards[j], cards[i]
        if not _setup_ok(R, setup, cards, buf, choice):
            continue
        Sw = resample_world(G, a, p, setup, cards, S0w, W)
        if Sw.shape[0] > 0:
            return n + 1, Sw
    return tries, S0w[:0]


@njit(cache=True)
def resample_chain(G, a, p, setup, cards, steps, W):
    """``steps`` proposed swaps of a Markov chain on consistent slot assignments: ``cards`` (in
    place, consistent on entry) swaps two slots of different seats (or two stock positions) and
    keeps the swap only when the world stays consistent."""
    R = G[:RULES_SIZE]
    need = setup[1]
    nh = need.shape[0]
    total = cards.shape[0]
    buf = np.empty(NC + 8, np.int64)
    choice = np.empty(64, np.int64)
    S0w = setup[6].copy()
    slot = np.empty(total, np.int64)
    k = 0
    for h in range(nh):
        for _ in range(need[h]):
            slot[k] = h
            k += 1
    while k < total:
        slot[k] = nh
        k += 1
    if total > 1:
        for _ in range(steps):
            i = np.random.randint(total)
            j = np.random.randint(total)
            if slot[i] == slot[j] and slot[i] < nh:
                continue
            cards[i], cards[j] = cards[j], cards[i]
            ok = _setup_ok(R, setup, cards, buf, choice)
            if ok:
                ok = resample_world(G, a, p, setup, cards, S0w, W).shape[0] > 0
            if not ok:
                cards[i], cards[j] = cards[j], cards[i]


@njit(cache=True)
def resample_k(G, a, p, seed, max_tries, mcmc_steps, W):
    """Draw the hidden cards for player ``p``. Returns (status, hidden seats, cards): status 1 =
    exact rejection sample (:func:`resample_draw`), 2 = Markov-chain fallback
    (:func:`resample_chain` from the true deal); ``cards`` lists each hidden seat's current hand
    (``need`` cards each, the pinned card excluded) and then the stock positions in order.
    Accepting exactly the consistent draws makes this exact rejection sampling."""
    np.random.seed(seed)
    setup = resample_setup(G, a, p, W)
    hidden, truth = setup[0], setup[2]
    cards = truth.copy()
    if resample_draw(G, a, p, setup, cards, max_tries, W)[1].shape[0] > 0:
        return 1, hidden, cards
    cards = truth.copy()
    resample_chain(G, a, p, setup, cards, mcmc_steps, W)
    return 2, hidden, cards
