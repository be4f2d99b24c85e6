"""The value of every legal move of a decision, all measured on the same sampled worlds.

Method (``rollout`` evaluation, the leaf evaluation of our compiled ISMCTS):

1. *Worlds*: ``worlds`` full positions are drawn, each consistent with everything the mover has
   seen, by the compiled resamplers the ISMCTS agents use (Zwicker:
   :func:`zwick_ai.agents.zwicker_search.det_draw`, exact rejection sampling with the Markov-chain
   fallback; trick games: :func:`zwick_ai.tricks.worlds.resample_into`). The worlds are
   drawn once per decision, before any move is looked at.
2. *Every move in every world*: each legal move is applied to a copy of each world and the deal is
   played to its end by the compiled rollout policy for every seat (``greedy``: the greedy
   baseline of each game; ``random``: uniform), ``playouts`` times per world. The random stream of
   playout ``j`` of world ``w`` is seeded identically for every move (common random numbers), so
   two moves differ only by what they do.
3. *Value*: the mover's return at the end of the deal (Zwicker: the OpenSpiel return, with two
   sides the point margin of the mover's side; trick games: the mover's net chips), averaged over
   the playouts of a world, then over the worlds: the mean with a Student-t 95% CI over worlds.
   Because all moves share the worlds, differences between moves are paired and sharp: a move's
   *loss* against the best move is the per-world difference with its own paired CI
   (:meth:`DecisionValues.loss`), and a move is a *mistake* only when that CI excludes zero
   (:meth:`DecisionValues.verdict`; otherwise it is *level* with the best).

With an agent spec (``agent="ismcts:iters=100"``: the strongest agent's evaluation, much slower)
step 2 plays the deal on after the move with that agent at every seat instead, each seat deciding
from its own information in that world (the worlds here are OpenSpiel states drawn by each game's
``resample_from_infostate``, which the compiled resamplers do); the agents' seeds and the chance
stream of world ``w`` are again the same for every move.

With ``searches=N`` and a search agent (Zwicker's ``ismcts``), step 2 is the agent's own
judgement instead, about a hundred times cheaper than playing every world on: ``N`` independent
searches of the agent from the mover's information (its own budget, its own sampled worlds, seeds
from ``seed``), each giving every legal move the mean return of the search iterations that began
with it (the root statistics the agent chooses its move from, rescaled from the search's reward
units to the game's return). A move's value is the mean over the ``N`` searches with a Student-t
95% CI over them: the interval says how much the agent's estimate varies from search to search,
not how well the agent plays; moves the agent thinks poor get few iterations, so their values
are the least sure.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.eval.match import deal
>>> state = deal(pyspiel.load_game("zwikken(variant=parlett,players=3)"), 4)
>>> dv = decision_values(state, worlds=20, seed=1)
>>> dv.values.shape == (20, len(dv.labels)) and dv == decision_values(state, worlds=20, seed=1)
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai import tricks
from zwick_ai.agents.base import make_agent
from zwick_ai.agents.tricks_search import play_out as tricks_play_out
from zwick_ai.agents.zwicker_search import MT_SIZE, TRIES, Worlds, det_draw
from zwick_ai.analysis import DEFAULT_WORLDS
from zwick_ai.games import zwicker_bridge
from zwick_ai.games.decisions import apply_decision, legal_decisions
from zwick_ai.games.game_loop import play_to_end, stream_chance
from zwick_ai.stats import Estimate, mean_ci, paired_diff_ci
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks.worlds import TRIES as TRICK_TRIES
from zwick_ai.tricks.worlds import resample_into
from zwick_ai.tricks.worlds import seed as seed_compiled
from zwick_ai.zwicker import arrays, policy_codes
from zwick_ai.zwicker import kernels as zwicker_kernels
from zwick_ai.zwicker.worlds import resample_setup

ROLLOUTS = ("greedy", "random")
MAX_SEED = 2**31 - 1


@dataclass
class DecisionValues:
    """Every legal move of one decision: ``labels[i]`` and ``actions[i]`` of move ``i``;
    ``values[w, i]`` the mover's mean return of move ``i`` in world ``w``; ``worlds`` the sampled
    worlds (state arrays), shared by every move."""

    seat: int
    labels: list[str]
    actions: list[list[int]]
    values: np.ndarray = field(repr=False)
    worlds: list[np.ndarray] | list[pyspiel.State] = field(repr=False)

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, DecisionValues)
            and self.labels == other.labels
            and self.actions == other.actions
            and np.array_equal(self.values, other.values)
        )

    def mean_ci(self, i: int) -> tuple[float, float, float]:
        """(mean, lower, upper) of move ``i``: 95% Student-t interval over the worlds."""
        e = mean_ci(self.values[:, i])
        return e.mean, e.ci95[0], e.ci95[1]

    def best(self) -> int:
        """The move with the highest mean (the first of equals)."""
        return int(np.argmax(self.values.mean(axis=0)))

    def loss(self, i: int) -> Estimate:
        """The loss of move ``i`` against the best move: best minus ``i`` in each world (or
        search), paired because every move is measured on the same worlds and play-outs, with its
        Student-t 95% CI over them. The best move's own loss is exactly 0."""
        return paired_diff_ci(self.values[:, self.best()], self.values[:, i])

    def verdict(self, i: int) -> str:
        """``best``; ``mistake`` when the CI of the paired loss lies above 0; else ``level``
        (the data cannot tell the move from the best)."""
        if i == self.best():
            return "best"
        return "mistake" if self.loss(i).ci95[0] > 0 else "level"

    def index_of(self, actions: Sequence[int]) -> int:
        """The move whose actions are ``actions`` (``ValueError`` if none is)."""
        want = list(actions)
        for i, acts in enumerate(self.actions):
            if acts == want:
                return i
        raise ValueError(f"actions {want} are not a legal move of this decision")


