"""``resolve``: depth-limited re-solving of the rest of the current Zwicker stage over joint deals
of **every** seat's hand, the mover's included, with a re-solving gadget (DeepStack's continual
re-solving and ReBeL, with the leaf problem made simple by the game: at a stage boundary every
hand is empty, and what is left private is the stock's order, which nobody knows).

At each decision with more than one candidate:

1. **Deals.** The unseen cards (every hand and the stock, :mod:`zwick_ai.zwicker.public_deals`) are
   split into hands in every way that replays the current stage (``deals`` or fewer splits), or
   else ``draws`` splits are drawn, stratified: a share ``true_share`` from the mover's own view
   (its true hand, the others drawn) and the rest from the public view, each weighted by the
   prior over the mixture (uniform target; the true hand's prior counted from the unseen cards).
2. **Beliefs.** Each deal is weighted by the probability of every seat's moves so far this stage
   under the stated policy ``belief``: ``solve`` (the stage solved from its start by this search,
   the same solve at every decision of the stage; only where the whole stage fits ``nodes``,
   else ``greedy``), ``greedy`` (a softmax of the greedy values at temperature ``infer``) or
   ``uniform`` (no weighting).
3. **Subgame** (:mod:`zwick_ai.agents.cfr.resolve_tree`): a chance node over the deals; below each
   the game to the end of the stage (or ``depth`` plies, then greedy play to the stage's end);
   information sets are the seats' views (the mover's root set differs by its hand). Under a time
   budget the tree is deepened a ply at a time: ``deepen=try`` tries each ply (one that does not
   fit is thrown away and the last rebuilt), ``deepen=fit`` (the default: it measured better in
   classic 2p and level in Dithmarschen 4p, experiments/results/resolve/) tries only a ply whose
   nodes, foreseen from the last ply's growth, fit the build's share of the budget.
4. **Stage ends** are public states: ``leaf=solve`` solves the next stage from that state over all
   its deals, recursively to the hand's end (exact, where it fits), ``leaf=model`` reads the
   learned public-state value (:mod:`zwick_ai.learn.stage_values`), ``leaf=rollout`` plays the
   drawn deal out greedily; ``auto`` is ``solve`` where the rest of the hand is small and there
   is no time budget (a solve per stage end is not bounded by it: late in a full board one
   decision met hundreds of them), else ``model`` where the package ships one, else ``rollout``.
   Values are raw points (the game's returns), never clipped.
5. **Gadget** (two players, once a move of the stage has been made; ``gadget=on``): the opponent
   may take, at each of its root information sets, its value under the earlier strategy
   (``belief=solve``: the stage's solve; otherwise the greedy-softmax blueprint) instead of
   entering; CFR+ then bounds what any opponent hand gains over that strategy. With more than two
   players there is no gadget (the guarantee is lost: with several opponents neither a unique
   game value nor a bound per opponent exists).
6. **Solve** with CFR+ for ``iters`` iterations, or under a time budget until it is spent or
   ``cap`` iterations are run (0: no cap). **Play** the average strategy of the mover's true
   hand's root information set (``play=sample`` or ``argmax``).

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents import make_agent
>>> game = pyspiel.load_game("zwicker(variant=classic,players=2)")
>>> make_agent("resolve:time=0,iters=50,depth=2", game).spec
'resolve:time=0,iters=50,depth=2'
>>> make_agent("resolve:belief=oracle", game)
Traceback (most recent call last):
...
ValueError: belief='oracle' is not valid; valid: solve, greedy, uniform
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents import clock
from zwick_ai.agents.base import Agent, Param, check_cfr_budget, check_search_iters, register
from zwick_ai.agents.cfr import core, resolve_tree, subgame
from zwick_ai.games import zwicker_bridge
from zwick_ai.mlp import WEIGHTS_DIR, Perceptron, compiled_arrays, fit_problem, read_model
from zwick_ai.zwicker import arrays, kernels, layout, public_deals
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY
from zwick_ai.zwicker.stage_features import feature_count
from zwick_ai.zwicker.steps import side_returns
from zwick_ai.zwicker.worlds import resample_setup

BELIEFS = ("solve", "greedy", "uniform")
LEAVES = ("auto", "solve", "model", "rollout")
PLAYS = ("sample", "argmax")
SWITCH = ("on", "off")
DEEPENS = ("try", "fit")
DEFAULT_DEALS = 256
# Drawn deals of a full board. Every drawn deal adds its subtree, whose depth-limit leaves are
# each played out to the stage's end: at 256, classic 2p decisions at time=0.1 built one ply
# (or a small late stage whole) and ran a median 406 CFR+ iterations (7 of 30 decisions 4 or
# fewer); at 64, three plies on average and a median 1,420 (experiments/results/resolve/).
DEFAULT_DRAWS = 64
DEFAULT_NODES = 400_000
MAX_BOUNDS = 4096  # distinct stage ends one subgame may reach
TIMED_ITER_CAP = 2000  # default cap: CFR+ iterations under a time budget when iters is not given
MAX_TIMED_ITERS = 1 << 40  # cap=0: no cap (the time budget stops CFR+)
BOUNDARY_ITERS = 400  # CFR+ iterations of a stage solved to value its start (leaf=solve)
STAGE_KIND = "stage"  # the weights files' kind of the learned stage values
BUILD_SHARE = 0.4  # of a time budget, what building the subgame may take; CFR+ gets the rest
START_NODE_RATE = 50_000.0  # nodes built a second: the first guess of an agent's running estimate
SCRATCH_NODES = 100_000  # nodes of a stage solved to value a boundary (a larger one: rollout or model)
SOLVE_DEALS = 4096  # leaf=auto solves a stage's end when its next stage has at most this many deals
GROUP = 4  # drawn two-player deals: mover hands per opponent hand (the true one and 3 drawn)


def check(params: dict[str, Any]) -> None:
    """Raise ``ValueError`` (naming what is valid) for a bad ``resolve`` parameter."""
    for name, valid in (
        ("belief", BELIEFS),
        ("leaf", LEAVES),
        ("play", PLAYS),
        ("gadget", SWITCH),
        ("deepen", DEEPENS),
    ):
        if params[name] not in valid:
            raise ValueError(f"{name}={params[name]!r} is not valid; valid: {', '.join(valid)}")
    check_cfr_budget(params["time"], params["iters"])
    if params["deals"] < 1:
        raise ValueError(f"deals={params['deals']} is not valid; give at least one deal")
    if params["draws"] < 1:
        raise ValueError(f"draws={params['draws']} is not valid; give at least one deal")
    if not 0 <= params["depth"] <= resolve_tree.MAX_LEVELS:
        raise ValueError(
            f"depth={params['depth']} is not valid; give 1..{resolve_tree.MAX_LEVELS} or 0 (the stage's end)"
        )
    if params["nodes"] < 1:
        raise ValueError(f"nodes={params['nodes']} is not valid; give at least 1")
    check_search_iters(params["nodes"], "nodes")
    if params["cap"] < 0:
        raise ValueError(f"cap={params['cap']} is not valid; give 0 (none) or a positive iteration count")
    if params["infer"] <= 0:
        raise ValueError(f"infer={params['infer']} is not valid; give a temperature > 0")
    if not 0.0 <= params["true_share"] < 1.0:
        raise ValueError(f"true_share={params['true_share']} is not valid; give 0 <= true_share < 1")


@register(
    "resolve",
    params=[
        Param("time", float, 0.1, "seconds per decision (0 = none: iters only)"),
        Param("iters", int, 0, "CFR+ iterations per decision (0 = as many as the time allows)"),
        Param("deals", int, DEFAULT_DEALS, "joint deals at the root: all when there are at most this many, else drawn"),
        Param("depth", int, 0, "plies below the decision (0 = the end of the stage)"),
        Param("draws", int, DEFAULT_DRAWS, "joint deals drawn at the root when there are more than deals"),
        Param("belief", str, "solve", "policy weighing the deals by this stage's moves: solve, greedy or uniform"),
        Param("leaf", str, "auto", "value of a stage's end: solve, model, rollout or auto"),
        Param("gadget", str, "on", "the re-solving gadget of two-player games: on or off"),
        Param("play", str, "sample", "sample the root's average strategy, or play its argmax"),
        Param("infer", float, 0.25, "temperature of the greedy-softmax belief and blueprint"),
        Param("true_share", float, 0.5, "share of drawn deals that give the mover its true hand"),
        Param(
            "nodes", int, DEFAULT_NODES, "most subgame nodes per solve (fewer root deals where one ply does not fit)"
        ),
        Param(
            "deepen",
            str,
            "fit",
            "timed deepening: try each ply (try) or only one foreseen to fit the build's share (fit)",
        ),
        Param("cap", int, TIMED_ITER_CAP, "most CFR+ iterations of a timed decision without iters (0 = none)"),
        Param("model", str, "", "stage-value model .npz of leaf=model (empty: the package's for the board)"),
    ],
    games=("zwicker",),
    summary="re-solves the rest of the stage over joint deals of every hand (the mover's too), "
    "beliefs from the stage's moves, a re-solving gadget, stage ends valued per public state; compiled.",
    check=check,
)
class ResolveAgent(Agent):
    """Depth-limited re-solving over every seat's hand (module docstring)."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        self.last: dict[str, Any] = {}
        self._solver: Subgame | None = None
        self.memo: dict[str, dict[int, Any]] = {"bound": {}, "stage": {}}
        self.node_rate = START_NODE_RATE
        self.level = 0
        self._scratch: list[Subgame] = []
        self.stage_model = stage_model_for(game.rules, params["model"], required=params["leaf"] == "model")

    def scratch(self, R: np.ndarray) -> Subgame:
        """The arrays of a stage solved to value a boundary, one per level of that recursion
        (``self.level``: raised here, lowered by the caller when done)."""
        self.level += 1
        while len(self._scratch) < self.level:
            self._scratch.append(Subgame(SCRATCH_NODES, R))
        return self._scratch[self.level - 1]

    def files(self) -> list[str | Path]:
        return [self.params["model"]] if self.params["model"] else []

    def solver(self) -> Subgame:
        if self._solver is None:
            self._solver = Subgame(int(self.params["nodes"]), self.game.rules.array())
        return self._solver

    def act(self, state: pyspiel.State) -> list[int]:
        rows = state.decision().candidates
        if len(rows) == 1:
            return zwicker_bridge.move_actions(state, rows[0])
        strategy, stats = decide(state, self.params, self, self.rng)
        self.last = stats
        k = int(np.argmax(strategy)) if self.params["play"] == "argmax" else int(self.rng.choice(len(rows), p=strategy))
        return zwicker_bridge.move_actions(state, rows[k])

    def decision_distribution(self, state: pyspiel.State) -> dict[tuple[int, ...], float] | None:
        """The exact decision probabilities where the deals are all enumerated (no random draw)."""
        rows = state.decision().candidates
        if len(rows) == 1:
            return {tuple(zwicker_bridge.move_actions(state, rows[0])): 1.0}
        strategy, stats = decide(state, self.params, self, self.rng)
        if stats["drawn"] or self.params["time"] > 0:
            return None
        if self.params["play"] == "argmax":
            strategy = np.eye(len(rows))[int(np.argmax(strategy))]
        return {tuple(zwicker_bridge.move_actions(state, rows[k])): float(p) for k, p in enumerate(strategy) if p > 0}


