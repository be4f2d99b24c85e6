"""The CFR family (zwick_ai.agents.cfr): speed against OpenSpiel's C++ MCCFR, convergence of
exact CFR+ and compiled MCCFR, and the strength of trained MCCFR policies.

Parts (``--part``, default all):

* ``speed``: traversals per second of our compiled outcome- and external-sampling MCCFR on
  ``zwikken`` (parlett, 3 players) against ``pyspiel.OutcomeSamplingMCCFRSolver`` and
  ``pyspiel.ExternalSamplingMCCFRSolver`` on the same OpenSpiel game, in one run. One traversal =
  one episode of one update player (OpenSpiel's outcome sampling does one per ``run_iteration``,
  its external sampling one per player; ours one per player per iteration).
* ``exact``: our exact CFR+ against OpenSpiel's C++ ``CFRPlusSolver`` on the Zwicker micro variant
  (50 iterations): the same ``nash_conv``, and both times.
* ``convergence``: ``nash_conv`` against iterations of CFR+ (exact) and external/outcome MCCFR on a
  2-player Zwicker micro variant and a reduced-pack 3-player Zwikken; CSV + PNG in ``--out``.
* ``abstraction``: CFR+ with and without the ``observation`` information abstraction on a Zwicker
  micro game with two-card hands: information sets and ``nash_conv`` in the real game.
* ``zwicker``: the Zwicker information abstractions of ``zwick train mccfr --game zwicker...``
  (``buckets``, ``coarse``; ``probe`` and ``outcome`` sampling) on the micro games that exact CFR
  solves: ``nash_conv`` of the abstract strategy in the real game, next to exact CFR+ and
  unabstracted tree MCCFR (``--micro micro micro2``, ``--zwicker-iterations``).
* ``strength``: MCCFR (``--sampling``, default external) with a trick-game information abstraction
  (``--abstraction``, default ``buckets``) trained for ``--train-seconds`` (or ``--iterations``) on
  zwikken parlett 3p and zwicken 4p (``--game``), seed 1, policy saved under ``--policies``; then
  the compiled chips per deal against random and greedy fields for several ``min_visits``
  thresholds (to choose one), and the ``mccfr`` agent played with ``eval.match.play_game`` against
  random and greedy opponents: at each seat in turn on the same deals (duplicate deals 1000..,
  seats rotated), chips per deal with 95% CI; the difference to the opponents' own agent in the
  same seats on the same deals is the paired gain. ``--reuse`` plays an existing policy;
  ``--field greedy`` trains against a greedy field instead of self-play (best-response
  training, not CFR).

Usage: ``python benchmarks/bench_cfr.py [--part speed|exact|convergence|abstraction|strength|zwicker] [--seconds S]``;
strength, e.g. ``--part strength --game zwikken --train-seconds 600 --deals 0`` then
``--part strength --game zwikken --reuse --deals 1000 --min-visits 0 3000``.
"""

from __future__ import annotations

import argparse
import csv
import json
import time
from pathlib import Path

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from zwick_ai.agents import make_agent
from zwick_ai.eval.match import play_game
from zwick_ai.learn.cfr import ExactSolver, MCCFRSolver, extract, save_policy
from zwick_ai.plots import save_png
from zwick_ai.stats import mean_ci

ZWIKKEN = "zwikken(variant=parlett,players=3)"
ZWICKEN = "zwicken(players=4)"
MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"
MICRO2 = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"
REDUCED = "zwikken(variant=parlett,players=3,tricks=1,ranks=AKQ,suits=CD,max_bid_levels=1)"


def timed(step, seconds: float) -> tuple[int, float]:
    """Call ``step()`` (returns work done) until ``seconds`` pass; (work, seconds)."""
    done, t0 = 0, time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        done += step()
    return done, time.perf_counter() - t0


