"""Compiled search of the ``expert`` Zwicker agent (:mod:`zwick_ai.agents.expert`).

One decision runs one of two searches, both in compiled code (Python only checks the clock
between batches):

**Endgame: exact search of sampled worlds.** Once the stock is empty every unseen card is in a
known hand, so a sampled world is a perfect-information position with at most ``endgame`` cards
left in the hands. Each world is solved to the end of the hand by alpha-beta over whole moves
(:func:`solve`): the searching player's side maximizes its reward (the ``[-1, 1]`` side reward of
:func:`zwick_ai.agents.zwicker_search.side_rewards`), every other side minimizes it (team
minimax; with more than two sides the "paranoid" reduction), moves ordered by the greedy
heuristic's value, with a transposition table keyed by a 64-bit hash of the whole position
(:func:`~zwick_ai.zwicker.arrays.position_hash`: where every card is, the table's units, the turn, Zwicks, last capturer).
The value of a position does not depend on the world it came from, so the table is shared by all
worlds, root moves and decisions of an agent. Every root move gets its exact value in every world
(full window); the move with the highest weighted mean over the worlds is played (PIMC with exact
leaves). A node cap aborts a world whose search is too big; the decision then falls back to
ISMCTS.

**Before the endgame: ISMCTS** as in :mod:`zwick_ai.agents.zwicker_search` (the same tree, keys,
UCB with availability counts and exact determinization), with two switches: ``reuse`` runs that
many iterations on each drawn world (drawing a world costs about as much as an iteration), and
``leaf`` chooses the leaf evaluator (``rollout``: random play-out; ``value``: no play-out, the
learned value model of :mod:`zwick_ai.agents.value_model` evaluates the new leaf in the drawn
world, each side from its first seat's view, :func:`value_rewards`; ``stage``: a random play-out
to the end of the leaf's stage, :func:`zwick_ai.zwicker.kernels.play_out_to`, then the value model at the next
stage's start).

**Inference** (``infer`` = temperature ``tau`` > 0): a world's weight is the probability that the
other players made the moves they made in the current stage if each chose among his legal moves
in that world with probabilities ``softmax(value / tau)``, ``value`` the greedy value or the
learned move model's (the ``net`` agent's; :func:`opponent_values`, :func:`world_log_weight`); the
endgame's mean is weighted by it (self-normalized importance weights of the uniform prior over
consistent worlds, i.e. the posterior under that opponent model). Before the endgame the weights
act through the **world pool** (``pool`` = M > 0): M worlds are drawn once per decision
(:func:`draw_pool`) and each ISMCTS world is one of them drawn with probability proportional to
its weight (:func:`pool_pick`; sampling-importance-resampling, so the iterations see the
posterior's worlds; without ``infer`` the pool's uniform worlds, drawn once instead of every
iteration). Only the current stage matters:
earlier stages' hands are played out, and which cards the stock held is uniform given the cards
seen.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents import value_model, zwicker_search
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker import features as zwicker_features
from zwick_ai.zwicker import history as zwicker_history

LEAF_ROLLOUT = 0
LEAF_VALUE = 1  # the learned value model at the leaf, no play-out
LEAF_STAGE = 2  # a random play-out to the end of the leaf's stage, then the value model
LEAF_AFTER = 3  # the afterstate network from the view of the seat that moved into the leaf (mixable with a play-out)
LEAF_STAGE_AFTER = 4  # a random play-out to the end of the leaf's stage, then the afterstate network of every side

NO_BOUND = 1.0e9  # beyond any reward, clipped or not: the alpha-beta window's open ends
MAX_PLY = 96  # depth bound of the endgame search (whole moves and questions)
MAX_MOVES = 1024  # move rows per depth (a position with more gives its world up)
TT_BITS = 20  # transposition table entries: 2**TT_BITS (about 17 MB)

TT_EXACT = 1
TT_LOWER = 2  # value >= stored
TT_UPPER = 3  # value <= stored

# Endgame counters (``stats``).
ST_NODES = 0  # positions searched (all worlds so far)
ST_HITS = 1  # transposition-table hits that ended a node
ST_WORLDS = 2  # worlds solved
ST_ABORT = 3  # 1 when a world exceeded the node cap
ST_DRAWS = 4  # permutations drawn by the determinizer
ST_SIZE = 5


class SolverContext(NamedTuple):
    """The endgame solver's memory (:func:`new_context`): per-depth stacks (row ``d`` for the node
    at depth ``d``), workspaces and the transposition table, kept across worlds and decisions."""

    states: np.ndarray  # (levels, SS) int32: the engine state at each depth
    bufs: np.ndarray  # (levels, MAX_MOVES, MOVE_WIDTH) int64: each depth's legal moves
    orders: np.ndarray  # (levels, MAX_MOVES) int64: each depth's move indices, best first
    vals: np.ndarray  # (levels, MAX_MOVES) float64: the greedy values that order them
    workspace: np.ndarray  # the engine's scratch workspace
    scratch: np.ndarray  # the move generator's scratch (int64)
    tt_keys: np.ndarray  # uint64: the transposition table's position hashes
    tt_values: np.ndarray  # float64: their values
    tt_flags: np.ndarray  # int8: ``TT_EXACT``/``TT_LOWER``/``TT_UPPER``, 0 empty
    n: np.ndarray  # int64 per depth: moves generated
    i: np.ndarray  # int64 per depth: the next move to search
    alpha: np.ndarray  # float64 per depth: the window's lower bound
    beta: np.ndarray  # float64 per depth: its upper bound
    alpha0: np.ndarray  # float64 per depth: the window on entry (for the table's flag)
    beta0: np.ndarray  # float64 per depth
    best: np.ndarray  # float64 per depth: the best child value so far
    hash: np.ndarray  # uint64 per depth: the node's position hash


class SolveSettings(NamedTuple):
    """How :func:`solve` searches and scores."""

    node_cap: int  # positions searched before a world is given up (``ST_ABORT``)
    use_tt: bool  # read and write the transposition table
    win_loss: bool  # rewards are the game's win/loss returns (else scaled point differences)
    total: float  # the points for cards and most cards: the scale of the rewards


class Inference(NamedTuple):
    """The opponent model that weights worlds (:func:`world_log_weight`)."""

    tau: float  # the softmax temperature; 0: no inference (every weight 1)
    model: tuple  # the model's arrays (the empty model: greedy; :func:`opponent_values`)


class Leaf(NamedTuple):
    """The leaf evaluator of :func:`ismcts`."""

    kind: int  # ``LEAF_*``
    model: tuple  # the value or after model's arrays (the empty model for ``LEAF_ROLLOUT``)
    mix: float  # ``LEAF_AFTER``: the after model's share of the reward (the rest a play-out's)


class Pool(NamedTuple):
    """The world pool of :func:`ismcts` (:func:`draw_pool`); no rows: a fresh world per draw."""

    states: np.ndarray  # one world's engine state per row
    cum: np.ndarray  # the rows' cumulative normalized weights (:func:`pool_cumulative`)


# ------------------------------------------------------------------------------------------------
# Transposition table
# ------------------------------------------------------------------------------------------------
@kernel
def new_table(bits):
    """An empty transposition table of ``2**bits`` entries: (keys, values, flags)."""
    n = 1 << bits
    return np.zeros(n, np.uint64), np.zeros(n, np.float64), np.zeros(n, np.int8)


# ------------------------------------------------------------------------------------------------
# The endgame search
# ------------------------------------------------------------------------------------------------
@kernel
def _ordered(R, S, buf, n, order, vals):
    """Move indices of ``buf[:n]`` by the greedy value, best first (``order[:n]``)."""
    for k in range(n):
        order[k] = k
        vals[k] = kernels.greedy_value(R, S, buf[k])
    for i in range(1, n):  # insertion sort: n is small
        j = i
        while j > 0 and vals[order[j - 1]] < vals[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1


@kernel
def _probe(tt_keys, tt_vals, tt_flags, slot, h, alpha, beta):
    """(hit, value, alpha, beta): a stored value that decides the node, or the window narrowed."""
    if tt_flags[slot] != 0 and tt_keys[slot] == h:
        v = tt_vals[slot]
        f = tt_flags[slot]
        if f == TT_EXACT or (f == TT_LOWER and v >= beta) or (f == TT_UPPER and v <= alpha):
            return True, v, alpha, beta
        if f == TT_LOWER and v > alpha:
            alpha = v
        elif f == TT_UPPER and v < beta:
            beta = v
    return False, 0.0, alpha, beta


@kernel
def solve(R, S, side, alpha, beta, depth, ctx, stats, settings):
    """The exact value for ``side`` (its [-1, 1] reward at the end of the hand) of the
    perfect-information position ``S`` when ``side`` maximizes and every other side minimizes,
    by alpha-beta in the window (``alpha``, ``beta``) (fail-soft), searching below ``depth`` of
    the context's per-depth stacks (iterative: numba's cache cannot hold recursive functions).
    ``ctx`` (:class:`SolverContext`) holds the stacks, workspaces and the transposition table.
    Returns 0 and sets ``stats[ST_ABORT]`` once ``settings.node_cap`` positions were searched, or
    when a position has more moves or the line more plies than the stacks hold (nothing is stored
    then)."""
    node_cap, use_tt, win_loss, total = settings.node_cap, settings.use_tt, settings.win_loss, settings.total
    states, bufs, orders, vals, W, X = ctx.states, ctx.bufs, ctx.orders, ctx.vals, ctx.workspace, ctx.scratch
    tt_keys, tt_vals, tt_flags = ctx.tt_keys, ctx.tt_values, ctx.tt_flags
    st_n, st_i, st_a, st_b, st_a0, st_b0 = ctx.n, ctx.i, ctx.alpha, ctx.beta, ctx.alpha0, ctx.beta0
    st_best, st_h = ctx.best, ctx.hash
    depths = states.shape[0] - 1
    mask = np.uint64(tt_keys.shape[0] - 1)
    d0 = depth
    states[d0][:] = S
    st_a[d0] = alpha
    st_b[d0] = beta
    d = d0
    enter = True
    ret = 0.0
    while True:
        if enter:  # a new node at depth d: terminal, table hit, or generate its moves
            enter = False
            Sd = states[d]
            returning = False
            if arrays.is_over(Sd):
                ret = zwicker_search.side_rewards(R, Sd, win_loss, total)[side]
                returning = True
            else:
                stats[ST_NODES] += 1
                if stats[ST_NODES] > node_cap or d + 1 >= depths:
                    stats[ST_ABORT] = 1
                    return 0.0
                if use_tt:
                    h = arrays.mix_hash(arrays.position_hash(R, Sd), side + 7)  # values are for ``side``
                    st_h[d] = h
                    hit, v, a_, b_ = _probe(tt_keys, tt_vals, tt_flags, np.int64(h & mask), h, st_a[d], st_b[d])
                    if hit:
                        stats[ST_HITS] += 1
                        ret = v
                        returning = True
                    else:
                        st_a[d] = a_
                        st_b[d] = b_
                if not returning:
                    n = kernels.gen_moves_ws(R, Sd, bufs[d], W, X)
                    if n < 0:  # more moves than a stack level holds: give this world up
                        stats[ST_ABORT] = 1
                        return 0.0
                    if n == 0:
                        raise ValueError("no legal move in a running hand")
                    _ordered(R, Sd, bufs[d], n, orders[d], vals[d])
                    st_n[d] = n
                    st_i[d] = 0
                    st_a0[d] = st_a[d]
                    st_b0[d] = st_b[d]
                    st_best[d] = -NO_BOUND if arrays.side_of(R, arrays.to_move(Sd)) == side else NO_BOUND
            if returning:
                if d == d0:
                    return ret
                d -= 1
                _update(R, states[d], side, ret, d, st_a, st_b, st_best)
        # next child of node d, or its value
        if st_i[d] < st_n[d] and st_a[d] < st_b[d]:
            child = states[d + 1]
            child[:] = states[d]
            kernels.apply_move(R, child, bufs[d][orders[d][st_i[d]]], W)
            st_i[d] += 1
            st_a[d + 1] = st_a[d]
            st_b[d + 1] = st_b[d]
            d += 1
            enter = True
            continue
        ret = st_best[d]
        if use_tt:
            h = st_h[d]
            slot = np.int64(h & mask)
            tt_keys[slot] = h
            tt_vals[slot] = ret
            if ret <= st_a0[d]:
                tt_flags[slot] = TT_UPPER
            elif ret >= st_b0[d]:
                tt_flags[slot] = TT_LOWER
            else:
                tt_flags[slot] = TT_EXACT
        if d == d0:
            return ret
        d -= 1
        _update(R, states[d], side, ret, d, st_a, st_b, st_best)


@kernel
def _update(R, S, side, v, d, st_a, st_b, st_best):
    """A child's value ``v`` backed up into node ``d`` (position ``S``): best and window."""
    if arrays.side_of(R, arrays.to_move(S)) == side:
        if v > st_best[d]:
            st_best[d] = v
        if st_best[d] > st_a[d]:
            st_a[d] = st_best[d]
    else:
        if v < st_best[d]:
            st_best[d] = v
        if st_best[d] < st_b[d]:
            st_b[d] = st_best[d]


