"""Compiled ISMCTS and PIMC for Zwicker: the search backend of the ``ismcts`` and ``pimc`` agents.

**ISMCTS** is single-observer information-set MCTS (Cowling, Powley and Whitehouse 2012) over
whole engine moves. Every iteration

1. *determinizes*: draws a whole world (the other hands and the stock order) uniformly from those
   consistent with the searching player's information, by the exact rejection sampler of
   :func:`zwick_ai.zwicker.worlds.resample_k` (its setup, ``resample_setup``: stage-start
   state, constraints and pre-filter, is prepared once per decision; each draw of
   ``resample_draw`` is a uniform permutation of the hidden cards accepted when the current stage
   replays identically). If ``tries`` draws in a row are rejected, that iteration takes its world
   from the Markov chain of card swaps that keeps only consistent deals (the resampler's own
   fallback ``resample_chain``, started once from the true deal, one sweep of
   ``total hidden cards`` proposed swaps per world). Once that happened in a decision (positions
   with many Magger answers and owned builds can accept one draw in thousands), later iterations
   try only ``TRIES_AFTER`` draws before using the chain;
2. *selects* with UCB among the children whose moves are legal in this world, counting for each
   child how often it was available (``Q/n + c * sqrt(ln(avail)/n)``);
3. *expands* one untried move of this world (uniformly at random);
4. *rolls out* to the end of the hand in compiled code (``random`` or the ``greedy`` policy of
   :mod:`zwick_ai.zwicker.kernels`);
5. *backs up* the reward of the side that moved into each node (partners share a side's reward).

The reward of a side is its return on a fixed scale, the search's objective (``utility=``,
:func:`reward_scale`). With ``NS`` sides and points ``s_k`` the margin of side ``k`` is
``(NS * s_k - sum(s)) / (NS - 1)`` (with two sides the point difference); ``T`` is the points for
cards and most cards, Zwicks excluded:

- ``clip``: the margin over ``T`` clipped to [-1, 1] (a hand won by more than ``T`` through
  Zwicks is worth no more than one won by ``T``);
- ``margin``: the margin over ``T``, unclipped (the raw point margin in units of ``T``, so that
  ``c`` keeps its calibration for ordinary hands);
- ``bound``: the margin over ``B = T + zwick_points * ceil(P / 2)``, where ``P`` is the number of
  cards played from the hands (after a Zwick the table is empty, so no two plays in a row are
  Zwicks; every play when the Dietze option refills the table): in [-1, 1] without a clip.

A game loaded with ``utility=win_loss`` scores the game's return divided by ``NS - 1`` whatever
the objective. The exploration constant ``c`` applies to these rewards.

Tree nodes are identified by what their move does, not by a row index of some world's move list:
(kind, card, value, the cards taken as card ids, the anchor card of the unit built on, owner), the
seat making it and the parent node. They live in preallocated arrays with an open-addressing hash map from
(parent, move) to node; one iteration adds at most one node, so ``iters + 1`` nodes suffice.

**PIMC** samples ``worlds`` worlds with the same determinizer and runs the same search on each
fixed world (perfect-information UCT, ``iters`` iterations each), then votes: each root move
scores the sum over worlds of its share of the root visits; the highest sum wins (ties: the
higher mean reward over all its visits, then the first legal move).

The search loop of one decision runs inside compiled code; Python only checks the clock between
batches of iterations under a time budget and converts the chosen engine move to sub-actions.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games import zwicker_bridge
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> state = zwicker_bridge.state_from_seed(game, 3)
>>> params = {"iters": 50, "time": 0.0, "c": 0.7, "rollout": "random"}
>>> acts = ismcts_decision(state, params, np.random.default_rng(1))
>>> acts == ismcts_decision(state, params, np.random.default_rng(1))
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pyspiel

from zwick_ai.agents import clock
from zwick_ai.agents.search import UTILITIES, check_params
from zwick_ai.games import zwicker_bridge
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout, policy_codes
from zwick_ai.zwicker.steps import side_returns
from zwick_ai.zwicker.worlds import (
    WorldSetup,
    resample_chain,
    resample_draw,
    resample_setup,
    resample_world,
)

TRIES = 2000  # rejected draws in a row before an iteration takes the Markov chain's world
TRIES_AFTER = 100  # the same, once the chain was needed in this decision (acceptance is rare)
MAX_DEPTH = 2 * arrays.NUM_CARDS + 16  # whole moves in one hand, with room for questions

# Node key columns (one row per node).
NK_PARENT = 0
NK_KIND = 1
NK_CARD = 2
NK_VALUE = 3
NK_TAKEN_LO = 4  # cards taken, bits of card ids 0..63
NK_TAKEN_HI = 5  # bits of card ids 64..
NK_TARGET = 6  # anchor card of the unit built on, -1 new
NK_OWNER = 7
NK_MOVER = 8  # seat making the move (turn order can depend on hidden hands)
NKW = 9

# Search counters (``SearchTree.counts``).
MT_NODES = 0
MT_ITERS = 1
MT_CHAIN = 2  # iterations whose world came from the Markov chain
MT_DRAWS = 3  # permutations drawn (accepted or not)
MT_SIZE = 4


class SearchTree(NamedTuple):
    """One search's tree (:func:`new_tree`): node ``i`` is row ``i`` of each array, node 0 the root.
    Compiled code takes and returns it like any tuple of arrays."""

    keys: np.ndarray  # (capacity, NKW) int64: each node's move key (columns ``NK_*``)
    visits: np.ndarray  # int64: iterations that went through the node
    avail: np.ndarray  # int64: iterations in which the node's move was legal (UCB's availability)
    reward: np.ndarray  # float64: the sum of the rewards backed up into the node
    slots: np.ndarray  # int64: open-addressing hash map of the keys to nodes, -1 empty
    counts: np.ndarray  # int64: the search's counters (``MT_*``)


class Worlds(NamedTuple):
    """What draws the worlds of one decision for player ``player`` of the state array ``record``
    (:func:`det_draw`)."""

    game: np.ndarray  # the game table (rules, codec; ``zwick_ai.zwicker.history``)
    record: np.ndarray  # the OpenSpiel state array (engine state and history)
    player: int  # the searching player
    setup: WorldSetup  # the determinizer's setup (:func:`~zwick_ai.zwicker.worlds.resample_setup`)
    cards: np.ndarray  # the hidden cards, permuted in place by each rejection-sampling draw
    chain: np.ndarray  # the Markov chain's consistent assignment (its fallback)
    workspace: np.ndarray  # the engine's scratch workspace (``kernels.WS_SIZE`` int64)


class Settings(NamedTuple):
    """How a tree search scores and plays out."""

    c: float  # the exploration constant of UCB
    policy: int  # the play-out policy at every seat (``zwick_ai.zwicker.policy_codes``)
    win_loss: bool  # rewards are the game's win/loss returns (else scaled point differences)
    total: float  # the reward scale (:func:`reward_scale`)
    #: the compiled player (a policy code) that plays every other side in the tree and the
    #: play-outs, as a fixed opponent is modelled by a best response (``br-ismcts``); -1: the tree
    #: searches every seat's moves
    opponents: int = -1


class Scratch(NamedTuple):
    """A descent's scratch arrays (:func:`new_scratch`)."""

    key: np.ndarray  # NKW int64: the key of the move looked at
    lo: np.ndarray  # 64 int64: per table unit, the bits of its card ids 0..63
    hi: np.ndarray  # 64 int64: the same for card ids 64..
    path: np.ndarray  # MAX_DEPTH + 1 int64: the nodes of the iteration's walk from the root
    plan: np.ndarray  # MAX_PLAYERS int64: per seat, -1 (UCB picks its moves) or the policy code that does


