"""Monte Carlo CFR, compiled: external sampling and outcome sampling with tabular regrets and
average strategies in a :class:`~zwick_ai.agents.cfr.core.Table` (open-addressing hash map from
int64 information-set keys to rows).

Two backends, chosen by the game:

* **Trick games** (``zwikken``, ``zwicken``, any rule set and pack): the traversals run inside
  numba on the engine kernels of :mod:`zwick_ai.tricks.kernels` (``legal_mask``, ``apply``,
  ``chance_outcomes``) on the flat int32 state; a decision's information-set key is
  :func:`tricks_key`, a 64-bit hash of the events the player observed, which partitions states
  exactly like ``information_state_string`` (up to hash collisions; the tests check both directions),
  or the key of an information abstraction (:mod:`~zwick_ai.agents.cfr.abstraction`: lossless
  suit isomorphism ``suits`` or lossy ``buckets``), which also orders the actions of the set.
  Each set counts its visits (``R_VIS``), so play can fall back where the table is thin.
* **Every other game** (Zwicker micro variants, kuhn_poker, ...): the traversals run on the
  extracted tree of :mod:`zwick_ai.learn.cfr.tree` (node ids instead of states; no Python per
  node). Information sets are the tree's (optionally abstracted, see :mod:`~zwick_ai.learn.cfr.tree`),
  keyed by :func:`~zwick_ai.agents.cfr.keys.string_key` of their string. Only games whose tree fits
  in memory can be solved this way.

The updates follow OpenSpiel's Python ``external_sampling_mccfr`` (simple averaging: the average
strategy of the player after the traverser is accumulated at its sampled nodes) and
``outcome_sampling_mccfr`` (exploration 0.6 at the update player's nodes, no baseline). Randomness
comes from one splitmix64 stream (:func:`~zwick_ai.learn.cfr.updates.rand_u64`) whose state is
saved in checkpoints, so a resumed run equals an uninterrupted one.

>>> import pyspiel, zwick_ai.games
>>> s = MCCFRSolver(pyspiel.load_game("kuhn_poker"), "external", seed=1)
>>> s.run(2000)
>>> s.nash_conv() < 0.1
True
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import NamedTuple

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.abstraction import TRICK_ABSTRACTIONS, abstraction_id, decision
from zwick_ai.agents.cfr.core import (
    M_EDGES,
    M_ROWS,
    R_N,
    R_OFF,
    R_VIS,
    Table,
    TableArrays,
    lookup,
    lookup_or_add,
    normalised,
    regret_matching,
)
from zwick_ai.agents.cfr.keys import TRICK_GAMES, is_trick_game
from zwick_ai.agents.cfr.zwicker_abstraction import ZWICKER_ABSTRACTIONS, zwicker_abstraction_id
from zwick_ai.agents.tricks_greedy import greedy_action
from zwick_ai.backends import Backend
from zwick_ai.jit import kernel
from zwick_ai.learn.cfr.exact import nash_conv as tree_nash_conv
from zwick_ai.learn.cfr.merge import Snapshot, add_changes
from zwick_ai.learn.cfr.tree import NODE_CHANCE, NODE_TERMINAL, GameTree, extract
from zwick_ai.learn.cfr.updates import (
    AVERAGINGS,
    PATH_FIELDS,
    REACH_FIELDS,
    REACH_OTHERS,
    REACH_OWN,
    REACH_SAMPLING,
    Walk,
    Weighting,
    os_backward,
    os_step,
    rand_float,
    sample_index,
    seed_state,
    weights_at,
)
from zwick_ai.learn.cfr.zwicker_mccfr import ZWICKER_FIELDS, ZWICKER_SAMPLINGS, Training, run_zwicker
from zwick_ai.learn.cfr.zwicker_mccfr import buffers as zwicker_buffers
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_RANDOM_ACTION

SAMPLINGS = ("external", "outcome", "probe", "probe-unbiased")  # probe*: the full Zwicker games only (zwicker_mccfr)
FIELDS = ("self", "greedy")  # greedy: best-response training against a greedy field, NOT CFR (ZWICKER_FIELDS too)
_GREEDY_FIELD = FIELDS.index("greedy")
# auto: the trick engine for the trick games, the Zwicker engine for Zwicker with a Zwicker abstraction
# (:mod:`~zwick_ai.learn.cfr.zwicker_mccfr`), the tree otherwise
BACKENDS = ("auto", "engine", "tree", "zwicker")
_ES, _OS = 0, 1
# the workers' stream offsets: multiples of an odd constant unrelated to the stream's own step, so
# no two workers' streams meet within any feasible run
_WORKER_STRIDE = 0xD1B54A32D192ED03
DEFAULT_SYNC = 1000  # iterations each worker runs between two merges of the tables
_MAXA = trick_arrays.NUM_ACTIONS
_DEPTH = trick_arrays.MAXH + 2


def worker_streams(seed: int, workers: int) -> np.ndarray:
    """The random streams of ``workers`` workers (rows, each a one-element state): row 0 is
    :func:`~zwick_ai.learn.cfr.updates.seed_state` of ``seed``, the others start far apart from it."""
    first = int(seed_state(seed)[0])
    return np.array([[(first + w * _WORKER_STRIDE) % 2**64] for w in range(workers)], dtype=np.uint64)


# ---- trick-game traversals ---------------------------------------------------------------------------
class Buffers(NamedTuple):
    """A trick-game traversal's scratch (:func:`_buffers`): per depth ``d`` of the traversal, row ``d``."""

    mask: np.ndarray  # bool per action: a legal mask
    ids: np.ndarray  # a chance node's outcome ids
    probs: np.ndarray  # their probabilities
    legal: np.ndarray  # (depth, width) int64: each decision's legal actions
    pol: np.ndarray  # (depth, width) float64: each decision's strategy
    vals: np.ndarray  # (depth, width) float64: external sampling's action values; outcome sampling's sampling policy


