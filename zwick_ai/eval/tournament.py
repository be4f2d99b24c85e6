"""Tournaments of agent specs on one game: duplicate deals, seat rotation, paired statistics,
Bradley–Terry ratings, resumable plain-file output.

**Design.** One seeded set of deals is shared by every pairing. For every pair of agents
``(a, b)`` and every deal, the deal is replayed with every *seating* of the pair, so luck of the
cards and of the seat cancels:

* Sides are the scoring units: Zwicker's sides (partners share one; a team game has two), every
  seat in the trick games. An agent plays every seat of the sides given to it.
* Two sides (2-player games, team games): ``a`` against ``b``, then sides swapped: 2 games.
* ``S >= 3`` sides: ``a`` alone at each side against ``b`` everywhere else, and the same with the
  roles swapped: ``2 S`` games; each agent sits at every seat equally often. With 3 sides these are
  all six assignments of the two agents in which both play.
* ``seating="rotate"`` (cheaper with ``S >= 3`` sides): deal ``i`` is played only with the lone
  agent at side ``i mod S``, ``a`` then ``b``: 2 games a deal, still duplicate (both agents meet the
  same cards in the same role), each side taken alone equally often over every ``S`` deals. Its
  games are games of the full design (same seating numbers, same seeds), so a ``rotate`` run's
  deals stay comparable with a full run's.

A seat's **score** is its side's card points in Zwicker (``GameRecord.points``) and its chip
result in the trick games (``returns``). A seating's difference is the mean score of ``a``'s seats
minus that of ``b``'s; a deal's difference is the mean over its seatings. Per pair the summary
gives the mean per-deal difference with a 95 % t-interval paired over deals, and ``win_rate_a``:
the share of deals with a positive difference, draws counted half. Ratings: Bradley–Terry on
those per-deal wins, draws and losses (:mod:`zwick_ai.eval.ratings`), Elo scale, with 95 %
bootstrap intervals over deals.

**Clock.** ``clock="cpu"`` makes the searches' time budgets (``time=`` in a spec) count the CPU
time of the searching thread instead of wall time (:mod:`zwick_ai.agents.clock`), so agents at
equal time can be compared on a loaded machine.

**Seeds.** Deal ``i`` of tournament seed ``s`` has the seed ``SeedSequence([s, i])`` (the same in
every run, whatever the number of deals), and the agents at seating ``k`` of deal ``i`` are reset
with seeds from ``SeedSequence([s, i, k, 1])``; fresh agents are built for every game, so a game's
result does not depend on which worker plays it, or after what.

**Output** (``DIR``): ``config.json`` (what defines the tournament), ``games.jsonl`` (one line per
finished game, flushed at once), and when every game is done ``summary.json``, ``summary.csv``
(pairs), ``ratings.csv``, ``ratings.png``, ``pairs.png`` and ``report.md``. Running the same
tournament again skips finished games; a damaged line is reported and its game replayed; a
different tournament in the same folder is refused. Only the number of deals may change (deal ``i``
is the same in every run), so a finished tournament can be extended; a run with fewer deals
summarises its deals and keeps the games of the others in ``games.jsonl``. Lines that are not
finished games of the tournament are moved to ``games.rejected.jsonl``, never deleted. A folder
whose games are stored compressed (``games.jsonl.gz`` only) resumes too: its games are first
copied to ``games.jsonl`` (the ``.gz`` stays; ``gzip -f games.jsonl`` stores the longer file
compressed again).

>>> seatings(2)
[(0, 1), (1, 0)]
>>> seatings(3)
[(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import _jit_cache
from zwick_ai.agents import clock, zwicker_precompile
from zwick_ai.agents.base import GAMES, agent_params, registered
from zwick_ai.agents.clock import CLOCKS
from zwick_ai.agents.guard import MOVE_TIME_LIMIT, START_TIME_LIMIT
from zwick_ai.backends import Backend, LocalBackend, batch_size
from zwick_ai.eval import agent_failures
from zwick_ai.eval.agent_failures import FAILURE, AgentFailed, checked_rules
from zwick_ai.eval.folder_lock import hold_results_folder, older_version
from zwick_ai.eval.match import play_game
from zwick_ai.eval.ratings import SCALE, points_ratings_with_ci, ratings_with_ci
from zwick_ai.eval.records import compressed, record_from_dict, unpack
from zwick_ai.eval.tournament_report import REWRITTEN, write_outputs
from zwick_ai.eval.verdict import deals_to_resolve, pair_verdict
from zwick_ai.files import JsonlAppender, replacing, set_aside
from zwick_ai.games.game_strings import game_params
from zwick_ai.stats import mean_ci

#: bump when the meaning of games.jsonl lines or config.json changes
FORMAT = 1
#: virtual drawn deals per pair in the rating fit (keeps perfect records finite)
RATING_PRIOR = 1.0
#: bootstrap resamples of the rating intervals
RATING_RESAMPLES = 1000
#: the most deals a tournament takes (its games are generated lazily, and a summary keeps a few
#: numbers per game in memory: a million deals of three agents is about 2 GB)
MAX_DEALS = 1_000_000
#: what a game costs in memory before and after it is played (its task, measured at about 1.2 kB,
#: and its summary numbers), for the check of a tournament's size against the machine's memory
BYTES_PER_GAME = 2_500


def available_memory() -> int | None:
    """Bytes of memory this machine has available (Linux ``MemAvailable``; None elsewhere)."""
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


#: where lines of games.jsonl that are not finished games of the tournament go (never deleted)
REJECTED = "games.rejected.jsonl"
#: the identity's record of what each agent resolved to
RESOLVED = "agents_resolved"


# ------------------------------------------------------------------------------------------------
# What a tournament is
# ------------------------------------------------------------------------------------------------
@dataclass
class Tournament:
    """A tournament: ``agents`` (spec strings, at least two, all different) on ``game`` with
    OpenSpiel ``params`` over ``deals`` seeded deals. ``command`` is only reported. Agents from
    outside the package play on a clock (``move_time_limit`` seconds a decision,
    ``start_time_limit`` to be imported and built) and a failure of theirs ends the run or, with
    ``on_agent_error="forfeit"``, forfeits the game (:mod:`zwick_ai.eval.agent_failures`)."""

    agents: list[str]
    game: str = "zwicker"
    params: dict[str, Any] = field(default_factory=dict)
    deals: int = 20
    seed: int = 0
    command: str = ""
    seating: str = "all"
    clock: str = "wall"
    move_time_limit: float = MOVE_TIME_LIMIT
    start_time_limit: float = START_TIME_LIMIT
    on_agent_error: str = "stop"

    def __post_init__(self) -> None:
        self.agents = [a.strip() for a in self.agents]
        if self.game not in GAMES:
            raise ValueError(f"unknown game {self.game!r}; valid: {', '.join(GAMES)}")
        if len(self.agents) < 2:
            raise ValueError(f"a tournament needs at least two agents, got {self.agents}")
        if isinstance(self.deals, bool) or not isinstance(self.deals, int) or not 1 <= self.deals <= MAX_DEALS:
            raise ValueError(f"deals must be a whole number from 1 to {MAX_DEALS}, not {self.deals!r}")
        checked_rules(
            {"move_time_limit": self.move_time_limit, "start_time_limit": self.start_time_limit}
            | {"on_agent_error": self.on_agent_error}
        )
        if self.seed < 0:
            raise ValueError(f"seed must be >= 0, got {self.seed}")
        if self.clock not in CLOCKS:
            raise ValueError(f"clock must be one of {', '.join(CLOCKS)}, got {self.clock!r}")
        if self.seating not in SEATING_MODES:
            raise ValueError(f"seating must be one of {', '.join(SEATING_MODES)}, got {self.seating!r}")
        self.params = game_params(self.game, self.params)
        game = self.load()
        self.check_memory()
        # checks names, values, game; an outside agent's failure here is one line naming it
        built = [agent_failures.started(spec, game, self.start_time_limit) for spec in self.agents]
        self.outside = sorted(agent_failures.outside_specs(self.agents))
        canonical = [a.spec for a in built]
        self.resolved: list[dict[str, Any]] = [a.identity() for a in built]
        same = [a for x, a in enumerate(self.agents) if canonical.index(canonical[x]) != x]
        if same:
            raise ValueError(f"{', '.join(same)}: the same agent as an earlier spec (canonical specs: {canonical})")

    def check_memory(self) -> None:
        """Refuse, before any work, a tournament whose bookkeeping (:data:`BYTES_PER_GAME` a game:
        its task while it waits, the few numbers the summary keeps once played) would not fit in
        the memory this machine has free."""
        games = len(self.pairs) * self.deals * len(self.deal_seatings(0))  # the same seatings every deal
        free = available_memory()
        if free is not None and games * BYTES_PER_GAME > free // 2:  # the games' own work needs memory too
            most = max(1, free // 2 // (BYTES_PER_GAME * len(self.pairs) * len(self.deal_seatings(0))))
            raise ValueError(
                f"{self.deals} deals are {games} games, about {games * BYTES_PER_GAME / 1e9:.1f} GB of bookkeeping; "
                f"this machine has {free / 1e9:.1f} GB free: give at most {most} deals"
            )

    def load(self) -> pyspiel.Game:
        """The OpenSpiel game (cached per process)."""
        return load(self.game, self.params)

    def identity(self) -> dict[str, Any]:
        """What must agree for a folder's games to belong to this tournament: the format, the game
        (its full OpenSpiel string, however the parameters were given), the seed, the agents' specs
        and what each resolves to (every parameter with its default, the models it reads:
        :meth:`Agent.identity`), so a changed default or retrained weights are a different
        tournament; not ``deals``."""
        out = {
            "format": FORMAT,
            "game_string": str(self.load()),
            "seed": self.seed,
            "agents": self.agents,
            RESOLVED: self.resolved,
        }
        if self.seating != "all":  # a full tournament's folder keeps its identity
            out["seating"] = self.seating
        if self.clock != "wall":  # the searches' time budgets count CPU time
            out["clock"] = self.clock
        return out

    @property
    def pairs(self) -> list[tuple[int, int]]:
        return list(combinations(range(len(self.agents)), 2))

    @property
    def seatings(self) -> list[tuple[int, ...]]:
        """The seatings of each pair on each deal (roles per side, :func:`seatings`)."""
        return seatings(len(side_seats(self.load())))

    def deal_seatings(self, deal: int) -> list[int]:
        """The numbers (indices into :attr:`seatings`) of the seatings deal ``deal`` is played
        with: every one, or with ``seating="rotate"`` the lone ``a`` and the lone ``b`` at side
        ``deal mod S``."""
        plans = self.seatings
        if self.seating == "all" or len(plans) == 2:
            return list(range(len(plans)))
        sides = len(plans) // 2
        return [deal % sides, sides + deal % sides]

    @property
    def games_per_pair(self) -> int:
        """How many games each pair plays."""
        return self.deals * len(self.deal_seatings(0))  # every deal has as many seatings

    @property
    def games(self) -> int:
        """How many games the whole tournament plays."""
        return len(self.pairs) * self.games_per_pair

    @property
    def variant(self) -> str:
        """The variant's name (or the game's, for a game without variants)."""
        return str(self.load().get_parameters().get("variant", self.game))


_GAMES: dict[str, pyspiel.Game] = {}


def load(game: str, params: dict[str, Any]) -> pyspiel.Game:
    """``pyspiel.load_game(game, params)``, cached per process (workers reuse their game)."""
    key = json.dumps([game, params], sort_keys=True)
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game(game, dict(params))
    return _GAMES[key]


def side_seats(game: pyspiel.Game) -> list[list[int]]:
    """The seats of each scoring side: Zwicker's sides, or one side per seat (trick games)."""
    rules = getattr(game, "rules", None)
    if game.get_type().short_name == "zwicker":
        return [list(s) for s in rules.sides]  # type: ignore[union-attr]
    return [[p] for p in range(game.num_players())]


