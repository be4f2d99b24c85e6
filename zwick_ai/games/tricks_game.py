"""Shared OpenSpiel wrapper of the trick engine (:mod:`zwick_ai.tricks`) for ``zwikken`` and ``zwicken``.

One episode is one deal against a starting pot (parameter ``pot``); returns are each seat's net
chip change (general-sum: the pot keeps what nobody wins). Chance nodes are the cut (Zwicken with
Hupf), each dealt card (each hand dealt as an increasing run), each turn-up and each exchange draw.
Action ids are those of :mod:`zwick_ai.tricks.layout` (123 of them); chance outcomes are card ids.

The state keeps only the engine's int32 array and a key into a module-level table of rules, so
OpenSpiel's clone (a deep copy of ``__dict__``) stays cheap and pickling works.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TypeAlias

import numpy as np
import pyspiel

from zwick_ai import tricks
from zwick_ai.games.game_loop import play_to_end, stream_chance
from zwick_ai.games.tricks_observer import (
    OBSERVATION_SIZE,
    fill_information_state_k,
    fill_observation_k,
    information_state_size,
)
from zwick_ai.tricks import arrays as trick_arrays
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks.decision import TrickDecision
from zwick_ai.tricks.rules import max_length, utility_bounds

_RULES: dict[str, tricks.TrickRules] = {}


def _remember(rules: tricks.TrickRules) -> str:
    key = str(rules)
    _RULES.setdefault(key, rules)
    return key


def parameter_specification(game: str) -> dict[str, object]:
    """OpenSpiel parameter defaults (their Python types fix the parameter types)."""
    return {name: default for name, (default, _, _) in tricks.OPTIONS[game].items()}


def game_type(game: str, long_name: str, min_players: int, max_players: int) -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=game,
        long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.GENERAL_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=max_players,
        min_num_players=min_players,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=parameter_specification(game),
    )


class TricksGame(pyspiel.Game):
    """Base of the ``zwikken`` and ``zwicken`` OpenSpiel games."""

    GAME = ""
    TYPE: pyspiel.GameType

    def __init__(self, params: dict | None = None):
        params = dict(params or {})
        rules = tricks.rules(self.GAME, **params)
        lo, hi = utility_bounds(rules)
        info = pyspiel.GameInfo(
            num_distinct_actions=trick_arrays.NUM_ACTIONS,
            max_chance_outcomes=trick_arrays.NC,
            num_players=rules.players,
            min_utility=lo,
            max_utility=hi,
            utility_sum=None,
            max_game_length=max_length(rules),
        )
        super().__init__(self.TYPE, info, rules.params())
        self.rules = rules
        self.key = _remember(rules)

    def new_initial_state(self) -> TricksState:
        return TricksState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> TricksObserver:
        if iig_obs_type is not None and not isinstance(iig_obs_type, pyspiel.IIGObservationType):
            iig_obs_type = None  # called with a params dict only: the default observation
        recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        return TricksObserver(self, recall)


class TricksState(pyspiel.State):
    """An OpenSpiel state: the engine array plus the rules key (see the module docstring)."""

    def __init__(self, game: TricksGame):
        super().__init__(game)
        self._key = game.key
        self._arr = tricks_kernels.new_state(game.rules.cfg)

    # -- engine views
    @property
    def rules(self) -> tricks.TrickRules:
        return _RULES[self._key]

    @property
    def array(self) -> np.ndarray:
        """The state's int array in the trick engine's layout (:mod:`zwick_ai.tricks.layout`), as
        the kernels take it, for the wrapper and its tests (searches and solvers read
        :meth:`decision`). Read it, do not write it (copy first)."""
        return self._arr

    def decision(self) -> TrickDecision:
        """This decision's arrays for compiled searches and solvers (:mod:`zwick_ai.tricks.decision`):
        the position and the rule set's ``cfg``, the state's own arrays."""
        return TrickDecision(self.rules, self._arr)

    def trick_state(self) -> tricks.TrickState:
        """The same position as a :class:`zwick_ai.tricks.TrickState` (sharing the array)."""
        return tricks.TrickState(self.rules, self._arr, None)

    # -- pyspiel.State API
    def current_player(self) -> int:
        p = int(trick_arrays.to_move(self._arr))
        if trick_arrays.is_chance(self._arr):
            return pyspiel.PlayerId.CHANCE
        if trick_arrays.is_over(self._arr):
            return pyspiel.PlayerId.TERMINAL
        return p

    def _legal_actions(self, player: int) -> list[int]:
        return tricks_kernels.legal_actions(self._arr, self.rules.cfg).tolist()

    def chance_outcomes(self) -> list[tuple[int, float]]:
        return tricks.chance_outcomes(self.trick_state())

    def _apply_action(self, action: int) -> None:
        tricks_kernels.apply(self._arr, self.rules.cfg, action)

    def _action_to_string(self, player: int, action: int) -> str:
        return tricks.action_string(self.trick_state(), action)

    def is_terminal(self) -> bool:
        return bool(trick_arrays.is_over(self._arr))

    def returns(self) -> list[float]:
        if not self.is_terminal():
            return [0.0] * self.rules.players
        return [float(x) for x in tricks.returns(self.trick_state())]

    def pot(self) -> int:
        return int(trick_arrays.pot(self._arr))

    def __str__(self) -> str:
        return tricks.render(self.trick_state())

    def resample_from_infostate(self, player_id: int, probability_sampler) -> TricksState:
        """A state with the same information state for ``player_id`` (see :func:`tricks.resample`).

        ``probability_sampler()`` (e.g. ``pyspiel.UniformProbabilitySampler``) seeds the sampling."""
        seed = int(probability_sampler() * 2**31) if callable(probability_sampler) else 0
        sample = tricks.resample(self.trick_state(), player_id, np.random.default_rng(seed))
        out = self.get_game().new_initial_state()
        for _, _, v in tricks.history(sample):
            out.apply_action(int(v))
        return out


# ---- observer ---------------------------------------------------------------------------------------


class TricksObserver:
    """Information state (perfect recall: every observed event as a one-hot token) or observation
    (the visible position now) as strings and tensors."""

    def __init__(self, game: TricksGame, perfect_recall: bool):
        self.perfect_recall = perfect_recall
        np_ = trick_arrays.NP
        pieces: list[tuple[str, int, tuple[int, ...]]]
        if perfect_recall:
            pieces = [("player", np_, (np_,)), ("hand", trick_arrays.NC, (trick_arrays.NC,))]
            steps = game.max_game_length()
            pieces.append(("events", steps * trick_arrays.TOKEN, (steps, trick_arrays.TOKEN)))
        else:
            pieces = [
                ("player", np_, (np_,)),
                ("dealer", np_, (np_,)),
                ("to_move", np_ + 2, (np_ + 2,)),
                ("phase", len(trick_arrays.PHASE_NAMES), (len(trick_arrays.PHASE_NAMES),)),
                ("hand", trick_arrays.NC, (trick_arrays.NC,)),
                ("upcards", trick_arrays.NC, (trick_arrays.NC,)),
                ("trump", 4, (4,)),
                ("cut", trick_arrays.NC, (trick_arrays.NC,)),
                ("played", trick_arrays.NC, (trick_arrays.NC,)),
                ("trick", np_ * trick_arrays.NC, (np_, trick_arrays.NC)),
                ("trick_face_down", np_, (np_,)),
                ("status", np_ * 3, (np_, 3)),
                ("bid", np_ * 5, (np_, 5)),
                ("announced", np_, (np_,)),
                ("tricks", np_ * 4, (np_, 4)),
                ("points", np_, (np_,)),
                ("net", np_, (np_,)),
                ("pot", 1, (1,)),
                ("speler", np_, (np_,)),
                ("searches", 4, (4,)),
            ]
        size = sum(p[1] for p in pieces)
        assert size == (information_state_size(game.max_game_length()) if perfect_recall else OBSERVATION_SIZE)
        self.tensor = np.zeros(size, np.float32)
        self.dict = {}
        at = 0
        for name, length, shape in pieces:
            self.dict[name] = self.tensor[at : at + length].reshape(shape)
            at += length

    def set_from(self, state: TricksState, player: int) -> None:
        if self.perfect_recall:
            fill_information_state_k(state.array, player, self.tensor)
        else:
            fill_observation_k(state.array, player, self.tensor)

    def string_from(self, state: TricksState, player: int) -> str:
        ts = state.trick_state()
        if self.perfect_recall:
            return tricks.information_state_string(ts, player)
        return tricks.observation_string(ts, player)


# ---- sessions ---------------------------------------------------------------------------------------
Agent: TypeAlias = Callable[[pyspiel.State], int] | pyspiel.Bot


def play_session(
    game: str,
    params: dict | None,
    agents: Sequence[Agent],
    deals: int,
    seed: int = 0,
    start_pot: int = 0,
) -> tricks.Session:
    """Play ``deals`` OpenSpiel episodes of a session (:func:`zwick_ai.tricks.run_session`: antes,
    pot carried over, the deal passing left), each through :func:`zwick_ai.games.game_loop.play_to_end`.

    ``agents[seat]`` is a ``pyspiel.Bot`` (its ``step``) or a callable ``state -> action``. Chance
    events are sampled from one random stream seeded by ``seed``. Returns the chips per seat (antes
    included) and the pot after each deal.
    """
    base = tricks.rules(game, **(params or {}))
    if len(agents) != base.players:
        raise ValueError(f"need {base.players} agents, got {len(agents)}")
    chance = stream_chance(np.random.default_rng(seed))

    def decide(state: pyspiel.State) -> list[int]:
        agent = agents[state.current_player()]
        return [int(agent.step(state) if isinstance(agent, pyspiel.Bot) else agent(state))]

    def play_deal(rules: tricks.TrickRules, d: int) -> tricks.TrickState:
        state = pyspiel.load_game(game, rules.params()).new_initial_state()
        return play_to_end(state, decide, chance).trick_state()

    return tricks.run_session(base, play_deal, deals, start_pot)