class TrickWalk(NamedTuple):
    """What one worker's trick-game traversals share: the game's config ``cfg``, the abstraction
    ``abst``, the ``field`` (an index of ``FIELDS``), the ``table``
    (:class:`~zwick_ai.agents.cfr.core.TableArrays`), the random stream ``rng`` and the scratch
    ``bufs`` (:class:`Buffers`)."""

    cfg: np.ndarray
    abst: int
    field: int
    table: TableArrays
    rng: np.ndarray
    bufs: NamedTuple  # a Buffers


@kernel
def _chance_step(s, cfg, ids, probs, rng):
    k = tricks_kernels.chance_outcomes(s, cfg, ids, probs)
    tricks_kernels.apply_chance(s, cfg, ids[sample_index(probs, k, rng)])


@kernel
def _next_decision(s, t, who, legal_row):
    """Play chance (and, with the greedy field, the other players' greedy actions) in place up
    to the next decision of ``t.table`` (``t``: a :class:`TrickWalk`): returns (player, its row,
    its action count) with the legal actions in ``legal_row`` and the visit counted, or
    (-1, -1, 0) when the deal ends."""
    cfg, table, rng = t.cfg, t.table, t.rng
    mask, ids, probs = t.bufs.mask, t.bufs.ids, t.bufs.probs
    while True:
        if trick_arrays.is_over(s):
            return -1, -1, 0
        cur = trick_arrays.to_move(s)
        if trick_arrays.is_chance(s):
            _chance_step(s, cfg, ids, probs, rng)
            continue
        if t.field == _GREEDY_FIELD and cur != who:
            tricks_kernels.apply_action(s, cfg, greedy_action(s, cfg))
            continue
        key, n = decision(s, cfg, cur, t.abst, mask, legal_row)
        r = lookup_or_add(table.keys, table.rowof, table.rows, table.acts, table.meta, key, cur, legal_row, n)
        table.rows[r, R_VIS] += 1
        return cur, r, n


@kernel
def _tricks_advance(s, t, who, d, w):
    """External sampling between the traverser's decisions (``t``: a :class:`TrickWalk`): play
    chance and the other players' sampled actions (greedy actions with the greedy field) in place
    until the traverser moves (returns its row) or the deal ends (-1)."""
    cfg, rng = t.cfg, t.rng
    n_players = trick_arrays.players(cfg)
    rows, regret, avg = t.table.rows, t.table.regret, t.table.avg
    legal, pol = t.bufs.legal, t.bufs.pol
    while True:
        cur, r, n = _next_decision(s, t, who, legal[d])
        if cur < 0:
            return -1
        if cur == who:
            return r
        off = rows[r, R_OFF]
        regret_matching(regret, off, n, pol[d])
        j = sample_index(pol[d], n, rng)
        if cur == (who + 1) % n_players:
            for i in range(n):
                avg[off + i] += w[1] * pol[d, i]
        tricks_kernels.apply_action(s, cfg, legal[d, j])


@kernel
def _tricks_es(stack, t, who, w):
    """One external-sampling traversal (``t``: a :class:`TrickWalk`) for ``who`` from ``stack[0]`` (an explicit depth-first
    stack: frame ``f`` is a traverser decision whose state is ``stack[f]``; the state being played
    is ``stack[frames]``). Returns ``who``'s value. With the greedy field nobody else has a table
    strategy to average, so the traverser's own average is accumulated at its decisions, weighted
    by its own reach (``my[f]``: every action of a traverser decision is walked)."""
    cfg, field = t.cfg, t.field
    rows, regret, avg = t.table.rows, t.table.regret, t.table.avg
    legal, pol, vals = t.bufs.legal, t.bufs.pol, t.bufs.vals
    frames = 0
    nxt = np.zeros(stack.shape[0], np.int64)
    row = np.zeros(stack.shape[0], np.int64)
    my = np.ones(stack.shape[0] + 1)
    while True:
        s = stack[frames]
        r = _tricks_advance(s, t, who, frames, w)
        if r >= 0:  # a traverser decision: open a frame and play its first action
            f = frames
            row[f] = r
            regret_matching(regret, rows[r, R_OFF], rows[r, R_N], pol[f])
            if field == _GREEDY_FIELD:
                for i in range(rows[r, R_N]):
                    avg[rows[r, R_OFF] + i] += w[1] * my[f] * pol[f, i]
            nxt[f] = 0
            my[f + 1] = my[f] * pol[f, 0]
            stack[f + 1, :] = stack[f]
            tricks_kernels.apply_action(stack[f + 1], cfg, legal[f, 0])
            frames = f + 1
            continue
        v = float(trick_arrays.net(s, who))
        while True:
            if frames == 0:
                return v
            f = frames - 1
            n = rows[row[f], R_N]
            vals[f, nxt[f]] = v
            nxt[f] += 1
            if nxt[f] < n:
                my[f + 1] = my[f] * pol[f, nxt[f]]
                stack[f + 1, :] = stack[f]
                tricks_kernels.apply_action(stack[f + 1], cfg, legal[f, nxt[f]])
                break
            v = _add_regrets(regret, rows[row[f], R_OFF], n, pol[f], vals[f], w[0])
            frames = f


