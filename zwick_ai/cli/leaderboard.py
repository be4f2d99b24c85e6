"""``zwick leaderboard FILE.toml``: every agent on every game, one Bradley–Terry table
(:mod:`zwick_ai.eval.leaderboard`: a gauntlet of duplicate-deal tournaments, resumable).

The file's keys are checked in :mod:`zwick_ai.eval.experiment_files` (its table of keys;
``experiments/leaderboard.toml`` is the full one, ``experiments/leaderboard-smoke.toml`` a tiny one).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from zwick_ai.cli.run_options import add_agent_rule_args, add_run_args, agent_rules, default_workers

EXAMPLES = """examples:
  zwick leaderboard experiments/leaderboard-smoke.toml              (a few minutes)
  zwick leaderboard experiments/leaderboard.toml --workers 2        (many CPU hours; resumable)
  zwick leaderboard experiments/leaderboard.toml --only "zwicker classic 4p"
The same command again resumes: finished games are kept and never played twice."""


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from zwick_ai.backends import make_backend
    from zwick_ai.eval import leaderboard
    from zwick_ai.eval.experiment_files import check_agent_specs, load_leaderboard
    from zwick_ai.eval.orchestrate import shipped_modules
    from zwick_ai.interrupts import reclaim

    spec = load_leaderboard(args.file)
    check_agent_specs(spec, str(args.file))
    workers = next(w for w in (args.workers, spec.workers, default_workers()) if w is not None)
    backend_name = args.backend or spec.backend
    address = args.address or spec.address
    rules = spec.rules | agent_rules(args)  # the command line's options override the file's keys
    out = Path(spec.out)
    print("checking which agents play each game (loads models; compiles kernels once)", file=sys.stderr)
    boards = [
        leaderboard.make_board(
            b.game,
            b.variant,
            b.players,
            b.options,
            spec.agents + b.agents,
            spec.references + b.references,
            rules.get("start_time_limit", leaderboard.START_TIME_LIMIT),
        )  # fmt: skip
        for b in spec.boards
    ]
    order = [b.label for b in boards]
    board_deals = {b.label: parsed.deals for b, parsed in zip(boards, spec.boards, strict=True)}
    if args.only:
        unknown = [x for x in args.only if x not in {b.label for b in boards}]
        if unknown:
            raise ValueError(f"--only {unknown}: no such board; boards: {', '.join(b.label for b in boards)}")
        boards = [b for b in boards if b.label in args.only]
    results = []
    try:
        ship = shipped_modules([a for b in boards for a in b.agents + b.references])
        with reclaim(), make_backend(backend_name, workers, address, ship) as backend, reclaim():
            for b in boards:
                print(f"{b.label}: {len(b.agents)} agents ({len(b.skipped)} left out), {board_deals[b.label]} deals per pair "
                      f"on {backend.describe()} -> {out / b.slug}")  # fmt: skip
                how = leaderboard.PairPlay(
                    board_deals[b.label], spec.seed, out, backend, not args.quiet, spec.seatings, spec.clock, rules
                )
                r = leaderboard.run_board(b, spec.anchors, spec.top, how, spec.search)
                if r is None:
                    raise KeyboardInterrupt
                if spec.pack:
                    leaderboard.pack(b, out)
                results.append(r)
    except KeyboardInterrupt:
        print(f"\ninterrupted; finished games are kept under {out}; the same command resumes", file=sys.stderr)
        return 130
    for r in results:
        r["command"] = shlex.join(["zwick", "leaderboard", str(args.file), "--only", r["board"]])
    command = shlex.join(["zwick", "leaderboard", str(args.file)])
    boards_done = leaderboard.merged(results, out)
    boards_done.sort(key=lambda r: order.index(r["board"]) if r["board"] in order else len(order))
    path = leaderboard.write(boards_done, out, Path(args.file).stem, spec.description, command)
    print(path.read_text().split("\n\n## ")[0])
    print(f"wrote {path}, {out / 'leaderboard.json'}, {out / 'headline.md'}, {out}/<board>/ratings.csv")
    failed = [f"{r['board']}: {a}" for r in results for a in r.get("failed", {})]
    if failed:  # agents left out of a board for failing (on_agent_error = "forfeit"): the status says so
        print(f"left out for failing: {'; '.join(failed)} (see each board's agent-errors.log)", file=sys.stderr)
        return 3  # zwick_ai.eval.agent_failures.EXIT_AGENT_FAILED, as zwick tournament
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    """Add ``leaderboard`` to the ``zwick`` command."""
    p = sub.add_parser(
        "leaderboard",
        help="every agent on every game: a gauntlet of duplicate-deal tournaments, one Bradley-Terry table",
        description="Per game of FILE.toml (each Zwicker variant, each trick-game rule set), every agent that plays "
        "it meets the anchors (greedy, ismcts at 0.1 s) on the same duplicate deals, then the leaders meet each "
        "other; Bradley-Terry ratings with 95% bootstrap CIs; leaderboard.md (agents x games) and .json in the "
        "file's out folder. Resumable.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument("file", help="leaderboard file (TOML), e.g. experiments/leaderboard.toml")
    p.add_argument("--only", action="append", metavar="BOARD", help='play only this board, e.g. "zwicker classic 4p"')
    add_run_args(p, from_file=True)
    add_agent_rule_args(p, from_file=True)
    p.set_defaults(func=cmd_leaderboard)
