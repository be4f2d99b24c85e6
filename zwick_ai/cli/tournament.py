"""``zwick tournament``: agent specs against each other on duplicate deals, with ratings.

Every pair of agents plays every deal in every seating (sides swapped; with three or more sides,
each agent alone against the other everywhere else, both ways), so the luck of cards and seats
cancels. Results go to ``--out`` as they finish (``games.jsonl``); the same command again resumes.
See :mod:`zwick_ai.eval.tournament` for the statistics and files.

Agent specs contain commas themselves (``ismcts:iters=200,c=0.7``). Give them separated by ``;``
(quote the argument), repeat ``--agents``, or list them with commas: a piece ``key=value`` without
a ``:`` continues the previous spec (:func:`zwick_ai.cli.agent_lists.split_agents`).

>>> agent_list(["ismcts:iters=200,c=0.7,greedy", "random;pimc:worlds=4,iters=50"])
['ismcts:iters=200,c=0.7', 'greedy', 'random', 'pimc:worlds=4,iters=50']
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from collections.abc import Sequence
from typing import Any

from zwick_ai.cli.agent_lists import split_agents
from zwick_ai.cli.defaults import DEFAULT_AGENTS, DEFAULT_DEALS, DEFAULT_SUMMARY, MAX_WORKERS
from zwick_ai.cli.game_args import add_game_args
from zwick_ai.cli.interrupts import reclaim
from zwick_ai.cli.paths import check_out_folder

EXAMPLES = f"""examples:
  zwick tournament                                  {DEFAULT_SUMMARY}
  zwick tournament --variant classic --players 2 --agents "ismcts:iters=500,c=0.7;greedy;random" --deals 200
  zwick tournament --agents greedy --agents random --deals 100 --workers 2 --out results/gr
  zwick tournament --game zwikken --variant parlett --players 3 --agents ismcts,random --deals 100
  zwick tournament --backend ray --workers 2 --agents greedy,random     (a local Ray instance)
  zwick tournament --backend ray --address auto ...                     (an existing Ray cluster)
  zwick tournament --variant grupp --agents "expert:time=0.05;ismcts:time=0.05" --clock cpu --deals 60 \
      --until-resolved --max-deals 2000      (more deals until the pair is told apart, or 2000)

agents: separate specs with ';' (quote it) or repeat --agents; with commas, a key=value piece
continues the previous spec (greedy,ismcts:iters=200,c=0.7,random is three agents).
The same command again resumes an interrupted tournament (finished games are skipped); only
--deals may differ: more extends it, fewer summarises the first deals and keeps the other games.
--workers and --backend never change the results.
--until-resolved: looks at --deals, then 1.5 times as many each time up to --max-deals; stops at the
first look whose intervals (a group-sequential design that keeps the error rate at 5%) tell every
pair apart on points (docs/tournaments.md)."""


def agent_list(texts: Sequence[str]) -> list[str]:
    """The agent specs of ``--agents`` arguments: ``;``-separated, repeated, or with commas."""
    return [spec for text in texts for spec in split_agents(text)]


def default_workers() -> int:
    """Two worker processes where there are two cores (the default tournament is sized for that)."""
    return max(1, min(2, os.cpu_count() or 1))


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


def prepare(
    game_name: str,
    variant: str | None,
    players: int | None,
    options: Sequence[tuple[str, Any]],
    agents: Sequence[str],
    deals: int,
    seed: int,
    out: str | None,
    seating: str = "all",
    clock: str = "wall",
    max_deals: int | None = None,
    rules: dict[str, Any] | None = None,
) -> tuple[Any, str]:
    """The tournament and its folder, every argument checked (agents built once, the folder
    usable), before anything runs: shared by ``zwick tournament`` and ``zwick run``. ``rules``:
    the outside agents' limits and what a failure does (:func:`agent_rules`)."""
    from zwick_ai.eval.folder_lock import check_results_folder
    from zwick_ai.eval.tournament import COMMAND, Tournament, default_out, made_before_marks
    from zwick_ai.games.game_strings import game_spec

    name, params = game_spec(game_name, variant, players, list(options))
    t = Tournament(
        list(agents),
        game=name,
        params=params,
        deals=deals,
        seed=seed,
        command=command_line(game_name, variant, players, options, agents, deals, seed, seating, clock, out, max_deals),
        seating=seating,
        clock=clock,
        **(rules or {}),
    )
    folder = out or str(default_out(t))
    check_out_folder(folder)
    check_results_folder(folder, COMMAND, legacy=made_before_marks)
    return t, folder


