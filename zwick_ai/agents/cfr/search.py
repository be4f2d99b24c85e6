"""``cfr-search``: decision-time CFR+ on a depth-limited Zwicker subgame (depth-limited re-solving
in the spirit of Brown and Sandholm 2018, Pluribus's real-time search and ReBeL).

At each decision with more than one candidate:

1. **Worlds.** ``worlds`` whole deals consistent with the mover's view are drawn by the expert's
   weighted sampler (:func:`zwick_ai.agents.expert_search.draw_pool`: the exact determinizer,
   each world weighted by the likelihood of the other players' moves this stage under a softmax
   of their greedy values with temperature ``infer``; ``0`` = uniform). The sampler's card
   permutation starts from the hidden cards in sorted order, so for a fixed seed the worlds depend
   only on what the mover sees, not on where the hidden cards really are (except when the
   sampler falls back to its Markov chain, which starts from the true deal, as in every search of
   the package).
2. **Subgame.** A chance node picks the world by its weight; below it the game tree of each world
   is grown to ``depth`` plies or the end of the current stage (:mod:`zwick_ai.agents.cfr.subgame`;
   its docstring has the information sets: every seat's view, never a hidden card). With a time
   budget the tree deepens one ply at a time (iterative deepening) while the next depth is
   predicted to fit in half the time; ``depth=0`` lets it deepen to the end of the stage.
   ``nodes`` caps the tree.
3. **Leaves** at the depth limit: ``leaf=after`` (the package's afterstate network,
   ``net:model=after``, from every side's view), ``leaf=rollout`` (a greedy play-out to the end of
   the hand), ``leaf=auto`` (``after`` where the package ships an after model for the variant and
   player count, else ``rollout``). A finished hand is its true score.
4. **Solve** with compiled CFR+ (alternating updates, linear averaging) for the rest of the time
   and/or ``iters`` iterations.
5. **Play** the root's average strategy: ``play=sample`` draws the move from it with the agent's
   random stream, ``play=argmax`` plays its most likely move.

Rewards are the searches' side rewards in [-1, 1]. With more than two sides (3 players, or 4
playing alone) every seat maximizes its own side's reward: CFR+ on a general-sum subgame, a
heuristic without an equilibrium guarantee; partners are two seats with the same reward.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents import make_agent
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> make_agent("cfr-search:time=0,iters=50,depth=2", game).spec
'cfr-search:time=0,iters=50,depth=2'
>>> make_agent("cfr-search:play=best", game)
Traceback (most recent call last):
...
ValueError: play='best' is not valid; valid: sample, argmax
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents import clock, expert_search, value_model, zwicker_search
from zwick_ai.agents.base import Agent, Param, check_cfr_budget, check_search_iters, register
from zwick_ai.agents.cfr import core, subgame
from zwick_ai.agents.net import model_for
from zwick_ai.agents.search import UTILITY_PARAM, check_utility
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import arrays, kernels

LEAVES = ("auto", "after", "rollout")
PLAYS = ("sample", "argmax")
MAX_WORLDS = 4096  # worlds a subgame may have
DEFAULT_INFER = 0.25  # the expert's temperature of the world weights
DEFAULT_NODES = 200_000  # subgame nodes a decision may build
BUILD_SHARE = 0.5  # of a time budget, what building the subgame may take; CFR+ gets the rest
START_NODE_RATE = 50_000.0  # nodes built per second: the first guess of an agent's running estimate
RATE_SMOOTHING = 0.3  # weight of the newest build in that estimate
RATE_MIN_NODES = 500  # a build this large updates the estimate (smaller ones: mostly fixed costs)
TIMED_ITER_CAP = 1000  # CFR+ iterations under a time budget when iters is not given
FIRST_BATCH = 8  # CFR+ iterations before the first clock check


def check(params: dict[str, Any]) -> None:
    """Raise ``ValueError`` (naming what is valid) for a bad ``cfr-search`` parameter."""
    if params["leaf"] not in LEAVES:
        raise ValueError(f"leaf={params['leaf']!r} is not valid; valid: {', '.join(LEAVES)}")
    if params["play"] not in PLAYS:
        raise ValueError(f"play={params['play']!r} is not valid; valid: {', '.join(PLAYS)}")
    check_cfr_budget(params["time"], params["iters"])
    if params["worlds"] < 1:
        raise ValueError(f"worlds={params['worlds']} is not valid; give at least one world")
    if params["worlds"] > MAX_WORLDS:
        raise ValueError(f"worlds={params['worlds']} is not valid; give at most {MAX_WORLDS} worlds")
    if not 0 <= params["depth"] <= subgame.MAX_LEVELS:
        raise ValueError(
            f"depth={params['depth']} is not valid; give 1..{subgame.MAX_LEVELS} plies or 0 (to the end of the stage)"
        )
    if params["nodes"] < 1:
        raise ValueError(f"nodes={params['nodes']} is not valid; give at least 1")
    check_search_iters(params["nodes"], "nodes")
    if params["infer"] < 0:
        raise ValueError(f"infer={params['infer']} is not valid; give 0 (uniform worlds) or a temperature > 0")
    check_utility(params)
    if params["model"] and params["leaf"] == "rollout":
        raise ValueError("model= is the after network of leaf=after (or auto); leaf=rollout reads no model")


@register(
    "cfr-search",
    params=[
        Param("time", float, 0.1, "seconds per decision on the clock of time budgets (0 = none)"),
        Param("iters", int, 0, "CFR+ iterations per decision (0 = as many as the time allows)"),
        Param("worlds", int, 16, "worlds (consistent deals) in the subgame's root chance node"),
        Param("depth", int, 0, "plies below the decision (0 = to the end of the stage, as deep as the budget allows)"),
        Param(
            "leaf",
            str,
            "auto",
            "value at the depth limit: after (the afterstate network), rollout (greedy play-out to the end "
            "of the hand) or auto (after where the package ships an after model for the game, else rollout)",
        ),
        Param("play", str, "sample", "sample the root's average strategy, or play its argmax"),
        Param(
            "infer",
            float,
            DEFAULT_INFER,
            "world weights: softmax temperature on the others' greedy values (0 = uniform)",
        ),
        Param("nodes", int, DEFAULT_NODES, "most subgame nodes per decision"),
        Param("model", str, "", "after model .npz for the leaves (empty: the package's)"),
        UTILITY_PARAM,
    ],
    games=("zwicker",),
    summary="decision-time CFR+ on a depth-limited subgame over sampled worlds, information sets by each seat's view; compiled.",
    check=check,
)
class CfrSearchAgent(Agent):
    """Depth-limited re-solving: CFR+ on the subgame of sampled worlds at every decision."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        self.leaf = resolved_leaf(game, params)
        model = model_for(game, params["model"], kind=value_model.AFTER) if self.leaf == "after" else None
        self.model = model.arrays() if model is not None else value_model.empty_model()
        self.model_digest = model.digest() if model is not None else None
        self.node_rate = START_NODE_RATE
        self.last: dict[str, Any] = {}
        self._solver: Solver | None = None

    def identity(self) -> dict[str, Any]:
        ident = super().identity()
        return {
            **ident,
            "leaf_resolved": self.leaf,
            "models": {"after": self.model_digest} if self.model_digest else {},
        }

    def solver(self) -> Solver:
        """The agent's subgame arrays (made at its first decision)."""
        if self._solver is None:
            self._solver = Solver(int(self.params["nodes"]), self.game.rules)
        return self._solver

    def act(self, state: pyspiel.State) -> list[int]:
        rows = state.decision().candidates
        if len(rows) == 1:
            return zwicker_bridge.move_actions(state, rows[0])
        rows, strategy, values, stats = search_root(state, self.params, self.rng, self)
        self.last = stats
        if self.params["play"] == "argmax":
            k = zwicker_search.best_index(strategy, values)
        else:
            k = int(self.rng.choice(len(rows), p=strategy))
        return zwicker_bridge.move_actions(state, rows[k])