@kernel
def new_context(tt_bits):
    """A :class:`SolverContext` with a transposition table of ``2**tt_bits`` entries."""
    levels = MAX_PLY + 2
    states = np.zeros((levels, zwicker_history.SS), np.int32)
    bufs = np.zeros((levels, MAX_MOVES, layout.MOVE_WIDTH), np.int64)
    orders = np.zeros((levels, MAX_MOVES), np.int64)
    vals = np.zeros((levels, MAX_MOVES), np.float64)
    W = kernels.new_workspace()
    X = np.empty(1 << 14, np.int64)
    keys, values, flags = new_table(tt_bits)
    n = np.zeros(levels, np.int64)
    i = np.zeros(levels, np.int64)
    a = np.zeros(levels, np.float64)
    b = np.zeros(levels, np.float64)
    a0 = np.zeros(levels, np.float64)
    b0 = np.zeros(levels, np.float64)
    best = np.zeros(levels, np.float64)
    h = np.zeros(levels, np.uint64)
    return SolverContext(states, bufs, orders, vals, W, X, keys, values, flags, n, i, a, b, a0, b0, best, h)


@kernel
def root_values(R, S, rows, side, ctx, stats, settings, out):
    """``out[k]``: the exact value for ``side`` of playing ``rows[k]`` in the perfect-information
    position ``S`` (full window each). Returns False when the node cap was hit."""
    child = S.copy()
    W = ctx.workspace
    for k in range(rows.shape[0]):
        child[:] = S
        kernels.apply_move(R, child, rows[k], W)
        out[k] = solve(R, child, side, -NO_BOUND, NO_BOUND, 0, ctx, stats, settings)
        if stats[ST_ABORT]:
            return False
    return True