class Subgame:
    """The arrays of one agent's subgames (``cap`` nodes), reused by every solve."""

    def __init__(self, cap: int, R: np.ndarray):
        self.cap = cap
        players = int(arrays.players(R))
        self.side_of = np.array([arrays.side_of(R, q) for q in range(players)], np.int64)
        self.ctx = resolve_tree.new_context()
        size = 1 << int(np.ceil(np.log2(2 * cap + 2)))
        self.keys = np.zeros(size, np.int64)
        self.rowof = np.full(size, -1, np.int32)
        self.trows = np.zeros((cap, core.ROW_FIELDS), np.int64)
        self.acts = np.zeros(cap, np.int16)
        self.tmeta = np.zeros(2, np.int64)
        self.legal = np.arange(resolve_tree.MAX_MOVES, dtype=np.int16)
        self.regret = np.zeros(cap)
        self.avg = np.zeros(cap)
        self.bp = np.zeros(cap)
        self.t_row = np.zeros(cap, np.int32)
        self.t_first = np.zeros(cap, np.int64)
        self.t_n = np.zeros(cap, np.int32)
        self.t_val = np.zeros((cap, int(arrays.sides(R))))
        self.t_leaf = np.zeros(cap, np.int64)
        self.bkeys = np.zeros(4 * MAX_BOUNDS, np.int64)
        self.bstates = np.zeros((MAX_BOUNDS, layout.STATE_SIZE), np.int32)
        self.work = subgame.Work(np.zeros(cap), np.zeros(cap), np.zeros(cap), np.zeros(cap))
        self.out = np.zeros(resolve_tree.B_SIZE, np.int64)

    @property
    def tree(self) -> resolve_tree.Tree:
        return resolve_tree.Tree(self.t_row, self.t_first, self.t_n, self.t_val, self.t_leaf)

    @property
    def nodes(self) -> int:
        return int(self.out[resolve_tree.B_NODES])

    @property
    def rows(self) -> int:
        return int(self.tmeta[core.M_ROWS])

    def build(self, R: np.ndarray, roots: np.ndarray, h0: np.uint64, depth: int, bp_tau: float, cap: int = 0) -> bool:
        """Build the subgame of the deals ``roots`` to ``depth`` plies (0: the stage's end) in at
        most ``cap`` nodes (0: all the arrays hold); False when it does not fit."""
        self.keys.fill(0)
        self.tmeta[:] = 0
        self.bkeys.fill(0)
        cap = min(cap or self.cap, self.cap)
        table = subgame.SubgameTable(self.keys, self.rowof, self.trows, self.acts, self.tmeta, self.legal)
        tree = resolve_tree.Tree(*(x[:cap] for x in self.tree))
        bounds = resolve_tree.Bounds(self.bkeys, self.bstates)
        b = resolve_tree.Build(
            R, depth or resolve_tree.MAX_LEVELS, self.ctx, table, tree, bounds, float(bp_tau), self.bp, self.out
        )
        resolve_tree.build(b, roots, np.uint64(h0))
        return not self.out[resolve_tree.B_FULL]

    def bounds(self) -> np.ndarray:
        """The boundary states the last build reached (a copy)."""
        return self.bstates[: int(self.out[resolve_tree.B_BOUNDS])].copy()

    def strategy(self) -> np.ndarray:
        """Every row's average strategy, per edge."""
        out = np.zeros(int(self.tmeta[core.M_EDGES]))
        resolve_tree.average_strategy(self.trows, self.rows, self.avg, out)
        return out

    def snapshot(self) -> dict[int, np.ndarray]:
        """Key to average strategy of every row (what a later decision reads)."""
        strat = self.strategy()
        return {
            int(self.trows[r, core.R_KEY]): strat[
                self.trows[r, core.R_OFF] : self.trows[r, core.R_OFF] + self.trows[r, core.R_N]
            ]
            for r in range(self.rows)
        }

    def values(self, strat: np.ndarray, side: int) -> np.ndarray:
        """Every node's value for ``side`` under the per-edge strategy ``strat``."""
        v = np.zeros(self.nodes)
        subgame.values_under(self.tree, self.nodes, self.trows, strat, side, v)
        return v

    def solve(
        self,
        nroots: int,
        roots_w: resolve_tree.RootWeights,
        gadget: resolve_tree.Gadget,
        params: dict[str, Any],
        t0: float,
    ) -> int:
        """CFR+ from zero for ``params``' iterations and/or until ``params["time"]`` seconds after
        ``t0``; returns the iterations run."""
        edges = int(self.tmeta[core.M_EDGES])
        self.regret[:edges] = 0.0
        self.avg[:edges] = 0.0
        seconds, iters = float(params["time"]), int(params["iters"])
        cfr = subgame.Cfr(self.trows, self.rows, self.regret, self.avg, self.work)

        def run(n: int, done: int) -> None:
            resolve_tree.solve(self.tree, self.nodes, nroots, roots_w, gadget, cfr, self.side_of, done, n)

        if seconds <= 0:
            run(iters, 0)
            return iters
        # a small subgame stops at the cap (its strategy has settled) unless the cap is 0
        cap = iters or int(params.get("cap", TIMED_ITER_CAP)) or MAX_TIMED_ITERS
        done, batch = 0, 4
        start = clock.now()
        while done < cap:
            n = min(batch, cap - done)
            run(n, done)
            done += n
            now = clock.now()
            if now - t0 >= seconds:
                break
            rate = done / max(now - start, 1e-9)
            batch = int(max(1, min(4096, rate * (seconds - (now - t0)) / 3)))
        return done


