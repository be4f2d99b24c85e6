"""A tournament's games: each one a self-contained, picklable task (made one at a time, so a
million deals hold none up front), played in any process into a ``games.jsonl`` line, and checked
when read back (:func:`check_record`); :func:`compact` keeps what the summary needs of a line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, NamedTuple

from zwick_ai.agents import clock
from zwick_ai.eval import agent_failures
from zwick_ai.eval.match import play_game
from zwick_ai.eval.records import record_from_dict
from zwick_ai.eval.tournament.definition import (
    RESOLVED,
    Tournament,
    agent_seeds,
    deal_seed,
    identity_difference,
    load,
    side_seats,
)


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


class TaskKey(NamedTuple):
    """Which game of a tournament a task or a ``games.jsonl`` line is (:func:`task_key`)."""

    a: str  # the pair's first agent
    b: str  # its second
    deal: int  # the deal id
    seating: int  # the seating of the pair on that deal


class ExpectedTasks(Mapping[tuple, dict[str, Any]]):
    """The tasks of ``t`` by :func:`task_key`, for deals below ``t.deals`` and those of ``extra``,
    made when looked up (what :func:`~zwick_ai.eval.tournament.folder.read_games` checks a line
    against, without a list of them all)."""

    def __init__(self, t: Tournament, extra: Iterable[int] = ()):
        self.t = t
        self.extra = set(extra)
        self.index = {(t.agents[i], t.agents[j]): (i, j) for i, j in t.pairs}

    def __getitem__(self, key: tuple) -> dict[str, Any]:
        named = TaskKey(*key)
        d = named.deal
        pair = self.index.get((named.a, named.b))
        if pair is None or not isinstance(d, int) or not (0 <= d < self.t.deals or d in self.extra):
            raise KeyError(key)
        if named.seating not in self.t.deal_seatings(d):
            raise KeyError(key)
        return make_task(self.t, *pair, d, named.seating)

    def __iter__(self) -> Iterator[TaskKey]:
        for d in [*range(self.t.deals), *sorted(x for x in self.extra if x >= self.t.deals)]:
            for i, j in self.t.pairs:
                for k in self.t.deal_seatings(d):
                    yield TaskKey(self.t.agents[i], self.t.agents[j], d, k)

    def __len__(self) -> int:
        return sum(1 for _ in self)


#: the keys a tournament adds to a game record line (:mod:`zwick_ai.eval.records`)
TOURNAMENT_KEYS = ("agents", "deal", "seating", "agent_seeds")


def task_key(task: dict[str, Any]) -> TaskKey:
    """The key of a task or of a ``games.jsonl`` line."""
    return TaskKey(task["agents"][0], task["agents"][1], int(task["deal"]), int(task["seating"]))


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
                f"agent {spec!r} changed while the tournament ran ({identity_difference(RESOLVED, [want], [agent.identity()])}); "
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