def part_speed(seconds: float) -> dict:
    game = pyspiel.load_game(ZWIKKEN)
    n = game.num_players()
    out = {}
    for sampling, cls, per_call, ours_chunk in (
        ("outcome", pyspiel.OutcomeSamplingMCCFRSolver, 1, 2000),
        ("external", pyspiel.ExternalSamplingMCCFRSolver, n, 100),
    ):
        solver = cls(game, seed=1)

        def theirs(solver=solver, per_call=per_call):
            solver.run_iteration()
            return per_call

        cpp, cpp_s = timed(theirs, seconds)
        ours = MCCFRSolver(game, sampling, seed=1)
        ours.run(2)  # compile outside the clock

        def mine(ours=ours, chunk=ours_chunk):
            ours.run(chunk)
            return chunk * n

        our, our_s = timed(mine, seconds)
        out[sampling] = {
            "openspiel_traversals_per_s": cpp / cpp_s,
            "ours_traversals_per_s": our / our_s,
            "ratio": (our / our_s) / (cpp / cpp_s),
            "ours_infosets": ours.table.num_rows,
        }
        print(sampling, json.dumps(out[sampling]), flush=True)
    return out


def part_exact(iterations: int) -> dict:
    """Our exact CFR+ against OpenSpiel's C++ ``CFRPlusSolver`` on the Zwicker micro variant: the
    same nash_conv, and the time of both (C++ drives the Python game through its API)."""
    game = pyspiel.load_game(MICRO)
    t0 = time.perf_counter()
    theirs = pyspiel.CFRPlusSolver(game)
    for _ in range(iterations):
        theirs.evaluate_and_update_policy()
    cpp_s = time.perf_counter() - t0
    cpp_nc = pyspiel.nash_conv(game, theirs.average_policy())
    t0 = time.perf_counter()
    ours = ExactSolver(extract(game), "cfr+")
    extract_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    ours.run(iterations)
    ours_s = time.perf_counter() - t0
    out = {
        "iterations": iterations,
        "openspiel_cpp_seconds": cpp_s,
        "openspiel_nash_conv": cpp_nc,
        "ours_extract_seconds": extract_s,
        "ours_seconds": ours_s,
        "ours_nash_conv": ours.nash_conv(),
    }
    print("exact", json.dumps(out), flush=True)
    return out


def part_abstraction(iterations: int) -> dict:
    """CFR+ with and without the observation abstraction on a Zwicker micro game with two-card hands:
    information sets and nash_conv (in the real game) after ``iterations``."""
    game = pyspiel.load_game(MICRO2)
    out = {}
    for abstraction in ("none", "observation"):
        t0 = time.perf_counter()
        tree = extract(game, abstraction)
        ext = time.perf_counter() - t0
        solver = ExactSolver(tree, "cfr+")
        curve = []
        for it in (10, 30, 100, iterations):
            solver.run(it - solver.iteration)
            curve.append((it, solver.nash_conv()))
        out[abstraction] = {
            "nodes": tree.num_nodes,
            "infosets": tree.num_infosets,
            "extract_seconds": ext,
            "curve": curve,
        }
        print(abstraction, json.dumps(out[abstraction]), flush=True)
    return out


def _checkpoints(top: int) -> list[int]:
    pts = sorted({int(round(x)) for x in np.geomspace(1, top, 12)})
    return [p for p in pts if p >= 1]