#: ``Tournament.seating``: every seating of a pair on every deal, or two a deal (module docstring)
SEATING_MODES = ("all", "rotate")


def seatings(sides: int) -> list[tuple[int, ...]]:
    """The role (0 = ``a``, 1 = ``b``) of each side in every seating of a pair (module docstring)."""
    if sides < 2:
        raise ValueError("a duplicate tournament needs at least two sides")
    out: list[tuple[int, ...]] = []
    for alone in (0, 1):
        for s in range(sides):
            roles = tuple(alone if t == s else 1 - alone for t in range(sides))
            if roles not in out:
                out.append(roles)
    return out


def deal_seed(seed: int, deal: int) -> int:
    """The seed of deal ``deal`` of a tournament with seed ``seed`` (31 bits)."""
    return int(np.random.SeedSequence([seed, deal]).generate_state(1)[0] >> 1)


def agent_seeds(seed: int, deal: int, seating: int, players: int) -> list[int]:
    """The reset seeds of the agents at each seat of seating ``seating`` of deal ``deal``."""
    return [int(x >> 1) for x in np.random.SeedSequence([seed, deal, seating, 1]).generate_state(players)]


# ------------------------------------------------------------------------------------------------
# Games: tasks, records
# ------------------------------------------------------------------------------------------------
def tasks(t: Tournament, deals: Iterable[int] | None = None) -> list[dict[str, Any]]:
    """Every game of the tournament (or of the given deals) as a self-contained, picklable task
    (a list: :func:`iter_tasks` makes them one at a time)."""
    return list(iter_tasks(t, deals))