# ------------------------------------------------------------------------------------------------
# Determinization
# ------------------------------------------------------------------------------------------------
@kernel(inline="always")
def det_draw(worlds, tries, meta):
    """One world for ``worlds.player``: an engine state equal to the real one except for the
    hidden cards. ``worlds.cards`` is permuted in place (exact rejection sampling, at most
    ``tries`` draws); when every draw is rejected, ``worlds.chain`` (a consistent assignment)
    takes one sweep of swaps and gives the world. Counts draws and chain worlds in ``meta``
    (``MT_DRAWS``, ``MT_CHAIN``)."""
    G, a, p, det, W = worlds.game, worlds.record, worlds.player, worlds.setup, worlds.workspace
    draws, Sw = resample_draw(G, a, p, det, worlds.cards, tries, W)
    meta[MT_DRAWS] += draws
    if Sw.shape[0] > 0:
        return Sw
    meta[MT_CHAIN] += 1
    chain = worlds.chain
    resample_chain(G, a, p, det, chain, chain.shape[0], W)
    return resample_world(G, a, p, det, chain, det.S0.copy(), W)


@kernel(inline="always")
def next_world(worlds, meta):
    """:func:`det_draw` with the search's tries: :data:`TRIES` until the Markov chain was needed
    in this decision, :data:`TRIES_AFTER` after."""
    return det_draw(worlds, TRIES if meta[MT_CHAIN] == 0 else TRIES_AFTER, meta)


