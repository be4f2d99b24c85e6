"""Compiled depth-limited subgames of Zwicker and their CFR+ solver: the kernel of ``cfr-search``
(:mod:`zwick_ai.agents.cfr.search`).

**The subgame.** A decision of player ``p`` is re-solved over a set of worlds (whole deals
consistent with ``p``'s view, each with a probability: a chance node at the root). In each world
the game tree is grown from the real position to a depth limit: ``max_depth`` plies (whole moves
and questions) or the end of the current stage (a new deal), whichever comes first. A node is a
**leaf** when the hand is over (its true side rewards, :func:`zwick_ai.agents.zwicker_search.side_rewards`),
or when the limit is reached (the leaf evaluator: the afterstate network of every side's view,
:func:`zwick_ai.agents.expert_search.after_side_rewards`, or a greedy play-out to the end of the
hand). Every other node belongs to an information set of the seat to move.

**Information sets** are keyed by what the seat to move sees inside the subgame (:func:`view_key`):
its seat, its own hand, the public part of the position (the table units, the won piles, the hand
sizes, the turn, the phase, the question and its answer, the Zwicks), the public history since the
root (each move's mover and what it does, in card ids) and its legal moves (which a player
knows). The hidden cards (other hands, the stock order) enter no key, so no seat's strategy can
depend on a card it cannot see; the root is one information set of ``p`` in every world (its
actions are the real position's candidate rows; a world where they are not exactly the legal moves
is left out). With perfect recall by construction (the history is in the key).

**The tree** is stored flat: node ``i`` has its information set's row ``t_row[i]`` (-1 for a
leaf), its children ``t_first[i] .. t_first[i] + t_n[i] - 1`` (contiguous, all after ``i``) and,
for a leaf, its side rewards ``t_val[i]``. Rows live in the open-addressing table of
:mod:`zwick_ai.agents.cfr.core` (one action per legal move, in the move generator's order).

**CFR+** (Tammelin 2014) runs on the flat tree: alternating updates (seat 0, 1, ... in turn), per
seat one forward pass (reach probabilities, in node order) and one backward pass (values, regrets
and the linearly weighted average strategy, in reverse order), regrets floored at zero after each
pass. Every seat's utility is its side's reward, so with more than two sides (or partners) the
subgame is general-sum for the solver: CFR+ then is a heuristic without an equilibrium guarantee.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents import expert_search, zwicker_search
from zwick_ai.agents.cfr import core
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker.model_scores import after_values_memo, layer_memo
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY

LEAF_AFTER = 0  # the afterstate network from every side's view
LEAF_ROLLOUT = 1  # a greedy play-out to the end of the hand

MAX_LEVELS = 64  # plies below the root a subgame may reach
MAX_MOVES = 1024  # legal moves a node may have (a node with more is made a leaf)
ROOT_KEY = 1  # the key of the root information set (view keys are never 1 but by a 2**-63 chance)

# Build counters (``out``).
B_NODES = 0  # nodes of the tree
B_LEAVES = 1  # leaves
B_CUT = 2  # leaves made by the depth limit (0: the tree reaches the stage's end everywhere)
B_WORLDS = 3  # worlds in the tree
B_FULL = 4  # 1 when the node cap stopped the build (the tree is incomplete: do not use it)
B_DEPTH = 5  # deepest node (plies below the root)
B_SIZE = 6


# ------------------------------------------------------------------------------------------------
# Views: information-set keys
# ------------------------------------------------------------------------------------------------
@kernel
def move_hash(S, row, lo, hi, key):
    """64-bit hash of what move ``row`` does in ``S`` and who makes it (the ISMCTS node key of
    :func:`zwick_ai.agents.zwicker_search.move_key`, in card ids; ``lo``/``hi`` from
    :func:`~zwick_ai.agents.zwicker_search.unit_cards` of ``S``; ``key`` is scratch)."""
    zwicker_search.move_key(S, row, lo, hi, 0, key)
    h = np.uint64(0xA4093822299F31D0)
    for j in range(zwicker_search.NKW):
        h = arrays.mix_hash(h, key[j] & 0xFFFFFFFF)
        h = arrays.mix_hash(h, (key[j] >> 32) & 0xFFFFFFFF)
    return h


@kernel
def legal_hash(S, buf, n, lo, hi, key):
    """64-bit hash of the legal moves ``buf[:n]`` of ``S``, in order."""
    zwicker_search.unit_cards(S, lo, hi)
    h = np.uint64(0x082EFA98EC4E6C89) + np.uint64(n)
    for k in range(n):
        mh = move_hash(S, buf[k], lo, hi, key)
        h = arrays.mix_hash(h, mh & np.uint64(0xFFFFFFFF))
        h = arrays.mix_hash(h, mh >> np.uint64(32))
    return h


@kernel
def view_key(R, S, history, legal):
    """The information-set key (a positive int64, never 0) of the seat to move in ``S``: its seat,
    its own hand (:func:`~zwick_ai.zwicker.arrays.hand_hash`), the public position
    (:func:`~zwick_ai.zwicker.arrays.public_hash`), the public ``history`` hash since the
    root and the ``legal`` moves' hash. Nothing hidden from that seat enters it."""
    q = arrays.to_move(S)
    h = arrays.mix_hash(history, q + 1)
    ph = arrays.public_hash(R, S)
    h = arrays.mix_hash(h, ph & np.uint64(0xFFFFFFFF))
    h = arrays.mix_hash(h, ph >> np.uint64(32))
    hh = arrays.hand_hash(S, q)
    h = arrays.mix_hash(h, hh & np.uint64(0xFFFFFFFF))
    h = arrays.mix_hash(h, hh >> np.uint64(32))
    h = arrays.mix_hash(h, legal & np.uint64(0xFFFFFFFF))
    h = arrays.mix_hash(h, legal >> np.uint64(32))
    k = np.int64(h & np.uint64(0x7FFFFFFFFFFFFFFF))
    return k if k > ROOT_KEY else k + 2


