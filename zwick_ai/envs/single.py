"""A Gymnasium environment: one seat of one of our games against agents of the registry.

The learner plays ``seat``; every other seat (partners too) is an agent built by
:func:`zwick_ai.agents.make_agent` from its spec (or an :class:`~zwick_ai.agents.Agent` given as
it is). The seat observes its information-state tensor, or with ``information_state=False`` its
observation tensor (what ``VectorGame`` and ``PolicyAgent`` observe by default). One step is one **OpenSpiel action** of the
seat: a Zwicker move is the same sequence of sub-actions (``QS``, ``as 13``, ``take 9C``, ``done``)
as in the OpenSpiel game, so the environment's action space is ``Discrete(num_distinct_actions)``
and the legal sub-actions are ``info["action_mask"]`` (also :meth:`SeatEnv.action_masks`, the
method sb3-contrib's ``MaskablePPO`` calls). Between the seat's actions the other seats play
whole decisions and chance plays by the deal seed. The reward is 0 until the deal ends, then the
seat's return (points or chips, as the game's ``utility``).

``reset(seed=s)`` deals deal ``s`` of :mod:`zwick_ai.games.seeded_deals` (the same cards as deal ``s`` of
a tournament) and resets the other agents with the seeds ``play_game`` gives them, so a seated
agent replayed through the environment plays exactly the game ``play_game`` records. A reset
without a seed draws the deal seed from the environment's generator. A deal that ends before the
seat's first decision (none of our games does this on the deals tested) is skipped for the next
deal seed from the generator.

An illegal action (``check_env`` samples unmasked actions) ends the episode as a loss with the
game's minimum utility and ``info["illegal_action"] = True``; ``illegal_action="raise"`` raises
``ValueError`` instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import gymnasium
import numpy as np
import pyspiel
from gymnasium import spaces

from zwick_ai.agents import Agent, make_agent
from zwick_ai.envs.episode import Episode, observation_bound, observation_shape
from zwick_ai.games.game_loop import at_seat, play_to_end, seeded_chance
from zwick_ai.games.seeded_deals import default_agent_seeds

#: render modes of the environments: ``"ansi"`` returns the state as text
RENDER_MODES = ["ansi"]

#: the largest deal seed a reset without a seed draws
MAX_DEAL_SEED = 2**31 - 1


class SeatEnv(gymnasium.Env[np.ndarray, np.int64]):
    """One seat of ``game`` against ``opponents`` (one agent spec per other seat, in seat order)."""

    metadata: dict[str, Any] = {"render_modes": RENDER_MODES}

    def __init__(
        self,
        game: pyspiel.Game,
        seat: int = 0,
        opponents: Sequence[str | Agent] | None = None,
        illegal_action: Literal["lose", "raise"] = "lose",
        render_mode: str | None = None,
        information_state: bool = True,
    ):
        n = game.num_players()
        if not 0 <= seat < n:
            raise ValueError(f"seat must be 0..{n - 1} for {game}, got {seat}")
        specs = list(opponents) if opponents is not None else ["random"] * (n - 1)
        if len(specs) != n - 1:
            raise ValueError(f"{game} has {n} seats: give {n - 1} opponent specs (partners too), got {len(specs)}")
        if illegal_action not in ("lose", "raise"):
            raise ValueError(f"illegal_action must be 'lose' or 'raise', got {illegal_action!r}")
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ValueError(f"render_mode must be one of {RENDER_MODES} or None, got {render_mode!r}")
        self.game = game
        self.seat = seat
        self.illegal_action = illegal_action
        self.render_mode = render_mode
        others = [p for p in range(n) if p != seat]
        self.agents: dict[int, Agent] = {
            p: s if isinstance(s, Agent) else make_agent(s, game) for p, s in zip(others, specs, strict=True)
        }
        self.episode = Episode(game, information_state)
        shape = observation_shape(game, information_state)
        self.observation_space = spaces.Box(0.0, observation_bound(game), shape=shape, dtype=np.float32)
        self.action_space = spaces.Discrete(game.num_distinct_actions())
        self._done = True

    # -- gymnasium API ----------------------------------------------------------------------------
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[np.ndarray, dict]:
        super().reset(seed=seed)
        deal_seed = int(seed) if seed is not None else self._draw_deal_seed()
        while True:
            self._start(deal_seed)
            if not self.episode.state.is_terminal():
                break
            deal_seed = self._draw_deal_seed()
        self._done = False
        return self.episode.observation(self.seat), self._info()

    def step(self, action: Any) -> tuple[np.ndarray, float, bool, bool, dict]:
        if self._done:
            raise RuntimeError("the episode is over: call reset()")
        state = self.episode.state
        a = int(action)
        if a not in state.legal_actions():
            if self.illegal_action == "raise":
                names = ", ".join(state.action_to_string(self.seat, x) for x in state.legal_actions())
                raise ValueError(f"action {a} is not legal here; legal: {names}")
            self._done = True
            info = self._info() | {"illegal_action": True}
            return self.episode.observation(self.seat), float(self.game.min_utility()), True, False, info
        state.apply_action(a)
        self._play_others()
        reward = 0.0
        if state.is_terminal():
            self._done = True
            reward = self.episode.returns()[self.seat]
        return self.episode.observation(self.seat), reward, self._done, False, self._info()

    def render(self) -> str | None:
        return str(self.episode.state) if self.render_mode == "ansi" else None

    def action_masks(self) -> np.ndarray:
        """The legal actions of the seat as booleans (sb3-contrib's ``MaskablePPO`` reads this)."""
        return self.episode.action_mask(self.seat).astype(bool)

    # -- internals --------------------------------------------------------------------------------
    def _draw_deal_seed(self) -> int:
        return int(self.np_random.integers(0, MAX_DEAL_SEED))

    def _start(self, deal_seed: int) -> None:
        seeds = default_agent_seeds(deal_seed, self.game.num_players())
        for p, agent in self.agents.items():
            agent.reset(seeds[p])
        self.episode.start(deal_seed)
        self._play_others()

    def _play_others(self) -> None:
        """Chance and the other seats play until the seat is to move or the deal is over."""
        ep = self.episode
        play_to_end(ep.state, self._other_decides, seeded_chance(ep.deal_seed), until=at_seat(self.seat))

    def _other_decides(self, state: pyspiel.State) -> list[int]:
        return self.agents[state.current_player()].act(state)

    def _info(self) -> dict:
        info: dict[str, Any] = {"action_mask": self.episode.action_mask(self.seat), "deal_seed": self.episode.deal_seed}
        if self.episode.state.is_terminal():
            info["returns"] = self.episode.returns()
        return info