# ------------------------------------------------------------------------------------------------
# Stage ends
# ------------------------------------------------------------------------------------------------
def boundary_values(R: np.ndarray, states: np.ndarray, params: dict[str, Any], agent: ResolveAgent) -> np.ndarray:
    """Each side's value (raw points, one row a state) of the stage starts ``states``
    (``params["leaf"]``; module docstring)."""
    out = np.zeros((len(states), int(arrays.sides(R))))
    solvable = _solvable(R, states, params)
    if params["leaf"] == "rollout" or (params["leaf"] == "auto" and agent.stage_model is None and not solvable):
        resolve_tree.rollout_values(R, states, out)  # compiled: a drawn deal's many boundaries
        return out
    if params["leaf"] in ("model", "auto") and agent.stage_model is not None and not solvable:
        resolve_tree.model_values(R, states, agent.stage_model, out)
        return out
    for b, S in enumerate(states):
        out[b] = stage_value(R, S, params, agent)
    return out


def _solvable(R: np.ndarray, states: np.ndarray, params: dict[str, Any]) -> bool:
    """Whether ``leaf=auto`` solves the stages of ``states`` (boundaries of one subgame: the same
    unseen-card count): only without a time budget (a solve per boundary, hundreds a decision, is
    not bounded by it) and where the first has few enough deals (:data:`SOLVE_DEALS`)."""
    if float(params["time"]) > 0:
        return params["leaf"] == "solve"
    if len(states) == 0:
        return True
    _, need, pool = public_deals.hidden_pool(R, states[0])
    return public_deals.deal_count(need, len(pool)) <= SOLVE_DEALS