@kernel
def history_step(history, mh):
    """The public history hash after a move of hash ``mh``."""
    h = arrays.mix_hash(history, mh & np.uint64(0xFFFFFFFF))
    return arrays.mix_hash(h, mh >> np.uint64(32))


# ------------------------------------------------------------------------------------------------
# Leaves
# ------------------------------------------------------------------------------------------------
class Leaf(NamedTuple):
    """How a leaf is valued (:func:`leaf_rewards`): the evaluator ``kind`` (``LEAF_AFTER`` or
    ``LEAF_ROLLOUT``), the after model and the decision's reward scale (``total``, ``win_loss``:
    :func:`zwick_ai.agents.zwicker_search.side_rewards`)."""

    kind: int
    model: tuple
    total: float
    win_loss: bool


@kernel
def leaf_rewards(R, P, row, S, leaf, memo, ctx, out):
    """``out[s]``: side ``s``'s reward at the leaf ``S`` (unchanged), reached by the move ``row``
    (a one-row array) from ``P``: the true one when the hand is over, else the leaf evaluator's
    (``leaf``, a :class:`Leaf`; the play-outs use the buffers of ``ctx``, a :class:`Context`).
    ``LEAF_AFTER``: the after model's value of that move for its mover's side
    (:func:`~zwick_ai.zwicker.model_scores.after_values_memo`, first layers carried in ``memo``
    from the last leaf; a question, which the model does not score: the model from every side's
    view of ``S``), the other sides sharing its opposite; ``LEAF_ROLLOUT``: a greedy play-out to
    the end of the hand."""
    m, total, win_loss, W = leaf.model, leaf.total, leaf.win_loss, ctx.W
    ns = arrays.sides(R)
    if arrays.is_over(S):
        r = zwicker_search.side_rewards(R, S, win_loss, total)
    elif leaf.kind == LEAF_AFTER and row[0, layout.M_KIND] != layout.KIND_ASK:
        v = after_values_memo(R, P, row, 1, m, W, memo)[0]
        side = arrays.side_of(R, arrays.to_move(P))
        r = np.empty(ns, np.float64)
        for k in range(ns):
            dk = v if k == side else -v / (ns - 1)
            r[k] = zwicker_search.scaled(dk, total)
    elif leaf.kind == LEAF_AFTER:
        r = expert_search.after_side_rewards(R, S, m, memo.x, total)
    else:
        T = S.copy()
        policies = np.full(arrays.players(R), POLICY_GREEDY, np.int64)
        kernels.play_out_to(R, T, policies, W, arrays.max_stages(R), ctx.buf, ctx.X2)
        r = zwicker_search.side_rewards(R, T, win_loss, total)
    for s in range(ns):
        out[s] = r[s]