def resolved_leaf(game: pyspiel.Game | pyspiel.State, params: dict[str, Any]) -> str:
    """The leaf evaluator ``params["leaf"]`` names; ``auto``: ``after`` when a model is given or the
    package ships an after model for the game, else ``rollout``."""
    leaf = str(params["leaf"])
    if leaf != "auto":
        return leaf
    return "after" if params.get("model") or value_model.shipped_fits(game.rules, value_model.AFTER) else "rollout"


class Solver:
    """The arrays of one agent's subgames: the build stacks, the information-set table and the flat
    tree (``cap`` nodes), reused by every decision."""

    def __init__(self, cap: int, rules: Any):
        self.cap = cap
        self.ctx = subgame.new_context()
        size = 1 << int(np.ceil(np.log2(2 * cap + 2)))
        self.keys = np.zeros(size, np.int64)
        self.rowof = np.full(size, -1, np.int32)
        self.trows = np.zeros((cap, core.ROW_FIELDS), np.int64)
        self.acts = np.zeros(cap, np.int16)
        self.tmeta = np.zeros(2, np.int64)
        self.legal = np.arange(subgame.MAX_MOVES, dtype=np.int16)
        self.regret = np.zeros(cap, np.float64)
        self.avg = np.zeros(cap, np.float64)
        self.t_row = np.zeros(cap, np.int32)
        self.t_first = np.zeros(cap, np.int64)
        self.t_n = np.zeros(cap, np.int32)
        self.t_val = np.zeros((cap, rules.num_sides), np.float64)
        self.work = subgame.Work(np.zeros(cap), np.zeros(cap), np.zeros(cap), np.zeros(cap))
        self.out = np.zeros(subgame.B_SIZE, np.int64)

    @property
    def table(self) -> subgame.SubgameTable:
        """The information-set table's arrays as the compiled build takes them."""
        return subgame.SubgameTable(
            keys=self.keys, rowof=self.rowof, rows=self.trows, acts=self.acts, meta=self.tmeta, legal=self.legal
        )

    def tree(self, cap: int | None = None) -> subgame.Tree:
        """The flat tree's arrays (their first ``cap`` nodes; all without)."""
        end = self.cap if cap is None else cap
        return subgame.Tree(row=self.t_row[:end], first=self.t_first[:end], n=self.t_n[:end], val=self.t_val[:end])

    def build(
        self,
        d: zwicker_search.DecisionSetup,
        worlds: np.ndarray,
        depth: int,
        cap: int,
        leaf: int,
        model: tuple,
        w_root: np.ndarray,
    ) -> bool:
        """Build the subgame to ``depth`` plies within ``cap`` nodes; False when it did not fit."""
        self.keys.fill(0)
        self.tmeta[:] = 0
        cap = min(cap, self.cap)
        how = subgame.Leaf(leaf, model, d.total, d.win_loss)
        b = subgame.Build(d.rules_array, depth, how, self.ctx, self.table, self.tree(cap), self.out)
        subgame.build(b, worlds, d.rows, w_root)
        return not self.out[subgame.B_FULL]

    def cfr(self) -> subgame.Cfr:
        """The rows in use, the regrets, the averages and the scratch of CFR+."""
        return subgame.Cfr(self.trows, int(self.tmeta[core.M_ROWS]), self.regret, self.avg, self.work)

    def solve(self, iters: int, t0: int, roots: subgame.Roots, side_of: np.ndarray) -> None:
        """``iters`` more CFR+ iterations, numbered from ``t0 + 1``."""
        subgame.cfr_plus(self.tree(), int(self.out[subgame.B_NODES]), roots, self.cfr(), side_of, t0, iters)


