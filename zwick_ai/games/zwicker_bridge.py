"""Conversions between the Zwicker engine (:mod:`zwick_ai.zwicker`) and the OpenSpiel ``zwicker``
game, so native agents (whole moves) and OpenSpiel agents (sub-actions) can play the same deals.

* :func:`seed_actions` / :func:`state_from_seed`: the OpenSpiel deal of ``zwicker.deal(rules, seed)``
  (same dealer, hands, table cards and stages; the chance model deals each group as an increasing
  run, so only the order of table units and of cards inside a hand may differ, see
  :func:`same_position`).
* :func:`deal_actions`: chance actions for an explicit deck order and dealer.
* :func:`engine_state`, :func:`move_actions`, :func:`actions_move`, :func:`legal_moves`,
  :func:`apply_move`: positions and moves both ways.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai import zwicker
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
>>> state = state_from_seed(game, 7)
>>> same_position(state, zwicker.deal(game.rules, seed=7))
True
>>> move = zwicker.legal_moves(engine_state(state))[0]
>>> [state.action_to_string(a) for a in move_actions(state, move)] == move_tokens_text(state, move)
True
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pyspiel

from zwick_ai import zwicker
from zwick_ai.zwicker import arrays
from zwick_ai.zwicker import codec as zwicker_codec
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker.engine import move_from_row
from zwick_ai.zwicker.snapshot import MoveKey
from zwick_ai.zwicker.steps import seed_chance_k

Move = zwicker.Move


def engine_state(state: pyspiel.State) -> zwicker.ZwickerState:
    """The engine position of an OpenSpiel ``zwicker`` state (a copy; only after the deal)."""
    if not state.dealt():
        raise ValueError("the deal is not finished: no engine position yet")
    return state.engine_state()


def deal_actions(game: pyspiel.Game, order: Sequence[int], dealer: int, cut: Sequence[int] | None = None) -> list[int]:
    """Chance actions dealing the deck ``order`` (card ids, first dealt first) with ``dealer``.

    With ``first_dealer`` a cut, ``cut`` is the shuffled cut deck (card ids); the cut then has to
    pick ``dealer``. Each chance group receives the same cards as in ``order``.
    """
    rules, codec, tables = game.rules, game.codec, game.tables
    if sorted(order) != list(rules.deck):
        raise ValueError("order must be a permutation of the rules' deck")
    if not 0 <= dealer < rules.players:
        raise ValueError(f"dealer must be a seat in 0..{rules.players - 1}")
    state = game.new_initial_state()
    actions: list[int] = []
    if rules.first_dealer == "random":
        actions.append(dealer)
        state.apply_action(dealer)
    else:
        if cut is None:
            raise ValueError(f"first_dealer={rules.first_dealer}: give the cut deck (cut=...)")
        for c in cut:
            if state.dealer() >= 0:
                break
            a = codec.index(int(c))
            actions.append(a)
            state.apply_action(a)
        if state.dealer() != dealer:
            raise ValueError(f"the cut {list(cut)[:8]}... makes seat {state.dealer()} the dealer, not {dealer}")
    for _, _, positions in tables.groups[dealer]:
        for c in sorted(int(order[p]) for p in positions):
            actions.append(codec.index(c))
    return actions


def seed_actions(game: pyspiel.Game, seed: int) -> list[int]:
    """Chance actions for the deal ``zwicker.deal(game.rules, seed)`` makes."""
    return [int(a) for a in seed_chance_k(game.tables.game_table, int(seed))]


def state_from_seed(game: pyspiel.Game, seed: int) -> pyspiel.State:
    """A new OpenSpiel state after the deal of ``zwicker.deal(game.rules, seed)``."""
    state = game.new_initial_state()
    for a in seed_actions(game, seed):
        state.apply_action(a)
    return state


def same_position(state: pyspiel.State, position: zwicker.ZwickerState) -> bool:
    """True when the OpenSpiel state's engine position equals ``position`` up to the order of table
    units (which carries no meaning) and of the undealt stock within each future hand."""
    a = zwicker.snapshot(engine_state(state)).canonical()
    b = zwicker.snapshot(position).canonical()
    return a.__dict__ | {"stock": sorted(a.stock)} == b.__dict__ | {"stock": sorted(b.stock)}


def _row_of(state: pyspiel.State, move: Move | MoveKey | str | np.ndarray | Sequence[int]) -> np.ndarray:
    es = engine_state(state)
    if isinstance(move, Move | MoveKey | str):
        if isinstance(move, Move):
            move = move.key  # rows hold table indices: compare by identity (cards), not by row
        moves = zwicker.legal_moves(es)
        for m in moves:
            if m.key == move or (isinstance(move, str) and str(m) == move.strip()):
                return np.asarray(m.row, np.int64)
        shown = "; ".join(str(m) for m in moves[:30])
        raise ValueError(f"{move!s} is not a legal move here; legal: {shown}")
    return np.asarray(move, np.int64)


def move_actions(state: pyspiel.State, move: Move | MoveKey | str | np.ndarray | Sequence[int]) -> list[int]:
    """The sub-actions that make the whole ``move`` (a legal engine move, its key, its string, or
    a kernel move record) from a state at the start of a turn."""
    if state.is_chance_node() or state.is_terminal():
        raise ValueError("not a decision state")
    if state.move_prefix():
        raise ValueError("a move is in progress; finish it first")
    t = state.tables
    row = _row_of(state, move)
    out = np.empty(zwicker_codec.TOK0 + 70, np.int64)
    es = engine_state(state)
    n = zwicker_codec.encode_row(
        t.game_table[: zwicker_history.GB_CD],
        es.arr,
        t.game_table[zwicker_history.GB_CD : zwicker_history.GB_CD + zwicker_codec.CODEC_SIZE],
        row,
        out,
    )
    tokens = out[:n].tolist()
    legal = state.candidate_rows()
    if arrays.find_move(legal, row) < 0:
        raise ValueError("not a legal move here")
    return tokens


def move_tokens_text(state: pyspiel.State, move: Move | MoveKey | str) -> list[str]:
    """The readable sub-actions of a whole move (``['QS', 'as 13', 'take QD', 'done']``)."""
    return [state.action_to_string(a) for a in move_actions(state, move)]


def actions_move(state: pyspiel.State, actions: Sequence[int]) -> Move:
    """The engine move that the complete sub-action sequence ``actions`` makes from ``state``."""
    child = state.clone()
    plies = child.num_plies()
    for i, a in enumerate(actions):
        if a not in child.legal_actions():
            raise ValueError(f"sub-action {a} ({state.action_to_string(a)}) is not legal at step {i}")
        child.apply_action(a)
        if child.num_plies() > plies:
            if i != len(actions) - 1:
                raise ValueError("the sequence continues past a complete move")
            break
    else:
        raise ValueError("the sequence does not complete a move")
    # the game logged the legal move it applied: describe that row (listing every legal move to find
    # it costs seconds on the huge tables of random play)
    return move_from_row(engine_state(state), child.logged_row(plies))


def legal_moves(state: pyspiel.State) -> list[tuple[Move, list[int]]]:
    """Every legal whole move with its sub-action sequence (at the start of a turn)."""
    # by each move's own row of this state (naming it by key would list every move again: quadratic)
    return [(m, move_actions(state, np.asarray(m.row, np.int64))) for m in zwicker.legal_moves(engine_state(state))]


def apply_move(state: pyspiel.State, move: Move | MoveKey | str | np.ndarray | Sequence[int]) -> None:
    """Apply a whole engine move to an OpenSpiel state (in place) through its sub-actions."""
    for a in move_actions(state, move):
        state.apply_action(a)


__all__ = [
    "actions_move",
    "apply_move",
    "deal_actions",
    "engine_state",
    "legal_moves",
    "move_actions",
    "move_tokens_text",
    "same_position",
    "seed_actions",
    "state_from_seed",
]
