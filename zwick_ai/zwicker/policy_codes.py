"""The codes of "who plays" that compiled playouts take per seat, named once.

The engine's playouts (:func:`~zwick_ai.zwicker.kernels.play_hands`, the searches' rollouts, the
self-play records) take ``POLICY_RANDOM`` or ``POLICY_GREEDY``; the joker rules of
:mod:`zwick_ai.agents.joker_policies` are the greedy player with a rule on joker moves
(``POLICY_EARLY`` .. ``POLICY_LAST_STAGE``, in the order of :data:`JOKER_RULES`); the joker study's
compiled net seats play ``POLICY_NET`` (the learned move model's best move).

>>> JOKER_RULES.index("hold") == POLICY_HOLD
True
"""

from __future__ import annotations

POLICY_RANDOM = 0  # uniform over the legal whole moves
POLICY_GREEDY = 1  # the greedy heuristic (kernels.greedy_value)
POLICY_EARLY = 2  # greedy, a joker capture preferred
POLICY_HOLD = 3  # greedy, never playing a joker from the hand
POLICY_MIN_POINTS = 4  # greedy, a joker only to capture at least k points
POLICY_BUILD = 5  # greedy, a joker only to build (preferred)
POLICY_LAST_STAGE = 6  # greedy, a joker only in the last stage
POLICY_NET = 7  # the learned move model's best move

#: the joker rules' names in code order (a name's index is its code)
JOKER_RULES = ("random", "greedy", "early", "hold", "min_points", "build", "last_stage")