def stage_value(R: np.ndarray, S: np.ndarray, params: dict[str, Any], agent: ResolveAgent) -> np.ndarray:
    """The value per side of the stage start ``S`` (public: its own hands are redrawn)."""
    memo = agent.memo["bound"]
    key = int(arrays.public_hash(R, S))
    if key in memo:
        return memo[key]
    leaf = params["leaf"]
    _, need, pool = public_deals.hidden_pool(R, S)
    small = float(params["time"]) <= 0 and public_deals.deal_count(need, len(pool)) <= min(
        int(params["deals"]), SOLVE_DEALS
    )
    value = None
    if leaf == "solve" or (leaf == "auto" and small):
        value = solved_stage_value(R, S, params, agent)
    if value is None and leaf in ("model", "auto") and agent.stage_model is not None:
        value = model_stage_value(R, S, agent.stage_model)
    if value is None:
        value = rollout_value(R, S)
    memo[key] = value
    return value


def shipped_stage_path(variant: str, players: int) -> Path:
    """Where the package keeps its stage-value model for a board (beside the other models, in
    their folder's ``stage`` subfolder: a different kind of input)."""
    return WEIGHTS_DIR / "stage" / f"{variant}-{players}p-{STAGE_KIND}.npz"


def stage_model_for(rules: Any, path: str, required: bool) -> Perceptron | None:
    """The stage-value model of ``path`` (empty: the package's for the board, if it ships one that
    fits), checked against the game; None when there is none and ``required`` is false."""
    source = path or str(shipped_stage_path(rules.variant, rules.players))
    if not path and not shipped_stage_path(rules.variant, rules.players).is_file():
        if required:
            raise ValueError(
                f"leaf=model: the package ships no stage-value model for {rules.variant} with {rules.players} players; give model="
            )
        return None
    mean, scale, layers, meta = read_model(source)
    if meta.get("kind") != STAGE_KIND:
        raise ValueError(f"{source} is not a stage-value model (its kind is {meta.get('kind')!r})")
    problem = fit_problem(meta, rules.variant, rules.players, rules.deck_size)
    if problem:
        raise ValueError(f"model {source} does not fit this game: {problem}")
    return compiled_arrays(mean, scale, layers)


