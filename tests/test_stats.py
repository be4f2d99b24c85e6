"""The statistics of :mod:`zwick_ai.stats` against known answers: scipy's t-interval and
Wilson interval, the bootstrap against the t-interval it approximates on normal data, symmetric
bootstrap intervals on symmetric data, and coverage simulations of about 95%."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats as sps

from zwick_ai.stats import bootstrap_ci, mean_ci, paired_diff_ci, proportion_ci

SIZES = [2, 3, 10, 57, 400]


@pytest.mark.parametrize("n", SIZES)
@pytest.mark.parametrize("level", [0.95, 0.9])
def test_mean_ci_is_scipys_t_interval(n, level):
    x = np.random.default_rng(n).normal(3.0, 2.0, n)
    got = mean_ci(x, level)
    lo, hi = sps.t.interval(level, n - 1, loc=x.mean(), scale=sps.sem(x))
    assert got.n == n and got.mean == pytest.approx(x.mean(), rel=1e-12)
    assert got.ci95 == pytest.approx((lo, hi), rel=1e-10)
    assert got.std == pytest.approx(x.std(ddof=1), rel=1e-12)


def test_mean_ci_edge_cases():
    one = mean_ci([4.0])
    assert one.mean == 4.0 and one.ci95 == (float("-inf"), float("inf")) and one.n == 1
    same = mean_ci([2.0] * 5)
    assert same.ci95 == (2.0, 2.0)
    with pytest.raises(ValueError, match="at least one value"):
        mean_ci([])


def test_mean_ci_covers_the_true_mean_95_percent_of_the_time():
    """4000 normal samples of 8: the interval holds the true mean 95% ± 1.1% of the time (3 se)."""
    rng = np.random.default_rng(7)
    trials, true_mean = 4000, 1.5
    hits = sum(lo <= true_mean <= hi for lo, hi in (mean_ci(rng.normal(true_mean, 3.0, 8)).ci95 for _ in range(trials)))
    assert abs(hits / trials - 0.95) < 3 * np.sqrt(0.95 * 0.05 / trials), hits / trials


def test_paired_diff_ci_is_the_t_interval_of_the_differences():
    rng = np.random.default_rng(3)
    a, b = rng.normal(1.0, 1.0, 50), rng.normal(0.0, 1.0, 50)
    d = a - b
    got = paired_diff_ci(a, b)
    assert got.mean == pytest.approx(d.mean(), rel=1e-12)
    assert got.ci95 == pytest.approx(sps.t.interval(0.95, 49, loc=d.mean(), scale=sps.sem(d)), rel=1e-10)
    with pytest.raises(ValueError, match="same length"):
        paired_diff_ci(a, b[:-1])


@pytest.mark.parametrize("k, n", [(0, 10), (1, 10), (30, 100), (50, 100), (99, 100), (100, 100), (3, 7)])
def test_proportion_ci_is_scipys_wilson_interval(k, n):
    got = proportion_ci(k, n)
    want = sps.binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert got.mean == k / n and got.n == n
    assert got.ci95 == pytest.approx((want.low, want.high), rel=1e-9, abs=1e-12)


def test_proportion_ci_without_trials_is_undefined():
    e = proportion_ci(0, 0)
    assert e.n == 0 and np.isnan(e.mean) and all(np.isnan(e.ci95))


# ---- the bootstrap ---------------------------------------------------------------------------
def _mean(rows: np.ndarray) -> np.ndarray:
    return rows.mean(axis=0)


def test_bootstrap_of_the_mean_matches_the_t_interval_on_normal_data():
    """On 400 normal values the percentile bootstrap of the mean is the normal interval
    mean ± 1.96 se to within its Monte Carlo error (4000 resamples: about 2% of the distance
    from the mean to each bound); each bound is checked on its own, within 7%."""
    x = np.random.default_rng(11).normal(10.0, 4.0, 400)
    lo, hi = bootstrap_ci(x, np.mean, resamples=4000, seed=1)
    t_lo, t_hi = sps.t.interval(0.95, len(x) - 1, loc=x.mean(), scale=sps.sem(x))
    m = x.mean()
    assert (m - lo) / (m - t_lo) == pytest.approx(1.0, abs=0.07)
    assert (hi - m) / (t_hi - m) == pytest.approx(1.0, abs=0.07)


def test_bootstrap_interval_is_symmetric_on_symmetric_data():
    """Data symmetric about 5 (each value and its mirror image): the bootstrap distribution of the
    mean is symmetric, so the bounds lie equally far from the mean (within 6%)."""
    z = np.random.default_rng(5).standard_normal(150)
    x = 5.0 + np.concatenate([z, -z])
    lo, hi = bootstrap_ci(x, np.mean, resamples=4000, seed=2)
    assert lo < 5.0 < hi
    assert (5.0 - lo) / (hi - 5.0) == pytest.approx(1.0, abs=0.06)


def test_bootstrap_covers_the_true_mean_95_percent_of_the_time_with_2_5_percent_each_side():
    """4 x 1000 normal samples of 40 (one sample per column; the statistic is the column means, so
    one call bootstraps 1000 samples with shared row draws): the interval misses the true mean
    on each side about 2.5% of the time. The percentile bootstrap is a little narrow at n = 40
    (about 94% coverage), hence the bounds: coverage 92-97%, each side's misses 1-4.5%."""
    true_mean, below, above, trials = 0.0, 0, 0, 0
    for seed in range(4):
        data = np.random.default_rng(100 + seed).normal(true_mean, 1.0, (40, 1000))
        lo, hi = bootstrap_ci(data, _mean, resamples=1000, seed=seed)
        below += int(np.sum(hi < true_mean))
        above += int(np.sum(lo > true_mean))
        trials += data.shape[1]
    coverage = 1 - (below + above) / trials
    assert 0.92 <= coverage <= 0.97, coverage
    for misses in (below, above):
        assert 0.01 <= misses / trials <= 0.045, (below, above, trials)


def test_bootstrap_is_reproducible_and_works_per_column():
    data = np.random.default_rng(0).normal(0, 1, (30, 3))
    a = bootstrap_ci(data, _mean, resamples=200, seed=9)
    b = bootstrap_ci(data, _mean, resamples=200, seed=9)
    np.testing.assert_array_equal(a[0], b[0])
    np.testing.assert_array_equal(a[1], b[1])
    assert a[0].shape == (3,) and np.all(a[0] < data.mean(axis=0)) and np.all(data.mean(axis=0) < a[1])
