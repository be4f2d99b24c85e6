"""The strong-play run's JSONL lines summarised: each joker rule's margin and each joker's value
with 95% confidence intervals, plain and with the control variate, and how the agent played its
jokers (the ``strong_play`` object of ``results.json``)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from zwick_ai import cards
from zwick_ai.agents import joker_policies
from zwick_ai.analysis.joker.deals import joker_name, study_jokers
from zwick_ai.analysis.joker.strong_play import STRONG_POLICIES, StrongConfig
from zwick_ai.eval.report import diff_estimate
from zwick_ai.stats import best_or_tie
from zwick_ai.zwicker.rules import Rules


def variance_ratio(plain: np.ndarray, cv: np.ndarray) -> float:
    """Var(corrected) / Var(plain) on the same deals (below 1: the control variate helps)."""
    v = float(np.var(plain, ddof=1))
    return float(np.var(cv, ddof=1)) / v if v > 0 else float("nan")


def summarize(cfg: StrongConfig, lines: dict[int, dict[str, Any]], file: str) -> dict[str, Any]:
    """The ``strong_play`` object of ``results.json`` (the keys DESIGN.md fixes, plus the control variate,
    the joker behaviour and what the run used)."""
    rules = cfg.rules()
    ordered = [lines[d] for d in sorted(lines)]
    n = len(ordered)
    policies = []
    for spec in STRONG_POLICIES:
        label = joker_policies.policy_label(*joker_policies.parse_policy(spec))
        plain = np.array([x["policies"][label]["plain"] for x in ordered])
        cv = np.array([x["policies"][label]["cv"] for x in ordered])
        policies.append(
            {
                "policy": label,
                "vs": cfg.agent,
                "deals": n,
                **diff_estimate(plain),
                "cv": diff_estimate(cv),
                "variance_ratio": variance_ratio(plain, cv),
            }
        )
    ranked = sorted(policies, key=lambda p: -p["mean_diff"])
    # the unrestricted agent is a contestant too: its margin against itself is 0 on every deal
    per_deal = {"unrestricted": np.zeros(n)} | {
        label: np.array([x["policies"][label]["plain"] for x in ordered]) for label in (p["policy"] for p in policies)
    }
    verdict = best_or_tie(per_deal) if n > 1 else None
    values = []
    for j in study_jokers(rules):
        name = joker_name(j)
        rows = [x["joker_value"][name] for x in ordered if name in x["joker_value"]]
        if len(rows) < 2:
            continue
        pts = np.array([r["points"] for r in rows], float)
        m = np.array([r["margin"] for r in rows])
        mc = np.array([r["margin_cv"] for r in rows])
        values.append(
            {
                "joker": name,
                "deals": len(rows),
                **diff_estimate(pts),
                "margin": diff_estimate(m),
                "margin_cv": diff_estimate(mc),
                "variance_ratio": variance_ratio(m, mc),
            }
        )
    # one game's margin, unpaired (the reference game, every seat unrestricted): what the control
    # variate removes from a game before any pairing
    one = [(x["ref_margin"][0], x["ref_margin_cv"][0]) for x in ordered if "ref_margin_cv" in x]
    one_game = {"deals": len(one), "variance_ratio": variance_ratio(*np.array(one).T)} if len(one) > 1 else None
    seconds = float(np.mean([x["seconds"] for x in ordered])) if ordered else float("nan")
    vs = np.array([x["vs_greedy"] for x in ordered if "vs_greedy" in x])
    best = ranked[0]
    return {
        "agent": cfg.agent,
        "deals": n,
        "policies": policies,
        "joker_value": values,
        "best_policy": {
            "policy": (verdict["best"] or "tie") if verdict else "tie",
            "note": "the top joker use (a rule or 'unrestricted') is called best only when the CI of its paired "
            "lead over the runner-up excludes 0, else 'tie' with the uses it is not separated from; margin: the "
            "best rule's margin over the unrestricted agent",
            "top": verdict["top"] if verdict else best["policy"],
            "second": verdict["second"] if verdict else None,
            "lead": verdict["lead"] if verdict else None,
            "tied": verdict["tied"] if verdict else [],
            "margin": {"mean_diff": best["mean_diff"], "ci95": best["ci95"]},
        },
        "behaviour": behaviour(rules, ordered),
        "vs_greedy": {"deals": len(vs), **diff_estimate(vs)} if len(vs) > 1 else None,
        "seed": cfg.seed,
        "cv_samples": cfg.cv_samples,
        "cv_model": cfg.cv_model,
        "one_game": one_game,
        "weights": cfg.weights(),
        "file": file,
        "seconds_per_deal": seconds,
        "replayed_seatings": int(sum(x.get("replayed_seatings", 0) for x in ordered)),
    }


def behaviour(rules: Rules, lines: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per joker, how the unrestricted agent played it in the reference games: stage, cards in
    hand, capture/build/trail, table points taken by its captures, who captured it in the end."""
    plays = [p for x in lines for p in x["plays"]]
    out = []
    for j in study_jokers(rules):
        name = joker_name(j)
        rows = [p for p in plays if p["joker"] == name or (cards.is_wild_joker(j) and p["joker"].startswith("XW"))]
        item: dict[str, Any] = {"joker": name, "plays": len(rows)}
        if rows:
            taken = np.array([p["taken"] for p in rows if p["kind"] == "capture"], float)
            item |= {
                "stage_counts": np.bincount([p["stage"] for p in rows]).tolist(),
                "hand_counts": np.bincount([p["hand"] for p in rows]).tolist(),
                "last_stage_share": float(np.mean([p["last_stage"] for p in rows])),
                "kinds": {k: sum(p["kind"] == k for p in rows) for k in ("capture", "build", "trail")},
                "points_taken_when_capturing": diff_estimate(taken) if len(taken) > 1 else None,
                "captured_by": {k: sum(p["captured_by"] == k for p in rows) for k in ("holder", "opponents", "nobody")},
            }
        out.append(item)
    return out
