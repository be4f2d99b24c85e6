"""A tournament's pictures, each carrying its uncertainty: ``pairs.png`` (every pair's difference
with its 95% interval, the level pairs grey and hatched) and ``ratings.png`` (both ratings with
their intervals). They draw a tournament's ``summary.json`` (:mod:`zwick_ai.eval.tournament`).

A pair is *level* when its interval reaches zero: it is drawn grey, whatever its mean, so a
difference the deals cannot tell from nothing never looks like a result. The colours of the other
cells scale with the largest resolved difference.

>>> level_colour({"mean_diff": 0.5, "ci95": [-0.5, 1.5]}), level_colour({"mean_diff": -2.0, "ci95": [-3.0, -1.0]})
('level', 'behind')
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.plots import pyplot, save_png

#: the colour of what the deals cannot tell apart
LEVEL_GREY = "#c8c8c8"
#: the colours of a resolved lead (the row or first agent ahead) and of a resolved loss
AHEAD, BEHIND = "#2166ac", "#b2182b"


def level_colour(pair: dict[str, Any]) -> str:
    """``ahead``, ``behind`` or ``level``: where the interval of ``a − b`` lies against zero."""
    lo, hi = pair["ci95"]
    if lo is not None and lo > 0:
        return "ahead"
    if hi is not None and hi < 0:
        return "behind"
    return "level"


def _unit(summary: dict[str, Any]) -> str:
    return "points" if summary["game"] == "zwicker" else "chips"


def _title(summary: dict[str, Any]) -> str:
    name = f"{summary['game']} {summary['params'].get('variant', '')}".strip()
    return f"{name}: {summary['deals']} duplicate deals"


def pair_matrix(summary: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(means, lower, upper): row agent minus column agent for every pair (NaN on the diagonal and
    for pairs that did not meet)."""
    agents = summary["agents"]
    n = len(agents)
    mean, lo, hi = (np.full((n, n), np.nan) for _ in range(3))
    for p in summary["pairs"]:
        i, j = agents.index(p["a"]), agents.index(p["b"])
        low, high = (np.nan if x is None else x for x in p["ci95"])
        mean[i, j], lo[i, j], hi[i, j] = p["mean_diff"], low, high
        mean[j, i], lo[j, i], hi[j, i] = -p["mean_diff"], -high, -low
    return mean, lo, hi


def plot_pairs(summary: dict[str, Any], path: Path) -> dict[str, Any]:
    """``pairs.png``: left, the matrix of differences (row minus column, mean and 95% CI in each
    cell; level pairs grey and hatched); right, every pair's difference as a point with its 95%
    interval (level pairs grey). Returns what it drew: the matrix and, per pair, the mean, the
    interval and its colour class."""
    plt = pyplot()
    agents = summary["agents"]
    n = len(agents)
    mean, lo, hi = pair_matrix(summary)
    resolved = (lo > 0) | (hi < 0)
    top = float(np.nanmax(np.abs(np.where(resolved, mean, np.nan)))) if resolved.any() else 1.0
    shown = np.ma.masked_where(~resolved, mean)  # level cells and the diagonal: the grey below
    fig, (grid, forest) = plt.subplots(
        1, 2, figsize=(1.3 * n + 8.5, max(4.0, 0.9 * n + 2.2)), gridspec_kw={"width_ratios": [1.2, 1.0]}
    )
    cmap = plt.get_cmap("RdBu").with_extremes(bad=LEVEL_GREY)
    im = grid.imshow(shown, cmap=cmap, vmin=-top, vmax=top)
    for i in range(n):
        for j in range(n):
            if i == j:
                grid.add_patch(plt.Rectangle((j - 0.5, i - 0.5), 1, 1, facecolor="white", edgecolor="none"))
                continue
            if np.isnan(mean[i, j]):
                continue
            if not resolved[i, j]:
                grid.add_patch(
                    plt.Rectangle((j - 0.5, i - 0.5), 1, 1, fill=False, hatch="//", edgecolor="#9a9a9a", lw=0)
                )
            dark = bool(resolved[i, j] and abs(mean[i, j]) > 0.6 * top)
            bounds = "n/a" if np.isnan(lo[i, j]) else f"[{lo[i, j]:+.1f}, {hi[i, j]:+.1f}]"
            text = f"{mean[i, j]:+.2f}\n{bounds}" + ("" if resolved[i, j] else "\nlevel")
            grid.text(j, i, text, ha="center", va="center", fontsize=8, color="white" if dark else "black")
    grid.set_xticks(range(n), agents, rotation=30, ha="right", fontsize=8)
    grid.set_yticks(range(n), agents, fontsize=8)
    unit = _unit(summary)
    fig.colorbar(im, ax=grid, label=f"{unit} a deal, row − column", shrink=0.7)
    grid.set_title("row − column, 95% CI; grey, hatched: level (CI reaches 0)", fontsize=9)
    drawn = _forest(forest, summary)
    forest.set_xlabel(f"{unit} a deal, a − b, 95% CI")
    forest.set_title("each pair", fontsize=9)
    fig.suptitle(_title(summary), fontsize=10)
    fig.tight_layout()
    save_png(fig, path, dpi=100)
    plt.close(fig)
    image = im.get_array()  # read back from the picture: what it shows, not what was meant
    return {"matrix": np.ma.getdata(image), "resolved": ~np.ma.getmaskarray(image), "pairs": drawn}


