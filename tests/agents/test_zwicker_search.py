"""The compiled Zwicker ISMCTS and PIMC: legal whole moves in every variant, reproducible decisions,
determinizations consistent with the searcher's information (and equal to the Python resampler's
worlds for the same seed), obvious captures found, and strength against the random agent."""

from __future__ import annotations

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401
from tests.random_play import random_states
from zwick_ai import cards, zwicker
from zwick_ai.agents import apply_decision, decision_label, make_agent, zwicker_search
from zwick_ai.eval.match import play_game
from zwick_ai.games import zwicker as zwicker_game
from zwick_ai.games import zwicker_bridge
from zwick_ai.stats import mean_ci
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import kernels
from zwick_ai.zwicker.layout import (
    KIND_CAPTURE,
    LOC_HAND,
    LOC_STOCK,
    LOC_TABLE,
    LOC_WON,
    MAX_HAND,
    S_HAND_N,
    S_HANDS,
    S_LOC,
    S_NEXT,
    S_NUNITS,
    S_STOCK,
    S_STOCK_LEN,
    S_STOCK_TOP,
    S_UNITS,
)

VARIANTS = [
    "zwicker(variant=dithmarschen,players=4)",
    "zwicker(variant=classic,players=4)",
    "zwicker(variant=grupp,players=3)",
    "zwicker(variant=grossenwiehe,players=4)",
    "zwicker(variant=grossenwiehe,players=6)",
    "zwicker(variant=christiansen,players=3)",
    "zwicker(variant=dithmarschen,players=2,dietze_min_table=4,after_zwick=all_trail)",
    "zwicker(variant=classic,players=2,first_dealer=low_cut,after_zwick=zwicker_trails)",
    "zwicker(variant=dithmarschen,players=2,hand_size=4,table_size=16,stages=1)",  # thousands of captures
]


def random_whole_move(state: pyspiel.State, rng: np.random.Generator) -> None:
    rows = state.candidate_rows()
    apply_decision(state, zwicker_bridge.move_actions(state, rows[int(rng.integers(len(rows)))]))


def turn_states(game: pyspiel.Game, n: int, seed: int, keep: float = 0.3) -> list[pyspiel.State]:
    """Decision states at the start of a turn, from random whole moves on the deals seed, seed + 1, ..."""
    return random_states(
        game, n, seed, keep, start=lambda i: zwicker_bridge.state_from_seed(game, seed + i), step=random_whole_move
    )


def engine_facts(S: np.ndarray, players: int) -> dict:
    """Hands (sorted), table units (card sets in table order), stock cards and per-card locations."""
    hands = [
        sorted(S[S_HANDS + q * MAX_HAND : S_HANDS + q * MAX_HAND + S[S_HAND_N + q]].tolist()) for q in range(players)
    ]
    units = []
    for i in range(S[S_NUNITS]):
        x, unit_cards = int(S[S_UNITS + i]), []
        while x != -1:
            unit_cards.append(x)
            x = int(S[S_NEXT + x])
        units.append(sorted(unit_cards))
    stock = S[S_STOCK + S[S_STOCK_TOP] : S_STOCK + S[S_STOCK_LEN]].tolist()
    return {"hands": hands, "units": units, "stock": stock, "loc": S[S_LOC : S_LOC + cards.NUM_CARDS].tolist()}


# ------------------------------------------------------------------------------------------------
# Legality and reproducibility
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", VARIANTS)
def test_chosen_moves_are_legal_whole_moves(spec):
    game = pyspiel.load_game(spec)
    agents = [make_agent("ismcts:iters=30", game, seed=1), make_agent("pimc:worlds=3,iters=10,rollout=greedy", game, 2)]
    for i, s in enumerate(turn_states(game, 8, seed=11)):
        acts = agents[i % 2].act(s)
        if len(s.candidate_rows()) < 300:  # listing thousands of captures as sub-actions is slow
            legal = {tuple(a) for _, a in zwick_ai.agents.legal_decisions(s)}
            assert tuple(acts) in legal, decision_label(s, acts)
        apply_decision(s.clone(), acts)  # complete and legal through the checked path


def test_same_seed_same_decision_and_state_untouched():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    for s in turn_states(game, 4, seed=3):
        before = s.history()
        for spec in ("ismcts:iters=100", "pimc:worlds=4,iters=25"):
            a = make_agent(spec, game, seed=7).act(s)
            agent = make_agent(spec, game, seed=99)
            agent.reset(7)
            assert agent.act(s) == a
        assert s.history() == before