# ------------------------------------------------------------------------------------------------
# Inference: the opponent model's likelihood of a world
# ------------------------------------------------------------------------------------------------
@kernel
def stage_start_world(R, a, S0, Sw, p, t0):
    """The stage-start state of the world whose current state is ``Sw``: the public stage start
    ``S0`` with every other seat's hand replaced by its hand in ``Sw`` plus the cards it played
    since ply ``t0`` (the stock is not needed to replay a stage)."""
    S = S0.copy()
    for q in range(arrays.players(R)):
        if q == p:
            continue
        arrays.empty_hand(S, q)
        for i in range(arrays.hand_size(Sw, q)):
            kernels.hand_insert(S, q, arrays.hand_card(Sw, q, i))
        for t in range(t0, zwicker_history.ply_count(a)):
            e = zwicker_history.log_entry(a, t)
            if e[zwicker_history.L_SEAT] == q and e[zwicker_history.L_KIND] != layout.KIND_ASK:
                kernels.hand_insert(S, q, e[zwicker_history.L_CARD])
    return S


#: the inputs of a move model (a pair of candidates' features); an after model has a different count
MOVE_MODEL_INPUTS = 2 * zwicker_features.NFEAT


def opponent_model_kind(mm: tuple) -> str:
    """What :func:`opponent_values` makes of the model arrays ``mm``: ``greedy`` (the empty model),
    ``move`` or ``after``."""
    if mm[2].shape[1] <= 1:
        return "greedy"
    return "move" if mm[0].shape[0] == MOVE_MODEL_INPUTS else "after"


