"""``resample_from_infostate`` of the OpenSpiel ``zwicker`` game: resampled states keep the
player's information state exactly, honour every revealed constraint, and are uniform over the
consistent deals (chi-square against a brute-force enumeration on a small case)."""

from __future__ import annotations

import itertools

import numpy as np
import pyspiel
import pytest
from scipy import stats

import zwick_ai.games  # noqa: F401
from tests.random_play import at_turn_start, random_states
from zwick_ai import zwicker
from zwick_ai.games import zwicker as zwicker_game
from zwick_ai.games import zwicker_bridge
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import kernels
from zwick_ai.zwicker.codec import CODEC_SIZE
from zwick_ai.zwicker.layout import (
    LOC_HAND,
    LOC_STOCK,
    RULES_SIZE,
    S_HAND_N,
    S_LOC,
    S_STOCK,
    S_STOCK_LEN,
    S_STOCK_TOP,
)


def same_information(s: pyspiel.State, r: pyspiel.State, p: int) -> None:
    assert r.information_state_string(p) == s.information_state_string(p)
    assert r.information_state_tensor(p) == s.information_state_tensor(p)
    assert r.observation_string(p) == s.observation_string(p)
    assert r.current_player() == s.current_player()
    assert len(r.history()) == len(s.history())
    if s.current_player() == p:
        assert r.legal_actions() == s.legal_actions()


def replays_legally(state: pyspiel.State) -> bool:
    """Replay the state's whole history through the checked path (every sub-action legal)."""
    game = state.get_game()
    s = game.new_initial_state()
    for a in state.history():
        if not s.is_chance_node() and a not in s.legal_actions():
            return False
        s.apply_action(a)
    return s.information_state_string(0) == state.information_state_string(0)


def duties_hold(state: pyspiel.State) -> bool:
    es = zwicker_bridge.engine_state(state)
    R = es.rules.array()
    W = np.zeros(kernels.WS_SIZE, np.int64)
    return all(kernels.duty_ok(R, es.arr, q, 0, 0, -1, W) for q in range(es.rules.players))


SPECS = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=grossenwiehe,players=6)",
    "zwicker(variant=christiansen,players=3)",
    "zwicker(variant=classic,players=4)",
    "zwicker(variant=grupp,players=3)",
    "zwicker(variant=dithmarschen,players=4,dietze_min_table=4,after_zwick=all_trail)",
    "zwicker(variant=classic,players=2,first_dealer=low_cut,after_zwick=zwicker_trails)",
]


@pytest.mark.parametrize("spec", SPECS)
def test_resampled_state_has_the_same_information_state(spec):
    game = pyspiel.load_game(spec)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    asks = 0
    for s in random_states(game, 16, seed=5, keep=0.08):
        asks += "ask partner" in s.information_state_string(0)
        for p in range(game.num_players()):
            r = s.resample_from_infostate(p, sampler)
            same_information(s, r, p)
            assert duties_hold(r)
            assert replays_legally(r)
    if "grossenwiehe" in spec:
        assert asks  # the Magger questions and answers were exercised


@pytest.mark.parametrize(
    "spec",
    [
        "zwicker(variant=grossenwiehe,players=4)",
        "zwicker(variant=christiansen,players=3,subtract=either)",
        "zwicker(variant=dithmarschen,players=4,dietze_min_table=4)",
    ],
)
def test_fast_legality_check_agrees_with_the_engine(spec):
    """The resampler decides most moves' legality from the owner's duty alone; on random candidate
    worlds it must accept exactly what a replay with the engine's full move generator accepts."""
    from zwick_ai.zwicker import worlds as zwicker_worlds

    game = pyspiel.load_game(spec)
    t = game.tables
    R, CD = t.game_table[:RULES_SIZE], t.game_table[zwicker_history.GB_CD : zwicker_history.GB_CD + CODEC_SIZE]
    rng = np.random.default_rng(1)
    accepted = rejected = 0
    for s in random_states(game, 30, seed=2, keep=0.1):
        a = s.array
        p = s.current_player()
        es = zwicker_bridge.engine_state(s)
        hidden = [q for q in range(game.num_players()) if q != p and es.arr[S_HAND_N + q] > 0]
        need = np.array([es.arr[S_HAND_N + q] for q in hidden], np.int64)
        pool = [c for q in hidden for c in np.flatnonzero(es.arr[S_LOC : S_LOC + 116] == LOC_HAND + q)]
        pool += list(es.arr[S_STOCK + es.arr[S_STOCK_TOP] : S_STOCK + es.arr[S_STOCK_LEN]])
        t0 = zwicker_worlds._stage_start(a)
        S0 = zwicker_worlds._stage_start_state(R, a, t0, t.workspace)
        S0w = S0.copy()
        setup = zwicker_worlds.resample_setup(t.game_table, a, p, t.workspace)._replace(
            hidden=np.array(hidden, np.int64), need=need, pinned=-1, pinned_seat=-1, t0=t0, S0=S0
        )
        for _ in range(20):
            cards = rng.permutation(np.array(pool, np.int64))
            zwicker_worlds._world(R, a, setup, S0w, cards)
            fast = zwicker_worlds._replay_ok(R, a, CD, S0w, t0, t.workspace, False).shape[0] > 0
            full = zwicker_worlds._replay_ok(R, a, CD, S0w, t0, t.workspace, True).shape[0] > 0
            assert fast == full
            accepted += fast
            rejected += not fast
    assert accepted and rejected