def command_line(game: str, variant: str | None, players: int | None, options: Sequence[tuple[str, Any]],
                 agents: Sequence[str], deals: int, seed: int, seating: str = "all",
                 clock: str = "wall", out: str | None = None, max_deals: int | None = None) -> str:  # fmt: skip
    """The ``zwick tournament`` command that reproduces a tournament (workers and backend aside),
    shell-quoted, with its folder when one was given (run again, it resumes that folder)."""
    from zwick_ai.options import format_value

    parts = ["zwick", "tournament", "--game", game]
    if variant:
        parts += ["--variant", variant]
    if players:
        parts += ["--players", str(players)]
    for name, value in options:
        parts += ["-o", f"{name}={format_value(value)}"]
    parts += ["--agents", ";".join(agents), "--deals", str(deals), "--seed", str(seed)]
    if seating != "all":
        parts += ["--seatings", seating]
    if clock != "wall":
        parts += ["--clock", clock]
    if max_deals is not None:
        parts += ["--until-resolved", "--max-deals", str(max_deals)]
    if out:
        parts += ["--out", str(out)]
    return shlex.join(parts)


def shipped_modules(specs: Sequence[str]) -> list[str]:
    """The files or package folders of the agents of ``specs`` from outside the package, which
    workers elsewhere (Ray) must import (:func:`zwick_ai.agents.outside.ship_paths`)."""
    from zwick_ai.agents.base import outside_modules
    from zwick_ai.agents.outside import ship_paths

    return ship_paths(outside_modules(specs))


def run(
    game_name: str,
    variant: str | None,
    players: int | None,
    options: Sequence[tuple[str, Any]],
    agents: Sequence[str],
    deals: int,
    seed: int,
    workers: int,
    backend_name: str,
    address: str | None,
    out: str | None,
    quiet: bool,
    seating: str = "all",
    clock: str = "wall",
    max_deals: int | None = None,
    rules: dict[str, Any] | None = None,
) -> dict[str, Any] | None:
    """Build and run one tournament (shared by ``zwick tournament`` and ``zwick run``); prints the
    report's tables. With ``max_deals`` it adds deals until every pair is resolved or that many
    are played (:func:`zwick_ai.eval.sequential.run_until_resolved`). Returns the summary, or None
    when interrupted."""
    t, folder = prepare(
        game_name, variant, players, options, agents, deals, seed, out, seating, clock, max_deals, rules
    )
    return run_prepared(t, folder, workers, backend_name, address, quiet, max_deals)


def run_prepared(
    t: Any, folder: str, workers: int, backend_name: str, address: str | None, quiet: bool,
    max_deals: int | None = None,
) -> dict[str, Any] | None:  # fmt: skip
    """Run a tournament of :func:`prepare` (see :func:`run`)."""
    from zwick_ai.backends import make_backend
    from zwick_ai.eval.sequential import looks, run_until_resolved
    from zwick_ai.eval.tournament import report_markdown, run_tournament

    deals = t.deals
    workers = capped_workers(workers, t.games, address)
    try:
        # the stop signals are ours before the backend starts and again after (Ray installs handlers of its own)
        ship = shipped_modules(t.agents)
        with reclaim(), make_backend(backend_name, workers, address, ship) as backend, reclaim():
            if max_deals is None:
                print(
                    f"{t.variant}: {len(t.agents)} agents, {deals} deals, {t.games} games on {backend.describe()} -> {folder}"
                )
                summary = run_tournament(t, folder, backend, progress=not quiet)
            else:
                plan = looks(deals, max_deals)
                print(f"{t.variant}: {len(t.agents)} agents, until resolved: looks at {', '.join(map(str, plan))} deals, "
                      f"on {backend.describe()} -> {folder}")  # fmt: skip
                summary = run_until_resolved(t, folder, max_deals, backend, progress=not quiet,
                                             say=lambda text: print(text, file=sys.stderr))  # fmt: skip
    except KeyboardInterrupt:  # Ctrl-C, SIGTERM or SIGHUP: the backend has stopped its workers
        print(f"\ninterrupted; finished games are in {folder}/games.jsonl; the same command resumes", file=sys.stderr)
        return None
    if summary is None:
        return None
    print(report_markdown(summary, plots=False))
    print(f"wrote {folder}/summary.json, summary.csv, ratings.csv, ratings.png, pairs.png, report.md")
    return summary


def cmd_tournament(args: argparse.Namespace) -> int:
    agents = agent_list(args.agents) if args.agents else list(DEFAULT_AGENTS)
    if args.max_deals is not None and not args.until_resolved:
        raise ValueError("--max-deals is the cap of --until-resolved; give both, or leave --max-deals out")
    max_deals = (args.max_deals if args.max_deals is not None else 10 * args.deals) if args.until_resolved else None
    summary = run(
        args.game,
        args.variant,
        args.players,
        args.option or [],
        agents,
        args.deals,
        args.seed,
        args.workers,
        args.backend,
        args.address,
        args.out,
        args.quiet,
        args.seatings,
        args.clock,
        max_deals,
        agent_rules(args),
    )
    return exit_status(summary)


