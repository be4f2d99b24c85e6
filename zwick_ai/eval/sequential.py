"""Adding deals until a pair is told apart: a group-sequential design whose stops do not inflate
the error rate (``zwick tournament --until-resolved``).

**The design.** The tournament looks at its pairs after a planned series of deal counts, fixed
before the first game: the pilot ``n₁`` (``--deals``), then each count 1.5 times the last
(rounded up), the last one the cap ``N`` (``--max-deals``). At look ``k`` each pair's mean
per-deal difference gets a t-interval at level ``1 − α_k`` with

    α_k = α · 6 / (π² k²)        (α = 0.05; the α_k add up to less than α over any number of looks)

and the run stops at the first look where every pair's interval excludes zero ("resolved"), or at
the cap. By the union bound, for a pair whose true difference is zero the chance that *any* look
excludes zero is at most Σ α_k < α: the stop never makes a level pair look resolved more often
than 5% of the time (a Bonferroni alpha-spending design: conservative, and valid whatever the
number of looks). The reported interval at the stop is that look's (wider than a fixed-size 95%
interval on the same deals); the ordinary 95% interval is reported beside it.

>>> looks(20, 100)
[20, 30, 45, 68, 100]
>>> [round(look_alpha(k), 4) for k in (1, 2, 3)]
[0.0304, 0.0076, 0.0034]
>>> import numpy as np
>>> clear = np.random.default_rng(0).normal(2.0, 4.0, 200)
>>> stop = first_stop([clear], looks(20, 200))
>>> stop["resolved"], stop["deals"]
(True, 45)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.stats import mean_ci

#: the error rate the design keeps: at most this share of level pairs is called resolved
ALPHA = 0.05
#: each look's deal count is this times the last one's (rounded up)
GROWTH = 1.5


def looks(pilot: int, cap: int, growth: float = GROWTH) -> list[int]:
    """The planned deal counts of the looks: ``pilot``, growing by ``growth``, ending at ``cap``."""
    if pilot < 2:
        raise ValueError(f"the first look needs at least 2 deals, got {pilot}")
    if cap < pilot:
        raise ValueError(f"--max-deals ({cap}) must be at least --deals ({pilot})")
    out = [pilot]
    while out[-1] < cap:
        out.append(min(cap, math.ceil(out[-1] * growth)))
    return out


def look_alpha(k: int, alpha: float = ALPHA) -> float:
    """The error the ``k``-th look (from 1) may spend: ``alpha · 6 / (π² k²)``."""
    if k < 1:
        raise ValueError(f"looks count from 1, got {k}")
    return alpha * 6 / (math.pi**2 * k * k)


def look_interval(diffs: np.ndarray, k: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The ``k``-th look's interval of the mean of ``diffs`` (a t-interval at ``1 − α_k``)."""
    return mean_ci(diffs, 1 - look_alpha(k, alpha)).ci95


def resolved(diffs: Sequence[np.ndarray], k: int, alpha: float = ALPHA) -> bool:
    """Whether every pair's interval at look ``k`` excludes zero."""
    for d in diffs:
        lo, hi = look_interval(np.asarray(d, dtype=float), k, alpha)
        if not (lo > 0 or hi < 0):
            return False
    return True


def first_stop(diffs: Sequence[np.ndarray], plan: Sequence[int], alpha: float = ALPHA) -> dict[str, Any]:
    """Where the design stops on per-deal differences given in full (each pair's array at least
    ``plan[-1]`` long, deals in order): ``deals`` at the stop, the ``look`` (from 1) and
    ``resolved``. A tournament makes the same decision look by look, playing only the deals it needs."""
    for k, n in enumerate(plan, 1):
        if resolved([np.asarray(d[:n], dtype=float) for d in diffs], k, alpha):
            return {"deals": n, "look": k, "resolved": True}
    return {"deals": plan[-1], "look": len(plan), "resolved": False}


def stop_record(diffs: Sequence[np.ndarray], plan: Sequence[int], k: int, alpha: float = ALPHA) -> dict[str, Any]:
    """What a report says of a sequential run stopped at look ``k``: the plan, the look, whether
    it resolved every pair, and each pair's interval at that look."""
    return {
        "design": f"group-sequential, alpha spent {alpha:g}·6/(π²k²) at look k (union bound: at most {alpha:g} in all)",
        "plan": list(plan),
        "look": k,
        "deals": plan[k - 1],
        "resolved": resolved(diffs, k, alpha),
        "look_level": 1 - look_alpha(k, alpha),
        "intervals": [[float(x) for x in look_interval(np.asarray(d, dtype=float), k, alpha)] for d in diffs],
    }


def run_until_resolved(
    t: Any, out: str | Path, max_deals: int, backend: Any = None, progress: bool = True, say: Any = None
) -> dict[str, Any] | None:
    """Play the tournament ``t`` look by look (:func:`looks` from ``t.deals`` to ``max_deals``) into
    ``out`` and stop at the first look that resolves every pair, or at the cap; the summary gains
    ``sequential`` (:func:`stop_record`) and the folder's files say where it stopped. None when
    interrupted; the same call resumes (the looks already played are read back, not replayed).
    ``say(text)`` reports each look."""
    from zwick_ai.eval.tournament import run_tournament
    from zwick_ai.eval.tournament.report import write_outputs
    from zwick_ai.eval.tournament.summary import finished_differences

    plan = looks(t.deals, max_deals)
    for k, n in enumerate(plan, 1):
        t.deals = n
        summary = run_tournament(t, out, backend, progress=progress, plots=False)
        diffs = None if summary is None else finished_differences(t, out)
        if summary is None or diffs is None:
            return None
        pairs = [diffs[:, c] for c in range(diffs.shape[1])]
        done = resolved(pairs, k) or k == len(plan)
        if say is not None:
            state = "every pair resolved" if resolved(pairs, k) else ("the cap" if done else "not resolved yet")
            say(f"look {k} of {len(plan)} at {n} deals: {state}")
        if done:
            summary["sequential"] = stop_record(pairs, plan, k)
            write_outputs(summary, Path(out))
            return summary
    return None  # not reached: the last look always stops


__all__ = [
    "ALPHA",
    "GROWTH",
    "first_stop",
    "look_alpha",
    "look_interval",
    "looks",
    "resolved",
    "run_until_resolved",
    "stop_record",
]
