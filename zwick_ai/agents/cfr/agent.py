"""Agents that play a trained CFR-family policy file (:mod:`zwick_ai.agents.cfr.policy_file`).

``mccfr:policy=PATH,fallback=uniform,min_visits=0,play=sample`` and ``cfr:policy=PATH,fallback=uniform`` sample each
decision from the file's average strategy; ``play=argmax`` plays its most likely action instead
(the first of equal ones; on Dithmarschen the MCCFR tables lose fewer points to greedy that way,
``experiments/results/mccfr-zwicker/README.md``). ``PATH`` is a policy file (``.npz``/``.json`` pair or
its stem) or a training directory of ``zwick train`` (its ``policy`` file is used). The file's
game must be exactly the game played.

**Fallback.** An information set the training never reached is not in the file. There the agent
plays its ``fallback`` for the whole decision: ``uniform`` (uniform over the legal whole
decisions, like ``random``) or ``greedy`` (the ``greedy`` agent, for games it supports). The same
happens at a set that MCCFR training visited fewer than ``min_visits`` times (policy files of
MCCFR on the trick games count visits): its average strategy is still close to the uniform
start, and the greedy heuristic plays better there (``benchmarks/README.md``, CFR section). Every
decision is counted in ``stats["decisions"]`` and every fallback in ``stats["fallbacks"]``.
In Zwicker a whole move is several sub-actions; each is looked up in turn (on a copy of the
state), and if any is missing the whole move comes from the fallback. Policies of the Zwicker
abstractions (``zwick train mccfr --game "zwicker(...)" --abstraction buckets``) choose an abstract
action, i.e. a whole move (:mod:`~zwick_ai.agents.cfr.zwicker_abstraction`), in one lookup;
``fallback=greedy`` is the usual choice there: an abstract set training never reached plays greedy.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyspiel

from zwick_ai.agents.base import Agent, Param, legal_decisions, make_agent, register
from zwick_ai.agents.cfr.policy_file import Policy
from zwick_ai.games import zwicker_bridge
from zwick_ai.games.decisions import compose_decision, decision_over

FALLBACKS = ("uniform", "greedy")
PLAYS = ("sample", "argmax")  # how a decision is drawn from the average strategy
_CACHE: dict[tuple, Policy] = {}


def _stamp(path: Path) -> tuple[int, int]:
    """A file's size and modification time: a replaced file is read again."""
    st = path.stat()
    return st.st_size, st.st_mtime_ns


def policy_stem(path: str | Path) -> Path:
    """The stem of the policy file ``path`` names (a training directory means its ``policy`` file)."""
    p = Path(path)
    if p.is_dir():
        p = p / "policy"
    return p.with_suffix("") if p.suffix in (".npz", ".json") else p


def load_policy(path: str | Path) -> Policy:
    """The policy file at ``path`` (a training directory means its ``policy`` file); cached."""
    stem = policy_stem(path)
    js = stem.with_suffix(".json")
    if not js.exists():
        raise ValueError(f"no policy file at {path} (expected {js})")
    npz = stem.with_suffix(".npz")
    key = (str(stem.resolve()), *_stamp(js), *(_stamp(npz) if npz.exists() else ()))
    if key not in _CACHE:
        _CACHE[key] = Policy(stem)
    return _CACHE[key]


def _check(params: dict) -> None:
    if not params["policy"]:
        raise ValueError("give the policy file: policy=PATH (a policy .npz/.json stem or a training directory)")
    if params["min_visits"] < 0:
        raise ValueError(f"min_visits must be non-negative, not {params['min_visits']}")
    if params["fallback"] not in FALLBACKS:
        raise ValueError(f"fallback={params['fallback']!r} is not valid; valid: {', '.join(FALLBACKS)}")
    if params["play"] not in PLAYS:
        raise ValueError(f"play={params['play']!r} is not valid; valid: {', '.join(PLAYS)}")


_PARAMS = [
    Param("policy", str, "", "policy file or training directory"),
    Param("fallback", str, "uniform", "play for unseen information sets: uniform or greedy"),
    Param("min_visits", int, 0, "fall back at sets visited fewer times in training (trick-game MCCFR)"),
    Param("play", str, "sample", "sample the average strategy, or play its argmax (most likely action)"),
]


def same_game(name: str, game: pyspiel.Game) -> bool:
    """Whether the game string ``name`` is ``game``: the same string, or our game with the same
    rules written another way (``players=0``, the variant's count, is ``players=4`` in Dithmarschen)."""
    if name == str(game):
        return True
    rules = getattr(game, "rules", None)
    try:
        other = getattr(pyspiel.load_game(name), "rules", None)
    except (pyspiel.SpielError, RuntimeError, ValueError):
        return False
    return rules is not None and other is not None and rules == other