@kernel
def _add_regrets(regret, off, n, pol, vals, weight):
    """External sampling at a traverser's decision: add each action's regret against the
    policy's value (times the iteration's regret ``weight``) and return that value."""
    v = 0.0
    for i in range(n):
        v += pol[i] * vals[i]
    for i in range(n):
        regret[off + i] += weight * (vals[i] - v)
    return v


@kernel
def _tricks_os(s, t, who, walk, w):
    """One outcome-sampling episode (``t``: a :class:`TrickWalk`) for ``who`` from ``s`` (changed
    in place); chance probabilities cancel in the opponents' and the sampling reach, so they are
    left out of both (so do the greedy field's actions: probability 1 in both)."""
    cfg, table, rng = t.cfg, t.table, t.rng
    legal, reach = t.bufs.legal, walk.reach
    k = 0
    reach[0, REACH_OWN] = reach[0, REACH_OTHERS] = reach[0, REACH_SAMPLING] = 1.0
    while True:
        cur, r, n = _next_decision(s, t, who, legal[k])
        if cur < 0:
            break
        j = os_step(cur, who, k, table.rows[r, R_OFF], n, table.regret, walk, rng)
        tricks_kernels.apply_action(s, cfg, legal[k, j])
        k += 1
    return os_backward(k, float(trick_arrays.net(s, who)), who, walk, (table.regret, table.avg), w)


def _buffers(depth: int, width: int) -> Buffers:
    return Buffers(
        np.zeros(_MAXA, np.bool_),
        np.zeros(trick_arrays.NC, np.int32),
        np.zeros(trick_arrays.NC, np.float64),
        np.zeros((depth, width), np.int64),
        np.zeros((depth, width), np.float64),
        np.zeros((depth, width), np.float64),
    )


@kernel(nogil=True)  # parallel MCCFR runs one per worker thread
def _run_tricks(t, sampling, count, margin, weighting):
    """Up to ``count`` iterations (one traversal per player each) on ``t.table`` (``t``: a
    :class:`TrickWalk`), weighted by ``weighting``
    (:class:`~zwick_ai.learn.cfr.updates.Weighting`); stops early when the table has room for
    fewer than ``margin`` rows or ``4 * margin`` edges (the caller grows it). Returns the
    iterations done."""
    cfg, bufs = t.cfg, t.bufs
    n_players = trick_arrays.players(cfg)
    stack = np.empty((_DEPTH, trick_arrays.S_SIZE), np.int32)
    path = np.zeros((_DEPTH, PATH_FIELDS), np.int64)
    reach = np.zeros((_DEPTH + 1, REACH_FIELDS), np.float64)
    walk = Walk(bufs.pol, bufs.vals, path, reach)
    rows, acts, meta = t.table.rows, t.table.acts, t.table.meta
    for it in range(count):
        if rows.shape[0] - meta[M_ROWS] < margin or acts.shape[0] - meta[M_EDGES] < 4 * margin:
            return it
        w = weights_at(weighting, it)
        for who in range(n_players):
            stack[0, :] = tricks_kernels.new_state(cfg)
            if sampling == _ES:
                _tricks_es(stack, t, who, w)
            else:
                _tricks_os(stack[0], t, who, walk, w)
    return count


# ---- tree traversals (rows = the tree's information sets in order) ---------------------------------
@kernel
def _tree_advance(h, who, n_players, tr, table, rng, pol, w):
    """Tree external sampling between the traverser's decisions (see :func:`_tricks_advance`):
    returns the traverser's next node or the terminal node reached."""
    kind, player, iset, start, count, child = tr.kind, tr.player, tr.iset, tr.start, tr.num_children, tr.child
    prob, iset_off = tr.prob, tr.iset_off
    regret, avg = table
    while True:
        k = kind[h]
        if k == NODE_TERMINAL:
            return h
        s = start[h]
        if k == NODE_CHANCE:
            h = child[s + sample_index(prob[s:], count[h], rng)]
            continue
        if player[h] == who:
            return h
        n = count[h]
        off = iset_off[iset[h]]
        regret_matching(regret, off, n, pol)
        j = sample_index(pol, n, rng)
        if player[h] == (who + 1) % n_players:
            for i in range(n):
                avg[off + i] += w[1] * pol[i]
        h = child[s + j]