# ------------------------------------------------------------------------------------------------
# Building the tree
# ------------------------------------------------------------------------------------------------
class Context(NamedTuple):
    """The per-ply stacks and buffers of :func:`build` (:func:`new_context`, made once per agent);
    row ``d`` of a stack is the node ``d`` plies below the root on the current path."""

    states: np.ndarray  # (levels, SS) int32: the positions
    bufs: np.ndarray  # (levels, MAX_MOVES, MOVE_WIDTH) int64: their legal moves
    cnt: np.ndarray  # (levels,) int64: how many legal moves
    pos: np.ndarray  # (levels,) int64: the next move to expand
    ids: np.ndarray  # (levels,) int64: the node's id in the flat tree
    hists: np.ndarray  # (levels,) uint64: the public history's hash
    W: np.ndarray  # the engine's workspace
    X: np.ndarray  # move-generation scratch
    buf: np.ndarray  # the play-outs' move buffer
    X2: np.ndarray  # the play-outs' scratch
    lo: np.ndarray  # (64,) int64: a position's table units (:func:`zwicker_search.unit_cards`)
    hi: np.ndarray  # (64,) int64
    key: np.ndarray  # (NKW,) int64: the move-key scratch


class SubgameTable(NamedTuple):
    """The subgame's information sets: the table arrays of :mod:`~zwick_ai.agents.cfr.core`
    (``keys``, ``rowof``: the hash index; ``rows``: per set key, player, edge offset and action
    count; ``acts``: per edge; ``meta``: [rows used, edges used]) and ``legal`` = 0..MAX_MOVES-1
    as int16 (a node's actions: its legal moves in the move generator's order)."""

    keys: np.ndarray
    rowof: np.ndarray
    rows: np.ndarray
    acts: np.ndarray
    meta: np.ndarray
    legal: np.ndarray


class Tree(NamedTuple):
    """The flat tree (module docstring): per node its information set's row (-1 for a leaf), its
    first child and number of children, and (a leaf) its side rewards."""

    row: np.ndarray  # int32
    first: np.ndarray  # int64
    n: np.ndarray  # int32
    val: np.ndarray  # (nodes, sides) float64


class Work(NamedTuple):
    """CFR+ scratch (:func:`cfr_plus`): the current strategy per edge; per node the own and the
    others' reach and the value."""

    cur: np.ndarray
    own: np.ndarray
    opp: np.ndarray
    v: np.ndarray


class Build(NamedTuple):
    """What one :func:`build` reads and fills: the rules array ``R``, the depth limit in plies, the
    leaf evaluator (:class:`Leaf`), the stacks (:class:`Context`), the information sets
    (:class:`SubgameTable`, empty on entry), the flat tree (:class:`Tree`) and the counters
    ``out`` (``B_*``)."""

    R: np.ndarray
    max_depth: int
    leaf: Leaf
    ctx: Context
    table: SubgameTable
    tree: Tree
    out: np.ndarray


class Roots(NamedTuple):
    """The worlds of a subgame: ``node[w]`` world ``w``'s root node (-1: left out of the tree) and
    ``prob[w]`` its chance probability."""

    node: np.ndarray
    prob: np.ndarray


class Cfr(NamedTuple):
    """What CFR+ reads and updates on a flat tree: the information-set table's ``rows`` (the first
    ``nrows`` in use; columns ``core.R_*``), per edge the ``regret`` and the weighted average
    strategy ``avg``, and the scratch ``work`` (:class:`Work`)."""

    rows: np.ndarray
    nrows: int
    regret: np.ndarray
    avg: np.ndarray
    work: Work