class PolicyFileAgent(Agent):
    """Plays the average strategy of a trained policy file (module docstring: fallback, counts)."""

    def __init__(self, game: pyspiel.Game, seed: int = 0, **params):
        super().__init__(game, seed, **params)
        self.policy = load_policy(params["policy"])
        if not same_game(self.policy.game, game):
            raise ValueError(f"policy {params['policy']} is for {self.policy.game}, not {game}")
        self.fallback_agent = make_agent("greedy", game, seed) if params["fallback"] == "greedy" else None
        self.stats = {"decisions": 0, "fallbacks": 0}

    def files(self) -> list[str | Path]:
        """The policy's files (its ``.json`` and, where it has one, its ``.npz``)."""
        stem = policy_stem(self.params["policy"])
        return [f for f in (stem.with_suffix(".json"), stem.with_suffix(".npz")) if f.is_file()]

    def reset(self, seed: int) -> None:
        super().reset(seed)
        if self.fallback_agent is not None:
            self.fallback_agent.reset(seed)

    def _pick(self, probs: np.ndarray) -> int:
        """An index drawn from ``probs`` (not normalised), or with ``play=argmax`` the first largest."""
        if self.params["play"] == "argmax":
            return int(np.argmax(probs))
        return int(self.rng.choice(len(probs), p=probs / probs.sum()))

    def _from_policy(self, state: pyspiel.State) -> list[int] | None:
        if self.policy.zwicker_abstraction is not None:
            choice = self.policy.zwicker_lookup(state, self.params["min_visits"])
            if choice is None:
                return None
            return zwicker_bridge.move_actions(state, choice.rows[choice.row_of[self._pick(choice.chances)]])
        player = state.current_player()
        return compose_decision(state, lambda work: self._step(work, player))

    def _step(self, state: pyspiel.State, player: int) -> int | None:
        """One action of ``player``'s decision drawn from the policy; ``None`` for an unseen set."""
        found = self.policy.lookup(state, player, self.params["min_visits"])
        if found is None:
            return None
        acts, probs = found
        return int(acts[self._pick(probs)])

    def decision_distribution(self, state: pyspiel.State) -> dict[tuple[int, ...], float] | None:
        """The exact probabilities of the whole decisions :meth:`act` plays: the table's average
        strategy (with ``play=argmax`` all its mass on its most likely action); where a set is missing, the mass of that path goes to the fallback's decisions
        (uniform: every legal decision alike; ``greedy`` breaks ties at random: None, sample it)."""
        out: dict[tuple[int, ...], float] = {}
        missing = 0.0
        if self.policy.zwicker_abstraction is not None:
            choice = self.policy.zwicker_lookup(state, self.params["min_visits"])
            if choice is None:
                missing = 1.0
            else:
                chances = self._played(choice.chances)
                for k in range(len(choice.row_of)):
                    if chances[k] <= 0:  # never played (with play=argmax: all but one)
                        continue
                    move = tuple(int(a) for a in zwicker_bridge.move_actions(state, choice.rows[choice.row_of[k]]))
                    out[move] = out.get(move, 0.0) + float(chances[k] / chances.sum())
        else:
            player = state.current_player()
            stack: list[tuple[pyspiel.State, tuple[int, ...], float]] = [(state.clone(), (), 1.0)]
            while stack:
                work, prefix, mass = stack.pop()
                found = self.policy.lookup(work, player, self.params["min_visits"])
                if found is None:
                    missing += mass
                    continue
                acts, probs = found
                for a, q in zip(acts, self._played(probs), strict=True):
                    if q <= 0:
                        continue
                    child = work.clone()
                    child.apply_action(int(a))
                    if decision_over(child, player):
                        key = (*prefix, int(a))
                        out[key] = out.get(key, 0.0) + mass * float(q)
                    else:
                        stack.append((child, (*prefix, int(a)), mass * float(q)))
        if missing > 0:
            if self.fallback_agent is not None:
                return None
            options = legal_decisions(state)
            for _, actions in options:
                key = tuple(int(a) for a in actions)
                out[key] = out.get(key, 0.0) + missing / len(options)
        return out

    def _played(self, probs: np.ndarray) -> np.ndarray:
        """The probabilities :meth:`_pick` draws with: ``probs`` normalised, or one-hot at the argmax."""
        if self.params["play"] == "argmax":
            return np.eye(len(probs))[int(np.argmax(probs))]
        return probs / probs.sum()

    def act(self, state: pyspiel.State) -> list[int]:
        self.stats["decisions"] += 1
        actions = self._from_policy(state)
        if actions is not None:
            return actions
        self.stats["fallbacks"] += 1
        if self.fallback_agent is not None:
            return self.fallback_agent.act(state)
        options = legal_decisions(state)
        return options[int(self.rng.integers(len(options)))][1]


@register("mccfr", params=_PARAMS, check=_check, summary="plays a trained MCCFR average strategy (policy=PATH).")
class MCCFRAgent(PolicyFileAgent):
    """Plays the average strategy of an MCCFR policy file (see :class:`PolicyFileAgent`)."""


@register("cfr", params=_PARAMS, check=_check, summary="plays an exact CFR/CFR+/DCFR average strategy (policy=PATH).")
class CFRAgent(PolicyFileAgent):
    """Plays the average strategy of an exact CFR policy file (see :class:`PolicyFileAgent`)."""
