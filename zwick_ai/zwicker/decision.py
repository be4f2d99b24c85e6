"""One decision of a Zwicker hand as compiled searches and learners take it.

Searches, learners and the study code work on the engine's flat arrays, not on game objects. A
:class:`Decision` hands them over in one documented place, so that nobody reaches into the
OpenSpiel state for them: the OpenSpiel ``zwicker`` state makes one with ``state.decision()``.

* ``candidates``: the engine move rows (``MOVE_WIDTH`` int64 columns, :mod:`zwick_ai.zwicker.layout`'s
  ``M_*``) of the legal whole moves still reachable from the current partial move, in the game's order;
* ``position``: the engine position (int32, :mod:`zwick_ai.zwicker.layout`), what the kernels of
  :mod:`zwick_ai.zwicker.kernels` take as ``S``;
* ``rules_array``: the rules the kernels take as ``R``;
* ``record`` and ``game_table``: the whole hand's array (the position, then the deal record and the
  move log of :mod:`zwick_ai.zwicker.history`) and the game's table ``G``
  (:func:`~zwick_ai.zwicker.steps.game_table`), from which :func:`~zwick_ai.zwicker.worlds.resample_setup`
  sets up the worlds consistent with the player's view.

The arrays are the state's own (no copies): read them, copy before writing.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games.zwicker_bridge import state_from_seed
>>> state = state_from_seed(pyspiel.load_game("zwicker(variant=dithmarschen,players=4)"), 7)
>>> d = state.decision()
>>> d.player == state.current_player(), len(d.candidates) == len(d.moves())
(True, True)
>>> [str(m) for m in d.moves()][:2]
['QC=13 takes 9D+KH', 'QC builds 3']
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zwick_ai.zwicker.engine import Move, ZwickerState, move_from_row
from zwick_ai.zwicker.history import SS
from zwick_ai.zwicker.rules import Rules


@dataclass(frozen=True)
class Decision:
    """The arrays of one decision (see the module docstring)."""

    rules: Rules
    player: int
    record: np.ndarray
    candidates: np.ndarray
    game_table: np.ndarray
    win_loss: bool

    @property
    def rules_array(self) -> np.ndarray:
        """The rules array ``R`` (cached by the rules; do not modify)."""
        return self.rules.array()

    @property
    def position(self) -> np.ndarray:
        """The engine position ``S`` (a view of ``record``; do not modify)."""
        return self.record[:SS]

    def engine_state(self) -> ZwickerState:
        """The position as a :class:`~zwick_ai.zwicker.engine.ZwickerState` (a copy)."""
        return ZwickerState(self.rules, self.record[:SS].copy())

    def moves(self) -> list[Move]:
        """The candidates as readable :class:`~zwick_ai.zwicker.engine.Move` objects, in order."""
        state = self.engine_state()
        return [move_from_row(state, row) for row in self.candidates]