def new_context(max_moves: int = MAX_MOVES, key_width: int = zwicker_search.NKW) -> Context:
    """The per-ply stacks and buffers of :func:`build` (:class:`Context`): room for ``max_moves``
    legal moves a node and a key of ``key_width`` words (the re-solver's are smaller)."""
    levels = MAX_LEVELS + 1
    W = kernels.new_workspace()
    buf, X2 = kernels.new_buffers()
    return Context(
        states=np.zeros((levels, zwicker_history.SS), np.int32),
        bufs=np.zeros((levels, max_moves, layout.MOVE_WIDTH), np.int64),
        cnt=np.zeros(levels, np.int64),
        pos=np.zeros(levels, np.int64),
        ids=np.zeros(levels, np.int64),
        hists=np.zeros(levels, np.uint64),
        W=W,
        X=np.empty(1 << 14, np.int64),
        buf=buf,
        X2=X2,
        lo=np.zeros(64, np.int64),
        hi=np.zeros(64, np.int64),
        key=np.zeros(key_width, np.int64),
    )


@kernel
def _add_node(b, memo, P, row, S, d, hist, stage0, node):
    """Make ``node`` (at ``d`` plies below the root, position ``S`` reached from ``P`` by the
    one-row ``row``, history hash ``hist``) of the build ``b`` (a :class:`Build`) a leaf or an
    interior node whose children are allocated (returned True: descend into it)."""
    R, ctx, table, tree, out = b.R, b.ctx, b.table, b.tree, b.out
    bufs, W, X, legal = ctx.bufs, ctx.W, ctx.X, table.legal
    t_row, t_first, t_n, t_val = tree.row, tree.first, tree.n, tree.val
    trows = table.rows
    cut = d >= b.max_depth and not arrays.is_over(S)
    interior = not arrays.is_over(S) and not cut and arrays.stage(S) == stage0 and d < MAX_LEVELS
    n = 0
    r = -1
    if interior:
        n = kernels.gen_moves_ws(R, S, bufs[d], W, X)
        if n <= 0 or n > legal.shape[0]:
            interior = False  # more moves than a level holds (or none): a leaf
    if interior:
        if out[B_NODES] + n > t_row.shape[0]:
            out[B_FULL] = 1
            return False
        k = view_key(R, S, hist, legal_hash(S, bufs[d], n, ctx.lo, ctx.hi, ctx.key))
        r = core.lookup(table.keys, table.rowof, k)
        if r < 0:
            r = core.lookup_or_add(
                table.keys, table.rowof, trows, table.acts, table.meta, k, arrays.to_move(S), legal, n
            )
        elif trows[r, core.R_N] != n or trows[r, core.R_PLAYER] != arrays.to_move(S):
            interior = False  # a 64-bit key collision: keep the node out of every information set
    if not interior:
        t_row[node] = -1
        t_n[node] = 0
        leaf_rewards(R, P, row, S, b.leaf, memo, ctx, t_val[node])
        out[B_LEAVES] += 1
        if cut:
            out[B_CUT] += 1
        return False
    t_row[node] = r
    t_first[node] = out[B_NODES]
    t_n[node] = n
    out[B_NODES] += n
    ctx.cnt[d] = n
    ctx.pos[d] = 0
    ctx.ids[d] = node
    ctx.hists[d] = hist
    if d > out[B_DEPTH]:
        out[B_DEPTH] = d
    return True


