"""Reinforcement-learning environments of the three games (the ``rl`` extra: ``pip install -e ".[rl]"``).

- :func:`aec_env`: a PettingZoo AEC environment, every seat an agent (:mod:`zwick_ai.envs.aec`);
- :func:`single_agent_env`: a Gymnasium environment of one seat against agents of the registry
  (:mod:`zwick_ai.envs.single`).

Both take an OpenSpiel game string (``"zwicker(variant=classic,players=2)"``, ``"zwicken"``, ...),
observe the information-state tensor with an action mask, step one OpenSpiel action at a time
(Zwicker moves as their sub-actions) and deal by seed exactly as tournaments do
(:mod:`zwick_ai.envs.episode`). Shimmy's OpenSpiel wrapper is not used: it observes the
observation tensor (no perfect recall) whenever a game has one, draws chance from its own
generator (so its deals are not our deal seeds) and reloads the game on every reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal

import pyspiel

if TYPE_CHECKING:
    from zwick_ai.envs.aec import ZwickAECEnv
    from zwick_ai.envs.single import SeatEnv

#: what to install when Gymnasium or PettingZoo is missing
INSTALL_HINT = 'the RL environments need the "rl" extra: pip install -e ".[rl]"'


def load(game_string: str) -> pyspiel.Game:
    """Load one of our games (``import zwick_ai.games`` registers them)."""
    import zwick_ai.games  # noqa: F401  (registers zwicker, zwikken, zwicken)

    game = pyspiel.load_game(game_string)
    if game.get_type().short_name not in zwick_ai.games.GAME_NAMES:
        raise ValueError(f"not a zwick_ai game: {game_string!r}; games: {', '.join(zwick_ai.games.GAME_NAMES)}")
    return game


def aec_env(game_string: str, render_mode: str | None = None) -> ZwickAECEnv:
    """A PettingZoo AEC environment of ``game_string`` (see :mod:`zwick_ai.envs.aec`)."""
    try:
        from zwick_ai.envs.aec import ZwickAECEnv
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    return ZwickAECEnv(load(game_string), render_mode=render_mode)


def single_agent_env(
    game_string: str,
    seat: int = 0,
    opponents: Sequence[str] | None = None,
    illegal_action: Literal["lose", "raise"] = "lose",
    render_mode: str | None = None,
) -> SeatEnv:
    """A Gymnasium environment of ``seat`` against ``opponents`` (agent specs of the other seats in
    seat order, partners too; default all ``random``), see :mod:`zwick_ai.envs.single`."""
    try:
        from zwick_ai.envs.single import SeatEnv
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    return SeatEnv(load(game_string), seat, opponents, illegal_action=illegal_action, render_mode=render_mode)


__all__ = ["INSTALL_HINT", "aec_env", "load", "single_agent_env"]
