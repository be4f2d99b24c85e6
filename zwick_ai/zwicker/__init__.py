"""Zwicker, the North German fishing game (docs/rules.md Part A): rules, engine, position API.

>>> from zwick_ai import zwicker
>>> r = zwicker.rules("dithmarschen", players=4)
>>> s = zwicker.deal(r, seed=7)
>>> len(zwicker.hand(s, 0)), len(zwicker.table(s))
(4, 3)
"""

from zwick_ai.zwicker.engine import (
    Move,
    ZwickerState,
    apply,
    apply_row,
    deal,
    deal_from_order,
    format_unit,
    from_snapshot,
    hand,
    is_over,
    legal_keys,
    legal_moves,
    legal_rows,
    position,
    render,
    score,
    snapshot,
    stock,
    table,
    to_move,
    won,
    zwicks,
)
from zwick_ai.zwicker.rules import OPTIONS, VARIANTS, Rules, rules
from zwick_ai.zwicker.snapshot import MoveKey, Snapshot, Unit

__all__ = [
    "OPTIONS",
    "VARIANTS",
    "Move",
    "MoveKey",
    "Rules",
    "Snapshot",
    "Unit",
    "ZwickerState",
    "apply",
    "apply_row",
    "deal",
    "deal_from_order",
    "format_unit",
    "from_snapshot",
    "hand",
    "is_over",
    "legal_keys",
    "legal_moves",
    "legal_rows",
    "position",
    "render",
    "rules",
    "score",
    "snapshot",
    "stock",
    "table",
    "to_move",
    "won",
    "zwicks",
]
