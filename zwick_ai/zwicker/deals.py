"""Seeded deals as deck orders, and where a deck order sends each card: what studies need to
prepare, compare and rearrange deals before any card is played.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen", players=4)
>>> orders, dealers = deal_orders(r.array(), np.array([7]))
>>> zwicker.deal_from_order(r, orders[0].tolist(), int(dealers[0])) == zwicker.deal(r, 7)
True
>>> seat, stage = deal_map(r.array(), orders[0], dealers[0])
>>> sorted(int(c) for c in np.flatnonzero((seat == 0) & (stage == 0))) == sorted(
...     zwick_ai.cards.parse_card(c) for c in zwicker.hand(zwicker.deal(r, 7), 0))
True
"""

from __future__ import annotations

import numpy as np

import zwick_ai.cards
from zwick_ai.jit import kernel
from zwick_ai.zwicker import kernels, layout

NC = zwick_ai.cards.NUM_CARDS


@kernel
def deal_orders(R, seeds):
    """(orders[N, deck], dealers[N]) of the engine's seeded deals (``zwicker.deal(rules, seed)``)."""
    n = seeds.shape[0]
    orders = np.empty((n, R[layout.R_DECK_SIZE]), np.int64)
    dealers = np.empty(n, np.int64)
    for h in range(n):
        order, dealer = kernels.deal_order(R, seeds[h])
        orders[h] = order
        dealers[h] = dealer
    return orders, dealers


@kernel
def deal_map(R, order, dealer):
    """(seat[NC], stage[NC]) each card of deck ``order`` is dealt to and in which stage (seat -1:
    table or never dealt; stage -1: never dealt). Later stages depend only on the stock left, so a
    dry deal that empties the hands after each stage reproduces them."""
    S = kernels.empty_state(R)
    n = order.shape[0]
    for i in range(n):
        S[layout.S_STOCK + i] = order[i]
        S[layout.S_LOC + order[i]] = layout.LOC_STOCK
    S[layout.S_STOCK_TOP] = 0
    S[layout.S_STOCK_LEN] = n
    S[layout.S_DEALER] = dealer
    stage = np.full(NC, -1, np.int64)
    stage_no = 0
    while S[layout.S_STOCK_TOP] < n and stage_no < R[layout.R_MAX_STAGES]:
        S[layout.S_STAGE] = stage_no
        top = S[layout.S_STOCK_TOP]
        kernels.deal_stage(R, S)
        for i in range(top, S[layout.S_STOCK_TOP]):
            stage[order[i]] = stage_no
        for p in range(R[layout.R_PLAYERS]):
            S[layout.S_HAND_N + p] = 0
        stage_no += 1
    seat = np.full(NC, -1, np.int64)
    for c in range(NC):
        seat[c] = S[layout.S_DEALT_TO + c]
    return seat, stage


__all__ = ["deal_map", "deal_orders"]