@kernel
def opponent_values(R, S, buf, n, mm, W, out):
    """The opponent model's score of each of the first ``n`` moves ``buf`` for the player to move
    in ``S`` (questions: -inf): the greedy value when ``mm`` is the empty model, else the learned
    move model's advantage (:func:`zwick_ai.agents.value_model.net_values`) when ``mm`` takes
    :data:`MOVE_MODEL_INPUTS` inputs, else the after model's value of each move
    (:func:`zwick_ai.agents.value_model.after_values`; :func:`opponent_model_kind`)."""
    if mm[2].shape[1] > 1:
        if mm[0].shape[0] == MOVE_MODEL_INPUTS:
            v = value_model.net_values(R, S, buf, n, mm, W)
        else:
            v = value_model.after_values(R, S, buf, n, mm, W)
        for k in range(n):
            out[k] = v[k]
        return
    for k in range(n):
        out[k] = -np.inf if buf[k, layout.M_KIND] == layout.KIND_ASK else kernels.greedy_value(R, S, buf[k])


@kernel
def world_log_weight(R, a, S0, Sw, p, t0, tau, W, mm):
    """Log-likelihood of the other players' moves of the current stage in world ``Sw`` when each
    picks move ``m`` with probability ``softmax(value(m) / tau)`` among his legal moves, ``value``
    the opponent model of :func:`opponent_values` (questions excluded: their answers are already
    constraints of the sampler)."""
    X = zwicker_history.extras(a)
    S = stage_start_world(R, a, S0, Sw, p, t0)
    row = np.zeros(layout.MOVE_WIDTH, np.int64)
    buf, XX = kernels.new_buffers()
    vals = np.empty(buf.shape[0], np.float64)
    logw = 0.0
    for t in range(t0, zwicker_history.ply_count(a)):
        zwicker_history.logged_row_into(X, t, row)
        q = arrays.to_move(S)
        if q != p and row[layout.M_KIND] != layout.KIND_ASK:
            buf, XX, n = kernels.gen_moves(R, S, buf, W, XX)
            if vals.shape[0] < n:
                vals = np.empty(buf.shape[0], np.float64)
            opponent_values(R, S, buf, n, mm, W, vals)
            top = -1.0e300
            for k in range(n):
                if vals[k] > -np.inf:
                    top = max(top, vals[k] / tau)
            z = 0.0
            mine = -1.0e300
            for k in range(n):
                if vals[k] == -np.inf:
                    continue
                v = vals[k] / tau
                z += np.exp(v - top)
                if arrays.same_move(buf[k], row):
                    mine = v
            logw += mine - top - np.log(z)
        kernels.apply_move(R, S, row, W)
    return logw


