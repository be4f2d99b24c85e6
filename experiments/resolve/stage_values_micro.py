"""Learned stage values against the exact equilibrium value of each stage boundary, on the
two-stage micro Zwicker (one card a hand, ranks A23, two suits, two stages).

Every distinct stage-2 start reached by 4,000 hands of random play (random play reaches the most
boundaries) is valued three ways: exactly (``resolve``'s solve of the last stage over all its
deals, 1,000 CFR+ iterations: the equilibrium value), by the stage-value model fitted on greedy
self-play (``python -m zwick_ai.learn.stage_values``'s fit, 3,000 hands), and by greedy play of
every deal (the model's target: greedy continuation). Writes ``OUT.json`` and ``OUT.md``.

    python experiments/resolve/stage_values_micro.py --out experiments/results/resolve/stage-values-micro
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import numpy as np
import pyspiel

import zwick_ai.games  # noqa: F401
from zwick_ai import zwicker
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import resolve
from zwick_ai.learn.stage_values import fit
from zwick_ai.zwicker import arrays, kernels, public_deals
from zwick_ai.zwicker.policy_codes import POLICY_RANDOM

OPTIONS = {"ranks": "A23", "suits": "CD", "jokers": "none", "hand_size": 1, "table_size": 2, "stages": 2}


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--fit-hands", type=int, default=3000)
    p.add_argument("--visit-hands", type=int, default=4000)
    args = p.parse_args()
    rules = zwicker.rules("dithmarschen", players=2, **OPTIONS)
    R = rules.array()
    model, report = fit(R, args.fit_hands, seed=0)
    game = pyspiel.load_game(
        "zwicker(variant=dithmarschen,players=2," + ",".join(f"{k}={v}" for k, v in OPTIONS.items()) + ")"
    )
    agent = make_agent("resolve:time=0,iters=1000", game)
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    found: dict[int, tuple[np.ndarray, int]] = {}
    for seed in range(args.visit_hands):
        S = kernels.new_hand(R, 10_000 + seed, W)
        kernels.play_out_to(R, S, np.full(2, POLICY_RANDOM, np.int64), W, 0, buf, X)
        if arrays.is_over(S):
            continue
        key = int(arrays.public_hash(R, S))
        found[key] = (S, found.get(key, (S, 0))[1] + 1)
    rows = []
    for S, visits in found.values():
        exact = resolve.solved_stage_value(R, S, agent.params, agent)[0]
        learned = resolve.model_stage_value(R, S, model)[0]
        deals = public_deals.boundary_deals(R, S)
        greedy = float(np.mean([resolve.rollout_value(R, D)[0] for D in deals]))
        rows.append({"visits": visits, "exact": exact, "model": learned, "greedy_playout": greedy})
    v = np.array([r["visits"] for r in rows], float)
    ex, mo, gr = (np.array([r[k] for r in rows]) for k in ("exact", "model", "greedy_playout"))
    summary = {
        "boundaries": len(rows),
        "fit": report,
        "mae_model_vs_exact": float(np.abs(mo - ex).mean()),
        "mae_model_vs_exact_weighted": float((v * np.abs(mo - ex)).sum() / v.sum()),
        "mae_greedy_vs_exact": float(np.abs(gr - ex).mean()),
        "mae_model_vs_greedy": float(np.abs(mo - gr).mean()),
        "exact_sd": float(ex.std()),
        "corr_model_exact": float(np.corrcoef(mo, ex)[0, 1]),
    }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.with_suffix(".json").write_text(json.dumps({"summary": summary, "rows": rows}, indent=1))
    lines = [
        "# Learned stage values against the exact equilibrium value (two-stage micro Zwicker)",
        "",
        f"{len(rows)} distinct stage-2 starts (random play, 4,000 hands). Values are side 0's, raw points.",
        "",
        "| measure | value |",
        "|---|---:|",
        *(f"| {k} | {val:.3f} |" for k, val in summary.items() if isinstance(val, float)),
        f"| model held-out MAE (greedy returns, {report['held_out_boundaries']} boundaries) | {report['held_out_mae']:.3f} |",
    ]
    args.out.with_suffix(".md").write_text("\n".join(lines) + "\n")
    print(json.dumps(summary, indent=1))


if __name__ == "__main__":
    main()
