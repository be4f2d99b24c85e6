"""The Zwicker hand with its history, as one int32 array: the engine state (:mod:`zwick_ai.zwicker.layout`)
followed by the record of the deal (dealer, cut, deck order, where each card was dealt) and one
log row per whole move (``L_*`` fields), the state array of the OpenSpiel ``zwicker`` game
(:mod:`zwick_ai.games.zwicker`) and the input of the resampler (:mod:`zwick_ai.zwicker.worlds`).
Also the start of the game's read-only table ``G``: the rules array, then the codec
(:mod:`zwick_ai.zwicker.codec`); what follows is the OpenSpiel wrapper's chance layout.
Nothing here imports OpenSpiel.
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel, reader
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.codec import (
    CD_D,
    CD_DECK,
    CODEC_SIZE,
)

# ---- the state array: [engine state | extras] -------------------------------------------------------
SS = layout.STATE_SIZE
XB = SS  # extras
X_DEALER = 0  # -1 until the dealer is known
X_NCUT = 1  # cards cut so far
X_GROUP = 2  # deal group being dealt
X_GFILL = 3  # cards of that group dealt so far
X_GLAST = 4  # deck index of the group's last card, -1
X_DEALT = 5  # 1 once the engine has dealt stage 0
X_NPLY = 6  # whole moves (and questions) so far
X_PLEN = 7  # sub-actions chosen so far in the current move
X_NCHANCE = 8  # chance outcomes so far
MAXTOK = 72
X_PREFIX = 16
X_CUT = X_PREFIX + MAXTOK  # card ids in the order cut
X_ORDER = X_CUT + layout.NC  # deck order (card ids, next dealt first), -1 unset
X_ASSIGNED = X_ORDER + layout.NC  # per card: placed by a chance outcome
X_CDEST = X_ASSIGNED + layout.NC  # per card: stage-0 destination seat, DEST_TABLE, or -1
X_DEAL_STAGE = X_CDEST + layout.NC  # per card: stage it was dealt in (hand or table), -1 in stock
X_TABLE_STAGE = X_DEAL_STAGE + layout.NC  # per card: stage + 1 it was dealt to the table, 0
X_CAPT = X_TABLE_STAGE + layout.NC  # per card: ply + 1 it was captured, 0
X_PLAYPLY = X_CAPT + layout.NC  # per card: ply + 1 it was played, 0
MAXPLY = 2 * layout.NC + 8
LOGW = 14
X_LOG = X_PLAYPLY + layout.NC  # per ply: the fields L_*
L_SEAT, L_KIND, L_CARD, L_VALUE, L_MASKLO, L_MASKHI, L_TARGET, L_ANCHOR = 0, 1, 2, 3, 4, 5, 6, 7
L_OWNER, L_ZWICK, L_ANSWER, L_NTOK, L_STAGE, L_PHASE = 8, 9, 10, 11, 12, 13
XSIZE = X_LOG + MAXPLY * LOGW
ASIZE = XB + XSIZE
DEST_TABLE = -2
DEST_UNKNOWN = -3


# ---- the game's read-only table G (int32): [rules array | codec | the wrapper's chance layout] ----
GB_CD = layout.RULES_SIZE
GB_CH = GB_CD + CODEC_SIZE


# ---- readers of the state array ``a`` (code outside the engine reads the history through these) ----


def initial_array(R: np.ndarray, plies: int) -> np.ndarray:
    """The state array of a hand before the deal (dealer unknown, nothing cut, ordered or dealt),
    with room for ``plies`` log rows; ``R`` is the rules array."""
    a = np.zeros(XB + X_LOG + LOGW * plies, np.int32)
    a[:SS] = kernels.empty_state(R)
    x = a[XB:]
    x[X_DEALER] = -1
    x[X_GLAST] = -1
    for field in (X_CUT, X_ORDER, X_CDEST, X_DEAL_STAGE):
        x[field : field + layout.NC] = -1
    return a


@kernel(inline="always")
def extras(a):
    """The part of ``a`` after the engine state: the record of the deal and the move log (a view;
    what :func:`logged_row_into` and :func:`record_move` index as ``X``)."""
    return a[XB:]


@reader
def dealer(a):
    """The dealer's seat (-1 until it is known)."""
    return a[XB + X_DEALER]


@reader
def is_dealt(a):
    """The engine has dealt the first stage (the chance nodes of the deal are over)."""
    return a[XB + X_DEALT] != 0


@reader
def chance_count(a):
    """Chance outcomes so far."""
    return a[XB + X_NCHANCE]


@reader
def ply_count(a):
    """Whole moves (questions included) logged so far."""
    return a[XB + X_NPLY]


@kernel(inline="always")
def cut_cards(a):
    """The cards cut so far, in the order cut (a view)."""
    return a[XB + X_CUT : XB + X_CUT + a[XB + X_NCUT]]


@kernel(inline="always")
def deck_order(a):
    """The deck order, card ids next dealt first, -1 where not yet placed (a view of ``NC``
    entries: the deck's first ``D``)."""
    return a[XB + X_ORDER : XB + X_ORDER + layout.NC]


