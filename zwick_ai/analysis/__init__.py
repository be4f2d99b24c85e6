"""Analysis: what games and agents are worth, move by move (:mod:`~zwick_ai.analysis.move_values`,
:mod:`~zwick_ai.analysis.game_analysis`), and the joker study (:mod:`zwick_ai.analysis.joker`)."""

#: worlds per decision when valuing moves: the default of both :mod:`~zwick_ai.analysis.move_values`
#: and the default evaluator (``rollouts``) of :mod:`~zwick_ai.analysis.game_analysis`
DEFAULT_WORLDS = 200
