"""Running a tournament: every unfinished game of the folder played on a backend (the first game
of each agent here while it compiles), each written at once, a forfeit or an agent's failure
handled, then the summary and its files (:func:`run_tournament`)."""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from zwick_ai import _jit_cache
from zwick_ai.agents import zwicker_precompile
from zwick_ai.agents.base import agent_params
from zwick_ai.backends import Backend, LocalBackend, batch_size
from zwick_ai.eval import agent_failures
from zwick_ai.eval.agent_failures import FAILURE, AgentFailed
from zwick_ai.eval.folder_lock import hold_results_folder
from zwick_ai.eval.records import compressed, unpack
from zwick_ai.eval.tournament.definition import Tournament
from zwick_ai.eval.tournament.folder import COMMAND, claim_folder, default_out, read_games, stored_deals
from zwick_ai.eval.tournament.games import ExpectedTasks, compact, iter_tasks, play_task, task_key
from zwick_ai.eval.tournament.report import write_outputs
from zwick_ai.eval.tournament.summary import earlier_machine, summarize
from zwick_ai.files import JsonlAppender


def run_tournament(
    t: Tournament,
    out: str | Path | None = None,
    backend: Backend | None = None,
    progress: bool = True,
    stop_after: int | None = None,
    warn: Callable[[str], None] | None = None,
    plots: bool = True,
) -> dict[str, Any] | None:
    """Play every unfinished game of ``t`` into ``out`` (default
    :func:`~zwick_ai.eval.tournament.folder.default_out`) on ``backend`` (default: this process),
    then write the summary files and return the summary.
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
