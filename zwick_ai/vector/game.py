"""``VectorGame``: many games of one OpenSpiel game string held in arrays and stepped at once in
compiled code, every game at its own player to move (docs/vector.md)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numba
import numpy as np
import pyspiel

from zwick_ai.games.zwicker_observer import ZwickerObserver
from zwick_ai.vector import zwicker_batch
from zwick_ai.zwicker import kernels as engine_kernels

#: the opponents played in compiled code, by name, with their code in the kernels
OPPONENTS = {"random": 1}


@dataclass
class TimeStep:
    """What :meth:`VectorGame.reset` and :meth:`VectorGame.step` return (arrays over the games;
    they are the game's buffers, overwritten by the next step: copy what you keep)."""

    current_player: np.ndarray  # int64 [N]: the seat to move in each game
    observation: np.ndarray  # float32 [N, D]: observation (or information-state) tensor of that seat
    legal_mask: np.ndarray  # bool [N, A]: the legal OpenSpiel actions
    deal_seed: np.ndarray  # int64 [N]: the deal seed of the game now played
    rewards: np.ndarray  # float32 [N, players]: the returns of a game that ended at this step, else 0
    terminated: np.ndarray  # bool [N]: the game ended at this step (and restarted with a new deal)


class VectorGame:
    """``num_games`` games of ``game_string`` (a ``zwicker`` game string) stepped in compiled code.

    Actions, tensors and returns are those of ``pyspiel.load_game(game_string)``; game ``i`` starts
    with deal seed ``seed + i`` (the deal of ``play_game(..., deal_seed=seed + i)``) and a game that
    ends restarts with the next unused seed. Chance never shows: every game stands at a decision.
    ``opponents={seat: "random"}`` plays those seats in compiled code (seeded by ``seed``), so
    ``step`` returns only at the other seats' turns. ``information_state=True`` observes the
    information-state tensor instead of the observation tensor. ``threads`` (default: numba's
    thread count) is how many cores step the games; 1 runs them on the calling thread only, which
    is faster on a busy machine or for a few games.
    """

    def __init__(
        self,
        game_string: str,
        num_games: int,
        seed: int = 0,
        opponents: Mapping[int, str] | None = None,
        information_state: bool = False,
        threads: int | None = None,
    ):
        import zwick_ai.games  # noqa: F401  (registers the games)

        if num_games < 1:
            raise ValueError(f"num_games must be at least 1, got {num_games}")
        game = pyspiel.load_game(game_string)
        if game.get_type().short_name != "zwicker":
            raise ValueError(f"VectorGame plays zwicker games; got {game_string!r}")
        self.game = game
        self.num_games = int(num_games)
        self.num_players = game.num_players()
        self.num_actions = game.num_distinct_actions()
        tables = game.tables
        self._G = tables.G
        self._init = tables.init
        self._win_loss = bool(tables.win_loss)
        self._off = ZwickerObserver(game, bool(information_state), True, True)._off
        size = game.information_state_tensor_size() if information_state else game.observation_tensor_size()
        self._opponent = np.zeros(self.num_players, np.int64)
        for seat, name in (opponents or {}).items():
            if not 0 <= int(seat) < self.num_players:
                raise ValueError(f"opponent seat {seat} is not a seat in 0..{self.num_players - 1}")
            if name not in OPPONENTS:
                raise ValueError(f"unknown compiled opponent {name!r}; known: {', '.join(OPPONENTS)}")
            self._opponent[int(seat)] = OPPONENTS[name]
        if self._opponent.all():
            raise ValueError("every seat is an opponent: leave at least one seat to the caller")
        available = int(numba.config.NUMBA_NUM_THREADS)  # type: ignore[attr-defined]
        self.threads = available if threads is None else int(threads)
        if not 1 <= self.threads <= available:
            raise ValueError(f"threads must be in 1..{available}, got {threads}")
        n = self.num_games
        self.seed = int(seed)
        self._states = np.zeros((n, len(self._init)), np.int32)
        self._work = np.zeros((available, engine_kernels.WS_SIZE), np.int64)
        self._rng = (np.uint64(self.seed) * np.uint64(1_000_003) + np.arange(n, dtype=np.uint64)).astype(np.uint64)
        self._next_seed = self.seed + n
        self._cache = np.zeros((n, zwicker_batch.CACHED_ROWS, zwicker_batch.CACHED_WIDTH), np.int64)
        self._rows = np.full(n, -1, np.int64)
        self._ts = TimeStep(
            current_player=np.zeros(n, np.int64),
            observation=np.zeros((n, size), np.float32),
            legal_mask=np.zeros((n, self.num_actions), np.bool_),
            deal_seed=np.arange(self.seed, self.seed + n, dtype=np.int64),
            rewards=np.zeros((n, self.num_players), np.float32),
            terminated=np.zeros(n, np.bool_),
        )

    @property
    def observation_size(self) -> int:
        """Length of one observation row."""
        return int(self._ts.observation.shape[1])

    def bytes_per_game(self) -> int:
        """Memory held per game: the state row, the observation, mask and reward rows."""
        ts = self._ts
        arrays = (self._states, self._cache, self._rows, ts.observation, ts.legal_mask, ts.rewards, self._rng)
        return sum(int(a.nbytes) for a in arrays) // self.num_games + 3 * 8

    def reset(self) -> TimeStep:
        """Deal every game again from deal seeds ``seed + i`` and return the first decisions."""
        ts = self._ts
        n = self.num_games
        ts.deal_seed[:] = np.arange(self.seed, self.seed + n)
        self._next_seed = self.seed + n
        self._rng[:] = np.uint64(self.seed) * np.uint64(1_000_003) + np.arange(n, dtype=np.uint64)
        numba.set_num_threads(self.threads)
        zwicker_batch.reset_k(
            self._G,
            self._init,
            self._states,
            self._work,
            self._off,
            self._opponent,
            self._rng,
            self._cache,
            self._rows,
            ts.deal_seed,
            ts.current_player,
            ts.legal_mask,
            ts.observation,
        )
        ts.rewards[:] = 0.0
        ts.terminated[:] = False
        return ts

    def step(self, actions: np.ndarray) -> TimeStep:
        """Apply ``actions[i]`` (an OpenSpiel action id) in every game ``i``. An illegal action
        raises ``ValueError`` naming the game and its legal actions; then nothing is stepped."""
        ts = self._ts
        acts = np.asarray(actions, dtype=np.int64)
        if acts.shape != (self.num_games,):
            raise ValueError(f"actions must have shape ({self.num_games},), got {acts.shape}")
        inside = (acts >= 0) & (acts < self.num_actions)
        legal = inside & ts.legal_mask[np.arange(self.num_games), np.where(inside, acts, 0)]
        if not legal.all():
            i = int(np.flatnonzero(~legal)[0])
            allowed = np.flatnonzero(ts.legal_mask[i]).tolist()
            raise ValueError(
                f"illegal action {int(acts[i])} in game {i} (seat {int(ts.current_player[i])}); legal: {allowed}"
            )
        numba.set_num_threads(self.threads)
        self._next_seed = int(
            zwicker_batch.step_k_batch(
                self._G,
                self._init,
                self._states,
                self._work,
                self._off,
                acts,
                self._win_loss,
                self._opponent,
                self._rng,
                self._cache,
                self._rows,
                self._next_seed,
                ts.deal_seed,
                ts.current_player,
                ts.legal_mask,
                ts.observation,
                ts.rewards,
                ts.terminated,
            )
        )
        return ts

    def state_array(self, i: int) -> np.ndarray:
        """A copy of game ``i``'s state array (the OpenSpiel state's ``array`` layout)."""
        return self._states[i].copy()