def model_stage_value(R: np.ndarray, S: np.ndarray, model: Perceptron) -> np.ndarray:
    """Each side's value (raw points) of the stage start ``S`` under the stage-value ``model``,
    from its public features only (:func:`zwick_ai.agents.cfr.resolve_tree.side_values`)."""
    out = np.zeros(int(arrays.sides(R)))
    resolve_tree.side_values(R, S, model, np.zeros(int(feature_count(R))), out)
    return out


def rollout_value(R: np.ndarray, S: np.ndarray) -> np.ndarray:
    """Raw side returns after greedy play of ``S`` (its deal as it stands) to the hand's end."""
    T = S.copy()
    kernels.play_out(R, T, np.full(int(arrays.players(R)), POLICY_GREEDY, np.int64), kernels.new_workspace())
    return side_returns(R, T, False, np.zeros(int(arrays.sides(R))))


def solved_stage_value(R: np.ndarray, S: np.ndarray, params: dict[str, Any], agent: ResolveAgent) -> np.ndarray | None:
    """The equilibrium value per side of the stage starting at ``S``: CFR+ on that stage over all
    its deals (uniform), its own ends valued recursively; None when it does not fit."""
    _, need, pool = public_deals.hidden_pool(R, S)
    if public_deals.deal_count(need, len(pool)) > int(params["deals"]):
        return None
    roots = public_deals.boundary_deals(R, S)
    sub = agent.scratch(R)
    try:
        if not sub.build(R, roots, resolve_tree.H0, 0, 0.0):
            return None
        resolve_tree.fill_bounds(sub.tree, sub.nodes, boundary_values(R, sub.bounds(), params, agent))
        iters = int(params["iters"]) or BOUNDARY_ITERS
        sub.solve(len(roots), stage_roots(len(roots), sub), NO_GADGET, {"time": 0, "iters": iters}, 0.0)
        strat = sub.strategy()
        prob = np.full(len(roots), 1.0 / len(roots))
        return np.array([prob @ sub.values(strat, s)[: len(roots)] for s in range(sub.t_val.shape[1])])
    finally:
        agent.level -= 1


def stage_roots(n: int, sub: Subgame) -> resolve_tree.RootWeights:
    """The root weights of ``n`` equally likely deals at a stage's start (no move made yet)."""
    return resolve_tree.RootWeights(np.full(n, 1.0 / n), np.ones((n, len(sub.side_of))), np.zeros(n, np.int64))


NO_GADGET = resolve_tree.Gadget(-1, np.zeros(0), np.zeros((0, 2)))


def stage_solution(
    R: np.ndarray, S0: np.ndarray, params: dict[str, Any], agent: ResolveAgent
) -> resolve_tree.ReplayPolicy | None:
    """The replay policy (:class:`~zwick_ai.agents.cfr.resolve_tree.ReplayPolicy`) of this
    search's solve of the whole stage starting at ``S0`` (all its deals, the stage's ends valued by
    ``params["leaf"]``, ``params["iters"]`` or :data:`BOUNDARY_ITERS` CFR+ iterations; the same at
    every decision of the stage), or None when the stage does not fit (``nodes``; under a time
    budget, the nodes the agent builds in one budget)."""
    memo = agent.memo["stage"]
    key = int(arrays.public_hash(R, S0))
    if key in memo:
        return memo[key]
    _, need, pool = public_deals.hidden_pool(R, S0)
    found = None
    if public_deals.deal_count(need, len(pool)) <= int(params["deals"]):
        roots = public_deals.boundary_deals(R, S0)
        sub = agent.scratch(R)
        try:
            seconds = float(params["time"])  # under a time budget: the nodes one budget builds
            cap = 0 if seconds <= 0 else max(len(roots) + 1, int(agent.node_rate * seconds))
            if sub.build(R, roots, resolve_tree.H0, 0, 0.0, cap):
                resolve_tree.fill_bounds(sub.tree, sub.nodes, boundary_values(R, sub.bounds(), params, agent))
                iters = int(params["iters"]) or BOUNDARY_ITERS
                # under a time budget the stage's solve gets one budget too (it stops at iters
                # or then): late in a classic 2p hand it took 0.64 s of a 0.1 s decision
                budget = {"time": float(params["time"]), "iters": iters}
                sub.solve(len(roots), stage_roots(len(roots), sub), NO_GADGET, budget, clock.now())
                found = resolve_tree.ReplayPolicy(
                    0.0, sub.keys.copy(), sub.rowof.copy(), sub.trows[: sub.rows].copy(), sub.strategy()
                )
        finally:
            agent.level -= 1
    memo[key] = found
    return found


