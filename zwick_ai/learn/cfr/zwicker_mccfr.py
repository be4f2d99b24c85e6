"""MCCFR on the full Zwicker games through an information abstraction, compiled.

The traversals run inside numba on the engine kernels of :mod:`zwick_ai.zwicker.kernels`
(``new_hand``, ``gen_moves``, ``apply_move``, ``score``): one iteration deals one hand per
player (the deal is the hand's only chance event: a seeded shuffle and dealer) and plays it to
the end, every player sampling an abstract action (:mod:`~zwick_ai.agents.cfr.zwicker_abstraction`)
from its regret-matching strategy. Returns are the OpenSpiel game's ``points`` utility
(``NS * own side's points - total``). Two samplings (:data:`ZWICKER_SAMPLINGS`):

* ``outcome``: outcome sampling as in :mod:`~zwick_ai.learn.cfr.mccfr` (the same compiled update,
  OpenSpiel's ``outcome_sampling_mccfr`` without baseline: exploration 0.6 at the update player's
  decisions, regrets corrected by importance weights). Unbiased, but a hand has 12–26 decisions per
  player, so the weights (products over the path) make the updates very noisy.
* ``probe`` (the default of ``zwick train mccfr`` on Zwicker): everybody plays on-policy; at each
  of the update player's decisions every abstract action not taken is valued by one *probe*, a
  playout of the rest of the hand with everybody sampling his current strategy (unseen sets:
  uniform, or with ``stakes`` greedy's action: :func:`regret_strategy`), the action taken by the hand's own outcome; each action's regret grows by its value
  minus the strategy's mean value, and the average strategy by the current strategy. This is
  outcome sampling with probing (Gibson, Lanctot, Burch, Szafron and Bowling, "Generalized
  sampling and variance in counterfactual regret minimization", AAAI 2012) **without** the
  importance weights of the update player's own reach: its regrets are the counterfactual regrets
  weighted by that reach (a policy-gradient-like update), so it trades CFR's guarantee for far
  lower variance. No exploitability guarantee holds anyway under the lossy imperfect-recall
  abstraction; ``benchmarks/README.md`` measures both samplings' ``nash_conv`` where it can.

Why not external sampling: it walks every action of each of the update player's decisions, i.e.
exponentially many lines per hand.

**The greedy field** (``field="greedy"`` of :class:`~zwick_ai.learn.cfr.mccfr.MCCFRSolver`) is
**not CFR**: in the episode of update player ``who`` the seats of the other sides play the
greedy heuristic (its best move by :func:`~zwick_ai.zwicker.kernels.greedy_value`, ties broken
with the run's own stream, so a resumed run equals an uninterrupted one) in the hand and in every
probe; they never enter the table, so no regret or average of theirs is touched. ``who``'s side
(his partner too, in the partnership games) plays the table. The average strategy then
approaches a best response within the abstraction to a greedy field, the field the strength is
measured against, rather than an equilibrium.

**The greedy prior** (``greedy_prior`` W > 0 of :class:`~zwick_ai.learn.cfr.mccfr.MCCFRSolver`,
probe sampling; 0, the default, changes nothing): a set entered for the first time starts with
regret W (points, at the iteration's regret weight) and average-strategy mass W (visits, at the
iteration's average weight) on greedy's abstract action, as if W visits had already found greedy
best. A few probes' noise (a hand's points vary by tens) then cannot flip a thinly visited set
away from greedy; evidence that outweighs W does. A warm start, not CFR's update.

The table maps abstract information-set keys to rows whose actions are the abstract action
indices ``0..m-1`` (stored as the row's "actions"); a row counts its visits. Table growth, the
random stream and checkpoints are those of :class:`~zwick_ai.learn.cfr.mccfr.MCCFRSolver`.

:func:`strength` plays the average strategy against greedy or random opponents on fixed deals
(compiled), next to greedy itself, for the strength curve of ``zwick train mccfr``.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

import zwick_ai.cards
from zwick_ai.agents.cfr.core import M_EDGES, M_ROWS, R_N, R_OFF, R_VIS, Table, TableArrays, lookup, lookup_or_add
from zwick_ai.agents.cfr.zwicker_abstraction import (
    MAX_GROUPS,
    STAKES,
    greedy_action,
    present_strategy,
    zwicker_decision,
)
from zwick_ai.jit import kernel
from zwick_ai.learn.cfr.updates import (
    PATH_FIELDS,
    REACH_FIELDS,
    Walk,
    os_backward,
    os_step,
    rand_float,
    rand_u64,
    sample_index,
    seed_state,
    weights_at,
)
from zwick_ai.zwicker import arrays, kernels
from zwick_ai.zwicker.policy_codes import POLICY_GREEDY, POLICY_RANDOM

DEPTH = 4 * zwick_ai.cards.NUM_CARDS  # decisions of one hand (cards played and partner questions) are far fewer
ZWICKER_SAMPLINGS = ("outcome", "probe", "probe-unbiased")
OUTCOME = 0  # the others probe (the reach correction is the Weighting's)
#: who plays the other sides in training (``MCCFRSolver``'s ``field``): the table (self-play) or greedy
ZWICKER_FIELDS = ("self", "greedy")
GREEDY_FIELD = 1
SELF_PLAY = -1  # a traversal's ``learner`` side in self-play: every seat plays the table
#: how the table's average strategy is played in evaluation: sampled, or its most likely action
PLAYS = ("sample", "argmax")
ARGMAX = 1
OPPONENTS = {"greedy": POLICY_GREEDY, "random": POLICY_RANDOM}


@kernel
def hand_returns(R, S, out):
    """``out[p]`` = the points utility of seat ``p`` at the end of the hand (``NS * s_k - sum``)."""
    sc = kernels.score(R, S)
    ns = arrays.sides(R)
    tot = 0
    for k in range(ns):
        tot += sc[k]
    for p in range(arrays.players(R)):
        out[p] = float(ns * sc[arrays.side_of(R, p)] - tot)


@kernel
def _deal_seed(rng):
    return np.int64(rand_u64(rng) >> np.uint64(34))


class Buffers(NamedTuple):
    """A traversal's scratch (:func:`buffers`)."""

    idx: np.ndarray  # the moves of the abstract actions of a decision
    legal: np.ndarray  # int16 0, 1, ...: a new table row's actions (abstract action indices)
    pol: np.ndarray  # (DEPTH, MAX_GROUPS) float64: each decision's strategy
    vals: np.ndarray  # (DEPTH, MAX_GROUPS) float64: probing's action values; outcome sampling's sampling policy
    path: np.ndarray  # (DEPTH, 4) int64: the decisions of the hand (``Walk.path``)
    reach: np.ndarray  # (DEPTH + 1, 3) float64: the reach probabilities (``Walk.reach``)
    ret: np.ndarray  # 16 float64: a hand's returns per seat


