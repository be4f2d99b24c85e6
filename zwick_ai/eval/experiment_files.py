"""The two TOML files of the ``zwick`` command, checked in one place: an experiment (``zwick run``:
one game, a list of agents, one tournament per variant) and a leaderboard (``zwick leaderboard``:
every agent on every board of a gauntlet). Each is read into a typed, frozen record with its
defaults filled in, or refused with one line naming the file and the key.

An **experiment file** (``experiments/README.md`` has a commented example):

=============  ==================================================================================
key            meaning
=============  ==================================================================================
description    one line shown in ``table.md`` (optional)
game           ``zwicker`` (default), ``zwikken`` or ``zwicken``
variants       list of variants (or ``variant`` for one); none for ``zwicken``
players        number of players (default: each variant's), or a table by variant: {classic = 2}
options        table of rule options (``-o`` of ``zwick tournament``)
agents         list of agent specs (required, at least two)
deals          duplicate deals per variant (required)
seed           seed of the deals and agents (default 0)
out            results folder (default ``results/<file name>``)
workers        worker processes (default: as ``zwick tournament``; ``--workers`` overrides)
backend        ``local`` (default) or ``ray``; ``address`` for an existing Ray cluster
move_time_limit, start_time_limit, on_agent_error
               the rules of agents from outside the package, as ``zwick tournament``'s options
               (default 60, 120, ``"stop"``; the same command-line options override them)
=============  ==================================================================================

A **leaderboard file** (``experiments/leaderboard.toml`` is the full one,
``experiments/leaderboard-smoke.toml`` a tiny one):

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

>>> e = parse_experiment({"agents": ["greedy", "random"], "deals": 4, "variants": ["classic"]}, "x")
>>> e.variants, e.out, e.seed
(['classic'], 'results/x', 0)
>>> parse_experiment({"agents": ["greedy"], "deals": 4, "colour": "red"}, "x")
Traceback (most recent call last):
...
ValueError: x: unknown key 'colour'; valid keys: address, agents, backend, deals, description, game, options, out, players, seed, variant, variants, workers, move_time_limit, start_time_limit, on_agent_error
>>> b = parse_leaderboard({"agents": ["greedy", "random"], "deals": 4, "board": [{"game": "zwicken"}]}, "x")
>>> b.anchors, b.top, b.out, b.boards[0].deals
(['greedy', 'ismcts:time=0.1'], 3, 'results/x', 4)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from zwick_ai.eval.agent_failures import RULE_KEYS, checked_rules
from zwick_ai.eval.orchestrate import MAX_WORKERS
from zwick_ai.files import check_out_folder, read_toml, whole_number

__all__ = [
    "BoardEntry",
    "ExperimentFile",
    "LeaderboardFile",
    "check_agent_specs",
    "load_experiment",
    "load_leaderboard",
    "parse_experiment",
    "parse_leaderboard",
]

#: the most deals a tournament or a board's pair takes (:data:`zwick_ai.eval.tournament.definition.MAX_DEALS`)
MAX_DEALS = 1_000_000
#: the largest seed, the most leaders that then play every pair among them
MAX_SEED = 2**32 - 1
MAX_TOP = 1_000
BACKENDS = ("local", "ray")
DEFAULT_ANCHORS = ("greedy", "ismcts:time=0.1")

EXPERIMENT_KEYS = (
    "address", "agents", "backend", "deals", "description", "game", "options", "out", "players", "seed",
    "variant", "variants", "workers", *RULE_KEYS,
)  # fmt: skip
LEADERBOARD_KEYS = (
    "address", "agents", "anchors", "backend", "board", "clock", "deals", "description", "out", "references",
    "pack", "search", "seatings", "seed", "top", "workers", *RULE_KEYS,
)  # fmt: skip
BOARD_KEYS = ("agents", "deals", "game", "options", "players", "references", "variant")


@dataclass(frozen=True)
class ExperimentFile:
    """An experiment file, checked, its defaults filled in."""

    description: str
    game: str
    #: the variants, one tournament each (``[None]``: the game's only rules, ``zwicken``)
    variants: list[str | None]
    #: players by variant (``str(variant)``; None: the variant's own number)
    players: dict[str, int | None]
    options: dict[str, Any]
    agents: list[str]
    deals: int
    seed: int
    out: str
    #: worker processes (None: the command's default)
    workers: int | None
    backend: str
    address: str | None
    #: the outside agents' rules the file gives (``Tournament`` keywords)
    rules: dict[str, Any]


@dataclass(frozen=True)
class BoardEntry:
    """One ``[[board]]`` of a leaderboard file: a game and the agents only it adds."""

    game: str
    variant: str | None
    players: int | None
    options: dict[str, Any]
    agents: list[str]
    references: list[str]
    #: this board's deals per pair (the file's unless the board gives its own)
    deals: int


@dataclass(frozen=True)
class LeaderboardFile:
    """A leaderboard file, checked, its defaults filled in."""

    description: str
    agents: list[str]
    anchors: list[str]
    references: list[str]
    deals: int
    seatings: str
    clock: str
    pack: bool
    top: int
    #: the floor of the ladder's room (None: the last anchor)
    search: str | None
    seed: int
    out: str
    #: worker processes (None: the command's default)
    workers: int | None
    backend: str
    address: str | None
    boards: list[BoardEntry]
    rules: dict[str, Any]


def _known_keys(data: Mapping[str, Any], keys: Iterable[str], where: str) -> None:
    """A ``ValueError`` naming the first key of ``data`` that is not one of ``keys``."""
    keys = tuple(keys)
    for key in data:
        if key not in keys:
            raise ValueError(f"{where}: unknown key {key!r}; valid keys: {', '.join(keys)}")


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ValueError(f"{where} must be a list of strings")
    return [x.strip() for x in value]


def _where_to_run(data: Mapping[str, Any], name: str) -> tuple[int | None, str, str | None, dict[str, Any]]:
    """The keys both files share: ``workers``, ``backend``, ``address`` and the agents' rules."""
    whole_number(data.get("workers", 1), f"{name}: workers", 1, MAX_WORKERS)
    if data.get("backend", "local") not in BACKENDS:
        raise ValueError(f"{name}: backend must be local or ray, not {data['backend']!r}")
    rules = checked_rules({k: data[k] for k in RULE_KEYS if k in data}, name)
    return data.get("workers"), str(data.get("backend", "local")), data.get("address"), rules


