"""The endgame search's transposition table where it matters: larger endgames (8 to 12 cards in
the hands) searched with one shared table through many windows, against the same search without
a table. Alpha-beta's fail-soft contract is checked for every window: a value at or below alpha
bounds the true value from above, one at or above beta bounds it from below, one inside the
window is exact. A table entry that is only a bound but is taken as exact (say a lower bound used
when it is merely above alpha instead of at or above beta) breaks this within a few windows: the
six tiny full-window positions of test_expert.py rarely meet such an entry."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai.agents import expert_search as ES
from zwick_ai.agents.base import apply_decision, legal_decisions
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker.layout import S_HAND_N, S_STOCK_LEN, S_STOCK_TOP

#: positions searched without a table that take longer than this are skipped (the reference must finish)
REFERENCE_NODES = 60_000
WINDOWS = 12  # random windows per position and side


def _cards_in_hands(state: pyspiel.State) -> int:
    a = state.array
    return int(sum(a[S_HAND_N + q] for q in range(state.rules.players)))


def _endgame(game: pyspiel.Game, seed: int, lo: int, hi: int) -> pyspiel.State | None:
    """A decision state of a random game with the stock empty and ``lo``..``hi`` cards in the hands."""
    rng = np.random.default_rng(seed)
    state = zwicker_bridge.state_from_seed(game, seed)
    while not state.is_terminal():
        if state.is_chance_node():
            outcomes, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(outcomes, p=np.array(probs) / sum(probs))))
            continue
        a = state.array
        if a[S_STOCK_TOP] >= a[S_STOCK_LEN] and _cards_in_hands(state) <= hi:
            return state if _cards_in_hands(state) >= lo else None
        moves = legal_decisions(state)
        apply_decision(state, moves[int(rng.integers(len(moves)))][1])
    return None


def _solve(rules, arr: np.ndarray, side: int, alpha: float, beta: float, ctx, use_tt: bool, cap: int) -> tuple:
    stats = np.zeros(ES.ST_SIZE, np.int64)
    total = float(rules.card_total)
    v = ES.solve(
        rules.array(), arr.copy(), side, alpha, beta, 0, ctx, stats, ES.SolveSettings(cap, use_tt, False, total)
    )
    return v, bool(stats[ES.ST_ABORT]), int(stats[ES.ST_HITS])


def _windows(rng: np.random.Generator, truth: float, n: int) -> list[tuple[float, float]]:
    """Random windows: wide, narrow, null-width, and ones that just include or just miss the truth."""
    out = []
    for i in range(n):
        kind = i % 4
        if kind == 0:
            a, b = sorted(rng.uniform(-1, 1, 2))
        elif kind == 1:  # narrow, around the truth
            a = truth - rng.uniform(0, 0.2)
            b = truth + rng.uniform(0, 0.2)
        elif kind == 2:  # a null window at or near the truth (the scout searches of MTD-like drivers)
            a = truth + rng.choice([-1, 0, 1]) * rng.uniform(0, 0.05)
            b = a + 1e-9
        else:  # the truth just outside
            edge = rng.uniform(0.001, 0.1)
            a, b = (truth + edge, truth + edge + rng.uniform(0.01, 0.5))
            if rng.integers(2):
                a, b = truth - edge - rng.uniform(0.01, 0.5), truth - edge
        if a < b:
            out.append((float(a), float(b)))
    return out


def _check_contract(v: float, alpha: float, beta: float, truth: float, where: str) -> None:
    if v <= alpha:
        assert truth <= v + 1e-12, f"{where}: fail-low {v} in ({alpha}, {beta}) but the truth is {truth}"
    elif v >= beta:
        assert truth >= v - 1e-12, f"{where}: fail-high {v} in ({alpha}, {beta}) but the truth is {truth}"
    else:
        assert v == pytest.approx(truth, abs=1e-12), f"{where}: {v} inside ({alpha}, {beta}) is not the truth {truth}"


@pytest.mark.parametrize(
    ("variant", "players", "want"),
    [
        ("dithmarschen", 4, 4),
        ("classic", 2, 8),
        pytest.param("christiansen", 3, 4, marks=pytest.mark.slow),  # three sides: minutes under load
    ],
)
def test_table_keeps_the_fail_soft_contract_on_larger_endgames(variant: str, players: int, want: int) -> None:
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    rules = game.rules
    rng = np.random.default_rng(11)
    shared = ES.new_context(16)  # one table through every window, position and side, as the agent keeps it
    bare = ES.new_context(4)
    checked = hits = 0
    sizes = []
    for seed in range(300):
        state = _endgame(game, 1000 + seed, 8, 12)
        if state is None:
            continue
        arr = zwicker_bridge.engine_state(state).arr
        truths = []
        for side in range(rules.num_sides):
            truth, aborted, _ = _solve(rules, arr, side, -2.0, 2.0, bare, False, REFERENCE_NODES)
            if aborted:
                break
            truths.append(truth)
        if len(truths) < rules.num_sides:
            continue
        for side, truth in enumerate(truths):
            where = f"{variant} seed {1000 + seed} side {side}"
            for j, (alpha, beta) in enumerate(_windows(rng, truth, WINDOWS)):
                v, aborted, n = _solve(rules, arr, side, alpha, beta, shared, True, 10**9)
                assert not aborted
                hits += n
                _check_contract(v, alpha, beta, truth, f"{where} with the table")
                if j < 3:  # the search without a table keeps the contract too (the check is sound)
                    w, _, _ = _solve(rules, arr, side, alpha, beta, bare, False, 10**9)
                    _check_contract(w, alpha, beta, truth, f"{where} without the table")
            v, _, n = _solve(rules, arr, side, -2.0, 2.0, shared, True, 10**9)  # full window after all that
            hits += n
            assert v == pytest.approx(truth, abs=1e-12), f"{where}: full window {v} with the table, {truth} without"
        sizes.append(_cards_in_hands(state))
        checked += 1
        if checked == want:
            break
    assert checked == want, f"only {checked} {variant} endgames of 8-12 cards within the reference's node budget"
    assert min(sizes) >= 8 and hits > 100  # the table was used, on positions of the size that matters