def iter_tasks(t: Tournament, deals: Iterable[int] | None = None) -> Iterator[dict[str, Any]]:
    """The tasks of :func:`tasks`, made as they are taken (deal by deal, pair by pair, seating by
    seating), so a tournament of a million deals holds none of them before its games run."""
    for d in range(t.deals) if deals is None else deals:
        for i, j in t.pairs:
            for k in t.deal_seatings(d):
                yield make_task(t, i, j, d, k)


def make_task(t: Tournament, i: int, j: int, d: int, k: int) -> dict[str, Any]:
    """The task of agents ``i`` and ``j`` (indices into ``t.agents``) on deal ``d`` in seating ``k``."""
    game = t.load()
    sides = side_seats(game)
    n = game.num_players()
    seats = [""] * n
    for side, role in zip(sides, t.seatings[k], strict=True):
        for p in side:
            seats[p] = t.agents[(i, j)[role]]
    return {
        "game": t.game,
        "params": t.params,
        "agents": [t.agents[i], t.agents[j]],
        "deal": d,
        "seating": k,
        "deal_seed": deal_seed(t.seed, d),
        "agent_seeds": agent_seeds(t.seed, d, k, n),
        "seats": seats,
        "clock": t.clock,
        "identities": [t.resolved[i], t.resolved[j]],
        "outside": [a for a in (t.agents[i], t.agents[j]) if a in t.outside],
        "limits": {"move": t.move_time_limit, "start": t.start_time_limit},
    }