# ------------------------------------------------------------------------------------------------
# Endgame decision: PIMC with exact values
# ------------------------------------------------------------------------------------------------
@kernel
def in_endgame(R, S, max_cards):
    """True when the stock is empty and at most ``max_cards`` cards are left in the hands."""
    return max_cards > 0 and arrays.stock_left(S) <= 0 and arrays.cards_in_hands(R, S) <= max_cards


@kernel
def endgame_worlds(worlds, rows, nworlds, ctx, stats, settings, inference, logw, vals):
    """Draw ``nworlds`` worlds (the exact determinizer ``worlds``, a
    :class:`~zwick_ai.agents.zwicker_search.Worlds`) and solve each (:func:`root_values` under
    ``settings``): world ``w``'s root move values go to ``vals[done + w]``, its log weight under
    ``inference`` (0 without) to ``logw[done + w]`` where ``done = stats[ST_WORLDS]`` on entry.
    Stops early when the node cap is hit (that world is not counted)."""
    a, p, W = worlds.record, worlds.player, worlds.workspace
    R = worlds.game[: layout.RULES_SIZE]
    side = arrays.side_of(R, p)
    t0 = worlds.setup.t0
    S0 = worlds.setup.S0
    tau, mm = inference.tau, inference.model
    meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
    out = np.zeros(rows.shape[0], np.float64)
    for _ in range(nworlds):
        w = stats[ST_WORLDS]
        if w >= vals.shape[0]:
            return
        Sw = zwicker_search.next_world(worlds, meta)
        stats[ST_DRAWS] = stats[ST_DRAWS] + meta[zwicker_search.MT_DRAWS]
        meta[zwicker_search.MT_DRAWS] = 0
        if not root_values(R, Sw, rows, side, ctx, stats, settings, out):
            return
        vals[w, :] = out
        logw[w] = world_log_weight(R, a, S0, Sw, p, t0, tau, W, mm) if tau > 0 else 0.0
        stats[ST_WORLDS] = w + 1