def _greedy_policy(tau: float) -> resolve_tree.ReplayPolicy:
    return resolve_tree.ReplayPolicy(
        float(tau),
        np.zeros(2, np.int64),
        np.full(2, -1, np.int32),
        np.zeros((1, core.ROW_FIELDS), np.int64),
        np.zeros(1),
    )


def root_deals(
    d: Any, params: dict[str, Any], rng: np.random.Generator, W: np.ndarray
) -> tuple[np.ndarray, np.ndarray, bool]:
    """(deals as engine states, their prior weights, whether they were drawn) at the decision
    ``d`` (module docstring, step 1)."""
    R, G, a = d.rules_array, d.game_table, d.record
    _, need, pool = public_deals.hidden_pool(R, d.position)
    limit = int(params["deals"])
    if public_deals.deal_count(need, len(pool)) <= limit:
        worlds, _ = public_deals.consistent_worlds(G, a, public_deals.all_assignments(need, pool), W)
        return worlds, np.full(len(worlds), 1.0 / max(len(worlds), 1)), False
    seed = int(rng.integers(2**31))
    limit = int(params["draws"])
    if int(arrays.players(R)) == 2:
        return (*grouped_deals(d, pool, limit, seed, W), True)
    n_true = max(1, int(round(float(params["true_share"]) * limit)))
    mine, _ = public_deals.drawn_worlds(G, a, d.player, n_true, 1000, seed, W)
    rest, _ = public_deals.drawn_worlds(G, a, public_deals.PUBLIC, limit - n_true, 1000, seed + 1, W)
    worlds = np.concatenate([mine, rest]) if len(rest) else mine
    hand = arrays.hand_cards(d.position, d.player)
    in_true = np.array([np.array_equal(arrays.hand_cards(w, d.player), hand) for w in worlds])
    share = len(mine) / max(len(worlds), 1)
    p_true = public_deals.true_hand_prior(len(pool), len(hand))
    return worlds, public_deals.stratified_weights(in_true, share, max(p_true, 1e-300)), True