def test_time_budget_and_bad_parameters():
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    s = zwicker_bridge.state_from_seed(game, 2)
    acts = make_agent("ismcts:iters=0,time=0.05", game, seed=1).act(s)
    assert tuple(acts) in {tuple(a) for _, a in zwick_ai.agents.legal_decisions(s)}
    for bad, msg in [
        ("ismcts:rollout=smart", "valid: random, greedy"),
        ("ismcts:iters=-1", "must be >= 0"),  # iters=0 alone is the default budget (1,000)
        ("ismcts:c=-1", "must be >= 0"),
        ("pimc:worlds=0", "at least one world"),
    ]:
        with pytest.raises(ValueError, match=msg):
            make_agent(bad, game)


@pytest.mark.parametrize("spec", VARIANTS)
def test_move_keys_identify_moves_like_the_engines_move_keys(spec):
    """The compiled key (card ids) against the engine's ``MoveKey`` (sorted card tuples)."""
    game = pyspiel.load_game(spec)
    lo, hi, out = np.zeros(64, np.int64), np.zeros(64, np.int64), np.zeros(zwicker_search.NKW, np.int64)
    for s in turn_states(game, 12, seed=41):
        es = zwicker_bridge.engine_state(s)
        zwicker_search.unit_cards(es.arr, lo, hi)
        pairs = set()
        for m in zwicker.legal_moves(es):
            zwicker_search.move_key(es.arr, np.asarray(m.row, np.int64), lo, hi, 5, out)
            key = tuple(out.tolist())
            assert key[zwicker_search.NK_PARENT] == 5
            taken = [c for c in range(cards.NUM_CARDS) if (key[zwicker_search.NK_TAKEN_LO + (c >= 64)] >> (c % 64)) & 1]
            assert taken == sorted(m.key.taken)
            assert (key[zwicker_search.NK_TARGET] == -1) == (not m.key.target)
            if m.key.target:
                assert key[zwicker_search.NK_TARGET] in m.key.target
            pairs.add((key, m.key))
        keys, engine_keys = {k for k, _ in pairs}, {e for _, e in pairs}
        assert len(keys) == len(engine_keys) == len(pairs)  # one-to-one


# ------------------------------------------------------------------------------------------------
# Determinization
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", VARIANTS)
def test_worlds_keep_the_searchers_information(spec):
    game = pyspiel.load_game(spec)
    players = game.num_players()
    chain = 0
    for s in turn_states(game, 5, seed=21):
        setup = zwicker_search.DecisionSetup(s, np.random.default_rng(0))
        p = setup.player
        real = engine_facts(s.array[: zwicker_history.SS], players)
        hidden = sorted(c for c, loc in enumerate(real["loc"]) if loc == LOC_STOCK or LOC_HAND <= loc < 16 and loc != p)
        meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
        for _ in range(10):
            # Few tries, so that rarely-accepting positions exercise the Markov chain too.
            S = zwicker_search._draw_world(setup.worlds, 50, meta)
            assert all(
                kernels.duty_ok(setup.rules_array, S, q, 0, 0, -1, setup.workspace) for q in range(players)
            )  # owners hold their values
            w = engine_facts(S, players)
            assert w["hands"][p] == real["hands"][p]
            assert w["units"] == real["units"]
            assert [len(h) for h in w["hands"]] == [len(h) for h in real["hands"]]
            assert len(w["stock"]) == len(real["stock"])
            for c, loc in enumerate(real["loc"]):
                if loc >= LOC_WON and loc != LOC_STOCK or loc == LOC_TABLE:
                    assert w["loc"][c] == loc  # won piles and the table are public
            drawn = sorted(c for q in range(players) if q != p for c in w["hands"][q]) + w["stock"]
            assert sorted(drawn) == hidden  # hidden cards only move among hidden places
        chain += meta[zwicker_search.MT_CHAIN]
    if "players=6" in spec:
        assert chain > 0  # the chain's worlds were checked as well


