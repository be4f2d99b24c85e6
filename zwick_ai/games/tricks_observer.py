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
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as trick_kernels

NPHASES = len(trick_arrays.PHASE_NAMES)
#: length of the observation tensor
OBSERVATION_SIZE = (
    trick_arrays.NP
    + trick_arrays.NP
    + (trick_arrays.NP + 2)
    + NPHASES
    + trick_arrays.NC
    + trick_arrays.NC
    + 4
    + trick_arrays.NC
    + trick_arrays.NC
    + trick_arrays.NP * trick_arrays.NC
    + trick_arrays.NP
    + trick_arrays.NP * 3
    + trick_arrays.NP * 5
    + trick_arrays.NP
    + trick_arrays.NP * 4
    + trick_arrays.NP
    + trick_arrays.NP
    + 1
    + trick_arrays.NP
    + 4
)


def information_state_size(steps: int) -> int:
    """Length of the information-state tensor of a game of at most ``steps`` moves."""
    return trick_arrays.NP + trick_arrays.NC + steps * trick_arrays.TOKEN


@kernel
def fill_observation_k(a, player, out):
    """Write ``player``'s observation tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    o = trick_arrays.NP
    out[o + trick_arrays.dealer(a)] = 1.0
    o += trick_arrays.NP
    cur = trick_arrays.to_move(a)
    out[o + (cur if cur >= 0 else trick_arrays.NP + (0 if trick_arrays.is_chance(a) else 1))] = 1.0
    o += trick_arrays.NP + 2
    out[o + trick_arrays.phase(a)] = 1.0
    o += NPHASES
    for c in range(trick_arrays.NC):
        if trick_arrays.in_hand(a, c, player):
            out[o + c] = 1.0
    o += trick_arrays.NC
    for k in range(trick_arrays.upcard_count(a)):
        out[o + trick_arrays.upcard(a, k)] = 1.0
    o += trick_arrays.NC
    if trick_arrays.trump(a) >= 0:
        out[o + trick_arrays.trump(a)] = 1.0
    o += 4
    if trick_arrays.cut_card(a) >= 0:
        out[o + trick_arrays.cut_card(a)] = 1.0
    o += trick_arrays.NC
    for c in range(trick_arrays.NC):
        if trick_arrays.is_played(a, c):
            out[o + c] = 1.0
    o += trick_arrays.NC
    trick = o
    face_down = trick + trick_arrays.NP * trick_arrays.NC
    status = face_down + trick_arrays.NP
    bid = status + trick_arrays.NP * 3
    announced = bid + trick_arrays.NP * 5
    tricks = announced + trick_arrays.NP
    points = tricks + trick_arrays.NP * 4
    net = points + trick_arrays.NP
    pot = net + trick_arrays.NP
    speler = pot + 1
    searches = speler + trick_arrays.NP
    for p in range(trick_arrays.seat_count(a)):
        card = trick_arrays.trick_card(a, p)
        if card >= 0:
            if trick_arrays.face_down(a, p):
                out[face_down + p] = 1.0
            else:
                out[trick + p * trick_arrays.NC + card] = 1.0
        out[status + p * 3 + trick_arrays.status(a, p)] = 1.0
        out[bid + p * 5 + trick_arrays.bid(a, p)] = 1.0
        out[announced + p] = 1.0 if trick_arrays.announced(a, p) else 0.0
        out[tricks + p * 4 + trick_arrays.tricks_won(a, p)] = 1.0
        out[points + p] = trick_arrays.card_points(a, p)
        out[net + p] = trick_arrays.net(a, p)
    out[pot] = trick_arrays.pot(a)
    if trick_arrays.speler(a) >= 0:
        out[speler + trick_arrays.speler(a)] = 1.0
    out[searches + trick_arrays.searches(a)] = 1.0


@kernel
def fill_information_state_k(a, player, out):
    """Write ``player``'s information-state tensor of the state array ``a`` into ``out``."""
    out[:] = 0.0
    out[player] = 1.0
    for c in range(trick_arrays.NC):
        if trick_arrays.in_hand(a, c, player):
            out[trick_arrays.NP + c] = 1.0
    steps = (out.shape[0] - trick_arrays.NP - trick_arrays.NC) // trick_arrays.TOKEN
    trick_kernels.fill_info_tokens(
        a, player, out[trick_arrays.NP + trick_arrays.NC :].reshape((steps, trick_arrays.TOKEN))
    )