def _is_whole(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def parse_experiment(data: dict[str, Any], name: str) -> ExperimentFile:
    """Check an experiment's keys and types; fill in the defaults (``name``: the file's stem)."""
    _known_keys(dict.fromkeys(sorted(data)), EXPERIMENT_KEYS, name)
    for key in ("agents", "deals"):
        if key not in data:
            raise ValueError(f"{name}: the key {key!r} is required")
    agents = data["agents"]
    if not isinstance(agents, list) or not all(isinstance(a, str) for a in agents):
        raise ValueError(f'{name}: agents must be a list of spec strings, e.g. ["ismcts:iters=200", "random"]')
    if "variant" in data and "variants" in data:
        raise ValueError(f"{name}: give variant or variants, not both")
    variants = data.get("variants", [data["variant"]] if "variant" in data else [None])
    if not isinstance(variants, list) or not variants:
        raise ValueError(f"{name}: variants must be a non-empty list of variant names")
    options = data.get("options", {})
    if not isinstance(options, dict):
        raise ValueError(f"{name}: options must be a table of name = value")
    players = data.get("players")
    if isinstance(players, dict):
        extra = sorted(set(players) - {str(v) for v in variants})
        if extra:
            raise ValueError(f"{name}: players names {extra[0]!r}, which is not one of the variants {variants}")
        if not all(_is_whole(x) for x in players.values()):
            raise ValueError(f"{name}: players per variant must be whole numbers")
    elif players is not None and not _is_whole(players):
        raise ValueError(f"{name}: players must be a whole number or a table by variant, not {players!r}")
    for key, low, high in (("deals", 1, MAX_DEALS), ("seed", 0, MAX_SEED)):
        if key in data:
            whole_number(data[key], f"{name}: {key}", low, high)
    workers, backend, address, rules = _where_to_run(data, name)
    return ExperimentFile(
        description=str(data.get("description", "")),
        game=str(data.get("game", "zwicker")),
        variants=variants,
        players=dict(players) if isinstance(players, dict) else {str(v): players for v in variants},
        options=options,
        agents=agents,
        deals=data["deals"],
        seed=data.get("seed", 0),
        out=str(data.get("out", f"results/{name}")),
        workers=workers,
        backend=backend,
        address=address,
        rules=rules,
    )


def _board(b: Any, where: str, deals: int) -> BoardEntry:
    """One ``[[board]]`` table, checked (``deals``: the file's, its default)."""
    if not isinstance(b, dict):
        raise ValueError(f"{where} must be a table")
    _known_keys(b, BOARD_KEYS, where)
    if "game" not in b:
        raise ValueError(f"{where}: game is required")
    return BoardEntry(
        game=str(b["game"]),
        variant=b.get("variant"),
        players=b.get("players"),
        options=dict(b.get("options", {})),
        agents=_strings(b.get("agents", []), f"{where}: agents"),
        references=_strings(b.get("references", []), f"{where}: references"),
        deals=whole_number(b.get("deals", deals), f"{where}: deals", 1, MAX_DEALS),
    )


def parse_leaderboard(data: dict[str, Any], name: str) -> LeaderboardFile:
    """Check a leaderboard file's keys and types; fill in the defaults (``name``: the file's stem)."""
    _known_keys(data, LEADERBOARD_KEYS, name)
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
    parsed = [_board(b, f"{name}: board {k + 1}", deals) for k, b in enumerate(boards)]
    if not isinstance(data.get("pack", False), bool):
        raise ValueError(f"{name}: pack must be true or false, not {data['pack']!r}")
    workers, backend, address, rules = _where_to_run(data, name)
    anchors = _strings(data.get("anchors", list(DEFAULT_ANCHORS)), f"{name}: anchors")
    if not anchors:
        raise ValueError(f"{name}: anchors must name at least one agent (every agent is rated against them)")
    return LeaderboardFile(
        description=str(data.get("description", "")),
        agents=_strings(data["agents"], f"{name}: agents"),
        anchors=anchors,
        references=_strings(data.get("references", []), f"{name}: references"),
        deals=deals,
        seatings=seating,
        clock=clock,
        pack=data.get("pack", False),
        top=top,
        search=str(data["search"]).strip() if "search" in data else None,
        seed=seed,
        out=str(data.get("out", f"results/{name}")),
        workers=workers,
        backend=backend,
        address=address,
        boards=parsed,
        rules=rules,
    )


def check_agent_specs(spec: LeaderboardFile, name: str) -> None:
    """Every agent the file names (agents, anchors, references, boards' own) is a registered agent
    with valid parameters, refused as ``zwick tournament --agents`` refuses it; an agent that does
    not play a board's game is only left out of that board."""
    import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
    from zwick_ai.agents.base import agent_params

    lists = [("agents", spec.agents), ("anchors", spec.anchors), ("references", spec.references)]
    for k, b in enumerate(spec.boards):
        lists += [(f"board {k + 1}: agents", b.agents), (f"board {k + 1}: references", b.references)]
    for where, specs in lists:
        for agent in specs:
            try:
                agent_params(agent)
            except ValueError as error:
                raise ValueError(f"{name}: {where}: {agent!r}: {error}") from None


def load_experiment(path: str | Path) -> ExperimentFile:
    """Read and check an experiment TOML file."""
    p = Path(path)
    return parse_experiment(read_toml(p, "experiment"), p.stem)


def load_leaderboard(path: str | Path) -> LeaderboardFile:
    """Read and check a leaderboard TOML file."""
    p = Path(path)
    return parse_leaderboard(read_toml(p, "leaderboard"), p.stem)