def exit_status(summary: dict[str, Any] | None) -> int:
    """``zwick``'s status after a tournament: 0, 130 when it was interrupted, and
    :data:`zwick_ai.eval.agent_failures.EXIT_AGENT_FAILED` when agents forfeited games."""
    if summary is None:
        return 130
    if summary.get("forfeits"):
        from zwick_ai.eval.agent_failures import EXIT_AGENT_FAILED

        print(f"{len(summary['forfeits'])} games forfeited by failing agents (forfeits.jsonl)", file=sys.stderr)
        return EXIT_AGENT_FAILED
    return 0


def agent_rules(args: argparse.Namespace) -> dict[str, Any]:
    """The ``Tournament`` keywords of ``--move-time-limit``, ``--start-time-limit`` and ``--on-agent-error``."""
    names = ("move_time_limit", "start_time_limit", "on_agent_error")
    return {k: getattr(args, k) for k in names if getattr(args, k, None) is not None}


def add_agent_rule_args(p: argparse.ArgumentParser, from_file: bool = False) -> None:
    """The options for agents from outside the package: their clocks, and what their failure does.
    ``from_file``: a file's keys of the same names are the defaults (the options override them)."""
    from zwick_ai.cli.defaults import MOVE_TIME_LIMIT, START_TIME_LIMIT

    mine = "the file's, else " if from_file else ""
    p.add_argument(
        "--move-time-limit", type=float, metavar="S",
        help=f"seconds an agent from outside the package may take for one decision (default: {mine}{MOVE_TIME_LIMIT:g}); "
        "an agent over it is interrupted, and its process ended 5 s later",
    )  # fmt: skip
    p.add_argument(
        "--start-time-limit", type=float, metavar="S",
        help=f"seconds such an agent may take to be imported and built (default: {mine}{START_TIME_LIMIT:g})",
    )  # fmt: skip
    p.add_argument(
        "--on-agent-error", choices=("stop", "forfeit"),
        help="when such an agent fails (raises, exits, crashes its worker, overruns): stop the run naming it "
        "(exit status 3), or forfeit: the agent loses that deal, the run goes on, the game is listed in "
        f"forfeits.jsonl (default: {mine}stop; the traceback goes to agent-errors.log in the results folder)",
    )  # fmt: skip


def add_run_args(p: argparse.ArgumentParser, from_file: bool = False) -> None:
    """``--workers``, ``--backend``, ``--address`` (where games run, never what they give) and
    ``--quiet``. ``from_file``: the defaults come from an experiment file."""
    default = " (default: the file's, else %(default)s)" if from_file else " (default: %(default)s)"
    p.add_argument(
        "--workers", type=int, default=None if from_file else default_workers(),
        help="worker processes (local) or CPUs of a local Ray instance"
        + (" (default: the file's, else " + str(default_workers()) + ")" if from_file else default),
    )  # fmt: skip
    p.add_argument(
        "--backend", choices=("local", "ray"), default=None if from_file else "local",
        help="local processes, or Ray (pip install 'zwick_ai[ray]')" + (" (default: the file's, else local)" if from_file else default),
    )  # fmt: skip
    p.add_argument("--address", help="ray: address of an existing cluster (e.g. auto); default: start a local one")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``tournament`` to the ``zwick`` command."""
    p = sub.add_parser(
        "tournament",
        help="agents against each other on duplicate deals: paired differences and ratings",
        description="Play every pair of agents on the same seeded deals, every deal in every seating, "
        "and report per pair the mean difference per deal (Zwicker: side points; trick games: chips) "
        "with a 95% CI and the win rate, and per agent a Bradley-Terry rating (Elo scale) with a "
        "bootstrap CI. Writes games.jsonl (resumable), summary.json/csv, ratings.csv, PNG plots and "
        "report.md to --out.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_args(p)
    p.add_argument(
        "--agents", action="append", metavar="SPECS",
        help=f"agent specs, ';'-separated or repeated (default: {';'.join(DEFAULT_AGENTS)})",
    )  # fmt: skip
    p.add_argument("--deals", type=int, default=DEFAULT_DEALS, help="duplicate deals (default: %(default)s)")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and agents (default: %(default)s)")
    p.add_argument(
        "--seatings",
        choices=("all", "rotate"),
        default="all",
        help="with three or more sides: every seating of a pair on every deal (2 x sides games), or rotate: "
        "two a deal, the lone side rotating with the deal (default: %(default)s)",
    )
    p.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="what the searches' time budgets (time=) count: wall time, or cpu: the searching thread's CPU time, "
        "for equal-time comparisons on a loaded machine (default: %(default)s)",
    )
    p.add_argument(
        "--until-resolved", action="store_true",
        help="add deals until every pair's difference on points is told apart (a group-sequential design "
        "at 5%%: looks at --deals, then 1.5 times as many each time) or --max-deals is reached",
    )  # fmt: skip
    p.add_argument("--max-deals", type=int, default=None, metavar="N",
                   help="the cap of --until-resolved (default: 10 x --deals)")  # fmt: skip
    p.add_argument("--out", help="results folder (default: results/tournament-<variant>-<seed>)")
    add_run_args(p)
    add_agent_rule_args(p)
    p.set_defaults(func=cmd_tournament)