def predicted_nodes(out: np.ndarray) -> float:
    """The nodes of the next depth's tree predicted from the counters ``out`` of this one: each
    leaf the depth limit made gets as many children as an interior node has on average."""
    nodes, leaves, cut, worlds = (
        float(out[k]) for k in (subgame.B_NODES, subgame.B_LEAVES, subgame.B_CUT, subgame.B_WORLDS)
    )
    interior = max(nodes - leaves, 1.0)
    return nodes + cut * (nodes - worlds) / interior


def search_root(
    state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator, agent: CfrSearchAgent | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[str, Any]]:
    """(candidate rows, the root's average strategy over them, each row's value for the mover's
    side under the average strategies, counters) of ``cfr-search``'s subgame at ``state``
    (module docstring). ``agent`` lends its arrays, models and build-rate estimate."""
    t0 = clock.now()
    if agent is None:
        agent = CfrSearchAgent(state.get_game(), 0, **params)
    d = zwicker_search.DecisionSetup(state, rng, params.get("utility", "auto"), "cfr-search")
    d.cards = np.sort(d.det.truth)  # draws depend on the hidden cards' set only, not on where they are
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    inference = expert_search.Inference(float(params["infer"]), value_model.empty_model())
    worlds, logw = expert_search.draw_pool(d.worlds, meta, int(params["worlds"]), inference)
    w_prob = np.exp(logw - logw.max())
    w_prob /= w_prob.sum()
    strategy, values, stats = solve_subgame(d, worlds, w_prob, params, agent, t0)
    stats["chain"] = int(meta[zwicker_search.MT_CHAIN])
    return d.rows, strategy, values, stats