@kernel
def build(b, worlds, rows, w_root):
    """Grow the subgame of the decision with candidate ``rows`` in each world (``worlds``: engine
    states, one per row) to ``b.max_depth`` plies or the end of the stage (module docstring) into
    the arrays of ``b`` (a :class:`Build`); the root is information set row 0 (key
    :data:`ROOT_KEY`). ``w_root[w]`` gets world ``w``'s root node, or -1 when its legal moves are
    not exactly ``rows``. The build stops (``b.out[B_FULL]`` = 1) when the nodes would exceed the
    tree's arrays."""
    R, ctx, table, tree, out = b.R, b.ctx, b.table, b.tree, b.out
    states, bufs, cnt, pos, ids, hists = ctx.states, ctx.bufs, ctx.cnt, ctx.pos, ctx.ids, ctx.hists
    W, X, lo, hi, key = ctx.W, ctx.X, ctx.lo, ctx.hi, ctx.key
    t_row, t_first, t_n = tree.row, tree.first, tree.n
    nr = rows.shape[0]
    for j in range(B_SIZE):
        out[j] = 0
    memo = layer_memo(b.leaf.model)
    core.lookup_or_add(
        table.keys,
        table.rowof,
        table.rows,
        table.acts,
        table.meta,
        ROOT_KEY,
        arrays.to_move(worlds[0]),
        table.legal,
        nr,
    )
    for w in range(worlds.shape[0]):
        w_root[w] = -1
        S = states[0]
        for j in range(S.shape[0]):
            S[j] = worlds[w, j]
        n = kernels.gen_moves_ws(R, S, bufs[0], W, X)
        if n != nr:
            continue
        same = True
        for k in range(nr):
            if arrays.find_move(bufs[0][:n], rows[k]) < 0:
                same = False
                break
        if not same:
            continue
        if out[B_NODES] + 1 + nr > t_row.shape[0]:
            out[B_FULL] = 1
            return
        root = out[B_NODES]
        w_root[w] = root
        out[B_WORLDS] += 1
        t_row[root] = 0
        t_first[root] = root + 1
        t_n[root] = nr
        out[B_NODES] += 1 + nr
        for k in range(nr):  # the root's actions are the candidate rows, in their order
            for j in range(layout.MOVE_WIDTH):
                bufs[0][k, j] = rows[k, j]
        cnt[0] = nr
        pos[0] = 0
        ids[0] = root
        hists[0] = np.uint64(0x3243F6A8885A308D)
        stage0 = arrays.stage(S)
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
            zwicker_search.unit_cards(parent, lo, hi)
            h = history_step(hists[d], move_hash(parent, bufs[d][k], lo, hi, key))
            kernels.apply_move(R, child, bufs[d][k], W)
            node = t_first[ids[d]] + k
            if _add_node(b, memo, parent, bufs[d][k : k + 1], child, d + 1, h, stage0, node):
                d += 1
            elif out[B_FULL]:
                return


# ------------------------------------------------------------------------------------------------
# CFR+
# ------------------------------------------------------------------------------------------------
@kernel
def cfr_plus_pass(tree, nnodes, cfr, i, si, t):
    """One CFR+ pass for seat ``i`` (side ``si``), the average strategy weighed by ``t``, over the
    first ``nnodes`` nodes of a flat tree (``tree.row``, ``first``, ``n``, ``val``; :class:`Tree`
    or :class:`zwick_ai.agents.cfr.resolve_tree.Tree`): the reaches from the roots' ``own`` and
    ``opp`` (the caller sets them) down to every node, ``si``'s values back up, ``i``'s regrets and
    average strategy in ``cfr`` (a :class:`Cfr`) updated and its regrets floored at zero. The one
    CFR+ pass of :func:`cfr_plus` and of the re-solver's ``resolve_tree.solve``."""
    t_row, t_first, t_n, t_val = tree.row, tree.first, tree.n, tree.val
    trows, nrows, regret, avg = cfr.rows, cfr.nrows, cfr.regret, cfr.avg
    cur, own, opp, v = cfr.work.cur, cfr.work.own, cfr.work.opp, cfr.work.v
    for node in range(nnodes):
        r = t_row[node]
        if r < 0:
            continue
        off = trows[r, core.R_OFF]
        f = t_first[node]
        if trows[r, core.R_PLAYER] == i:
            for a in range(t_n[node]):
                own[f + a] = own[node] * cur[off + a]
                opp[f + a] = opp[node]
        else:
            for a in range(t_n[node]):
                own[f + a] = own[node]
                opp[f + a] = opp[node] * cur[off + a]
    for node in range(nnodes - 1, -1, -1):
        r = t_row[node]
        if r < 0:
            v[node] = t_val[node, si]
            continue
        off = trows[r, core.R_OFF]
        f = t_first[node]
        n = t_n[node]
        s = 0.0
        for a in range(n):
            s += cur[off + a] * v[f + a]
        v[node] = s
        if trows[r, core.R_PLAYER] == i:
            for a in range(n):
                regret[off + a] += opp[node] * (v[f + a] - s)
                avg[off + a] += t * own[node] * cur[off + a]
    for r in range(nrows):
        if trows[r, core.R_PLAYER] == i:
            off = trows[r, core.R_OFF]
            for a in range(trows[r, core.R_N]):
                if regret[off + a] < 0.0:
                    regret[off + a] = 0.0


