"""Exact CFR, CFR+ and discounted CFR on an extracted game tree, compiled, plus ``nash_conv``.

Each iteration is two loops over the flat node arrays of :class:`~zwick_ai.learn.cfr.tree.GameTree`
per player (reach probabilities forward, values backward), no Python per node. The updates follow
OpenSpiel's ``open_spiel.python.algorithms.cfr`` exactly (alternating updates, player 0 first; CFR+
= regret matching+ and linear averaging; DCFR = ``discounted_cfr.DCFRSolver`` with alpha, beta,
gamma), so the average policies agree with OpenSpiel's to rounding.

``nash_conv`` computes, per player, a best response against the other players' average
strategies on the same arrays: the best-responding player's information sets are decided deepest
first (by the number of own decisions before them), each pass one backward loop.

>>> import pyspiel
>>> tree = extract(pyspiel.load_game("kuhn_poker"))
>>> solver = ExactSolver(tree, "cfr+")
>>> solver.run(200)
>>> round(solver.nash_conv(), 4) < 0.01
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents.cfr.core import normalised, regret_matching
from zwick_ai.jit import kernel
from zwick_ai.learn.cfr.tree import NODE_CHANCE, NODE_DECISION, NODE_TERMINAL, GameTree, extract

METHODS = ("cfr", "cfr+", "dcfr")

__all__ = ["METHODS", "ExactSolver", "exploitability", "extract", "nash_conv", "policy_values"]


# ---- compiled kernels -------------------------------------------------------------------------------
class EdgeArrays(NamedTuple):
    """A solver's per-edge arrays (one entry per action of each information set)."""

    regret: np.ndarray  # cumulative regrets
    cum: np.ndarray  # cumulative average-strategy weights
    cur: np.ndarray  # the current (regret-matching) policy


@kernel
def _current_policy(regret, iset_off, iset_n, iset_player, player, cur):
    """Regret matching for every information set of ``player`` (all players when -1)."""
    for i in range(iset_off.shape[0]):
        if player < 0 or iset_player[i] == player:
            regret_matching(regret, iset_off[i], iset_n[i], cur[iset_off[i] :])


@kernel
def _reach(tree, pol, who, own, other):
    """Forward loop over ``tree`` (a :class:`~zwick_ai.learn.cfr.tree.TreeArrays`) under ``pol``:
    ``own[h]`` = ``who``'s reach probability of node h, ``other[h]`` = everybody else's including
    chance (the counterfactual reach)."""
    kind, player, iset, start, count, child = (
        tree.kind,
        tree.player,
        tree.iset,
        tree.start,
        tree.num_children,
        tree.child,
    )
    prob, iset_off = tree.prob, tree.iset_off
    own[0] = 1.0
    other[0] = 1.0
    for h in range(kind.shape[0]):
        k = kind[h]
        if k == NODE_TERMINAL:
            continue
        for j in range(count[h]):
            c = child[start[h] + j]
            if k == NODE_CHANCE:
                own[c] = own[h]
                other[c] = other[h] * prob[start[h] + j]
            else:
                q = pol[iset_off[iset[h]] + j]
                if player[h] == who:
                    own[c] = own[h] * q
                    other[c] = other[h]
                else:
                    own[c] = own[h]
                    other[c] = other[h] * q


@kernel
def _cfr_player(tree, edges, who, weight, plus, own, other, value):
    """One CFR traversal of ``tree`` for player ``who``: regrets and average weights of its
    information sets (``edges``, :class:`EdgeArrays`)."""
    kind, player, iset, start, count, child = (
        tree.kind,
        tree.player,
        tree.iset,
        tree.start,
        tree.num_children,
        tree.child,
    )
    prob, returns, iset_off, iset_n, iset_player = tree.prob, tree.returns, tree.iset_off, tree.iset_n, tree.iset_player
    regret, cum, cur = edges.regret, edges.cum, edges.cur
    _reach(tree, cur, who, own, other)
    for h in range(kind.shape[0] - 1, -1, -1):
        k = kind[h]
        if k == NODE_TERMINAL:
            value[h] = returns[h, who]
            continue
        v = 0.0
        s = start[h]
        if k == NODE_CHANCE:
            for j in range(count[h]):
                v += prob[s + j] * value[child[s + j]]
            value[h] = v
            continue
        off = iset_off[iset[h]]
        for j in range(count[h]):
            v += cur[off + j] * value[child[s + j]]
        value[h] = v
        if player[h] == who:
            for j in range(count[h]):
                regret[off + j] += other[h] * (value[child[s + j]] - v)
                cum[off + j] += weight * own[h] * cur[off + j]
    if plus:
        for i in range(iset_off.shape[0]):
            if iset_player[i] == who:
                for j in range(iset_n[i]):
                    if regret[iset_off[i] + j] < 0.0:
                        regret[iset_off[i] + j] = 0.0