@kernel
def _tree_es(who, n_players, tr, table, rng, walk, node, w):
    """One external-sampling traversal of the tree for ``who`` (explicit stack as in
    :func:`_tricks_es`; ``node[f]`` is frame ``f``'s decision node)."""
    kind, iset, start, count, child = tr.kind, tr.iset, tr.start, tr.num_children, tr.child
    returns, iset_off = tr.returns, tr.iset_off
    regret, pol, vals = table[0], walk.pol, walk.sp
    frames = 0
    nxt = np.zeros(node.shape[0], np.int64)
    h = 0
    while True:
        h = _tree_advance(h, who, n_players, tr, table, rng, pol[frames], w)
        if kind[h] != NODE_TERMINAL:
            f = frames
            node[f] = h
            regret_matching(regret, iset_off[iset[h]], count[h], pol[f])
            nxt[f] = 0
            h = child[start[h]]
            frames = f + 1
            continue
        v = returns[h, who]
        while True:
            if frames == 0:
                return v
            f = frames - 1
            n = count[node[f]]
            vals[f, nxt[f]] = v
            nxt[f] += 1
            if nxt[f] < n:
                h = child[start[node[f]] + nxt[f]]
                break
            v = _add_regrets(regret, iset_off[iset[node[f]]], n, pol[f], vals[f], w[0])
            frames = f


@kernel
def _tree_os(who, tr, table, rng, walk, w):
    kind, player, iset, start, count, child = tr.kind, tr.player, tr.iset, tr.start, tr.num_children, tr.child
    prob, returns, iset_off = tr.prob, tr.returns, tr.iset_off
    reach = walk.reach
    h = 0
    k = 0
    reach[0, REACH_OWN] = reach[0, REACH_OTHERS] = reach[0, REACH_SAMPLING] = 1.0
    while kind[h] != NODE_TERMINAL:
        s = start[h]
        if kind[h] == NODE_CHANCE:
            h = child[s + sample_index(prob[s:], count[h], rng)]
            continue
        j = os_step(player[h], who, k, iset_off[iset[h]], count[h], table[0], walk, rng)
        h = child[s + j]
        k += 1
    return os_backward(k, returns[h, who], who, walk, table, w)


@kernel
def _run_tree(tr, n_players, sampling, count, table, rng, pol, vals, weighting):
    """``count`` iterations on the tree ``tr``; ``table`` = (regret, avg); weighted by ``weighting``."""
    depth = pol.shape[0]
    node = np.zeros(depth, np.int64)
    path = np.zeros((depth, PATH_FIELDS), np.int64)
    reach = np.zeros((depth + 1, REACH_FIELDS), np.float64)
    walk = Walk(pol, vals, path, reach)
    for it in range(count):
        w = weights_at(weighting, it)
        for who in range(n_players):
            if sampling == _ES:
                _tree_es(who, n_players, tr, table, rng, walk, node, w)
            else:
                _tree_os(who, tr, table, rng, walk, w)


# ---- playing the average strategy (compiled evaluation of trick-game policies) ---------------------
@kernel
def average_strategy(table, key, n, out):
    """``out[:n]`` = the average strategy of ``table`` at ``key``; uniform (and returns False) if unseen."""
    r = lookup(table.keys, table.rowof, key)
    if r < 0 or table.rows[r, R_N] != n:
        for i in range(n):
            out[i] = 1.0 / n
        return False
    normalised(table.avg, table.rows[r, R_OFF], n, out)
    return True


#: the compiled opponents of the trick games' evaluation (:meth:`MCCFRSolver.value_vs`), by name, with their codes
OPPONENTS = {"random": POLICY_RANDOM_ACTION, "greedy": POLICY_GREEDY}
FALLBACKS = ("uniform", "greedy")
_GREEDY_FALLBACK = FALLBACKS.index("greedy")


@kernel
def _policy_index(cfg, s, abst, table, min_visits, fallback, bufs, rng):
    """Index into ``bufs.legal[0]`` (the legal actions, written) of the action of ``table`` for the
    player to move at ``s`` (sampled from the average strategy), or of the fallback when the set
    is unseen or visited fewer than ``min_visits`` times; and whether the table was used."""
    cur = trick_arrays.to_move(s)
    legal, pol, rows = bufs.legal[0], bufs.pol[0], table.rows
    key, n = decision(s, cfg, cur, abst, bufs.mask, legal)
    r = lookup(table.keys, table.rowof, key)
    if r >= 0 and rows[r, R_N] == n and rows[r, R_VIS] >= min_visits:
        normalised(table.avg, rows[r, R_OFF], n, pol)
        return sample_index(pol, n, rng), True
    if fallback == _GREEDY_FALLBACK:
        g = greedy_action(s, cfg)
        for i in range(n):
            if legal[i] == g:
                return i, False
        # the abstraction plays g's group through another card: play g itself
        legal[0] = g
        return 0, False
    return min(int(rand_float(rng) * n), n - 1), False


