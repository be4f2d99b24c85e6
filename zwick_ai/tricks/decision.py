"""One decision of a trick game (Zwikken, Zwicken) as compiled searches and learners take it.

Searches, solvers and the study code work on the trick engine's flat arrays, not on game objects. A
:class:`TrickDecision` hands them over in one documented place, so that nobody reaches into the
OpenSpiel state for them: the OpenSpiel ``zwikken`` and ``zwicken`` states make one with
``state.decision()``.

* ``position``: the position (int32, :mod:`zwick_ai.tricks.layout`'s ``S_*``), what the kernels of
  :mod:`zwick_ai.tricks.kernels` take as the state array;
* ``config``: the rule set's ``cfg`` array (``C_*``), what the kernels take beside it;
* ``player``: the seat to act (``layout.CUR_CHANCE`` at a chance node, ``layout.CUR_OVER`` at the end).

The arrays are the state's own (no copies): read them, copy before writing.

>>> import pyspiel, zwick_ai.games
>>> from zwick_ai.games.seeded_deals import deal
>>> state = deal(pyspiel.load_game("zwikken(variant=parlett,players=3)"), 5)
>>> d = state.decision()
>>> d.player == state.current_player(), d.legal_actions() == state.legal_actions()
(True, True)
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout
from zwick_ai.tricks.engine import TrickState
from zwick_ai.tricks.rules import TrickRules


@dataclass(frozen=True)
class TrickDecision:
    """The arrays of one trick-game decision (see the module docstring)."""

    rules: TrickRules
    position: np.ndarray

    @property
    def config(self) -> np.ndarray:
        """The rule set's ``cfg`` array (do not modify)."""
        return self.rules.cfg

    @property
    def player(self) -> int:
        """The seat to act, or ``CUR_CHANCE`` / ``CUR_OVER``."""
        return int(self.position[tricks_layout.S_CUR])

    def legal_actions(self) -> list[int]:
        """The legal actions of the seat to act, ascending (none at a chance node or the end)."""
        return [int(a) for a in tricks_kernels.legal_actions(self.position, self.config)]

    def trick_state(self) -> TrickState:
        """The position as a :class:`~zwick_ai.tricks.engine.TrickState` (a copy)."""
        return TrickState(self.rules, self.position.copy(), None)
