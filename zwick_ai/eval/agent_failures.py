"""What a tournament does when an agent from outside the package fails: name it, keep its
traceback out of the terminal, and never let it cost the other agents' results.

A game with an outside agent is played in a worker process (even with one worker), its agents
under guard (:mod:`zwick_ai.agents.guard`: an exception, ``SystemExit``, an illegal decision, a
call over its time limit); a worker that dies under it (``os._exit``, a segfault, ``kill -9``, a
worker ended for overrunning) is named from the worker's note of what it was doing. Either way
the game's result is a failure (:data:`FAILURE`), not a record: nothing of it reaches
``games.jsonl``. The run then

* ``stop`` (default, ``--on-agent-error stop``): ends with one line naming the agent, its seat, the
  game, deal and seating and the exception's last line (:class:`AgentFailed`, exit code
  :data:`EXIT_AGENT_FAILED` of ``zwick``), the full traceback in ``agent-errors.log`` of the
  results folder;
* ``forfeit``: writes the failure to ``forfeits.jsonl`` and goes on; the agent forfeits the game:
  the deal counts as lost by it (:func:`zwick_ai.eval.tournament.summary.summarize`). The same command
  later plays forfeited games again (a fixed agent is another tournament: its source changed).

A game whose worker died without an outside agent in a call (a worker killed from outside, out of
memory) runs once more; a second death fails it like an agent's.

When the game ends, whatever processes its outside agents started are ended
(:func:`zwick_ai.processes.end_descendants`).
"""

from __future__ import annotations

import contextlib
import functools
import json
import multiprocessing
import os
import signal
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pyspiel

from zwick_ai.agents.base import Agent, make_agent, parse_spec, registered
from zwick_ai.agents.guard import (
    EXIT_OVERRAN,
    GRACE,
    START_TIME_LIMIT,
    AgentFault,
    Guarded,
    failure_line,
    phase,
    printable,
)
from zwick_ai.backends import Deaths, exit_status
from zwick_ai.processes import STOP_SIGNALS, descendants, die_with_parent, end_descendants, stop_signals_deferred

__all__ = [
    "EXIT_AGENT_FAILED",
    "FAILURE",
    "FORFEITS",
    "LOG",
    "MAX_TIME_LIMIT",
    "ON_AGENT_ERROR",
    "RULE_KEYS",
    "AgentDeaths",
    "AgentFailed",
    "GameDeaths",
    "checked_rules",
    "built",
    "contained",
    "guarded_agent",
    "guarded_call",
    "guarded_map",
    "log_failure",
    "outside_specs",
    "start_agents",
    "started",
]

#: what a run does at an agent's failure: end (named), or forfeit the game and go on
ON_AGENT_ERROR = ("stop", "forfeit")
#: the key of a task's result that is a failure, not a game record
FAILURE = "agent_failure"
#: where the results folder keeps the full tracebacks of failed agents
LOG = "agent-errors.log"
#: where a ``forfeit`` run lists the games it forfeited
FORFEITS = "forfeits.jsonl"
#: ``zwick``'s exit status when a run ended because an agent failed
EXIT_AGENT_FAILED = 3
#: the longest time limit (seconds) of an outside agent's decision or start: one day
MAX_TIME_LIMIT = 86_400
#: the rules of outside agents a run takes (``--move-time-limit`` ... and the same keys in TOML files)
RULE_KEYS = ("move_time_limit", "start_time_limit", "on_agent_error")


def checked_rules(rules: dict[str, Any], where: str = "") -> dict[str, Any]:
    """``rules`` (any of :data:`RULE_KEYS`) if every value is valid, else a one-line ``ValueError``
    (``where``: what to name first, e.g. a TOML file). A limit is a number of seconds above 0 and
    at most :data:`MAX_TIME_LIMIT` (not ``true``); ``on_agent_error`` one of :data:`ON_AGENT_ERROR`.

    >>> checked_rules({"move_time_limit": 5, "on_agent_error": "forfeit"})
    {'move_time_limit': 5, 'on_agent_error': 'forfeit'}
    >>> checked_rules({"start_time_limit": True}, "x.toml")
    Traceback (most recent call last):
    ...
    ValueError: x.toml: start_time_limit must be a number of seconds above 0 and at most 86400, not True
    """
    head = f"{where}: " if where else ""
    for name, value in rules.items():
        if name not in RULE_KEYS:
            raise ValueError(f"{head}unknown agent rule {name!r}; valid: {', '.join(RULE_KEYS)}")
        if name == "on_agent_error":
            if value not in ON_AGENT_ERROR:
                raise ValueError(f"{head}on_agent_error must be one of {', '.join(ON_AGENT_ERROR)}, not {value!r}")
        elif isinstance(value, bool) or not isinstance(value, int | float) or not 0 < value <= MAX_TIME_LIMIT:
            raise ValueError(
                f"{head}{name} must be a number of seconds above 0 and at most {MAX_TIME_LIMIT}, not {value!r}"
            )
    return dict(rules)


