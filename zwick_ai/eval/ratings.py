"""Ratings of agents from pairwise results on duplicate deals, with bootstrap CIs: Bradley–Terry
on deals won (Elo scale) and a rating on points margins (:func:`points_ratings_with_ci`, points
a deal). The reports rank by points, the game's score, and show the wins rating beside it
(:mod:`zwick_ai.eval.verdict` says when the two disagree).

Model: agent ``i`` has strength ``γ_i > 0`` and scores against ``j`` with probability
``γ_i / (γ_i + γ_j)``. A draw counts half a win for each side (the usual convention). The fit is
the maximum-likelihood estimate by Hunter's MM iteration (Hunter 2004, "MM algorithms for
generalized Bradley–Terry models"), which increases the likelihood at every step.

Why Bradley–Terry: a tournament of duplicate deals gives, per pair and per deal, one outcome
(win, draw or loss on the deal's duplicate difference); all pairs meet on the same deals, which is
exactly BT's data. Unlike Elo's online updates the fit does not depend on the order of the games,
and unlike OpenSkill it needs no extra package and has a closed form for two agents to test against.

Ratings are reported as ``400 * log10(γ)`` shifted to mean 0, so a difference of ``d`` means an
expected score of ``1 / (1 + 10 ** (-d / 400))`` (Elo's scale; +200 ≈ 76 %). A perfect record
would have an infinite MLE, so every pair gets ``prior`` virtual drawn games (default 1): with
``w`` wins and ``l`` losses between two agents the rating gap is ``400 * log10((w + ½) / (l + ½))``.
When one agent wins every deal against another, every bootstrap resample has the same perfect
record and the interval has zero width: the data then bound the gap only from below, and its size
reflects the prior and the number of deals.

>>> r = fit_bradley_terry(2, [(0, 1, 3.0, 1.0)], prior=0.0)
>>> bool(abs(r[0] - r[1] - 400 * math.log10(3)) < 1e-6)
True
>>> [round(float(x), 1) for x in fit_bradley_terry(2, [(0, 1, 3.0, 1.0)])]  # (3.5 / 1.5): gap 147.2
[73.6, -73.6]
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from zwick_ai.stats import bootstrap_ci

#: Elo's scale: rating difference per factor 10 in strength
SCALE = 400.0


def fit_bradley_terry(
    n: int,
    results: Sequence[tuple[int, int, float, float]],
    prior: float = 1.0,
    tol: float = 1e-10,
    max_iter: int = 100_000,
) -> np.ndarray:
    """Bradley–Terry ratings (Elo scale, mean 0) of ``n`` agents.

    ``results`` holds ``(i, j, score_i, score_j)``: agent ``i`` scored ``score_i`` (wins, draws
    counted half) and ``j`` scored ``score_j`` in their games against each other; a pair may appear
    several times. ``prior`` virtual draws are added to every pair of agents (0 = plain MLE, which
    is infinite for a perfect record and raises ``ValueError`` then)."""
    if n < 1:
        raise ValueError("need at least one agent")
    if prior < 0:
        raise ValueError(f"prior must be >= 0, got {prior}")
    wins = np.zeros((n, n))  # wins[i, j]: score of i against j
    for i, j, si, sj in results:
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"bad pair ({i}, {j}) for {n} agents")
        if si < 0 or sj < 0:
            raise ValueError(f"scores must be >= 0, got {si}, {sj}")
        wins[i, j] += si
        wins[j, i] += sj
    if prior > 0:
        wins += (prior / 2) * (1 - np.eye(n))
    games = wins + wins.T
    total = wins.sum(axis=1)
    if n > 1 and np.any((total <= 0) | (total >= games.sum(axis=1))):
        raise ValueError("an agent won or lost every game: the plain MLE is infinite; use prior > 0")
    gamma = np.ones(n)
    for _ in range(max_iter):
        denom = (games / (gamma[:, None] + gamma[None, :])).sum(axis=1)
        new = total / denom if n > 1 else gamma
        new /= math.exp(np.log(new).mean())  # fix the scale: geometric mean 1
        if np.max(np.abs(np.log(new) - np.log(gamma))) < tol:
            gamma = new
            break
        gamma = new
    return SCALE * np.log10(gamma)


def expected_score(rating_a: float, rating_b: float) -> float:
    """The modelled score of ``a`` against ``b`` (a win probability, draws counted half).

    >>> expected_score(100.0, 100.0)
    0.5
    """
    return 1.0 / (1.0 + 10.0 ** ((rating_b - rating_a) / SCALE))


def ratings_from_outcomes(
    n: int, pairs: Sequence[tuple[int, int]], outcomes: np.ndarray, prior: float = 1.0
) -> np.ndarray:
    """Ratings from a ``deals x len(pairs)`` array of per-deal scores of each pair's first agent
    (1 win, 0.5 draw, 0 loss)."""
    out = np.asarray(outcomes, dtype=float)
    results = [(i, j, float(out[:, k].sum()), float((1 - out[:, k]).sum())) for k, (i, j) in enumerate(pairs)]
    return fit_bradley_terry(n, results, prior=prior)


def ratings_with_ci(
    n: int,
    pairs: Sequence[tuple[int, int]],
    outcomes: np.ndarray,
    prior: float = 1.0,
    resamples: int = 1000,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ratings, lower, upper): the fit and its 95% percentile-bootstrap interval over **deals**
    (rows of ``outcomes`` are resampled as wholes, so the pairs keep playing the same deals).

    >>> out = np.array([[1.0, 1.0, 0.5]] * 6 + [[0.0, 1.0, 1.0]] * 2)
    >>> r, lo, hi = ratings_with_ci(3, [(0, 1), (0, 2), (1, 2)], out, resamples=200, seed=1)
    >>> bool(r[0] > r[1] > r[2]) and bool(np.all(lo <= r)) and bool(np.all(r <= hi))
    True
    """
    out = np.asarray(outcomes, dtype=float)
    if out.ndim != 2 or out.shape[1] != len(pairs):
        raise ValueError(f"outcomes must be deals x {len(pairs)} pairs, got shape {out.shape}")
    ratings = ratings_from_outcomes(n, pairs, out, prior)
    if len(out) < 2:
        inf = np.full(n, np.inf)
        return ratings, -inf, inf
    lo, hi = bootstrap_ci(out, lambda d: ratings_from_outcomes(n, pairs, d, prior), resamples=resamples, seed=seed)
    return ratings, lo, hi


