"""The deals that fit the public view of a Zwicker position: every hand hidden, the mover's too.

What a re-solving search needs from the rules alone (:mod:`zwick_ai.agents.cfr.resolve`): the
cards nobody has seen (every hand and the stock), the assignments of those cards to the hands
that replay the current stage identically (:mod:`zwick_ai.zwicker.worlds` decides that), and
their prior weights. Before any move of a stage every assignment of the unseen cards to the
hands is equally likely (the deck order is uniform and the stock's order is seen by nobody);
during a stage the prior stays uniform over the assignments that replay the stage, the cards each
seat played coming back into its hand. The stock's order inside a deal is irrelevant until the
next stage's deal: a deal lists the stock in ascending card order, and whoever values a stage's
end draws the next deal as a new chance event.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen", players=2, ranks="A23", suits="CD", jokers="none", hand_size=2,
...                   table_size=2, stages=1)
>>> seats, need, pool = hidden_pool(r.array(), kernels_state(r, 3))
>>> seats.tolist(), need.tolist(), len(pool), deal_count(need, len(pool))
([0, 1], [2, 2], 4, 6)
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np

from zwick_ai.jit import kernel
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import kernels, layout
from zwick_ai.zwicker.worlds import resample_draw, resample_setup, resample_world

#: the seat argument of :func:`~zwick_ai.zwicker.worlds.resample_setup` that hides every hand
PUBLIC = -1


def kernels_state(rules: Any, seed: int) -> np.ndarray:
    """The engine state of the seeded deal ``seed`` under ``rules`` (for examples and tests)."""
    return kernels.new_hand(rules.array(), seed, kernels.new_workspace())


@kernel
def hidden_pool(R, S):
    """(seats holding cards, cards each holds, the unseen cards: each such seat's hand in seat
    order, then the stock from its top) of the engine state ``S``."""
    players = R[layout.R_PLAYERS]
    ns = 0
    for q in range(players):
        if S[layout.S_HAND_N + q] > 0:
            ns += 1
    seats = np.empty(ns, np.int64)
    need = np.empty(ns, np.int64)
    k = 0
    for q in range(players):
        if S[layout.S_HAND_N + q] > 0:
            seats[k] = q
            need[k] = S[layout.S_HAND_N + q]
            k += 1
    nstock = S[layout.S_STOCK_LEN] - S[layout.S_STOCK_TOP]
    pool = np.empty(need.sum() + nstock, np.int64)
    k = 0
    for h in range(ns):
        q = seats[h]
        for i in range(need[h]):
            pool[k] = S[layout.S_HANDS + q * layout.MAX_HAND + i]
            k += 1
    for pos in range(S[layout.S_STOCK_TOP], S[layout.S_STOCK_LEN]):
        pool[k] = S[layout.S_STOCK + pos]
        k += 1
    return seats, need, pool


@kernel
def with_hands(S, seats, need, cards):
    """A copy of ``S`` whose seats ``seats`` hold ``cards`` (``need[h]`` cards each, in order) and
    whose stock from its top holds the rest of ``cards`` in order (a stage start: no card of the
    stage played yet)."""
    T = S.copy()
    k = 0
    for h in range(seats.shape[0]):
        q = seats[h]
        T[layout.S_HAND_N + q] = 0
        for _ in range(need[h]):
            c = cards[k]
            k += 1
            kernels.hand_insert(T, q, c)
            T[layout.S_DEALT_TO + c] = q
    for pos in range(T[layout.S_STOCK_TOP], T[layout.S_STOCK_LEN]):
        c = cards[k]
        k += 1
        T[layout.S_STOCK + pos] = c
        T[layout.S_LOC + c] = layout.LOC_STOCK
        T[layout.S_DEALT_TO + c] = -1
    return T


def deal_count(need: np.ndarray, pool_size: int) -> int:
    """How many ways the ``pool_size`` unseen cards split into hands of ``need`` cards (the rest to
    the stock, whose order does not count)."""
    total, left = 1, int(pool_size)
    for n in need.tolist():
        total *= comb(left, int(n))
        left -= int(n)
    return total


def all_assignments(need: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """Every split of ``pool`` into hands of ``need`` cards (each hand ascending), then the stock
    ascending: one row per split, ``len(pool)`` card ids each, in a fixed order."""
    cards = sorted(int(c) for c in pool)
    rows: list[list[int]] = []

    def split(h: int, left: list[int], prefix: list[int]) -> None:
        if h == len(need):
            rows.append(prefix + left)
            return
        for hand in itertools.combinations(left, int(need[h])):
            rest = [c for c in left if c not in hand]
            split(h + 1, rest, prefix + list(hand))

    split(0, cards, [])
    return np.array(rows, np.int64).reshape(len(rows), len(cards))


def boundary_deals(R: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Every deal of the stage that starts at the engine state ``S`` (a stage's first turn: nothing
    of it played yet), each equally likely: engine states, one a row."""
    seats, need, pool = hidden_pool(R, S)
    return np.stack([with_hands(S, seats, need, row) for row in all_assignments(need, pool)])


