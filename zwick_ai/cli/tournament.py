"""``zwick tournament``: agent specs against each other on duplicate deals, with ratings.

Every pair of agents plays every deal in every seating (sides swapped; with three or more sides,
each agent alone against the other everywhere else, both ways), so the luck of cards and seats
cancels. Results go to ``--out`` as they finish (``games.jsonl``); the same command again resumes.
See :mod:`zwick_ai.eval.tournament` for the statistics and files, and
:mod:`zwick_ai.eval.orchestrate` for how a command's request becomes a tournament.

Agent specs contain commas themselves (``ismcts:iters=200,c=0.7``). Give them separated by ``;``
(quote the argument), repeat ``--agents``, or list them with commas: a piece ``key=value`` without
a ``:`` continues the previous spec (:func:`zwick_ai.cli.agent_lists.split_agents`).

>>> agent_list(["ismcts:iters=200,c=0.7,greedy", "random;pimc:worlds=4,iters=50"])
['ismcts:iters=200,c=0.7', 'greedy', 'random', 'pimc:worlds=4,iters=50']
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any

from zwick_ai.cli.agent_lists import split_agents
from zwick_ai.cli.defaults import DEFAULT_AGENTS, DEFAULT_DEALS, DEFAULT_SUMMARY
from zwick_ai.cli.game_args import add_game_args
from zwick_ai.cli.run_options import add_agent_rule_args, add_run_args, agent_rules

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


def cmd_tournament(args: argparse.Namespace) -> int:
    from zwick_ai.eval.orchestrate import TournamentRequest, run
    from zwick_ai.interrupts import reclaim

    agents = agent_list(args.agents) if args.agents else list(DEFAULT_AGENTS)
    if args.max_deals is not None and not args.until_resolved:
        raise ValueError("--max-deals is the cap of --until-resolved; give both, or leave --max-deals out")
    max_deals = (args.max_deals if args.max_deals is not None else 10 * args.deals) if args.until_resolved else None
    request = TournamentRequest(
        args.game, args.variant, args.players, args.option or [], agents, args.deals, args.seed, out=args.out,
        seating=args.seatings, clock=args.clock, max_deals=max_deals, rules=agent_rules(args),
        workers=args.workers, backend=args.backend, address=args.address, quiet=args.quiet,
    )  # fmt: skip
    return exit_status(run(request, reclaim))


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