# ------------------------------------------------------------------------------------------------
# ISMCTS with world reuse and a leaf-evaluator switch
# ------------------------------------------------------------------------------------------------
@kernel
def value_rewards(R, S, m, f, total):
    """Leaf rewards by the value model ``m``: each side's expected final point difference on the
    reward scale ``total`` (:func:`zwicker_search.scaled`, as :func:`zwicker_search.side_rewards`)."""
    ns = arrays.sides(R)
    vals = value_model.leaf_side_values(R, S, m, f, np.zeros(ns))
    for s in range(ns):
        vals[s] = zwicker_search.scaled(vals[s], total)
    return vals


@kernel
def after_rewards(R, S, q, m, x, total):
    """Leaf rewards by the *after* model ``m`` (``zwick train net``): the exact lead of seat
    ``q``'s side plus the model's points still to come, read as ``q``'s afterstate (``q`` moved into
    ``S``; the position before that move is taken as ``S`` itself), on the reward scale ``total``
    (:func:`zwicker_search.scaled`); the other sides share the opposite (the sides' differences add up to zero). Exact
    when the hand is over."""
    ns = arrays.sides(R)
    if arrays.is_over(S):
        return zwicker_search.side_rewards(R, S, False, total)
    v = value_model.seat_value(R, S, q, m, x)
    side = arrays.side_of(R, q)
    out = np.empty(ns, np.float64)
    for k in range(ns):
        d = v if k == side else -v / (ns - 1)
        out[k] = zwicker_search.scaled(d, total)
    return out


@kernel
def after_side_rewards(R, S, m, x, total):
    """Leaf rewards by the *after* model ``m`` read from every side's view (its first seat's,
    :func:`after_rewards`'s value), made zero-sum: side ``s`` gets ``v_s`` minus the mean of the
    sides' values, on the reward scale ``total``. Exact when the hand is over."""
    ns = arrays.sides(R)
    if arrays.is_over(S):
        return zwicker_search.side_rewards(R, S, False, total)
    v = value_model.leaf_side_values(R, S, m, x, np.zeros(ns, np.float64))
    mean = v.sum() / ns
    for s in range(ns):
        v[s] = zwicker_search.scaled(v[s] - mean, total)
    return v


