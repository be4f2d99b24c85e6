"""Policies both ways between zwick_ai and OpenSpiel.

* :func:`to_tabular_policy` turns any of our policy files (``zwick train cfr``/``mccfr``, every key
  scheme and abstraction) or any agent that gives its exact decision probabilities
  (``Agent.decision_distribution``: ``mccfr``, ``cfr``, ``openspiel-net``; ``random`` is every
  legal whole decision alike) into an OpenSpiel
  ``TabularPolicy`` of the game, keyed by information-state strings, so OpenSpiel's
  ``exploitability.nash_conv``, ``best_response``, ``policy_aggregator`` and policy bots take it.
  An agent plays a whole decision (a Zwicker move is several OpenSpiel actions): the probability of
  each action is the share of the agent's whole decisions that continue with it, given the actions
  of the decision before it. A file's unseen information sets play its agent's fallback
  (``uniform``: every legal whole decision alike), as ``zwick exploitability`` measures it.
* :func:`write_policy_file` turns an OpenSpiel policy (a ``TabularPolicy``, any
  ``open_spiel.python.policy.Policy``, or a callable ``state -> {action: probability}``) into our
  policy file (``.npz`` + ``.json``, key scheme ``information_state_string``, or ``tricks_history``
  in the trick games), which the ``cfr:policy=PATH`` agent plays in tournaments, matches and
  ``zwick exploitability``.

Both walk the whole game tree, so they are for games small enough to walk (the micro variants).

>>> import pyspiel, zwick_ai.games
>>> from open_spiel.python import policy as os_policy
>>> game = pyspiel.load_game("zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)")
>>> uniform = to_tabular_policy(game, "random")
>>> len(uniform.state_lookup) > 100
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pyspiel
from open_spiel.python import policy as os_policy

from zwick_ai.agents.base import Agent, make_agent
from zwick_ai.agents.cfr.keys import infoset_key, is_trick_game
from zwick_ai.agents.cfr.policy_file import file_stem, write_files
from zwick_ai.games.decisions import decision_over, legal_decisions

#: what :func:`to_tabular_policy` takes: an agent, an agent spec, or a policy file's path
Source = Agent | str | Path
Distribution = dict[tuple[int, ...], float]


def _agent(game: pyspiel.Game, source: Source, seed: int) -> Agent:
    if isinstance(source, Agent):
        return source
    text = str(source)
    if isinstance(source, Path) or Path(text).with_suffix(".json").is_file() or Path(text, "policy.json").is_file():
        return make_agent(f"cfr:policy={text}", game, seed)  # a policy file (any CFR-family file)
    return make_agent(text, game, seed)


def player_nodes(game: pyspiel.Game) -> Iterator[pyspiel.State]:
    """Every decision node of ``game``'s whole tree, depth first (chance outcomes all expanded)."""
    stack = [game.new_initial_state()]
    while stack:
        state = stack.pop()
        if state.is_terminal():
            continue
        if not state.is_chance_node():
            yield state
        stack.extend(state.child(a) for a in state.legal_actions())


def _decision(agent: Agent, state: pyspiel.State, samples: int, seed: int) -> Distribution:
    """The agent's probabilities of its whole decisions at ``state``: exact where it gives them,
    else the shares of ``samples`` decisions (the agent reset with ``seed + k``)."""
    known = agent.decision_distribution(state.clone())
    if known is not None:
        return known
    if agent.name == "random":  # every legal whole decision alike
        options = legal_decisions(state)
        return {tuple(int(a) for a in actions): 1 / len(options) for _, actions in options}
    if samples < 1:
        raise ValueError(f"agent {agent.spec!r} gives no exact decision probabilities; pass samples=N to estimate them")
    found: Counter[tuple[int, ...]] = Counter()
    for k in range(samples):
        agent.reset(seed + k)
        found[tuple(int(a) for a in agent.act(state.clone()))] += 1
    return {d: n / samples for d, n in found.items()}