def part_convergence(out_dir: Path, scale: float) -> dict:
    results: dict[str, dict[str, list]] = {}
    rows = []
    for name in (MICRO, REDUCED):
        game = pyspiel.load_game(name)
        t0 = time.perf_counter()
        tree = extract(game)
        print(
            f"{name}: {tree.num_nodes} nodes, {tree.num_infosets} information sets, extracted in {time.perf_counter() - t0:.1f} s"
        )
        runs = {
            "cfr+": (ExactSolver(tree, "cfr+"), int(1000 * scale)),
            "mccfr-external": (MCCFRSolver(game, "external", seed=1), int(20000 * scale)),
            "mccfr-outcome": (MCCFRSolver(game, "outcome", seed=1), int(200000 * scale)),
        }
        if name == MICRO:
            # the observation abstraction (imperfect recall): exploitability in the real game
            runs["cfr+ observation abstraction"] = (
                ExactSolver(extract(game, "observation"), "cfr+"),
                int(1000 * scale),
            )
        results[name] = {}
        for label, (solver, top) in runs.items():
            curve = []
            spent = 0.0
            for it in _checkpoints(top):
                t = time.perf_counter()
                solver.run(it - solver.iteration)
                spent += time.perf_counter() - t
                nc = solver.nash_conv() if isinstance(solver, ExactSolver) else solver.nash_conv(tree)
                curve.append((it, spent, nc))
                rows.append([name, label, it, round(spent, 3), nc])
            results[name][label] = curve
            print(f"  {label}: " + ", ".join(f"{it}:{nc:.4g}" for it, _, nc in curve) + f" ({spent:.1f} s)", flush=True)
    out_dir.mkdir(parents=True, exist_ok=True)
    with (out_dir / "cfr_convergence.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["game", "method", "iteration", "seconds", "nash_conv"])
        w.writerows(rows)
    _plot(results, out_dir / "cfr_convergence.png")
    return results


def _plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(6 * len(results), 4.2))
    for ax, (name, runs) in zip(np.atleast_1d(axes), results.items(), strict=True):
        for label, curve in runs.items():
            ax.plot([c[0] for c in curve], [c[2] for c in curve], marker="o", ms=3, label=label)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("iterations")
        ax.set_ylabel("nash_conv")
        ax.set_title(name, fontsize=7)
        ax.grid(True, alpha=0.3)
        ax.legend()
    fig.tight_layout()
    save_png(fig, path, dpi=100)
    plt.close(fig)


MIN_VISITS_GRID = (1, 10, 100, 300, 1000, 3000)


def train_policy(
    name: str, sampling: str, abstraction: str, seconds: float, path: Path, field: str = "self", iterations: int = 0
) -> dict:
    """Train MCCFR on ``name`` for ``seconds`` (or exactly ``iterations``; seed 1: then the policy is
    reproducible bit for bit), save the policy at ``path``; the run's
    figures, and the compiled chips per deal against random and greedy fields per ``min_visits``
    (greedy fallback; 3,000 random deals per seat, not duplicate) to choose the threshold."""
    game = pyspiel.load_game(name)
    solver = MCCFRSolver(game, sampling, seed=1, abstraction=abstraction, field=field)
    solver.run(1)  # compile outside the clock
    chunk = 2000 if sampling == "outcome" else 200
    t0 = time.perf_counter()
    while (solver.iteration < iterations) if iterations else (time.perf_counter() - t0 < seconds):
        solver.run(min(chunk, iterations - solver.iteration) if iterations else chunk)
    trained = time.perf_counter() - t0
    save_policy(solver, path, seed=1)
    res = {
        "game": name,
        "sampling": sampling,
        "abstraction": abstraction,
        "field": field,
        "iterations": solver.iteration,
        "train_seconds": trained,
        "infosets": solver.table.num_rows,
        "policy_bytes": path.with_suffix(".npz").stat().st_size,
        "compiled": {},
    }
    print(
        f"{name}: {solver.iteration} {sampling} iterations ({abstraction}) in {trained:.0f} s, "
        f"{solver.table.num_rows} information sets",
        flush=True,
    )
    for opp in ("random", "greedy"):
        rows = {}
        for mv in MIN_VISITS_GRID:
            v, used = solver.value_vs(opp, 3000, seed=7, min_visits=mv, fallback="greedy")
            rows[mv] = (v, used)
        v, _ = MCCFRSolver(game, sampling, abstraction=abstraction).value_vs(opp, 3000, seed=7, fallback="greedy")
        res["compiled"][opp] = {"greedy_alone": v, "by_min_visits": rows}
        print(
            f"  compiled vs {opp}: greedy alone {v:+.3f}; "
            + ", ".join(f"min_visits={mv}: {x:+.3f} ({u:.0%} table)" for mv, (x, u) in rows.items()),
            flush=True,
        )
    return res