@kernel
def root_prior(S, rows, values, visits, tree):
    """Prior knowledge at the root (Gelly and Silver 2007): each legal row ``rows[k]`` of the real
    state ``S`` with a finite ``values[k]`` (a reward in [-1, 1]) gets a root child that starts with
    ``visits`` virtual visits of that mean reward, so UCB tries the moves the prior likes first and
    the search's own results outweigh the prior as its visits grow. Returns the children added."""
    NKEY, NV, NA, NQ, H, meta = tree.keys, tree.visits, tree.avail, tree.reward, tree.slots, tree.counts
    lo = np.zeros(64, np.int64)
    hi = np.zeros(64, np.int64)
    key = np.zeros(zwicker_search.NKW, np.int64)
    zwicker_search.unit_cards(S, lo, hi)
    added = 0
    for k in range(rows.shape[0]):
        if not np.isfinite(values[k]) or meta[zwicker_search.MT_NODES] >= NV.shape[0]:
            continue
        zwicker_search.move_key(S, rows[k], lo, hi, 0, key)
        child, slot = zwicker_search.lookup(H, NKEY, key)
        if child >= 0:
            continue
        child = meta[zwicker_search.MT_NODES]
        meta[zwicker_search.MT_NODES] += 1
        for j in range(zwicker_search.NKW):
            NKEY[child, j] = key[j]
        NV[child] = visits
        NA[child] = visits
        NQ[child] = visits * values[k]
        H[slot] = child
        added += 1
    return added


@kernel
def draw_pool(worlds, meta, n, inference):
    """``n`` worlds of the exact determinizer ``worlds`` (their current engine states, one row
    each) and their log weights under ``inference`` (:func:`world_log_weight`; all 0 when its
    ``tau`` is 0): the pool the ISMCTS iterations draw their worlds from."""
    R = worlds.game[: layout.RULES_SIZE]
    det = worlds.setup
    tau, mm = inference.tau, inference.model
    states = np.empty((n, det.S0.shape[0]), det.S0.dtype)
    logw = np.zeros(n, np.float64)
    for i in range(n):
        Sw = zwicker_search.next_world(worlds, meta)
        for j in range(Sw.shape[0]):  # element copies: no numba shape-error code (zwick_ai.jit)
            states[i, j] = Sw[j]
        if tau > 0:
            logw[i] = world_log_weight(R, worlds.record, det.S0, Sw, worlds.player, det.t0, tau, worlds.workspace, mm)
    return states, logw


@kernel
def pool_cumulative(logw):
    """Cumulative normalized weights ``exp(logw)`` (for :func:`pool_pick`)."""
    top = logw.max()
    cum = np.empty(logw.shape[0], np.float64)
    acc = 0.0
    for i in range(logw.shape[0]):
        acc += np.exp(logw[i] - top)
        cum[i] = acc
    for i in range(logw.shape[0]):
        cum[i] /= acc
    return cum


@kernel
def pool_pick(cum):
    """A pool index drawn with the probabilities whose cumulative sums are ``cum``."""
    i = np.searchsorted(cum, np.random.random(), side="right")
    return min(i, cum.shape[0] - 1)