class Moves(NamedTuple):
    """Move generation's buffers, which grow (a traversal returns the grown ones)."""

    buf: np.ndarray  # the move rows
    scratch: np.ndarray  # the capture scratch


@kernel
def greedy_move(R, S, moves, n, rng):
    """Index into ``moves[:n]`` of the greedy heuristic's move (the best
    :func:`~zwick_ai.zwicker.kernels.greedy_value`), ties broken uniformly with the stream ``rng``
    (``kernels.choose`` breaks them with ``np.random``, which a checkpoint does not hold)."""
    best, ties, pick = -1e18, 0, 0
    for k in range(n):
        v = kernels.greedy_value(R, S, moves[k])
        if v > best + kernels.TIE:
            best, ties, pick = v, 1, k
        elif abs(v - best) <= kernels.TIE:
            ties += 1
            if rand_float(rng) * ties < 1.0:
                pick = k
    return pick


@kernel
def fielded(R, cur, learner):
    """Does seat ``cur`` play greedy (the greedy field: a side other than ``learner``'s)?"""
    return learner != SELF_PLAY and arrays.side_of(R, cur) != learner


@kernel
def _enter_decision(R, S, moves, n, abst, table, bufs, rng, W):
    """The row in ``table`` of the decision at ``S`` (added if new, its visits counted) and its
    number of abstract actions m, their moves (rows of ``moves``) in ``bufs.idx[:m]``; after a
    64-bit key collision a uniformly drawn move is played on ``S`` instead, like a chance event,
    and the row is -1."""
    idx, rows = bufs.idx, table.rows
    key, m = zwicker_decision(R, S, moves, n, abst, idx)
    r = lookup_or_add(table.keys, table.rowof, rows, table.acts, table.meta, key, arrays.to_move(S), bufs.legal, m)
    if rows[r, R_N] != m:
        kernels.apply_move(R, S, moves[idx[min(int(rand_float(rng) * m), m - 1)]], W)
        return -1, m
    rows[r, R_VIS] += 1
    return r, m


