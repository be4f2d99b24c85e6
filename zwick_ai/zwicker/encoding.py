"""The encoding of a Zwicker position for a player, as the OpenSpiel ``zwicker`` game's observation
and information-state tensors (the pieces and their meaning: :mod:`zwick_ai.games.zwicker`) and the
vector environments' observations: the pieces, their shapes for a rule set, and the kernel that
fills them from a hand's array (:mod:`zwick_ai.zwicker.history`) and the game table ``G``.
"""

from __future__ import annotations

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.codec import (
    CD_D,
    CD_DECK,
    CD_DIDX,
    CD_J,
    CD_OFS_INDEX,
    CODEC_SIZE,
    Codec,
)
from zwick_ai.zwicker.history import (
    DEST_TABLE,
    GB_CD,
    L_ANCHOR,
    L_ANSWER,
    L_CARD,
    L_KIND,
    L_OWNER,
    L_SEAT,
    L_VALUE,
    LOGW,
    SS,
    X_CAPT,
    X_CDEST,
    X_CUT,
    X_DEAL_STAGE,
    X_DEALER,
    X_DEALT,
    X_LOG,
    X_NCUT,
    X_NPLY,
    X_PLEN,
    X_PREFIX,
    X_TABLE_STAGE,
    XB,
)
from zwick_ai.zwicker.rules import Rules

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
    d, p, ns, j, a = codec.deck_size, rules.players, rules.num_sides, codec.num_ask_offsets, codec.num_actions
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


@kernel
def fill_k(G, a, OFF, p, out):
    """Write the observation (and, when the history pieces have offsets, the information state)."""
    fill_into_k(G, a, OFF, p, out, np.empty(G[layout.R_NSIDES], np.int64))


@kernel(nrt=False)
def fill_into_k(G, a, OFF, p, out, sc):
    """:func:`fill_k` with ``sc`` (int64, one entry per side) as the score scratch: allocates nothing
    (and runs without reference counting)."""
    R = G[: layout.RULES_SIZE]
    CD = G[GB_CD : GB_CD + CODEC_SIZE]
    S = a[:SS]
    X = a[XB:]
    D = CD[CD_D]
    players = R[layout.R_PLAYERS]
    ns = R[layout.R_NSIDES]
    J = CD[CD_J] if OFF[P_ASKED] >= 0 or OFF[P_ASK_BEFORE] >= 0 else 0
    out[:] = 0.0
    if OFF[P_PLAYER] >= 0:
        out[OFF[P_PLAYER] + p] = 1.0
    dealt = X[X_DEALT] == 1
    over = S[layout.S_PHASE] == layout.PHASE_OVER
    if OFF[P_CURRENT] >= 0:
        if not dealt:
            out[OFF[P_CURRENT] + players] = 1.0
        elif over:
            out[OFF[P_CURRENT] + players + 1] = 1.0
        else:
            out[OFF[P_CURRENT] + S[layout.S_TO_MOVE]] = 1.0
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
        out[OFF[P_PHASE] + S[layout.S_PHASE]] = 1.0
    if OFF[P_STAGE] >= 0:
        out[OFF[P_STAGE]] = S[layout.S_STAGE]
    if OFF[P_HAND_SIZES] >= 0:
        for q in range(players):
            out[OFF[P_HAND_SIZES] + q] = S[layout.S_HAND_N + q]
    if OFF[P_STOCK] >= 0:
        out[OFF[P_STOCK]] = S[layout.S_STOCK_LEN] - S[layout.S_STOCK_TOP]
    sc[:ns] = 0  # each side's card points, summed in the deck's pass below
    for i in range(D):
        c = CD[CD_DECK + i]
        loc = S[layout.S_LOC + c]
        if loc == layout.LOC_HAND + p and OFF[P_HAND] >= 0:
            out[OFF[P_HAND] + i] = 1.0
        elif loc == layout.LOC_TABLE and OFF[P_TABLE] >= 0:
            anc = S[layout.S_ANCHOR + c]
            if S[layout.S_UBUILD + anc]:
                out[OFF[P_TABLE] + 2 * i + 1] = 1.0
                if anc == c:
                    if OFF[P_BUILD_VALUE] >= 0:
                        out[OFF[P_BUILD_VALUE] + i] = S[layout.S_UVALUE + c]
                    if OFF[P_BUILD_OWNER] >= 0 and S[layout.S_UOWNER + c] >= 0:
                        out[OFF[P_BUILD_OWNER] + i * players + S[layout.S_UOWNER + c]] = 1.0
            else:
                out[OFF[P_TABLE] + 2 * i] = 1.0
        elif loc >= layout.LOC_WON and loc < layout.LOC_WON + ns:
            sc[loc - layout.LOC_WON] += R[layout.R_POINTS + c]
            if OFF[P_WON] >= 0:
                out[OFF[P_WON] + i * ns + loc - layout.LOC_WON] = 1.0
        if OFF[P_DEALT_TO_ME] >= 0 and S[layout.S_DEALT_TO + c] == p and X[X_DEAL_STAGE + c] >= 0:
            out[OFF[P_DEALT_TO_ME] + i] = X[X_DEAL_STAGE + c] + 1.0
        if OFF[P_TABLE_DEALT] >= 0:
            out[OFF[P_TABLE_DEALT] + i] = X[X_TABLE_STAGE + c]
        if OFF[P_CAPTURED_AT] >= 0:
            out[OFF[P_CAPTURED_AT] + i] = X[X_CAPT + c]
    if OFF[P_WON_COUNT] >= 0 or OFF[P_SCORE] >= 0 or OFF[P_ZWICKS] >= 0:
        kernels.add_bonuses(R, S, sc)
        for s in range(ns):
            if OFF[P_WON_COUNT] >= 0:
                out[OFF[P_WON_COUNT] + s] = S[layout.S_WON_N + s]
            if OFF[P_ZWICKS] >= 0:
                out[OFF[P_ZWICKS] + s] = S[layout.S_ZWICKS + s]
            if OFF[P_SCORE] >= 0:
                out[OFF[P_SCORE] + s] = sc[s]
    if OFF[P_LAST_CAPT] >= 0 and S[layout.S_LAST_CAPT] >= 0:
        out[OFF[P_LAST_CAPT] + S[layout.S_LAST_CAPT]] = 1.0
    if OFF[P_ASKED] >= 0 and S[layout.S_ASK_Q] >= 0:
        j = CD[CD_OFS_INDEX + (S[layout.S_ASK_Q] - S[layout.S_TO_MOVE]) % players]
        out[OFF[P_ASKED] + j] = 1.0
        out[OFF[P_ASKED] + J] = S[layout.S_ASK_N]
        out[OFF[P_ASKED] + J + 1] = S[layout.S_ASK_ANS]
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
        if kind == layout.KIND_ASK:
            pend = t
            continue
        i = CD[CD_DIDX + X[e + L_CARD]]
        out[OFF[P_PLAYED_AT] + i] = t + 1.0
        out[OFF[P_PLAYED_BY] + i * players + seat] = 1.0
        out[OFF[P_PLAY_KIND] + i * 3 + kind] = 1.0
        out[OFF[P_PLAY_VALUE] + i] = X[e + L_VALUE]
        if kind == layout.KIND_BUILD:
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
