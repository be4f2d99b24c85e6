"""Agents for the three games: one interface (:class:`Agent`), a registry of spec strings
(:func:`make_agent`; agents of your own by import path ``module:Class`` or entry point,
:mod:`zwick_ai.agents.outside`), baselines, search (PIMC, ISMCTS) and the CFR family, a policy
function as an agent (:class:`PolicyAgent`), plus bridges to OpenSpiel bots. Importing this package
registers every built-in agent."""

from zwick_ai.agents import (
    baselines,  # noqa: F401  (registers random, greedy)
    cfr,  # noqa: F401  (registers mccfr, cfr)
    expert,  # noqa: F401  (registers expert)
    joker_policies,  # noqa: F401  (registers joker)
    maskable_ppo,  # noqa: F401  (registers ppo; loading a policy needs the rl extra)
    net,  # noqa: F401  (registers net)
    openspiel_bots,  # noqa: F401  (registers openspiel-ismcts, openspiel-mcts)
    openspiel_net,  # noqa: F401  (registers openspiel-net)
    search,  # noqa: F401  (registers ismcts, pimc)
)
from zwick_ai.agents.base import (
    GAMES,
    Agent,
    AgentBot,
    AgentInfo,
    Budget,
    Param,
    agent_info,
    agent_params,
    apply_decision,
    as_bot,
    bot_decision,
    decision_label,
    decision_over,
    legal_decisions,
    make_agent,
    parse_spec,
    register,
    registered,
)
from zwick_ai.agents.policy import PolicyAgent

__all__ = [
    "GAMES",
    "Agent",
    "AgentBot",
    "AgentInfo",
    "Budget",
    "Param",
    "PolicyAgent",
    "agent_info",
    "agent_params",
    "apply_decision",
    "as_bot",
    "bot_decision",
    "decision_label",
    "decision_over",
    "legal_decisions",
    "make_agent",
    "parse_spec",
    "register",
    "registered",
]