def _check(state: pyspiel.State, worlds: int, rollout: str, playouts: int) -> None:
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("not a decision state")
    if worlds < 2:
        raise ValueError(f"worlds={worlds}: at least 2 worlds are needed for a confidence interval")
    if rollout not in ROLLOUTS:
        raise ValueError(f"rollout={rollout!r} is not valid; valid: {', '.join(ROLLOUTS)}")
    if playouts < 1:
        raise ValueError(f"playouts={playouts}: at least one playout per world")


def draw_worlds(state: pyspiel.State, worlds: int, seed: int) -> list[np.ndarray]:
    """``worlds`` full positions consistent with the information of the player to move, drawn by
    the compiled resampler of the ISMCTS agents from ``seed``."""
    p = state.current_player()
    seed_compiled(seed % MAX_SEED)
    out: list[np.ndarray] = []
    if hasattr(state, "move_prefix"):
        if state.move_prefix():
            raise ValueError("a move is in progress; moves are valued from the start of a turn")
        decision = state.decision()
        G, a = decision.game_table, decision.record
        W = np.zeros(zwicker_kernels.WS_SIZE, np.int64)
        det = resample_setup(G, a, p, W)
        drawn = Worlds(G, a, p, det, det.truth.copy(), det.truth.copy(), W)
        meta = np.zeros(MT_SIZE, np.int64)
        for _ in range(worlds):
            out.append(det_draw(drawn, TRIES, meta).copy())
        return out
    view = state.decision()
    a, cfg = view.position, view.config
    for _ in range(worlds):
        world = np.empty_like(a)
        if not resample_into(a, cfg, p, world, TRICK_TRIES):
            raise RuntimeError("no position consistent with the mover's information was found")
        out.append(world)
    return out


def _zwicker_return(sc: np.ndarray, side: int, win_loss: bool) -> float:
    """The OpenSpiel return of a seat on ``side`` for final points ``sc`` (as ``returns_k``)."""
    ns = len(sc)
    if win_loss:
        top = int((sc == sc.max()).sum())
        return float(ns - top) if sc[side] == sc.max() else float(-top)
    return float(ns * sc[side] - sc.sum())