#: the forest plots' colours by :func:`level_colour`
FOREST = {"ahead": AHEAD, "behind": BEHIND, "level": "#8c8c8c"}


def drawn_bars(ax: Any) -> list[dict[str, Any]]:
    """What the error bars of ``ax`` show, read back from the picture: per bar (bottom first) its
    point, its interval's ends and its colour."""
    out = []
    for bars in ax.containers:
        line, _, segments = bars.lines
        x, y = line.get_xdata()[0], line.get_ydata()[0]
        ends = [sorted(point[0] for point in seg) for seg in segments[0].get_segments()] if segments else []
        lo, hi = ends[0] if ends else (None, None)
        out.append({"mean": float(x), "y": float(y), "ci95": [lo, hi], "colour": line.get_color()})
    return out


def _forest(ax: Any, summary: dict[str, Any]) -> list[dict[str, Any]]:
    """Each pair's mean with its interval as a horizontal error bar (first pair on top); returns
    per pair what the picture shows (:func:`drawn_bars`) and its colour class."""
    pairs = summary["pairs"]
    for y, p in enumerate(reversed(pairs)):
        lo, hi = p["ci95"]
        err = None if lo is None or hi is None else [[p["mean_diff"] - lo], [hi - p["mean_diff"]]]
        ax.errorbar([p["mean_diff"]], [y], xerr=err, fmt="o", color=FOREST[level_colour(p)], capsize=4, lw=2)
    drawn = drawn_bars(ax)[::-1]
    for p, bar in zip(pairs, drawn, strict=True):
        bar |= {"a": p["a"], "b": p["b"], "kind": next(k for k, c in FOREST.items() if c == bar["colour"])}
    ax.axvline(0, color="black", lw=0.8)
    ax.set_yticks(range(len(pairs)), [f"{p['a']}\n− {p['b']}" for p in reversed(pairs)], fontsize=7)
    ax.set_ylim(-0.6, len(pairs) - 0.4)
    return drawn


def plot_ratings(summary: dict[str, Any], path: Path) -> dict[str, Any]:
    """``ratings.png``: the points rating (what the tables rank by) and the Bradley–Terry rating on
    deals won, each agent's point with its 95% bootstrap interval, in the points ranking's order
    (best on top). Returns the drawn values per panel."""
    plt = pyplot()
    points = summary.get("points_ratings") or []
    order = [r["agent"] for r in points] or [r["agent"] for r in summary["ratings"]]
    wins = {r["agent"]: r for r in summary["ratings"]}
    panels = [("points", {r["agent"]: r for r in points})] if points else []
    panels.append(("wins", wins))
    fig, axes = plt.subplots(1, len(panels), figsize=(5.5 * len(panels), 0.55 * len(order) + 1.8), squeeze=False)
    drawn: dict[str, list[dict[str, Any]]] = {}
    labels = {
        "points": f"points rating: {_unit(summary)} a deal, mean 0 (ranks the tables)",
        "wins": "Bradley–Terry on deals won (Elo scale, mean 0)",
    }
    for ax, (name, by_agent) in zip(axes[0], panels, strict=True):
        rows = [by_agent[a] for a in reversed(order)]
        vals = np.array([r["rating"] for r in rows])
        lo = np.array([r["ci95"][0] if r["ci95"][0] is not None else np.nan for r in rows])
        hi = np.array([r["ci95"][1] if r["ci95"][1] is not None else np.nan for r in rows])
        for y, (v, low, high) in enumerate(zip(vals, lo, hi, strict=True)):
            err = [[v - low], [high - v]] if np.isfinite(low) and np.isfinite(high) else None
            ax.errorbar([v], [y], xerr=err, fmt="o", color=AHEAD if name == "points" else "#555555", capsize=4, lw=2)
        ax.axvline(0, color="black", lw=0.8)
        ax.set_yticks(np.arange(len(rows)), [r["agent"] for r in rows] if ax is axes[0][0] else [""] * len(rows),
                      fontsize=8)  # fmt: skip
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.set_xlabel(labels[name] + ", 95% CI", fontsize=8)
        shown = drawn_bars(ax)[::-1]  # best first, as the table
        drawn[name] = [bar | {"agent": r["agent"]} for bar, r in zip(shown, rows[::-1], strict=True)]
    fig.suptitle(_title(summary), fontsize=10)
    fig.tight_layout()
    save_png(fig, path, dpi=100)
    plt.close(fig)
    return drawn