class AgentFailed(Exception):
    """The run ended because an agent failed (``info``: :class:`zwick_ai.agents.guard.AgentFault`'s)."""

    def __init__(self, info: dict[str, Any]):
        log = f"; traceback in {info['log']}" if info.get("log") else ""
        super().__init__(failure_line(info) + log)
        self.info = info


def game_label(game: pyspiel.Game) -> str:
    """A game in a few words for the one line: its name, variant and players (``zwikken parlett 3p``)."""
    variant = game.get_parameters().get("variant")
    return " ".join(str(x) for x in (game.get_type().short_name, variant, f"{game.num_players()}p") if x)


def outside_specs(specs: Sequence[str]) -> set[str]:
    """The specs among ``specs`` whose agents come from outside the package (known without
    importing anything: every agent of the package is registered when it is imported)."""
    mine = {info.name for info in registered()}
    return {s for s in specs if parse_spec(s)[0] not in mine}


#: seconds a process of its own gets to start Python and import the package before an agent's start clock
PROBE_STARTUP = 120.0


def started(spec: str, game: pyspiel.Game, limit: float | None) -> Agent:
    """Agent ``spec`` built in this (the main) process to check it. One from outside the package
    is first imported, built and asked for its identity in a process of its own
    (:func:`probe`: a crash there cannot end this one), then here on the start clock; any failure
    is a one-line ``ValueError`` naming it (the usual bad-spec messages as they are)."""
    if spec not in outside_specs([spec]):
        return make_agent(spec, game)
    probe(spec, str(game), limit)
    return built(spec, game, limit)


def built(spec: str, game: pyspiel.Game, limit: float | None) -> Agent:
    """Agent ``spec`` built here on the start clock and asked for its identity (after
    :func:`probe`); any failure is a one-line ``ValueError`` naming it; what it started is ended."""
    before = descendants()
    try:
        with phase(spec, None, "start", limit, passes=(ValueError,)):
            agent = make_agent(spec, game)
        with phase(spec, None, "identity", limit):
            agent.identity()
    except AgentFault as fault:
        raise ValueError(str(fault)) from None
    finally:
        end_descendants(before)  # what it started here (its games run elsewhere)
    return agent