@kernel
def _os_hand(R, abst, who, table, rng, W, moves, bufs, how):
    """One outcome-sampling episode for ``who`` on a freshly dealt hand (the seats :func:`fielded`
    against ``learner`` play greedy, outside the table; ``how`` = (the iteration's weights,
    ``learner``)). Returns (value, the move buffers ``moves``, grown)."""
    w, learner = how
    idx, ret = bufs.idx, bufs.ret
    walk = Walk(bufs.pol, bufs.vals, bufs.path, bufs.reach)
    buf, X = moves.buf, moves.scratch
    S = kernels.new_hand(R, _deal_seed(rng), W)
    k = 0
    walk.reach[0, :] = 1.0  # every reach starts at 1
    while not arrays.is_over(S):
        buf, X, n = kernels.gen_moves(R, S, buf, W, X)
        cur = arrays.to_move(S)
        if fielded(R, cur, learner):  # probability 1 in every reach: left out of them
            kernels.apply_move(R, S, buf[greedy_move(R, S, buf, n, rng)], W)
            continue
        r, m = _enter_decision(R, S, buf, n, abst, table, bufs, rng, W)
        if r < 0:
            continue
        j = os_step(cur, who, k, table.rows[r, R_OFF], m, table.regret, walk, rng)
        kernels.apply_move(R, S, buf[idx[j]], W)
        k += 1
    hand_returns(R, S, ret)
    return os_backward(k, ret[who], who, walk, (table.regret, table.avg), w), Moves(buf, X)


@kernel
def regret_strategy(R, S, moves, m, abst, idx, regret, off, pol):
    """Regret matching over the present abstract actions (``regret[off:off+m]``) in ``pol[:m]``.
    Where no present action has a positive regret (a new set, ``off`` = -1 for an unseen one)
    plain regret matching plays uniformly; ``stakes`` plays the greedy heuristic's action there
    instead. Any strategy keeps regret matching's bound when no regret is positive, so this only
    changes where training starts: greedy, which the probes' action values then correct, rather
    than a uniformly random action, which at a set seen a few times trails jokers and passes up
    captures."""
    if off >= 0:
        present_strategy(regret, off, m, idx, pol, True)
        for a in range(m):
            if idx[a] >= 0 and regret[off + a] > 0.0:
                return
    if abst >= STAKES:  # stakes and stakes-lite
        g = greedy_action(R, S, moves, idx, m)
        for a in range(m):
            pol[a] = 1.0 if a == g else 0.0
    elif off < 0:
        for a in range(m):
            pol[a] = 0.0
        present_strategy(pol, 0, m, idx, pol, False)  # every weight 0: uniform over the present


@kernel
def warm_start(R, S, moves, m, idx, sums, off, prior, w):
    """The greedy prior (module docstring): add ``prior`` times the iteration's weights ``w`` =
    (regret, average) to ``sums`` = (regret, average) at ``off`` + greedy's abstract action of the
    decision at ``S`` (its actions' moves in ``moves[idx[:m]]``). Returns that action (-1: none)."""
    g = greedy_action(R, S, moves, idx, m)
    if g >= 0:
        sums[0][off + g] += prior * w[0]
        sums[1][off + g] += prior * w[1]
    return g


@kernel
def _current_policy(R, S, moves, n, abst, table, idx, pol):
    """The current strategy of ``table`` for the player to move (:func:`regret_strategy`; an
    unseen set has no regrets) in ``pol[:m]``, its abstract actions' moves in ``idx[:m]``;
    returns m."""
    key, m = zwicker_decision(R, S, moves, n, abst, idx)
    r = lookup(table.keys, table.rowof, key)
    off = table.rows[r, R_OFF] if r >= 0 and table.rows[r, R_N] == m else -1
    regret_strategy(R, S, moves, m, abst, idx, table.regret, off, pol)
    return m


class Probe(NamedTuple):
    """A probe's own scratch (:func:`_probe`)."""

    buf: np.ndarray  # the move rows (grows)
    scratch: np.ndarray  # the capture scratch (grows)
    state: np.ndarray  # the probed position, copied in first
    idx: np.ndarray  # the moves of the abstract actions
    pol: np.ndarray  # the current strategy


