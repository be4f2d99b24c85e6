"""Compiled building blocks of the CFR family: a seeded random stream whose whole state is one
``uint64`` (so a checkpoint can save and resume it exactly), regret matching, and an
open-addressing hash map from 64-bit information-set keys to table rows.

The table (:class:`Table`) keeps, per information set (row): its key, player, the legal actions
and per action the cumulative regret and the cumulative (average-strategy) weight. Rows are
stored in insertion order, so growing the hash index never changes what a traversal computes.

>>> t = Table.empty(16)
>>> acts = np.array([3, 7], dtype=np.int16)
>>> r = lookup_or_add(t.keys, t.rowof, t.rows, t.acts, t.meta, 12345, 1, acts, 2)
>>> r, lookup(t.keys, t.rowof, 12345), lookup(t.keys, t.rowof, 999)
(0, 0, -1)
>>> s = np.array([7], dtype=np.uint64); a = rand_float(s); b = rand_float(s)
>>> 0.0 <= a < 1.0 and a != b
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from zwick_ai.jit import kernel

# meta slots of a table
M_ROWS, M_EDGES = 0, 1
# row fields (int64 columns of ``rows``); R_VIS counts a trick-game traversal's visits of the set
R_KEY, R_PLAYER, R_OFF, R_N, R_VIS = 0, 1, 2, 3, 4
ROW_FIELDS = 5

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@kernel
def sort_together(vals, out, n):
    """Insertion sort of ``out[:n]`` and ``vals[:n]`` together by ``vals`` (stable: a handful of
    abstract actions)."""
    for i in range(1, n):
        v, o = vals[i], out[i]
        j = i - 1
        while j >= 0 and vals[j] > v:
            vals[j + 1], out[j + 1] = vals[j], out[j]
            j -= 1
        vals[j + 1], out[j + 1] = v, o


# ---- random stream (splitmix64) -------------------------------------------------------------------
@kernel
def mix64(z):
    """The splitmix64 finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


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


# ---- regret matching --------------------------------------------------------------------------------
@kernel
def regret_matching(regret, off, n, out):
    """``out[:n]`` = positive regrets normalised (uniform when none is positive), like OpenSpiel."""
    total = 0.0
    for i in range(n):
        if regret[off + i] > 0.0:
            total += regret[off + i]
    if total > 0.0:
        for i in range(n):
            out[i] = regret[off + i] / total if regret[off + i] > 0.0 else 0.0
    else:
        for i in range(n):
            out[i] = 1.0 / n


@kernel
def normalised(weights, off, n, out):
    """``out[:n]`` = the weights normalised (uniform when they sum to zero): an average strategy."""
    total = 0.0
    for i in range(n):
        total += weights[off + i]
    for i in range(n):
        out[i] = weights[off + i] / total if total > 0.0 else 1.0 / n


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
    path: np.ndarray  # (depth, 4) int64: (player, edge offset, action count, action taken)
    reach: np.ndarray  # (depth + 1, 3) float64: (own reach, the others' reach, sampling reach)


@kernel
def os_update(who, step, child, pol, sp, reach, table, w):
    """OpenSpiel's outcome-sampling update at a node (``step``: its row of :attr:`Walk.path`,
    ``reach``: its row of :attr:`Walk.reach`) for the traverser ``who``, the regrets and average
    weights (``table``: (regret, avg)) added with the iteration's weights ``w`` = (regret weight,
    average weight) of :func:`iteration_weights`; returns the value estimate."""
    regret, avg = table
    mine = step[0] == who
    off, n, j = step[1], step[2], step[3]
    my, opp, samp = reach[0], reach[1], reach[2]
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
    path[k, 0], path[k, 1], path[k, 2], path[k, 3] = cur, off, n, j
    my, opp, samp = reach[k, 0], reach[k, 1], reach[k, 2]
    reach[k + 1, 0] = my * pol[k, j] if cur == who else my
    reach[k + 1, 1] = opp if cur == who else opp * pol[k, j]
    reach[k + 1, 2] = samp * sp[k, j]
    return j


# ---- hash map ---------------------------------------------------------------------------------------
@kernel
def _slot(keys, key):
    """The slot holding ``key``, or the empty slot where it would go (linear probing)."""
    mask = keys.shape[0] - 1
    i = np.int64(mix64(np.uint64(key)) & np.uint64(mask))
    while keys[i] != 0 and keys[i] != key:
        i = (i + 1) & mask
    return i


@kernel
def lookup(keys, rowof, key):
    """The row of ``key`` (non-zero), or -1."""
    i = _slot(keys, key)
    return rowof[i] if keys[i] == key else -1


@kernel
def lookup_or_add(keys, rowof, rows, acts, meta, key, player, legal, n):
    """The row of ``key``; a new row with actions ``legal[:n]`` (zero regrets and weights) if absent.
    The caller keeps the table at most half full (see :meth:`Table.reserve`)."""
    i = _slot(keys, key)
    if keys[i] == key:
        return rowof[i]
    r = meta[M_ROWS]
    e = meta[M_EDGES]
    if r >= rows.shape[0] or e + n > acts.shape[0] or 2 * (r + 1) > keys.shape[0]:
        raise ValueError("CFR table full: reserve more room between iterations")
    keys[i] = key
    rowof[i] = r
    rows[r, R_KEY] = key
    rows[r, R_PLAYER] = player
    rows[r, R_OFF] = e
    rows[r, R_N] = n
    for k in range(n):
        acts[e + k] = legal[k]
    meta[M_ROWS] = r + 1
    meta[M_EDGES] = e + n
    return r


