"""A tournament's numbers from its games: each deal's duplicate difference per pair, the pairs'
mean differences with paired 95% intervals, wins and verdicts, the Bradley–Terry and points
ratings with bootstrap intervals, the thinking times, and the forfeits (:func:`summarize`, the
contents of ``summary.json``)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from zwick_ai.eval.ratings import SCALE, points_ratings_with_ci, ratings_with_ci
from zwick_ai.eval.tournament.definition import Tournament, side_seats
from zwick_ai.eval.tournament.folder import read_games
from zwick_ai.eval.tournament.games import ExpectedTasks, seat_scores
from zwick_ai.eval.tournament.report import REWRITTEN
from zwick_ai.eval.verdict import deals_to_resolve, pair_verdict
from zwick_ai.stats import mean_ci

#: virtual drawn deals per pair in the rating fit (keeps perfect records finite)
RATING_PRIOR = 1.0


#: bootstrap resamples of the rating intervals
RATING_RESAMPLES = 1000


def _interval(ci: Sequence[float]) -> list[float | None]:
    return [float(x) if math.isfinite(x) else None for x in ci]


def deal_differences(
    t: Tournament, records: dict[tuple, dict[str, Any]], forfeits: dict[tuple, Any] | None = None
) -> np.ndarray:
    """``deals x pairs``: each deal's duplicate difference (mean over seatings of the mean score of
    ``a``'s seats minus ``b``'s); NaN where a game of the deal was forfeited (``forfeits``, by key)."""
    sides = side_seats(t.load())
    plans = t.seatings
    diffs = np.zeros((t.deals, len(t.pairs)))
    for c, (i, j) in enumerate(t.pairs):
        for d in range(t.deals):
            per_seating: list[float] = []
            for k in t.deal_seatings(d):
                if forfeits and (t.agents[i], t.agents[j], d, k) in forfeits:
                    per_seating.append(np.nan)
                    continue
                roles = plans[k]
                scores = seat_scores(records[(t.agents[i], t.agents[j], d, k)], sides)
                mine = [scores[p] for side, r in zip(sides, roles, strict=True) if r == 0 for p in side]
                theirs = [scores[p] for side, r in zip(sides, roles, strict=True) if r == 1 for p in side]
                per_seating.append(float(np.mean(mine) - np.mean(theirs)))
            diffs[d, c] = float(np.mean(per_seating))
    return diffs


def finished_differences(t: Tournament, out: str | Path) -> np.ndarray | None:
    """:func:`deal_differences` of the games of ``t`` stored in ``out`` (``deals x pairs``), or None
    while a game is missing (a leaderboard combines the pairs of several tournaments with it).
    Only reads the folder: games of another tournament stay where they are."""
    expected = ExpectedTasks(t)
    done = read_games(Path(out) / "games.jsonl", expected, str(t.load()), lambda text: None, repair=False)
    if sum(1 for key in done if key[2] < t.deals) < t.games:
        return None
    return deal_differences(t, done)


def pair_summary(a: str, b: str, d: np.ndarray, unit: str) -> dict[str, Any]:
    """One pair's result from its per-deal differences ``a − b``: the mean with its 95% CI paired
    over deals, the deals won, drawn and lost with the sign test, the verdict in words
    (:func:`zwick_ai.eval.verdict.pair_verdict`), and the deals that would resolve a difference of
    the observed size (``resolve``; None without a spread or a difference)."""
    est = mean_ci(d)
    wins, draws, losses = int((d > 0).sum()), int((d == 0).sum()), int((d < 0).sum())
    ci = _interval(est.ci95)
    resolve = None
    if math.isfinite(est.std) and est.std > 0 and abs(est.mean) > 0:
        resolve = deals_to_resolve(est.std, abs(est.mean))
    return {
        "a": a,
        "b": b,
        "deals": len(d),
        "mean_diff": est.mean,
        "ci95": ci,
        "sd": est.std if math.isfinite(est.std) else None,
        "win_rate_a": float((wins + 0.5 * draws) / len(d)),
        "wins_a": wins,
        "draws": draws,
        "losses_a": losses,
        "verdict": pair_verdict(a, b, est.mean, ci, wins, draws, losses, unit),
        "resolve": resolve,
    }


def ranked(agents: Sequence[str], r: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> list[dict[str, Any]]:
    """Ratings with their CIs, best first, each with its ``rank``."""
    order = sorted(range(len(agents)), key=lambda x: -r[x])
    return [
        {"agent": agents[x], "rating": float(r[x]), "ci95": _interval([lo[x], hi[x]]), "rank": rank + 1}
        for rank, x in enumerate(order)
    ]


def earlier_machine(out: Path, now: str) -> str:
    """The machine of the run that played the folder's last games, kept by its ``summary.json``,
    for a run that plays none (it only writes the report again); else ``now``, said to be so."""
    try:
        earlier = json.loads((out / "summary.json").read_text()).get("machine")
    except (OSError, ValueError, AttributeError):
        earlier = None
    return earlier if isinstance(earlier, str) else f"{REWRITTEN}{now}"


def thinking_times(t: Tournament, records: dict[tuple, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per agent: wall seconds and CPU seconds (of the deciding thread) a decision, and decisions;
    ``cpu_seconds_per_decision`` is None when a game was recorded before CPU time was measured.
    Beside the mean over every decision, ``cpu_median_game`` and ``cpu_slowest_game``: the median
    and the largest over games of the agent's CPU seconds a decision in the game, since one-off
    work in a game (numba compiling in a fresh worker process) inflates the mean, not the median."""
    wall = dict.fromkeys(t.agents, 0.0)
    cpu: dict[str, float | None] = dict.fromkeys(t.agents, 0.0)
    decisions = dict.fromkeys(t.agents, 0)
    games: dict[str, list[float]] = {a: [] for a in t.agents}
    for rec in records.values():
        if rec["deal"] >= t.deals:
            continue
        have = rec.get("cpu_seconds")
        in_game: dict[str, tuple[float, int]] = {}
        for p, spec in enumerate(rec["seats"]):
            wall[spec] += rec["seconds"][p]
            decisions[spec] += rec["decisions"][p]
            so_far = cpu[spec]
            cpu[spec] = None if have is None or so_far is None else so_far + have[p]
            if have is not None:
                spent, moves = in_game.get(spec, (0.0, 0))
                in_game[spec] = (spent + have[p], moves + rec["decisions"][p])
        for spec, (spent, moves) in in_game.items():
            if moves:
                games[spec].append(spent / moves)
    out = {}
    for a in t.agents:
        n = decisions[a]
        used = cpu[a]
        known = used is not None and games[a]
        out[a] = {
            "seconds_per_decision": wall[a] / n if n else 0.0,
            "cpu_seconds_per_decision": None if used is None else (used / n if n else 0.0),
            "cpu_median_game": float(np.median(games[a])) if known else None,
            "cpu_slowest_game": float(max(games[a])) if known else None,
            "decisions": int(n),
        }
    return out


