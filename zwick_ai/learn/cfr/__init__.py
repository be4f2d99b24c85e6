"""The CFR family's solvers, compiled and tabular (their policies play through
:mod:`zwick_ai.agents.cfr`).

* :mod:`~zwick_ai.learn.cfr.tree`: a small game's whole tree as flat arrays (any OpenSpiel game),
  :mod:`~zwick_ai.learn.cfr.zwicker_tree` Zwicker's through an abstraction;
* :mod:`~zwick_ai.learn.cfr.exact`: CFR, CFR+, DCFR and ``nash_conv`` on those arrays in numba;
* :mod:`~zwick_ai.learn.cfr.mccfr`: external- and outcome-sampling MCCFR inside numba, on the
  trick engines (full Zwikken/Zwicken) or on extracted trees (Zwicker micro variants), and
  :mod:`~zwick_ai.learn.cfr.zwicker_mccfr` on full Zwicker through an abstraction;
* :mod:`~zwick_ai.learn.cfr.updates`: their shared kernels (random stream, iteration weights,
  outcome-sampling update);
* :mod:`~zwick_ai.learn.cfr.checkpoint`: checkpoints and policy files written;
* :mod:`~zwick_ai.learn.cfr.train`: training runs (``zwick train``).
"""

from zwick_ai.learn.cfr.checkpoint import argmax_policy, load_checkpoint, prune_policy, save_checkpoint, save_policy
from zwick_ai.learn.cfr.exact import ExactSolver, nash_conv
from zwick_ai.learn.cfr.mccfr import MCCFRSolver
from zwick_ai.learn.cfr.train import TrainOptions, TrainResult, train
from zwick_ai.learn.cfr.tree import GameTree, extract

__all__ = [
    "ExactSolver",
    "GameTree",
    "MCCFRSolver",
    "TrainOptions",
    "TrainResult",
    "argmax_policy",
    "extract",
    "load_checkpoint",
    "nash_conv",
    "prune_policy",
    "save_checkpoint",
    "save_policy",
    "train",
]
