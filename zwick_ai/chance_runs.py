"""Dealing a set of cards as an increasing run: the chance model both engines' OpenSpiel games use
(one chance path per set of cards, which keeps the chance trees small).

A set of ``r`` cards is dealt from the ``m`` free cards as an ascending run: the ``j``-th free
card (in ascending order, ``j = 0 .. m - 1``) comes next with probability
``C(m - 1 - j, r - 1) / C(m, r)``, which makes every set of ``r`` equally likely.

>>> probs = np.zeros(4)
>>> run_probabilities(4, 2, probs, 0), probs.tolist()
(3, [0.5, 0.3333333333333333, 0.16666666666666666, 0.0])
"""

from __future__ import annotations

from math import comb

import numpy as np

from zwick_ai.cards import NUM_CARDS
from zwick_ai.jit import kernel

# C(n, k) for n, k <= NUM_CARDS + 1, as float64 (exact while below 2**53)
RUN_BINOM = np.array([[comb(n, k) for k in range(NUM_CARDS + 2)] for n in range(NUM_CARDS + 2)], np.float64)


@kernel
def run_probabilities(m, r, probs, k0):
    """Write into ``probs[k0:]`` the probabilities that each of the ``m`` free cards (ascending)
    comes next in an increasing run of ``r`` more cards (``r >= 1``); returns how many can come
    next (the first ``m - r + 1``; the others would leave too few cards above them)."""
    if r < 1 or m < r:
        return 0
    total = RUN_BINOM[m, r]
    n = m - r + 1
    for j in range(n):
        probs[k0 + j] = RUN_BINOM[m - 1 - j, r - 1] / total
    return n
