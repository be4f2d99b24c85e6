"""Merging MCCFR tables that trained apart from one start: the sum of their changes.

Parallel MCCFR (:class:`~zwick_ai.learn.cfr.mccfr.MCCFRSolver` with ``workers > 1``) runs in
rounds. Each round every worker starts from the same table, the merged one, runs its share of
iterations with its own random stream, and the round ends by adding every worker's change to the
start: regrets, average-strategy weights and visit counts are sums over iterations, so the merged
table holds what one table updated by all the round's iterations would hold, except that a worker
did not see the others' updates of the same round (the usual price of parallel CFR, as in
Pluribus's distributed MCCFR). Sets first seen in a round are added in worker order, so the merge is
deterministic.

The rows of a table are only ever appended, so the first rows of every worker's table are the
start's rows at the same places: their changes are array differences; the new rows go through
the hash index.

>>> from zwick_ai.agents.cfr.core import Table, lookup_or_add
>>> start = Table.empty(16)
>>> acts = np.array([0, 1], dtype=np.int16)
>>> _ = lookup_or_add(start.keys, start.rowof, start.rows, start.acts, start.meta, 11, 0, acts, 2)
>>> snap = Snapshot.of(start)
>>> a, b = start, start.copy()
>>> a.regret[:2] += [1.0, -1.0]; b.regret[:2] += [2.0, 0.0]
>>> _ = lookup_or_add(b.keys, b.rowof, b.rows, b.acts, b.meta, 22, 1, acts, 2)
>>> b.regret[2:4] = [5.0, 6.0]
>>> add_changes(a, b, snap)
>>> a.num_rows, a.regret[:4].tolist()
(2, [3.0, -1.0, 5.0, 6.0])
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from zwick_ai.agents.cfr.core import M_ROWS, R_KEY, R_N, R_OFF, R_PLAYER, R_VIS, Table, lookup_or_add
from zwick_ai.jit import kernel


class Snapshot(NamedTuple):
    """What :func:`add_changes` needs of a round's start table."""

    rows: int  # its rows
    edges: int  # its edges
    regret: np.ndarray  # its regrets (copied)
    avg: np.ndarray  # its average-strategy weights (copied)
    visits: np.ndarray  # its rows' visit counts (copied)

    @classmethod
    def of(cls, table: Table) -> Snapshot:
        nr, ne = table.num_rows, table.num_edges
        return cls(nr, ne, table.regret[:ne].copy(), table.avg[:ne].copy(), table.columns().visits.copy())


@kernel
def _add_new_rows(dst, src, first, legal):
    """Rows ``first..`` of ``src`` (sets the start did not have) added into ``dst``: a set ``dst``
    lacks is added with ``src``'s actions; its regrets, weights and visits are added."""
    for r in range(first, src.meta[M_ROWS]):
        off, n = src.rows[r, R_OFF], src.rows[r, R_N]
        for k in range(n):
            legal[k] = src.acts[off + k]
        key = src.rows[r, R_KEY]
        d = lookup_or_add(dst.keys, dst.rowof, dst.rows, dst.acts, dst.meta, key, src.rows[r, R_PLAYER], legal, n)
        if dst.rows[d, R_N] != n:
            raise ValueError("merging CFR tables: one information-set key with different action counts")
        doff = dst.rows[d, R_OFF]
        for k in range(n):
            dst.regret[doff + k] += src.regret[off + k]
            dst.avg[doff + k] += src.avg[off + k]
        dst.rows[d, R_VIS] += src.rows[r, R_VIS]


def add_changes(dst: Table, src: Table, start: Snapshot) -> None:
    """Add to ``dst`` what ``src`` changed since the round's ``start`` (both began as that table)."""
    nr, ne = start.rows, start.edges
    if src.num_rows < nr or src.num_edges < ne or dst.num_rows < nr or dst.num_edges < ne:
        raise ValueError("merging CFR tables: a table has fewer rows than the round's start")
    dst.regret[:ne] += src.regret[:ne] - start.regret
    dst.avg[:ne] += src.avg[:ne] - start.avg
    dst.columns(0, nr).visits[:] += src.columns(0, nr).visits - start.visits
    dst.reserve(src.num_rows - nr, src.num_edges - ne)
    width = int(src.columns(nr).n.max()) if src.num_rows > nr else 1
    _add_new_rows(dst.compiled(), src.compiled(), nr, np.zeros(width, np.int16))