@kernel
def consistent_worlds(G, a, rows, W):
    """(engine states, their row indices) of the assignments ``rows`` (slot order of
    :func:`hidden_pool`: every hand in seat order, then the stock) under which the current stage
    of the state array ``a`` replays identically, every hand hidden."""
    setup = resample_setup(G, a, PUBLIC, W)
    S0w = setup.S0.copy()
    keep = np.empty(rows.shape[0], np.int64)
    out = np.empty((rows.shape[0], zwicker_history.SS), np.int32)
    n = 0
    for i in range(rows.shape[0]):
        Sw = resample_world(G, a, PUBLIC, setup, rows[i], S0w, W)
        if Sw.shape[0] > 0:
            for j in range(Sw.shape[0]):
                out[n, j] = Sw[j]
            keep[n] = i
            n += 1
    return out[:n], keep[:n]


@kernel
def drawn_worlds(G, a, p, n, tries, seed, W):
    """(engine states, how many) of up to ``n`` uniform draws of the hidden cards of seat ``p``'s
    view (``p`` = :data:`PUBLIC`: every hand hidden) that replay the current stage, by exact
    rejection sampling with at most ``tries`` permutations a draw (seeded by ``seed``)."""
    np.random.seed(seed)
    setup = resample_setup(G, a, p, W)
    cards = setup.truth.copy()
    out = np.empty((n, zwicker_history.SS), np.int32)
    k = 0
    for _ in range(n):
        Sw = resample_draw(G, a, p, setup, cards, tries, W)[1]
        if Sw.shape[0] > 0:
            for j in range(Sw.shape[0]):
                out[k, j] = Sw[j]
            k += 1
    return out[:k], k


def stratified_weights(in_true: np.ndarray, share: float, p_true: float) -> np.ndarray:
    """Importance weights (target: uniform over the consistent deals) of deals drawn from the
    mixture ``share`` x (uniform over the deals where the mover holds its true hand) + (1 - share)
    x (uniform over all deals); ``in_true[i]``: deal ``i`` gives the mover its true hand;
    ``p_true``: the prior probability of that hand. Normalised to sum to 1."""
    q = share * in_true.astype(np.float64) / p_true + (1.0 - share)
    w = 1.0 / q
    return w / w.sum()


def true_hand_prior(unseen: int, hand: int) -> float:
    """The prior probability that a seat holds one given ``hand``-card hand out of ``unseen`` cards
    nobody has seen, ignoring what the stage's moves rule out (exact before a stage's first move)."""
    return 1.0 / comb(int(unseen), int(hand))


__all__ = [
    "PUBLIC",
    "all_assignments",
    "boundary_deals",
    "consistent_worlds",
    "deal_count",
    "drawn_worlds",
    "hidden_pool",
    "stratified_weights",
    "true_hand_prior",
    "with_hands",
]
