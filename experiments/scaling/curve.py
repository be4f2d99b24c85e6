"""The scaling curve of expert iteration from the runs of ``run.sh``: each net's strength against
greedy and ``ismcts:iters=2000`` (points a deal, 95% CI) against its teacher hands, a weighted
least-squares trend in log10(hands) per opponent, and the hands at which the trend reaches the
0.1 s expert's own margin over the same opponent on the same deals (a parametric bootstrap of the
points gives its interval). Writes ``scaling.csv``, ``trend.json`` and ``scaling.png`` to OUT.

    python experiments/scaling/curve.py runs/scaling experiments/results/learn/scaling
"""

from __future__ import annotations

import csv
import json
import math
import sys
from pathlib import Path

import numpy as np

from zwick_ai.plots import save_png

Z95 = 1.959964
OPPONENTS = {"greedy": "expert-greedy", "ismcts:iters=2000": "expert-ismcts"}  # the 0.1 s expert's margins
REFERENCES = {  # further margins on the same deals, drawn as lines: (folder, opponent, label, colour)
    "teacher": ("teacher-greedy", "greedy", "the teacher (expert, 1,000 it.)", "tab:green"),
    "self-play net": ("selfplay-greedy", "greedy", "self-play net (package)", "tab:purple"),
}
BOOTSTRAP = 4000
CLUSTER_CORES = 64


def read_points(runs: Path) -> list[dict[str, object]]:
    """One row per run and opponent: hands, records, held-out error, the net's margin and CI."""
    points = []
    for run in sorted(runs.glob("h*"), key=lambda p: int(p.name[1:])):
        strength = run / "strength.csv"
        if not strength.is_file():
            continue
        config = json.loads((run / "config.json").read_text())
        with (run / "loss.csv").open() as f:
            loss = list(csv.DictReader(f))[-1]
        with strength.open() as f:
            for row in csv.DictReader(f):
                points.append(
                    {
                        "hands": config["hands"],
                        "records": int(loss["records"]),
                        "heldout_mse": float(loss["heldout_mse"]),
                        "opponent": row["opponent"],
                        "deals": int(row["deals"]),
                        "mean_diff": float(row["mean_diff"]),
                        "ci_low": float(row["ci_low"]),
                        "ci_high": float(row["ci_high"]),
                    }
                )
    return points


def teacher_cpu_per_hand(runs: Path, hands: int = 10) -> float:
    """The teacher's CPU seconds a hand, measured here on ``hands`` hands of the runs' configuration."""
    import time

    from zwick_ai.learn.net_train import NetConfig
    from zwick_ai.learn.search_teacher import after_records

    config = json.loads((next(runs.glob("h*")) / "config.json").read_text())
    cfg = NetConfig(**{**config, "hidden": tuple(config["hidden"])})
    args = (cfg.teacher, cfg.teacher_iters, cfg.teacher_visits, cfg.eps, cfg.seed, cfg.teacher_options)
    after_records(cfg.game_string(), np.array([10**9]), *args)  # compiled and warm
    t0 = time.process_time()
    after_records(cfg.game_string(), np.arange(10**9 + 1, 10**9 + 1 + hands), *args)
    return (time.process_time() - t0) / hands


def margin(folder: Path, opponent: str) -> dict[str, float] | None:
    """The margin over ``opponent`` of the other agent of the tournament in ``folder`` (its
    summary), or None when it has not been played."""
    path = folder / "summary.json"
    if not path.is_file():
        return None
    pair = json.loads(path.read_text())["pairs"][0]
    sign = -1.0 if pair["a"] == opponent else 1.0
    low, high = sorted(sign * x for x in pair["ci95"])
    return {"mean_diff": sign * pair["mean_diff"], "ci_low": low, "ci_high": high, "deals": pair["deals"]}


def fit(x: np.ndarray, y: np.ndarray, se: np.ndarray) -> tuple[float, float]:
    """Weighted least squares y = a + b x (weights 1/se^2)."""
    w = 1.0 / se**2
    A = np.stack([np.ones_like(x), x], axis=1) * np.sqrt(w)[:, None]
    a, b = np.linalg.lstsq(A, y * np.sqrt(w), rcond=None)[0]
    return float(a), float(b)


def hands_to_reach(a: float, b: float, target: float) -> float:
    """Where a + b log10(hands) = target (inf if the trend does not rise)."""
    decades = (target - a) / b if b > 0 else math.inf
    return 10**decades if decades < 300 else math.inf


