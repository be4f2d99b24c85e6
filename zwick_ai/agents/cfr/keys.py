"""Information-set keys: the int64 under which tables and policy files store an information set.

* Trick games (``zwikken``, ``zwicken``): :func:`tricks_key`, compiled from the engine state, so
  the MCCFR traversals of :mod:`zwick_ai.learn.cfr.mccfr` key information sets inside numba.
* Every other game: :func:`string_key`, a 64-bit BLAKE2b hash of the information-state string (or,
  with the ``observation`` abstraction, of :func:`abstract_text`: the observation string and the
  legal actions).

Both partition states exactly like the strings they stand for, up to 64-bit hash collisions
(``tests/agents/test_cfr.py`` checks both directions on random states).

>>> string_key("a") != string_key("b")
True
"""

from __future__ import annotations

import hashlib

import numpy as np
import pyspiel

from zwick_ai.agents.cfr.core import mix64
from zwick_ai.jit import kernel
from zwick_ai.tricks import arrays as trick_arrays

TRICK_GAMES = ("zwikken", "zwicken")
ABSTRACTIONS = ("none", "observation")


def string_key(text: str) -> int:
    """A non-zero int64 key of an information-state (or observation) string."""
    k = int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little", signed=True)
    return k or 1


@kernel
def tricks_key(s, player):
    """64-bit key of ``player``'s information state: a chained hash of the events he observed,
    each mapped as in ``tricks.engine.information_state_string`` (own deals, upcards, cuts, own draws
    with the card, others' draws without, open draws, actions, own hidden actions with the card,
    others' hidden actions as face-down play or discard). Never 0."""
    h = mix64(np.uint64(player + 1) * np.uint64(0x9E3779B97F4A7C15))
    for i in range(trick_arrays.history_length(s)):
        kind, who, v = trick_arrays.observed_event(s, i, player)
        if kind < 0:
            continue
        token = np.uint64(kind) | (np.uint64(who + 1) << np.uint64(8)) | (np.uint64(v + 2) << np.uint64(16))
        h = mix64(h ^ (token + np.uint64(0x632BE59BD9B4E019)))
    k = np.int64(h)
    return k if k != 0 else np.int64(1)


def is_trick_game(game: pyspiel.Game) -> bool:
    return game.get_type().short_name in TRICK_GAMES


def abstract_text(state: pyspiel.State, player: int) -> str:
    """The ``observation`` abstraction's text: the observation string and the legal actions (two
    histories merge only when they look the same now and allow the same actions)."""
    return state.observation_string(player) + " | legal " + " ".join(map(str, state.legal_actions(player)))


def infoset_key(state: pyspiel.State, player: int, abstraction: str = "none") -> int:
    """The table key of ``player``'s information set in ``state`` (what the policy files store)."""
    if abstraction not in ABSTRACTIONS:
        raise ValueError(f"unknown abstraction {abstraction!r}; valid: {', '.join(ABSTRACTIONS)}")
    if abstraction == "observation":
        return string_key(abstract_text(state, player))
    if hasattr(state, "trick_state"):
        return int(tricks_key(state.decision().position, player))
    return string_key(state.information_state_string(player))
