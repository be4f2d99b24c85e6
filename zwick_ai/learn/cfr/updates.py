"""Compiled building blocks that only training uses: the seeded random stream whose whole state is
one ``uint64`` (so a checkpoint can save and resume it exactly), the weighting of iterations
(Linear and Discounted CFR) and OpenSpiel's outcome-sampling update, shared by the trick, tree and
Zwicker traversals of :mod:`~zwick_ai.learn.cfr.mccfr` and :mod:`~zwick_ai.learn.cfr.zwicker_mccfr`.
What a policy needs at play time (the table, regret matching, keys) stays in
:mod:`zwick_ai.agents.cfr.core`.

>>> s = seed_state(7); a = rand_float(s); b = rand_float(s)
>>> 0.0 <= a < 1.0 and a != b
True
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents.cfr.core import mix64, regret_matching
from zwick_ai.jit import kernel

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


# ---- random stream (splitmix64) -------------------------------------------------------------------
@kernel
def rand_u64(state):
    """Next uint64 of the splitmix64 stream whose state is ``state[0]`` (advanced in place)."""
    state[0] += _GOLDEN
    return mix64(state[0])


@kernel
def rand_float(state):
    """A uniform float in [0, 1) with 53 random bits."""
    return np.float64(rand_u64(state) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


def seed_state(seed: int) -> np.ndarray:
    """The stream state for ``seed`` (a one-element uint64 array)."""
    if not isinstance(seed, int | np.integer) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, not {seed!r}")
    return np.array([int(seed) * 0x9E3779B97F4A7C15 % 2**64], dtype=np.uint64)


@kernel
def sample_index(probs, n, state):
    """Index drawn from the first ``n`` entries of ``probs`` (they sum to 1)."""
    u = rand_float(state)
    acc = 0.0
    for i in range(n):
        acc += probs[i]
        if u < acc:
            return i
    # rounding: the last index with positive probability
    for i in range(n - 1, -1, -1):
        if probs[i] > 0.0:
            return i
    return n - 1


# ---- weighting by iteration (Linear and Discounted CFR) -----------------------------------------------
#: how an MCCFR run weights iteration ``t``'s regrets and average-strategy contributions
#: (:func:`iteration_weights`)
AVERAGINGS = ("uniform", "linear", "discounted")
UNIFORM, LINEAR, DISCOUNTED = 0, 1, 2


@kernel
def iteration_weights(t, averaging):
    """(regret weight, average weight) of iteration ``t`` (1, 2, ...): ``uniform`` (1, 1), plain
    MCCFR; ``linear`` (t, t), Linear CFR; ``discounted`` (t, t**2), Discounted CFR with alpha = beta
    = 1 and gamma = 2 (Brown and Sandholm, AAAI 2019). Weighting iteration ``t``'s increments by
    t**a is the lazy form of multiplying everything accumulated before by (t / (t + 1))**a after
    each iteration (the products telescope to (t / T)**a), so no table row is touched when it is
    not visited. DCFR's separate discount of negative regrets (beta = 0) has no lazy form; here
    negative regrets are discounted like positive ones."""
    if averaging == LINEAR:
        return float(t), float(t)
    if averaging == DISCOUNTED:
        return float(t), float(t) * float(t)
    return 1.0, 1.0


class Weighting(NamedTuple):
    """How one call of a compiled MCCFR loop weights its updates: its ``i``-th iteration (0, 1, ...)
    is iteration number ``first + i * stride`` of the run (parallel workers interleave their
    numbers: stride = workers), weighted by ``averaging`` (an index into :data:`AVERAGINGS`);
    ``reach`` (probe sampling of :mod:`~zwick_ai.learn.cfr.zwicker_mccfr`): 1 to correct the
    updates by the sampled reach probabilities, 0 not to."""

    first: int
    stride: int
    averaging: int
    reach: int


@kernel
def weights_at(weighting, i):
    """:func:`iteration_weights` of the ``i``-th iteration of a call weighted by ``weighting``."""
    return iteration_weights(weighting.first + i * weighting.stride, weighting.averaging)


def plain_weighting(first: int = 1, stride: int = 1) -> Weighting:
    """Uniform weights, no reach correction: plain MCCFR."""
    return Weighting(int(first), int(stride), UNIFORM, 0)


# ---- outcome sampling (OpenSpiel's update, shared by the trick, tree and Zwicker traversals) ------------
EXPLORATION = 0.6  # OpenSpiel's outcome-sampling default


class Walk(NamedTuple):
    """The per-depth scratch of one outcome-sampling episode (:func:`os_step`, :func:`os_backward`):
    row ``k`` is the episode's ``k``-th decision."""

    pol: np.ndarray  # (depth, width) float64: the current (regret-matching) strategy
    sp: np.ndarray  # (depth, width) float64: the sampling policy
    path: np.ndarray  # (depth, PATH_FIELDS) int64: the columns PATH_*
    reach: np.ndarray  # (depth + 1, REACH_FIELDS) float64: the columns REACH_*