def quantiles(draws: list[float], qs: tuple[float, ...] = (0.025, 0.975)) -> list[float]:
    """Quantiles of draws that may be infinite (a trend that never reaches its target)."""
    ordered = sorted(draws)
    return [ordered[min(len(ordered) - 1, int(q * len(ordered)))] for q in qs]


def trend(points: list[dict[str, object]], targets: dict[str, float], seed: int = 0) -> dict[str, object]:
    """The weighted trend of the points in log10(hands), its slope's interval, and for each target
    margin the hands at which the trend reaches it (a parametric bootstrap of the points)."""
    hands = np.array([p["hands"] for p in points], float)
    y = np.array([p["mean_diff"] for p in points], float)
    se = np.array([(float(p["ci_high"]) - float(p["ci_low"])) / (2 * Z95) for p in points])
    x = np.log10(hands)
    a, b = fit(x, y, se)
    rng = np.random.default_rng(seed)
    draws = [fit(x, y + rng.standard_normal(len(y)) * se, se) for _ in range(BOOTSTRAP)]
    reach = {}
    for name, target in targets.items():
        hits = [hands_to_reach(*ab, target) for ab in draws]
        reach[name] = {
            "target": target,
            "hands": hands_to_reach(a, b, target),
            "hands_95": quantiles(hits),
            "share_of_draws_never": float(np.mean(np.isinf(hits))),
        }
    return {
        "intercept": a,
        "slope_per_decade": b,
        "slope_95": quantiles([d[1] for d in draws]),
        "reach": reach,
    }


def main(runs: Path, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    points = read_points(runs)
    with (out / "scaling.csv").open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(points[0]))
        writer.writeheader()
        writer.writerows(points)
    trends: dict[str, object] = {}
    cost = teacher_cpu_per_hand(runs)
    fig, axes = plt.subplots(1, len(OPPONENTS), figsize=(10, 4))
    for ax, opponent in zip(axes, OPPONENTS, strict=True):
        rows = [p for p in points if p["opponent"] == opponent]
        if not rows:
            continue
        expert = margin(out / OPPONENTS[opponent], opponent)
        assert expert is not None, f"play the expert against {opponent} first (README)"
        refs = {
            name: (ref, label, colour)
            for name, (folder, against, label, colour) in REFERENCES.items()
            if against == opponent and (ref := margin(out / folder, against)) is not None
        }
        targets = {"expert (0.1 s)": expert["mean_diff"], **{name: r[0]["mean_diff"] for name, r in refs.items()}}
        t = trend(rows, targets)
        t["expert"] = expert
        t["teacher_cpu_s_per_hand"] = cost
        for r in t["reach"].values():  # type: ignore[attr-defined]
            r["hours_on_64_cores"] = r["hands"] * cost / CLUSTER_CORES / 3600
        trends[opponent] = t
        h = np.array([p["hands"] for p in rows], float)
        y = np.array([p["mean_diff"] for p in rows])
        err = np.array([[p["mean_diff"] - p["ci_low"] for p in rows], [p["ci_high"] - p["mean_diff"] for p in rows]])
        ax.errorbar(h, y, yerr=err, fmt="o", capsize=3, label="net, from scratch")
        right = h.max() * 30
        grid = np.logspace(math.log10(h.min()), math.log10(right), 50)
        ax.plot(grid, t["intercept"] + t["slope_per_decade"] * np.log10(grid), "--", label="trend (log hands)")
        ax.axhspan(expert["ci_low"], expert["ci_high"], color="tab:orange", alpha=0.2)
        ax.axhline(expert["mean_diff"], color="tab:orange", label="expert (0.1 s)")
        for name, (ref, label, colour) in refs.items():
            trends.setdefault("references", {})[name] = ref  # type: ignore[union-attr]
            ax.axhline(ref["mean_diff"], color=colour, ls=":", label=label)
        ax.set_xscale("log")
        ax.set_xlabel("teacher hands")
        ax.set_ylabel(f"points a deal against {opponent}")
        ax.axhline(0, color="grey", lw=0.5)
        ax.legend(fontsize=8)
    fig.suptitle("Expert iteration in Dithmarschen 4p: a net fitted on N expert hands")
    fig.tight_layout()
    save_png(fig, out / "scaling.png", dpi=110)
    (out / "trend.json").write_text(json.dumps(trends, indent=1) + "\n")
    for name, t in trends.items():
        print(name, json.dumps(t))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: python experiments/scaling/curve.py RUNS_DIR OUT_DIR")
    main(Path(sys.argv[1]), Path(sys.argv[2]))
