"""A training run's curves as PNGs: the convergence of a CFR-family run (``convergence.csv``) and
the strength of a Zwicker MCCFR run against greedy and random (``strength.csv``).

>>> short_game("zwicker(after_zwick=next_trails,players=4,variant=dithmarschen)")
'zwicker dithmarschen 4p'
"""

from __future__ import annotations

import csv
from pathlib import Path

from zwick_ai.plots import pyplot as load_pyplot
from zwick_ai.plots import save_png

__all__ = ["plot_convergence", "plot_strength", "short_game"]


def short_game(game_string: str) -> str:
    """A game string short enough for a figure's title: the name, variant and players."""
    params = dict(p.split("=", 1) for p in game_string.partition("(")[2].rstrip(")").split(",") if "=" in p)
    parts = [game_string.partition("(")[0], params.get("variant", "")]
    if params.get("players", "0") != "0":
        parts.append(f"{params['players']}p")
    return " ".join(p for p in parts if p)


def plot_convergence(csv_path: Path, png_path: Path, title: str) -> None:
    """Draw ``convergence.csv`` (value against iterations; log scale for nash_conv) as a PNG."""
    pyplot = load_pyplot()
    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    xs = [int(r["iteration"]) for r in rows]
    ys = [float(r["value"]) for r in rows]
    metric = rows[-1]["metric"] if rows else "value"
    fig, ax = pyplot.subplots(figsize=(6, 4))
    ax.plot(xs, ys, marker="o")
    if metric == "nash_conv" and all(y > 0 for y in ys):
        ax.set_xscale("log")
        ax.set_yscale("log")
    ax.set_xlabel("iterations")
    ax.set_ylabel(metric)
    ax.set_title(title, fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_png(fig, png_path, dpi=100)
    pyplot.close(fig)


def plot_strength(csv_path: Path, png_path: Path, title: str) -> None:
    """Draw ``strength.csv`` (points per deal against greedy minus greedy's own and against random
    minus random's own, with 95% CIs, against training seconds) as a PNG."""
    pyplot = load_pyplot()
    with csv_path.open() as f:
        rows = list(csv.DictReader(f))
    fig, ax = pyplot.subplots(figsize=(6, 4))
    for diff, ci, label in (
        ("diff", "ci95", "greedy field, minus greedy's"),
        ("random_diff", "random_ci95", "random field, minus random's"),
    ):
        have = [r for r in rows if r.get(diff)]
        if have:
            ax.errorbar(
                [float(r["seconds"]) for r in have], [float(r[diff]) for r in have],
                yerr=[float(r[ci]) for r in have], marker="o", capsize=3, label=label,
            )  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.8)
    ax.set_xlabel("training seconds")
    ax.set_ylabel("points/deal minus the field's own agent")
    ax.legend(fontsize=7)
    deals = rows[-1]["deals"] if rows else "?"
    ax.set_title(f"{title}\n({deals} deals per point, every seat, 95% CI)", fontsize=8)
    ax.grid(True, alpha=0.3)
    fig.tight_layout()
    save_png(fig, png_path, dpi=100)
    pyplot.close(fig)