@kernel(inline="always")
def stage0_seats(a):
    """Per card id: the seat it was dealt to in the first stage, ``DEST_TABLE`` (to the table) or
    -1 (a view)."""
    return a[XB + X_CDEST : XB + X_CDEST + layout.NC]


@kernel(inline="always")
def deal_stages(a):
    """Per card id: the stage it was dealt in (to a hand or the table), -1 while in the stock (a view)."""
    return a[XB + X_DEAL_STAGE : XB + X_DEAL_STAGE + layout.NC]


@kernel(inline="always")
def table_stages(a):
    """Per card id: 1 + the stage it was dealt to the table in, 0 if not (a view)."""
    return a[XB + X_TABLE_STAGE : XB + X_TABLE_STAGE + layout.NC]


@kernel(inline="always")
def capture_plies(a):
    """Per card id: 1 + the ply it was captured in, 0 if not (a view)."""
    return a[XB + X_CAPT : XB + X_CAPT + layout.NC]


@kernel(inline="always")
def log_entry(a, t):
    """Log row ``t`` (``L_*`` fields) of whole move ``t`` (a view)."""
    e = XB + X_LOG + t * LOGW
    return a[e : e + LOGW]


@kernel
def _split_mask(mask):
    lo = mask & 0xFFFFFFFF
    hi = (mask >> 32) & 0xFFFFFFFF
    if lo >= 2**31:
        lo -= 2**32
    if hi >= 2**31:
        hi -= 2**32
    return lo, hi


@kernel
def _join_mask(lo, hi):
    return (np.int64(hi) << 32) | (np.int64(lo) & 0xFFFFFFFF)


@kernel
def logged_row_into(X, t, row):
    """Fill the engine move record ``row`` (``M_*`` columns) from log entry ``t`` of the history
    part ``X`` of a state array (one whole move or question per entry)."""
    e = X_LOG + t * LOGW
    row[layout.M_KIND] = X[e + L_KIND]
    row[layout.M_CARD] = X[e + L_CARD]
    row[layout.M_VALUE] = X[e + L_VALUE]
    row[layout.M_MASK] = _join_mask(X[e + L_MASKLO], X[e + L_MASKHI])
    row[layout.M_TARGET] = X[e + L_TARGET]
    row[layout.M_OWNER] = X[e + L_OWNER]
    row[layout.M_ZWICK] = X[e + L_ZWICK]
    row[layout.M_SPARE] = 0
    return row


@kernel(nrt=False)
def record_move(R, a, CD, row, ntok, W):
    """Log a whole move, apply it in the engine, note captures, new stages and the end sweep."""
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    t = X[X_NPLY]
    e = X_LOG + t * LOGW
    p = S[layout.S_TO_MOVE]
    stage = S[layout.S_STAGE]
    kind = row[layout.M_KIND]
    c = row[layout.M_CARD]
    X[e + L_SEAT] = p
    X[e + L_KIND] = kind
    X[e + L_CARD] = c
    X[e + L_VALUE] = row[layout.M_VALUE]
    lo, hi = _split_mask(row[layout.M_MASK])
    X[e + L_MASKLO] = lo
    X[e + L_MASKHI] = hi
    X[e + L_TARGET] = row[layout.M_TARGET]
    X[e + L_ANCHOR] = (
        S[layout.S_UNITS + row[layout.M_TARGET]] if (kind == layout.KIND_BUILD and row[layout.M_TARGET] >= 0) else -1
    )
    X[e + L_OWNER] = row[layout.M_OWNER]
    X[e + L_ZWICK] = row[layout.M_ZWICK]
    X[e + L_ANSWER] = -1
    X[e + L_NTOK] = ntok
    X[e + L_STAGE] = stage
    X[e + L_PHASE] = S[layout.S_PHASE]
    if kind != layout.KIND_ASK:
        X[X_PLAYPLY + c] = t + 1
    if kind == layout.KIND_CAPTURE:
        X[X_CAPT + c] = t + 1
        mask = row[layout.M_MASK]
        for i in range(S[layout.S_NUNITS]):
            if (mask >> i) & 1:
                x = S[layout.S_UNITS + i]
                while x != -1:
                    X[X_CAPT + x] = t + 1
                    x = S[layout.S_NEXT + x]
    kernels.apply_move(R, S, row, W)
    if kind == layout.KIND_ASK:
        X[e + L_ANSWER] = S[layout.S_ASK_ANS]
    X[X_NPLY] = t + 1
    X[X_PLEN] = 0
    if S[layout.S_PHASE] == layout.PHASE_OVER:
        for i in range(D):
            x = CD[CD_DECK + i]
            if S[layout.S_LOC + x] >= layout.LOC_WON and S[layout.S_LOC + x] < layout.LOC_STOCK and X[X_CAPT + x] == 0:
                X[X_CAPT + x] = t + 2
    elif S[layout.S_STAGE] != stage:
        for i in range(D):
            x = CD[CD_DECK + i]
            if X[X_DEAL_STAGE + x] < 0 and S[layout.S_LOC + x] != layout.LOC_STOCK:
                X[X_DEAL_STAGE + x] = S[layout.S_STAGE]
                if S[layout.S_LOC + x] == layout.LOC_TABLE:
                    X[X_TABLE_STAGE + x] = S[layout.S_STAGE] + 1
