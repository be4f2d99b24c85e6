"""A Zwicker abstraction's strategy as a policy of the exact game tree, so that its exploitability
(``nash_conv``) can be measured on the micro Zwicker games whose whole tree
:func:`~zwick_ai.learn.cfr.tree.extract` walks.

The abstract strategy chooses whole moves (:mod:`~zwick_ai.agents.cfr.zwicker_abstraction`): at the
start of a turn each abstract action's move gets the action's probability (the other moves 0).
The OpenSpiel game plays a move as several sub-actions, so the tree's policy at a sub-decision is
the conditional probability of the next sub-action given those chosen so far (where the abstract
strategy gives the prefix probability 0: in proportion to the moves continuing it). Every state of one
information set gives the same policy, because the abstraction reads only what the player sees.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.agents.cfr.core import Table
>>> from zwick_ai.learn.cfr.tree import extract
>>> game = pyspiel.load_game(MICRO)
>>> tree = extract(game)
>>> pol = tree_policy(tree, game, Table.empty(16), "coarse")  # an empty table: uniform over abstract actions
>>> bool(np.all(pol >= 0))
True
"""

from __future__ import annotations

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.core import Table, lookup
from zwick_ai.agents.cfr.keys import infoset_key
from zwick_ai.agents.cfr.zwicker_abstraction import (
    MAX_GROUPS,
    present_strategy,
    zwicker_abstraction_id,
    zwicker_decision,
)
from zwick_ai.games import zwicker_bridge
from zwick_ai.learn.cfr.tree import GameTree

# the one-card micro game of benchmarks/README.md (4,695 nodes, 2,580 information sets)
MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"


def move_distribution(state: pyspiel.State, table: Table, abstraction: str) -> list[tuple[list[int], float]]:
    """(sub-actions of each candidate move, its probability under the table's average strategy) at
    the start of a turn; uniform over the abstract actions where the table has no row."""
    decision = state.decision()
    rows = decision.candidates
    out = np.zeros(max(len(rows), MAX_GROUPS), np.int64)
    key, m = zwicker_decision(
        decision.rules_array, decision.record, rows, len(rows), zwicker_abstraction_id(abstraction), out
    )
    probs = np.zeros(m)
    r = lookup(table.keys, table.rowof, key)
    off, n = table.span(r) if r >= 0 else (-1, 0)
    if r >= 0 and n == m:
        present_strategy(table.avg, off, m, out, probs, False)
    else:
        present_strategy(probs, 0, m, out, probs, False)  # zero weights: uniform over the present
    p_row = np.zeros(len(rows))
    present = out[:m] >= 0  # stakes masks the abstract actions absent here
    p_row[out[:m][present]] = probs[present]
    return [(zwicker_bridge.move_actions(state, rows[k]), float(p_row[k])) for k in range(len(rows))]


def tree_policy(tree: GameTree, game: pyspiel.Game, table: Table, abstraction: str) -> np.ndarray:
    """Per edge of ``tree`` (the exact tree of ``game``), the probability the table's abstract
    average strategy gives it (module docstring)."""
    index = {int(k): i for i, k in enumerate(tree.iset_key)}
    pol = np.full(tree.num_edges, -1.0)
    stack: list[tuple[pyspiel.State, list[tuple[list[int], float]] | None]] = [(game.new_initial_state(), None)]
    while stack:
        state, dist = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            for a, _ in state.chance_outcomes():
                stack.append((state.child(a), None))
            continue
        p = state.current_player()
        prefix = state.move_prefix()
        if not prefix:
            dist = move_distribution(state, table, abstraction)
        assert dist is not None, "a move in progress carries its turn's distribution"
        k = len(prefix)
        alive = [(acts, q) for acts, q in dist if acts[:k] == prefix]
        total = sum(q for _, q in alive)
        legal = state.legal_actions()
        mass = {a: 0.0 for a in legal}
        for acts, q in alive:
            mass[acts[k]] += q if total > 0 else 1.0
        norm = sum(mass.values())
        i = index[infoset_key(state, p)]
        off, n = int(tree.iset_off[i]), int(tree.iset_n[i])
        for j in range(n):
            a = int(tree.actions[off + j])
            pol[off + j] = mass[a] / norm
        for a in legal:
            stack.append((state.child(a), dist))
    if np.any(pol < 0):
        raise ValueError("some information sets of the tree were not reached by the walk")
    return pol


__all__ = ["MICRO", "move_distribution", "tree_policy"]