@kernel
def rebuild_index(keys, rowof, rows, nrows):
    """Re-insert rows ``0..nrows-1`` into an empty index (after growing it)."""
    for r in range(nrows):
        i = _slot(keys, rows[r, R_KEY])
        keys[i] = rows[r, R_KEY]
        rowof[i] = r


class TableArrays(NamedTuple):
    """A :class:`Table`'s arrays as compiled code takes them (:meth:`Table.compiled`); the fields
    are the table's."""

    keys: np.ndarray
    rowof: np.ndarray
    rows: np.ndarray
    acts: np.ndarray
    regret: np.ndarray
    avg: np.ndarray
    meta: np.ndarray


@dataclass
class Table:
    """Tabular regrets and average-strategy weights keyed by int64 information-set keys.

    ``keys``/``rowof``: the hash index (power-of-two size, 0 = empty); ``rows``: per row key,
    player, offset, number of actions and visits (engine traversals); ``acts``, ``regret``, ``avg``: per edge (row action).
    ``meta`` = [rows used, edges used]."""

    keys: np.ndarray
    rowof: np.ndarray
    rows: np.ndarray
    acts: np.ndarray
    regret: np.ndarray
    avg: np.ndarray
    meta: np.ndarray

    @classmethod
    def empty(cls, rows: int = 1 << 12, edges_per_row: int = 4) -> Table:
        rows = max(16, int(rows))
        edges = rows * edges_per_row
        size = 1 << int(np.ceil(np.log2(2 * rows)))
        return cls(
            np.zeros(size, np.int64),
            np.full(size, -1, np.int32),
            np.zeros((rows, ROW_FIELDS), np.int64),
            np.zeros(edges, np.int16),
            np.zeros(edges, np.float64),
            np.zeros(edges, np.float64),
            np.zeros(2, np.int64),
        )

    @property
    def num_rows(self) -> int:
        return int(self.meta[M_ROWS])

    @property
    def num_edges(self) -> int:
        return int(self.meta[M_EDGES])

    def room(self) -> tuple[int, int]:
        """(rows, edges) that can still be added."""
        return self.rows.shape[0] - self.num_rows, self.acts.shape[0] - self.num_edges

    def reserve(self, rows: int, edges: int) -> None:
        """Grow (doubling) until ``rows`` more rows and ``edges`` more edges fit."""
        nr, ne = self.num_rows, self.num_edges
        cap_r, cap_e = self.rows.shape[0], self.acts.shape[0]
        while cap_r - nr < rows:
            cap_r *= 2
        while cap_e - ne < edges:
            cap_e *= 2
        if cap_r != self.rows.shape[0]:
            grown = np.zeros((cap_r, ROW_FIELDS), np.int64)
            grown[:nr] = self.rows[:nr]
            self.rows = grown
            size = 1 << int(np.ceil(np.log2(2 * cap_r)))
            self.keys = np.zeros(size, np.int64)
            self.rowof = np.full(size, -1, np.int32)
            rebuild_index(self.keys, self.rowof, self.rows, nr)
        if cap_e != self.acts.shape[0]:
            for name, dtype in (("acts", np.int16), ("regret", np.float64), ("avg", np.float64)):
                old = getattr(self, name)
                new = np.zeros(cap_e, dtype)
                new[:ne] = old[:ne]
                setattr(self, name, new)

    def copy(self) -> Table:
        """An independent copy (every array copied)."""
        return Table(*(a.copy() for a in self.compiled()))

    def compiled(self) -> TableArrays:
        """The arrays as compiled code takes them (the current ones: :meth:`reserve` replaces them)."""
        return TableArrays(self.keys, self.rowof, self.rows, self.acts, self.regret, self.avg, self.meta)

    def arrays(self) -> dict[str, np.ndarray]:
        """The used part, for saving (the index is rebuilt on load)."""
        nr, ne = self.num_rows, self.num_edges
        return {"rows": self.rows[:nr], "acts": self.acts[:ne], "regret": self.regret[:ne], "avg": self.avg[:ne]}

    @classmethod
    def from_arrays(cls, rows: np.ndarray, acts: np.ndarray, regret: np.ndarray, avg: np.ndarray) -> Table:
        nr, ne = rows.shape[0], acts.shape[0]
        if rows.ndim == 2 and rows.shape[1] == ROW_FIELDS - 1:  # written before visits were counted
            rows = np.concatenate([rows, np.zeros((nr, 1), rows.dtype)], axis=1)
        if rows.ndim != 2 or rows.shape[1] != ROW_FIELDS or regret.shape != (ne,) or avg.shape != (ne,):
            raise ValueError("corrupt CFR table: inconsistent array shapes")
        if nr and (rows[:, R_OFF].min() < 0 or (rows[:, R_OFF] + rows[:, R_N]).max() > ne or rows[:, R_N].min() < 1):
            raise ValueError("corrupt CFR table: row offsets outside the action arrays")
        if nr and (np.any(rows[:, R_KEY] == 0) or len(np.unique(rows[:, R_KEY])) != nr):
            raise ValueError("corrupt CFR table: zero or repeated information-set keys")
        t = cls.empty(max(nr, 16), 1)
        t.reserve(nr, ne)
        t.rows[:nr] = rows
        t.acts[:ne] = acts
        t.regret[:ne] = regret
        t.avg[:ne] = avg
        t.meta[:] = (nr, ne)
        rebuild_index(t.keys, t.rowof, t.rows, nr)
        return t