@kernel
def _discount(regret, iset_off, iset_n, iset_player, who, t, alpha, beta):
    pos = t**alpha / (t**alpha + 1.0)
    neg = t**beta / (t**beta + 1.0)
    for i in range(iset_off.shape[0]):
        if iset_player[i] == who:
            for j in range(iset_n[i]):
                e = iset_off[i] + j
                regret[e] *= pos if regret[e] >= 0.0 else neg


@kernel
def _iterations(tree, edges, first, count_it, method, alpha, beta, gamma, n_players):
    """Iterations ``first+1 .. first+count_it`` (OpenSpiel numbering: the first iteration is 1)."""
    iset_off, iset_n, iset_player = tree.iset_off, tree.iset_n, tree.iset_player
    regret, cur = edges.regret, edges.cur
    n = tree.kind.shape[0]
    own = np.empty(n)
    other = np.empty(n)
    value = np.empty(n)
    for it in range(first + 1, first + count_it + 1):
        for who in range(n_players):
            if method == 0:
                w = 1.0
            elif method == 1:
                w = float(it)
            else:
                w = float(it) ** gamma
            _cfr_player(tree, edges, who, w, method == 1, own, other, value)
            if method == 2:
                _discount(regret, iset_off, iset_n, iset_player, who, float(it), alpha, beta)
            _current_policy(regret, iset_off, iset_n, iset_player, -1, cur)


@kernel
def _values(tree, pol, who, value):
    """Backward loop: every node's expected return for ``who`` under ``pol``; returns the root's."""
    kind, iset, start, count, child = tree.kind, tree.iset, tree.start, tree.num_children, tree.child
    prob, returns, iset_off = tree.prob, tree.returns, tree.iset_off
    for h in range(kind.shape[0] - 1, -1, -1):
        k = kind[h]
        if k == NODE_TERMINAL:
            value[h] = returns[h, who]
            continue
        v = 0.0
        s = start[h]
        for j in range(count[h]):
            q = prob[s + j] if k == NODE_CHANCE else pol[iset_off[iset[h]] + j]
            v += q * value[child[s + j]]
        value[h] = v
    return value[0]


class ResponderSets(NamedTuple):
    """The best responder's true (perfect-recall) information sets (the tree's ``br_*`` arrays)."""

    iset: np.ndarray  # per node: the responder's set
    off: np.ndarray  # per set: its first edge
    n: np.ndarray  # per set: its actions
    player: np.ndarray  # per set: its player


@kernel
def _best_response_value(tree, sets, pol, who):
    """Value for ``who`` of a best response to the others' ``pol`` over ``sets``
    (:class:`ResponderSets`)."""
    kind, player, iset, start, count, child = (
        tree.kind,
        tree.player,
        tree.iset,
        tree.start,
        tree.num_children,
        tree.child,
    )
    prob, returns, iset_off = tree.prob, tree.returns, tree.iset_off
    br_iset, br_off, br_n, br_player = sets.iset, sets.off, sets.n, sets.player
    n = kind.shape[0]
    own = np.empty(n)
    other = np.empty(n)
    value = np.empty(n)
    _reach(tree, pol, who, own, other)
    # own decisions before each node: the order in which the responder's sets are decided
    depth = np.zeros(n, np.int64)
    for h in range(n):
        for j in range(count[h]):
            depth[child[start[h] + j]] = depth[h] + (1 if kind[h] == NODE_DECISION and player[h] == who else 0)
    nb = br_off.shape[0]
    set_depth = np.full(nb, -1, np.int64)
    for h in range(n):
        if kind[h] == NODE_DECISION and player[h] == who:
            set_depth[br_iset[h]] = depth[h]
    choice = np.full(nb, -1, np.int64)
    q = np.zeros(br_n.sum())
    top = set_depth.max() if nb > 0 else -1
    for d in range(top, -2, -1):
        for h in range(n - 1, -1, -1):
            k = kind[h]
            s = start[h]
            if k == NODE_TERMINAL:
                value[h] = returns[h, who]
            elif k == NODE_CHANCE or player[h] != who:
                v = 0.0
                for j in range(count[h]):
                    p = prob[s + j] if k == NODE_CHANCE else pol[iset_off[iset[h]] + j]
                    v += p * value[child[s + j]]
                value[h] = v
            else:
                b = br_iset[h]
                if choice[b] >= 0:
                    value[h] = value[child[s + choice[b]]]
                else:
                    value[h] = value[child[s]]  # not decided yet: only shallower sets read this
                    if set_depth[b] == d:
                        for j in range(count[h]):
                            q[br_off[b] + j] += other[h] * value[child[s + j]]
        if d >= 0:
            for b in range(nb):
                if set_depth[b] == d and br_player[b] == who:
                    best = 0
                    for j in range(1, br_n[b]):
                        if q[br_off[b] + j] > q[br_off[b] + best]:
                            best = j
                    choice[b] = best
    return value[0]


