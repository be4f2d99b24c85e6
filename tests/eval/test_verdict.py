"""The verdict's words in each case, the sign test against its definition, the deals a question
needs against a simulation, and the sequential design's error rate and early stops on synthetic
pairs."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as sps

from zwick_ai.eval import sequential
from zwick_ai.eval.verdict import deals_to_resolve, disagreement_lines, pair_verdict, sign_test
from zwick_ai.stats import mean_ci


# ------------------------------------------------------------------------------------------------
# The words
# ------------------------------------------------------------------------------------------------
def test_both_measures_agree():
    v = pair_verdict("expert", "greedy", 4.09, [1.83, 6.35], 39, 0, 21)
    assert v["case"] == "both" and v["points"] == v["wins"] == "expert"
    assert v["text"].startswith("`expert` scores more points (+4.09 [+1.83, +6.35] a deal over `greedy`)")
    assert "and wins more deals (39-21, sign test p = 0.027)" in v["text"]
    assert disagreement_lines([v]) == []


def test_points_only():
    # a clear points lead with a level count of deals won: bigger wins, not more of them
    v = pair_verdict("a", "b", -2.5, [-4.0, -1.0], 22, 2, 26)
    assert v["case"] == "points only" and v["points"] == "b" and v["wins"] is None
    assert v["text"] == (
        "`b` scores more points (+2.50 [+1.00, +4.00] a deal over `a`); the deals won are level "
        "(26-22, 2 drawn, sign test p = 0.67): it wins bigger, not more often."
    )
    assert "disagree" in disagreement_lines([v])[0]


def test_wins_only_is_the_issue_example():
    v = pair_verdict("expert:time=0.05", "ismcts:time=0.05", 0.53, [-0.54, 1.60], 37, 4, 19)
    assert v["case"] == "wins only" and v["points"] is None and v["wins"] == "expert:time=0.05"
    assert "level on points (+0.53 [-0.54, +1.60] a deal)" in v["text"]
    assert "`expert:time=0.05` wins more deals (37-19, 4 drawn, sign test p = 0.022) by smaller margins" in v["text"]
    assert disagreement_lines([v])[0].startswith("**Points and deals won disagree** for this pair")


def test_neither():
    v = pair_verdict("a", "b", 0.2, [-1.0, 1.4], 25, 0, 24)
    assert v["case"] == "neither" and v["points"] is None and v["wins"] is None
    assert v["text"].startswith("`a` and `b` are level: on points (+0.20 [-1.00, +1.40] a deal)")
    assert disagreement_lines([v]) == []


def test_opposite_directions_are_named():
    v = pair_verdict("a", "b", 3.0, [1.0, 5.0], 20, 0, 40, unit="chips")
    assert v["case"] == "opposite" and v["points"] == "a" and v["wins"] == "b"
    assert "`a` scores more chips" in v["text"] and "but `b` wins more deals (40-20" in v["text"]
    two = [v, pair_verdict("c", "d", 0.1, [-1, 1], 5, 0, 5)]
    assert "1 of 2 pairs" in disagreement_lines(two)[0]


def test_an_unknown_interval_is_level():
    v = pair_verdict("a", "b", 5.0, [None, None], 1, 0, 0)
    assert v["points"] is None and "n/a" in v["text"]


# ------------------------------------------------------------------------------------------------
# The sign test and the deals a question needs
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("wins,losses", [(37, 19), (10, 10), (0, 6), (12, 3), (1, 0)])
def test_sign_test_is_the_two_sided_binomial_tail(wins, losses):
    n, k = wins + losses, min(wins, losses)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2**n  # the slow, obvious version
    assert sign_test(wins, losses) == pytest.approx(min(1.0, 2 * tail) if wins != losses else 1.0)
    assert sign_test(0, 0) == 1.0


def test_deals_to_resolve_gives_the_interval_width_and_power_it_promises():
    rng = np.random.default_rng(5)
    sd, d = 4.0, 0.8
    need = deals_to_resolve(sd, d)
    halves = [mean_ci(rng.normal(0.0, sd, need["width"])).half_width for _ in range(200)]
    assert np.mean(halves) == pytest.approx(d, rel=0.05)
    hits = np.mean([mean_ci(rng.normal(d, sd, need["power"])).ci95[0] > 0 for _ in range(400)])
    assert 0.74 < hits < 0.86  # 80% power
    with pytest.raises(ValueError):
        deals_to_resolve(sd, 0.0)


# ------------------------------------------------------------------------------------------------
# The sequential design (--until-resolved)
# ------------------------------------------------------------------------------------------------
def duplicate_like(rng: np.random.Generator, shift: float, n: int) -> np.ndarray:
    """Per-deal differences as a tournament gives them: whole and half points, skewed, with draws."""
    base = rng.choice([-6.0, -3.0, -1.0, 0.0, 0.0, 1.0, 2.0, 4.0, 10.0], size=n) - 7.0 / 9.0  # mean 0
    return np.round(2 * (base + shift + rng.normal(0, 1.0, n))) / 2


def test_looks_and_their_alphas():
    assert sequential.looks(60, 600) == [60, 90, 135, 203, 305, 458, 600]
    assert sequential.looks(10, 10) == [10]
    assert sum(sequential.look_alpha(k) for k in range(1, 10_000)) < 0.05
    with pytest.raises(ValueError, match="at least --deals"):
        sequential.looks(50, 20)


@pytest.mark.parametrize("make", ["normal", "duplicate"])
def test_level_pairs_are_called_resolved_at_most_5_percent_of_the_time(make):
    rng = np.random.default_rng(2026)
    plan = sequential.looks(20, 2000)
    runs = 1000
    false = 0
    for _ in range(runs):
        d = rng.normal(0.0, 4.0, plan[-1]) if make == "normal" else duplicate_like(rng, 0.0, plan[-1])
        false += sequential.first_stop([d], plan)["resolved"]
    # the design promises <= 5%; the binomial noise of 1,000 runs at 5% is about 0.7%
    assert false / runs <= 0.05
    # a fixed 95% interval looked at after every look would be wrong far more often
    naive = 0
    for _ in range(300):
        d = rng.normal(0.0, 4.0, plan[-1])
        naive += any(not (lo <= 0 <= hi) for lo, hi in (mean_ci(d[:n]).ci95 for n in plan))
    assert naive / 300 > 0.08


def test_clear_pairs_stop_early_and_level_pairs_at_the_cap():
    rng = np.random.default_rng(7)
    plan = sequential.looks(20, 2000)
    stops = [sequential.first_stop([rng.normal(1.5, 4.0, plan[-1])], plan) for _ in range(300)]
    assert all(s["resolved"] for s in stops)
    assert np.median([s["deals"] for s in stops]) <= 135 and max(s["deals"] for s in stops) < 2000
    level = [sequential.first_stop([rng.normal(0.0, 4.0, plan[-1])], plan) for _ in range(100)]
    assert sum(s["deals"] == 2000 and not s["resolved"] for s in level) >= 95
    # two pairs: the stop waits for the slower one
    both = sequential.first_stop([rng.normal(3.0, 4.0, 2000), rng.normal(0.5, 4.0, 2000)], plan)
    assert both["resolved"] and both["deals"] > sequential.first_stop([rng.normal(3.0, 4.0, 2000)], plan)["deals"]


def test_a_look_interval_is_the_t_interval_at_the_looks_level():
    d = np.random.default_rng(1).normal(0.3, 2.0, 90)
    lo, hi = sequential.look_interval(d, 2)
    want = sps.t.interval(1 - sequential.look_alpha(2), len(d) - 1, loc=d.mean(), scale=sps.sem(d))
    assert (lo, hi) == pytest.approx(want)