@pytest.mark.parametrize("spec", VARIANTS[:6])
def test_worlds_equal_the_python_resamplers_for_the_same_seed(spec):
    game = pyspiel.load_game(spec)
    players = game.num_players()
    for s in turn_states(game, 4, seed=31):
        setup = zwicker_search.DecisionSetup(s, np.random.default_rng(0))
        meta = np.zeros(zwicker_search.MT_SIZE, np.int64)
        for seed in (5, 123456):
            zwicker_search._seed(seed)
            world_cards = setup.det.truth.copy()
            worlds = setup.worlds._replace(cards=world_cards, chain=world_cards.copy())
            w = zwicker_search._draw_world(worlds, zwicker_game.RESAMPLE_TRIES, meta)
            r = s.resample_from_infostate(setup.player, seed)
            want = engine_facts(r.array[: zwicker_history.SS], players)
            got = engine_facts(w, players)
            assert got["hands"] == want["hands"]
            assert sorted(got["stock"]) == sorted(want["stock"])
        assert meta[zwicker_search.MT_CHAIN] == 0


# ------------------------------------------------------------------------------------------------
# Finding good moves
# ------------------------------------------------------------------------------------------------
def dealt(spec: str, order_names: list[str]) -> pyspiel.State:
    """A state of ``spec`` dealt with the deck starting ``order_names`` (rest in deck order), dealer 1,
    so that seat 0 (forehand) moves first."""
    game = pyspiel.load_game(spec)
    first = [cards.parse_card(n) for n in order_names]
    order = first + [c for c in game.rules.deck if c not in first]
    state = game.new_initial_state()
    for a in zwicker_bridge.deal_actions(game, order, dealer=1):
        state.apply_action(a)
    assert state.current_player() == 0
    return state


@pytest.mark.parametrize("spec, order, want", [
    # Valued joker 15 sweeps TD + 5C (joker 5 points, TD 3, a Zwick); trailing it would give it away.
    ("zwicker(variant=dithmarschen,players=2,ranks=2345T,suits=CD,jokers=x15,hand_size=2,table_size=2,stages=1)",
     ["X15", "3C", "2C", "4C", "TD", "5C"], "X15=15 takes 5C+TD (zwick)"),
    # No forced capture: the 3 takes the lone 3 for a Zwick (3 points in classic).
    ("zwicker(variant=classic,players=2,forced_capture=off,ranks=_2345,suits=CD,hand_size=2,table_size=1,stages=1)",
     ["3C", "2C", "5C", "4C", "3D"], "3C=3 takes 3D (zwick)"),
])  # fmt: skip
@pytest.mark.parametrize("agent", ["ismcts:iters=300", "pimc:worlds=8,iters=40"])
def test_search_finds_the_obvious_capture(spec, order, want, agent):
    state = dealt(spec, order)
    labels = {str(m) for m, _ in zwicker_bridge.legal_moves(state)}
    assert want in labels and len(labels) > 2, labels
    acts = make_agent(agent, state.get_game(), seed=4).act(state)
    assert decision_label(state, acts) == want


# Three cards, nothing hidden: seat 0 holds 2C, seat 1 TC, the table 8C (no stock, one stage).
BACKUP_SPEC = (
    "zwicker(variant=classic,players=2,forced_capture=off,ranks=28T,suits=C,hand_size=1,table_size=1,stages=1)"
)


@pytest.mark.parametrize("world", ["ismcts", "pimc"])
def test_search_credits_each_node_with_the_reward_of_the_side_that_moved(world):
    """Seat 0 trails 2C or builds 10 on 8C; either way seat 1's one clearly best reply is TC taking
    everything (a Zwick and most cards: reward +1 for seat 1, -1 for seat 0), while trailing or
    building leaves the cards to nobody (0 each). With each node backed up with the reward of the
    side that moved into it, seat 1's visits go to that capture, worth exactly +1 each time;
    crediting any other side's reward would make the search look for seat 1's worst reply."""
    state = dealt(BACKUP_SPEC, ["2C", "TC", "8C"])
    assert sorted(str(m) for m, _ in zwicker_bridge.legal_moves(state)) == ["2C builds 10 on 8C", "2C trails"]
    setup = zwicker_search.DecisionSetup(state, np.random.default_rng(0))
    iters = 300
    tree = zwicker_search.new_tree(iters + 2)
    fixed = setup.real.copy() if world == "pimc" else np.zeros(0, np.int32)  # PIMC: the true deal
    setup.run(tree, fixed, iters, {"rollout": "random", "c": 0.7})
    NKEY, NV, _, NQ, _, meta = tree
    nodes = range(1, int(meta[zwicker_search.MT_NODES]))
    take_all = cards.parse_card("TC")
    moves = [x for x in nodes if NKEY[x, zwicker_search.NK_PARENT] == 0]
    assert len(moves) == 2 and NV[moves].sum() == iters
    for m in moves:
        replies = [x for x in nodes if NKEY[x, zwicker_search.NK_PARENT] == m]
        assert len(replies) >= 2 and all(NKEY[x, zwicker_search.NK_MOVER] == 1 for x in replies)
        best = max(replies, key=lambda x: NV[x])
        assert NKEY[best, zwicker_search.NK_KIND] == KIND_CAPTURE and NKEY[best, zwicker_search.NK_CARD] == take_all
        assert NV[best] >= 0.8 * NV[m], (NV[best], NV[m])
        assert NQ[best] == pytest.approx(NV[best])  # +1 for seat 1 on every visit
        # -1 for seat 0 on those same visits (and on the rollout that created m, if it took all)
        assert -NQ[m] == pytest.approx(NV[best], abs=1)