class ExpectedTasks(Mapping[tuple, dict[str, Any]]):
    """The tasks of ``t`` by :func:`task_key`, for deals below ``t.deals`` and those of ``extra``,
    made when looked up (what :func:`read_games` checks a line against, without a list of them all)."""

    def __init__(self, t: Tournament, extra: Iterable[int] = ()):
        self.t = t
        self.extra = set(extra)
        self.index = {(t.agents[i], t.agents[j]): (i, j) for i, j in t.pairs}

    def __getitem__(self, key: tuple) -> dict[str, Any]:
        a, b, d, k = key
        pair = self.index.get((a, b))
        if pair is None or not isinstance(d, int) or not (0 <= d < self.t.deals or d in self.extra):
            raise KeyError(key)
        if k not in self.t.deal_seatings(d):
            raise KeyError(key)
        return make_task(self.t, *pair, d, k)

    def __iter__(self) -> Iterator[tuple]:
        for d in [*range(self.t.deals), *sorted(x for x in self.extra if x >= self.t.deals)]:
            for i, j in self.t.pairs:
                for k in self.t.deal_seatings(d):
                    yield (self.t.agents[i], self.t.agents[j], d, k)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: the keys a tournament adds to a game record line (:mod:`zwick_ai.eval.records`)
TOURNAMENT_KEYS = ("agents", "deal", "seating", "agent_seeds")


def task_key(task: dict[str, Any]) -> tuple[str, str, int, int]:
    """(a, b, deal, seating) of a task or of a ``games.jsonl`` line."""
    return (task["agents"][0], task["agents"][1], int(task["deal"]), int(task["seating"]))


def play_task(task: dict[str, Any]) -> dict[str, Any]:
    """Play one game (in any process): fresh agents, reset with the task's seeds. Returns the
    ``games.jsonl`` line: the game record of :mod:`zwick_ai.eval.records` (game string, deal
    seed, seats, moves, returns, points, thinking seconds, chance actions) with the tournament's
    keys :data:`TOURNAMENT_KEYS`: the pair ``agents`` [a, b], ``deal`` id, ``seating`` and
    ``agent_seeds``. When an agent from outside the package fails, ``{FAILURE: what happened}``
    instead (:func:`zwick_ai.eval.agent_failures.contained`)."""
    return agent_failures.contained(task, _play_task)