def points_design(n: int, pairs: Sequence[tuple[int, int]]) -> np.ndarray:
    """The least-squares map from the pairs' mean differences to the points ratings (``n x pairs``):
    the minimum-norm solution of ``r_i − r_j = m_ij``, which has mean 0 on a connected design.

    >>> points_design(2, [(0, 1)]).round(3).tolist()
    [[0.5], [-0.5]]
    """
    design = np.zeros((len(pairs), n))
    for k, (i, j) in enumerate(pairs):
        if not (0 <= i < n and 0 <= j < n) or i == j:
            raise ValueError(f"bad pair ({i}, {j}) for {n} agents")
        design[k, i], design[k, j] = 1.0, -1.0
    return np.linalg.pinv(design)


def points_ratings_with_ci(
    n: int, pairs: Sequence[tuple[int, int]], diffs: np.ndarray, resamples: int = 1000, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(ratings, lower, upper) **on points**: each agent's strength in points (or chips) a deal,
    mean 0, fitted by least squares to every pair's mean per-deal difference (``deals x pairs``
    array ``diffs``, all pairs on the same deals): the gap ``r_i − r_j`` is the margin the fit
    predicts for ``i`` over ``j``. In a round robin ``r_i`` is ``i``'s mean margin over every agent,
    itself counted as 0. 95% percentile bootstrap over deals, as :func:`ratings_with_ci`.

    >>> d = np.array([[2.0, 4.0, 2.0], [4.0, 6.0, 2.0], [0.0, 2.0, 2.0]])
    >>> r, lo, hi = points_ratings_with_ci(3, [(0, 1), (0, 2), (1, 2)], d, resamples=200)
    >>> r.round(3).tolist()
    [2.0, 0.0, -2.0]
    """
    out = np.asarray(diffs, dtype=float)
    if out.ndim != 2 or out.shape[1] != len(pairs):
        raise ValueError(f"differences must be deals x {len(pairs)} pairs, got shape {out.shape}")
    solve = points_design(n, pairs)
    ratings = solve @ out.mean(axis=0)
    if len(out) < 2:
        inf = np.full(n, np.inf)
        return ratings, -inf, inf
    lo, hi = bootstrap_ci(out, lambda d: solve @ d.mean(axis=0), resamples=resamples, seed=seed)
    return ratings, lo, hi


__all__ = [
    "SCALE",
    "expected_score",
    "fit_bradley_terry",
    "points_design",
    "points_ratings_with_ci",
    "ratings_from_outcomes",
    "ratings_with_ci",
]
