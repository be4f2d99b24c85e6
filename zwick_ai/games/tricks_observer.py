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
from zwick_ai.tricks import layout as tricks_layout

NPHASES = len(tricks_layout.PHASE_NAMES)
#: length of the observation tensor
OBSERVATION_SIZE = (
    tricks_layout.NP
    + tricks_layout.NP
    + (tricks_layout.NP + 2)
    + NPHASES
    + tricks_layout.NC
    + tricks_layout.NC
    + 4
    + tricks_layout.NC
    + tricks_layout.NC
    + tricks_layout.NP * tricks_layout.NC
    + tricks_layout.NP
    + tricks_layout.NP * 3
    + tricks_layout.NP * 5
    + tricks_layout.NP
    + tricks_layout.NP * 4
    + tricks_layout.NP
    + tricks_layout.NP
    + 1
    + tricks_layout.NP
    + 4
)


def information_state_size(steps: int) -> int:
    """Length of the information-state tensor of a game of at most ``steps`` moves."""
    return tricks_layout.NP + tricks_layout.NC + steps * tricks_layout.TOKEN


@numba.njit(cache=True)
def _field(a, p, k):
    return a[tricks_layout.S_PLAYERS + k * tricks_layout.NP + p]


@numba.njit(cache=True)
def fill_observation_k(a, player, out):
    """Write ``player``'s observation tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    o = tricks_layout.NP
    out[o + a[tricks_layout.S_DEALER]] = 1.0
    o += tricks_layout.NP
    cur = a[tricks_layout.S_CUR]
    out[o + (cur if cur >= 0 else tricks_layout.NP + (0 if cur == tricks_layout.CUR_CHANCE else 1))] = 1.0
    o += tricks_layout.NP + 2
    out[o + a[tricks_layout.S_PHASE]] = 1.0
    o += NPHASES
    for c in range(tricks_layout.NC):
        if a[tricks_layout.S_LOC + c] == tricks_layout.L_HAND + player:
            out[o + c] = 1.0
    o += tricks_layout.NC
    for k in range(a[tricks_layout.S_NUP]):
        out[o + a[tricks_layout.S_UP + k]] = 1.0
    o += tricks_layout.NC
    if a[tricks_layout.S_TRUMP] >= 0:
        out[o + a[tricks_layout.S_TRUMP]] = 1.0
    o += 4
    if a[tricks_layout.S_CUTCARD] >= 0:
        out[o + a[tricks_layout.S_CUTCARD]] = 1.0
    o += tricks_layout.NC
    for c in range(tricks_layout.NC):
        if a[tricks_layout.S_LOC + c] == tricks_layout.L_PLAYED:
            out[o + c] = 1.0
    o += tricks_layout.NC
    trick = o
    face_down = trick + tricks_layout.NP * tricks_layout.NC
    status = face_down + tricks_layout.NP
    bid = status + tricks_layout.NP * 3
    announced = bid + tricks_layout.NP * 5
    tricks = announced + tricks_layout.NP
    points = tricks + tricks_layout.NP * 4
    net = points + tricks_layout.NP
    pot = net + tricks_layout.NP
    speler = pot + 1
    searches = speler + tricks_layout.NP
    for p in range(a[tricks_layout.S_N]):
        card = _field(a, p, tricks_layout.P_TCARD)
        if card >= 0:
            if _field(a, p, tricks_layout.P_TFD):
                out[face_down + p] = 1.0
            else:
                out[trick + p * tricks_layout.NC + card] = 1.0
        out[status + p * 3 + _field(a, p, tricks_layout.P_STATUS)] = 1.0
        out[bid + p * 5 + _field(a, p, tricks_layout.P_BID)] = 1.0
        out[announced + p] = 1.0 if _field(a, p, tricks_layout.P_ANN) else 0.0
        out[tricks + p * 4 + _field(a, p, tricks_layout.P_TRICKS)] = 1.0
        out[points + p] = _field(a, p, tricks_layout.P_POINTS)
        out[net + p] = _field(a, p, tricks_layout.P_NET)
    out[pot] = a[tricks_layout.S_POT]
    if a[tricks_layout.S_SPELER] >= 0:
        out[speler + a[tricks_layout.S_SPELER]] = 1.0
    out[searches + a[tricks_layout.S_NSEARCH]] = 1.0


@numba.njit(cache=True)
def fill_information_state_k(a, player, out):
    """Write ``player``'s information-state tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    for c in range(tricks_layout.NC):
        if a[tricks_layout.S_LOC + c] == tricks_layout.L_HAND + player:
            out[tricks_layout.NP + c] = 1.0
    steps = (out.shape[0] - tricks_layout.NP - tricks_layout.NC) // tricks_layout.TOKEN
    trick_kernels.fill_info_tokens(
        a, player, out[tricks_layout.NP + tricks_layout.NC :].reshape((steps, tricks_layout.TOKEN))
    )
