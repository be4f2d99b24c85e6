"""The ``expert`` Zwicker agent: ISMCTS before the endgame, exact search of sampled worlds in it.

The compiled search is :mod:`zwick_ai.agents.expert_search` (its docstring describes the
algorithms). Every component is a spec parameter so that its effect can be measured:

- ``endgame=N``: once the stock is empty and at most ``N`` cards are in the hands, solve each
  sampled world exactly (alpha-beta, team minimax) and play the best mean; ``0`` = ISMCTS to the end;
- ``tt=false``: the endgame search without its transposition table;
- ``infer=TAU``: weight the worlds by the likelihood of the other players' moves this stage
  under a softmax of the opponent model's values with temperature ``TAU`` (the endgame's worlds,
  and the ISMCTS pool's when ``pool`` is on); ``0`` = uniform worlds;
- ``opp=greedy|net|after``: that opponent model: the one-ply greedy values, the learned move
  model's (the old ``net`` agent's, distilled from ISMCTS play), or the afterstate network's
  values of the moves (``net:model=after``, ``zwick train net``; the package's model);
- ``reuse=K``: ISMCTS iterations per drawn world (1 = a fresh world every iteration);
- ``prune=K``: ISMCTS searches only the ``K`` root moves the learned move model (the ``net``
  agent's) ranks best, and every question; ``0`` = all root moves;
- ``pool=M``: ISMCTS draws ``M`` worlds once per decision and each iteration takes one of them
  (by the ``infer`` weights: sampling-importance-resampling); ``0`` = a fresh draw per iteration;
- ``leaf=auto|rollout|value|stage``: the ISMCTS leaf evaluator (``value``: the package's learned
  value model for the variant, ``zwick_ai/agents/weights``, instead of a random play-out;
  ``stage``: a random play-out to the end of the leaf's stage, then that model; ``auto``, the
  default: ``stage`` where the package has a value model for the game, else ``rollout``);
- ``leaf=after``: the afterstate network (``net:model=after``, ``zwick train net``) evaluates the
  ISMCTS leaf from the view of the seat that moved into it; ``mix=W`` (0..1, default 1) mixes it
  with a random play-out's result (``W`` the network's share); ``leaf=stage-after``: a random
  play-out to the end of the leaf's stage, then the afterstate network from every side's view;
- ``prior=N``: the afterstate network's values of the root moves seed each root child with ``N``
  virtual visits of that value (prior knowledge in UCT, Gelly and Silver 2007), so the search
  tries the moves the network likes first; ``0`` = off; ``reply=K`` takes those values one answer
  ahead in ``K`` drawn worlds, as ``net:reply=K`` does (games of two sides; its best few moves, the
  others keep the one-ply values);
- ``rollout=random|greedy``: the player at every seat of the ISMCTS play-outs (the ``rollout``,
  ``stage`` and ``stage-after`` leaves, and ``after``'s share ``1 - mix``);
- ``c``: the UCB constant;
- ``joker=RULE``: a joker rule of :mod:`zwick_ai.agents.joker_policies` (``hold``, ``early``,
  ``min_points=K``, ``build``, ``last_stage``) restricts its own choice: the search runs unchanged
  (it models every player, itself later included, unconstrained) and the agent plays the best
  of the moves the rule allows by the search's scores (the joker study's strong play).

The budget is ``time`` seconds of wall clock per decision (default 0.1) and/or ``iters`` ISMCTS
iterations (``worlds`` endgame worlds); the first limit reached stops the search, ``0`` is none.
Under a time budget the first endgame world may search only what the agent's running estimate of
positions per second allows in half the time left; past that the decision falls back to ISMCTS
for the rest, so a huge endgame cannot overrun the budget.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents import make_agent
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> make_agent("expert:time=0,iters=200,worlds=8", game).spec
'expert:time=0,iters=200,worlds=8'
>>> make_agent("expert:leaf=net", game)
Traceback (most recent call last):
...
ValueError: leaf='net' is not valid; valid: auto, rollout, value, stage, after, stage-after

The defaults (``pool=256,infer=0.25,leaf=auto``) are the configuration that beat ISMCTS at equal
time (``experiments/results/expert/README.md``, "The headline" and "The stage leaf against the
random play-out").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyspiel

from zwick_ai.agents import clock, expert_search, joker_policies, value_model, zwicker_search
from zwick_ai.agents.base import Agent, Param, check_search_iters, register
from zwick_ai.agents.net import check_two_sides, look_ahead, model_for
from zwick_ai.agents.search import UTILITY_PARAM, check_utility
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import policy_codes

LEAVES = ("auto", "rollout", "value", "stage", "after", "stage-after")
AFTER_LEAVES = ("after", "stage-after")  # the leaf evaluators that use the afterstate network
LEAF_CODES = {
    "rollout": expert_search.LEAF_ROLLOUT,
    "value": expert_search.LEAF_VALUE,
    "stage": expert_search.LEAF_STAGE,
    "after": expert_search.LEAF_AFTER,
    "stage-after": expert_search.LEAF_STAGE_AFTER,
}
MODEL_LEAVES = ("value", "stage")  # the leaf evaluators that use the value model
DEFAULT_POOL = 256  # ISMCTS worlds drawn once per decision
DEFAULT_INFER = 0.25  # softmax temperature of the opponent model's weights
OPPONENT_MODELS = ("greedy", "net", "after")  # the inference weights' model of the other players
MAX_WORLDS = 4096  # endgame worlds per decision under a time budget
FIRST_BATCH = 16  # ISMCTS iterations before the first clock check
MIN_FALLBACK_SECONDS = 0.005  # ISMCTS time after an endgame search gave up at the end of the budget
NODES_PER_WORLD = 400_000  # endgame positions one world may cost before the decision falls back
#: endgame positions searched per second: an agent's first guess of its running estimate (about
#: 250,000 measured on this machine at load 3), by which a time budget caps each batch of worlds
START_NODE_RATE = 250_000.0
RATE_SMOOTHING = 0.2  # weight of the newest decision in the running estimate
RATE_MIN_NODES = 1000  # a first world this large measures the rate (smaller ones: mostly drawing)
FIRST_WORLD_SHARE = 0.5  # of the time left, what the first world may cost before ISMCTS takes over


def check(params: dict[str, Any]) -> None:
    """Raise ``ValueError`` (naming what is valid) for a bad ``expert`` parameter."""
    if params["leaf"] not in LEAVES:
        raise ValueError(f"leaf={params['leaf']!r} is not valid; valid: {', '.join(LEAVES)}")
    if params["rollout"] not in policy_codes.PLAYOUT_POLICIES:
        valid = ", ".join(policy_codes.PLAYOUT_POLICIES)
        raise ValueError(f"rollout={params['rollout']!r} is not valid; valid: {valid}")
    if params["opp"] not in OPPONENT_MODELS:
        raise ValueError(f"opp={params['opp']!r} is not valid; valid: {', '.join(OPPONENT_MODELS)}")
    if params.get("model") and params["leaf"] not in (*MODEL_LEAVES, "auto", *AFTER_LEAVES):
        raise ValueError("model= is the model of leaf=value, stage, after or stage-after; give one of them with it")
    if not 0.0 <= params["mix"] <= 1.0:
        raise ValueError(f"mix={params['mix']} is not valid; give the after network's share of the leaf value, 0..1")
    if params["prior"] < 0:
        raise ValueError(f"prior={params['prior']} is not valid; give 0 (off) or a number of virtual visits")
    if params["reply"] < 0 or (params["reply"] > 0 and params["prior"] == 0):
        raise ValueError(f"reply={params['reply']} is not valid; it is the look-ahead of prior=N: give both, or 0")
    if params["time"] < 0 or params["iters"] < 0 or params["worlds"] < 0:
        raise ValueError("time, iters and worlds must be >= 0")
    check_search_iters(params["iters"])
    if params["time"] == 0 and params["iters"] == 0:
        raise ValueError("give a time budget (time, seconds) or an iteration count (iters)")
    if params["prune"] < 0:
        raise ValueError(f"prune={params['prune']} is not valid; give 0 (off) or a number of root moves")
    if params["pool"] < 0:
        raise ValueError(f"pool={params['pool']} is not valid; give 0 (off) or a number of worlds")
    if params["reuse"] < 1:
        raise ValueError(f"reuse={params['reuse']} is not valid; give at least one iteration per world")
    joker_policies.constraint_code(params["joker"])
    check_utility(params)
    if params["c"] < 0 or params["infer"] < 0 or params["endgame"] < 0 or params["nodes"] < 1:
        raise ValueError("c, infer and endgame must be >= 0 and nodes >= 1")


@register(
    "expert",
    params=[
        Param("time", float, 0.1, "seconds per decision, wall clock (0 = none)"),
        Param("iters", int, 0, "ISMCTS iterations per decision (0 = none: only the time budget)"),
        Param("worlds", int, 0, "endgame worlds per decision (0 = as many as the time allows; 32 without time)"),
        Param(
            "endgame",
            int,
            12,
            "exact search of each world once the stock is empty and <= this many cards are in hands (0 = off)",
        ),
        Param("tt", bool, True, "transposition table in the endgame search"),
        Param("nodes", int, NODES_PER_WORLD, "endgame positions per world before falling back to ISMCTS"),
        Param(
            "infer",
            float,
            DEFAULT_INFER,
            "weight worlds by the others' moves, softmax temperature on the opponent model's values (0 = off)",
        ),
        Param(
            "opp",
            str,
            "greedy",
            "opponent model of infer: greedy (one-ply values), net (the learned move model) or after (the afterstate network)",
        ),
        Param("reuse", int, 1, "ISMCTS iterations per drawn world"),
        Param("prune", int, 0, "ISMCTS searches only the K root moves the move model ranks best (0 = all)"),
        Param("pool", int, DEFAULT_POOL, "ISMCTS worlds drawn once per decision, iterations pick among them (0 = off)"),
        Param("c", float, 0.7, "UCB exploration constant on rewards scaled to [-1, 1]"),
        UTILITY_PARAM,
        Param(
            "leaf",
            str,
            "auto",
            "ISMCTS leaf evaluator: rollout, value (a learned value model), stage (play-out to the stage's end, "
            "then value), after (the afterstate network, mixed with a play-out by mix), stage-after (play-out to "
            "the stage's end, then the afterstate network) or auto (stage where the package has a value model "
            "for the game, else rollout)",
        ),
        Param(
            "model",
            str,
            "",
            "value model .npz for leaf=value/stage (an after model for leaf=after); empty: the package's weights",
        ),
        Param("rollout", str, "random", "the ISMCTS play-outs' player at every seat: random or greedy"),
        Param("mix", float, 1.0, "leaf=after: the after network's share of the leaf value, the rest a random play-out"),
        Param("prior", int, 0, "virtual visits at the root from the after network's move values (0 = off)"),
        Param(
            "reply", int, 0, "prior=: look one answer ahead in this many drawn worlds, as net's reply= (0 = one ply)"
        ),
        Param(
            "joker",
            str,
            "",
            "joker rule on its own choice: hold, early, min_points=K, build, last_stage, each optionally @high, @rest or @X25 (those jokers only)",
        ),
    ],
    games=("zwicker",),
    summary="the strongest Zwicker search: ISMCTS, then exact alpha-beta on sampled endgame worlds; compiled.",
    check=check,
)
class ExpertAgent(Agent):
    """ISMCTS over whole moves before the endgame; in the endgame, PIMC whose worlds are solved
    exactly by alpha-beta with a transposition table (kept between decisions)."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params: Any):
        super().__init__(game, seed, **params)
        self._ctx: expert_search.SolverContext | None = None
        self.last: dict[str, Any] = {}  # counters of the last decision (for reports and tests)
        self.node_rate = START_NODE_RATE  # endgame positions per second, a running estimate
        self.leaf = resolved_leaf(game, params)
        leaf_model = model_for(game, params["model"], kind="value") if self.leaf in MODEL_LEAVES else None
        if self.leaf in AFTER_LEAVES:
            leaf_model = after_model(game, params)
        self.value = leaf_model.arrays() if leaf_model is not None else value_model.empty_model()
        prior_model = after_model(game, params) if params["prior"] > 0 else None
        self.prior = prior_model.arrays() if prior_model is not None else None
        if params["reply"]:
            check_two_sides(game)
        move_model = model_for(game, kind="move") if params["prune"] > 0 or params["opp"] == "net" else None
        self.move = move_model.arrays() if move_model is not None else None
        opp_model = model_for(game, kind=value_model.AFTER) if params["opp"] == "after" else None
        self.opp: tuple = _opponent_model(params, move_model, opp_model)
        self.model_digests = {
            kind: m.digest()
            for kind, m in (("value", leaf_model), ("move", move_model), ("prior", prior_model), ("opp", opp_model))
            if m is not None
        }

    def identity(self) -> dict[str, Any]:
        """The parameters, the leaf ``auto`` resolved to and the digests of the models it reads
        (``mix`` only where it acts: with the ``after`` leaf)."""
        ident = super().identity()
        params = dict(ident["params"])
        if self.leaf != "after":
            del params["mix"]
        return {**ident, "params": params, "leaf_resolved": self.leaf, "models": self.model_digests}

    def context(self) -> expert_search.SolverContext:
        """The endgame search's buffers and transposition table (made once per agent)."""
        if self._ctx is None:
            self._ctx = expert_search.new_context(expert_search.TT_BITS)
        return self._ctx

    def act(self, state: pyspiel.State) -> list[int]:
        return expert_decision(state, self.params, self.rng, self)


