"""Bradley–Terry ratings against cases with known answers."""

import math

import numpy as np
import pytest

from zwick_ai.eval.ratings import (
    SCALE,
    expected_score,
    fit_bradley_terry,
    ratings_from_outcomes,
    ratings_with_ci,
)


def test_two_agents_closed_form():
    # with w wins and l losses the MLE odds are w / l; the prior adds half a win to each side
    for w, l in [(3, 1), (7, 2), (1, 9), (5, 5)]:
        r = fit_bradley_terry(2, [(0, 1, float(w), float(l))], prior=0.0)
        assert r[0] - r[1] == pytest.approx(SCALE * math.log10(w / l), abs=1e-6)
        assert r.sum() == pytest.approx(0.0, abs=1e-9)
        r = fit_bradley_terry(2, [(0, 1, float(w), float(l))], prior=1.0)
        assert r[0] - r[1] == pytest.approx(SCALE * math.log10((w + 0.5) / (l + 0.5)), abs=1e-6)


def test_recovers_known_strengths_from_exact_expected_scores():
    # scores equal to the model's expectations: the MLE is exactly the true ratings
    true = np.array([250.0, 40.0, -90.0, -200.0])
    true -= true.mean()
    results = []
    for i in range(4):
        for j in range(i + 1, 4):
            games = 10.0 * (i + j + 1)  # unequal numbers of games per pair
            p = expected_score(true[i], true[j])
            results.append((i, j, games * p, games * (1 - p)))
    r = fit_bradley_terry(4, results, prior=0.0)
    np.testing.assert_allclose(r, true, atol=1e-5)


def test_mle_satisfies_score_equations_on_random_data():
    # the slow, obvious check: at the MLE each agent's expected total score equals its actual one
    rng = np.random.default_rng(3)
    n = 5
    results = [(i, j, float(rng.integers(1, 20)), float(rng.integers(1, 20))) for i in range(n) for j in range(i)]
    r = fit_bradley_terry(n, results, prior=0.0)
    actual = np.zeros(n)
    expected = np.zeros(n)
    for i, j, si, sj in results:
        actual[i] += si
        actual[j] += sj
        expected[i] += (si + sj) * expected_score(r[i], r[j])
        expected[j] += (si + sj) * expected_score(r[j], r[i])
    np.testing.assert_allclose(expected, actual, atol=1e-6)


def test_order_of_results_and_agents_does_not_matter():
    results = [(0, 1, 4.0, 2.0), (1, 2, 3.0, 3.0), (0, 2, 5.0, 1.0)]
    r = fit_bradley_terry(3, results)
    np.testing.assert_allclose(fit_bradley_terry(3, results[::-1]), r, atol=1e-9)
    perm = [2, 0, 1]  # agent k is renamed perm[k]
    renamed = [(perm[i], perm[j], a, b) for i, j, a, b in results]
    np.testing.assert_allclose(fit_bradley_terry(3, renamed)[perm], r, atol=1e-9)


def test_perfect_record_needs_the_prior():
    with pytest.raises(ValueError, match="infinite"):
        fit_bradley_terry(2, [(0, 1, 4.0, 0.0)], prior=0.0)
    r = fit_bradley_terry(2, [(0, 1, 4.0, 0.0)])
    assert r[0] - r[1] == pytest.approx(SCALE * math.log10(4.5 / 0.5))


def test_bad_input():
    with pytest.raises(ValueError, match="bad pair"):
        fit_bradley_terry(2, [(0, 2, 1.0, 1.0)])
    with pytest.raises(ValueError, match="prior"):
        fit_bradley_terry(2, [(0, 1, 1.0, 1.0)], prior=-1)
    with pytest.raises(ValueError, match="deals x 1 pairs"):
        ratings_with_ci(2, [(0, 1)], np.zeros((3, 2)))


def test_outcomes_and_bootstrap_interval():
    # a beats b on 8 of 10 deals; b beats c on all; a and c draw twice and a wins the rest
    out = np.zeros((10, 3))
    out[:8, 0] = 1.0
    out[:, 1] = [0.5, 0.5] + [1.0] * 8
    out[:, 2] = 1.0
    pairs = [(0, 1), (0, 2), (1, 2)]
    r = ratings_from_outcomes(3, pairs, out)
    assert r[0] > r[1] > r[2]
    r2, lo, hi = ratings_with_ci(3, pairs, out, resamples=300, seed=5)
    np.testing.assert_allclose(r2, r)
    assert np.all(lo <= hi) and np.all(hi - lo > 0)
    assert np.all(lo <= r + 1e-9) and np.all(r <= hi + 1e-9)
    # the same seed gives the same interval
    _, lo2, hi2 = ratings_with_ci(3, pairs, out, resamples=300, seed=5)
    np.testing.assert_array_equal(lo, lo2)
    np.testing.assert_array_equal(hi, hi2)