_draw_world = det_draw  # the name the tests use


# ------------------------------------------------------------------------------------------------
# Move keys and the node hash map
# ------------------------------------------------------------------------------------------------
@kernel
def unit_cards(S, lo, hi):
    """Per table unit: the bit masks of its card ids (``lo``: ids 0..63, ``hi``: 64..)."""
    for i in range(arrays.unit_count(S)):
        x = arrays.unit_anchor(S, i)
        ml = np.int64(0)
        mh = np.int64(0)
        while x != -1:
            if x < 64:
                ml |= np.int64(1) << x
            else:
                mh |= np.int64(1) << (x - 64)
            x = arrays.next_card(S, x)
        lo[i] = ml
        hi[i] = mh


@kernel
def move_key(S, row, lo, hi, parent, out):
    """The key of move ``row`` in ``S`` under ``parent``: what the move does, in card ids."""
    out[NK_PARENT] = parent
    out[NK_KIND] = row[layout.M_KIND]
    out[NK_CARD] = row[layout.M_CARD]
    out[NK_VALUE] = arrays.move_value(row)
    tl = np.int64(0)
    th = np.int64(0)
    if row[layout.M_KIND] == layout.KIND_CAPTURE:
        m = row[layout.M_MASK]
        for i in range(arrays.unit_count(S)):
            if (m >> i) & 1:
                tl |= lo[i]
                th |= hi[i]
    out[NK_TAKEN_LO] = tl
    out[NK_TAKEN_HI] = th
    t = arrays.move_target(row)
    out[NK_TARGET] = arrays.unit_anchor(S, t) if row[layout.M_KIND] == layout.KIND_BUILD and t >= 0 else -1
    out[NK_OWNER] = arrays.move_owner(row) if row[layout.M_KIND] >= layout.KIND_BUILD else -1
    out[NK_MOVER] = arrays.to_move(S)


@kernel
def key_hash(key):
    h = np.uint64(1469598103934665603)
    for j in range(NKW):
        h = (h ^ np.uint64(key[j] & 0xFFFFFFFFFFFF)) * np.uint64(1099511628211)
        h ^= h >> np.uint64(29)
    return h


@kernel
def lookup(H, NKEY, key):
    """(node id or -1, hash slot where it is or would go)."""
    mask = np.uint64(H.shape[0] - 1)
    s = key_hash(key) & mask
    while True:
        n = H[s]
        if n < 0:
            return -1, s
        same = True
        for j in range(NKW):
            if NKEY[n, j] != key[j]:
                same = False
                break
        if same:
            return n, s
        s = (s + np.uint64(1)) & mask


# ------------------------------------------------------------------------------------------------
# The search
# ------------------------------------------------------------------------------------------------
@kernel
def new_tree(cap):
    """A preallocated :class:`SearchTree` for ``cap`` nodes, holding the root."""
    NKEY = np.zeros((cap, NKW), np.int64)
    NV = np.zeros(cap, np.int64)
    NA = np.zeros(cap, np.int64)
    NQ = np.zeros(cap, np.float64)
    hc = 16
    while hc < 2 * cap:
        hc *= 2
    H = np.full(hc, -1, np.int64)
    meta = np.zeros(MT_SIZE, np.int64)
    meta[MT_NODES] = 1
    NKEY[0, NK_PARENT] = -1
    return SearchTree(NKEY, NV, NA, NQ, H, meta)


@kernel
def new_scratch():
    """The scratch arrays of :func:`descend` (:class:`Scratch`; every seat searched by UCB)."""
    return Scratch(
        np.zeros(NKW, np.int64),
        np.zeros(64, np.int64),
        np.zeros(64, np.int64),
        np.zeros(MAX_DEPTH + 1, np.int64),
        np.full(layout.MAX_PLAYERS, -1, np.int64),
    )


@kernel(inline="always")
def scaled(x, total):
    """A point difference ``x`` on the search's reward scale ``total`` (:func:`reward_scale`):
    ``x / total`` clipped to [-1, 1] when ``total > 0``, ``x / -total`` unclipped when it is
    negative (the ``margin`` and ``bound`` objectives)."""
    if total < 0:
        return x / -total
    return min(1.0, max(-1.0, x / total))


def scaled_array(x: np.ndarray, total: float) -> np.ndarray:
    """:func:`scaled` of every entry of ``x``."""
    return x / -total if total < 0 else np.clip(x / total, -1.0, 1.0)


