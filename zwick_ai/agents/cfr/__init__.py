"""The CFR family, compiled and tabular.

* :mod:`~zwick_ai.agents.cfr.tree`: a small game's whole tree as flat arrays (any OpenSpiel game);
* :mod:`~zwick_ai.agents.cfr.exact`: CFR, CFR+, DCFR and ``nash_conv`` on those arrays in numba;
* :mod:`~zwick_ai.agents.cfr.mccfr`: external- and outcome-sampling MCCFR inside numba, on the
  trick engines (full Zwikken/Zwicken) or on extracted trees (Zwicker micro variants);
* :mod:`~zwick_ai.agents.cfr.abstraction`: the trick games' information abstractions (lossless
  ``suits`` isomorphism, lossy ``buckets``) for the compiled MCCFR;
* :mod:`~zwick_ai.agents.cfr.checkpoint`: checkpoints and policy files;
* :mod:`~zwick_ai.agents.cfr.train`: training runs (``zwick train``);
* :mod:`~zwick_ai.agents.cfr.agent`: the ``mccfr`` and ``cfr`` agents playing policy files.
"""

from zwick_ai.agents.cfr.abstraction import TRICK_ABSTRACTIONS, decision
from zwick_ai.agents.cfr.agent import CFRAgent, MCCFRAgent, PolicyAgent, load_policy
from zwick_ai.agents.cfr.checkpoint import Policy, load_checkpoint, prune_policy, save_checkpoint, save_policy
from zwick_ai.agents.cfr.exact import ExactSolver, nash_conv
from zwick_ai.agents.cfr.keys import infoset_key, tricks_key
from zwick_ai.agents.cfr.mccfr import MCCFRSolver
from zwick_ai.agents.cfr.train import TrainResult, train
from zwick_ai.agents.cfr.tree import GameTree, extract

__all__ = [
    "CFRAgent",
    "ExactSolver",
    "GameTree",
    "MCCFRAgent",
    "MCCFRSolver",
    "Policy",
    "PolicyAgent",
    "TRICK_ABSTRACTIONS",
    "TrainResult",
    "decision",
    "extract",
    "infoset_key",
    "load_checkpoint",
    "load_policy",
    "nash_conv",
    "prune_policy",
    "save_checkpoint",
    "save_policy",
    "train",
    "tricks_key",
]