def expert_decision(
    state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator, agent: ExpertAgent | None = None
) -> list[int]:
    """The sub-actions of the whole move ``expert`` chooses (module docstring)."""
    t0 = clock.now()
    rows = state.decision().candidates
    if len(rows) == 1:
        return zwicker_bridge.move_actions(state, rows[0])
    allowed = _allowed(state, rows, params)
    rows, weight, mean, exact = expert_root(state, params, rng, agent, t0)
    return _pick(state, rows, root_score(weight, mean, exact), allowed)


def root_score(weight: np.ndarray, mean: np.ndarray, exact: bool) -> np.ndarray:
    """What the expert maximizes over :func:`expert_root`'s rows: the exact mean value in the
    endgame, else the ISMCTS visits (the mean reward breaks ties)."""
    return mean if exact else weight + 1e-6 * mean


def expert_root(
    state: pyspiel.State,
    params: dict[str, Any],
    rng: np.random.Generator,
    agent: ExpertAgent | None = None,
    started: float | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(candidate rows, weight of each, mean reward of each, exact) of the expert's search of
    ``state`` (rewards on the scale of :func:`zwick_ai.agents.zwicker_search.side_rewards`): in the
    endgame the weighted mean exact value over the solved worlds (``exact``; every weight the number
    of worlds), else ISMCTS's root visits and mean rewards. ``agent`` lends its models, its endgame
    table and its clock's rate estimate (and gets the decision's counters in ``agent.last``); the
    time budget counts from ``started`` (a ``clock.now()`` reading; default: now)."""
    t0 = clock.now() if started is None else started
    # also seeds the compiled random stream the expert search draws from
    d = zwicker_search.DecisionSetup(state, rng, params.get("utility", "auto"), "expert")
    seconds = float(params["time"])
    params = {**params, "leaf": agent.leaf if agent is not None else resolved_leaf(state, params)}
    stats: dict[str, Any] = {"mode": "ismcts", "leaf": params["leaf"]}
    opp = agent.opp if agent is not None else _opponent_arrays(state, params)
    if expert_search.in_endgame(d.rules_array, d.real, int(params["endgame"])):
        ctx = agent.context() if agent is not None else expert_search.new_context(expert_search.TT_BITS)
        rate = agent.node_rate if agent is not None else START_NODE_RATE
        score = _endgame(d, params, ctx, t0, seconds, stats, opp, rate)
        if agent is not None and stats.get("first_nodes", 0) >= RATE_MIN_NODES:
            seen = stats["first_nodes"] / max(stats["first_seconds"], 1e-9)
            agent.node_rate += RATE_SMOOTHING * (seen - agent.node_rate)
        if score is not None:
            if agent is not None:
                agent.last = stats
            return d.rows, np.full(len(d.rows), float(stats["worlds"])), score, True
    left = max(MIN_FALLBACK_SECONDS, seconds - (clock.now() - t0)) if seconds > 0 else 0.0
    value = agent.value if agent is not None else _value_arrays(state, params)
    move = agent.move if agent is not None else (model_for(state, kind="move").arrays() if params["prune"] else None)
    prior = agent.prior if agent is not None else (after_model(state, params).arrays() if params["prior"] else None)
    visits, mean = _ismcts(d, params, left, stats, value, _blocked(d, params, move), opp, prior)
    if agent is not None:
        agent.last = stats
    return d.rows, visits.astype(np.float64), mean, False


def _endgame(
    d: zwicker_search.DecisionSetup,
    params: dict[str, Any],
    ctx: expert_search.SolverContext,
    t0: float,
    seconds: float,
    stats: dict[str, Any],
    opp: tuple,
    rate: float = START_NODE_RATE,
) -> np.ndarray | None:
    """Weighted mean exact value of each legal row over sampled worlds, or None when the first
    world exceeded the node cap (the caller falls back to ISMCTS). Under a time budget the first
    world may search only as many positions as ``rate`` (positions per second) allows in
    :data:`FIRST_WORLD_SHARE` of the time left, so one huge world cannot eat the decision's budget
    (the later batches of worlds are sized by the worlds solved per second)."""
    cap = int(params["worlds"]) or (MAX_WORLDS if seconds > 0 else 32)
    vals = np.zeros((cap, len(d.rows)))
    logw = np.zeros(cap)
    st = np.zeros(expert_search.ST_SIZE, np.int64)
    inference = expert_search.Inference(float(params["infer"]), opp)
    batch = 1
    while int(st[expert_search.ST_WORLDS]) < cap:
        before = int(st[expert_search.ST_NODES])
        st[expert_search.ST_NODES] = 0  # the cap is per batch of worlds
        node_cap = int(params["nodes"]) * batch
        first = int(st[expert_search.ST_WORLDS]) == 0
        if seconds > 0 and first:  # one world must not eat the budget (later batches are sized by time)
            left = seconds - (clock.now() - t0)
            node_cap = min(node_cap, max(1, int(rate * left * FIRST_WORLD_SHARE)))
        tick = clock.now()
        settings = expert_search.SolveSettings(node_cap, bool(params["tt"]), d.win_loss, d.total)
        expert_search.endgame_worlds(d.worlds, d.rows, batch, ctx, st, settings, inference, logw, vals)
        if first:
            stats.update(first_nodes=int(st[expert_search.ST_NODES]), first_seconds=clock.now() - tick)
        st[expert_search.ST_NODES] += before
        if st[expert_search.ST_ABORT]:
            break
        spent = clock.now() - t0
        if seconds > 0 and spent >= seconds:
            break
        done = int(st[expert_search.ST_WORLDS])
        if seconds > 0:
            rate = done / max(spent, 1e-9)
            batch = int(max(1, min(256, rate * (seconds - spent) / 3)))
        else:
            batch = cap - done
    n = int(st[expert_search.ST_WORLDS])
    stats.update(
        mode="endgame", worlds=n, nodes=int(st[expert_search.ST_NODES]), tt_hits=int(st[expert_search.ST_HITS])
    )
    if n == 0:
        stats["mode"] = "endgame-fallback"
        return None
    w = np.exp(logw[:n] - logw[:n].max())
    return (w[:, None] * vals[:n]).sum(axis=0) / w.sum()


def resolved_leaf(game: pyspiel.Game | pyspiel.State, params: dict[str, Any]) -> str:
    """The leaf evaluator ``params["leaf"]`` names; ``auto``: ``stage`` when a value model is given
    or shipped for the game (its variant, player count and deck), else ``rollout``."""
    leaf = str(params["leaf"])
    if leaf != "auto":
        return leaf
    return "stage" if params.get("model") or value_model.shipped_fits(game.rules, "value") else "rollout"


def after_model(game: pyspiel.Game | pyspiel.State, params: dict[str, Any]) -> value_model.ValueModel:
    """The afterstate network of ``leaf=after`` and ``prior``: ``model=`` when ``leaf=after`` names
    one, else the package's after model for the variant (``zwick train net``)."""
    path = params.get("model", "") if params["leaf"] in AFTER_LEAVES else ""
    return model_for(game, path, kind=value_model.AFTER)