def _play_task(task: dict[str, Any]) -> dict[str, Any]:
    game = load(task["game"], task["params"])
    clock.use(task.get("clock", "wall"))
    agents = agent_failures.start_agents(task, game)
    check_identities(task, agents)
    rec = play_game(game, agents, task["deal_seed"], agent_seeds=task["agent_seeds"]).as_dict()
    rec["seconds"] = [round(x, 6) for x in rec["seconds"]]
    rec["cpu_seconds"] = [round(x, 6) for x in rec["cpu_seconds"]]
    rec["seats"] = task["seats"]  # the specs as the tournament was given them (not canonicalised)
    head = {k: rec.pop(k) for k in ("version", "game", "deal_seed")}
    return head | {k: task[k] for k in TOURNAMENT_KEYS} | rec


def check_identities(task: dict[str, Any], agents: Sequence[Any]) -> None:
    """Refuse to play a task whose agents no longer are what the tournament was started with (a
    weights file or an outside agent's source changed while it ran): games of two different
    agents never share a folder under one name."""
    expected = dict(zip(task["agents"], task.get("identities") or [], strict=False))
    for spec, agent in zip(task["seats"], agents, strict=True):
        want = expected.get(spec)
        if want is not None and json.loads(json.dumps(agent.identity())) != json.loads(json.dumps(want)):
            raise ValueError(
                f"agent {spec!r} changed while the tournament ran ({_difference(RESOLVED, [want], [agent.identity()])}); "
                "the games played before the change are kept, and the same command refuses the folder"
            )


def compact(record: dict[str, Any]) -> dict[str, Any]:
    """What the summary needs of a game line (a long tournament keeps only this in memory):
    deal, seats, returns, points, thinking seconds and decisions per seat."""
    decisions = [0] * len(record["seats"])
    for seat, _, _ in record["moves"]:
        decisions[seat] += 1
    keep = ("agents", "deal", "seating", "seats", "returns", "points")
    seconds = record.get("seconds") or [0.0] * len(decisions)
    cpu = record.get("cpu_seconds") or None  # records written before CPU time was measured lack it
    return {k: record.get(k) for k in keep} | {"seconds": seconds, "cpu_seconds": cpu, "decisions": decisions}


def seat_scores(record: dict[str, Any], sides: Sequence[Sequence[int]]) -> list[float]:
    """Each seat's score: its side's points (Zwicker) or its chip result (trick games)."""
    if record.get("points") is not None:
        side_of = {p: s for s, side in enumerate(sides) for p in side}
        return [float(record["points"][side_of[p]]) for p in range(len(side_of))]
    return [float(x) for x in record["returns"]]


def check_record(line: Any, expected: Mapping[tuple, dict[str, Any]], game_string: str) -> str | None:
    """Why a parsed ``games.jsonl`` line is not a finished game of this tournament (None when it
    is): the record must be valid (:func:`zwick_ai.eval.records.record_from_dict`), of this game,
    and carry the seeds and seats this tournament gives its game."""
    if not isinstance(line, dict):
        return "not a JSON object"
    try:
        key = task_key(line)
    except (KeyError, TypeError, ValueError, IndexError):
        return "no agents/deal/seating"
    task = expected.get(key)
    if task is None:
        return f"game {key} is not part of this tournament"
    try:
        rec = record_from_dict({k: v for k, v in line.items() if k not in TOURNAMENT_KEYS})
    except ValueError as error:
        return str(error)
    if rec.game != game_string:
        return f"its game is {rec.game}"
    for name in ("deal_seed", "agent_seeds", "seats"):
        if line.get(name) != task[name]:
            return f"{name} differs from this tournament's"
    if task["game"] == "zwicker" and rec.points is None:
        return "no points"
    return None


# ------------------------------------------------------------------------------------------------
# The output folder
# ------------------------------------------------------------------------------------------------
def default_out(t: Tournament) -> Path:
    """``results/tournament-<variant>-<seed>`` (the game's name for a game without variants)."""
    return Path("results") / f"tournament-{t.variant}-{t.seed}"


#: the command named in the mark of a tournament's folder (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick tournament"


def missing_fields(old: dict[str, Any], mine: dict[str, Any]) -> str | None:
    """What an older folder's identity ``old`` lacks that this version's identity ``mine`` records
    (None when nothing): the agents' resolved identities, or the digests of an agent's files."""
    if RESOLVED not in old:
        return "its config.json does not record what the agents resolve to"
    there = old[RESOLVED] if isinstance(old[RESOLVED], list) else []
    for was, now in zip(there, mine[RESOLVED], strict=False):
        if isinstance(was, dict) and "files" in now and "files" not in was and was.get("name") == now.get("name"):
            return f"its config.json does not record the digests of {now.get('name')}'s files"
    return None


