"""One tournament from what a command was asked, start to end: checked, played on a backend, its
report printed. Shared by ``zwick tournament``, ``zwick run`` (one per variant of an experiment
file) and ``zwick best-response``; ``zwick leaderboard`` shares the workers' cap and the list of
modules a Ray job carries.

A :class:`TournamentRequest` holds everything asked (game, agents, deals, where to play); from it
:func:`prepare` builds the :class:`~zwick_ai.eval.tournament.Tournament` and checks its folder
before anything runs, and :func:`run_prepared` plays it. Nothing heavy is imported at module level
(``zwick --help`` imports this module).

>>> r = TournamentRequest("zwicker", "classic", 2, [("max_rounds", 3)], ["greedy", "ismcts:iters=5,c=1"], 10)
>>> command_line(r)
"zwick tournament --game zwicker --variant classic --players 2 -o max_rounds=3 --agents 'greedy;ismcts:iters=5,c=1' --deals 10 --seed 0"
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zwick_ai.eval.experiment_files import ExperimentFile
    from zwick_ai.eval.tournament import Tournament

__all__ = [
    "MAX_WORKERS",
    "TournamentRequest",
    "EXPERIMENT_COMMAND",
    "capped_workers",
    "command_line",
    "duel",
    "experiment_table",
    "prepare",
    "run",
    "ratings_table",
    "run_experiment",
    "run_prepared",
    "shipped_modules",
    "verdict_section",
]

#: the most worker processes (or Ray CPUs) a command takes
MAX_WORKERS = 1024


@dataclass(frozen=True)
class TournamentRequest:
    """What one tournament was asked to be: its game, agents and deals (what the results are) and
    where it is played (``workers``, ``backend``, ``address``: never what the games give)."""

    #: the game as given (a name, ``zwicker``, ``zwikken``, ``zwicken``, or a game string), its
    #: variant and players
    game_string: str
    variant: str | None
    players: int | None
    #: rule options ``(name, value)``, as ``-o`` gives them
    options: Sequence[tuple[str, Any]]
    agents: Sequence[str]
    deals: int
    seed: int = 0
    #: the results folder (default :func:`zwick_ai.eval.tournament.folder.default_out`)
    out: str | None = None
    seating: str = "all"
    clock: str = "wall"
    #: the cap of ``--until-resolved`` (None: exactly ``deals``)
    max_deals: int | None = None
    #: the outside agents' limits and what their failure does (``Tournament`` keywords)
    rules: Mapping[str, Any] = field(default_factory=dict)
    workers: int = 1
    backend: str = "local"
    address: str | None = None
    quiet: bool = False


def capped_workers(workers: int, games: int, address: str | None) -> int:
    """``--workers`` capped at the games to play and, on this machine, at its cores; says so."""
    if not 1 <= workers <= MAX_WORKERS:
        raise ValueError(f"--workers must be from 1 to {MAX_WORKERS}, not {workers}")
    cores = os.cpu_count() or 1
    cap = games if address else min(games, cores)
    if workers > cap:
        why = f"{games} games" if cap == games else f"{cores} cores here"
        print(f"--workers {workers}: {cap} worker{'s' if cap != 1 else ''} ({why})", file=sys.stderr)
        return cap
    return workers


def prepare(request: TournamentRequest) -> tuple[Tournament, str]:
    """The tournament and its folder, every argument checked (agents built once, the folder
    usable), before anything runs."""
    from zwick_ai.eval.folder_lock import check_results_folder
    from zwick_ai.eval.tournament import Tournament
    from zwick_ai.eval.tournament.folder import COMMAND, default_out
    from zwick_ai.files import check_out_folder
    from zwick_ai.games.game_strings import game_spec

    r = request
    name, params = game_spec(r.game_string, r.variant, r.players, list(r.options))
    t = Tournament(
        list(r.agents),
        game=name,
        params=params,
        deals=r.deals,
        seed=r.seed,
        command=command_line(r),
        seating=r.seating,
        clock=r.clock,
        **dict(r.rules),
    )
    folder = r.out or str(default_out(t))
    check_out_folder(folder)
    check_results_folder(folder, COMMAND)
    return t, folder


def command_line(request: TournamentRequest) -> str:
    """The ``zwick tournament`` command that reproduces a tournament (workers and backend aside),
    shell-quoted, with its folder when one was given (run again, it resumes that folder)."""
    from zwick_ai.options import format_value

    r = request
    parts = ["zwick", "tournament", "--game", r.game_string]
    if r.variant:
        parts += ["--variant", r.variant]
    if r.players:
        parts += ["--players", str(r.players)]
    for name, value in r.options:
        parts += ["-o", f"{name}={format_value(value)}"]
    parts += ["--agents", ";".join(r.agents), "--deals", str(r.deals), "--seed", str(r.seed)]
    if r.seating != "all":
        parts += ["--seatings", r.seating]
    if r.clock != "wall":
        parts += ["--clock", r.clock]
    if r.max_deals is not None:
        parts += ["--until-resolved", "--max-deals", str(r.max_deals)]
    if r.out:
        parts += ["--out", str(r.out)]
    return shlex.join(parts)


def shipped_modules(specs: Sequence[str]) -> list[str]:
    """The files or package folders of the agents of ``specs`` from outside the package, which
    workers elsewhere (Ray) must import (:func:`zwick_ai.agents.outside.ship_paths`). The one
    place that list is worked out: every command's backend is made with it."""
    from zwick_ai.agents.base import outside_modules
    from zwick_ai.agents.outside import ship_paths

    return ship_paths(outside_modules(specs))