@kernel
def _probe(R, S, abst, table, rng, W, probe, ret, learner):
    """Play ``S`` (changed in place) to the end, every player sampling its current strategy of
    ``table`` (the seats :func:`fielded` against ``learner`` playing greedy); the returns are in
    ``ret``. Returns ``probe`` with its (possibly grown) move buffers."""
    buf, X, idx, pol = probe.buf, probe.scratch, probe.idx, probe.pol
    while not arrays.is_over(S):
        buf, X, n = kernels.gen_moves(R, S, buf, W, X)
        if fielded(R, arrays.to_move(S), learner):
            kernels.apply_move(R, S, buf[greedy_move(R, S, buf, n, rng)], W)
            continue
        m = _current_policy(R, S, buf, n, abst, table, idx, pol)
        kernels.apply_move(R, S, buf[idx[sample_index(pol, m, rng)]], W)
    hand_returns(R, S, ret)
    return Probe(buf, X, probe.state, idx, pol)


class Training(NamedTuple):
    """How :func:`run_zwicker` trains: the ``sampling`` (``OUTCOME`` or ``PROBE``), the ``field``
    (an index into :data:`ZWICKER_FIELDS`: self-play or the greedy field of the module docstring)
    and the greedy ``prior`` W of a new set (probe sampling; 0.0: none)."""

    sampling: int
    field: int
    prior: float


class Probing(NamedTuple):
    """One probing episode's weighting (:func:`_probe_hand`): the iteration's ``weights``
    (regret, average), ``correct`` = 1 to correct by the reach probabilities, the ``learner``
    side (:func:`fielded`) and the greedy ``prior`` W of a new set (module docstring)."""

    weights: tuple
    correct: int
    learner: int
    prior: float


class Episodes(NamedTuple):
    """What one worker's episodes share (:func:`run_zwicker`): the rules array ``R``, the
    abstraction ``abst``, the ``table`` (:class:`~zwick_ai.agents.cfr.core.TableArrays`), the
    random stream ``rng``, the engine's workspace ``W`` and the episode scratch ``bufs``
    (:class:`Buffers`)."""

    R: np.ndarray
    abst: int
    table: TableArrays
    rng: np.ndarray
    W: np.ndarray
    bufs: Buffers


@kernel
def _probe_hand(z, who, moves, probe, how):
    """One probing episode for ``who`` (``z``: an :class:`Episodes`; module docstring): one hand played on-policy by everybody
    (the seats :func:`fielded` against ``learner`` by greedy, outside the table); at each of
    ``who``'s decisions every other abstract action is valued by one probe, weighted by ``how``
    (a :class:`Probing`). Returns the (possibly grown) ``moves`` and ``probe``."""
    R, abst, table, rng, W, bufs = z.R, z.abst, z.table, z.rng, z.W, z.bufs
    idx, pol, vals, path, ret, reach = bufs.idx, bufs.pol, bufs.vals, bufs.path, bufs.ret, bufs.reach
    rows, regret, avg = table.rows, table.regret, table.avg
    w, correct, learner, prior = how.weights, how.correct, how.learner, how.prior
    buf, X = moves.buf, moves.scratch
    S2 = probe.state
    S = kernels.new_hand(R, _deal_seed(rng), W)
    k = 0
    my = 1.0  # who's own reach: the product of his probabilities of the actions taken so far
    others = 1.0  # the other players' reach (chance, the deal, is the same in every estimate)
    while not arrays.is_over(S):
        buf, X, n = kernels.gen_moves(R, S, buf, W, X)
        cur = arrays.to_move(S)
        if fielded(R, cur, learner):  # greedy: probability 1, left out of the others' reach
            kernels.apply_move(R, S, buf[greedy_move(R, S, buf, n, rng)], W)
            continue
        r, m = _enter_decision(R, S, buf, n, abst, table, bufs, rng, W)
        if r < 0:
            continue
        off = rows[r, R_OFF]
        if prior > 0.0 and rows[r, R_VIS] == 1:  # a set entered for the first time
            warm_start(R, S, buf, m, idx, (regret, avg), off, prior, w)
        regret_strategy(R, S, buf, m, abst, idx, regret, off, pol[k])
        j = sample_index(pol[k], m, rng)
        if cur == who:
            reach[k, 0] = my
            add = w[1] / others if correct else w[1]
            for a in range(m):
                if idx[a] < 0:  # absent here (stakes): no value, no regret
                    vals[k, a] = np.nan
                    continue
                avg[off + a] += add * pol[k, a]
                if a != j:
                    S2[:] = S
                    kernels.apply_move(R, S2, buf[idx[a]], W)
                    probe = _probe(R, S2, abst, table, rng, W, probe, ret, learner)
                    vals[k, a] = ret[who]
            path[k, 0], path[k, 1], path[k, 2], path[k, 3] = off, m, j, 0
            my *= pol[k, j]
            kernels.apply_move(R, S, buf[idx[j]], W)
            k += 1
        else:
            others *= pol[k, j]
            kernels.apply_move(R, S, buf[idx[j]], W)
    hand_returns(R, S, ret)
    v = ret[who]
    for d in range(k):
        off, m, j = path[d, 0], path[d, 1], path[d, 2]
        vals[d, j] = v
        base = 0.0
        for a in range(m):
            if not np.isnan(vals[d, a]):
                base += pol[d, a] * vals[d, a]
        scale = w[0] / reach[d, 0] if correct else w[0]
        for a in range(m):
            if not np.isnan(vals[d, a]):
                regret[off + a] += scale * (vals[d, a] - base)
    return Moves(buf, X), probe