def to_tabular_policy(game: pyspiel.Game, source: Source, samples: int = 0, seed: int = 0) -> os_policy.TabularPolicy:
    """The OpenSpiel ``TabularPolicy`` that ``source`` plays on ``game`` (module docstring): an
    agent, an agent spec (``"mccfr:policy=runs/x"``) or a policy file's path. An agent without
    exact probabilities is estimated from ``samples`` decisions per information set."""
    agent = _agent(game, source, seed)
    out = os_policy.TabularPolicy(game)
    starts: dict[str, Distribution] = {}  # the whole-decision probabilities at each set where one starts
    filled: set[str] = set()
    # depth first; each entry: a state and, inside a decision, (its distribution, the actions so far)
    stack: list[tuple[pyspiel.State, tuple[Distribution, tuple[int, ...]] | None]] = [(game.new_initial_state(), None)]
    while stack:
        state, inside = stack.pop()
        if state.is_terminal():
            continue
        if state.is_chance_node():
            stack.extend((state.child(a), None) for a, _ in state.chance_outcomes())
            continue
        player = state.current_player()
        key = state.information_state_string(player)
        if inside is None:
            if key not in starts:
                starts[key] = _decision(agent, state, samples, seed)
            inside = (starts[key], ())
        dist, prefix = inside
        if key not in filled:
            filled.add(key)
            _fill_row(out.policy_for_key(key), dist, prefix, state.legal_actions())
        for a in state.legal_actions():
            child = state.child(a)
            over = child.is_terminal() or child.is_chance_node() or decision_over(child, player)
            stack.append((child, None if over else (dist, (*prefix, int(a)))))
    return out


def _fill_row(row: np.ndarray, dist: Distribution, prefix: tuple[int, ...], legal: list[int]) -> None:
    """The next-action probabilities after ``prefix`` under the whole-decision ``dist``; uniform
    over ``legal`` where no decision of ``dist`` passes (the player's own choices exclude it)."""
    depth = len(prefix)
    mass = np.zeros_like(row)
    for decision, p in dist.items():
        if len(decision) > depth and decision[:depth] == prefix:
            mass[decision[depth]] += p
    row[:] = 0.0
    total = mass.sum()
    if total > 0:
        row[:] = mass / total
    else:
        row[legal] = 1.0 / len(legal)


Probabilities = Callable[[pyspiel.State], dict[int, float]]


def _probabilities(policy: Any) -> Probabilities:
    if isinstance(policy, os_policy.Policy):
        return lambda state: policy.action_probabilities(state, state.current_player())
    if callable(policy):
        return policy
    raise ValueError(f"expected an OpenSpiel policy or a callable state -> {{action: probability}}, not {type(policy)}")


def write_policy_file(
    game: pyspiel.Game, policy: Any, path: str | Path, method: str = "openspiel", iterations: int = 0
) -> Path:
    """Write the OpenSpiel ``policy`` (a ``TabularPolicy``, any ``policy.Policy`` or a callable
    ``state -> {action: probability}``) on ``game`` as our policy file ``path`` (``.npz`` +
    ``.json``), which ``cfr:policy=PATH`` plays. Probabilities are normalised over the legal
    actions (an action the policy leaves out has 0); returns the file's stem."""
    probabilities = _probabilities(policy)
    rows: dict[int, tuple[int, list[int], list[float]]] = {}
    for state in player_nodes(game):
        player = state.current_player()
        key = infoset_key(state, player)
        if key in rows:
            continue
        legal = state.legal_actions()
        given = probabilities(state)
        probs = np.array([max(float(given.get(a, 0.0)), 0.0) for a in legal])
        total = probs.sum()
        if not np.isfinite(total) or total <= 0:
            raise ValueError(
                f"the policy gives no probability to a legal action at {state.information_state_string(player)!r}"
            )
        rows[key] = (player, legal, list(probs / total))
    keys = np.array(sorted(rows), np.int64)
    arrays: dict[str, np.ndarray] = {
        "keys": keys,
        "players": np.array([rows[k][0] for k in keys], np.int8),
        "counts": np.array([len(rows[k][1]) for k in keys], np.int16),
        "actions": np.array([a for k in keys for a in rows[k][1]], np.int16),
        "probs": np.array([p for k in keys for p in rows[k][2]], np.float32),
    }
    scheme = "tricks_history" if is_trick_game(game) else "information_state_string"
    meta = {"game": str(game), "method": method, "key_scheme": scheme, "iterations": int(iterations),
            "infosets": int(len(keys))}  # fmt: skip
    stem = file_stem(path)
    write_files(stem, "policy", meta, arrays)
    return stem


__all__ = ["player_nodes", "to_tabular_policy", "write_policy_file"]