# ---- Python API -------------------------------------------------------------------------------------
def average_policy(tree: GameTree, cum: np.ndarray) -> np.ndarray:
    """Per edge, the normalised average strategy (uniform where nothing was accumulated)."""
    out = np.empty_like(cum)
    normalise_all(cum, tree.iset_off, tree.iset_n, out)
    return out


@kernel
def normalise_all(cum, iset_off, iset_n, out):
    """Every row's weights normalised (:func:`~zwick_ai.agents.cfr.core.normalised`) into ``out``."""
    for i in range(iset_off.shape[0]):
        normalised(cum, iset_off[i], iset_n[i], out[iset_off[i] :])


def policy_values(tree: GameTree, pol: np.ndarray) -> np.ndarray:
    """Expected return of every player when everybody follows ``pol`` (per-edge probabilities)."""
    value = np.empty(tree.num_nodes)
    a = tree.solver_arrays()
    return np.array([_values(a, pol, p, value) for p in range(tree.num_players)])


def nash_conv(tree: GameTree, pol: np.ndarray) -> float:
    """Sum over players of (best-response value - value under ``pol``), like OpenSpiel's
    ``exploitability.nash_conv``. ``pol`` holds per-edge probabilities of the tree's information sets."""
    if pol.shape != (tree.num_edges,):
        raise ValueError(f"policy has {pol.shape[0]} entries, the tree has {tree.num_edges} actions")
    a = tree.solver_arrays()
    br = ResponderSets(tree.br_iset, tree.br_off, tree.br_n, tree.br_player)
    best = [_best_response_value(a, br, pol, p) for p in range(tree.num_players)]
    return float(sum(best) - policy_values(tree, pol).sum())


def exploitability(tree: GameTree, pol: np.ndarray) -> float:
    """``nash_conv / num_players`` (OpenSpiel's ``exploitability.exploitability`` for zero-sum games)."""
    return nash_conv(tree, pol) / tree.num_players


class ExactSolver:
    """CFR (``cfr``), CFR+ (``cfr+``) or discounted CFR (``dcfr``) on a :class:`GameTree`.

    State: ``regret``, ``cum`` (average weights), ``cur`` (current policy) per edge and
    ``iteration``; :mod:`zwick_ai.learn.cfr.checkpoint` saves and restores it."""

    def __init__(self, tree: GameTree, method: str = "cfr+", alpha: float = 1.5, beta: float = 0.0, gamma: float = 2.0):
        if method not in METHODS:
            raise ValueError(f"unknown CFR method {method!r}; valid: {', '.join(METHODS)}")
        self.tree = tree
        self.method = method
        self.alpha, self.beta, self.gamma = float(alpha), float(beta), float(gamma)
        e = tree.num_edges
        self.regret = np.zeros(e)
        self.cum = np.zeros(e)
        self.cur = np.empty(e)
        _current_policy(self.regret, tree.iset_off, tree.iset_n, tree.iset_player, -1, self.cur)
        self.iteration = 0

    def run(self, iterations: int) -> None:
        """Run ``iterations`` more iterations."""
        _iterations(
            self.tree.solver_arrays(),
            EdgeArrays(self.regret, self.cum, self.cur),
            self.iteration,
            int(iterations),
            METHODS.index(self.method),
            self.alpha,
            self.beta,
            self.gamma,
            self.tree.num_players,
        )
        self.iteration += int(iterations)

    def average_policy(self) -> np.ndarray:
        return average_policy(self.tree, self.cum)

    def nash_conv(self) -> float:
        return nash_conv(self.tree, self.average_policy())