def _zwicker_values(
    state: pyspiel.State,
    rows: list[np.ndarray],
    worlds: list[np.ndarray],
    rollout: str,
    playouts: int,
    seeds: np.ndarray,
) -> np.ndarray:
    R = state.rules.array()
    W = np.zeros(zwicker_kernels.WS_SIZE, np.int64)
    p = state.current_player()
    side = state.rules.side_of(p)
    win_loss = bool(state.decision().win_loss)
    policy = policy_codes.PLAYOUT_POLICIES[rollout]
    policies = np.full(state.rules.players, policy, np.int64)
    out = np.zeros((len(worlds), len(rows)))
    for w, world in enumerate(worlds):
        for i, row in enumerate(rows):
            total = 0.0
            for j in range(playouts):
                S = world.copy()
                seed_compiled(int(seeds[w, j]))  # the same stream for every move of this world
                zwicker_kernels.apply_move(R, S, row, W)
                if not arrays.is_over(S):
                    zwicker_kernels.play_out(R, S, policies, W)
                total += _zwicker_return(zwicker_kernels.score(R, S), side, win_loss)
            out[w, i] = total / playouts
    return out


def _tricks_values(
    state: pyspiel.State, moves: list[int], worlds: list[np.ndarray], rollout: str, playouts: int, seeds: np.ndarray
) -> np.ndarray:
    cfg = state.rules.cfg
    p = state.current_player()
    ids = np.empty(trick_arrays.NC, dtype=np.int32)
    probs = np.empty(trick_arrays.NC, dtype=np.float64)
    mask = np.zeros(trick_arrays.NUM_ACTIONS, dtype=np.bool_)
    greedy = rollout == "greedy"
    out = np.zeros((len(worlds), len(moves)))
    for w, world in enumerate(worlds):
        for i, action in enumerate(moves):
            total = 0.0
            for j in range(playouts):
                s = world.copy()
                seed_compiled(int(seeds[w, j]))
                tricks_kernels.apply_action(s, cfg, action)
                tricks_play_out(s, cfg, greedy, ids, probs, mask)
                total += float(trick_arrays.net(s, p))
            out[w, i] = total / playouts
    return out


def move_values(
    state: pyspiel.State,
    worlds: list[np.ndarray],
    moves: Sequence[Sequence[int]],
    rollout: str = "greedy",
    playouts: int = 1,
    seed: int = 0,
) -> np.ndarray:
    """``values[w, i]``: the mover's mean return after whole move ``moves[i]`` (its actions) in world
    ``worlds[w]``, played out by ``rollout`` ``playouts`` times (module docstring). The playout
    seeds depend only on ``seed`` and ``(w, j)``, never on the move or on the other moves."""
    _check(state, max(2, len(worlds)), rollout, playouts)
    seeds = np.random.default_rng([seed, len(worlds), playouts]).integers(MAX_SEED, size=(len(worlds), playouts))
    if hasattr(state, "engine_state"):
        by_actions = {tuple(acts): m.row for m, acts in zwicker_bridge.legal_moves(state)}
        rows = []
        for acts in moves:
            if tuple(acts) not in by_actions:
                raise ValueError(f"actions {list(acts)} are not a legal whole move here")
            rows.append(np.array(by_actions[tuple(acts)], dtype=np.int64))
        return _zwicker_values(state, rows, worlds, rollout, playouts, seeds)
    legal = set(state.legal_actions())
    for acts in moves:
        if len(acts) != 1 or acts[0] not in legal:
            raise ValueError(f"actions {list(acts)} are not a legal decision here")
    return _tricks_values(state, [int(acts[0]) for acts in moves], worlds, rollout, playouts, seeds)


def draw_world_states(state: pyspiel.State, worlds: int, seed: int) -> list[pyspiel.State]:
    """``worlds`` OpenSpiel states consistent with the mover's information (Zwicker: the game's
    ``resample_from_infostate``, the compiled exact resampler; trick games: :func:`draw_worlds`
    replayed as OpenSpiel states)."""
    p = state.current_player()
    if hasattr(state, "engine_state"):
        seeds = np.random.default_rng([seed, 17]).integers(MAX_SEED, size=worlds)
        return [state.resample_from_infostate(p, int(x)) for x in seeds]
    game = state.get_game()
    out = []
    for arr in draw_worlds(state, worlds, seed):
        world = game.new_initial_state()
        for _, _, value in tricks.history(tricks.TrickState(state.rules, arr)):
            world.apply_action(int(value))
        out.append(world)
    return out


#: builds the agent of a seat: ``(spec, game, seat) -> agent`` (:func:`agent_move_values`)
AgentMaker = Callable[[str, pyspiel.Game, int], Any]