@kernel
def _eval(cfg, abst, deals, opponent, min_visits, fallback, table, rng):
    """Mean net chips per deal of the table's average strategy at each seat in turn against
    uniformly random (``opponent`` is ``POLICY_RANDOM_ACTION``) or greedy (``POLICY_GREEDY``) opponents
    (``deals`` deals per seat), and the fraction of its decisions taken from the table (not the fallback)."""
    n_players = trick_arrays.players(cfg)
    bufs = Buffers(
        np.zeros(_MAXA, np.bool_),
        np.zeros(trick_arrays.NC, np.int32),
        np.zeros(trick_arrays.NC, np.float64),
        np.zeros((1, _MAXA), np.int64),
        np.zeros((1, _MAXA), np.float64),
        np.zeros((1, _MAXA), np.float64),
    )
    mask, ids, probs, legal = bufs.mask, bufs.ids, bufs.probs, bufs.legal[0]
    total = 0.0
    seen = 0
    asked = 0
    for seat in range(n_players):
        for _ in range(deals):
            s = tricks_kernels.new_state(cfg)
            while not trick_arrays.is_over(s):
                cur = trick_arrays.to_move(s)
                if trick_arrays.is_chance(s):
                    _chance_step(s, cfg, ids, probs, rng)
                    continue
                if cur == seat:
                    asked += 1
                    j, used = _policy_index(cfg, s, abst, table, min_visits, fallback, bufs, rng)
                    seen += used
                    tricks_kernels.apply_action(s, cfg, legal[j])
                elif opponent == POLICY_GREEDY:
                    tricks_kernels.apply_action(s, cfg, greedy_action(s, cfg))
                else:
                    key, n = decision(s, cfg, cur, 0, mask, legal)
                    tricks_kernels.apply_action(s, cfg, legal[min(int(rand_float(rng) * n), n - 1)])
            total += trick_arrays.net(s, seat)
    return total / (deals * n_players), seen / max(asked, 1)


# ---- solver -----------------------------------------------------------------------------------------
def tree_table(tree: GameTree) -> Table:
    """A table whose rows are the tree's information sets in order (row i = information set i)."""
    t = Table.empty(max(tree.num_infosets, 16), 1)
    t.reserve(tree.num_infosets, tree.num_edges)
    for i in range(tree.num_infosets):
        o, n = tree.iset_off[i], tree.iset_n[i]
        legal = tree.actions[o : o + n].astype(np.int16)
        lookup_or_add(
            t.keys, t.rowof, t.rows, t.acts, t.meta, int(tree.iset_key[i]), int(tree.iset_player[i]), legal, n
        )
    if not np.array_equal(t.rows[: tree.num_infosets, R_OFF], tree.iset_off):
        raise ValueError("information-set keys collide in this tree")
    return t


def table_policy(tree: GameTree, table: Table) -> np.ndarray:
    """Per edge of ``tree``, the table's average strategy (uniform at sets the table never saw)."""
    pol = np.empty(tree.num_edges)
    for i in range(tree.num_infosets):
        o, n = int(tree.iset_off[i]), int(tree.iset_n[i])
        average_strategy(table.compiled(), int(tree.iset_key[i]), n, pol[o:])
    return pol


def _check_zwicker(is_zwicker: bool, abstraction: str, sampling: str, game: pyspiel.Game) -> None:
    """Refuse what the Zwicker engine backend does not do, saying what it does."""
    if not is_zwicker:
        raise ValueError(f"the zwicker backend plays zwicker, not {game}")
    if abstraction not in ZWICKER_ABSTRACTIONS:
        raise ValueError(
            f"the full Zwicker games need an information abstraction: {', '.join(ZWICKER_ABSTRACTIONS)}, "
            f"not {abstraction!r}"
        )
    if sampling not in ZWICKER_SAMPLINGS:
        raise ValueError(
            f"on the full Zwicker games MCCFR samples {' or '.join(ZWICKER_SAMPLINGS)} (external sampling walks "
            f"every action of each of a player's 12-26 decisions per hand), not {sampling!r}"
        )
    if abstraction.startswith("stakes") and sampling == "outcome":
        raise ValueError(f"the {abstraction} abstraction trains with probe or probe-unbiased sampling, not outcome")