@kernel(nogil=True)  # parallel MCCFR runs one per worker thread
def run_zwicker(R, abst, method, count, margin, table, rng, bufs, weighting):
    """Up to ``count`` iterations (one episode per player each) trained as ``method`` says (a
    :class:`Training`) on ``table`` (:class:`~zwick_ai.agents.cfr.core.TableArrays`), weighted by
    ``weighting`` (:class:`~zwick_ai.learn.cfr.updates.Weighting`); stops early when the table has
    room for fewer than ``margin`` rows or ``4 * margin`` edges (the caller grows it). Returns the
    iterations done."""
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    moves = Moves(buf, X)
    buf2, X2 = kernels.new_buffers()
    S2 = kernels.empty_state(R)  # scratch: each use copies a position in first
    probe = Probe(buf2, X2, S2, np.zeros(MAX_GROUPS, np.int64), np.zeros(MAX_GROUPS, np.float64))
    n_players = arrays.players(R)
    z = Episodes(R, abst, table, rng, W, bufs)
    sampling, field, prior = method.sampling, method.field, method.prior
    rows, acts, meta = table.rows, table.acts, table.meta
    for it in range(count):
        if rows.shape[0] - meta[M_ROWS] < margin or acts.shape[0] - meta[M_EDGES] < 4 * margin:
            return it
        w = weights_at(weighting, it)
        for who in range(n_players):
            learner = arrays.side_of(R, who) if field == GREEDY_FIELD else SELF_PLAY
            if sampling == OUTCOME:
                _, moves = _os_hand(R, abst, who, table, rng, W, moves, bufs, (w, learner))
            else:
                how = Probing(w, weighting.reach, learner, prior)
                moves, probe = _probe_hand(z, who, moves, probe, how)
    return count


def buffers() -> Buffers:
    """Scratch arrays of a traversal (:class:`Buffers`)."""
    legal = np.arange(MAX_GROUPS, dtype=np.int16)
    return Buffers(
        np.zeros(MAX_GROUPS, np.int64),
        legal,
        np.zeros((DEPTH, MAX_GROUPS), np.float64),
        np.zeros((DEPTH, MAX_GROUPS), np.float64),
        np.zeros((DEPTH, PATH_FIELDS), np.int64),
        np.zeros((DEPTH + 1, REACH_FIELDS), np.float64),
        np.zeros(16, np.float64),
    )


@kernel
def table_move(R, S, moves, n, abst, table, rng, scratch, play):
    """Index into ``moves[:n]`` of the move the average strategy of ``table`` plays at ``S``
    (sampled, or with ``play`` = ARGMAX its most likely present action, the first of equal ones),
    or -1 when the abstract set is unseen; ``scratch`` = (the actions' moves, the strategy)."""
    idx, pol = scratch
    key, m = zwicker_decision(R, S, moves, n, abst, idx)
    r = lookup(table.keys, table.rowof, key)
    if r < 0 or table.rows[r, R_N] != m:
        return -1
    present_strategy(table.avg, table.rows[r, R_OFF], m, idx, pol, False)
    if play == ARGMAX:
        return idx[np.argmax(pol[:m])]  # absent actions have probability 0
    return idx[sample_index(pol, m, rng)]