def agent_move_values(
    state: pyspiel.State,
    worlds: list[pyspiel.State],
    moves: Sequence[Sequence[int]],
    agent: str,
    seed: int = 0,
    make: AgentMaker | None = None,
) -> np.ndarray:
    """``values[w, i]``: the mover's return after ``moves[i]`` in world state ``worlds[w]`` with the
    deal played on by ``agent`` at every seat (module docstring); ``make`` builds each seat's
    agent (default :func:`~zwick_ai.agents.base.make_agent`; an outside agent's guarded one:
    :func:`outside_decision_values`)."""
    game = state.get_game()
    n, p = game.num_players(), state.current_player()
    agents = [make(agent, game, q) if make else make_agent(agent, game) for q in range(n)]
    out = np.zeros((len(worlds), len(moves)))
    for w, world in enumerate(worlds):
        agent_seeds = np.random.default_rng([seed, w]).integers(MAX_SEED, size=n)
        for i, acts in enumerate(moves):
            s = world.clone()
            apply_decision(s, list(acts))
            for q, a in enumerate(agents):
                a.reset(int(agent_seeds[q]))  # the same agents' randomness for every move
            chance = stream_chance(np.random.default_rng([seed, w, 1]), by_index=True)  # and the same chance stream
            play_to_end(s, lambda state: agents[state.current_player()].act(state), chance)
            out[w, i] = float(s.returns()[p])
    return out


#: agents whose own root search values the moves (``searches=N``), by game
SEARCH_AGENTS = {"zwicker": ("ismcts",)}


def supports_searches(game_name: str, agent: str) -> bool:
    """Whether ``agent`` (a spec) can value the moves of ``game_name`` (a short name) by its own
    searches (:func:`search_move_values`)."""
    from zwick_ai.agents.base import agent_params, parse_spec

    if parse_spec(agent)[0] not in SEARCH_AGENTS.get(game_name, ()):  # an outside agent's module is not imported here
        return False
    return agent_params(agent)[0].name in SEARCH_AGENTS.get(game_name, ())


def search_move_values(
    state: pyspiel.State, moves: Sequence[Sequence[int]], agent: str, searches: int, seed: int = 0
) -> np.ndarray:
    """``values[r, i]``: the mean return for the mover after ``moves[i]`` in the ``r``-th of
    ``searches`` independent root searches of ``agent`` (module docstring), in the game's return
    units (Zwicker: the OpenSpiel return, as the other evaluators)."""
    from zwick_ai.agents.search import resolved_budget
    from zwick_ai.agents.zwicker_search import root_search

    game = state.get_game()
    short = game.get_type().short_name
    if not supports_searches(short, agent):
        valid = ", ".join(SEARCH_AGENTS.get(short, ())) or "none"
        raise ValueError(f"{agent} cannot value {short} moves by its own searches (agents that can: {valid})")
    if searches < 2:
        raise ValueError(f"searches={searches}: at least 2 searches are needed for a confidence interval")
    params = resolved_budget(make_agent(agent, game).params)
    if 0 < int(params["iters"]) < len(moves):
        raise ValueError(f"{agent}: {params['iters']} iterations cannot try each of the {len(moves)} moves once")
    index = {tuple(acts): i for i, acts in enumerate(moves)}
    rules = state.rules
    units = float(rules.num_sides - 1) * (1.0 if state.decision().win_loss else float(rules.card_total))
    out = np.full((searches, len(moves)), np.nan)
    for r in range(searches):
        rows, visits, mean = root_search(state, params, np.random.default_rng([seed, r, 29]))
        for k, row in enumerate(rows):
            i = index.get(tuple(zwicker_bridge.move_actions(state, row)))
            if i is not None and visits[k] > 0:
                out[r, i] = mean[k] * units
    missing = [i for i in range(len(moves)) if np.isnan(out[:, i]).any()]
    if missing:
        raise ValueError(f"{agent}: a search left move {missing[0]} untried; give it more iterations")
    return out