def solve_subgame(
    d: zwicker_search.DecisionSetup,
    worlds: np.ndarray,
    w_prob: np.ndarray,
    params: dict[str, Any],
    agent: CfrSearchAgent,
    t0: float,
) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    """(the root's average strategy over ``d.rows``, each row's value for the mover's side, counters)
    of CFR+ on the subgame of the decision ``d`` over ``worlds`` (engine states, one a row) with
    the chance probabilities ``w_prob``: built to ``params["depth"]`` plies (iterative deepening
    under a time budget), solved for ``params["iters"]`` iterations and/or the rest of
    ``params["time"]`` seconds counted from ``t0`` (a ``clock.now()`` reading)."""
    seconds = float(params["time"])
    R = d.rules_array
    players = int(arrays.players(R))
    side_of = np.array([arrays.side_of(R, q) for q in range(players)], np.int64)
    leaf = subgame.LEAF_AFTER if agent.leaf == "after" else subgame.LEAF_ROLLOUT
    solver = agent.solver()
    w_root = np.full(len(worlds), -1, np.int64)
    limit = int(params["depth"]) or subgame.MAX_LEVELS
    stats: dict[str, Any] = {"leaf": agent.leaf}
    built, depth = 0, 1
    while True:
        cap = solver.cap
        if seconds > 0 and built:  # deepen only when the next depth is predicted to fit the time
            left = BUILD_SHARE * seconds - (clock.now() - t0)
            cap = min(cap, int(agent.node_rate * max(left, 0.0)))
            if predicted_nodes(solver.out) > cap:
                break
        tick = clock.now()
        ok = solver.build(d, worlds, depth, cap, leaf, agent.model, w_root)
        spent = clock.now() - tick
        if ok and solver.out[subgame.B_NODES] >= RATE_MIN_NODES:
            seen = solver.out[subgame.B_NODES] / max(spent, 1e-9)
            agent.node_rate += RATE_SMOOTHING * (seen - agent.node_rate)
        if not ok:
            if built == 0:
                raise ValueError(f"nodes={solver.cap} cannot hold one ply of {len(worlds)} worlds; give more nodes")
            solver.build(d, worlds, built, solver.cap, leaf, agent.model, w_root)  # the last depth that fitted
            break
        built = depth
        if solver.out[subgame.B_CUT] == 0 or depth >= limit or solver.out[subgame.B_WORLDS] == 0:
            break
        depth += 1
    out = solver.out
    stats.update(
        depth=built, deepest=int(out[subgame.B_DEPTH]) + 1, nodes=int(out[subgame.B_NODES]),
        leaves=int(out[subgame.B_LEAVES]), worlds=int(out[subgame.B_WORLDS]), infosets=int(solver.tmeta[core.M_ROWS]),
        build_seconds=clock.now() - t0,
    )  # fmt: skip
    rows = d.rows
    if out[subgame.B_WORLDS] == 0:  # no drawn world offers exactly the real legal moves: greedy
        values = np.array([kernels.greedy_value(R, d.real, r) for r in rows])
        strategy = np.zeros(len(rows))
        strategy[int(np.argmax(values))] = 1.0
        stats.update(mode="fallback", iters=0)
        return strategy, values, stats
    edges = int(solver.tmeta[core.M_EDGES])
    solver.regret[:edges] = 0.0
    solver.avg[:edges] = 0.0
    iters = int(params["iters"])
    roots = subgame.Roots(w_root, w_prob)
    done = 0
    if seconds <= 0:
        solver.solve(iters, 0, roots, side_of)
        done = iters
    else:
        cap_iters = iters if iters > 0 else TIMED_ITER_CAP
        batch = FIRST_BATCH
        start = clock.now()
        while done < cap_iters:
            n = min(batch, cap_iters - done)
            solver.solve(n, done, roots, side_of)
            done += n
            now = clock.now()
            if now - t0 >= seconds:
                break
            rate = done / max(now - start, 1e-9)
            batch = int(max(1, min(4096, rate * (seconds - (now - t0)) / 3)))
    nr = len(rows)
    strategy = np.zeros(nr)
    core.normalised(solver.avg, 0, nr, strategy)
    values = np.zeros(nr)
    subgame.average_values(
        solver.tree(), int(out[subgame.B_NODES]), solver.cfr(), int(side_of[d.player]), roots, values
    )
    stats.update(mode="cfr", iters=done, seconds=clock.now() - t0)
    return strategy, values, stats


__all__ = [
    "LEAVES",
    "PLAYS",
    "CfrSearchAgent",
    "Solver",
    "check",
    "predicted_nodes",
    "resolved_leaf",
    "search_root",
    "solve_subgame",
]