@kernel
def side_rewards(R, S, win_loss, total):
    """Reward of each side at the end of the hand: the game's return of the side
    (:func:`~zwick_ai.zwicker.steps.side_returns`) on the scale ``total`` (:func:`scaled`,
    module docstring)."""
    ns = arrays.sides(R)
    out = side_returns(R, S, win_loss, np.zeros(ns, np.float64))
    for s in range(ns):
        if win_loss:
            out[s] = out[s] / (ns - 1)
        else:
            out[s] = scaled(out[s] / (ns - 1), total)
    return out


@kernel(inline="always")
def descend(R, S, tree, c, scratch, buf, X, W, kid):
    """One iteration's walk down ``tree`` in world ``S`` (changed in place): UCB (exploration
    constant ``c``) among the children whose moves are legal here (each counts one more
    availability), then one untried move (uniform) expanded, or stop when the tree is full. At a
    seat with a policy code in ``scratch.plan`` that compiled player picks the move instead (the
    node entered, or expanded when new). Fills ``scratch.path[1..depth]`` with the nodes entered;
    returns (depth, and the move buffers and child scratch, which may have grown)."""
    NKEY, NV, NA, NQ, H, meta = tree.keys, tree.visits, tree.avail, tree.reward, tree.slots, tree.counts
    key, lo, hi, path = scratch.key, scratch.lo, scratch.hi, scratch.path
    cap = NV.shape[0]
    node = 0
    depth = 0
    path[0] = 0
    while not arrays.is_over(S):
        buf, X, n = kernels.gen_moves(R, S, buf, W, X)
        if kid.shape[0] < n:
            kid = np.empty(2 * n, np.int64)
        unit_cards(S, lo, hi)
        modelled = scratch.plan[arrays.to_move(S)]
        if modelled >= 0:  # a fixed opponent's seat: its player moves, the tree only follows
            k = kernels.choose(R, S, buf, n, modelled)
            move_key(S, buf[k], lo, hi, node, key)
            child, slot = lookup(H, NKEY, key)
            if child < 0:
                if meta[MT_NODES] >= cap:
                    break
                child = meta[MT_NODES]
                meta[MT_NODES] += 1
                for j in range(NKW):
                    NKEY[child, j] = key[j]
                H[slot] = child
            NA[child] += 1
            kernels.apply_move(R, S, buf[k], W)
            depth += 1
            path[depth] = child
            if NV[child] == 0:
                break  # a new node: roll out from it
            node = child
            continue
        untried = 0
        pick = -1
        for k in range(n):
            move_key(S, buf[k], lo, hi, node, key)
            child, _ = lookup(H, NKEY, key)
            kid[k] = child
            if child < 0:
                untried += 1
                if np.random.randint(untried) == 0:  # uniform among the untried moves
                    pick = k
        if untried > 0 and meta[MT_NODES] < cap:
            move_key(S, buf[pick], lo, hi, node, key)
            _, slot = lookup(H, NKEY, key)
            child = meta[MT_NODES]
            meta[MT_NODES] += 1
            for j in range(NKW):  # element copies: an array assignment compiles numba's shape-error message
                NKEY[child, j] = key[j]
            NA[child] = 1
            H[slot] = child
            kernels.apply_move(R, S, buf[pick], W)
            depth += 1
            path[depth] = child
            break
        # UCB over the children available in this world; each counts one more availability.
        best = -1.0e300
        best_k = -1
        for k in range(n):
            child = kid[k]
            if child < 0:
                continue
            NA[child] += 1
            v = NQ[child] / NV[child] + c * np.sqrt(np.log(NA[child]) / NV[child])
            if v > best:
                best = v
                best_k = k
        if best_k < 0:
            break  # the tree is full and nothing here is in it: roll out from this node
        kernels.apply_move(R, S, buf[best_k], W)
        node = kid[best_k]
        depth += 1
        path[depth] = node
    return depth, buf, X, kid


@kernel(inline="always")
def backup(R, tree, path, depth, rew):
    """Credit the iteration's side rewards ``rew`` to the nodes of ``path``: each node gets the
    reward of the side of the seat that moved into it (partners share a side's reward)."""
    NKEY, NV, NQ, meta = tree.keys, tree.visits, tree.reward, tree.counts
    NV[0] += 1
    for d in range(1, depth + 1):
        nd = path[d]
        NV[nd] += 1
        NQ[nd] += rew[arrays.side_of(R, NKEY[nd, NK_MOVER])]
    meta[MT_ITERS] += 1


