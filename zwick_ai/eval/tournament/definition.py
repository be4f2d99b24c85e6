"""What a tournament is: its agents, game, deals, seed and seating (:class:`Tournament`), what
must agree for a folder's games to belong to it (:meth:`Tournament.identity`), the seatings of a
pair on a deal and the seeds of each deal and game (the design: :mod:`zwick_ai.eval.tournament`).

>>> seatings(2)
[(0, 1), (1, 0)]
>>> seatings(3)
[(0, 1, 1), (1, 0, 1), (1, 1, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1)]
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

import numpy as np
import pyspiel

import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents.base import GAMES
from zwick_ai.agents.clock import CLOCKS
from zwick_ai.agents.guard import MOVE_TIME_LIMIT, START_TIME_LIMIT
from zwick_ai.eval import agent_failures
from zwick_ai.eval.agent_failures import checked_rules
from zwick_ai.games.game_strings import game_params

#: bump when the meaning of games.jsonl lines or config.json changes
FORMAT = 1


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


#: the identity's record of what each agent resolved to
RESOLVED = "agents_resolved"


@dataclass
class Tournament:
    """A tournament: ``agents`` (spec strings, at least two, all different) on the game named
    ``game`` (``zwicker``, ``zwikken``, ``zwicken``; :meth:`load` gives the ``pyspiel.Game``) with
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


def load(game_name: str, params: dict[str, Any]) -> pyspiel.Game:
    """``pyspiel.load_game(game_name, params)``, cached per process (workers reuse their game)."""
    key = json.dumps([game_name, params], sort_keys=True)
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game(game_name, dict(params))
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


def identity_difference(key: str, there: Any, now: Any) -> str:
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