def duplicate_strength(name: str, spec: str, deals: int) -> dict:
    """``spec`` at each seat in turn against random and greedy fields on deals 1000.. (duplicate,
    seats rotated): chips per deal with 95% CI, and paired against the field's own agent in the
    same seats on the same deals."""
    game = pyspiel.load_game(name)
    n = game.num_players()
    res = {}
    for opp in ("random", "greedy"):
        others = [make_agent(opp, game, seed=2 + k) for k in range(n)]
        baseline = [make_agent(opp, game, seed=20 + k) for k in range(n)]
        base_deal = [
            float(np.mean([play_game(game, baseline, 1000 + d, labels=False).returns[q] for q in range(n)]))
            for d in range(deals)
        ]
        ref_est = mean_ci(base_deal)
        agent = make_agent(spec, game, seed=1)
        per_deal = []
        t1 = time.perf_counter()
        for d in range(deals):
            ours = []
            for seat in range(n):
                seats = list(others)
                seats[seat] = agent
                ours.append(play_game(game, seats, 1000 + d, labels=False).returns[seat])
            per_deal.append(float(np.mean(ours)))
        est = mean_ci(per_deal)
        diff = mean_ci(np.array(per_deal) - np.array(base_deal))
        res[opp] = {
            "deals": deals,
            "games": deals * n,
            "chips_per_deal": est.as_dict(),
            "same_seat_by_opponent_agent": ref_est.as_dict(),
            "difference": diff.as_dict(),
            "fallback_rate": agent.stats["fallbacks"] / max(agent.stats["decisions"], 1),
            "seconds": time.perf_counter() - t1,
        }
        print(
            f"  {spec} vs {opp}: {est} chips/deal (seat played by {opp}: {ref_est}; difference {diff}); "
            f"fallbacks {res[opp]['fallback_rate']:.1%}",
            flush=True,
        )
    return res


def part_strength(args: argparse.Namespace) -> dict:
    """Train (unless ``--reuse`` and the policy exists) and measure, per game."""
    out = {}
    games = [g for g in (ZWIKKEN, ZWICKEN) if args.game in ("all", g.split("(")[0])]
    for name in games:
        path = Path(args.policies) / f"{name.split('(')[0]}_{args.sampling}_{args.abstraction}"
        if args.field != "self":
            path = path.with_name(path.name + f"_{args.field}_field")
        res = {}
        if not (args.reuse and path.with_suffix(".json").exists()):
            res = train_policy(
                name, args.sampling, args.abstraction, args.train_seconds, path, args.field, args.iterations
            )
        for mv in args.min_visits:
            for fallback in args.fallbacks:
                spec = f"mccfr:policy={path},fallback={fallback},min_visits={mv}"
                if args.deals:
                    res[spec] = duplicate_strength(name, spec, args.deals)
        out[name] = res
    return out


