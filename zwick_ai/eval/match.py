"""Play one deal of any of our games between agents, seat by seat, and record it.

Chance is a function of the **deal seed** alone (:mod:`zwick_ai.games.seeded_deals`: ``deal``,
``chance_action`` and ``default_agent_seeds`` are importable from here too), so a deal can be
replayed with the seats permuted (duplicate play); the game is played by the one game loop,
:func:`zwick_ai.games.game_loop.play_to_end`. Agents are reset with their own seeds, independent
of the deal's.

>>> import pyspiel, zwick_ai.games, zwick_ai.agents
>>> from zwick_ai.agents import make_agent
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> rec = play_game(game, [make_agent("greedy", game), make_agent("random", game)], deal_seed=5)
>>> rec.returns[0] == -rec.returns[1], len(rec.moves) > 10
(True, True)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import pyspiel

from zwick_ai.agents.base import Agent
from zwick_ai.games.decisions import decision_label
from zwick_ai.games.game_loop import play_to_end, seeded_chance
from zwick_ai.games.seeded_deals import chance_action, deal, default_agent_seeds

__all__ = ["RECORD_VERSION", "GameRecord", "chance_action", "deal", "default_agent_seeds", "play_game"]

#: version of the game-record line format (:meth:`GameRecord.as_dict`, :mod:`zwick_ai.eval.records`)
RECORD_VERSION = 1


@dataclass
class GameRecord:
    """One played deal: the deal seed, the agent spec at each seat, every whole decision as
    ``[seat, label, actions]``, the returns per seat, and (Zwicker) points per side. ``game`` is the
    OpenSpiel game string and ``chance`` every chance action in order, so the record replays on
    the real game by itself (:func:`zwick_ai.eval.records.replay`)."""

    deal_seed: int
    seats: list[str]
    moves: list[list] = field(default_factory=list)
    returns: list[float] = field(default_factory=list)
    points: list[int] | None = None
    seconds: list[float] = field(default_factory=list)  # thinking time per seat, wall clock
    game: str = ""
    chance: list[int] = field(default_factory=list)
    version: int = RECORD_VERSION
    cpu_seconds: list[float] = field(default_factory=list)  # thinking time per seat, the thread's CPU time

    def as_dict(self) -> dict:
        """The JSON line of the record (format version, game and seed first; ``cpu_seconds`` only
        when measured)."""
        d = asdict(self)
        if not d["cpu_seconds"]:
            del d["cpu_seconds"]
        return {k: d.pop(k) for k in ("version", "game", "deal_seed")} | d


def play_game(
    game: pyspiel.Game,
    agents: Sequence[Agent],
    deal_seed: int,
    agent_seeds: Sequence[int] | None = None,
    labels: bool = True,
    on_move: Callable[[pyspiel.State, int, str, list[int]], None] | None = None,
) -> GameRecord:
    """Play deal ``deal_seed`` with ``agents[seat]`` at each seat; ``agent_seeds[seat]`` (default:
    derived from the deal seed and the seat) resets each agent. ``labels=False`` skips the readable
    move names (faster). ``on_move(state, seat, label, actions)`` is called after each decision
    (e.g. to show a person what the others did)."""
    n = game.num_players()
    if len(agents) != n:
        raise ValueError(f"{game} needs {n} agents, got {len(agents)}")
    if agent_seeds is None:
        agent_seeds = default_agent_seeds(deal_seed, n)
    for agent, s in zip(agents, agent_seeds, strict=True):
        agent.reset(int(s))
    rec = GameRecord(int(deal_seed), [a.spec for a in agents], seconds=[0.0] * n, game=str(game), cpu_seconds=[0.0] * n)
    state = deal(game, deal_seed)
    rec.chance = [int(a) for a in state.history()]  # the opening deal: chance only

    def decide(state: pyspiel.State) -> list[int]:
        seat = state.current_player()
        t0, c0 = time.perf_counter(), time.thread_time()
        actions = agents[seat].act(state)
        rec.cpu_seconds[seat] += time.thread_time() - c0
        rec.seconds[seat] += time.perf_counter() - t0
        return actions

    def record(state: pyspiel.State, seat: int, actions: list[int]) -> None:
        rec.moves.append([seat, decision_label(state, actions) if labels else "", actions])

    def tell(state: pyspiel.State, seat: int, actions: list[int]) -> None:
        if on_move is not None:
            on_move(state, seat, rec.moves[-1][1], actions)

    def who(seat: int) -> str:
        return f"agent {agents[seat].spec!r} at seat {seat}"

    play_to_end(state, decide, seeded_chance(deal_seed), rec.chance.append, record, tell, who)
    rec.returns = [float(x) for x in state.returns()]
    if hasattr(state, "engine_state"):
        from zwick_ai import zwicker

        rec.points = [int(x) for x in zwicker.score(state.engine_state())]
    return rec
