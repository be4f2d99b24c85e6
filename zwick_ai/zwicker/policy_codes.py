"""The codes of "who plays" that compiled code takes per seat, named once.

Every compiled playout, search rollout, self-play record and batch game takes these codes (an
``int64`` per seat, or one code for all the other seats):

* the engine's playouts (:func:`~zwick_ai.zwicker.kernels.play_hands`,
  :func:`~zwick_ai.zwicker.kernels.choose`) take ``POLICY_RANDOM`` or ``POLICY_GREEDY``, by name
  :data:`PLAYOUT_POLICIES`;
* the joker rules of :mod:`zwick_ai.agents.joker_policies` are the greedy player with a rule on
  joker moves (``POLICY_EARLY`` .. ``POLICY_LAST_STAGE``, in the order of :data:`JOKER_RULES`);
* the learned models' seats play ``POLICY_NET`` (the move model's best move, as the ``net`` agent)
  or ``POLICY_NET_AFTER`` (the after model's best move, as ``net:model=after``);
* the vector games (:mod:`zwick_ai.vector`) also take ``POLICY_RANDOM_ACTION`` (uniform over the
  legal OpenSpiel actions, one sub-action at a time: the ``random`` agent in the trick games, not
  the same distribution over whole Zwicker moves as ``POLICY_RANDOM``) and ``POLICY_CALLER`` (no
  compiled player: the caller's agent plays the seat).

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
POLICY_NET_AFTER = 8  # the learned after model's best move
POLICY_RANDOM_ACTION = 9  # uniform over the legal actions, one sub-action at a time
POLICY_CALLER = -1  # not played in compiled code: the caller plays the seat

#: the play-out players that searches and analyses take by name (``rollout=random|greedy``)
PLAYOUT_POLICIES = {"random": POLICY_RANDOM, "greedy": POLICY_GREEDY}

#: the joker rules' names in code order (a name's index is its code)
JOKER_RULES = ("random", "greedy", "early", "hold", "min_points", "build", "last_stage")
