"""Trick-game information abstractions (zwick_ai.agents.cfr.abstraction) and MCCFR on them: the
lossless suit isomorphism is invariant under suit permutations and never splits or wrongly merges
information sets; the lossy buckets read only the player's information; policy files, visit
counts and the agent's min_visits fallback."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401
import zwick_ai.games  # noqa: F401
from tests.random_play import random_states
from zwick_ai import tricks as T
from zwick_ai.agents import make_agent
from zwick_ai.agents.cfr import Policy, tricks_key
from zwick_ai.agents.cfr.abstraction import BUCKETS, SUITS, decision, suit_labels, suit_symmetric
from zwick_ai.agents.cfr.core import R_VIS
from zwick_ai.eval.match import play_game
from zwick_ai.learn.cfr import MCCFRSolver, load_checkpoint, save_checkpoint, save_policy
from zwick_ai.tricks import layout as TL

PARLETT = "zwikken(variant=parlett,players=3)"
ZWICKEN = "zwicken(players=4)"
SMALL_ZWIKKEN = "zwikken(variant=parlett,players=3,tricks=2,ranks=AKQT,suits=CDH,max_bid_levels=2)"


def key_and_actions(arr, cfg, player, abstraction):
    mask, out = np.zeros(TL.NUM_ACTIONS, np.bool_), np.zeros(TL.NUM_ACTIONS, np.int64)
    key, n = decision(arr, cfg, player, abstraction, mask, out)
    return int(key), out[:n].tolist()


def relabel(a: int, label: np.ndarray) -> int:
    for base in (TL.A_PLAY, TL.A_DISCARD):
        if base <= a < base + TL.NC:
            c = a - base
            return base + int(label[c // 13]) * 13 + c % 13
    return a


def game_and_states(name: str, count: int, seed: int) -> tuple[pyspiel.Game, list[pyspiel.State]]:
    """The game and ``count`` decision states of its random play."""
    game = pyspiel.load_game(name)
    return game, random_states(game, count, seed)


# ---- lossless suit isomorphism ----------------------------------------------------------------------
@pytest.mark.parametrize("name", [PARLETT, ZWICKEN, SMALL_ZWIKKEN])
def test_suits_key_is_coarser_than_exact_and_keeps_legal_actions(name):
    """Exact information set -> one suits key; one suits key -> the same relabelled legal actions,
    player and phase (so the isomorphism never merges sets that differ in what can be done)."""
    game, states = game_and_states(name, 600, seed=3)
    cfg = game.rules.cfg
    by_exact: dict[int, int] = {}
    by_suits: dict[int, tuple] = {}
    for s in states:
        p = s.current_player()
        key, acts = key_and_actions(s.array, cfg, p, SUITS)
        label = np.zeros(4, np.int64)
        suit_labels(s.array, cfg, p, label)
        assert sorted(acts) == sorted(s.legal_actions())
        rel = [relabel(a, label) for a in acts]
        assert rel == sorted(rel)  # the set's order is the relabelled order
        assert by_exact.setdefault(int(tricks_key(s.array, p)), key) == key
        sig = (p, int(s.array[TL.S_PHASE]), tuple(rel))
        assert by_suits.setdefault(key, sig) == sig
    assert len(by_suits) > 100  # random states: isomorphic pairs are rare here (merging: the next test)


@pytest.mark.parametrize("seed", range(4))
def test_suits_key_is_invariant_under_suit_permutations(seed):
    """Two scripted deals that differ by a permutation of the non-trump suits, played on with the
    permuted actions and chance outcomes: at every decision the suits keys are equal and the
    actions correspond, while the exact keys differ."""
    rules = T.rules("zwikken", variant="parlett", players=3)
    rng = np.random.default_rng(seed)
    deck = list(rules.deck)
    rng.shuffle(deck)
    up = deck[9]
    trump = up // 13
    others = [su for su in range(4) if su != trump]
    perm = {trump: trump, **dict(zip(others, [others[i] for i in rng.permutation(3)], strict=True))}
    while all(perm[su] == su for su in others):
        perm = {trump: trump, **dict(zip(others, [others[i] for i in rng.permutation(3)], strict=True))}

    def sig(c: int) -> int:
        return perm[c // 13] * 13 + c % 13

    hands = [[_card(c) for c in deck[3 * i : 3 * i + 3]] for i in range(3)]
    a = T.scripted(rules, hands, upcard=_card(up))
    b = T.scripted(rules, [[_card(sig(c)) for c in deck[3 * i : 3 * i + 3]] for i in range(3)], upcard=_card(sig(up)))
    compared = differed = 0
    while not T.is_over(a):
        if T.is_chance(a):
            c = int(rng.choice([x for x, _ in T.chance_outcomes(a)]))
            if sig(c) not in [x for x, _ in T.chance_outcomes(b)]:
                break
            a, b = T.apply(a, c), T.apply(b, sig(c))
            continue
        p = T.to_move(a)
        ka, acts_a = key_and_actions(a.arr, rules.cfg, p, SUITS)
        kb, acts_b = key_and_actions(b.arr, rules.cfg, p, SUITS)
        assert ka == kb
        # the same canonical actions in the same order (suits tied for the player may be ordered
        # either way), and the permuted legal actions of one deal are those of the other
        la, lb = np.zeros(4, np.int64), np.zeros(4, np.int64)
        suit_labels(a.arr, rules.cfg, p, la)
        suit_labels(b.arr, rules.cfg, p, lb)
        assert [relabel(x, la) for x in acts_a] == [relabel(y, lb) for y in acts_b]
        assert sorted(relabel(x, _perm_array(perm)) for x in acts_a) == sorted(acts_b)
        compared += 1
        differed += int(tricks_key(a.arr, p)) != int(tricks_key(b.arr, p))
        x = int(rng.choice(acts_a))
        a, b = T.apply(a, x), T.apply(b, relabel(x, _perm_array(perm)))
    assert compared >= 3 and differed >= 1


def _card(c: int) -> str:
    return "23456789TJQKA"[c % 13] + "CDHS"[c // 13]


def _perm_array(perm: dict[int, int]) -> np.ndarray:
    return np.array([perm[su] for su in range(4)], np.int64)


def test_suit_symmetry_of_packs():
    assert suit_symmetric(T.rules("zwikken", variant="parlett", players=3).cfg)
    assert suit_symmetric(T.rules("zwicken", players=4).cfg)


# ---- lossy buckets ----------------------------------------------------------------------------------
@pytest.mark.parametrize("name", [PARLETT, ZWICKEN])
def test_abstract_keys_read_only_the_players_information(name):
    """Worlds resampled from the player's information state get the same suits and buckets keys
    and the same abstract actions; each abstract action is a distinct legal action."""
    game, states = game_and_states(name, 120, seed=5)
    cfg = game.rules.cfg
    rng = np.random.default_rng(9)
    merged = set()
    for s in states:
        p = s.current_player()
        legal = set(s.legal_actions())
        ref = {ab: key_and_actions(s.array, cfg, p, ab) for ab in (SUITS, BUCKETS)}
        acts = ref[BUCKETS][1]
        assert len(set(acts)) == len(acts) and set(acts) <= legal
        merged.add(len(acts) < len(legal))
        for _ in range(2):
            w = T.resample(s.trick_state(), p, rng)
            for ab in (SUITS, BUCKETS):
                assert key_and_actions(w.arr, cfg, p, ab) == ref[ab]
    assert True in merged  # buckets do group cards


def test_buckets_merge_far_more_than_suits():
    """The same outcome-sampling run (same seed) creates far fewer sets with buckets."""
    game = pyspiel.load_game(PARLETT)
    rows = {}
    for ab in ("none", "suits", "buckets"):
        solver = MCCFRSolver(game, "outcome", seed=1, abstraction=ab)
        solver.run(3000)
        rows[ab] = solver.table.num_rows
    assert rows["buckets"] < 0.5 * rows["suits"] and rows["suits"] <= rows["none"]


# ---- MCCFR, policy files and the agent --------------------------------------------------------------
def test_unknown_abstractions_are_refused():
    with pytest.raises(ValueError, match="valid: none, suits, buckets"):
        MCCFRSolver(pyspiel.load_game(PARLETT), "external", abstraction="coarse")
    with pytest.raises(ValueError, match="trick games"):
        MCCFRSolver(pyspiel.load_game("kuhn_poker"), "external", abstraction="buckets")
    with pytest.raises(ValueError, match="min_visits"):
        make_agent("mccfr:policy=x,min_visits=-1", pyspiel.load_game(PARLETT))


@pytest.mark.parametrize("abstraction", ["suits", "buckets"])
def test_abstract_policy_plays_through_the_agent(tmp_path, abstraction):
    game = pyspiel.load_game(SMALL_ZWIKKEN)
    solver = MCCFRSolver(game, "external", seed=2, abstraction=abstraction)
    solver.run(300)
    t = solver.table
    vis = t.rows[: t.num_rows, R_VIS]
    assert vis.min() >= 1 and vis.sum() > 300
    save_policy(solver, tmp_path / "pol", seed=2)
    pol = Policy(tmp_path / "pol")
    assert pol.meta["key_scheme"] == f"tricks_{abstraction}" and pol.visits is not None
    for mv, expect_all in ((0, False), (10**9, True)):
        agent = make_agent(f"mccfr:policy={tmp_path / 'pol'},fallback=greedy,min_visits={mv}", game, seed=1)
        for d in range(30):
            rec = play_game(game, [agent, make_agent("random", game, seed=3), make_agent("random", game, seed=4)], d)
            assert len(rec.returns) == 3
        st = agent.stats
        assert st["decisions"] > 30
        assert (st["fallbacks"] == st["decisions"]) == expect_all
    # the policy's actions at a reachable set are legal in that state
    s = game.new_initial_state()
    rng = np.random.default_rng(0)
    while not s.is_terminal():
        if s.is_chance_node():
            ids, probs = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(int(rng.choice(ids, p=np.array(probs) / sum(probs))))
            continue
        found = pol.lookup(s, s.current_player())
        if found is not None:
            acts, probs = found
            assert set(acts.tolist()) <= set(s.legal_actions()) and abs(probs.sum() - 1) < 1e-5
        s.apply_action(int(rng.choice(s.legal_actions())))


def test_compiled_evaluation_with_greedy_fallback_equals_greedy_on_an_empty_table():
    """An untrained table falls back everywhere: the compiled evaluation then plays greedy, and
    greedy against a greedy field equals a full-greedy table of the same seeds."""
    game = pyspiel.load_game(SMALL_ZWIKKEN)
    empty = MCCFRSolver(game, "external", seed=0, abstraction="buckets")
    v1, used = empty.value_vs("greedy", 200, seed=4, fallback="greedy")
    v2, _ = empty.value_vs("greedy", 200, seed=4, min_visits=5, fallback="greedy")
    assert used == 0.0 and v1 == v2
    v3, _ = empty.value_vs("greedy", 200, seed=4, fallback="uniform")
    assert v3 != v1


# ---- best-response training against a greedy field (not CFR) ----------------------------------------
def test_greedy_field_training_beats_greedy_in_its_seat(tmp_path):
    """Against a greedy field, the trained seat does at least as well as greedy itself in that seat
    (it learns a best response in the abstract game); the field is kept in checkpoints and policies."""
    game = pyspiel.load_game(SMALL_ZWIKKEN)
    with pytest.raises(ValueError, match="valid: self, greedy"):
        MCCFRSolver(game, "external", field="random")
    solver = MCCFRSolver(game, "external", seed=3, abstraction="buckets", field="greedy")
    solver.run(3000)
    trained, used = solver.value_vs("greedy", 3000, seed=8, fallback="greedy")
    greedy, _ = MCCFRSolver(game, "external", abstraction="buckets").value_vs("greedy", 3000, seed=8, fallback="greedy")
    assert used > 0.9 and trained > greedy + 0.02
    save_checkpoint(solver, tmp_path / "ck", seed=3)
    again, meta = load_checkpoint(tmp_path / "ck")
    assert meta["field"] == "greedy" and again.field == "greedy"
    again.run(10)
    solver.run(10)
    assert np.array_equal(again.table.avg[: again.table.num_edges], solver.table.avg[: solver.table.num_edges])
