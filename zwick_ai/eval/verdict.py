"""A pair's result in words: points a deal and deals won, each with its test, and one sentence
that says what they show together, so that a report cannot be read as more than its numbers.

Two measures of one pair on the same duplicate deals:

* **points** (chips in the trick games): the mean per-deal difference ``a − b`` with its 95%
  t-interval paired over deals (:func:`zwick_ai.stats.mean_ci`); it separates the pair when
  the interval excludes zero. This is the game's own score, and what the reports rank by.
* **wins**: the deals each side won (a positive or negative duplicate difference; draws left
  out), with the two-sided exact **sign test** (binomial, p = ½ under "level"); it separates the
  pair when ``p < 0.05``.

The sentence names the four cases, and a fifth when the measures point opposite ways:

>>> v = pair_verdict("A", "B", 0.53, [-0.54, 1.60], 37, 4, 19)
>>> v["case"], v["text"]  # doctest: +NORMALIZE_WHITESPACE
('wins only', '`A` and `B`: level on points (+0.53 [-0.54, +1.60] a deal); `A` wins more deals
(37-19, 4 drawn, sign test p = 0.022) by smaller margins.')
>>> pair_verdict("A", "B", -3.0, [-5.0, -1.0], 10, 0, 40)["text"]
'`B` scores more points (+3.00 [+1.00, +5.00] a deal over `A`) and wins more deals (40-10, sign test p < 0.001).'

The number of deals a question needs follows from the paired spread (:func:`deals_to_resolve`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from scipy import stats as scipy_stats

#: the level of every test and interval of a verdict
ALPHA = 0.05
#: the power for which :func:`deals_to_resolve` also says how many deals detect a true difference
POWER = 0.8


def sign_test(wins: int, losses: int) -> float:
    """The two-sided exact sign test of ``wins`` against ``losses`` (draws left out): the chance,
    if each decided deal were a fair coin, of a split at least this uneven. 1.0 without decided deals.

    >>> sign_test(37, 19) < 0.05 < sign_test(30, 20)
    True
    """
    n = wins + losses
    if n == 0:
        return 1.0
    return float(min(1.0, scipy_stats.binomtest(wins, n, 0.5).pvalue))


def p_text(p: float) -> str:
    """A p-value as a report shows it.

    >>> p_text(0.0226), p_text(0.00001), p_text(0.41)
    ('p = 0.023', 'p < 0.001', 'p = 0.41')
    """
    if p < 0.001:
        return "p < 0.001"
    return f"p = {p:.3f}" if p < 0.1 else f"p = {p:.2f}"


def _side(lo: float | None, hi: float | None) -> int:
    """+1 when an interval lies above zero, -1 below, 0 when it reaches zero (or is unknown)."""
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return 0
    return 1 if lo > 0 else (-1 if hi < 0 else 0)


def _signed(x: float) -> str:
    return f"{round(x, 2) + 0.0:+.2f}"  # + 0.0: no "-0.00"


def points_text(mean: float, ci: Sequence[float | None], unit: str = "points") -> str:
    """``+m [lo, hi]`` of a difference (``n/a`` bounds when unknown)."""
    lo, hi = ci
    bounds = "n/a" if lo is None or hi is None else f"[{_signed(lo)}, {_signed(hi)}]"
    return f"{_signed(mean)} {bounds}"


def _turned(ci: Sequence[float | None], sign: int) -> list[float | None]:
    """An interval of ``a − b`` as one of ``b − a`` when ``sign`` is -1."""
    lo, hi = ci
    if sign == 1:
        return [lo, hi]
    return [None if hi is None else -hi, None if lo is None else -lo]


def pair_verdict(
    a: str,
    b: str,
    mean_diff: float,
    ci95: Sequence[float | None],
    wins_a: int,
    draws: int,
    losses_a: int,
    unit: str = "points",
) -> dict[str, Any]:
    """What a pair's two measures show: ``points`` and ``wins`` (the agent each favours, None when
    level), ``sign_p`` (the sign test's p), ``case`` (``both``, ``points only``, ``wins only``,
    ``neither`` or ``opposite``) and ``text``, the sentence of the reports."""
    lo, hi = ci95
    by_points = _side(lo, hi)
    p = sign_test(wins_a, losses_a)
    by_wins = 0 if p >= ALPHA or wins_a == losses_a else (1 if wins_a > losses_a else -1)
    name = {1: a, -1: b}
    drawn = f", {draws} drawn" if draws else ""
    lead = by_points or by_wins or (1 if mean_diff >= 0 else -1)
    top, other = name[lead], name[-lead]
    margin = points_text(lead * mean_diff, _turned(ci95, lead))
    won, lost = (wins_a, losses_a) if lead == 1 else (losses_a, wins_a)
    record = f"{won}-{lost}{drawn}, sign test {p_text(p)}"
    plain = f"{points_text(mean_diff, ci95)} a deal"
    if by_points and by_wins == by_points:
        case = "both"
        text = f"`{top}` scores more {unit} ({margin} a deal over `{other}`) and wins more deals ({record})."
    elif by_points and by_wins:
        case = "opposite"
        text = (
            f"`{top}` scores more {unit} ({margin} a deal over `{other}`), but `{other}` wins more deals "
            f"({lost}-{won}{drawn}, sign test {p_text(p)}): `{top}` wins fewer deals by larger margins."
        )
    elif by_points:
        case = "points only"
        text = (
            f"`{top}` scores more {unit} ({margin} a deal over `{other}`); the deals won are level "
            f"({record}): it wins bigger, not more often."
        )
    elif by_wins:
        case = "wins only"
        text = f"`{a}` and `{b}`: level on {unit} ({plain}); `{top}` wins more deals ({record}) by smaller margins."
    else:
        case = "neither"
        text = f"`{a}` and `{b}` are level: on {unit} ({plain}) and on deals won ({wins_a}-{losses_a}{drawn}, sign test {p_text(p)})."
    return {
        "points": name.get(by_points),
        "wins": name.get(by_wins),
        "sign_p": p,
        "case": case,
        "text": text,
    }


def disagreement_lines(verdicts: Sequence[dict[str, Any]]) -> list[str]:
    """The lines a report puts above its tables when points and wins tell a pair apart
    differently (every case but ``both`` and ``neither``); empty when they agree everywhere."""
    split = [v for v in verdicts if v["case"] not in ("both", "neither")]
    if not split:
        return []
    head = (
        "**Points and deals won disagree** for "
        + ("this pair" if len(verdicts) == 1 else f"{len(split)} of {len(verdicts)} pairs")
        + ": the tables rank by points a deal (the game's score); the wins rating beside it counts deals won."
    )
    return [head]


def deals_to_resolve(sd: float, difference: float, level: float = 1 - ALPHA, power: float = POWER) -> dict[str, Any]:
    """How many duplicate deals a question about a true difference ``difference`` needs, from the
    paired per-deal spread ``sd`` (a pilot's or a finished run's), by the normal approximation:

    * ``width``: deals for the 95% interval's half-width to be ``difference``, ``(z sd / d)²``;
    * ``power``: deals for a 95% interval to exclude zero with probability ``power`` when the true
      difference is ``difference``, ``((z + z_power) sd / d)²``.

    >>> deals_to_resolve(4.14, 0.5)
    {'difference': 0.5, 'sd': 4.14, 'width': 264, 'power': 539}
    """
    if not (math.isfinite(sd) and sd >= 0) or difference <= 0:
        raise ValueError(f"need a finite spread >= 0 and a difference > 0, got sd {sd}, difference {difference}")
    z = float(scipy_stats.norm.ppf(0.5 + level / 2))
    zp = float(scipy_stats.norm.ppf(power))
    return {
        "difference": difference,
        "sd": sd,
        "width": max(2, math.ceil((z * sd / difference) ** 2)),
        "power": max(2, math.ceil(((z + zp) * sd / difference) ** 2)),
    }


def resolve_text(need: dict[str, Any], unit: str = "points") -> str:
    """A :func:`deals_to_resolve` answer as the reports print it.

    >>> resolve_text(deals_to_resolve(4.14, 0.5))
    'to resolve ±0.50 points a deal (the 95% CI that wide): about 264 deals; to detect a true 0.50 with 80% power: about 539'
    """
    d = need["difference"]
    return (
        f"to resolve ±{d:.2f} {unit} a deal (the 95% CI that wide): about {need['width']:,} deals; "
        f"to detect a true {d:.2f} with {POWER:.0%} power: about {need['power']:,}"
    )


def too_few_deals(
    est: dict[str, Any] | None, effects: Sequence[float], deals: int | None = None
) -> dict[str, Any] | None:
    """Whether an estimate (a results-file dict: ``mean`` or ``mean_diff``, ``ci95``, and ``n`` or
    ``deals``) rests on too few deals to tell anything its table is about: its 95% interval
    reaches zero and its half-width exceeds the largest effect ``effects`` (the absolute means of
    its table). Then
    ``half_width``, ``largest`` and ``need``, the deals that would make the interval that narrow
    (:func:`deals_to_resolve`, the spread read back from the interval); else None.

    >>> too_few_deals({"mean": 0.0, "ci95": [-11.8, 11.8], "n": 4}, [2.6, -1.7])["need"]["width"]
    32
    >>> too_few_deals({"mean": -1.7, "ci95": [-1.8, -1.6], "n": 20000}, [2.6, -1.7]) is None
    True
    >>> too_few_deals({"mean": 1.7, "ci95": [0.3, 3.1], "n": 30}, [0.4, -0.2]) is None  # the sign is told
    True
    """
    if not est or est.get("ci95") is None or None in est["ci95"]:
        return None
    lo, hi = est["ci95"]
    n = int(est.get("n") or est.get("deals") or deals or 0)
    largest = max((abs(x) for x in effects if math.isfinite(x)), default=0.0)
    half = (hi - lo) / 2
    if n < 2 or not math.isfinite(half) or half <= largest or largest <= 0 or lo > 0 or hi < 0:
        return None  # a resolved sign, or an interval narrower than the effects: the deals tell
    sd = half * math.sqrt(n) / float(scipy_stats.t.ppf(1 - ALPHA / 2, n - 1))
    return {"half_width": half, "largest": largest, "need": deals_to_resolve(sd, largest)}


def too_few_text(flag: dict[str, Any], unit: str = "points") -> str:
    """The label of :func:`too_few_deals`."""
    return (
        f"too few deals to tell: ±{flag['half_width']:.2f} is wider than the largest effect in its table "
        f"({flag['largest']:.2f}); about {flag['need']['width']:,} deals would resolve ±{flag['largest']:.2f} {unit}"
    )


__all__ = [
    "ALPHA",
    "POWER",
    "deals_to_resolve",
    "disagreement_lines",
    "p_text",
    "pair_verdict",
    "points_text",
    "resolve_text",
    "sign_test",
    "too_few_deals",
    "too_few_text",
]
