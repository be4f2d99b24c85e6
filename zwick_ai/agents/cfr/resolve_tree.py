"""Compiled subgames of the re-solving search ``resolve`` (:mod:`zwick_ai.agents.cfr.resolve`):
the rest of a Zwicker stage over joint deals of every seat's hand, its CFR+ solver with a
re-solving gadget, and the replay that weighs a deal by the moves made so far.

**The tree.** Nodes ``0 .. roots - 1`` are the roots, one per deal (an engine state whose hands
are all drawn: the mover's too), each the first decision of the seat to move. Below each root the
game is grown to the end of the current stage, or to ``max_depth`` plies. A node is a **leaf**
when the hand is over (its side returns in raw points, :func:`~zwick_ai.zwicker.steps.side_returns`),
when the next stage has been dealt (a **boundary**: a public state once its hands are forgotten,
valued by the caller per public state, :data:`T_BOUND`), or at the depth limit (its value: greedy
play to the stage's end in that deal, then the boundary's). Boundaries are kept once per public
state (:func:`~zwick_ai.zwicker.arrays.public_hash`): ``bounds`` holds the first state met of each,
``t_leaf`` the boundary of each leaf (or -1 for a finished hand).

**Information sets** are the seats' views, keyed as in ``cfr-search``
(:func:`zwick_ai.agents.cfr.subgame.view_key`): seat, own hand, public position, public history
hash and legal moves. The history hash starts at the stage's start (:func:`stage_history`), so a
tree rooted mid-stage keys every information set as the tree of the whole stage does, and the
strategy of an earlier solve can be read at the same keys. No key holds a card its seat cannot
see, so two trees whose deals differ only in hidden cards share their information sets.

**CFR+** (:func:`solve`): alternating updates, regrets floored at zero, linearly weighted
averages. The roots are a chance node: deal ``w`` has the prior ``r_prior[w]`` and each seat's
reach ``r_reach[w, q]`` (the probability of its moves so far this stage in that deal); a seat's
counterfactual weight at a root is the prior times the other seats' reach. With the **gadget**
(two players; Burch, Johanson and Bowling 2014; Moravčík et al. 2017) the opponent's own reach
is replaced: at each of its root information sets (gadget group ``r_group[w]``) it first chooses
to enter or to take ``g_alt[g]``, its value there under an earlier strategy, so the resolved
strategy can leave no opponent information set better off than that strategy did.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents.cfr import core, subgame
from zwick_ai.agents.cfr.subgame import Context, SubgameTable, history_step, legal_hash, move_hash, view_key
from zwick_ai.agents.expert_search import stage_start_world
from zwick_ai.agents.zwicker_search import unit_cards
from zwick_ai.jit import kernel
from zwick_ai.mlp import mlp_forward
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY
from zwick_ai.zwicker.stage_features import feature_count, model_views, stage_features_seen_by
from zwick_ai.zwicker.steps import side_returns

MAX_LEVELS = 64  # plies below a root
MAX_MOVES = 256  # legal moves a node may have (a node with more is made a leaf)
H0 = np.uint64(0x3243F6A8885A308D)  # the public history hash at a stage's first move
T_OVER = -1  # t_leaf of a finished hand (and of interior nodes)

# Build counters (``out``).
B_NODES = 0  # nodes of the tree
B_LEAVES = 1  # leaves
B_CUT = 2  # leaves made by the depth limit
B_BOUNDS = 3  # distinct boundaries
B_FULL = 4  # 1 when the node cap (or the boundary cap) stopped the build: do not use the tree
B_DEPTH = 5  # deepest node (plies below a root)
B_SIZE = 6


class Tree(NamedTuple):
    """The flat tree (module docstring): per node its information set's row (-1 for a leaf), its
    first child and number of children, its side values (a leaf's) and the boundary it reaches
    (``T_OVER``: a finished hand, or an interior node)."""

    row: np.ndarray  # int32
    first: np.ndarray  # int64
    n: np.ndarray  # int32
    val: np.ndarray  # (nodes, sides) float64
    leaf: np.ndarray  # int64


class Bounds(NamedTuple):
    """The boundary memo (:func:`bound_index`): ``keys`` open addressing on the public hash (pairs
    of key and index; zeroed on entry), ``states`` the first state met of each boundary."""

    keys: np.ndarray
    states: np.ndarray


class Build(NamedTuple):
    """What one :func:`build` reads and fills: the rules array ``R``, the depth limit in plies, the
    stacks (:class:`~zwick_ai.agents.cfr.subgame.Context`, :func:`new_context`), the information
    sets (:class:`~zwick_ai.agents.cfr.subgame.SubgameTable`, empty on entry; ``legal`` = 0..L-1
    as int16), the flat tree (:class:`Tree`), the boundaries (:class:`Bounds`), the blueprint's
    temperature ``bp_tau`` and its per-edge strategy ``bp`` (filled for new sets when
    ``bp_tau > 0``) and the counters ``out`` (``B_*``)."""

    R: np.ndarray
    max_depth: int
    ctx: Context
    table: SubgameTable
    tree: Tree
    bounds: Bounds
    bp_tau: float
    bp: np.ndarray
    out: np.ndarray


class RootWeights(NamedTuple):
    """The roots as a chance node (module docstring): each deal's ``prior``, each seat's ``reach``
    (deals, seats) of its moves so far this stage in that deal, and its gadget ``group``."""

    prior: np.ndarray
    reach: np.ndarray
    group: np.ndarray


class Gadget(NamedTuple):
    """The re-solving gadget (module docstring): the ``opponent`` seat (-1: no gadget), each
    group's alternative value ``alt`` and the gadget's regrets ``regret`` (groups, [enter, take])."""

    opponent: int
    alt: np.ndarray
    regret: np.ndarray


class ReplayPolicy(NamedTuple):
    """The policy :func:`replay_stage` weighs logged moves by: the softmax of greedy values at
    temperature ``tau`` when ``tau > 0``, else the per-edge strategy ``strat`` of a table's rows
    (``keys``, ``rowof``: its hash index; ``rows``: its rows)."""

    tau: float
    keys: np.ndarray
    rowof: np.ndarray
    rows: np.ndarray
    strat: np.ndarray


def new_context() -> Context:
    """The per-ply stacks of :func:`build` (:class:`~zwick_ai.agents.cfr.subgame.Context`), sized
    for this module's nodes (at most :data:`MAX_MOVES` moves, 16-word keys)."""
    return subgame.new_context(MAX_MOVES, 16)


@kernel
def bound_index(R, S, bkeys, bstates, out):
    """The index of the boundary ``S`` in the memo (``bkeys``: open addressing on the public hash,
    ``bstates`` the first state of each), added when new; -1 when the memo is full."""
    h = np.int64(arrays.public_hash(R, S) & np.uint64(0x7FFFFFFFFFFFFFFF)) | 1
    mask = bkeys.shape[0] // 2 - 1
    i = np.int64(core.mix64(np.uint64(h)) & np.uint64(mask))
    while bkeys[2 * i] != 0:
        if bkeys[2 * i] == h:
            return bkeys[2 * i + 1]
        i = (i + 1) & mask
    b = out[B_BOUNDS]
    if b >= bstates.shape[0] or 2 * (b + 1) > mask + 1:
        return -1
    bkeys[2 * i] = h
    bkeys[2 * i + 1] = b
    for j in range(S.shape[0]):
        bstates[b, j] = S[j]
    out[B_BOUNDS] = b + 1
    return b


@kernel
def _leaf(b, S, stage0, cut, node):
    """Make ``node`` (position ``S``) of the build ``b`` (a :class:`Build`) a leaf: a finished
    hand's raw side returns, else the boundary reached (after greedy play to the stage's end when
    the depth limit cut it)."""
    R, out = b.R, b.out
    out[B_LEAVES] += 1
    T = S
    if cut:
        out[B_CUT] += 1
        T = S.copy()
        policies = np.full(arrays.players(R), POLICY_GREEDY, np.int64)
        kernels.play_out_to(R, T, policies, b.ctx.W, stage0, b.ctx.buf, b.ctx.X2)
    if arrays.is_over(T):
        side_returns(R, T, False, b.tree.val[node])
        b.tree.leaf[node] = T_OVER
        return True
    bound = bound_index(R, T, b.bounds.keys, b.bounds.states, out)
    b.tree.leaf[node] = bound
    return bound >= 0


@kernel
def _add_node(b, S, d, h, stage0, node):
    """Make ``node`` (position ``S``, ``d`` plies below its root, history hash ``h``) of the build
    ``b`` (a :class:`Build`) a leaf or an interior node whose children are allocated (returns
    True: descend into it). A new information set gets the blueprint (softmax of greedy values at
    temperature ``b.bp_tau``) in ``b.bp`` when ``b.bp_tau > 0``."""
    R, ctx, table, tree, out = b.R, b.ctx, b.table, b.tree, b.out
    bufs, W, X = ctx.bufs, ctx.W, ctx.X
    keys, rowof, trows, acts, tmeta, legal = table.keys, table.rowof, table.rows, table.acts, table.meta, table.legal
    t_row, t_first, t_n, t_leaf = tree.row, tree.first, tree.n, tree.leaf
    over = arrays.is_over(S)
    interior = not over and arrays.stage(S) == stage0 and d < b.max_depth and d < MAX_LEVELS
    n = 0
    if interior:
        n = kernels.gen_moves_ws(R, S, bufs[d], W, X)
        if n <= 0 or n > legal.shape[0]:
            interior = False
    if not interior:
        t_row[node] = -1
        t_n[node] = 0
        cut = not over and arrays.stage(S) == stage0
        if not _leaf(b, S, stage0, cut, node):
            out[B_FULL] = 1
        return False
    if out[B_NODES] + n > t_row.shape[0]:
        out[B_FULL] = 1
        return False
    k = view_key(R, S, h, legal_hash(S, bufs[d], n, ctx.lo, ctx.hi, ctx.key))
    r = core.lookup(keys, rowof, k)
    if r < 0:
        if tmeta[core.M_ROWS] >= trows.shape[0] or tmeta[core.M_EDGES] + n > acts.shape[0]:
            out[B_FULL] = 1
            return False
        r = core.lookup_or_add(keys, rowof, trows, acts, tmeta, k, arrays.to_move(S), legal, n)
        if b.bp_tau > 0.0:
            _blueprint(R, S, bufs[d], n, b.bp_tau, b.bp, trows[r, core.R_OFF])
    elif trows[r, core.R_N] != n or trows[r, core.R_PLAYER] != arrays.to_move(S):
        raise ValueError("information-set key collision in a resolve subgame")
    t_row[node] = r
    t_leaf[node] = T_OVER
    t_first[node] = out[B_NODES]
    t_n[node] = n
    out[B_NODES] += n
    ctx.cnt[d] = n
    ctx.pos[d] = 0
    ctx.ids[d] = node
    ctx.hists[d] = h
    if d > out[B_DEPTH]:
        out[B_DEPTH] = d
    return True


@kernel
def _blueprint(R, S, moves, n, tau, bp, off):
    """``bp[off:off + n]``: softmax of the moves' greedy values at temperature ``tau`` (questions
    never; all questions: uniform)."""
    top = -1.0e300
    for k in range(n):
        if moves[k, layout.M_KIND] != layout.KIND_ASK:
            top = max(top, kernels.greedy_value(R, S, moves[k]) / tau)
    z = 0.0
    for k in range(n):
        e = 0.0
        if moves[k, layout.M_KIND] != layout.KIND_ASK:
            e = np.exp(kernels.greedy_value(R, S, moves[k]) / tau - top)
        bp[off + k] = e
        z += e
    for k in range(n):
        bp[off + k] = bp[off + k] / z if z > 0.0 else 1.0 / n


@kernel
def build(b, roots, h0):
    """Grow the subgame of the deals ``roots`` (engine states; module docstring) from the public
    history hash ``h0`` into the arrays of ``b`` (a :class:`Build`): node ``w`` is deal ``w``'s
    root. Stops with ``b.out[B_FULL]`` = 1 when the arrays are too small."""
    ctx, out = b.ctx, b.out
    states, bufs, cnt, pos, ids, hist = ctx.states, ctx.bufs, ctx.cnt, ctx.pos, ctx.ids, ctx.hists
    W, lo, hi, key = ctx.W, ctx.lo, ctx.hi, ctx.key
    t_row, t_first = b.tree.row, b.tree.first
    for j in range(B_SIZE):
        out[j] = 0
    nr = roots.shape[0]
    if nr > t_row.shape[0]:
        out[B_FULL] = 1
        return
    out[B_NODES] = nr
    for w in range(nr):
        S = states[0]
        for j in range(S.shape[0]):
            S[j] = roots[w, j]
        stage0 = arrays.stage(S)
        if not _add_node(b, S, 0, h0, stage0, w):
            if out[B_FULL]:
                return
            continue
        d = 0
        while d >= 0:
            if pos[d] >= cnt[d]:
                d -= 1
                continue
            k = pos[d]
            pos[d] += 1
            parent = states[d]
            child = states[d + 1]
            for j in range(child.shape[0]):
                child[j] = parent[j]
            unit_cards(parent, lo, hi)
            h = history_step(hist[d], move_hash(parent, bufs[d][k], lo, hi, key))
            kernels.apply_move(b.R, child, bufs[d][k], W)
            node = t_first[ids[d]] + k
            if _add_node(b, child, d + 1, h, stage0, node):
                d += 1
            elif out[B_FULL]:
                return


@kernel
def fill_bounds(tree, nnodes, bvals):
    """Give every boundary leaf of ``tree`` (a :class:`Tree`) its boundary's side values ``bvals[b]``."""
    t_row, t_val, t_leaf = tree.row, tree.val, tree.leaf
    for node in range(nnodes):
        b = t_leaf[node]
        if t_row[node] < 0 and b >= 0:
            for s in range(bvals.shape[1]):
                t_val[node, s] = bvals[b, s]


# ------------------------------------------------------------------------------------------------
# Strategies, values and CFR+
# ------------------------------------------------------------------------------------------------
@kernel
def current_strategy(trows, nrows, regret, cur):
    """``cur``: regret matching on every row (CFR+ regrets are never negative)."""
    for r in range(nrows):
        core.regret_matching(regret, trows[r, core.R_OFF], trows[r, core.R_N], cur[trows[r, core.R_OFF] :])


@kernel
def average_strategy(trows, nrows, avg, out):
    """``out``: every row's average strategy (``avg`` normalised; uniform where it is zero)."""
    for r in range(nrows):
        core.normalised(avg, trows[r, core.R_OFF], trows[r, core.R_N], out[trows[r, core.R_OFF] :])


@kernel
def solve(tree, nnodes, nroots, roots_w, gadget, cfr, side_of, t0, iters):
    """``iters`` CFR+ iterations (numbered ``t0 + 1 ..``, the average's weights) on the first
    ``nnodes`` nodes of ``tree`` (a :class:`Tree`; module docstring), its first ``nroots`` the
    roots weighed by ``roots_w`` (:class:`RootWeights`: a traverser's counterfactual weight at a
    root is the prior times the other seats' reach), with the re-solving ``gadget``
    (:class:`Gadget`). ``cfr`` (a :class:`~zwick_ai.agents.cfr.subgame.Cfr`) holds the regrets and
    averages it updates; ``side_of[q]``: seat ``q``'s side."""
    r_prior, r_reach, r_group = roots_w.prior, roots_w.reach, roots_w.group
    gopp, g_alt, g_reg = gadget.opponent, gadget.alt, gadget.regret
    trows, nrows, regret = cfr.rows, cfr.nrows, cfr.regret
    cur, own, opp, v = cfr.work.cur, cfr.work.own, cfr.work.opp, cfr.work.v
    players = side_of.shape[0]
    ng = g_alt.shape[0]
    enter = np.zeros(ng)
    v_enter = np.zeros(ng)
    mass = np.zeros(ng)
    for it in range(iters):
        t = float(t0 + it + 1)
        for i in range(players):
            current_strategy(trows, nrows, regret, cur)
            for g in range(ng):
                tot = g_reg[g, 0] + g_reg[g, 1]
                enter[g] = g_reg[g, 0] / tot if tot > 0.0 else 0.5
            for w in range(nroots):
                own[w] = 1.0  # a seat's own past reach scales each of its sets alike: left out
                x = r_prior[w]
                for q in range(players):
                    if q != i and q != gopp:
                        x *= r_reach[w, q]
                if gopp >= 0:
                    if i == gopp:
                        own[w] = enter[r_group[w]]
                    else:
                        x *= enter[r_group[w]]
                opp[w] = x
            subgame.cfr_plus_pass(tree, nnodes, cfr, i, side_of[i], t)
            if i == gopp:
                for g in range(ng):
                    v_enter[g] = 0.0
                    mass[g] = 0.0
                for w in range(nroots):
                    v_enter[r_group[w]] += opp[w] * v[w]
                    mass[r_group[w]] += opp[w]
                for g in range(ng):
                    take = g_alt[g] * mass[g]
                    here = enter[g] * v_enter[g] + (1.0 - enter[g]) * take
                    g_reg[g, 0] = max(0.0, g_reg[g, 0] + v_enter[g] - here)
                    g_reg[g, 1] = max(0.0, g_reg[g, 1] + take - here)


@kernel
def replay_stage(R, a, S0w, t0, h0, policy, W, reach):
    """Replay plies ``t0 ..`` of the state array ``a`` from ``S0w`` (a deal's stage start):
    ``reach[q]`` gets the probability of seat ``q``'s logged moves under ``policy`` (a
    :class:`ReplayPolicy`): the softmax of greedy values at temperature ``tau`` when ``tau > 0``,
    else the strategy ``strat`` of the rows found at the moves' information-set keys (a key not
    found: probability 0). Returns the public history hash after the last ply."""
    tau, keys, rowof, trows, strat = policy.tau, policy.keys, policy.rowof, policy.rows, policy.strat
    X = zwicker_history.extras(a)
    S = S0w.copy()
    for q in range(reach.shape[0]):
        reach[q] = 1.0
    row = np.zeros(layout.MOVE_WIDTH, np.int64)
    buf, X2 = kernels.new_buffers()
    lo = np.zeros(64, np.int64)
    hi = np.zeros(64, np.int64)
    key = np.zeros(16, np.int64)
    probs = np.zeros(MAX_MOVES, np.float64)
    h = h0
    for t in range(t0, zwicker_history.ply_count(a)):
        zwicker_history.logged_row_into(X, t, row)
        q = arrays.to_move(S)
        buf, X2, n = kernels.gen_moves(R, S, buf, W, X2)
        k = arrays.find_move(buf[:n], row)
        if k < 0 or n > MAX_MOVES:
            reach[q] = 0.0
        elif tau > 0.0:
            _blueprint(R, S, buf, n, tau, probs, 0)
            reach[q] *= probs[k]
        else:
            r = core.lookup(keys, rowof, view_key(R, S, h, legal_hash(S, buf, n, lo, hi, key)))
            reach[q] *= strat[trows[r, core.R_OFF] + k] if r >= 0 and trows[r, core.R_N] == n else 0.0
        unit_cards(S, lo, hi)
        h = history_step(h, move_hash(S, row, lo, hi, key))
        kernels.apply_move(R, S, row, W)
    return h


@kernel
def replay_worlds(R, a, S0, worlds, t0, h0, policy, W, reach):
    """:func:`replay_stage` of every deal ``worlds[w]`` from its stage start (the public stage
    start ``S0`` with the deal's hands; :func:`~zwick_ai.agents.expert_search.stage_start_world`)
    into ``reach[w]``, in one call (no Python step a deal). Returns the public history hash after
    the last ply (the same in every deal: it reads public information only)."""
    h = h0
    for w in range(worlds.shape[0]):
        S0w = stage_start_world(R, a, S0, worlds[w], -1, t0)
        h = replay_stage(R, a, S0w, t0, h0, policy, W, reach[w])
    return h


@kernel
def rollout_values(R, states, out):
    """``out[b]``: the raw side returns of greedy play of ``states[b]`` (its deal as it stands) to
    the end of the hand."""
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    policies = np.full(arrays.players(R), POLICY_GREEDY, np.int64)
    for b in range(states.shape[0]):
        T = states[b].copy()
        plies, buf, X = kernels.play_out_to(R, T, policies, W, arrays.max_stages(R), buf, X)
        side_returns(R, T, False, out[b])


@kernel
def model_values(R, states, model, out):
    """``out[b]``: every side's value of the stage start ``states[b]`` under the stage-value
    perceptron ``model`` (:func:`side_values`; public features only)."""
    x = np.zeros(feature_count(R), np.float64)
    for b in range(states.shape[0]):
        side_values(R, states[b], model, x, out[b])


@kernel
def side_values(R, S, model, x, out):
    """``out[s]``: side ``s``'s value of the stage start ``S`` under the stage-value perceptron
    ``model`` of side 0's return (``x`` a scratch row of features), read from the sides of
    :func:`~zwick_ai.zwicker.stage_features.model_views`. Two sides: side 0's value and
    its opposite. More: the model read from every side's seat, centred so that the values sum to
    zero as the returns do (:func:`zwick_ai.zwicker.stage_features.stage_features_seen_by`)."""
    views = model_views(R)
    total = 0.0
    for s in range(views):
        stage_features_seen_by(R, S, s, x)
        out[s] = mlp_forward(x, model)
        total += out[s]
    if views == 1:
        out[1] = -out[0]
        return
    for s in range(views):
        out[s] -= total / views


__all__ = [
    "B_BOUNDS",
    "B_CUT",
    "B_DEPTH",
    "B_FULL",
    "B_LEAVES",
    "B_NODES",
    "B_SIZE",
    "Bounds",
    "Build",
    "Gadget",
    "H0",
    "MAX_LEVELS",
    "MAX_MOVES",
    "ReplayPolicy",
    "RootWeights",
    "T_OVER",
    "Tree",
    "average_strategy",
    "bound_index",
    "build",
    "current_strategy",
    "fill_bounds",
    "model_values",
    "side_values",
    "new_context",
    "rollout_values",
    "replay_stage",
    "replay_worlds",
    "solve",
]