def _probe_here(spec: str, game_string: str, limit: float | None, answer: Any, parent: int) -> None:
    """In the probe's process: lead a group of its own, build the agent on the clock, send back
    None or what failed, then end whatever the agent started."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    die_with_parent(parent)
    os.setsid()
    signal.pthread_sigmask(signal.SIG_UNBLOCK, STOP_SIGNALS)
    try:
        game = pyspiel.load_game(game_string)
        with phase(spec, None, "start", limit, passes=(ValueError,)):
            agent = make_agent(spec, game)
        with phase(spec, None, "identity", limit):
            agent.identity()
        answer.send(None)
    except ValueError as error:  # a bad spec: this process says it as the main one would
        answer.send({"error": str(error)})
    except AgentFault as fault:
        answer.send(fault.info)
    finally:
        end_descendants()


def probe(spec: str, game_string: str, limit: float | None) -> None:
    """Build agent ``spec`` of ``game_string`` in a process of its own first: ``ValueError``
    naming it when it fails, dies (``os._exit``, a segfault, ``kill -9``) or does not start
    within ``limit`` seconds (plus :data:`PROBE_STARTUP` for Python itself)."""
    context = multiprocessing.get_context("spawn")
    here, there = context.Pipe(duplex=False)
    with stop_signals_deferred():
        process = context.Process(target=_probe_here, args=(spec, game_string, limit, there, os.getpid()), daemon=True)
        process.start()
    there.close()
    answer: Any = "silent"
    try:
        if here.poll((limit or START_TIME_LIMIT) + GRACE + PROBE_STARTUP):
            with contextlib.suppress(EOFError, OSError):
                answer = here.recv()
        process.join(timeout=GRACE)
    finally:
        process.kill()
        if process.pid:  # what the agent started in the probe's group
            with contextlib.suppress(OSError):
                os.killpg(process.pid, signal.SIGKILL)
        process.join(timeout=GRACE)
        here.close()
    if answer is None:
        return
    if isinstance(answer, dict) and set(answer) == {"error"}:
        raise ValueError(answer["error"])
    if isinstance(answer, dict):
        raise ValueError(failure_line(answer))
    how = exit_status(process.exitcode) if process.exitcode is not None else "no answer"
    raise ValueError(f"agent {spec!r} failed in its start: its process died ({how}) before it was built")


def start_agents(task: dict[str, Any], game: pyspiel.Game) -> list[Any]:
    """The agents of a task's seats; the outside ones built on the start clock and guarded
    (:class:`zwick_ai.agents.guard.Guarded`) with the move clock."""
    outside = set(task.get("outside") or ())
    limits = task.get("limits") or {}
    where = {"game": game_label(game), "deal": task["deal"], "seating": task["seating"]}
    agents: list[Any] = []
    for seat, (spec, seed) in enumerate(zip(task["seats"], task["agent_seeds"], strict=True)):
        if spec not in outside:
            agents.append(make_agent(spec, game, seed=seed))
            continue
        with phase(spec, seat, "start", limits.get("start"), **where):
            agent = make_agent(spec, game, seed=seed)
        agents.append(Guarded(agent, seat, limits.get("move"), **where))
    return agents


def guarded_agent(
    spec: str, game: pyspiel.Game, seat: int | None, limits: dict[str, Any] | None, /, seed: int = 0, **where: Any
) -> Any:
    """``make_agent(spec, game, seed)`` for an agent of the package; one from outside it built on
    the start clock and :class:`~zwick_ai.agents.guard.Guarded` with the move clock (``limits``:
    ``{"move": s, "start": s}``; ``where``: the game, deal ... its failure line names)."""
    if spec not in outside_specs([spec]):
        return make_agent(spec, game, seed=seed)
    limits = limits or {}
    with phase(spec, seat, "start", limits.get("start"), **where):
        agent = make_agent(spec, game, seed=seed)
    return Guarded(agent, seat, limits.get("move"), **where)


def guarded_call(fn: Callable[[Any], Any], task: Any) -> Any:
    """``fn(task)`` in a worker, or ``{FAILURE: info}`` when an outside agent in it failed
    (:class:`~zwick_ai.agents.guard.AgentFault`); then the processes it started are ended."""
    before = descendants()
    try:
        return fn(task)
    except AgentFault as fault:
        return {FAILURE: fault.info}
    finally:
        end_descendants(before)


def _death_error(how: str, note: dict[str, Any]) -> str:
    """What a worker's death under an outside agent's call says (its note: overran, or died how)."""
    if note.get("overran") or how == f"exit code {EXIT_OVERRAN}":
        return f"no answer within the time limit of {note.get('limit'):g} s; its worker process was ended"
    return f"its worker process died ({how})"


class AgentDeaths(Deaths):
    """The answer to a worker that died under a task of outside agent ``spec`` outside a
    tournament (an analysis, a study): every task runs alone and is never run again; the agent
    is named with ``where`` (and the seat and call of the worker's note)."""

    def __init__(self, spec: str, **where: Any):
        self.spec, self.where = spec, where

    def alone(self, task: Any) -> bool:
        return True

    def died(self, task: Any, how: str, note: dict[str, Any] | None, deaths: int) -> Any | None:
        note = note or {}
        info = {"agent": self.spec, "seat": note.get("seat"), "doing": note.get("doing") or "play"}
        error = _death_error(how, note) if note.get("doing") else f"its worker process died ({how})"
        return {FAILURE: info | {"error": error, "traceback": ""} | self.where}


def guarded_map(
    fn: Callable[[Any], Any], tasks: Iterable[Any], spec: str, out: Path, backend: Any, **where: Any
) -> Iterator[tuple[Any, Any]]:
    """``(task, fn(task))`` of every task, played on ``backend`` (a local one in a process of its
    own, even with one worker) with outside agent ``spec`` in them: a failure of the agent (its
    exception, a worker that died, a time limit: ``fn`` builds it with :func:`guarded_agent`)
    ends the map with :class:`AgentFailed`, the traceback in ``out/agent-errors.log``."""
    if getattr(backend, "isolate", None) is False:
        backend.isolate = True  # code of someone else's runs in a worker process, never in this one
    results = backend.map_unordered(functools.partial(guarded_call, fn), tasks, deaths=AgentDeaths(spec, **where))
    try:
        for task, result in results:
            if isinstance(result, dict) and FAILURE in result:
                out.mkdir(parents=True, exist_ok=True)
                raise AgentFailed(log_failure(out, result[FAILURE], {"agents": [spec], "seats": "every seat"}))
            yield task, result
    finally:
        results.close()


def _blamed(error: ValueError, task: dict[str, Any], outside: set[str]) -> dict[str, Any] | None:
    """The failure of an outside agent whose decision was illegal (the game loop's error names
    ``agent 'spec' at seat N``, :func:`zwick_ai.eval.match.play_game`), else None."""
    text = str(error)
    for seat, spec in enumerate(task["seats"]):
        head = f"agent {spec!r} at seat {seat}"
        if spec in outside and text.startswith(head):
            return {"agent": spec, "seat": seat, "doing": "move", "error": printable(text[len(head) :].lstrip(": "))}
    return None


def contained(task: dict[str, Any], play: Callable[[dict[str, Any]], dict[str, Any]]) -> dict[str, Any]:
    """``play(task)``, or ``{FAILURE: info}`` when an outside agent of the task failed; afterwards
    the processes the task's outside agents started are ended."""
    outside = set(task.get("outside") or ())
    before = descendants() if outside else set()
    try:
        return play(task)
    except AgentFault as fault:
        return {FAILURE: fault.info}
    except ValueError as error:
        info = _blamed(error, task, outside)
        if info is None:
            raise
        where = {"game": game_label(pyspiel.load_game(task["game"], dict(task["params"]))), "deal": task["deal"]}
        return {FAILURE: info | where | {"seating": task["seating"], "traceback": ""}}
    finally:
        if outside:  # what the agents started (those that were there before the game are not theirs)
            end_descendants(before)


class GameDeaths(Deaths):
    """A tournament's answer to a worker that died under a game (:class:`zwick_ai.backends.Deaths`):
    a game with an outside agent runs in a batch of its own; when the worker's note says an
    outside agent was in a call, that agent failed; otherwise the game runs once more, then fails
    naming the pair's outside agents (or the pair)."""

    def __init__(self, outside: set[str], game_string: str):
        self.outside = outside
        self.game_string = game_string

    def alone(self, task: Any) -> bool:
        return any(spec in self.outside for spec in task["agents"])

    def died(self, task: Any, how: str, note: dict[str, Any] | None, deaths: int) -> Any | None:
        where = {"game": self.game_string, "deal": task["deal"], "seating": task["seating"], "traceback": ""}
        agent = (note or {}).get("agent")
        if note is not None and note.get("doing") and agent in self.outside:
            error = _death_error(how, note)
            return {FAILURE: {"agent": agent, "seat": note.get("seat"), "doing": note["doing"], "error": error} | where}
        mine = [spec for spec in task["agents"] if spec in self.outside]
        if deaths < 2 and note is not None:  # run it again once: a worker killed from outside, out of memory
            return None
        who = " or ".join(mine) if mine else " vs ".join(task["agents"])
        times = "twice " if deaths > 1 else ""
        return {
            FAILURE: {"agent": who, "seat": None, "doing": "game", "error": f"its worker died {times}({how})"} | where
        }


def log_failure(out: Path, info: dict[str, Any], task: dict[str, Any]) -> dict[str, Any]:
    """Append the failure and its traceback to ``out/agent-errors.log``; returns ``info`` with
    ``log`` (the file) and the task's pair, without the traceback."""
    path = out / LOG
    with open(path, "a", encoding="utf-8") as f:
        when = time.strftime("%Y-%m-%d %H:%M:%S")
        f.write(f"{when} {failure_line(info)}\n  pair: {' vs '.join(task['agents'])}, seats: {task['seats']}\n")
        f.write("".join(f"  {line}\n" for line in (info.get("traceback") or "(no traceback)").splitlines()) + "\n")
    keep = {k: v for k, v in info.items() if k != "traceback"}
    return keep | {"log": str(path), "agents": task["agents"]}


def forfeit(out: Path, info: dict[str, Any]) -> None:
    """Add a forfeited game to ``out/forfeits.jsonl``."""
    with open(out / FORFEITS, "a", encoding="utf-8") as f:
        f.write(json.dumps(info) + "\n")
