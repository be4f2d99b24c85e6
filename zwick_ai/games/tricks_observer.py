"""The tensors of the trick games' OpenSpiel observer (:class:`zwick_ai.games.tricks_game.TricksObserver`)
as one compiled kernel: the observation (the visible position now) and the perfect-recall
information state (own hand and every observed event as a one-hot token).

Observation pieces, in order (``NP`` = 6 seats, ``NC`` = 52 cards): player NP, dealer NP,
to_move NP+2 (seat, chance, over), phase 11, hand NC, upcards NC, trump 4, cut NC, played NC,
trick NP x NC, trick_face_down NP, status NP x 3, bid NP x 5, announced NP, tricks NP x 4,
points NP, net NP, pot 1, speler NP, searches 4. Information state: player NP, hand NC, then
``max_game_length`` event rows of :data:`zwick_ai.tricks.layout.TOKEN` entries.
"""

from __future__ import annotations

import numba

from zwick_ai.tricks import kernels as trick_kernels
from zwick_ai.tricks.layout import (
    CUR_CHANCE,
    L_HAND,
    L_PLAYED,
    NC,
    NP,
    P_ANN,
    P_BID,
    P_NET,
    P_POINTS,
    P_STATUS,
    P_TCARD,
    P_TFD,
    P_TRICKS,
    PHASE_NAMES,
    S_CUR,
    S_CUTCARD,
    S_DEALER,
    S_LOC,
    S_N,
    S_NSEARCH,
    S_NUP,
    S_PHASE,
    S_PLAYERS,
    S_POT,
    S_SPELER,
    S_TRUMP,
    S_UP,
    TOKEN,
)

NPHASES = len(PHASE_NAMES)
#: length of the observation tensor
OBSERVATION_SIZE = (
    NP
    + NP
    + (NP + 2)
    + NPHASES
    + NC
    + NC
    + 4
    + NC
    + NC
    + NP * NC
    + NP
    + NP * 3
    + NP * 5
    + NP
    + NP * 4
    + NP
    + NP
    + 1
    + NP
    + 4
)


def information_state_size(steps: int) -> int:
    """Length of the information-state tensor of a game of at most ``steps`` moves."""
    return NP + NC + steps * TOKEN


@numba.njit(cache=True)
def _field(a, p, k):
    return a[S_PLAYERS + k * NP + p]


@numba.njit(cache=True)
def fill_observation_k(a, player, out):
    """Write ``player``'s observation tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    o = NP
    out[o + a[S_DEALER]] = 1.0
    o += NP
    cur = a[S_CUR]
    out[o + (cur if cur >= 0 else NP + (0 if cur == CUR_CHANCE else 1))] = 1.0
    o += NP + 2
    out[o + a[S_PHASE]] = 1.0
    o += NPHASES
    for c in range(NC):
        if a[S_LOC + c] == L_HAND + player:
            out[o + c] = 1.0
    o += NC
    for k in range(a[S_NUP]):
        out[o + a[S_UP + k]] = 1.0
    o += NC
    if a[S_TRUMP] >= 0:
        out[o + a[S_TRUMP]] = 1.0
    o += 4
    if a[S_CUTCARD] >= 0:
        out[o + a[S_CUTCARD]] = 1.0
    o += NC
    for c in range(NC):
        if a[S_LOC + c] == L_PLAYED:
            out[o + c] = 1.0
    o += NC
    trick = o
    face_down = trick + NP * NC
    status = face_down + NP
    bid = status + NP * 3
    announced = bid + NP * 5
    tricks = announced + NP
    points = tricks + NP * 4
    net = points + NP
    pot = net + NP
    speler = pot + 1
    searches = speler + NP
    for p in range(a[S_N]):
        card = _field(a, p, P_TCARD)
        if card >= 0:
            if _field(a, p, P_TFD):
                out[face_down + p] = 1.0
            else:
                out[trick + p * NC + card] = 1.0
        out[status + p * 3 + _field(a, p, P_STATUS)] = 1.0
        out[bid + p * 5 + _field(a, p, P_BID)] = 1.0
        out[announced + p] = 1.0 if _field(a, p, P_ANN) else 0.0
        out[tricks + p * 4 + _field(a, p, P_TRICKS)] = 1.0
        out[points + p] = _field(a, p, P_POINTS)
        out[net + p] = _field(a, p, P_NET)
    out[pot] = a[S_POT]
    if a[S_SPELER] >= 0:
        out[speler + a[S_SPELER]] = 1.0
    out[searches + a[S_NSEARCH]] = 1.0


@numba.njit(cache=True)
def fill_information_state_k(a, player, out):
    """Write ``player``'s information-state tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    for c in range(NC):
        if a[S_LOC + c] == L_HAND + player:
            out[NP + c] = 1.0
    steps = (out.shape[0] - NP - NC) // TOKEN
    trick_kernels.fill_info_tokens(a, player, out[NP + NC :].reshape((steps, TOKEN)))
