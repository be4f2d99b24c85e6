"""How reports show numbers: estimates with their 95% intervals as text, Markdown tables, and the
plots' error bars. Shared by the tournaments (:mod:`zwick_ai.eval.tournament`) and the studies
(:mod:`zwick_ai.analysis.joker`); the statistics themselves are :mod:`zwick_ai.stats`.

An estimate in a results file is a dict with ``mean`` (or ``mean_diff`` for a paired difference)
and ``ci95``:

>>> ci_text({"mean": 1.234, "ci95": [0.5, 2.0]})
'+1.23 [+0.50, +2.00]'
>>> ci_text(None), percent_text({"mean": 0.25, "ci95": [0.2, 0.3]})
('–', '25.0% [20.0, 30.0]')
>>> diff_estimate([1.0, 2.0, 3.0])["mean_diff"], interval_text([None, 2.0])
(2.0, 'n/a')
>>> markdown_table(["a", "b"], [[1, 2]])
['| a | b |', '|---|---|', '| 1 | 2 |']
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from zwick_ai.stats import mean_ci


def diff_estimate(values: Sequence[float] | np.ndarray) -> dict[str, Any]:
    """The mean of paired differences with its t-interval, as a results-file dict (``mean_diff``, ``ci95``)."""
    e = mean_ci(values)
    return {"mean_diff": e.mean, "ci95": [e.ci95[0], e.ci95[1]]}


def ci_text(e: dict | None, digits: int = 2) -> str:
    """``+m [lo, hi]`` with signs of an estimate dict (``mean`` or ``mean_diff``, ``ci95``); ``–`` for none."""
    if not e:
        return "–"
    m, lo, hi = (round(x, digits) + 0.0 for x in (e["mean_diff"] if "mean_diff" in e else e["mean"], *e["ci95"]))
    return f"{m:+.{digits}f} [{lo:+.{digits}f}, {hi:+.{digits}f}]"  # + 0.0 above: no "-0.00"


def percent_text(e: dict) -> str:
    """A proportion estimate as ``m% [lo, hi]``."""
    return f"{100 * e['mean']:.1f}% [{100 * e['ci95'][0]:.1f}, {100 * e['ci95'][1]:.1f}]"


def interval_text(ci: Sequence[float | None], digits: int = 1) -> str:
    """An interval as ``[lo, hi]``; ``n/a`` when a bound is missing."""
    lo, hi = ci
    if lo is None or hi is None:
        return "n/a"
    return f"[{lo:.{digits}f}, {hi:.{digits}f}]"


def markdown_table(header: Sequence[str], rows: Iterable[Sequence[object]] = (), numeric: bool = False) -> list[str]:
    """The lines of a Markdown table: the header, its rule, one line per row (each cell as ``str``).
    ``numeric``: every column after the first is right-aligned.

    >>> markdown_table(["agent", "rating"], [["`greedy`", 12]], numeric=True)
    ['| agent | rating |', '|---|---:|', '| `greedy` | 12 |']
    """
    rule = "|---|" + "---:|" * (len(header) - 1) if numeric else "|" + "---|" * len(header)
    return ["| " + " | ".join(header) + " |", rule] + ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]


def error_bars(ests: Sequence[dict | None]) -> tuple[np.ndarray, list[np.ndarray]]:
    """(means, [below, above]) of estimate dicts, for matplotlib's ``xerr``/``yerr``; a missing
    estimate (``None``) is a bar of 0 without error.

    >>> means, (below, above) = error_bars([{"mean": 1.0, "ci95": [0.5, 2.0]}, None])
    >>> means.tolist(), below.tolist(), above.tolist()
    ([1.0, 0.0], [0.5, 0.0], [1.0, 0.0])
    """
    means = np.array([(e["mean_diff"] if "mean_diff" in e else e["mean"]) if e else 0.0 for e in ests])
    below = means - np.array([e["ci95"][0] if e else 0.0 for e in ests])
    above = np.array([e["ci95"][1] if e else 0.0 for e in ests]) - means
    return means, [below, above]


def bar_ci(ax: Any, x: Any, ests: Sequence[dict], width: float, label: str) -> None:
    """Bars of estimate dicts at ``x`` with their 95% intervals."""
    means, err = error_bars(ests)
    ax.bar(x, means, width, yerr=err, capsize=3, label=label)