def claim_folder(t: Tournament, out: Path) -> None:
    """Write ``config.json``, or check that the folder holds this same tournament (a folder of an
    earlier version, whose ``config.json`` lacks what this one records, is refused in one line:
    :func:`~zwick_ai.eval.folder_lock.older_version`)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "config.json"
    mine = json.loads(json.dumps(t.identity()))
    if path.exists():
        try:
            theirs = json.loads(path.read_text())
        except json.JSONDecodeError:
            raise ValueError(f"{path} is damaged; use another --out folder or delete it") from None
        old = theirs.get("identity", {}) if isinstance(theirs, dict) else {}
        remake = (theirs.get("command") if isinstance(theirs, dict) else None) or COMMAND
        if isinstance(old, dict) and old and old.get("format") != FORMAT:
            format_text = f"tournament format {old.get('format')}; this one reads {FORMAT}"
            raise older_version(out, format_text, remake, reads=None)
        lacks = missing_fields(old, mine) if isinstance(old, dict) and old else None
        if lacks is not None:
            raise older_version(out, lacks, remake)
        want = dict(mine)
        if isinstance(old, dict):
            want[RESOLVED] = without_new_defaults(old.get(RESOLVED), mine[RESOLVED])
        if old != want:
            diff = [_difference(k, old.get(k), v) for k, v in want.items() if old.get(k) != v] if old else []
            raise ValueError(
                f"{out} holds a different tournament ({'; '.join(diff) or 'unreadable config'}); "
                "use another --out folder, or the same command to resume it"
            )
        return
    for games in (out / "games.jsonl", compressed(out / "games.jsonl")):
        if games.exists():
            raise ValueError(f"{out} has {games.name} but no config.json; use another --out folder")
    path.write_text(json.dumps({"identity": mine, "params": t.params, "command": t.command}, indent=2) + "\n")


def without_new_defaults(there: Any, now: list[Any]) -> list[Any]:
    """``now`` (the agents' resolved identities) without the parameters that an agent gained
    after ``there`` was written and that keep their default: a parameter added with a default
    that plays as before leaves finished games valid. A changed default, or a new parameter set
    to another value, still differs."""
    if not isinstance(there, list) or len(there) != len(now):
        return now
    infos = {info.name: info for info in registered()}
    out = []
    for old, new in zip(there, now, strict=True):
        info = infos.get(str(new.get("name"))) if isinstance(new, dict) else None
        if info is None or not isinstance(old, dict) or not isinstance(old.get("params"), dict):
            out.append(new)
            continue
        defaults = {p.name: p.default for p in info.params}
        params = {
            k: v for k, v in new.get("params", {}).items()
            if k in old["params"] or k not in defaults or v != defaults[k]
        }  # fmt: skip
        out.append({**new, "params": params})
    return out


def _difference(key: str, there: Any, now: Any) -> str:
    """One identity key's difference, readable: for the resolved agents the parameters that differ."""
    if key != RESOLVED or not isinstance(there, list) or len(there) != len(now):
        return f"{key}: {there!r} there, {now!r} now"
    parts = []
    for a, b in zip(there, now, strict=True):
        old, new = _flat(a), _flat(b)
        if old.get("name") != b.get("name"):  # another agent altogether
            parts.append(f"{old.get('name')!r} there, {b.get('name')!r} now")
            continue
        changed = [_changed(k, old.get(k), v) for k, v in new.items() if old.get(k) != v]
        changed += [f"{k}={v!r} there, none now" for k, v in old.items() if k not in new]
        if changed:
            parts.append(f"{b['name']} {', '.join(changed)}")
    return "the agents resolve differently: " + "; ".join(parts)


def _changed(key: str, there: Any, now: Any) -> str:
    """One key of an agent's identity that differs, readable (files and source by their digests)."""
    if key == "files" and isinstance(now, dict):
        was = there if isinstance(there, dict) else {}
        paths = [f for f, digest in now.items() if was.get(f) != digest]
        return ", ".join(f"{f} changed (sha256 {was.get(f)} there, {now[f]} now)" for f in paths)
    if key == "source" and isinstance(now, dict):
        old = there.get("sha256") if isinstance(there, dict) else None
        return f"the source of {now.get('module')} changed (sha256 {old} there, {now.get('sha256')} now)"
    return f"{key}={there!r} there, {now!r} now"


def _flat(agent: Any) -> dict[str, Any]:
    """An agent's identity with its parameters beside its other keys (empty if unreadable)."""
    if not isinstance(agent, dict):
        return {}
    return {**agent.get("params", {}), **{k: v for k, v in agent.items() if k != "params"}}


def stored_deals(path: Path) -> set[int]:
    """The deal indices of the ``games.jsonl`` lines (lines that do not parse are left to
    :func:`read_games`)."""
    deals: set[int] = set()
    if path.exists():
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    deal = json.loads(line).get("deal")
                except (json.JSONDecodeError, AttributeError, RecursionError):
                    continue
                if isinstance(deal, int) and not isinstance(deal, bool) and deal >= 0:
                    deals.add(deal)
    return deals


def read_games(
    path: Path,
    expected: Mapping[tuple, dict[str, Any]],
    game_string: str,
    warn: Callable[[str], None],
    repair: bool = True,
) -> dict[tuple, dict[str, Any]]:
    """The finished games in ``path``; damaged or foreign lines are reported with ``warn`` and,
    with ``repair`` (a run about to resume), moved to ``games.rejected.jsonl`` next to it (so
    their games are played again and nothing is deleted); without it the file is only read."""
    done: dict[tuple, dict[str, Any]] = {}
    if not path.exists():
        return done
    keep: list[str] = []
    rejected: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            why = check_record(record, expected, game_string)
        except json.JSONDecodeError as error:
            why = f"not valid JSON ({error.msg})"
        except RecursionError:
            why = "nested too deeply to be a game"
        if why is None and task_key(record) in done:
            why = "a second copy of a finished game"
        if why is not None:
            rejected.append(line)
            warn(f"{path}: line {number} moved to {REJECTED} ({why}); its game will be played again")
            continue
        done[task_key(record)] = compact(record)
        keep.append(line)
    if not repair:
        return done
    if rejected:
        set_aside(path, rejected)  # games.jsonl -> REJECTED
    if rejected or (lines and lines[-1] != ""):
        with replacing(path) as tmp:
            tmp.write_text("".join(x + "\n" for x in keep), encoding="utf-8")
    return done


# ------------------------------------------------------------------------------------------------
# Running
# ------------------------------------------------------------------------------------------------
def run_tournament(
    t: Tournament,
    out: str | Path | None = None,
    backend: Backend | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    warn: Callable[[str], None] | None = None,
    plots: bool = True,
) -> dict[str, Any] | None:
    """Play every unfinished game of ``t`` into ``out`` (default :func:`default_out`) on
    ``backend`` (default: this process), then write the summary files and return the summary.
    One run at a time writes a folder, and only a new, empty or tournament folder
    (:mod:`zwick_ai.eval.folder_lock`).

    ``stop_after`` stops after that many new games (as if interrupted) and returns None; so does a
    run that had not finished. ``progress`` shows a tqdm bar with ETA on stderr."""
    folder = Path(out) if out is not None else default_out(t)
    with hold_results_folder(folder, COMMAND):
        return _run_tournament(t, folder, backend, progress, stop_after, warn, plots)


def _run_tournament(
    t: Tournament,
    out: Path,
    backend: Backend | None,
    progress: bool,
    stop_after: int | None,
    warn: Callable[[str], None] | None,
    plots: bool,
) -> dict[str, Any] | None:
    """:func:`run_tournament` in a folder this run holds."""
    from tqdm import tqdm

    from zwick_ai.machine import describe

    machine = describe()  # the load at the start, before this run's own work
    warn = warn or (lambda text: print(f"warning: {text}", file=sys.stderr))
    claim_folder(t, out)
    path = out / "games.jsonl"
    if unpack(path):
        print(f"{compressed(path)}: its games copied to {path.name}, which this run extends", file=sys.stderr)
    # Games of deals beyond this run's (an earlier run with more --deals) stay in the file,
    # checked like the others, and count again once --deals reaches them.
    expected = ExpectedTasks(t, (d for d in stored_deals(path) if d >= t.deals))
    done = read_games(path, expected, str(t.load()), warn)
    done = {key: record for key, record in done.items() if key[2] < t.deals}
    finished = len(done)
    # the games to play, made one at a time as the workers take them (none is held up front)
    todo: Iterator[dict[str, Any]] = (x for x in iter_tasks(t) if task_key(x) not in done)
    first = next(todo, None)  # None: nothing left to play (the summary is only written again)
    todo = itertools.chain([first] if first is not None else [], todo)
    if stop_after is not None:
        todo = itertools.islice(todo, stop_after)
    own = backend is None
    backend = backend or LocalBackend(1)
    if t.outside and isinstance(backend, LocalBackend):
        backend.isolate = True  # code of someone else's plays in a worker process, never in this one
    forfeits: dict[tuple, dict[str, Any]] = {}
    bar = tqdm(
        total=t.games,
        initial=finished,
        unit="game",
        desc=f"{t.variant} tournament",
        disable=not progress,
        dynamic_ncols=True,
    )
    try:
        if first is not None:
            with JsonlAppender(path, warn=warn) as f:
                deaths = agent_failures.GameDeaths(set(t.outside), agent_failures.game_label(t.load()))
                results = _results(t, todo, t.games - finished, backend, deaths)
                try:
                    for task, record in results:
                        if FAILURE in record:  # nothing of a failed agent's game is recorded
                            failure = agent_failures.log_failure(out, record[FAILURE], task)
                            if t.on_agent_error == "stop":
                                raise AgentFailed(failure)
                            agent_failures.forfeit(out, failure)
                            forfeits[task_key(task)] = failure
                            warn(f"forfeit: {AgentFailed(failure)}")
                        else:
                            f.write(record)
                            done[task_key(task)] = compact(record)
                        bar.update(1)
                finally:
                    close = getattr(results, "close", None)
                    if close is not None:
                        close()
    finally:
        bar.close()
        if own:
            backend.close()
    if len(done) + len(forfeits) < t.games:  # (both hold only games of this run's deals)
        return None
    machine = machine if first is not None else earlier_machine(out, machine)
    summary = summarize(t, done, machine, forfeits)
    write_outputs(summary, out, plots=plots)
    return summary


#: the most games looked at for a first game of each agent to play in this process (:func:`_results`)
FIRST_GAMES_SCAN = 10_000


def _results(
    t: Tournament,
    todo: Iterator[dict[str, Any]],
    count: int,
    backend: Backend,
    deaths: agent_failures.GameDeaths,
) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """``(task, record)`` of every task of ``todo`` (about ``count`` of them, which sizes the
    batches). When the backend's workers are other processes of this machine, the first game of
    each agent is played here first as long as it compiles code: with an empty cache the kernels
    then compile once, here, instead of in every worker at the same time (each game's result is
    the same wherever it is played). Games of agents from outside the package are played by
    workers only. The tasks are taken from ``todo`` only as they are played."""
    held: list[dict[str, Any]] = []  # tasks passed over while looking for first games
    if backend.other_processes_here():
        if t.game == "zwicker":  # an empty cache compiles on two cores at once
            names = {agent_params(spec)[0].name for spec in t.agents if spec not in t.outside}
            zwicker_precompile.compile_in_two_processes(
                search=bool(names & set(zwicker_precompile.SEARCH_AGENTS)),
                expert=bool(names & set(zwicker_precompile.EXPERT_AGENTS)),
            )
        covered: set[str] = set(t.outside)
        for task in todo:
            if set(task["agents"]) <= covered or task["outside"]:
                held.append(task)
                if len(held) >= FIRST_GAMES_SCAN or covered >= set(t.agents):
                    break
                continue
            before = _jit_cache.compile_count()
            yield task, play_task(task)
            count -= 1
            covered |= set(task["agents"])
            if _jit_cache.compile_count() == before or covered >= set(t.agents):
                break  # nothing compiled (the cache is warm) or every agent has played: the workers can start
    workers = getattr(backend, "workers", 1)
    yield from backend.map_unordered(
        play_task, itertools.chain(held, todo), chunksize=batch_size(max(count, 1), workers), deaths=deaths
    )


# ------------------------------------------------------------------------------------------------
# Summary
# ------------------------------------------------------------------------------------------------
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
    :func:`compact` records of every game; ``machine`` (:func:`zwick_ai.machine.describe` at the
    run's start) is reported. ``forfeits`` (games an agent forfeited, by key, :func:`forfeited`):
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


__all__ = [
    "Tournament",
    "agent_seeds",
    "deal_differences",
    "deal_seed",
    "default_out",
    "game_params",
    "play_task",
    "run_tournament",
    "seat_scores",
    "seatings",
    "SEATING_MODES",
    "side_seats",
    "summarize",
    "iter_tasks",
    "tasks",
]
