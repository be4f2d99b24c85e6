"""``zwick leaderboard FILE.toml``: every agent on every game, one Bradley–Terry table
(:mod:`zwick_ai.eval.leaderboard`: a gauntlet of duplicate-deal tournaments, resumable).

Keys of the file (``experiments/leaderboard.toml`` is the full one, ``experiments/leaderboard-smoke.toml``
a tiny one):

=============  ==================================================================================
key            meaning
=============  ==================================================================================
description    one paragraph shown in ``leaderboard.md`` (optional)
agents         agent specs tried on every board (those that cannot play a board are left out)
anchors        the gauntlet's anchors (default: greedy and ismcts:time=0.1)
references     agents that are not fair players (e.g. ``peek-uct:time=0.1``, which reads the other
               hands): they play each anchor, outside the ratings, for the ladder's share of the room
deals          duplicate deals per pair (required; a board's own ``deals`` overrides it)
clock          ``wall`` (default) or ``cpu``: what the searches' time budgets count (``cpu``: the
               searching thread's CPU time, for equal time on a loaded machine)
seatings       ``all`` (default): every seating of a pair on every deal; ``rotate``: two a deal, the
               lone side rotating with the deal (the cheaper design for games of three or more sides)
search         the floor of the ladder's room, an agent of every board (default: the last anchor):
               each agent's share is its margin over it divided by the first reference's
top            how many leaders then play every pair among them (default 3)
seed           seed of the deals and agents (default 0)
out            results folder (default ``results/<file name>``)
pack           ``true``: a finished board keeps its pairs in two files, ``games.jsonl.gz`` (every
               pair's games) and ``pairs.json``, not a folder per pair (default ``false``)
workers        worker processes (default: as ``zwick tournament``; ``--workers`` overrides)
backend        ``local`` (default) or ``ray``; ``address`` for an existing Ray cluster
move_time_limit, start_time_limit, on_agent_error
               the rules of agents from outside the package, as ``zwick tournament``'s options
               (default 60, 120, ``"stop"``; the same command-line options override them). With
               ``"forfeit"`` an agent that fails is left out of that board, the reason recorded
[[board]]      one per game: ``game``, ``variant``, ``players`` (default: the variant's),
               ``options`` (rule options), ``agents`` and ``references`` (extra specs for this board only),
               ``deals`` (this board's deals per pair)
=============  ==================================================================================

>>> spec = parse_leaderboard({"agents": ["greedy", "random"], "deals": 4, "board": [{"game": "zwicken"}]}, "x")
>>> spec["anchors"], spec["top"], spec["out"], spec["boards"][0]["deals"]
(['greedy', 'ismcts:time=0.1'], 3, 'results/x', 4)
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path
from typing import Any

from zwick_ai.cli.defaults import AGENT_RULE_KEYS, MAX_DEALS, MAX_WORKERS
from zwick_ai.cli.interrupts import reclaim
from zwick_ai.cli.paths import check_out_folder, read_toml, whole_number
from zwick_ai.cli.tournament import add_agent_rule_args, add_run_args, agent_rules, default_workers, shipped_modules

#: the most leaders that then play every pair among them, and the largest seed
MAX_TOP = 1_000
MAX_SEED = 2**32 - 1

KEYS = (
    "address", "agents", "anchors", "backend", "board", "clock", "deals", "description", "out", "references",
    "pack", "search", "seatings", "seed", "top", "workers", *AGENT_RULE_KEYS,
)  # fmt: skip
BOARD_KEYS = ("agents", "deals", "game", "options", "players", "references", "variant")
EXAMPLES = """examples:
  zwick leaderboard experiments/leaderboard-smoke.toml              (a few minutes)
  zwick leaderboard experiments/leaderboard.toml --workers 2        (many CPU hours; resumable)
  zwick leaderboard experiments/leaderboard.toml --only "zwicker classic 4p"
