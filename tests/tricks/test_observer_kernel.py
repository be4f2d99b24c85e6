"""The compiled trick-game observer against the observer's former Python code (kept here as the
slow reference), on random play of several rule sets, both tensors, every seat."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.tricks import kernels as K
from zwick_ai.tricks import layout as L

GAMES = [
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=historic,players=4)",
    "zwicken(players=4)",
    "zwicken(players=5)",
]


def reference_tensor(observer, state, player: int) -> np.ndarray:
    """The observer's tensor as its Python code wrote it (into the observer's own views)."""
    observer.tensor.fill(0.0)
    a = state.array
    d = observer.dict
    d["player"][player] = 1
    d["hand"][a[L.S_LOC : L.S_LOC + L.NC] == L.L_HAND + player] = 1
    if observer.perfect_recall:
        K.fill_info_tokens(state.array, player, d["events"])
        return observer.tensor.copy()
    n = state.rules.players
    d["dealer"][a[L.S_DEALER]] = 1
    cur = int(a[L.S_CUR])
    d["to_move"][cur if cur >= 0 else L.NP + (0 if cur == L.CUR_CHANCE else 1)] = 1
    d["phase"][a[L.S_PHASE]] = 1
    nup = int(a[L.S_NUP])
    d["upcards"][a[L.S_UP : L.S_UP + nup]] = 1
    if a[L.S_TRUMP] >= 0:
        d["trump"][a[L.S_TRUMP]] = 1
    if a[L.S_CUTCARD] >= 0:
        d["cut"][a[L.S_CUTCARD]] = 1
    loc = a[L.S_LOC : L.S_LOC + L.NC]
    d["played"][loc == L.L_PLAYED] = 1
    for p in range(n):
        f = [int(a[L.S_PLAYERS + k * L.NP + p]) for k in range(L.NPF)]
        if f[L.P_TCARD] >= 0:
            if f[L.P_TFD]:
                d["trick_face_down"][p] = 1
            else:
                d["trick"][p, f[L.P_TCARD]] = 1
        d["status"][p, f[L.P_STATUS]] = 1
        d["bid"][p, f[L.P_BID]] = 1
        d["announced"][p] = 1 if f[L.P_ANN] else 0
        d["tricks"][p, f[L.P_TRICKS]] = 1
        d["points"][p] = f[L.P_POINTS]
        d["net"][p] = f[L.P_NET]
    d["pot"][0] = a[L.S_POT]
    if a[L.S_SPELER] >= 0:
        d["speler"][a[L.S_SPELER]] = 1
    d["searches"][a[L.S_NSEARCH]] = 1
    return observer.tensor.copy()


def _reference(observer, state, player: int) -> np.ndarray:
    out = reference_tensor(observer, state, player)
    observer.tensor.fill(0.0)
    return out


@pytest.mark.parametrize("game_string", GAMES)
def test_compiled_observer_equals_the_python_reference(game_string: str) -> None:
    game = pyspiel.load_game(game_string)
    rng = np.random.default_rng(0)
    checked = 0
    for recall in (False, True):
        obs_type = pyspiel.IIGObservationType(perfect_recall=recall)
        observer = game.make_py_observer(obs_type)
        for _ in range(6):
            state = game.new_initial_state()
            while not state.is_terminal():
                for p in range(game.num_players()):
                    want = _reference(observer, state, p)
                    observer.set_from(state, p)
                    np.testing.assert_array_equal(observer.tensor, want)
                    checked += 1
                if state.is_chance_node():
                    ids, probs = zip(*state.chance_outcomes(), strict=True)
                    state.apply_action(int(rng.choice(ids, p=np.asarray(probs) / sum(probs))))
                else:
                    state.apply_action(int(rng.choice(state.legal_actions())))
    assert checked > 100