@kernel(inline="always")
def model_opponents(R, player, code, policies, plan):
    """With a policy code ``code`` >= 0, let that compiled player play every seat of the sides
    other than ``player``'s, in the play-outs (``policies``) and in the tree (``plan``)."""
    if code < 0:
        return
    mine = arrays.side_of(R, player)
    for p in range(arrays.players(R)):
        if arrays.side_of(R, p) != mine:
            policies[p] = code
            plan[p] = code


@kernel
def search(worlds, world, iters, settings, tree):
    """Run ``iters`` iterations on ``tree`` (a :class:`SearchTree`) for ``worlds.player`` under
    ``settings`` (:class:`Settings`). ``world``: a fixed engine state to search (PIMC), or an
    empty array to determinize every iteration (ISMCTS) by ``worlds`` (:class:`Worlds`)."""
    R = worlds.game[: layout.RULES_SIZE]
    W = worlds.workspace
    meta = tree.counts
    policies = np.full(arrays.players(R), settings.policy, np.int64)
    buf, X = kernels.new_buffers()
    scratch = new_scratch()
    model_opponents(R, worlds.player, settings.opponents, policies, scratch.plan)
    kid = np.empty(64, np.int64)
    fixed = world.shape[0] > 0
    for _ in range(iters):
        if fixed:
            S = world.copy()
        else:
            S = next_world(worlds, meta)
        depth, buf, X, kid = descend(R, S, tree, settings.c, scratch, buf, X, W, kid)
        if not arrays.is_over(S):  # roll out with the search's own move buffers
            _, buf, X = kernels.play_out_to(R, S, policies, W, arrays.max_stages(R), buf, X)
        backup(R, tree, scratch.path, depth, side_rewards(R, S, settings.win_loss, settings.total))


@kernel
def peek_draw(real, world):
    """``world`` (changed in place) made the world of one ``peek-uct`` iteration: the true engine
    state ``real`` (every hand as it is) with the undealt stock in a fresh uniformly random order
    (Fisher-Yates on the compiled random stream)."""
    for j in range(real.shape[0]):
        world[j] = real[j]
    stock = arrays.undealt(world)
    for i in range(stock.shape[0] - 1, 0, -1):
        j = np.random.randint(i + 1)
        stock[i], stock[j] = stock[j], stock[i]
    return world


@kernel
def peek_search(G, real, iters, settings, tree, W):
    """Run ``iters`` iterations of UCT on ``tree`` under ``settings`` where every iteration's world
    is the true state ``real`` with the stock freshly shuffled (:func:`peek_draw`): ``peek-uct``'s
    search (the descent, play-out and backup of :func:`search`)."""
    R = G[: layout.RULES_SIZE]
    players = arrays.players(R)
    policies = np.full(players, settings.policy, np.int64)
    buf, X = kernels.new_buffers()
    scratch = new_scratch()
    kid = np.empty(64, np.int64)
    S = real.copy()
    for _ in range(iters):
        peek_draw(real, S)
        depth, buf, X, kid = descend(R, S, tree, settings.c, scratch, buf, X, W, kid)
        if not arrays.is_over(S):
            _, buf, X = kernels.play_out_to(R, S, policies, W, arrays.max_stages(R), buf, X)
        backup(R, tree, scratch.path, depth, side_rewards(R, S, settings.win_loss, settings.total))


@kernel
def root_stats(S, rows, tree):
    """Visits and reward sums of the root children for the legal move ``rows`` of the real
    state ``S`` (0 for a move the search never tried)."""
    NKEY, NV, NQ, H = tree.keys, tree.visits, tree.reward, tree.slots
    n = rows.shape[0]
    visits = np.zeros(n, np.int64)
    qsum = np.zeros(n, np.float64)
    lo = np.zeros(64, np.int64)
    hi = np.zeros(64, np.int64)
    key = np.zeros(NKW, np.int64)
    unit_cards(S, lo, hi)
    for k in range(n):
        move_key(S, rows[k], lo, hi, 0, key)
        child, _ = lookup(H, NKEY, key)
        if child >= 0:
            visits[k] = NV[child]
            qsum[k] = NQ[child]
    return visits, qsum


BLOCKED_REWARD = -1.0e9  # the reward sum of a blocked root child: UCB never selects it


