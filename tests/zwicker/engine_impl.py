"""The numba engine behind the six functions of :mod:`zwick_ai.zwicker.reference`, so that every
rule test and every comparison runs against both implementations."""

from __future__ import annotations

from collections.abc import Sequence

from zwick_ai import zwicker
from zwick_ai.zwicker.engine import ZwickerState
from zwick_ai.zwicker.rules import Rules
from zwick_ai.zwicker.snapshot import MoveKey, Snapshot

name = "engine"


def deal(rules: Rules, order: Sequence[int], dealer: int) -> ZwickerState:
    return zwicker.deal_from_order(rules, order, dealer)


def from_snapshot(rules: Rules, snap: Snapshot) -> ZwickerState:
    return zwicker.from_snapshot(rules, snap)


def snapshot(rules: Rules, st: ZwickerState) -> Snapshot:
    return zwicker.snapshot(st)


def legal_moves(rules: Rules, st: ZwickerState) -> list[MoveKey]:
    return zwicker.legal_keys(st)


def apply(rules: Rules, st: ZwickerState, move: MoveKey) -> ZwickerState:
    return zwicker.apply(st, move)


def score(rules: Rules, st: ZwickerState) -> tuple[int, ...]:
    return zwicker.score(st)


def is_zwick(rules: Rules, st: ZwickerState, move: MoveKey) -> bool:
    return any(m.key == move and m.zwick for m in zwicker.legal_moves(st))