def summarize(
    t: Tournament,
    records: dict[tuple, dict[str, Any]],
    machine: str | None = None,
    forfeits: dict[tuple, dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The ``summary.json`` contents (DESIGN.md "Tournament output" names, and more) from the
    :func:`~zwick_ai.eval.tournament.games.compact` records of every game; ``machine``
    (:func:`zwick_ai.machine.describe` at the run's start) is reported. ``forfeits`` (games an agent forfeited, by key, :func:`forfeited`):
    such a deal is lost by the agent that failed (in the win rates and the Bradley–Terry ratings)
    and left out of the mean differences and the points ratings."""
    game = t.load()
    sides = side_seats(game)
    unit = "points" if t.game == "zwicker" else "chips"
    diffs = deal_differences(t, records, forfeits)
    outcomes = np.where(diffs > 0, 1.0, np.where(diffs < 0, 0.0, 0.5))
    lost = forfeited(t, forfeits or {})
    outcomes = np.where(np.isnan(diffs), lost, outcomes)
    pairs = []
    for c, (i, j) in enumerate(t.pairs):
        played = ~np.isnan(diffs[:, c])
        if not played.any():
            raise ValueError(
                f"every deal of {t.agents[i]} vs {t.agents[j]} was forfeited (forfeits.jsonl): nothing to compare"
            )
        pair = pair_summary(t.agents[i], t.agents[j], diffs[played, c], unit) | {"games": t.games_per_pair}
        if not played.all():
            pair |= _forfeit_counts(outcomes[~played, c])
        pairs.append(pair)
    complete = ~np.isnan(diffs).any(axis=1)  # the points ratings compare every pair on the same deals
    diffs = diffs[complete] if complete.any() else np.nan_to_num(diffs)
    r, lo, hi = ratings_with_ci(
        len(t.agents), t.pairs, outcomes, prior=RATING_PRIOR, resamples=RATING_RESAMPLES, seed=t.seed
    )
    ratings = ranked(t.agents, r, lo, hi)
    pr, plo, phi = points_ratings_with_ci(len(t.agents), t.pairs, diffs, resamples=RATING_RESAMPLES, seed=t.seed)
    points_ratings = ranked(t.agents, pr, plo, phi)
    return {
        "game": t.game,
        "params": t.params,
        "game_string": str(game),
        "seed": t.seed,
        "deals": t.deals,
        "agents": t.agents,
        "pairs": pairs,
        "ranking": "points",
        "points_ratings": points_ratings,
        "ratings": ratings,
        "players": game.num_players(),
        "sides": sides,
        "seatings_per_deal": len(t.deal_seatings(0)),
        "seating": t.seating,
        "clock": t.clock,
        "games": t.games,
        "measure": "side points (Zwicker card points + Zwicks)" if t.game == "zwicker" else "chips won",
        "rating_model": {
            "name": "bradley-terry",
            "scale": f"elo ({SCALE:g} per factor 10 in odds), mean 0",
            "outcome": "per deal: win if the duplicate difference > 0, draw if 0",
            "prior_draws_per_pair": RATING_PRIOR,
            "bootstrap_resamples": RATING_RESAMPLES,
        },
        "points_rating_model": {
            "name": "least squares on the pairs' mean per-deal differences",
            "scale": f"{unit} a deal, mean 0; r_a - r_b is the fitted margin of a over b",
            "bootstrap_resamples": RATING_RESAMPLES,
        },
        "timing": thinking_times(t, records),
        "machine": machine,
        "command": t.command,
        "outside_agents": outside_agents(t),
        "outside_agent_rules": {
            "move_time_limit": t.move_time_limit,
            "start_time_limit": t.start_time_limit,
            "on_agent_error": t.on_agent_error,
        },
        "forfeits": sorted((forfeits or {}).values(), key=lambda x: (x.get("deal", 0), x.get("seating", 0))),
    }


def forfeited(t: Tournament, forfeits: dict[tuple, dict[str, Any]]) -> np.ndarray:
    """``deals x pairs``: the outcome for ``a`` of each deal with a forfeited game: 0 where ``a``
    failed, 1 where ``b`` did, 0.5 where both did (NaN where none was forfeited)."""
    out = np.full((t.deals, len(t.pairs)), np.nan)
    index = {(t.agents[i], t.agents[j]): c for c, (i, j) in enumerate(t.pairs)}
    for (a, b, d, _), info in forfeits.items():
        if d >= t.deals:
            continue
        c = index[(a, b)]
        blamed = str(info.get("agent"))
        mine = 0.0 if blamed == a else 1.0 if blamed == b else 0.5
        out[d, c] = mine if np.isnan(out[d, c]) or out[d, c] == mine else 0.5
    return out


def _forfeit_counts(outcomes: np.ndarray) -> dict[str, Any]:
    """A pair's deals lost by forfeit, added to its summary (its other numbers are over the played deals)."""
    return {
        "forfeits_a": int((outcomes == 0.0).sum()),
        "forfeits_b": int((outcomes == 1.0).sum()),
        "forfeits_both": int((outcomes == 0.5).sum()),
    }


def outside_agents(t: Tournament) -> dict[str, dict[str, Any]]:
    """The agents of ``t`` from outside the package: their module, its file (or package folder)
    and source digest, and the digests of the files they read."""
    from zwick_ai.agents.outside import source_root

    out = {}
    for spec, ident in zip(t.agents, t.resolved, strict=True):
        source = ident.get("source")
        if isinstance(source, dict):
            root = source_root(str(source.get("module")))
            out[spec] = {**source, "path": str(root) if root else None, "files": ident.get("files", {})}
    return out