def _value_arrays(state: pyspiel.State, params: dict[str, Any]) -> tuple:
    """The value model's arrays for ``leaf=value`` or ``leaf=stage`` (empty arrays of the right types otherwise: numba needs one signature)."""
    if params["leaf"] in AFTER_LEAVES:
        return after_model(state, params).arrays()
    return (
        model_for(state, params.get("model", ""), kind="value").arrays()
        if params["leaf"] in MODEL_LEAVES
        else value_model.empty_model()
    )


def _opponent_arrays(state: pyspiel.State, params: dict[str, Any]) -> tuple:
    """The inference's opponent model (:func:`_opponent_model`) of a decision made without an agent."""
    move = model_for(state, kind="move") if params["opp"] == "net" else None
    after = model_for(state, kind=value_model.AFTER) if params["opp"] == "after" else None
    return _opponent_model(params, move, after)


def _opponent_model(
    params: dict[str, Any], move: value_model.ValueModel | None, after: value_model.ValueModel | None
) -> tuple:
    """The arrays of ``opp``: the move model's for ``net``, the after model's for ``after``, else
    the empty model (greedy); :func:`expert_search.opponent_values` tells them apart by their inputs."""
    chosen = {"net": move, "after": after}.get(params["opp"])
    if chosen is None:
        return value_model.empty_model()
    arrays = chosen.arrays()
    kind = expert_search.opponent_model_kind(arrays)
    if kind != {"net": "move", "after": "after"}[params["opp"]]:
        raise ValueError(f"opp={params['opp']}: the model's {arrays[0].shape[0]} inputs read as a {kind} model")
    return arrays