def part_zwicker(iterations: list[int], games: list[str]) -> dict:
    """The Zwicker abstractions' loss where it is measurable: on micro Zwicker games, ``nash_conv``
    (in the real game, perfect-recall best responses) of the abstract MCCFR strategies
    (``buckets``/``coarse`` x ``probe``/``outcome``, seed 1) after each count of ``iterations``, next
    to exact CFR+ (1,000 iterations) and tree outcome-sampling MCCFR without abstraction."""
    from zwick_ai.learn.cfr.exact import nash_conv
    from zwick_ai.learn.cfr.zwicker_tree import tree_policy

    out: dict = {}
    for name in games:
        game = pyspiel.load_game({"micro": MICRO, "micro2": MICRO2}[name])
        t0 = time.perf_counter()
        tree = extract(game)
        rows = [{"method": "tree", "nodes": tree.num_nodes, "infosets": tree.num_infosets,
                 "seconds": time.perf_counter() - t0}]  # fmt: skip
        exact = ExactSolver(tree, "cfr+")
        t0 = time.perf_counter()
        exact.run(1000)
        rows.append({"method": "CFR+ (exact)", "abstraction": "none", "iterations": 1000, "sets": tree.num_infosets,
                     "seconds": time.perf_counter() - t0, "nash_conv": exact.nash_conv()})  # fmt: skip
        print(name, json.dumps(rows[0]), json.dumps(rows[1]), flush=True)
        plain = MCCFRSolver(game, "outcome", seed=1)
        for abstraction, sampling in (("none", "outcome"), ("buckets", "probe"), ("buckets", "outcome"),
                                      ("coarse", "probe"), ("coarse", "outcome")):  # fmt: skip
            solver = plain if abstraction == "none" else MCCFRSolver(game, sampling, seed=1, abstraction=abstraction)
            solver.warm_up()
            if abstraction == "none":  # compile the tree traversal outside the timing
                MCCFRSolver(game, "outcome", seed=99).run(1)
            spent = 0.0
            for it in iterations:
                t0 = time.perf_counter()
                solver.run(it - solver.iteration)
                spent += time.perf_counter() - t0
                if abstraction == "none":
                    value = solver.nash_conv()
                else:
                    value = nash_conv(tree, tree_policy(tree, game, solver.table, abstraction))
                row = {"method": f"MCCFR {sampling}", "abstraction": abstraction, "iterations": it,
                       "sets": solver.table.num_rows, "seconds": spent, "nash_conv": value}  # fmt: skip
                rows.append(row)
                print(name, json.dumps(row), flush=True)
        out[name] = rows
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument(
        "--part", choices=["speed", "exact", "convergence", "abstraction", "strength", "zwicker", "all"], default="all"
    )
    ap.add_argument("--seconds", type=float, default=20.0, help="speed: seconds per solver")
    ap.add_argument(
        "--zwicker-iterations", type=int, nargs="+", default=[1000, 10000, 100000], help="zwicker: MCCFR checkpoints"
    )
    ap.add_argument("--micro", nargs="+", default=["micro", "micro2"], help="zwicker: micro games (micro, micro2)")
    ap.add_argument("--scale", type=float, default=1.0, help="convergence: scales the iteration counts")
    ap.add_argument("--train-seconds", type=float, default=120.0, help="strength: training time per game")
    ap.add_argument("--iterations", type=int, default=0, help="strength: train exactly this many iterations instead")
    ap.add_argument("--deals", type=int, default=300, help="strength: duplicate deals per opponent (0: none)")
    ap.add_argument("--game", choices=["all", "zwikken", "zwicken"], default="all", help="strength: which game")
    ap.add_argument("--sampling", choices=["external", "outcome"], default="external", help="strength: MCCFR")
    ap.add_argument(
        "--abstraction", choices=["none", "suits", "buckets"], default="buckets", help="strength: trick abstraction"
    )
    ap.add_argument("--min-visits", type=int, nargs="+", default=[1000], help="strength: agent fallback thresholds")
    ap.add_argument("--fallbacks", nargs="+", default=["greedy"], help="strength: agent fallbacks (uniform, greedy)")
    ap.add_argument(
        "--field",
        choices=["self", "greedy"],
        default="self",
        help="strength: self (MCCFR self-play) or greedy (best-response training against a greedy field, not CFR)",
    )
    ap.add_argument("--reuse", action="store_true", help="strength: play an existing policy instead of training")
    ap.add_argument("--out", default="benchmarks/cfr", help="directory for the CSV, PNG and JSON results")
    ap.add_argument("--policies", default="experiments/results/mccfr", help="strength: where trained policies go")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    report = {}
    if args.part in ("speed", "all"):
        report["speed"] = part_speed(args.seconds)
    if args.part in ("exact", "all"):
        report["exact"] = part_exact(50)
    if args.part in ("convergence", "all"):
        report["convergence"] = part_convergence(out, args.scale)
    if args.part in ("abstraction", "all"):
        report["abstraction"] = part_abstraction(300)
    if args.part in ("strength", "all"):
        report["strength"] = part_strength(args)
    if args.part in ("zwicker", "all"):
        report["zwicker"] = part_zwicker(args.zwicker_iterations, args.micro)
    tag = f"_{args.game}" + ("" if args.field == "self" else f"_{args.field}_field") + ("_play" if args.reuse else "")
    suffix = tag if args.part == "strength" else ""
    (out / f"cfr_{args.part}{suffix}.json").write_text(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
