"""Reinforcement-learning environments of the three games (the ``rl`` extra: ``pip install -e ".[rl]"``).

- :func:`aec_env`: a PettingZoo AEC environment, every seat an agent (:mod:`zwick_ai.envs.aec`);
- :func:`parallel_env`: a PettingZoo Parallel API environment, every seat an agent, the one to
  move acting each step (:mod:`zwick_ai.envs.parallel`);
- :func:`single_agent_env`: a Gymnasium environment of one seat against agents of the registry
  (:mod:`zwick_ai.envs.single`), also registered with Gymnasium on import:
  ``gymnasium.make("zwick_ai/Zwicker-v0", variant="classic", players=2)`` (and ``Zwikken-v0``,
  ``Zwicken-v0``; keyword arguments: ``variant``, ``players``, ``options`` (a dict of rule
  options), ``seat``, ``opponents``, ``information_state``, ``illegal_action``, ``render_mode``).
  ``gymnasium.make("zwick_ai.envs:zwick_ai/Zwicker-v0", ...)`` imports this module first.

All take an OpenSpiel game string (``"zwicker(variant=classic,players=2)"``, ``"zwicken"``, ...),
observe the information-state tensor with an action mask (``information_state=False``: the
observation tensor, the default of ``VectorGame`` and ``PolicyAgent``, which take the same
``information_state`` argument), step one OpenSpiel action at a time
(Zwicker moves as their sub-actions) and deal by seed exactly as tournaments do
(:mod:`zwick_ai.envs.episode`). Shimmy's OpenSpiel wrapper is not used: it observes the
observation tensor (no perfect recall) whenever a game has one, draws chance from its own
generator (so its deals are not our deal seeds) and reloads the game on every reset.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Literal

import pyspiel

if TYPE_CHECKING:
    from zwick_ai.agents import Agent
    from zwick_ai.envs.aec import ZwickAECEnv
    from zwick_ai.envs.parallel import ZwickParallelEnv
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


def aec_env(game_string: str, render_mode: str | None = None, information_state: bool = True) -> ZwickAECEnv:
    """A PettingZoo AEC environment of ``game_string`` (see :mod:`zwick_ai.envs.aec`)."""
    try:
        from zwick_ai.envs.aec import ZwickAECEnv
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    return ZwickAECEnv(load(game_string), render_mode=render_mode, information_state=information_state)


def parallel_env(game_string: str, render_mode: str | None = None, information_state: bool = True) -> ZwickParallelEnv:
    """A PettingZoo Parallel API environment of ``game_string`` (see :mod:`zwick_ai.envs.parallel`)."""
    try:
        from zwick_ai.envs.parallel import ZwickParallelEnv
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    return ZwickParallelEnv(load(game_string), render_mode=render_mode, information_state=information_state)


def single_agent_env(
    game_string: str,
    seat: int = 0,
    opponents: Sequence[str | Agent] | None = None,
    illegal_action: Literal["lose", "raise"] = "lose",
    render_mode: str | None = None,
    information_state: bool = True,
) -> SeatEnv:
    """A Gymnasium environment of ``seat`` against ``opponents`` (agent specs, or agents, of the
    other seats in seat order, partners too; default all ``random``), see :mod:`zwick_ai.envs.single`."""
    try:
        from zwick_ai.envs.single import SeatEnv
    except ImportError as e:
        raise ImportError(f"{INSTALL_HINT} ({e})") from e
    game = load(game_string)
    return SeatEnv(game, seat, opponents, illegal_action, render_mode, information_state)


#: the Gymnasium ids registered on import, and the game of each
GYMNASIUM_IDS = {"zwick_ai/Zwicker-v0": "zwicker", "zwick_ai/Zwikken-v0": "zwikken", "zwick_ai/Zwicken-v0": "zwicken"}


def make_seat_env(
    game: str,
    variant: str | None = None,
    players: int | None = None,
    options: dict[str, object] | None = None,
    **kwargs: Any,
) -> SeatEnv:
    """The entry point of the Gymnasium ids: :func:`single_agent_env` of ``game`` with the variant,
    players and rule options given as keyword arguments (``kwargs``: ``seat``, ``opponents``,
    ``information_state``, ``illegal_action``, ``render_mode``)."""
    from zwick_ai.games.game_strings import load as load_game

    return single_agent_env(str(load_game(game, variant, players, (options or {}).items())), **kwargs)


def _register_gymnasium() -> None:
    try:
        import gymnasium
    except ImportError:  # the rl extra is not installed: nothing to register
        return
    for env_id, game in GYMNASIUM_IDS.items():
        if env_id not in gymnasium.registry:
            gymnasium.register(
                env_id, entry_point="zwick_ai.envs:make_seat_env", kwargs={"game": game}, disable_env_checker=True
            )


_register_gymnasium()

__all__ = ["GYMNASIUM_IDS", "INSTALL_HINT", "aec_env", "load", "make_seat_env", "parallel_env", "single_agent_env"]