def _blocked(d: zwicker_search.DecisionSetup, params: dict[str, Any], move: tuple | None) -> np.ndarray:
    """The root rows ``prune`` keeps ISMCTS from: all but the ``K`` best by the move model
    (questions, which the model does not score, are never blocked)."""
    k = int(params["prune"])
    n = len(d.rows)
    if k == 0 or n <= k or move is None:
        return np.zeros(n, np.bool_)
    score = value_model.net_values(d.rules_array, d.real, d.rows, n, move, d.workspace)
    scored = np.isfinite(score)
    keep = np.argsort(-np.where(scored, score, -np.inf), kind="stable")[:k]
    blocked = scored.copy()
    blocked[keep] = False
    return blocked


def _ismcts(
    d: zwicker_search.DecisionSetup,
    params: dict[str, Any],
    seconds: float,
    stats: dict[str, Any],
    value: tuple,
    blocked: np.ndarray,
    opp: tuple,
    prior: tuple | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Root visits and mean rewards of the legal rows after ISMCTS under the budget (``blocked``
    root rows are kept out of the search: :func:`zwick_ai.agents.zwicker_search.block_root`;
    ``prior``: the after network's arrays, whose move values seed the root's children with
    ``params["prior"]`` virtual visits, :func:`zwick_ai.agents.expert_search.root_prior`)."""
    iters = int(params["iters"])
    cap = iters + 2 + len(d.rows) if iters > 0 else 1 << 18
    tree = zwicker_search.new_tree(cap)
    if blocked.any():
        zwicker_search.block_root(d.real, d.rows, blocked, tree)
    if prior is not None and int(params["prior"]) > 0:
        values = value_model.after_values(d.rules_array, d.real, d.rows, len(d.rows), prior, d.workspace)
        if int(params["reply"]) > 0:
            ahead = look_ahead(d, d.rows, values, int(params["reply"]), prior)
            values = np.where(np.isfinite(ahead), ahead, values)
        finite = np.isfinite(values)  # questions (-inf) get no prior
        rewards = np.where(finite, zwicker_search.scaled_array(np.where(finite, values, 0.0), d.total), -np.inf)
        expert_search.root_prior(d.real, d.rows, rewards, int(params["prior"]), tree)
    leaf = expert_search.Leaf(LEAF_CODES[params["leaf"]], value, float(params["mix"]))
    settings = d.settings(params)
    t0 = clock.now()
    meta = tree.counts
    pool = _pool(d, params, meta, stats, opp)
    batch = FIRST_BATCH if seconds > 0 else iters
    while True:
        done = int(meta[zwicker_search.MT_ITERS])
        left = iters - done if iters > 0 else batch
        if left <= 0:
            break
        expert_search.ismcts(d.worlds, min(batch, left), int(params["reuse"]), settings, tree, leaf, pool)
        if seconds <= 0:
            continue
        spent = clock.now() - t0
        if spent >= seconds or int(meta[zwicker_search.MT_NODES]) >= cap:
            break
        rate = meta[zwicker_search.MT_ITERS] / max(spent, 1e-9)
        batch = int(max(1, min(4096, rate * (seconds - spent) / 4)))
    stats["iters"] = int(meta[zwicker_search.MT_ITERS])
    visits, qsum = zwicker_search.root_stats(d.real, d.rows, tree)
    return visits, qsum / np.maximum(visits, 1)


def _pool(
    d: zwicker_search.DecisionSetup, params: dict[str, Any], meta: np.ndarray, stats: dict[str, Any], opp: tuple
) -> expert_search.Pool:
    """The ISMCTS world pool (no rows when ``pool`` is off; ``opp``: the opponent model's arrays,
    :func:`_opponent_arrays`)."""
    n = int(params["pool"])
    if n == 0:
        return expert_search.Pool(np.zeros((0, d.real.shape[0]), d.real.dtype), np.zeros(0))
    tick = clock.now()
    states, logw = expert_search.draw_pool(d.worlds, meta, n, expert_search.Inference(float(params["infer"]), opp))
    w = np.exp(logw - logw.max())
    stats.update(pool_ess=float(w.sum() ** 2 / (w * w).sum()), pool_seconds=clock.now() - tick)
    return expert_search.Pool(states, expert_search.pool_cumulative(logw))


def _allowed(state: pyspiel.State, rows: np.ndarray, params: dict[str, Any]) -> np.ndarray | None:
    """The rows the ``joker`` rule leaves the agent (None: no rule)."""
    policy, k = joker_policies.constraint_code(params["joker"])
    if policy == policy_codes.POLICY_GREEDY:
        return None
    decision = state.decision()
    return joker_policies.allowed_mask(decision.rules_array, decision.position, rows, policy, k, True)


def _pick(state: pyspiel.State, rows: np.ndarray, score: np.ndarray, allowed: np.ndarray | None = None) -> list[int]:
    """The sub-actions of the row with the highest score among the allowed ones (ties: the first)."""
    if allowed is not None:
        score = np.where(allowed, score, -np.inf)
    return zwicker_bridge.move_actions(state, rows[int(np.argmax(score))])


__all__ = [
    "LEAVES",
    "OPPONENT_MODELS",
    "resolved_leaf",
    "ExpertAgent",
    "check",
    "expert_decision",
    "expert_root",
    "root_score",
]