class MCCFRSolver:
    """External- or outcome-sampling MCCFR on ``game`` (backend by game: see the module docstring).

    ``backend="tree"`` forces the tree traversal on a (small) trick game too: with the same seed it
    computes exactly the same table as the engine backend (the tests check this), which
    cross-checks the compiled engine traversal. ``abstraction``: on the engine backend one of
    :data:`~zwick_ai.agents.cfr.abstraction.TRICK_ABSTRACTIONS` (``none``, lossless ``suits``,
    lossy ``buckets``); on the tree backend ``none`` or ``observation``.

    ``field="greedy"`` (trick games, and the full Zwicker games with an abstraction) is **not
    CFR**: the other seats (in Zwicker, the other sides' seats) play the fixed greedy heuristic
    (:func:`~zwick_ai.agents.tricks_greedy.greedy_action`;
    :func:`~zwick_ai.learn.cfr.zwicker_mccfr.greedy_move`) instead of their regret-matching
    strategies, so each traversal is a regret-minimising update of one seat against a greedy
    field: the average strategy approaches a best response to greedy opponents in the abstract
    game ("best-response training against a greedy field"), not an equilibrium.

    ``greedy_prior`` W > 0 (the full Zwicker games, probe sampling, one worker) warm-starts each
    new set towards greedy's abstract action: regret and average mass W there
    (:mod:`~zwick_ai.learn.cfr.zwicker_mccfr`); 0, the default, is plain regret matching."""

    def __init__(
        self,
        game: pyspiel.Game,
        sampling: str = "external",
        seed: int = 0,
        abstraction: str = "none",
        max_nodes: int = 2_000_000,
        backend: str = "auto",
        field: str = "self",
        workers: int = 1,
        sync: int = DEFAULT_SYNC,
        averaging: str = "uniform",
        greedy_prior: float = 0.0,
    ):
        if sampling not in SAMPLINGS:
            raise ValueError(f"unknown MCCFR sampling {sampling!r}; valid: {', '.join(SAMPLINGS)}")
        if averaging not in AVERAGINGS:
            raise ValueError(f"unknown MCCFR averaging {averaging!r}; valid: {', '.join(AVERAGINGS)}")
        if field not in FIELDS:
            raise ValueError(f"unknown MCCFR field {field!r}; valid: {', '.join(FIELDS)}")
        if backend not in BACKENDS:
            raise ValueError(f"unknown MCCFR backend {backend!r}; valid: {', '.join(BACKENDS)}")
        if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
            raise ValueError(f"workers must be a whole number >= 1, not {workers!r}")
        if isinstance(sync, bool) or not isinstance(sync, int) or sync < 1:
            raise ValueError(f"sync must be a whole number >= 1, not {sync!r}")
        if isinstance(greedy_prior, bool) or not isinstance(greedy_prior, (int, float)) or not 0 <= greedy_prior < 1e12:
            raise ValueError(f"greedy_prior must be a number from 0 up, not {greedy_prior!r}")
        self.greedy_prior = float(greedy_prior)
        self.game = game
        self.sampling = sampling
        self.seed = seed
        self.workers = workers
        self.sync = sync
        self.averaging = averaging
        # iteration numbers (the weights of :func:`~zwick_ai.learn.cfr.updates.iteration_weights`)
        # advance by this much per iteration of this solver (a cluster share's solver: the workers)
        self.stride = 1
        # one stream per worker (rows); worker 0's is the one-worker solver's stream
        self.rngs = worker_streams(seed, workers)
        self.rng = self.rngs[0]
        # where the workers' shares run: threads here (None) or a cluster's tasks (a
        # :class:`~zwick_ai.backends.Backend`, e.g. Ray); the tables are the same
        self.cluster: Backend | None = None
        self.iteration = 0
        if backend == "engine" and not is_trick_game(game):
            raise ValueError(
                f"the engine backend plays the trick games ({', '.join(TRICK_GAMES)}); use tree for {game}"
            )
        is_zwicker = game.get_type().short_name == "zwicker"
        if backend == "auto":
            backend = "engine" if is_trick_game(game) else "tree"
            if is_zwicker and abstraction in ZWICKER_ABSTRACTIONS:
                backend = "zwicker"
        if backend == "zwicker":
            _check_zwicker(is_zwicker, abstraction, sampling, game)
        if greedy_prior and (backend != "zwicker" or not sampling.startswith("probe") or workers > 1):
            raise ValueError(
                "greedy_prior is for probe sampling on the full Zwicker games with an abstraction, one worker"
            )
        if workers > 1 and backend == "tree":
            raise ValueError(
                f"workers > 1 needs a compiled engine traversal (trick games, or Zwicker with an abstraction), not {game}"
            )
        self.backend = backend
        self.tricks = self.backend == "engine"
        self.zwicker = self.backend == "zwicker"
        self.tree: GameTree | None = None
        if self.tricks and abstraction not in TRICK_ABSTRACTIONS:
            raise ValueError(
                f"unknown trick-game abstraction {abstraction!r} for the engine backend; "
                f"valid: {', '.join(TRICK_ABSTRACTIONS)} (observation needs backend=tree)"
            )
        if self.zwicker:
            self.abstraction = abstraction
            self.field = field
            self.cfg = game.rules.array()
            self._abst = zwicker_abstraction_id(abstraction)
            self.table = Table.empty(1 << 14)
            self._zbufs = zwicker_buffers()
            return
        if sampling.startswith("probe"):
            raise ValueError(
                f"{sampling} sampling is for the full Zwicker games (--abstraction {' or '.join(ZWICKER_ABSTRACTIONS)})"
            )
        if not self.tricks and abstraction in TRICK_ABSTRACTIONS[1:]:
            raise ValueError(f"the {abstraction} abstraction is for the trick games on the engine backend")
        self.abstraction = abstraction
        self._abst = abstraction_id(abstraction) if self.tricks else 0
        if field != "self" and not self.tricks:
            raise ValueError("the greedy field is for the trick games and the full Zwicker games with an abstraction")
        self.field = field
        if self.tricks:
            self.cfg = game.rules.cfg
            self.table = Table.empty(1 << 14)
            self._bufs = _buffers(_DEPTH, _MAXA)
        else:
            self.tree = extract(game, abstraction, max_nodes)
            self.table = tree_table(self.tree)
            depth = self.tree.num_nodes and int(_max_depth(self.tree.start, self.tree.count, self.tree.child)) + 2
            width = int(self.tree.count.max()) if self.tree.num_nodes else 1
            self._pol = np.zeros((depth, width))
            self._vals = np.zeros((depth, width))

    @property
    def key_scheme(self) -> str:
        """How the table's keys are computed from a state (recorded in policy files)."""
        if self.abstraction == "observation":
            return "observation_string"
        if self.zwicker:
            return f"zwicker_{self.abstraction}"
        if self.abstraction in ("suits", "buckets"):
            return f"tricks_{self.abstraction}"
        return "tricks_history" if is_trick_game(self.game) else "information_state_string"

    def warm_up(self) -> None:
        """Compile the traversal (one iteration on a throwaway table and stream), so that timed
        training excludes numba's first compile. The solver itself is unchanged."""
        if self.zwicker:
            t = Table.empty(1 << 12)
            sampling = ZWICKER_SAMPLINGS.index(self.sampling)
            how = self._weighting(1, 1)
            method = Training(sampling, ZWICKER_FIELDS.index(self.field), self.greedy_prior)
            run_zwicker(self.cfg, self._abst, method, 1, 0, t.compiled(), seed_state(0), zwicker_buffers(), how)
        if self.workers > 1:
            throwaway = MCCFRSolver(
                self.game,
                self.sampling,
                0,
                self.abstraction,
                field=self.field,
                workers=2,
                sync=1,
                averaging=self.averaging,
            )
            throwaway.run(throwaway.round)

    @property
    def round(self) -> int:
        """Iterations of one round of the workers (``workers * sync``; 1 with one worker)."""
        return self.workers * self.sync if self.workers > 1 else 1

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations (one traversal per player each). With several workers
        both the iterations done and ``iterations`` must be whole rounds (:attr:`round`)."""
        left = int(iterations)
        if self.workers > 1:
            self._run_rounds(left)
            return
        if self.zwicker or self.tricks:
            self._fill([self.table], [left], [self._zbufs if self.zwicker else self._bufs])
            self.iteration += left
            return
        t = self.table
        assert self.tree is not None, "a solver without trick kernels extracts its tree on creation"
        _run_tree(
            self.tree.solver_arrays(),
            self.tree.num_players,
            SAMPLINGS.index(self.sampling),
            left,
            (t.regret, t.avg),
            self.rng,
            self._pol,
            self._vals,
            self._weighting(self.iteration + 1, 1),
        )
        self.iteration += left

    def _weighting(self, first: int, stride: int) -> Weighting:
        """The updates' weighting of a call whose iterations are numbered first, first + stride, ..."""
        reach = 1 if self.sampling == "probe-unbiased" else 0
        return Weighting(int(first), int(stride), AVERAGINGS.index(self.averaging), reach)

    def _cluster_round(self) -> None:
        """One round with the workers' shares as tasks of ``self.cluster`` (a Ray cluster): the
        same tables as :meth:`_round` (each share carries its table and stream)."""
        assert self.cluster is not None
        start = Snapshot.of(self.table)
        table = self.table.arrays()
        game = str(self.game)
        shares = [
            Share(
                w,
                game,
                (self.sampling, self.averaging),
                self.abstraction,
                self.field,
                table,
                int(self.rngs[w, 0]),
                ShareIterations(self.sync, self.iteration + w, self.workers),
            )
            for w in range(self.workers)
        ]
        done = sorted((share.worker, result) for share, result in self.cluster.map_unordered(run_share, shares))
        tables = [Table.from_arrays(**arrays) for _, (arrays, _) in done]
        for t in tables[1:]:
            add_changes(tables[0], t, start)
        self.table = tables[0]
        for w, (_, state) in done:
            self.rngs[w, 0] = np.uint64(state)
        self.iteration += self.round

    def _run_rounds(self, iterations: int) -> None:
        """Whole rounds of the workers on threads (:mod:`~zwick_ai.learn.cfr.merge`)."""
        if iterations % self.round or self.iteration % self.round:
            raise ValueError(
                f"with {self.workers} workers the iterations go in rounds of {self.round} "
                f"(workers x sync {self.sync}); {iterations} more after {self.iteration} is not whole rounds"
            )
        if self.cluster is not None:
            for _ in range(iterations // self.round):
                self._cluster_round()
            return
        n = self.workers
        bufs = [zwicker_buffers() if self.zwicker else _buffers(_DEPTH, _MAXA) for _ in range(n)]
        with ThreadPoolExecutor(n) as pool:  # the kernels release Python's lock: one core per worker
            for _ in range(iterations // self.round):
                self._round(pool, bufs)

    def _traverse(
        self, count: int, margin: int, table: Table, rng: np.ndarray, bufs: NamedTuple, how: Weighting
    ) -> int:
        """Up to ``count`` iterations on ``table`` with the stream ``rng`` (one worker's share),
        weighted by ``how``."""
        if self.zwicker:
            method = Training(
                ZWICKER_SAMPLINGS.index(self.sampling), ZWICKER_FIELDS.index(self.field), self.greedy_prior
            )
            return int(run_zwicker(self.cfg, self._abst, method, count, margin, table.compiled(), rng, bufs, how))
        walk = TrickWalk(self.cfg, self._abst, FIELDS.index(self.field), table.compiled(), rng, bufs)
        return int(_run_tricks(walk, SAMPLINGS.index(self.sampling), count, margin, how))

    def _fill(self, tables: list[Table], counts: list[int], bufs: list, pool: ThreadPoolExecutor | None = None) -> None:
        """``counts[w]`` iterations on ``tables[w]`` with the stream ``rngs[w]`` (on ``pool``'s threads
        when given), the tables grown between calls (growing never changes what a traversal computes).
        The workers' iterations are numbered in turn (worker w's i-th: ``iteration + 1 + w + i * workers``)."""
        todo = np.array(counts, np.int64)
        stride = self.stride * len(tables)
        while todo.any():
            margin = max(1 << 13, max(t.rows.shape[0] for t in tables) // 4)
            for t in tables:
                t.reserve(2 * margin, 8 * margin)
            how = [
                self._weighting(self.iteration + 1 + w + (c - todo[w]) * stride, stride) for w, c in enumerate(counts)
            ]
            if pool is None:
                todo[0] -= self._traverse(todo[0], margin, tables[0], self.rngs[0], bufs[0], how[0])
                continue
            jobs = [
                pool.submit(self._traverse, todo[w], margin, t, self.rngs[w], bufs[w], how[w])
                for w, t in enumerate(tables)
            ]
            todo -= [job.result() for job in jobs]

    def _round(self, pool: ThreadPoolExecutor, bufs: list) -> None:
        """One round: every worker from the merged table, then their changes added up."""
        start = Snapshot.of(self.table)
        tables = [self.table] + [self.table.copy() for _ in range(self.workers - 1)]
        self._fill(tables, [self.sync] * self.workers, bufs, pool)
        for t in tables[1:]:
            add_changes(self.table, t, start)
        self.iteration += self.round

    def nash_conv(self, tree: GameTree | None = None) -> float:
        """``nash_conv`` of the average strategy on ``tree`` (default: the solver's own tree; trick
        games: pass ``extract(game)`` of a small rule set)."""
        tree = tree or self.tree
        if tree is None:
            raise ValueError("nash_conv needs the game tree: pass extract(game) for a small trick game")
        return tree_nash_conv(tree, table_policy(tree, self.table))

    def value_vs_random(self, deals: int, seed: int) -> tuple[float, float]:
        """Trick games: mean chips per deal of the average strategy against random opponents
        (every seat in turn, ``deals`` deals per seat) and the fraction of its decisions seen."""
        return self.value_vs("random", deals, seed)

    def value_vs(
        self, opponent: str, deals: int, seed: int, min_visits: int = 1, fallback: str = "uniform"
    ) -> tuple[float, float]:
        """Trick games, compiled: mean chips per deal of the average strategy against ``opponent``
        (``random`` or ``greedy``) at every seat in turn (``deals`` deals per seat, not duplicate),
        playing ``fallback`` (``uniform`` or ``greedy``) at sets visited fewer than ``min_visits``
        times; and the fraction of its decisions taken from the table."""
        if self.zwicker:
            raise ValueError("Zwicker solvers are measured with zwicker_strength (against greedy, duplicate deals)")
        if not self.tricks:
            raise ValueError("value_vs is compiled for the trick games; tree games have nash_conv")
        if opponent not in OPPONENTS or fallback not in FALLBACKS:
            raise ValueError(f"opponent must be one of {tuple(OPPONENTS)} and fallback one of {FALLBACKS}")
        return _eval(
            self.cfg,
            self._abst,
            int(deals),
            OPPONENTS[opponent],
            int(min_visits),
            FALLBACKS.index(fallback),
            self.table.compiled(),
            seed_state(seed),
        )


class ShareIterations(NamedTuple):
    """The iterations of a worker's share: how many, the number before its first iteration and the
    step between its iterations' numbers."""

    to_run: int
    before: int
    stride: int


class Share(NamedTuple):
    """One worker's share of a round, as a task for a cluster (:func:`run_share`)."""

    worker: int  # its index (its stream and its place in the merge)
    game: str  # the game string
    sampling: tuple[str, str]  # (sampling, averaging)
    abstraction: str
    field: str
    table: dict[str, np.ndarray]  # the round's start table (:meth:`Table.arrays`)
    rng: int  # the worker's stream state
    iterations: ShareIterations


def run_share(share: Share) -> tuple[dict[str, np.ndarray], int]:
    """Run a worker's share of a round (anywhere: the task of a cluster): its table after
    ``share.iterations`` iterations and its stream state."""
    import zwick_ai.games  # noqa: F401  (a fresh worker process registers the games)

    sampling, averaging = share.sampling
    count, before, stride = share.iterations.to_run, share.iterations.before, share.iterations.stride
    game = pyspiel.load_game(share.game)
    solver = MCCFRSolver(game, sampling, 0, share.abstraction, field=share.field, averaging=averaging)
    solver.table = Table.from_arrays(**share.table)
    solver.rng[0] = np.uint64(share.rng)
    solver.iteration, solver.stride = before, stride
    solver.run(count)
    return solver.table.arrays(), int(solver.rng[0])


@kernel
def _max_depth(start, count, child):
    depth = np.zeros(start.shape[0], np.int64)
    for h in range(start.shape[0]):
        for j in range(count[h]):
            depth[child[start[h] + j]] = depth[h] + 1
    return depth.max()