def run(
    request: TournamentRequest, signals: Callable[[], AbstractContextManager[Any]] = nullcontext
) -> dict[str, Any] | None:
    """Build and run one tournament; prints the report's tables. With ``max_deals`` it adds deals
    until every pair is resolved or that many are played
    (:func:`zwick_ai.eval.sequential.run_until_resolved`). Returns the summary, or None when
    interrupted. ``signals``: see :func:`run_prepared`."""
    t, folder = prepare(request)
    return run_prepared(t, folder, request, signals)


def run_prepared(
    t: Tournament,
    folder: str,
    request: TournamentRequest,
    signals: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> dict[str, Any] | None:
    """Run a tournament of :func:`prepare` on the request's backend (see :func:`run`).
    ``signals``: a context that makes the stop signals the command's own, entered before the
    backend starts and again after (Ray installs handlers of its own); the CLI passes
    :func:`zwick_ai.interrupts.reclaim`."""
    from zwick_ai.backends import make_backend
    from zwick_ai.eval.sequential import looks, run_until_resolved
    from zwick_ai.eval.tournament import run_tournament
    from zwick_ai.eval.tournament.report import report_markdown

    r = request
    workers = capped_workers(r.workers, t.games, r.address)
    try:
        ship = shipped_modules(t.agents)
        with signals(), make_backend(r.backend, workers, r.address, ship) as backend, signals():
            if r.max_deals is None:
                print(
                    f"{t.variant}: {len(t.agents)} agents, {t.deals} deals, {t.games} games on {backend.describe()} -> {folder}"
                )
                summary = run_tournament(t, folder, backend, progress=not r.quiet)
            else:
                plan = looks(t.deals, r.max_deals)
                print(f"{t.variant}: {len(t.agents)} agents, until resolved: looks at {', '.join(map(str, plan))} deals, "
                      f"on {backend.describe()} -> {folder}")  # fmt: skip
                summary = run_until_resolved(t, folder, r.max_deals, backend, progress=not r.quiet,
                                             say=lambda text: print(text, file=sys.stderr))  # fmt: skip
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP: the backend has stopped its workers
        print(f"\ninterrupted; finished games are in {folder}/games.jsonl; the same command resumes", file=sys.stderr)
        return None
    if summary is None:
        return None
    print(report_markdown(summary, plots=False))
    print(f"wrote {folder}/summary.json, summary.csv, ratings.csv, ratings.png, pairs.png, report.md")
    return summary


def duel(
    agents: Sequence[str], params: Mapping[str, Any], deals: int, seed: int, out: Path
) -> tuple[float, float, float]:
    """Two agents' duplicate tournament of ``deals`` deals from ``seed`` on the game of ``params``,
    in this process, without progress bar or figures, recorded in ``out`` (a rerun resumes it):
    the first agent's points per deal minus the second's and its 95% CI, ``(mean, low, high)``.
    This is how ``zwick train net`` measures each generation's strength."""
    from zwick_ai.eval.tournament import Tournament, run_tournament

    t = Tournament(agents=list(agents), params=dict(params), deals=deals, seed=seed)
    summary = run_tournament(t, out=out, progress=False, plots=False)
    assert summary is not None  # not stopped: it returns None only when asked to stop early
    pair = summary["pairs"][0]
    low, high = pair["ci95"]
    return pair["mean_diff"], low, high


# ------------------------------------------------------------------------------------------------
# An experiment (``zwick run``): one tournament per variant, then a table of ratings
# ------------------------------------------------------------------------------------------------

#: the command named in the mark of an experiment's folder (:mod:`zwick_ai.eval.folder_lock`)
EXPERIMENT_COMMAND = "zwick run"


def run_experiment(
    experiment: ExperimentFile,
    file: str,
    where: TournamentRequest,
    signals: Callable[[], AbstractContextManager[Any]] = nullcontext,
) -> dict[str, dict[str, Any]] | None:
    """Run the tournaments of an experiment read from ``file`` one after the other into
    ``experiment.out/<variant>/``, then write ``table.md`` and print its table; the summaries by
    variant, or None when interrupted. ``where``: the workers, backend, address, quietness and
    agents' rules every tournament gets (its other fields are ignored). Every variant's tournament
    and folder is checked before the first game: a mistake in the last variant must not wait for
    the first variant's games."""
    from zwick_ai.eval.folder_lock import check_results_folder, hold_results_folder
    from zwick_ai.files import check_out_folder

    e = experiment
    check_out_folder(e.out, f"{file}: out")
    check_results_folder(e.out, EXPERIMENT_COMMAND, what="out")
    prepared: dict[str, tuple[Tournament, str, TournamentRequest]] = {}
    for variant in e.variants:
        label = variant or e.game
        if label in prepared:
            raise ValueError(f"{file}: the variant {label!r} is listed twice")
        request = replace(
            where, game_string=e.game, variant=variant, players=e.players.get(str(variant)), options=list(e.options.items()),
            agents=e.agents, deals=e.deals, seed=e.seed, out=str(Path(e.out) / label), seating="all", clock="wall",
            max_deals=None,
        )  # fmt: skip
        try:
            prepared[label] = (*prepare(request), request)
        except ValueError as error:
            raise ValueError(f"{file}: {label}: {error}") from None
    summaries: dict[str, dict[str, Any]] = {}
    with hold_results_folder(e.out, EXPERIMENT_COMMAND, what="out"):
        for label, (t, folder, request) in prepared.items():
            summary = run_prepared(t, folder, request, signals)
            if summary is None:
                return None
            summaries[label] = summary
        text = experiment_table(e, file, summaries)
        out = Path(e.out) / "table.md"
        out.write_text("\n".join(text) + "\n")
    print(next(line for line in text if line.startswith("| agent |")))  # the table of ratings
    print(f"\nwrote {out}")
    return summaries


#: how ``table.md`` names the clocks of :mod:`zwick_ai.agents.clock`
CLOCK_NAMES = {"wall": "wall", "cpu": "the searching thread's CPU"}


def experiment_table(experiment: ExperimentFile, file: str, summaries: dict[str, dict[str, Any]]) -> list[str]:
    """The lines of an experiment's ``table.md``: the clock and the machine, where points and deals
    won disagree, the table of ratings (the line that starts with ``| agent |``), the verdicts."""
    from zwick_ai.eval.verdict import disagreement_lines

    e = experiment
    clocks = sorted({s.get("clock", "wall") for s in summaries.values()})
    machines = "; ".join(f"{v}: {s['machine']}" for v, s in summaries.items() if s.get("machine"))
    split = [
        f"{v}: {line}" for v, s in summaries.items() for line in disagreement_lines([p["verdict"] for p in s["pairs"]])
    ]
    return [
        f"# {Path(file).stem}",
        "",
        e.description,
        "",
        f"Clock: the searches' time budgets (`time=`) count {' and '.join(CLOCK_NAMES.get(c, c) for c in clocks)} time"
        + (f". Machine at the start of each variant's run: {machines}." if machines else "."),
        "",
        *([*split, ""] if split else []),
        f"Ranked by points a deal: each agent's points rating (least squares on the pairs' mean per-deal "
        "differences, mean 0 per column) with its 95% bootstrap CI; then Bradley–Terry on deals won (Elo scale, "
        f"mean 0) with its CI. {e.game}, {e.deals} duplicate deals per variant, seed {e.seed}.",
        "",
        ratings_table(e.agents, summaries),
        "",
        *verdict_section(summaries),
        f"Command: `zwick run {file}`; per-variant reports: " + ", ".join(f"[{v}]({v}/report.md)" for v in summaries),
    ]


def ratings_table(agents: Sequence[str], summaries: dict[str, dict[str, Any]]) -> str:
    """Markdown: agents (rows) by variants (columns), in each cell the points rating with its 95%
    CI (what the tables rank by) and the Bradley–Terry rating on deals won beside it."""
    from zwick_ai.eval.report import markdown_table

    cols = list(summaries)
    rows = []
    for agent in agents:
        cells = []
        for v in cols:
            points = summaries[v].get("points_ratings") or []
            p = next((x for x in points if x["agent"] == agent), None)
            r = next(x for x in summaries[v]["ratings"] if x["agent"] == agent)
            lo, hi = r["ci95"]
            wins = f"{r['rating']:.0f}" + (f" [{lo:.0f}, {hi:.0f}]" if lo is not None and hi is not None else "")
            if p is None:
                cells.append(wins)
                continue
            plo, phi = p["ci95"]
            ci = f" [{plo:+.2f}, {phi:+.2f}]" if plo is not None and phi is not None else ""
            cells.append(f"{p['rating']:+.2f}{ci}; wins {wins}")
        rows.append([f"`{agent}`", *cells])
    return "\n".join(markdown_table(["agent", *cols], rows))


def verdict_section(summaries: dict[str, dict[str, Any]]) -> list[str]:
    """Every variant's verdicts in words (:func:`zwick_ai.eval.verdict.pair_verdict`), points
    and wins together, with the disagreements first."""
    from zwick_ai.eval.verdict import disagreement_lines

    out = ["## Verdicts", ""]
    for v, summary in summaries.items():
        verdicts = [p["verdict"] for p in summary["pairs"]]
        out += [f"**{v}**", "", *disagreement_lines(verdicts), *(f"- {x['text']}" for x in verdicts), ""]
    return out
