"""The compiled ``default_rng([seed, n]).choice(ids, p=...)`` against NumPy itself, bit for bit."""

from __future__ import annotations

import numpy as np

from zwick_ai.seeded_choice import pairwise_sum, seeded_choice, seeded_uniform


def test_uniform_equals_numpy_generator() -> None:
    for seed in [*range(20), 2**31 - 1, 2**32 + 5, 10**12]:
        for count in (0, 1, 5, 17, 255, 2**33):
            assert seeded_uniform(seed, count) == np.random.default_rng([seed, count]).random()


def test_pairwise_sum_equals_numpy_sum() -> None:
    rng = np.random.default_rng(0)
    for k in range(1, 130):
        a = rng.random(k)
        assert pairwise_sum(a, k) == a.sum()


def test_choice_equals_numpy_choice() -> None:
    rng = np.random.default_rng(1)
    cdf = np.empty(64)
    for t in range(1500):
        k = int(rng.integers(1, 53))
        ids = np.sort(rng.choice(52, size=k, replace=False)).astype(np.int32)
        probs = rng.random(k) if t % 3 else np.full(k, 1.0 / k)
        seed, count = int(rng.integers(0, 10**6)), int(rng.integers(0, 300))
        want = int(np.random.default_rng([seed, count]).choice(ids, p=probs / probs.sum()))
        assert int(seeded_choice(ids, probs, k, seed, count, cdf)) == want