@kernel
def cfr_plus(tree, nnodes, roots, cfr, side_of, t0, iters):
    """``iters`` iterations of CFR+ on the first ``nnodes`` nodes of the flat tree (a :class:`Tree`;
    module docstring) over the worlds ``roots`` (:class:`Roots`), numbered ``t0 + 1 ..`` (the
    average strategy's weights); ``cfr`` (a :class:`Cfr`) holds the regrets and averages it
    updates; ``side_of[q]``: seat ``q``'s side."""
    trows, nrows, regret = cfr.rows, cfr.nrows, cfr.regret
    cur, own, opp = cfr.work.cur, cfr.work.own, cfr.work.opp
    w_root, w_prob = roots.node, roots.prob
    players = side_of.shape[0]
    for it in range(iters):
        t = float(t0 + it + 1)
        for i in range(players):
            for r in range(nrows):  # regrets are never negative in CFR+: all of them count
                off = trows[r, core.R_OFF]
                core.regret_matching(regret, off, trows[r, core.R_N], cur[off:])
            for w in range(w_root.shape[0]):
                if w_root[w] >= 0:
                    own[w_root[w]] = 1.0
                    opp[w_root[w]] = w_prob[w]
            cfr_plus_pass(tree, nnodes, cfr, i, side_of[i], t)


@kernel
def values_under(tree, nnodes, trows, strat, side, v):
    """``v[node]``: the value for ``side`` of every node when every seat plays ``strat`` (per edge
    of ``trows``' rows) below it (``tree``: a :class:`Tree` or a
    :class:`zwick_ai.agents.cfr.resolve_tree.Tree`)."""
    t_row, t_first, t_n, t_val = tree.row, tree.first, tree.n, tree.val
    for node in range(nnodes - 1, -1, -1):
        r = t_row[node]
        if r < 0:
            v[node] = t_val[node, side]
            continue
        off = trows[r, core.R_OFF]
        f = t_first[node]
        s = 0.0
        for a in range(t_n[node]):
            s += strat[off + a] * v[f + a]
        v[node] = s


@kernel
def average_values(tree, nnodes, cfr, side, roots, out):
    """``out[a]``: the value of root action ``a`` for ``side`` when every seat plays its average
    strategy (``cfr.avg`` normalized) below, averaged over the worlds ``roots`` (:class:`Roots`)
    by their probabilities. Uses the scratch's ``cur`` and ``v``."""
    t_first, t_n = tree.first, tree.n
    trows, nrows, avg = cfr.rows, cfr.nrows, cfr.avg
    cur, v = cfr.work.cur, cfr.work.v
    w_root, w_prob = roots.node, roots.prob
    for r in range(nrows):
        off = trows[r, core.R_OFF]
        core.normalised(avg, off, trows[r, core.R_N], cur[off:])
    values_under(tree, nnodes, trows, cur, side, v)
    total = 0.0
    for a in range(out.shape[0]):
        out[a] = 0.0
    for w in range(w_root.shape[0]):
        root = w_root[w]
        if root < 0:
            continue
        total += w_prob[w]
        for a in range(t_n[root]):
            out[a] += w_prob[w] * v[t_first[root] + a]
    if total > 0.0:
        for a in range(out.shape[0]):
            out[a] /= total


__all__ = [
    "Build",
    "Cfr",
    "Context",
    "LEAF_AFTER",
    "LEAF_ROLLOUT",
    "Leaf",
    "MAX_LEVELS",
    "Roots",
    "SubgameTable",
    "Tree",
    "Work",
    "average_values",
    "values_under",
    "ROOT_KEY",
    "build",
    "cfr_plus",
    "leaf_rewards",
    "legal_hash",
    "move_hash",
    "new_context",
    "view_key",
]
