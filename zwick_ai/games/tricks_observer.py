"""The tensors of the trick games' OpenSpiel observer (:class:`zwick_ai.games.tricks_game.TricksObserver`)
as one compiled kernel: the observation (the visible position now) and the perfect-recall
information state (own hand and every observed event as a one-hot token).

Observation pieces, in order (``NP`` = 6 seats, ``NC`` = 52 cards): player NP, dealer NP,
to_move NP+2 (seat, chance, over), phase 11, hand NC, upcards NC, trump 4, cut NC, played NC,
trick NP x NC, trick_face_down NP, status NP x 3, bid NP x 5, announced NP, tricks NP x 4,
points NP, net NP, pot 1, speler NP, searches 4. Information state: player NP, hand NC, then
``max_game_length`` event rows of :data:`zwick_ai.tricks.arrays.TOKEN` entries.
"""

from __future__ import annotations

from zwick_ai.jit import kernel
from zwick_ai.tricks import arrays as ta
from zwick_ai.tricks import kernels as trick_kernels

NPHASES = len(ta.PHASE_NAMES)
#: length of the observation tensor
OBSERVATION_SIZE = (
    ta.NP
    + ta.NP
    + (ta.NP + 2)
    + NPHASES
    + ta.NC
    + ta.NC
    + 4
    + ta.NC
    + ta.NC
    + ta.NP * ta.NC
    + ta.NP
    + ta.NP * 3
    + ta.NP * 5
    + ta.NP
    + ta.NP * 4
    + ta.NP
    + ta.NP
    + 1
    + ta.NP
    + 4
)


def information_state_size(steps: int) -> int:
    """Length of the information-state tensor of a game of at most ``steps`` moves."""
    return ta.NP + ta.NC + steps * ta.TOKEN


@kernel
def fill_observation_k(a, player, out):
    """Write ``player``'s observation tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    o = ta.NP
    out[o + ta.dealer(a)] = 1.0
    o += ta.NP
    cur = ta.to_move(a)
    out[o + (cur if cur >= 0 else ta.NP + (0 if ta.is_chance(a) else 1))] = 1.0
    o += ta.NP + 2
    out[o + ta.phase(a)] = 1.0
    o += NPHASES
    for c in range(ta.NC):
        if ta.in_hand(a, c, player):
            out[o + c] = 1.0
    o += ta.NC
    for k in range(ta.upcard_count(a)):
        out[o + ta.upcard(a, k)] = 1.0
    o += ta.NC
    if ta.trump(a) >= 0:
        out[o + ta.trump(a)] = 1.0
    o += 4
    if ta.cut_card(a) >= 0:
        out[o + ta.cut_card(a)] = 1.0
    o += ta.NC
    for c in range(ta.NC):
        if ta.is_played(a, c):
            out[o + c] = 1.0
    o += ta.NC
    trick = o
    face_down = trick + ta.NP * ta.NC
    status = face_down + ta.NP
    bid = status + ta.NP * 3
    announced = bid + ta.NP * 5
    tricks = announced + ta.NP
    points = tricks + ta.NP * 4
    net = points + ta.NP
    pot = net + ta.NP
    speler = pot + 1
    searches = speler + ta.NP
    for p in range(ta.seat_count(a)):
        card = ta.trick_card(a, p)
        if card >= 0:
            if ta.face_down(a, p):
                out[face_down + p] = 1.0
            else:
                out[trick + p * ta.NC + card] = 1.0
        out[status + p * 3 + ta.status(a, p)] = 1.0
        out[bid + p * 5 + ta.bid(a, p)] = 1.0
        out[announced + p] = 1.0 if ta.announced(a, p) else 0.0
        out[tricks + p * 4 + ta.tricks_won(a, p)] = 1.0
        out[points + p] = ta.card_points(a, p)
        out[net + p] = ta.net(a, p)
    out[pot] = ta.pot(a)
    if ta.speler(a) >= 0:
        out[speler + ta.speler(a)] = 1.0
    out[searches + ta.searches(a)] = 1.0


@kernel
def fill_information_state_k(a, player, out):
    """Write ``player``'s information-state tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    for c in range(ta.NC):
        if ta.in_hand(a, c, player):
            out[ta.NP + c] = 1.0
    steps = (out.shape[0] - ta.NP - ta.NC) // ta.TOKEN
    trick_kernels.fill_info_tokens(a, player, out[ta.NP + ta.NC :].reshape((steps, ta.TOKEN)))