def decision_values(
    state: pyspiel.State,
    worlds: int = DEFAULT_WORLDS,
    rollout: str = "greedy",
    playouts: int = 1,
    seed: int = 0,
    agent: str | None = None,
    searches: int = 0,
    make: AgentMaker | None = None,
) -> DecisionValues:
    """Every legal move of the decision at ``state`` valued on the same ``worlds`` sampled worlds
    (module docstring): by compiled ``rollout`` playouts, with ``agent`` (a spec) playing on, or
    with ``searches`` > 0 by that many of ``agent``'s own searches; all randomness from ``seed``."""
    _check(state, worlds, rollout, playouts)
    options = legal_decisions(state)
    acts = [list(a) for _, a in options]
    labels = [label for label, _ in options]
    if agent is not None and searches > 0:
        values = search_move_values(state, acts, agent, searches, seed)
        return DecisionValues(state.current_player(), labels, acts, values, [])
    if agent is not None:
        states = draw_world_states(state, worlds, seed)
        values = agent_move_values(state, states, acts, agent, seed, make)
        return DecisionValues(state.current_player(), labels, acts, values, states)
    sampled = draw_worlds(state, worlds, seed)
    values = move_values(state, sampled, acts, rollout, playouts, seed)
    return DecisionValues(state.current_player(), labels, acts, values, sampled)


def outside_decision_values(task: dict[str, Any]) -> DecisionValues:
    """In a worker process: the values of the decision after ``task["history"]`` (the actions
    from the start) of the game ``task["game"]``, with outside agent ``task["agent"]`` playing on
    (``worlds``, ``seed``) under guard: each seat's agent built on the start clock and every
    call on the move clock (``task["limits"]``), so its failure is named
    (:func:`zwick_ai.eval.agent_failures.guarded_agent`). The worlds are left out of the result
    (it crosses processes; the values, labels and actions are what a report needs)."""
    from zwick_ai.eval.agent_failures import game_label, guarded_agent

    game = pyspiel.load_game(task["game"])
    state = game.new_initial_state()
    for action in task["history"]:
        state.apply_action(int(action))
    where = {"game": game_label(game), "decision": task["move_index"] + 1}

    def make(spec: str, g: pyspiel.Game, seat: int) -> Any:
        return guarded_agent(spec, g, seat, task["limits"], **where)

    dv = decision_values(state, worlds=task["worlds"], seed=task["seed"], agent=task["agent"], make=make)
    return DecisionValues(dv.seat, dv.labels, dv.actions, dv.values, [])


def valued_decisions(
    steps: Sequence[Any], todo: Sequence[int], params: dict[str, Any], out: Path | None = None
) -> Iterator[tuple[int, DecisionValues]]:
    """``(k, values)`` of each decision ``k`` of ``todo`` (indices into a replay's ``steps``, the
    state before move ``k``), valued as ``params`` say (``zwick analyze``'s evaluator: rollouts,
    or an agent's searches or play-on) with the seed of decision ``k``. The package's evaluators
    run here; an agent from outside the package plays in a worker process under guard
    (:func:`outside_decision_values`), its failure :class:`~zwick_ai.eval.agent_failures.AgentFailed`
    with the traceback in ``out/agent-errors.log``."""
    agent = str(params["agent"]) if "agent" in params else None
    seed = int(params["seed"]) * 1_000_003
    from zwick_ai.eval.agent_failures import outside_specs

    if agent is None or not outside_specs([agent]):
        for k in todo:
            yield (
                k,
                decision_values(
                    steps[k].state,
                    worlds=int(params.get("worlds", 2)),
                    rollout=str(params.get("policy", "greedy")),
                    playouts=int(params.get("playouts", 1)),
                    seed=seed + k,
                    agent=agent,
                    searches=int(params.get("searches", 0)),
                ),
            )
        return
    from zwick_ai.agents.guard import MOVE_TIME_LIMIT, START_TIME_LIMIT
    from zwick_ai.backends import LocalBackend
    from zwick_ai.eval.agent_failures import guarded_map

    limits = {"move": MOVE_TIME_LIMIT, "start": START_TIME_LIMIT}
    tasks = (
        {"game": str(steps[k].state.get_game()), "history": list(steps[k].state.history()), "move_index": k,
         "agent": agent, "worlds": int(params.get("worlds", 2)), "seed": seed + k, "limits": limits}
        for k in todo
    )  # fmt: skip
    with LocalBackend(1, isolate=True) as backend:
        for task, dv in guarded_map(outside_decision_values, tasks, agent, out or Path("."), backend):
            yield task["move_index"], dv