@kernel
def block_root(S, rows, blocked, tree):
    """Keep the search away from the root moves ``rows[k]`` with ``blocked[k]`` (rows of the real
    state ``S``): each gets a root child with one visit and reward sum :data:`BLOCKED_REWARD`, so
    that it is neither untried nor ever chosen by UCB (root pruning). Returns the nodes added."""
    NKEY, NV, NA, NQ, H, meta = tree.keys, tree.visits, tree.avail, tree.reward, tree.slots, tree.counts
    lo = np.zeros(64, np.int64)
    hi = np.zeros(64, np.int64)
    key = np.zeros(NKW, np.int64)
    unit_cards(S, lo, hi)
    added = 0
    for k in range(rows.shape[0]):
        if not blocked[k] or meta[MT_NODES] >= NV.shape[0]:
            continue
        move_key(S, rows[k], lo, hi, 0, key)
        child, slot = lookup(H, NKEY, key)
        if child >= 0:
            continue
        child = meta[MT_NODES]
        meta[MT_NODES] += 1
        for j in range(NKW):
            NKEY[child, j] = key[j]
        NV[child] = 1
        NA[child] = 1
        NQ[child] = BLOCKED_REWARD
        H[slot] = child
        added += 1
    return added


# ------------------------------------------------------------------------------------------------
# Python entry points (the backend interface of zwick_ai.agents.search)
# ------------------------------------------------------------------------------------------------
#: the objective ``utility=auto`` stands for, by (search family, variant, players) on a full deck:
#: measured head to head (``experiments/results/utility/``); every other case keeps ``clip``.
#: ``ismcts`` covers the searches of this module (``ismcts``, ``pimc``, ``peek-uct``, ``cheat-uct``)
DEFAULT_UTILITY: dict[tuple[str, str, int], str] = {
    # level on points (+0.78 [-0.61, +2.16] a deal), more deals won (56-36), and far closer to
    # equilibrium on the micro games; Dithmarschen 4p measured level with fewer deals won: clip
    ("ismcts", "classic", 2): "margin",
}
MICRO_OPTIONS = ("ranks", "suits", "hand_size", "table_size", "stages")  # options that make a micro deck


def zwick_bound(rules: Any) -> int:
    """Most Zwick points one side can make in a hand of ``rules`` (module docstring, ``bound``)."""
    table = sum(n for kind, n, _ in rules.plan.first if kind == "table")
    played = rules.deck_size - table
    zwicks = played if rules.dietze_min_table else (played + 1) // 2
    return int(rules.zwick_points) * zwicks


def reward_scale(utility: str, rules: Any, family: str = "ismcts") -> float:
    """The compiled searches' reward scale for the objective ``utility`` under ``rules``:
    positive ``T`` for the clipped margin, ``-T`` (``margin``) or ``-B`` (``bound``) for an
    unclipped one (:func:`scaled`). ``auto``: the board's objective for the search ``family``
    (:data:`DEFAULT_UTILITY`)."""
    if utility == "auto":
        micro = any(k in dict(rules.options) for k in MICRO_OPTIONS)
        utility = "clip" if micro else DEFAULT_UTILITY.get((family, rules.variant, rules.players), "clip")
    if utility == "clip":
        return float(rules.card_total)
    if utility == "margin":
        return -float(rules.card_total)
    if utility == "bound":
        return -float(rules.card_total + zwick_bound(rules))
    raise ValueError(f"utility={utility!r} is not valid; valid: {', '.join(UTILITIES)}")


class DecisionSetup:
    """The arrays one decision's searches share (``ismcts``, ``pimc`` and ``expert``): the rules, the
    state, the candidate rows, the determinizer's setup and its card buffers; seeds the compiled
    searches' random stream from ``rng``. ``total`` is the reward scale of the objective
    ``utility`` of the search ``family`` (:func:`reward_scale`)."""

    def __init__(self, state: pyspiel.State, rng: np.random.Generator, utility: str = "auto", family: str = "ismcts"):
        if state.is_chance_node() or state.is_terminal():
            raise ValueError("not a decision state")
        if state.move_prefix():
            raise ValueError("a move is in progress; the search decides whole moves from the start of a turn")
        decision = state.decision()
        self.game_table = decision.game_table
        self.state_array = decision.record
        self.player = decision.player
        self.workspace = np.zeros(kernels.WS_SIZE, np.int64)
        self.rules_array = decision.rules_array
        self.win_loss = decision.win_loss
        self.total = reward_scale(utility, decision.rules, family)
        self.rows = decision.candidates
        self.real = decision.position
        self.det = resample_setup(self.game_table, self.state_array, self.player, self.workspace)
        self.cards = self.det.truth.copy()
        self.chain = self.det.truth.copy()
        self.seed = int(rng.integers(2**31))
        _seed(self.seed)

    @property
    def worlds(self) -> Worlds:
        """The compiled determinizer's bundle of this decision (its current ``cards``, ``chain``
        and ``workspace``)."""
        return Worlds(self.game_table, self.state_array, self.player, self.det, self.cards, self.chain, self.workspace)

    def settings(self, params: dict[str, Any]) -> Settings:
        """The compiled search's :class:`Settings` under ``params`` (``c``, ``rollout``; ``vs``: the
        compiled player that plays the other sides, ``br-ismcts``)."""
        rollout = policy_codes.PLAYOUT_POLICIES[params["rollout"]]
        vs = policy_codes.PLAYOUT_POLICIES[params["vs"]] if params.get("vs") else -1
        return Settings(float(params["c"]), rollout, self.win_loss, self.total, vs)

    def run(self, tree: SearchTree, world: np.ndarray, iters: int, params: dict[str, Any]) -> None:
        search(self.worlds, world, int(iters), self.settings(params), tree)