The same command again resumes: finished games are kept and never played twice."""


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{where} must be a list of strings")
    return [x.strip() for x in value]


def parse_leaderboard(data: dict[str, Any], name: str) -> dict[str, Any]:
    """Check a leaderboard file's keys and types; fill in the defaults (``name``: the file's stem)."""
    for key in data:
        if key not in KEYS:
            raise ValueError(f"{name}: unknown key {key!r}; valid keys: {', '.join(KEYS)}")
    for key in ("agents", "deals", "board"):
        if key not in data:
            raise ValueError(f"{name}: {key} is required")
    deals, top, seed = data["deals"], data.get("top", 3), data.get("seed", 0)
    for key, value, low, high in (
        ("deals", deals, 1, MAX_DEALS),
        ("top", top, 0, MAX_TOP),
        ("seed", seed, 0, MAX_SEED),
    ):
        whole_number(value, f"{name}: {key}", low, high)
    whole_number(data.get("workers", 1), f"{name}: workers", 1, MAX_WORKERS)
    check_out_folder(str(data.get("out", f"results/{name}")), f"{name}: out")
    clock = data.get("clock", "wall")
    if clock not in ("wall", "cpu"):
        raise ValueError(f'{name}: clock must be "wall" or "cpu", not {clock!r}')
    seating = data.get("seatings", "all")
    if seating not in ("all", "rotate"):
        raise ValueError(f'{name}: seatings must be "all" or "rotate", not {seating!r}')
    boards = data["board"]
    if not isinstance(boards, list) or not boards:
        raise ValueError(f"{name}: board must be a list of tables ([[board]])")
    parsed = []
    for k, b in enumerate(boards):
        where = f"{name}: board {k + 1}"
        if not isinstance(b, dict):
            raise ValueError(f"{where} must be a table")
        for key in b:
            if key not in BOARD_KEYS:
                raise ValueError(f"{where}: unknown key {key!r}; valid keys: {', '.join(BOARD_KEYS)}")
        if "game" not in b:
            raise ValueError(f"{where}: game is required")
        board_deals = whole_number(b.get("deals", deals), f"{where}: deals", 1, MAX_DEALS)
        parsed.append(
            {
                "game": str(b["game"]),
                "variant": b.get("variant"),
                "players": b.get("players"),
                "options": dict(b.get("options", {})),
                "agents": _strings(b.get("agents", []), f"{where}: agents"),
                "references": _strings(b.get("references", []), f"{where}: references"),
                "deals": board_deals,
            }
        )
    if not isinstance(data.get("pack", False), bool):
        raise ValueError(f"{name}: pack must be true or false, not {data['pack']!r}")
    from zwick_ai.eval.agent_failures import checked_rules

    rules = checked_rules({k: data[k] for k in AGENT_RULE_KEYS if k in data}, name)
    anchors = _strings(data.get("anchors", ["greedy", "ismcts:time=0.1"]), f"{name}: anchors")
    if not anchors:
        raise ValueError(f"{name}: anchors must name at least one agent (every agent is rated against them)")
    return {
        "description": str(data.get("description", "")),
        "agents": _strings(data["agents"], f"{name}: agents"),
        "anchors": anchors,
        "references": _strings(data.get("references", []), f"{name}: references"),
        "deals": deals,
        "seatings": seating,
        "clock": clock,
        "pack": data.get("pack", False),
        "top": top,
        "search": str(data["search"]).strip() if "search" in data else None,
        "seed": seed,
        "out": str(data.get("out", f"results/{name}")),
        "workers": data.get("workers", default_workers()),
        "backend": str(data.get("backend", "local")),
        "address": data.get("address"),
        "boards": parsed,
        "rules": rules,
    }


def check_agent_specs(spec: dict[str, Any], name: str) -> None:
    """Every agent the file names (agents, anchors, references, boards' own) is a registered agent
    with valid parameters, refused as ``zwick tournament --agents`` refuses it; an agent that does
    not play a board's game is only left out of that board."""
    import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
    from zwick_ai.agents.base import agent_params

    lists = [("agents", spec["agents"]), ("anchors", spec["anchors"]), ("references", spec["references"])]
    for k, b in enumerate(spec["boards"]):
        lists += [(f"board {k + 1}: agents", b["agents"]), (f"board {k + 1}: references", b["references"])]
    for where, specs in lists:
        for agent in specs:
            try:
                agent_params(agent)
            except ValueError as error:
                raise ValueError(f"{name}: {where}: {agent!r}: {error}") from None


def load_leaderboard(path: str | Path) -> dict[str, Any]:
    p = Path(path)
    return parse_leaderboard(read_toml(p, "leaderboard"), p.stem)


def cmd_leaderboard(args: argparse.Namespace) -> int:
    from zwick_ai.backends import make_backend
    from zwick_ai.eval import leaderboard

    spec = load_leaderboard(args.file)
    check_agent_specs(spec, str(args.file))
    workers = args.workers if args.workers is not None else spec["workers"]
    backend_name = args.backend or spec["backend"]
    address = args.address or spec["address"]
    rules = spec["rules"] | agent_rules(args)  # the command line's options override the file's keys
    out = Path(spec["out"])
    print("checking which agents play each game (loads models; compiles kernels once)", file=sys.stderr)
    boards = [
        leaderboard.make_board(
            b["game"],
            b["variant"],
            b["players"],
            b["options"],
            spec["agents"] + b["agents"],
            spec["references"] + b["references"],
            rules.get("start_time_limit", leaderboard.START_TIME_LIMIT),
        )  # fmt: skip
        for b in spec["boards"]
    ]
    order = [b.label for b in boards]
    board_deals = {b.label: parsed["deals"] for b, parsed in zip(boards, spec["boards"], strict=True)}
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
                r = leaderboard.run_board(
                    b, spec["anchors"], board_deals[b.label], spec["top"], spec["seed"], out, backend, not args.quiet,
                    spec["seatings"], spec["clock"], spec["search"], rules,
                )  # fmt: skip
                if r is None:
                    raise KeyboardInterrupt
                if spec["pack"]:
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
    path = leaderboard.write(boards_done, out, Path(args.file).stem, spec["description"], command)
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
