"""The CFR family's players: policy files of :mod:`zwick_ai.learn.cfr` (tabular CFR, CFR+, DCFR and
MCCFR, compiled) read for play.

* :mod:`~zwick_ai.agents.cfr.agent`: the ``mccfr`` and ``cfr`` agents playing policy files;
* :mod:`~zwick_ai.agents.cfr.search`: the ``cfr-search`` agent, decision-time CFR+ on a
  depth-limited Zwicker subgame (its compiled kernel: :mod:`~zwick_ai.agents.cfr.subgame`);
* :mod:`~zwick_ai.agents.cfr.resolve`: the ``resolve`` agent, re-solving the rest of a Zwicker stage
  over joint deals of every hand with a gadget (its compiled kernel:
  :mod:`~zwick_ai.agents.cfr.resolve_tree`);
* :mod:`~zwick_ai.agents.cfr.policy_file`: policy files read for play (and the file pair format
  the solvers' checkpoints share);
* :mod:`~zwick_ai.agents.cfr.abstraction`: the trick games' information abstractions (lossless
  ``suits`` isomorphism, lossy ``buckets``), and :mod:`~zwick_ai.agents.cfr.zwicker_abstraction`
  Zwicker's, with which policies are keyed;
* :mod:`~zwick_ai.agents.cfr.keys`: information-set keys; :mod:`~zwick_ai.agents.cfr.core`: the
  compiled tables and regret matching that solvers and players share.

Importing this package loads no solver: training is :mod:`zwick_ai.learn.cfr`.
"""

from zwick_ai.agents.cfr.abstraction import TRICK_ABSTRACTIONS, decision
from zwick_ai.agents.cfr.agent import CFRAgent, MCCFRAgent, PolicyFileAgent, load_policy
from zwick_ai.agents.cfr.keys import infoset_key, tricks_key
from zwick_ai.agents.cfr.policy_file import Policy
from zwick_ai.agents.cfr.resolve import ResolveAgent
from zwick_ai.agents.cfr.search import CfrSearchAgent

__all__ = [
    "CFRAgent",
    "CfrSearchAgent",
    "MCCFRAgent",
    "Policy",
    "PolicyFileAgent",
    "ResolveAgent",
    "TRICK_ABSTRACTIONS",
    "decision",
    "infoset_key",
    "load_policy",
    "tricks_key",
]
