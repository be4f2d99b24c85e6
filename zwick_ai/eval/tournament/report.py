"""A finished tournament's files: ``summary.json``, ``summary.csv``, ``ratings.csv``, the PNG
plots and ``report.md``, each written from the summary that
:func:`~zwick_ai.eval.tournament.summary.summarize` makes (nothing here replays or reads a game)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path
from typing import Any

from zwick_ai.eval.pictures import plot_pairs, plot_ratings
from zwick_ai.eval.report import interval_text, markdown_table
from zwick_ai.eval.verdict import disagreement_lines, p_text, resolve_text

#: how a summary written by a run that played no games (and found no earlier machine) begins its machine
REWRITTEN = "when this report was written (its games were played earlier): "


def write_outputs(summary: dict[str, Any], out: Path, plots: bool = True) -> None:
    """``summary.json``, ``summary.csv``, ``ratings.csv``, the PNG plots and ``report.md``."""
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    with open(out / "summary.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["a", "b", "deals", "mean_diff", "ci95_lo", "ci95_hi", "win_rate_a", "wins_a", "draws", "losses_a",
                    "sign_test_p", "verdict"])  # fmt: skip
        for p in summary["pairs"]:
            w.writerow([p["a"], p["b"], p["deals"], p["mean_diff"], *p["ci95"], p["win_rate_a"]] + [
                p["wins_a"], p["draws"], p["losses_a"], p["verdict"]["sign_p"], p["verdict"]["case"]
            ])  # fmt: skip
    wins = {r["agent"]: r for r in summary["ratings"]}
    with open(out / "ratings.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["rank", "agent", "points_rating", "points_ci95_lo", "points_ci95_hi"]
                   + ["wins_rank", "wins_rating", "wins_ci95_lo", "wins_ci95_hi"])  # fmt: skip
        for r in summary["points_ratings"]:
            b = wins[r["agent"]]
            w.writerow([r["rank"], r["agent"], r["rating"], *r["ci95"], b["rank"], b["rating"], *b["ci95"]])
    if plots:
        plot_ratings(summary, out / "ratings.png")
        plot_pairs(summary, out / "pairs.png")
    (out / "report.md").write_text(report_markdown(summary, plots=plots))


def shown_game_string(summary: dict[str, Any]) -> str:
    """The game string with the number of players it plays (``players=0`` means the variant's
    own number; the stored string keeps it, as the folder's identity does).

    >>> shown_game_string({"game_string": "zwicker(players=0,variant=grupp)", "players": 4})
    'zwicker(players=4,variant=grupp)'
    """
    return re.sub(r"([(,])players=0([,)])", rf"\g<1>players={summary['players']}\g<2>", summary["game_string"])


def clock_text(summary: dict[str, Any]) -> str:
    """What the time budgets and the thinking times count, and the machine at the run's start."""
    clock = summary.get("clock", "wall")
    text = (
        "Clock: the searches' time budgets (`time=`) count the CPU time of the searching thread (`--clock cpu`)"
        if clock == "cpu"
        else "Clock: the searches' time budgets (`time=`) count wall time (`--clock wall`)"
    )
    machine = summary.get("machine")
    if not machine:
        return text + "."
    if machine.startswith(REWRITTEN):
        return text + f". Machine {machine}."
    return text + f". Machine at the start of the run that played the games: {machine}."


def _seconds(x: float | None) -> str:
    return "–" if x is None else f"{x:.4f}"


#: a mean CPU time a decision this many times its median game's is called out in the report
SLOW_GAMES = 1.5
#: ... when the mean is at least this many seconds (a millisecond agent's mean misleads no one)
SLOW_GAMES_FLOOR = 0.01


def slow_games_text(summary: dict[str, Any]) -> str:
    """A sentence for the agents whose mean CPU time a decision is well above their median game's
    (:data:`SLOW_GAMES`, a mean of at least :data:`SLOW_GAMES_FLOOR`): a few slow games, not every
    decision, exceeded the budget."""
    slow = [
        (a, x)
        for a, x in summary.get("timing", {}).items()
        if x.get("cpu_median_game")
        and (mean := x.get("cpu_seconds_per_decision") or 0) >= SLOW_GAMES_FLOOR
        and mean > SLOW_GAMES * x["cpu_median_game"]
    ]
    if not slow:
        return ""
    return " " + " ".join(
        f"`{a}`'s mean is {x['cpu_seconds_per_decision'] / x['cpu_median_game']:.1f} times its median game's: its "
        f"slowest game took {x['cpu_slowest_game']:.2f} s a decision (one-off work such as numba compiling in a "
        "fresh worker process counts in the game it happens in)."
        for a, x in slow
    )


def verdict_lines(summary: dict[str, Any]) -> list[str]:
    """The report's opening: a disagreement between points and wins, if any, then one sentence
    per pair with the deals that would resolve it, and a sequential run's stop."""
    unit = "points" if summary["game"] == "zwicker" else "chips"
    verdicts = [p["verdict"] for p in summary["pairs"]]
    lines = ["## Verdict", ""]
    split = disagreement_lines(verdicts)
    lines += [*split, ""] if split else []
    for p in summary["pairs"]:
        need = p.get("resolve")
        tail = ""
        if p["verdict"]["points"] is None and need:
            tail = f" From these {p['deals']} deals' spread (sd {need['sd']:.2f}), {resolve_text(need, unit)}."
        lines.append(f"- {p['verdict']['text']}{tail}")
    seq = summary.get("sequential")
    if seq:
        how = "every pair resolved" if seq["resolved"] else "the cap reached, not every pair resolved"
        lines += [
            "",
            f"Sequential run (`--until-resolved`): stopped at look {seq['look']} of the planned deal counts "
            f"{', '.join(map(str, seq['plan']))}, {how}; that look's intervals (level {100 * seq['look_level']:.2f}%, "
            f"{seq['design']}): "
            + "; ".join(
                f"`{p['a']}` − `{p['b']}` [{lo:+.2f}, {hi:+.2f}]"
                for p, (lo, hi) in zip(summary["pairs"], seq["intervals"], strict=True)
            )
            + ". The 95% intervals below are those of a fixed-size run on the same deals.",
        ]
    return lines


def report_markdown(summary: dict[str, Any], plots: bool = True) -> str:
    """The Markdown report: the verdict, the ratings and pairs tables, how they were computed, the command."""
    unit = "points" if summary["game"] == "zwicker" else "chips"
    wins = {r["agent"]: r for r in summary["ratings"]}
    head = ["rank", "agent", f"{unit} rating", "95% CI", "deals won: Bradley–Terry", "95% CI", "rank by wins"]
    head += ["CPU s/decision", "CPU s/decision, median game", "wall s/decision"]
    lines = [
        f"# Tournament: {summary['game_string'].split('(')[0]} {summary['params'].get('variant', '')}".rstrip(),
        "",
        f"{len(summary['agents'])} agents, {summary['deals']} duplicate deals, "
        f"{summary['seatings_per_deal']} seatings per deal and pair"
        f"{' (the lone side rotating with the deal)' if summary.get('seating') == 'rotate' else ''}, "
        f"{summary['games']} games; "
        f"seed {summary['seed']}.",
        "",
        f"Game: `{shown_game_string(summary)}`",
        "",
        clock_text(summary),
        "",
        *verdict_lines(summary),
        "",
        f"## Ratings, ranked by {unit} a deal",
        "",
        *markdown_table(
            head,
            (
                [
                    r["rank"],
                    f"`{r['agent']}`",
                    f"{r['rating']:+.2f}",
                    interval_text(r["ci95"], 2),
                    f"{wins[r['agent']]['rating']:.0f}",
                    interval_text(wins[r["agent"]]["ci95"], 0),
                    wins[r["agent"]]["rank"],
                    _seconds(summary["timing"][r["agent"]].get("cpu_seconds_per_decision")),
                    _seconds(summary["timing"][r["agent"]].get("cpu_median_game")),
                    _seconds(summary["timing"][r["agent"]]["seconds_per_decision"]),
                ]
                for r in summary["points_ratings"]
            ),
        ),
        "",
        f"Ranked by the {unit} rating: the least-squares fit of every pair's mean per-deal difference as the gap "
        f"between two ratings ({unit} a deal, mean 0; the gap between two agents is the margin the fit predicts), "
        "95% percentile bootstrap over deals. Beside it, Bradley–Terry on each deal won, drawn (half) or lost, Elo "
        "scale (mean 0; +200 means an expected score of 76 %), one virtual drawn deal per pair, the same bootstrap "
        "(zero width when an agent won or lost every deal against each other agent: the gap is then a lower bound "
        "set by the prior). Thinking time a decision: CPU seconds of the deciding thread, over every decision and "
        "in the median game, and wall seconds"
        + (" (the budgets count CPU time)." if summary.get("clock") == "cpu" else " (the budgets count wall time).")
        + slow_games_text(summary),
        "",
        "## Pairs",
        "",
        *markdown_table(
            ["a", "b", "deals", f"mean diff a − b ({unit} per deal)", "95% CI", "W-D-L", "sign test", "verdict"],
            (
                [
                    f"`{p['a']}`",
                    f"`{p['b']}`",
                    p["deals"],
                    f"{p['mean_diff']:+.2f}",
                    interval_text(p["ci95"], 2),
                    f"{p['wins_a']}-{p['draws']}-{p['losses_a']}",
                    p_text(p["verdict"]["sign_p"]),
                    p["verdict"]["case"],
                ]
                for p in summary["pairs"]
            ),
        ),
        "",
        f"A deal's difference: the deal replayed in every seating of the pair; the mean {unit} of "
        "a's seats minus b's, averaged over seatings; the CI is a t-interval paired over deals. W-D-L: the deals "
        "a won, drew and lost; the sign test (two-sided, exact) asks whether the won and lost deals could split "
        f"that unevenly between level agents. Verdict: which measures tell the pair apart at 95% ({unit}, wins, "
        "both or neither).",
    ]
    if plots:
        lines += ["", "![ratings](ratings.png)", "", "![pairs](pairs.png)"]
    if summary.get("command"):
        lines += ["", "## Command", "", "```", summary["command"], "```"]
    if summary.get("outside_agents"):
        lines += [
            "",
            "Agents from outside the package (the command imports them from the current directory or PYTHONPATH):",
            "",
        ]
        for spec, a in summary["outside_agents"].items():
            files = "".join(f", reads {f} (sha256 {d})" for f, d in a.get("files", {}).items())
            lines.append(f"- `{spec}`: {a['module']} from {a['path']} (source sha256 {a['sha256']}){files}")
    return "\n".join(lines) + "\n"


__all__ = [
    "REWRITTEN",
    "clock_text",
    "report_markdown",
    "shown_game_string",
    "slow_games_text",
    "verdict_lines",
    "write_outputs",
]