def test_resampling_changes_the_hidden_cards():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    s = random_states(game, 1, seed=3, keep=0.05)[0]
    p = s.current_player()
    hands = set()
    for seed in range(30):
        r = s.resample_from_infostate(p, seed)
        es = zwicker_bridge.engine_state(r)
        hands.add(tuple(tuple(np.flatnonzero(es.arr[S_LOC : S_LOC + 116] == LOC_HAND + q)) for q in range(4)))
    assert len(hands) > 10


def test_resample_is_deterministic_given_the_seed():
    game = pyspiel.load_game("zwicker(variant=christiansen,players=3)")
    s = random_states(game, 1, seed=4, keep=0.25)[0]
    a = s.resample_from_infostate(1, 123)
    b = s.resample_from_infostate(1, 123)
    assert str(a) == str(b)


def test_fallback_chain_keeps_the_information_state(monkeypatch):
    monkeypatch.setattr(zwicker_game, "RESAMPLE_TRIES", 0)
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    before = game.tables.stats["fallbacks"]
    for s in random_states(game, 6, seed=9, keep=0.1):
        for p in range(4):
            same_information(s, s.resample_from_infostate(p, p), p)
    assert game.tables.stats["fallbacks"] > before


def test_resampling_at_chance_nodes_is_refused():
    game = pyspiel.load_game("zwicker")
    with pytest.raises(Exception, match="once the deal is done"):
        game.new_initial_state().resample_from_infostate(0, 1)


# ------------------------------------------------------------------------------------------------
# Uniformity on a small case, against a brute-force enumeration of the consistent deals
# ------------------------------------------------------------------------------------------------
SMALL = "zwicker(variant=dithmarschen,players=3,ranks=A2345,suits=CD,jokers=none,hand_size=2,table_size=2,stages=1)"


def world(state: pyspiel.State, p: int, hands: dict[int, tuple[int, ...]]) -> pyspiel.State | None:
    """The state with the hidden seats' current hands replaced (stage 0 only), rebuilt through the
    OpenSpiel API from the same public history; None when that history is not legal there."""
    game = state.get_game()
    t = game.tables
    es = zwicker_bridge.engine_state(state)
    d = state.dealer()
    hist = state.history()
    n_chance = len(hist) - sum(1 for pa in state.full_history() if pa.player >= 0)
    actions = list(hist[: n_chance - t.chance_positions])
    order = state.deck_order()
    for _, dest, positions in t.groups[d]:
        cards = {order[i] for i in positions}
        if dest >= 0 and dest != p:
            now = {int(c) for c in np.flatnonzero(es.arr[S_LOC : S_LOC + 116] == LOC_HAND + dest)}
            cards = (cards - now) | set(hands[dest])
        actions += [game.codec.index(c) for c in sorted(cards)]
    r = game.new_initial_state()
    for a in actions:
        r.apply_action(a)
    for a in hist[n_chance:]:
        if r.is_terminal() or a not in r.legal_actions():
            return None
        r.apply_action(a)
    if r.information_state_string(p) != state.information_state_string(p):
        return None
    return r


def find_constrained_state() -> tuple[pyspiel.State, int]:
    """A state of SMALL where some opponent of the player to move owns a build."""
    game = pyspiel.load_game(SMALL)
    for s in random_states(game, 400, seed=21, keep=0.5, accept=at_turn_start):
        es = zwicker_bridge.engine_state(s)
        p = s.current_player()
        owners = {u.owner for u in zwicker.snapshot(es).table if u.build}
        hidden = [q for q in range(3) if q != p and es.arr[S_HAND_N + q] > 0]
        if owners & set(hidden) and len(hidden) == 2:
            return s, p
    raise AssertionError("no constrained state found")


def test_resampling_is_uniform_over_consistent_deals():
    s, p = find_constrained_state()
    es = zwicker_bridge.engine_state(s)
    rules = s.get_game().rules
    hidden = [q for q in range(3) if q != p and es.arr[S_HAND_N + q] > 0]
    pool = sorted(c for c in rules.deck if es.arr[S_LOC + c] == LOC_STOCK or es.arr[S_LOC + c] - LOC_HAND in hidden)
    sizes = [int(es.arr[S_HAND_N + q]) for q in hidden]
    consistent = []
    total = 0
    for h0 in itertools.combinations(pool, sizes[0]):
        rest = [c for c in pool if c not in h0]
        for h1 in itertools.combinations(rest, sizes[1]):
            total += 1
            if world(s, p, {hidden[0]: h0, hidden[1]: h1}) is not None:
                consistent.append((h0, h1))
    assert 1 < len(consistent) < total, "the constraint must bind but leave a choice"
    counts = dict.fromkeys(consistent, 0)
    n = 150 * len(consistent)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(n):
        r = s.resample_from_infostate(p, sampler)
        rs = zwicker_bridge.engine_state(r)
        key = tuple(tuple(int(c) for c in np.flatnonzero(rs.arr[S_LOC : S_LOC + 116] == LOC_HAND + q)) for q in hidden)
        assert key in counts, "resampled an inconsistent deal"
        counts[key] += 1
    assert all(v > 0 for v in counts.values()), "every consistent placement occurs"
    chi2 = stats.chisquare(list(counts.values()))
    assert chi2.pvalue > 1e-4, (chi2, counts)
