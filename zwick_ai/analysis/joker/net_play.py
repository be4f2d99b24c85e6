"""Whole Zwicker hands in compiled code, every seat played by ``net`` or ``greedy`` under a joker
rule, with the chance-event corrections of a learned model (the joker study's control
variate).

**Play.** Seat p plays agent ``kinds[p]`` (:data:`POLICY_NET`: the learned move model's best move,
as the ``net`` agent; :data:`POLICY_GREEDY`: the greedy heuristic) restricted by joker rule
``policies[p]`` with parameter ``ks[p]`` (the codes of :mod:`zwick_ai.agents.joker_policies`;
``POLICY_GREEDY`` = no rule): the agent chooses among the moves :func:`joker_policies.allowed_moves`
leaves it, so the rule is written once and constrains each agent's own choice. For greedy this is
exactly :func:`joker_policies.play_rule_deals` (same random calls; the tests check it).

**Control variate (AIVAT-style).** A hand's chance events after the opening deal are the stage
deals: the move that empties the last hand deals the next cards from the stock, whose order given
everything seen so far is a uniform permutation of the cards left in it. At each such event the
model's value of every side (a value model's, or the after network's read as each side's
afterstate) after the actual outcome, ``V_s(actual)``, is compared with its
expectation over the outcomes, ``E V_s``: the same move applied to the position with the stock
left permuted, over every permutation when there are at most :data:`EXACT_PERMUTATIONS`, else
over ``samples`` permutations drawn independently of the actual one (an unbiased estimate of the
expectation, from a random stream of its own so the play's stream is untouched). The correction
``V_s(actual) - E V_s`` has expectation zero given the past, so ``points - sum of corrections`` has
the same expectation as the points and, when the model explains part of what the deal adds, a
smaller variance. The corrections are returned per stage dealt, so that a caller whose deals are
selected by what a stage holds (a joker dealt to a hand) can keep only the later stages.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents import joker_policies, value_model
from zwick_ai.jit import kernel
from zwick_ai.zwicker import arrays, kernels, layout
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_NET

KINDS = {"greedy": POLICY_GREEDY, "net": POLICY_NET}
#: stock orders enumerated exactly up to this many permutations (6 cards left); beyond, sampled
EXACT_PERMUTATIONS = 720
#: stages the corrections are kept apart for (later stages are added to the last)
MAX_STAGES = 16
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@kernel
def _next(st):
    """splitmix64: the control variate's own random stream (``st``: one uint64)."""
    st[0] = st[0] + _GOLDEN
    z = st[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def _randint(st, n):
    return np.int64(_next(st) % np.uint64(n))


@kernel
def net_choose(R, S, buf, n, policy, k, m, W, allowed):
    """Index of the move ``net`` plays under joker rule ``policy``: the move model's best among the
    allowed moves, never a question unless only questions are legal (ties at random)."""
    joker_policies.allowed_moves(R, S, buf, n, policy, k, False, allowed)
    v = value_model.net_values(R, S, buf, n, m, W)
    best = -np.inf
    ties = 0
    pick = -1
    for i in range(n):
        if not allowed[i]:
            continue
        if pick < 0 or v[i] > best + value_model.TIE:
            best = v[i]
            ties = 1
            pick = i
        elif v[i] >= best - value_model.TIE:
            ties += 1
            if np.random.randint(ties) == 0:
                pick = i
    return pick


@kernel
def _factorial_at_most(r, cap):
    """r! if it is at most ``cap``, else ``cap + 1``."""
    out = 1
    for i in range(2, r + 1):
        out *= i
        if out > cap:
            return cap + 1
    return out


@kernel
def _outcome_values(R, Spre, mv, vm, W, f, vals, acc):
    """Add to ``acc`` every side's value after ``mv`` applied to ``Spre`` (whose stock may have been
    permuted)."""
    Sa = Spre.copy()
    kernels.apply_move(R, Sa, mv, W)
    value_model.leaf_side_values(R, Sa, vm, f, vals)
    for s in range(acc.shape[0]):
        acc[s] += vals[s]


@kernel
def expected_values(R, Spre, mv, vm, W, samples, st, out):
    """``out[s]``: the model's expectation of side s's value after ``mv`` from ``Spre`` over the
    orders of the stock left (exact over every permutation up to :data:`EXACT_PERMUTATIONS`, else
    the mean over ``samples`` uniform permutations from stream ``st``); ``vm`` a value model or an
    after model (:func:`zwick_ai.agents.value_model.leaf_side_values`). Returns how many outcomes
    were evaluated."""
    r = arrays.stock_left(Spre)
    f = np.zeros(vm.mean.shape[0], np.float64)
    vals = np.zeros(out.shape[0], np.float64)
    for s in range(out.shape[0]):
        out[s] = 0.0
    S = Spre.copy()
    stock = arrays.undealt(S)  # a view: writing it reorders the stock of S
    base = stock.copy()
    count = 0
    if _factorial_at_most(r, EXACT_PERMUTATIONS) <= EXACT_PERMUTATIONS:
        # Heap's algorithm: every permutation of the stock left exactly once
        perm = base.copy()
        c = np.zeros(r, np.int64)
        stock[:] = perm
        _outcome_values(R, S, mv, vm, W, f, vals, out)
        count = 1
        i = 1
        while i < r:
            if c[i] < i:
                j = 0 if i % 2 == 0 else c[i]
                t = perm[j]
                perm[j] = perm[i]
                perm[i] = t
                stock[:] = perm
                _outcome_values(R, S, mv, vm, W, f, vals, out)
                count += 1
                c[i] += 1
                i = 1
            else:
                c[i] = 0
                i += 1
    else:
        perm = base.copy()
        for _ in range(samples):
            for i in range(r - 1, 0, -1):  # Fisher-Yates
                j = _randint(st, i + 1)
                t = perm[i]
                perm[i] = perm[j]
                perm[j] = t
            stock[:] = perm
            _outcome_values(R, S, mv, vm, W, f, vals, out)
            count += 1
    for s in range(out.shape[0]):
        out[s] /= count
    return count


class SeatPlay(NamedTuple):
    """How each seat plays (module docstring), one entry per seat."""

    kinds: np.ndarray  # int64: the agent, POLICY_NET or POLICY_GREEDY
    policies: np.ndarray  # int64: its joker rule's code (:mod:`zwick_ai.agents.joker_policies`)
    ks: np.ndarray  # int64: the rule's parameter


class NetHands(NamedTuple):
    """What :func:`play_net_deals` returns, one row per hand."""

    scores: np.ndarray  # [N, sides] int64: each side's points
    won_side: np.ndarray  # [N, NC] int8: the side that won each card (-1: none)
    dealt_to: np.ndarray  # [N, NC] int8: the seat each card was dealt to (-1: table or stock)
    jplays: np.ndarray  # [N, NC, J_FIELDS] int64: where joker c was played from a hand
    corrections: np.ndarray  # [N, MAX_STAGES, sides] float64: sum over stage t's deals of V_s(actual) - E V_s


@kernel
def play_net_deals(R, orders, dealers, play_seeds, seats, mm, vm, samples, cv_seeds):
    """Play one hand per deck order (``orders[h]`` dealt by ``dealers[h]``; ``np.random`` seeded
    with ``play_seeds[h]`` for the agents' tie-breaks), seat p as ``seats`` says (a :class:`SeatPlay`:
    agent ``kinds[p]`` under joker rule ``policies[p]``/``ks[p]``); ``mm`` the move model (net), ``vm`` the model
    of the corrections (``samples`` = 0: none): a value model or an after model.

    Returns their :class:`NetHands`."""
    n = orders.shape[0]
    ns = arrays.sides(R)
    scores = np.zeros((n, ns), np.int64)
    won_side = np.full((n, arrays.NUM_CARDS), -1, np.int8)
    dealt = np.full((n, arrays.NUM_CARDS), -1, np.int8)
    jplays = np.zeros((n, arrays.NUM_CARDS, joker_policies.J_FIELDS), np.int64)
    corr = np.zeros((n, MAX_STAGES, ns), np.float64)
    zwicks = np.zeros((n, ns), np.int64)  # recorded by kernels.record_hand, not returned
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    allowed = np.zeros(buf.shape[0], np.bool_)
    f = np.zeros(vm.mean.shape[0], np.float64)
    actual = np.zeros(ns, np.float64)
    expect = np.zeros(ns, np.float64)
    st = np.zeros(1, np.uint64)
    for h in range(n):
        S = kernels.empty_state(R)
        kernels.start_hand(R, S, orders[h], dealers[h], W)
        np.random.seed(play_seeds[h])
        st[0] = np.uint64(cv_seeds[h])
        while not arrays.is_over(S):
            buf, X, m = kernels.gen_moves(R, S, buf, W, X)
            if m == 0:
                raise ValueError("no legal move in a running hand")
            if allowed.shape[0] < buf.shape[0]:
                allowed = np.zeros(buf.shape[0], np.bool_)
            p = arrays.to_move(S)
            if seats.kinds[p] == POLICY_NET:
                i = net_choose(R, S, buf, m, seats.policies[p], seats.ks[p], mm, W, allowed)
            else:
                i = joker_policies.choose_move(R, S, buf, m, seats.policies[p], seats.ks[p])
            c = buf[i, layout.M_CARD]
            if buf[i, layout.M_KIND] != layout.KIND_ASK and arrays.is_joker(R, c):
                joker_policies.joker_play_info(R, S, buf[i], jplays[h, c])
            mv = buf[i].copy()
            top = arrays.stock_top(S)
            Spre = S.copy() if samples > 0 else S
            kernels.apply_move(R, S, mv, W)
            if samples > 0 and arrays.stock_top(S) > top and not arrays.is_over(S):
                value_model.leaf_side_values(R, S, vm, f, actual)
                expected_values(R, Spre, mv, vm, W, samples, st, expect)
                t = min(arrays.stage(S), MAX_STAGES - 1)
                for s in range(ns):
                    corr[h, t, s] += actual[s] - expect[s]
        kernels.record_hand(R, S, h, scores, zwicks, won_side, dealt)
    return NetHands(scores, won_side, dealt, jplays, corr)


__all__ = [
    "EXACT_PERMUTATIONS",
    "KINDS",
    "MAX_STAGES",
    "NetHands",
    "SeatPlay",
    "expected_values",
    "net_choose",
    "play_net_deals",
]
