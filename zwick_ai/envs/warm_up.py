"""The reinforcement-learning groups of ``zwick precompile`` (:mod:`zwick_ai.precompile`): a few
steps of every Gymnasium and PettingZoo environment, and of ``VectorGame`` (the batched games that
the vector environments and PPO step) with each compiled opponent, one thread and several.

Importing this module loads nothing heavy: each workload imports what it steps when it runs.
"""

from __future__ import annotations

from zwick_ai.precompile import ZWICKER, Group

#: steps of each Gymnasium environment, and of each VectorGame
ENV_STEPS = 20
VECTOR_STEPS = 3


def _environments() -> None:
    import gymnasium
    import numpy as np

    from zwick_ai.envs import GYMNASIUM_IDS, aec_env, parallel_env

    for env_id, game in GYMNASIUM_IDS.items():
        for information_state in (True, False):
            env = gymnasium.make(env_id, information_state=information_state)
            _, info = env.reset(seed=0)
            for _ in range(ENV_STEPS):
                legal = np.flatnonzero(info["action_mask"])
                _, _, done, cut, info = env.step(int(legal[0]))
                if done or cut:
                    break
        for make in (aec_env, parallel_env):
            make(game).reset(seed=0)


def _vector() -> None:
    import numpy as np

    from zwick_ai.vector.game import GAMES_PER_THREAD, OPPONENTS, VectorGame

    for family, opponents in OPPONENTS.items():
        game = ZWICKER if family == "zwicker" else family
        for name in opponents:
            for information_state in (False, True):
                # one thread, and the default for enough games to share them (parallel kernels)
                for games, threads in ((4, 1), (2 * GAMES_PER_THREAD, None)):
                    vec = VectorGame(
                        game, games, opponents={1: name}, information_state=information_state, threads=threads
                    )
                    ts = vec.reset()
                    for _ in range(VECTOR_STEPS):
                        ts = vec.step(np.argmax(ts.legal_mask, axis=1))


ENVIRONMENTS_GROUP = Group("environments", "the Gymnasium and PettingZoo environments", _environments)
VECTOR_GROUP = Group("VectorGame", "VectorGame with its compiled opponents, one thread and several", _vector)