def duplicate_margins(spec: str, hero: str, villain: str, deals: range) -> list[float]:
    """Per deal: the hero's mean return over the deal played with the sides swapped."""
    game = pyspiel.load_game(spec)
    n = game.num_players()
    out = []
    for d in deals:
        total = 0.0
        for hero_seats in ((0, 2), (1, 3)) if n == 4 else ((0,), (1,)):
            agents = [make_agent(hero if q in hero_seats else villain, game, seed=q) for q in range(n)]
            rec = play_game(game, agents, deal_seed=d, labels=False)
            total += rec.returns[hero_seats[0]]
        out.append(total / 2)
    return out


def test_ismcts_beats_random_on_dithmarschen():
    # Small budget, greedy rollouts: about +20 points per deal (10 deals measured), so the bound is safe.
    hero = "ismcts:iters=100,rollout=greedy"
    m = mean_ci(duplicate_margins("zwicker(variant=dithmarschen,players=4)", hero, "random", range(6)))
    assert m.ci95[0] > 5, m


@pytest.mark.slow
@pytest.mark.parametrize("hero, villain", [
    ("ismcts:iters=2000", "random"),  # +25.6 ± 1.9 points per deal in benchmarks/strength_search.py
    ("ismcts:iters=2000", "greedy"),  # +7.5 ± 3.9 there, on these same 20 deals
    ("pimc:worlds=10,iters=100", "random"),
])  # fmt: skip
def test_search_beats_baselines_slow(hero, villain):
    m = mean_ci(duplicate_margins("zwicker(variant=dithmarschen,players=4)", hero, villain, range(20)))
    assert m.ci95[0] > 0, m


def test_cheat_uct_searches_only_the_true_deal():
    """``cheat-uct`` searches the real state: every reply in its tree is a card the replying seat
    really holds, while ISMCTS (same seed, same budget) also tries cards the seat might hold."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    state = zwicker_bridge.state_from_seed(game, 4)
    S = state.engine_state().arr
    nxt = (state.current_player() + 1) % 4
    true_hand = set(int(c) for c in S[S_HANDS + nxt * MAX_HAND : S_HANDS + nxt * MAX_HAND + S[S_HAND_N + nxt]])
    params = {"iters": 400, "time": 0.0, "c": 0.7, "rollout": "random"}
    replies = {}
    for cheat in (True, False):
        setup = zwicker_search.DecisionSetup(state, np.random.default_rng(3))
        tree = zwicker_search.new_tree(params["iters"] + 2)
        world = setup.real.copy() if cheat else np.zeros(0, np.int32)
        zwicker_search._search_budget(setup, tree, world, params)
        NKEY, meta = tree.keys, tree.counts
        nodes = NKEY[1 : meta[zwicker_search.MT_NODES]]
        first = set(np.flatnonzero(NKEY[: meta[zwicker_search.MT_NODES], zwicker_search.NK_PARENT] == 0).tolist())
        second = nodes[np.isin(nodes[:, zwicker_search.NK_PARENT], list(first))]
        replies[cheat] = set(second[second[:, zwicker_search.NK_MOVER] == nxt][:, zwicker_search.NK_CARD].tolist())
    assert replies[True] and replies[True] <= true_hand
    assert replies[False] - true_hand  # the fair search considers other holdings
    agent = make_agent("cheat-uct:iters=200", game, seed=1)
    assert agent.act(state) == make_agent("cheat-uct:iters=200", game, seed=1).act(state)
    with pytest.raises(ValueError, match="not available|valid games|zwicker"):
        make_agent("cheat-uct", pyspiel.load_game("zwikken"))
