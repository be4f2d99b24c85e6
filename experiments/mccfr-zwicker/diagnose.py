"""Where a Zwicker MCCFR run's table loses points to greedy: its average strategy (or its current
regret-matching strategy) plays our side against a greedy field on duplicate deals, seats in turn,
beside greedy in the same seats; at each of our decisions greedy's move is noted, and the
decisions are counted by (greedy's kind of move, ours) with the one-ply greedy-score gap between
them, captures passed up, jokers trailed (with a capture at hand), the probability the table puts
on the abstract action holding greedy's move, the table's visits and the unseen sets (played
uniformly at random, as ``fallback=uniform``).

    python experiments/mccfr-zwicker/diagnose.py runs/mccfr-stakes/dithmarschen4-stakes --deals 300
    python experiments/mccfr-zwicker/diagnose.py RUN --mode current   # the regret-matching strategy
    python experiments/mccfr-zwicker/diagnose.py RUN --features-only-key  # stakes tables trained before
        # the key held the classes present

The row "p_greedy_sum / p_greedy_n" is the mean probability of greedy's action at the table's
decisions; "loss X" the mean greedy-score gap per decision (points taken, not the hand's outcome).
"""

from __future__ import annotations

import argparse
from collections import Counter, defaultdict
from pathlib import Path

import numpy as np

import zwick_ai.games  # noqa: F401
from zwick_ai.agents.cfr.core import R_OFF, R_VIS, lookup
from zwick_ai.agents.cfr.zwicker_abstraction import (
    MAX_GROUPS,
    STAKES,
    card_total,
    present_strategy,
    stakes_features,
    zwicker_decision,
)
from zwick_ai.learn.cfr import load_checkpoint
from zwick_ai.zwicker import arrays, kernels, layout

KIND = {0: "trail", 1: "capture", 2: "build", 3: "ask"}


def greedy_best(R, S, buf, n):
    vals = [kernels.greedy_value(R, S, buf[k]) for k in range(n)]
    return int(np.argmax(vals)), vals