@kernel
def eval_vs(R, abst, seeds, opponent, table, rng, fallback, play):
    """Per deal seed and per seat of ours: the points utility of the table's average strategy
    (played as ``play``, an index into :data:`PLAYS`; ``fallback``, ``POLICY_GREEDY`` or ``POLICY_RANDOM``, where the set is unseen) against
    ``opponent`` (``POLICY_GREEDY`` or ``POLICY_RANDOM``) at every other seat,
    and the count of our decisions and of those taken from the table. The same deals are played
    with our agent at each seat in turn (``out[d, seat]``)."""
    n_players = arrays.players(R)
    out = np.zeros((seeds.shape[0], n_players), np.float64)
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    idx = np.zeros(MAX_GROUPS, np.int64)
    pol = np.zeros(MAX_GROUPS, np.float64)
    ret = np.zeros(16, np.float64)
    asked = 0
    seen = 0
    for d in range(seeds.shape[0]):
        for seat in range(n_players):
            S = kernels.new_hand(R, seeds[d], W)
            np.random.seed(seeds[d] * 31 + seat)  # the greedy ties and random opponents
            while not arrays.is_over(S):
                buf, X, n = kernels.gen_moves(R, S, buf, W, X)
                cur = arrays.to_move(S)
                if arrays.side_of(R, cur) == arrays.side_of(R, seat):
                    asked += 1
                    k = table_move(R, S, buf, n, abst, table, rng, (idx, pol), play)
                    if k >= 0:
                        seen += 1
                    else:
                        k = kernels.choose(R, S, buf, n, fallback)
                else:
                    k = kernels.choose(R, S, buf, n, opponent)
                kernels.apply_move(R, S, buf[k], W)
            hand_returns(R, S, ret)
            out[d, seat] = ret[seat]
    return out, asked, seen


@kernel
def baseline_vs(R, seeds, policy, opponent):
    """``eval_vs``'s deals with a plain engine policy (POLICY_GREEDY or POLICY_RANDOM) in our seats:
    the baseline the table's strategy is compared with, deal by deal."""
    n_players = arrays.players(R)
    out = np.zeros((seeds.shape[0], n_players), np.float64)
    W = kernels.new_workspace()
    buf, X = kernels.new_buffers()
    ret = np.zeros(16, np.float64)
    for d in range(seeds.shape[0]):
        for seat in range(n_players):
            S = kernels.new_hand(R, seeds[d], W)
            np.random.seed(seeds[d] * 31 + seat)
            while not arrays.is_over(S):
                buf, X, n = kernels.gen_moves(R, S, buf, W, X)
                cur = arrays.to_move(S)
                if arrays.side_of(R, cur) == arrays.side_of(R, seat):
                    k = kernels.choose(R, S, buf, n, policy)
                else:
                    k = kernels.choose(R, S, buf, n, opponent)
                kernels.apply_move(R, S, buf[k], W)
            hand_returns(R, S, ret)
            out[d, seat] = ret[seat]
    return out


def strength(
    R: np.ndarray,
    abst: int,
    table: Table,
    deals: int,
    seed: int = 12345,
    opponent: str = "greedy",
    baseline: str = "greedy",
    fallback: str = "greedy",
    play: str = "sample",
) -> dict[str, float]:
    """The table's average strategy (sampled, or with ``play="argmax"`` its most likely action;
    ``fallback``, greedy or random, where unseen) against ``opponent`` on ``deals`` deals,
    our agent at each seat in turn, next to the ``baseline`` policy (greedy or random) in the same
    seats on the same deals: ``ours`` and ``greedy`` (points per deal; ``greedy`` is the
    baseline's), ``diff`` (paired, per deal averaged over the seats) with its 95% CI half-width
    ``ci95``, and ``table_share`` (decisions taken from the table)."""
    if opponent not in OPPONENTS or baseline not in OPPONENTS or fallback not in OPPONENTS:
        raise ValueError(
            f"opponent, baseline and fallback must be one of {', '.join(OPPONENTS)}, "
            f"not {opponent!r}, {baseline!r}, {fallback!r}"
        )
    if play not in PLAYS:
        raise ValueError(f"play must be one of {', '.join(PLAYS)}, not {play!r}")
    seeds = np.arange(deals, dtype=np.int64) + int(seed)
    opp = OPPONENTS[opponent]
    how = (OPPONENTS[fallback], PLAYS.index(play))
    ours, asked, seen = eval_vs(R, abst, seeds, opp, table.compiled(), seed_state(seed), *how)
    base = baseline_vs(R, seeds, OPPONENTS[baseline], opp)
    d = (ours - base).mean(axis=1)
    ci = 1.96 * float(d.std(ddof=1)) / np.sqrt(len(d)) if len(d) > 1 else float("nan")
    return {
        "ours": float(ours.mean()),
        "greedy": float(base.mean()),
        "diff": float(d.mean()),
        "ci95": ci,
        "table_share": seen / max(asked, 1),
    }
