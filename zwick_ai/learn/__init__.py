"""Training and solving: what makes the weights and policy files that the agents of
:mod:`zwick_ai.agents` read and play.

* :mod:`~zwick_ai.learn.value_train` fits the move and value models (``zwick train value``,
  scikit-learn) on :mod:`~zwick_ai.learn.value_selfplay`'s compiled greedy self-play;
* :mod:`~zwick_ai.learn.net_train` trains the afterstate network in generations of compiled
  self-play (:mod:`~zwick_ai.learn.net_selfplay`; ``zwick train net``, PyTorch), optionally on a
  search teacher's values (:mod:`~zwick_ai.learn.search_teacher`);
* :mod:`~zwick_ai.learn.model_files` writes and averages weights files;
* :mod:`~zwick_ai.learn.cfr`: the CFR family's solvers (tabular and Monte-Carlo CFR, compiled),
  their checkpoints and training runs (``zwick train mccfr``/``cfr``).

Playing needs none of this: :mod:`zwick_ai.agents` imports nothing from here, and importing it
loads no training library.
"""
