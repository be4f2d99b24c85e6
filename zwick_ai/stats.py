"""Small, honest statistics: means with t-based confidence intervals, paired differences,
proportions (Wilson), and a seeded bootstrap.

>>> m = mean_ci([1.0, 2.0, 3.0, 4.0])
>>> round(m.mean, 3), [round(x, 3) for x in m.ci95]
(2.5, [0.446, 4.554])
>>> p = proportion_ci(30, 100)
>>> round(p.mean, 2), [round(x, 3) for x in p.ci95]
(0.3, [0.219, 0.396])
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats as scipy_stats


@dataclass(frozen=True)
class Estimate:
    """A point estimate with its 95% confidence interval and sample size."""

    mean: float
    ci95: tuple[float, float]
    n: int
    std: float = float("nan")

    @property
    def half_width(self) -> float:
        return (self.ci95[1] - self.ci95[0]) / 2

    def __str__(self) -> str:
        return f"{self.mean:.3f} ± {self.half_width:.3f}"

    def as_dict(self) -> dict:
        return {"mean": self.mean, "ci95": list(self.ci95), "n": self.n, "std": self.std}


class MeanInterval(NamedTuple):
    """A mean and the ends of its 95% confidence interval as results files store them, the JSON
    list ``[mean, lo, hi]`` (an end is None where there is no interval): ``MeanInterval(*row)``
    reads a stored one by name."""

    mean: float | None
    lo: float | None
    hi: float | None


def mean_ci(values: Sequence[float] | np.ndarray, level: float = 0.95) -> Estimate:
    """Mean with a Student-t confidence interval (exact for normal data, fine for large n)."""
    x = np.asarray(values, dtype=float)
    n = x.size
    if n == 0:
        raise ValueError("mean_ci needs at least one value")
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, (float("-inf"), float("inf")), 1)
    sd = float(x.std(ddof=1))
    half = float(scipy_stats.t.ppf(0.5 + level / 2, n - 1)) * sd / math.sqrt(n)
    return Estimate(mean, (mean - half, mean + half), n, sd)


def paired_diff_ci(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, level: float = 0.95) -> Estimate:
    """Mean of a - b over paired observations (e.g. the same duplicate deal), with its CI."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    return mean_ci(xa - xb, level)


def best_or_tie(per_sample: dict[str, np.ndarray], level: float = 0.95) -> dict:
    """Rank contestants measured on the same samples (paired: the same deals) by their mean and
    say whether the first is **best**: only when the CI of its paired lead over the runner-up
    lies above zero. Otherwise the first ties with every contestant whose paired difference to it
    has a CI reaching zero.

    Returns ``ranking`` (best mean first), ``top``, ``second``, ``lead`` (the top's paired lead over
    the second, :meth:`Estimate.as_dict`), ``best`` (``top`` or None: a tie) and ``tied`` (the
    contestants the top is not separated from, itself first).

    >>> r = best_or_tie({"a": np.array([1.0, 2, 3]), "b": np.array([1.0, 2, 3]), "c": np.array([0.0, 0, 1])})
    >>> r["best"], r["tied"]
    (None, ['a', 'b'])
    >>> best_or_tie({"a": np.array([2.0, 3, 4, 3]), "b": np.array([0.0, 1, 1, 0])})["best"]
    'a'
    """
    if len(per_sample) < 2:
        raise ValueError("best_or_tie needs at least two contestants")
    ranking = sorted(per_sample, key=lambda k: -float(np.mean(per_sample[k])))
    top, second = ranking[0], ranking[1]
    lead = paired_diff_ci(per_sample[top], per_sample[second], level)
    tied = [top] + [k for k in ranking[1:] if paired_diff_ci(per_sample[top], per_sample[k], level).ci95[0] <= 0]
    return {
        "ranking": ranking,
        "top": top,
        "second": second,
        "lead": lead.as_dict(),
        "best": top if lead.ci95[0] > 0 else None,
        "tied": tied,
    }


def samples_to_separate(diff: Estimate, level: float = 0.95) -> int | None:
    """How many paired samples a difference of this mean and spread would need for its CI to
    exclude zero (``(z * sd / mean)^2``, the normal approximation); None when the mean is zero
    or the spread unknown."""
    if not np.isfinite(diff.std) or diff.mean == 0:
        return None
    z = float(scipy_stats.norm.ppf(0.5 + level / 2))
    return max(diff.n, math.ceil((z * diff.std / abs(diff.mean)) ** 2))


def proportion_ci(successes: int, trials: int, level: float = 0.95) -> Estimate:
    """A proportion with its Wilson score interval (good also near 0 and 1)."""
    if trials <= 0:
        return Estimate(float("nan"), (float("nan"), float("nan")), 0)
    z = float(scipy_stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return Estimate(p, (max(0.0, centre - half), min(1.0, centre + half)), trials)


def bootstrap_ci(
    data: np.ndarray,
    statistic: Callable[[np.ndarray], np.ndarray | float],
    resamples: int = 1000,
    seed: int = 0,
    level: float = 0.95,
) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap over the rows of ``data``: (lower, upper) of ``statistic``."""
    rng = np.random.default_rng(seed)
    n = len(data)
    draws = np.array([statistic(data[rng.integers(0, n, n)]) for _ in range(resamples)])
    lo = np.quantile(draws, (1 - level) / 2, axis=0)
    hi = np.quantile(draws, 0.5 + level / 2, axis=0)
    return lo, hi