# the columns of :attr:`Walk.path`: the player to move, the row's edge offset, its action count, the action taken
PATH_PLAYER, PATH_OFF, PATH_N, PATH_ACTION = 0, 1, 2, 3
PATH_FIELDS = 4
# the columns of :attr:`Walk.reach`: the traverser's own reach, the others' (chance's included), the sampling reach
REACH_OWN, REACH_OTHERS, REACH_SAMPLING = 0, 1, 2
REACH_FIELDS = 3


@kernel
def os_update(who, step, child, pol, sp, reach, table, w):
    """OpenSpiel's outcome-sampling update at a node (``step``: its row of :attr:`Walk.path`,
    ``reach``: its row of :attr:`Walk.reach`) for the traverser ``who``, the regrets and average
    weights (``table``: (regret, avg)) added with the iteration's weights ``w`` = (regret weight,
    average weight) of :func:`iteration_weights`; returns the value estimate."""
    regret, avg = table
    mine = step[PATH_PLAYER] == who
    off, n, j = step[PATH_OFF], step[PATH_N], step[PATH_ACTION]
    my, opp, samp = reach[REACH_OWN], reach[REACH_OTHERS], reach[REACH_SAMPLING]
    cj = child / sp[j]
    value = pol[j] * cj
    if mine:
        for i in range(n):
            cfa = (cj if i == j else 0.0) * opp / samp
            regret[off + i] += w[0] * (cfa - value * opp / samp)
        for i in range(n):
            avg[off + i] += w[1] * my * pol[i] / samp
    return value


@kernel
def os_backward(d, v, who, walk, table, w):
    """The outcome-sampling updates along the first ``d`` decisions of ``walk``, deepest first
    (``table``, ``w``: as in :func:`os_update`)."""
    for k in range(d - 1, -1, -1):
        v = os_update(who, walk.path[k], v, walk.pol[k], walk.sp[k], walk.reach[k], table, w)
    return v


@kernel
def os_step(cur, who, k, off, n, regret, walk, rng):
    """Sample the action at the ``k``-th decision of an outcome-sampling ``walk``; record it."""
    pol, sp, path, reach = walk.pol, walk.sp, walk.path, walk.reach
    regret_matching(regret, off, n, pol[k])
    for i in range(n):
        sp[k, i] = EXPLORATION / n + (1.0 - EXPLORATION) * pol[k, i] if cur == who else pol[k, i]
    j = sample_index(sp[k], n, rng)
    path[k, PATH_PLAYER], path[k, PATH_OFF], path[k, PATH_N], path[k, PATH_ACTION] = cur, off, n, j
    my, opp, samp = reach[k, REACH_OWN], reach[k, REACH_OTHERS], reach[k, REACH_SAMPLING]
    reach[k + 1, REACH_OWN] = my * pol[k, j] if cur == who else my
    reach[k + 1, REACH_OTHERS] = opp if cur == who else opp * pol[k, j]
    reach[k + 1, REACH_SAMPLING] = samp * sp[k, j]
    return j


__all__ = [
    "AVERAGINGS",
    "DISCOUNTED",
    "EXPLORATION",
    "LINEAR",
    "PATH_ACTION",
    "PATH_FIELDS",
    "PATH_N",
    "PATH_OFF",
    "PATH_PLAYER",
    "REACH_FIELDS",
    "REACH_OTHERS",
    "REACH_OWN",
    "REACH_SAMPLING",
    "UNIFORM",
    "Walk",
    "Weighting",
    "iteration_weights",
    "os_backward",
    "os_step",
    "os_update",
    "plain_weighting",
    "rand_float",
    "rand_u64",
    "sample_index",
    "seed_state",
    "weights_at",
]