def grouped_deals(d: Any, pool: np.ndarray, limit: int, seed: int, W: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Drawn deals of a two-player decision in groups: ``limit // GROUP`` opponent hands drawn
    from the mover's view (each with the mover's true hand), and with each opponent hand
    ``GROUP - 1`` mover hands drawn uniformly from the cards it leaves, so every opponent
    information set at the root holds several mover hands. Weights: the uniform prior over the
    mover hands an opponent hand leaves, divided by how often each was proposed (the true hand
    once in ``GROUP``, every other hand ``(GROUP - 1) / GROUP`` over their count), groups equal."""
    G, a, mover = d.game_table, d.record, d.player
    opp = 1 - mover
    true = arrays.hand_cards(d.position, mover)
    k = int(true.shape[0])
    mine, _ = public_deals.drawn_worlds(G, a, mover, max(1, limit // GROUP), 1000, seed, W)
    rng = np.random.default_rng(seed)
    rows, weights = [], []
    for w in mine:
        theirs = arrays.hand_cards(w, opp)
        rest = np.setdiff1d(pool, theirs)
        n_hands = float(public_deals.deal_count(np.array([k]), len(rest)))
        for j in range(GROUP):
            hand = np.sort(true if j == 0 else rng.choice(rest, size=k, replace=False))
            same = np.array_equal(hand, true)
            stock = rng.permutation(np.setdiff1d(rest, hand))  # a stage end played out deals from it
            rows.append(np.concatenate([hand, theirs, stock] if mover == 0 else [theirs, hand, stock]))
            proposed = (1.0 if same else 0.0) / GROUP + (GROUP - 1) / GROUP / n_hands
            weights.append(1.0 / n_hands / proposed)
    worlds, keep = public_deals.consistent_worlds(G, a, np.array(rows, np.int64), W)
    prior = np.array(weights)[keep]
    return worlds, prior / prior.sum()


def decide(
    state: pyspiel.State, params: dict[str, Any], agent: ResolveAgent, rng: np.random.Generator
) -> tuple[np.ndarray, dict[str, Any]]:
    """(the strategy over the candidates of the mover's true hand, counters) of the re-solve at
    ``state`` (module docstring)."""
    t0 = clock.now()
    d = state.decision()
    R, G, a, mover = d.rules_array, d.game_table, d.record, d.player
    players = int(arrays.players(R))
    W = kernels.new_workspace()
    setup = resample_setup(G, a, public_deals.PUBLIC, W)
    moved = int(zwicker_history.ply_count(a)) > int(setup.t0)
    worlds, prior, drawn = root_deals(d, params, rng, W)
    belief = params["belief"]
    policy = None
    if belief == "solve":
        policy = stage_solution(R, setup.S0, params, agent) if moved else None
        if moved and policy is None:
            belief = "greedy"
    if policy is None:
        policy = _greedy_policy(float(params["infer"]))
    reach = np.ones((len(worlds), players))
    h_now = resolve_tree.H0
    if moved:
        h_now = resolve_tree.replay_worlds(R, a, setup.S0, worlds, setup.t0, resolve_tree.H0, policy, W, reach)
    if belief == "uniform":
        reach[:] = 1.0
    gadget_on = params["gadget"] == "on" and players == 2 and moved
    opp = 1 - mover if gadget_on else -1
    zero = (reach <= 0.0).sum(axis=1) - (reach[:, opp] <= 0.0 if gadget_on else 0)
    keep = (prior > 0) & (zero <= 1)
    hand = arrays.hand_cards(d.position, mover)
    true_w = [w for w in np.flatnonzero(keep) if np.array_equal(arrays.hand_cards(worlds[w], mover), hand)]
    if not true_w:  # the stated policy never makes the mover's moves with its hand: weigh by the prior alone
        reach[:] = 1.0
        keep = prior > 0
        belief = "prior (fallback)"
        if not any(np.array_equal(arrays.hand_cards(w, mover), hand) for w in worlds[keep]):
            # no drawn deal gives the mover its true hand (the rejection draws all failed): nothing
            # to solve for it, so it plays the blueprint, which needs no deal of the hidden cards
            return blueprint_strategy(d, float(params["infer"])), blueprint_stats(len(worlds), drawn, t0)
    worlds, prior, reach = worlds[keep], prior[keep], reach[keep]
    sub = agent.solver()
    bp_tau = float(params["infer"]) if gadget_on and belief != "solve" else 0.0
    while True:
        try:
            depth = build_subgame(sub, R, worlds, h_now, bp_tau, params, agent, t0)
            break
        except SubgameTooBig:
            if len(worlds) <= 1:
                raise
            worlds, prior, reach = thinned_deals(worlds, prior, reach, mover, hand, rng)
    resolve_tree.fill_bounds(sub.tree, sub.nodes, boundary_values(R, sub.bounds(), params, agent))
    group = np.zeros(len(worlds), np.int64)
    gadget = NO_GADGET
    if gadget_on:
        hands = [tuple(arrays.hand_cards(w, opp).tolist()) for w in worlds]
        index = {h: g for g, h in enumerate(dict.fromkeys(hands))}
        group = np.array([index[h] for h in hands], np.int64)
        earlier = _earlier_strategy(sub, policy) if belief == "solve" else sub.bp[: int(sub.tmeta[core.M_EDGES])]
        v = sub.values(earlier, int(sub.side_of[opp]))[: len(worlds)]
        cf = prior * reach[:, mover]
        alt = np.bincount(group, cf * v, len(index)) / np.maximum(np.bincount(group, cf, len(index)), 1e-300)
        gadget = resolve_tree.Gadget(opp, alt, np.zeros((len(index), 2)))
    iters = sub.solve(len(worlds), resolve_tree.RootWeights(prior, reach, group), gadget, params, t0)
    strat = sub.strategy()
    w = next(k for k in range(len(worlds)) if np.array_equal(arrays.hand_cards(worlds[k], mover), hand))
    off = int(sub.trows[int(sub.t_row[w]), core.R_OFF])
    buf, X = kernels.new_buffers()
    buf, X, n = kernels.gen_moves(R, worlds[w].copy(), buf, W, X)
    strategy = np.array([strat[off + arrays.find_move(buf[:n], row)] for row in d.candidates])
    strategy = strategy / strategy.sum()
    stats = {
        "deals": len(worlds), "drawn": drawn, "belief": belief, "gadget": gadget_on, "depth": depth,
        "nodes": sub.nodes, "infosets": sub.rows, "bounds": int(sub.out[resolve_tree.B_BOUNDS]),
        "iters": iters, "seconds": clock.now() - t0,
    }  # fmt: skip
    return strategy, stats


def blueprint_strategy(d: Any, tau: float) -> np.ndarray:
    """The greedy-softmax blueprint at the decision ``d``: each candidate's greedy value (points)
    at temperature ``tau`` (argmax when ``tau`` is 0), from the mover's own position only."""
    values = np.array([kernels.greedy_value(d.rules_array, d.position, row) for row in d.candidates], np.float64)
    if tau <= 0:
        best = values >= values.max() - 1e-9
        return best / best.sum()
    weights = np.exp((values - values.max()) / tau)
    return weights / weights.sum()


def blueprint_stats(deals: int, drawn: bool, t0: float) -> dict[str, Any]:
    """The counters of a decision played by :func:`blueprint_strategy` (nothing was solved)."""
    return {
        "deals": deals, "drawn": drawn, "belief": "blueprint (no deal with the true hand)", "gadget": False,
        "depth": 0, "nodes": 0, "infosets": 0, "bounds": 0, "iters": 0, "seconds": clock.now() - t0,
    }  # fmt: skip


class SubgameTooBig(ValueError):
    """One ply below the decision over every root deal fits neither the ``nodes`` cap nor the
    stage ends a subgame may reach (:data:`MAX_BOUNDS`)."""


def thinned_deals(
    worlds: np.ndarray, prior: np.ndarray, reach: np.ndarray, mover: int, hand: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Half of the root deals (rounded up) of each stratum, the deals that give the mover its true
    hand and the others, drawn at random, each kept deal's prior weight scaled by its stratum's
    size over the kept count: the weights stay unbiased, and at least one true-hand deal is kept.
    For a decision whose one ply over all deals does not fit the node cap."""
    true = np.array([np.array_equal(arrays.hand_cards(w, mover), hand) for w in worlds])
    keep = np.zeros(len(worlds), bool)
    weight = np.array(prior, np.float64)
    for stratum in (np.flatnonzero(true), np.flatnonzero(~true)):
        if len(stratum) == 0:
            continue
        kept = rng.choice(stratum, size=(len(stratum) + 1) // 2, replace=False)
        keep[kept] = True
        weight[kept] *= len(stratum) / len(kept)
    return worlds[keep], weight[keep] / weight[keep].sum(), reach[keep]


def build_subgame(
    sub: Subgame,
    R: np.ndarray,
    worlds: np.ndarray,
    h0: np.uint64,
    bp_tau: float,
    params: dict[str, Any],
    agent: ResolveAgent,
    t0: float,
) -> int:
    """Build the subgame to the stage's end when it fits, else as deep as fits (one ply at a time,
    within ``nodes`` and, under a time budget, the nodes the agent's build rate allows in
    :data:`BUILD_SHARE` of it); returns the depth built (0: the stage's end)."""
    seconds = float(params["time"])
    cap = sub.cap if seconds <= 0 else max(len(worlds) + 1, min(sub.cap, int(agent.node_rate * BUILD_SHARE * seconds)))
    limit = int(params["depth"])
    # Under a time budget the stage's end is reached by deepening (no leaf cut): a first try at
    # the whole stage that does not fit wastes the build's whole share.
    if limit == 0 and seconds <= 0 and sub.build(R, worlds, h0, 0, bp_tau, cap):
        return 0
    built, before = 0, len(worlds)
    for depth in range(1, (limit or resolve_tree.MAX_LEVELS) + 1):
        if built and seconds > 0 and params["deepen"] == "fit":
            # the next ply's nodes foreseen from this ply's growth: a build that cannot fit what
            # is left of the build's share is not tried (a failed try and the rebuild after it
            # took a whole budget, leaving CFR+ a handful of iterations)
            foreseen = sub.nodes * sub.nodes / max(before, 1)
            if foreseen > cap or foreseen / agent.node_rate > BUILD_SHARE * seconds - (clock.now() - t0):
                return built
        before = sub.nodes if built else len(worlds)
        tick = clock.now()
        if not sub.build(R, worlds, h0, depth, bp_tau, cap):
            break
        if sub.nodes >= 500:
            agent.node_rate += 0.3 * (sub.nodes / max(clock.now() - tick, 1e-9) - agent.node_rate)
        built = depth
        if sub.out[resolve_tree.B_CUT] == 0 or (seconds > 0 and clock.now() - t0 > BUILD_SHARE * seconds):
            return depth
    if built == 0:  # one ply is the least a decision needs: past the time's share if it must
        if not sub.build(R, worlds, h0, 1, bp_tau, sub.cap):
            raise SubgameTooBig(
                f"one ply of {len(worlds)} deals fits neither nodes={sub.cap} nor {MAX_BOUNDS} stage ends; give more nodes"
            )
        return 1
    sub.build(R, worlds, h0, built, bp_tau, cap)
    return built


def _earlier_strategy(sub: Subgame, policy: resolve_tree.ReplayPolicy) -> np.ndarray:
    """The stage solve's strategy (``policy`` of :func:`stage_solution`) on the rows of ``sub``."""
    keys, rowof, trows, strat = policy.keys, policy.rowof, policy.rows, policy.strat
    out = np.zeros(int(sub.tmeta[core.M_EDGES]))
    for r in range(sub.rows):
        off, n = int(sub.trows[r, core.R_OFF]), int(sub.trows[r, core.R_N])
        found = int(core.lookup(keys, rowof, sub.trows[r, core.R_KEY]))
        if found >= 0 and trows[found, core.R_N] == n:
            o = int(trows[found, core.R_OFF])
            out[off : off + n] = strat[o : o + n]
        else:
            out[off : off + n] = 1.0 / n
    return out


__all__ = [
    "BELIEFS",
    "LEAVES",
    "ResolveAgent",
    "Subgame",
    "SubgameTooBig",
    "check",
    "decide",
    "stage_value",
    "thinned_deals",
]