@kernel
def _seed(seed):
    np.random.seed(seed)


def _search_budget(setup: DecisionSetup, tree: SearchTree, world: np.ndarray, params: dict[str, Any]) -> None:
    """Run ``params``' budget on ``tree``: ``iters`` iterations (0 = no limit) within ``time``
    seconds of wall clock (0 = no limit), the clock checked between compiled batches."""
    _run_budget(tree, params, lambda n: setup.run(tree, world, n, params))


def _run_budget(tree: SearchTree, params: dict[str, Any], run: Callable[[int], None]) -> None:
    """:func:`_search_budget` for any compiled search: ``run(n)`` adds ``n`` iterations to ``tree``."""
    iters, seconds = int(params["iters"]), float(params.get("time", 0.0))
    if seconds <= 0:
        run(iters)
        return
    t0 = clock.now()
    batch = 16
    while True:
        left = iters - int(tree.counts[MT_ITERS]) if iters > 0 else batch
        if left <= 0:
            break
        run(min(batch, left))
        spent = clock.now() - t0
        if spent >= seconds:
            break
        rate = tree.counts[MT_ITERS] / max(spent, 1e-9)
        batch = int(max(1, min(4096, rate * (seconds - spent) / 4)))


def ismcts_decision(state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator) -> list[int]:
    """The sub-actions of the whole move ISMCTS chooses for the player to move (module docstring).
    ``params``: ``iters`` (0 = no limit), ``time`` (seconds, 0 = no limit), ``c``, ``rollout``;
    optional ``nodes`` caps the tree when only a time budget is given."""
    return _tree_decision(state, params, rng, cheat=False)


def cheat_decision(state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator) -> list[int]:
    """The sub-actions of the whole move UCT chooses when it searches the *true* world (it sees
    every hidden card: a ceiling for measurements, not a fair player); budget as
    :func:`ismcts_decision`."""
    return _tree_decision(state, params, rng, cheat=True)


def _tree_decision(state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator, cheat: bool) -> list[int]:
    check_params(params)
    rows = state.decision().candidates
    if len(rows) == 1:
        return zwicker_bridge.move_actions(state, rows[0])
    rows, visits, mean = root_search(state, params, rng, cheat)
    return zwicker_bridge.move_actions(state, rows[best_index(visits.astype(np.float64), mean)])


def root_search(
    state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator, cheat: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate rows, root visits, mean reward of each) after ISMCTS (``cheat``: UCT on the
    true world) under ``params``' budget: what :func:`ismcts_decision` chooses from."""
    setup = DecisionSetup(state, rng, params.get("utility", "auto"))
    iters = int(params["iters"])
    cap = iters + 2 if iters > 0 else int(params.get("nodes", 1 << 18))
    tree = new_tree(cap)
    world = setup.real.copy() if cheat else np.zeros(0, np.int32)
    _search_budget(setup, tree, world, params)
    visits, qsum = root_stats(setup.real, setup.rows, tree)
    return setup.rows, visits, qsum / np.maximum(visits, 1)


def pimc_decision(state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator) -> list[int]:
    """The sub-actions of the whole move PIMC chooses: ``worlds`` worlds, ``iters`` iterations of
    perfect-information UCT on each, vote by summed visit shares (module docstring)."""
    check_params(params)
    worlds, iters = int(params["worlds"]), int(params["iters"])
    if iters <= 0:
        raise ValueError(f"iters={iters} is not valid; pimc needs at least one iteration per world")
    rows = state.decision().candidates
    if len(rows) == 1:
        return zwicker_bridge.move_actions(state, rows[0])
    setup = DecisionSetup(state, rng, params.get("utility", "auto"))
    meta = np.zeros(MT_SIZE, np.int64)

    def draw() -> np.ndarray:
        return _draw_world(setup.worlds, TRIES, meta)

    def searched(world: np.ndarray) -> SearchTree:
        tree = new_tree(iters + 2)
        setup.run(tree, world, iters, params)
        return tree

    return _world_vote(state, setup, worlds, draw, searched)