def _kind(lo: float, hi: float) -> str:
    """:func:`level_colour` of an interval given as two floats (NaN: unknown, so level)."""
    return level_colour({"ci95": [lo if np.isfinite(lo) else None, hi if np.isfinite(hi) else None]})


def plot_boards(groups: list[dict[str, Any]], path: Path, title: str = "") -> list[dict[str, Any]]:
    """A leaderboard's ratings with their intervals (``leaderboard.png``): one row of panels per
    group of boards (``{"rows": [agent, ...], "boards": [{"board", "xlabel", "ratings": {agent:
    {"rating", "ci95"}}}]}``), a panel per board, the group's agents on a shared axis in the given
    order (first on top). A rating whose 95% interval lies above the board's mean 0 is blue,
    below it red, and grey where the interval reaches 0 (the deals cannot tell it from an average
    agent). Returns per drawn rating (read back from the picture, :func:`drawn_bars`) its board,
    agent, point, interval and colour class."""
    plt = pyplot()
    cols = max(len(g["boards"]) for g in groups)
    heights = [max(2.0, 0.32 * len(g["rows"]) + 1.2) for g in groups]
    fig, axes = plt.subplots(
        len(groups), cols, figsize=(2.3 * cols + 2.6, sum(heights)), squeeze=False,
        gridspec_kw={"height_ratios": heights},
    )  # fmt: skip
    drawn: list[dict[str, Any]] = []
    for g, group in enumerate(groups):
        rows = list(group["rows"])
        for c in range(cols):
            ax = axes[g][c]
            if c >= len(group["boards"]):
                ax.set_visible(False)
                continue
            board = group["boards"][c]
            shown = [a for a in rows if a in board["ratings"]]
            for a in shown:
                r = board["ratings"][a]
                v = float(r["rating"])
                lo, hi = (np.nan if x is None else float(x) for x in r["ci95"])
                y = len(rows) - 1 - rows.index(a)
                err = [[v - lo], [hi - v]] if np.isfinite(lo) and np.isfinite(hi) else None
                ax.errorbar([v], [y], xerr=err, fmt="o", ms=4, color=FOREST[_kind(lo, hi)], capsize=3, lw=1.5)
            for a, bar in zip(shown, drawn_bars(ax), strict=True):
                kind = next(k for k, colour in FOREST.items() if colour == bar["colour"])
                drawn.append(bar | {"board": board["board"], "agent": a, "kind": kind})
            ax.axvline(0, color="black", lw=0.8)
            ax.set_ylim(-0.6, len(rows) - 0.4)
            ax.set_yticks(range(len(rows)), rows[::-1] if c == 0 else [""] * len(rows), fontsize=7)
            ax.tick_params(axis="x", labelsize=7)
            ax.grid(axis="y", color="#eeeeee", lw=0.6)
            ax.set_title(board["board"], fontsize=8)
            ax.set_xlabel(board["xlabel"], fontsize=7)
    fig.suptitle(
        (title + ": " if title else "")
        + "ratings with 95% CIs; blue/red: above/below the board's mean 0, grey: the CI reaches 0",
        fontsize=9,
    )
    fig.tight_layout()
    fig.subplots_adjust(left=max(fig.subplotpars.left, 0.14))  # room for the longest agent names
    save_png(fig, path, dpi=90)
    plt.close(fig)
    return drawn


__all__ = [
    "FOREST",
    "LEVEL_GREY",
    "drawn_bars",
    "level_colour",
    "pair_matrix",
    "plot_boards",
    "plot_pairs",
    "plot_ratings",
]
