"""Compiled building blocks of the CFR family that a policy needs at play time: a 64-bit mix,
regret matching, and an open-addressing hash map from 64-bit information-set keys to table rows.
What only training uses (the random stream, iteration weights, the outcome-sampling update) is in
:mod:`zwick_ai.learn.cfr.updates`.

The table (:class:`Table`) keeps, per information set (row): its key, player, the legal actions
and per action the cumulative regret and the cumulative (average-strategy) weight. Rows are
stored in insertion order, so growing the hash index never changes what a traversal computes.

>>> t = Table.empty(16)
>>> acts = np.array([3, 7], dtype=np.int16)
>>> r = lookup_or_add(t.keys, t.rowof, t.rows, t.acts, t.meta, 12345, 1, acts, 2)
>>> r, lookup(t.keys, t.rowof, 12345), lookup(t.keys, t.rowof, 999)
(0, 0, -1)
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


# ---- 64-bit mix (splitmix64's finaliser) ----------------------------------------------------------
@kernel
def mix64(z):
    """The splitmix64 finaliser: a bijective scramble of a uint64."""
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


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


class RowColumns(NamedTuple):
    """Rows of a :class:`Table` column by column (:meth:`Table.columns`): views, not copies."""

    key: np.ndarray
    player: np.ndarray
    off: np.ndarray  # the row's first edge in ``acts``, ``regret`` and ``avg``
    n: np.ndarray  # its number of actions
    visits: np.ndarray


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

    def columns(self, first: int = 0, last: int | None = None) -> RowColumns:
        """Rows ``first .. last - 1`` (to the last used row without ``last``) column by column."""
        rows = self.rows[first : self.num_rows if last is None else last]
        return RowColumns(rows[:, R_KEY], rows[:, R_PLAYER], rows[:, R_OFF], rows[:, R_N], rows[:, R_VIS])

    def span(self, row: int) -> tuple[int, int]:
        """(first edge, number of actions) of ``row``: its part of ``acts``, ``regret`` and ``avg``."""
        return int(self.rows[row, R_OFF]), int(self.rows[row, R_N])

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