def _world_vote(
    state: pyspiel.State,
    setup: DecisionSetup,
    worlds: int,
    draw: Callable[[], np.ndarray],
    searched: Callable[[np.ndarray], SearchTree],
) -> list[int]:
    """PIMC's vote: ``worlds`` times a world from ``draw`` and its tree from ``searched``; the
    move with the largest sum of root visit shares (ties: the higher mean reward)."""
    rows = setup.rows
    share = np.zeros(len(rows))
    qsum = np.zeros(len(rows))
    vsum = np.zeros(len(rows))
    for _ in range(worlds):
        tree = searched(draw())
        v, q = root_stats(setup.real, rows, tree)
        share += v / max(1, v.sum())
        qsum += q
        vsum += v
    return _pick(state, rows, share, qsum / np.maximum(vsum, 1))


def peek_world(real: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A world of ``peek-uct``: the true engine state ``real`` (every hand as it is) with the
    undealt stock in a fresh uniformly random order."""
    world = real.copy()
    stock = arrays.undealt(world)
    stock[:] = stock[rng.permutation(len(stock))]
    return world


def peek_decision(state: pyspiel.State, params: dict[str, Any], rng: np.random.Generator) -> list[int]:
    """The sub-actions of the whole move ``peek-uct`` chooses. With ``worlds=0`` (the default): one
    UCT tree whose every iteration plays in a fresh world that keeps every player's true hand and
    shuffles the stock (:func:`peek_search`; ``iters`` iterations and/or ``time`` seconds), the
    most visited root move. With ``worlds=N``: PIMC on ``N`` such worlds (:func:`peek_world`),
    each searched by perfect-information UCT (``iters`` iterations, or ``time`` / ``N`` seconds
    when a time budget is given), vote by summed visit shares. It reads the hidden hands from the
    state it is given: a ceiling of what inference could recover, not a fair player."""
    worlds = int(params["worlds"])
    check_params({**params, "worlds": max(worlds, 1)})
    rows = state.decision().candidates
    if len(rows) == 1:
        return zwicker_bridge.move_actions(state, rows[0])
    setup = DecisionSetup(state, rng, params.get("utility", "auto"))
    if worlds == 0:
        rows, visits, mean = peek_root(setup, params)
        return zwicker_bridge.move_actions(state, rows[best_index(visits.astype(np.float64), mean)])
    per_world = {**params, "time": float(params.get("time", 0.0)) / worlds}
    iters = int(params["iters"])

    def searched(world: np.ndarray) -> SearchTree:
        tree = new_tree(iters + 2 if iters > 0 else int(params.get("nodes", 1 << 16)))
        _search_budget(setup, tree, world, per_world)
        return tree

    return _world_vote(state, setup, worlds, lambda: peek_world(setup.real, rng), searched)


def peek_root(setup: DecisionSetup, params: dict[str, Any]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(candidate rows, root visits, mean reward of each) after ``peek-uct``'s one-tree search
    (:func:`peek_search`) of ``setup``'s decision under ``params``' budget."""
    iters = int(params["iters"])
    tree = new_tree(iters + 2 if iters > 0 else int(params.get("nodes", 1 << 18)))
    settings = setup.settings(params)

    def run(n: int) -> None:
        peek_search(setup.game_table, setup.real, int(n), settings, tree, setup.workspace)

    _run_budget(tree, params, run)
    visits, qsum = root_stats(setup.real, setup.rows, tree)
    return setup.rows, visits, qsum / np.maximum(visits, 1)


def _pick(state: pyspiel.State, rows: np.ndarray, score: np.ndarray, tie: np.ndarray) -> list[int]:
    """The sub-actions of the row with the highest score (ties: higher ``tie``, then the first)."""
    return zwicker_bridge.move_actions(state, rows[best_index(score, tie)])


def best_index(score: np.ndarray, tie: np.ndarray) -> int:
    """Index of the highest ``score`` (ties: the higher ``tie``, then the first)."""
    return int(np.lexsort((-np.arange(len(score)), tie, score))[-1])


__all__ = [
    "BLOCKED_REWARD",
    "Scratch",
    "SearchTree",
    "Settings",
    "Worlds",
    "block_root",
    "best_index",
    "cheat_decision",
    "root_search",
    "det_draw",
    "new_scratch",
    "new_tree",
    "next_world",
    "ismcts_decision",
    "peek_decision",
    "peek_draw",
    "peek_root",
    "peek_search",
    "peek_world",
    "pimc_decision",
    "root_stats",
    "search",
]