@kernel
def ismcts(worlds, iters, reuse, settings, tree, leaf, pool):
    """``iters`` ISMCTS iterations on ``tree`` (the descent and backup of :mod:`zwicker_search`,
    under its :class:`~zwick_ai.agents.zwicker_search.Settings`), each drawn world serving
    ``reuse`` consecutive iterations; ``leaf`` (:class:`Leaf`) picks the leaf evaluator (its
    ``model``: the value model's arrays for ``LEAF_VALUE``/``LEAF_STAGE``, the after model's for
    ``LEAF_STAGE_AFTER`` (:func:`after_side_rewards` at the next stage's start) and
    ``LEAF_AFTER``, whose reward is ``mix`` times the after model's (:func:`after_rewards`) plus
    ``1 - mix`` times a random play-out's). With a non-empty ``pool`` (:class:`Pool`) each world
    is a pool row drawn by its weights (sampling-importance-resampling of the opponent model's
    posterior) instead of a fresh draw of the determinizer ``worlds``. Every play-out plays
    ``settings.policy`` at every seat (:mod:`zwick_ai.zwicker.policy_codes`: ``POLICY_RANDOM`` or
    ``POLICY_GREEDY``)."""
    R = worlds.game[: layout.RULES_SIZE]
    p, W = worlds.player, worlds.workspace
    c, policy, win_loss, total = settings.c, settings.policy, settings.win_loss, settings.total
    kind, m, mix = leaf.kind, leaf.model, leaf.mix
    meta = tree.counts
    players = arrays.players(R)
    policies = np.full(players, policy, np.int64)
    buf, X = kernels.new_buffers()
    scratch = zwicker_search.new_scratch()
    path = scratch.path
    kid = np.empty(64, np.int64)
    world = worlds.setup.S0[:0]
    f = np.zeros(m[0].shape[0], np.float64)
    for it in range(iters):
        if it % reuse == 0 or world.shape[0] == 0:
            if pool.states.shape[0] > 0:
                world = pool.states[pool_pick(pool.cum)]
            else:
                world = zwicker_search.next_world(worlds, meta)
        S = world.copy()
        depth, buf, X, kid = zwicker_search.descend(R, S, tree, c, scratch, buf, X, W, kid)
        if kind == LEAF_AFTER and not arrays.is_over(S):
            q = tree.keys[path[depth], zwicker_search.NK_MOVER] if depth > 0 else p
            rew = after_rewards(R, S, q, m, f, total)
            if mix < 1.0:
                _, buf, X = kernels.play_out_to(R, S, policies, W, arrays.max_stages(R), buf, X)
                played = zwicker_search.side_rewards(R, S, win_loss, total)
                for s in range(rew.shape[0]):
                    rew[s] = mix * rew[s] + (1.0 - mix) * played[s]
            zwicker_search.backup(R, tree, path, depth, rew)
            continue
        if not arrays.is_over(S) and kind != LEAF_VALUE:  # the play-out reuses the search's buffers
            last = arrays.stage(S) if kind == LEAF_STAGE or kind == LEAF_STAGE_AFTER else arrays.max_stages(R)
            _, buf, X = kernels.play_out_to(R, S, policies, W, last, buf, X)
        if not arrays.is_over(S) and kind == LEAF_STAGE_AFTER:
            rew = after_side_rewards(R, S, m, f, total)
        elif not arrays.is_over(S):
            rew = value_rewards(R, S, m, f, total)
        else:
            rew = zwicker_search.side_rewards(R, S, win_loss, total)
        zwicker_search.backup(R, tree, path, depth, rew)


@kernel
def seed(s):
    np.random.seed(s)


__all__ = [
    "Inference",
    "Leaf",
    "Pool",
    "SolveSettings",
    "SolverContext",
    "LEAF_AFTER",
    "LEAF_STAGE_AFTER",
    "LEAF_ROLLOUT",
    "LEAF_STAGE",
    "LEAF_VALUE",
    "MOVE_MODEL_INPUTS",
    "endgame_worlds",
    "in_endgame",
    "draw_pool",
    "ismcts",
    "new_context",
    "pool_cumulative",
    "pool_pick",
    "after_rewards",
    "after_side_rewards",
    "root_prior",
    "root_values",
    "seed",
    "solve",
    "opponent_model_kind",
    "opponent_values",
    "world_log_weight",
]