def run(path: str, deals: int = 300, seed: int = 20261207, mode: str = "avg", min_vis: int = 0, old_key: bool = False):
    """Print the breakdown of the run at ``path`` (module docstring); returns (diff, ci95, counts)."""
    solver, meta = load_checkpoint(Path(path) / "checkpoint")
    R = solver.cfg
    abst = solver._abst
    T = solver.table.compiled()
    total = card_total(R)
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    idx = np.zeros(MAX_GROUPS, np.int64)
    pol = np.zeros(MAX_GROUPS, np.float64)
    rng = np.random.default_rng(1)
    players = int(arrays.players(R))
    stats = Counter()
    loss = defaultdict(float)  # greedy-value gap by category
    visits = []
    diffs = np.zeros(deals)
    for d in range(deals):
        s = seed + d
        for seat in range(players):
            for who in ("ours", "greedy"):
                S = kernels.new_hand(R, s, W)
                np.random.seed(s * 31 + seat)
                while not arrays.is_over(S):
                    buf, X, n = kernels.gen_moves(R, S, buf, W, X)
                    cur = arrays.to_move(S)
                    if arrays.side_of(R, cur) == arrays.side_of(R, seat) and who == "ours":
                        kg, vals = greedy_best(R, S, buf, n)
                        key, m = zwicker_decision(R, S, buf, n, abst, idx)
                        if old_key and abst == STAKES:  # the key before the present classes were in it
                            key = np.array([stakes_features(R, S, total)], dtype=np.uint64).view(np.int64)[0]
                            key = key if key != 0 else np.int64(1)
                        r = lookup(T.keys, T.rowof, key)
                        seen = r >= 0 and T.rows[r, 3] == m
                        vis = int(T.rows[r, R_VIS]) if seen else 0
                        if seen and vis >= min_vis:
                            src = T.avg if mode in ("avg", "argmax") else T.regret
                            present_strategy(src, T.rows[r, R_OFF], m, idx, pol, mode == "current")
                            if mode == "argmax":
                                a = int(np.argmax(pol[:m]))
                            else:
                                a = int(rng.choice(m, p=pol[:m] / pol[:m].sum()))
                            k = int(idx[a])
                            # the probability the policy puts on greedy's move's abstract action
                            ga = [i for i in range(m) if idx[i] == kg]
                            pg = float(pol[ga[0]]) if ga else 0.0
                            stats["p_greedy_sum"] += pg
                            stats["p_greedy_n"] += 1
                            if not ga:
                                stats["greedy_move_not_a_rep"] += 1
                            visits.append(vis)
                        elif seen:
                            k = kg  # below min_vis: greedy's move
                            stats["greedy_fallback"] += 1
                        else:
                            k = int(np.random.randint(n))
                            stats["unseen"] += 1
                        stats["decisions"] += 1
                        mk = int(buf[k][layout.M_KIND])
                        gk = int(buf[kg][layout.M_KIND])
                        has_cap = any(int(buf[j][layout.M_KIND]) == 1 for j in range(n))
                        c = int(buf[k][layout.M_CARD])
                        gap = vals[kg] - vals[k]
                        cat = f"greedy {KIND[gk]} / ours {KIND[mk]}"
                        stats[cat] += 1
                        loss[cat] += gap
                        if k == kg or abs(vals[k] - vals[kg]) < 1e-9:
                            stats["same_as_greedy"] += 1
                        if mk == 0 and arrays.is_joker(R, c):
                            stats["trail_joker"] += 1
                            if has_cap:
                                stats["trail_joker_with_capture"] += 1
                        if mk == 0 and has_cap:
                            stats["trail_with_capture"] += 1
                        if has_cap:
                            stats["capture_available"] += 1
                        if mk == 1 and gk == 1 and k != kg and gap > 1e-9:
                            stats["worse_capture"] += 1
                            loss["worse_capture_pts"] += gap
                    elif arrays.side_of(R, cur) == arrays.side_of(R, seat):
                        k = kernels.choose(R, S, buf, n, 1)  # POLICY_GREEDY
                    else:
                        k = kernels.choose(R, S, buf, n, 1)
                    kernels.apply_move(R, S, buf[k], W)
                sc = kernels.score(R, S)
                ns = arrays.sides(R)
                tot = sum(int(sc[i]) for i in range(ns))
                v = ns * sc[arrays.side_of(R, seat)] - tot
                diffs[d] += (v if who == "ours" else -v) / players
    ci = 1.96 * diffs.std(ddof=1) / np.sqrt(deals)
    print(f"{path} mode={mode} min_vis={min_vis}: diff {diffs.mean():+.2f} +- {ci:.2f}")
    D = stats["decisions"]
    for k2, v in sorted(stats.items()):
        print(f"  {k2:40s} {v:8.0f} {v / D:7.3f}")
    for k2, v in sorted(loss.items()):
        print(f"  loss {k2:35s} {v / D:8.3f} per decision")
    if visits:
        vv = np.array(visits)
        print("  visits quantiles", np.percentile(vv, [10, 25, 50, 75, 90]).astype(int))
    return diffs.mean(), ci, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("run", help="a training folder (checkpoint.npz/.json)")
    ap.add_argument("--deals", type=int, default=300)
    ap.add_argument("--seed", type=int, default=20261207, help="evaluate.py's deals")
    ap.add_argument("--mode", choices=("avg", "current", "argmax"), default="avg")
    ap.add_argument("--min-visits", type=int, default=0, help="greedy's move at sets visited fewer times")
    ap.add_argument("--features-only-key", action="store_true")
    a = ap.parse_args()
    run(a.run, a.deals, a.seed, a.mode, a.min_visits, a.features_only_key)


if __name__ == "__main__":
    main()
