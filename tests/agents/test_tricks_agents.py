"""Trick-game agents: the greedy heuristic, the compiled resampler, ISMCTS and PIMC."""

import itertools

import numpy as np
import pyspiel
import pytest
from scipy import stats

import zwick_ai.agents  # noqa: F401  (registers the built-in agents)
import zwick_ai.games  # noqa: F401
from zwick_ai import cards as C
from zwick_ai import tricks as T
from zwick_ai.agents import make_agent
from zwick_ai.agents import tricks_search as TS
from zwick_ai.agents.tricks_greedy import greedy_action
from zwick_ai.agents.tricks_search import ismcts_decision, pimc_decision
from zwick_ai.eval.match import deal, play_game
from zwick_ai.tricks import kernels as K
from zwick_ai.tricks import layout as L
from zwick_ai.tricks.worlds import resample_fast

VARIANTS = [
    "zwikken(variant=historic,players=4)",
    "zwikken(variant=historic,players=3,pack=piquet,zwik=suit,upcard_pair=true)",
    "zwikken(variant=historic,players=5,forced_rounds=true)",
    "zwikken(variant=parlett,players=3)",
    "zwikken(variant=parlett,players=4,part_pot_bids=true,three_trumps=true)",
    "zwikken(variant=modern,players=3)",
    "zwikken(variant=modern,players=4,lubbers=true)",
    "zwicken(players=4)",
    "zwicken(players=2,hupf=false)",
    "zwicken(players=5,anbieten=true,seven_jump=next_but_one)",
]
SPECS = ["greedy", "ismcts:iters=20,rollout=greedy", "pimc:worlds=2,iters=10", "random", "ismcts:iters=20"]
ISMCTS = {"iters": 40, "time": 0.0, "c": 0.7, "rollout": "random"}
PIMC = {"worlds": 3, "iters": 15, "c": 0.7, "rollout": "greedy"}


def lineup(game, specs=SPECS):
    return [make_agent(specs[i % len(specs)], game, seed=i) for i in range(game.num_players())]


@pytest.mark.parametrize("game_string", VARIANTS)
def test_agents_play_every_variant_legally(game_string):
    # play_game applies each decision through apply_decision, which checks legality
    game = pyspiel.load_game(game_string)
    for deal_seed in range(3):
        rec = play_game(game, lineup(game), deal_seed=deal_seed)
        assert len(rec.returns) == game.num_players()


@pytest.mark.parametrize("game_string", VARIANTS)
def test_greedy_is_legal_throughout_many_deals(game_string):
    game = pyspiel.load_game(game_string)
    r = game.rules
    for seed in range(40):
        s = T.deal(r, seed)
        while not T.is_over(s):
            a = int(greedy_action(s.arr, r.cfg))
            assert a in T.legal_actions(s), T.render(s)
            s = T.apply(s, a)


@pytest.mark.parametrize("game_string", ["zwikken(variant=modern,players=3)", "zwicken(players=4)"])
def test_games_are_reproducible_from_seeds(game_string):
    game = pyspiel.load_game(game_string)
    first = play_game(game, lineup(game), deal_seed=5)
    again = play_game(game, lineup(game), deal_seed=5)
    assert first.moves == again.moves and first.returns == again.returns


@pytest.mark.parametrize("game_string", VARIANTS)
def test_compiled_worlds_have_the_players_information_state(game_string):
    r = pyspiel.load_game(game_string).rules
    rng = np.random.default_rng(0)
    for seed in range(8):
        s = T.deal(r, seed)
        policy = T.random_policy(seed)
        while not T.is_over(s):
            p = T.to_move(s)
            w = resample_fast(s, p, rng)
            assert T.information_state_string(w, p) == T.information_state_string(s, p)
            assert T.to_move(w) == p and T.phase(w) == T.phase(s)
            assert K.check_invariants(w.arr, r.cfg) == 0
            s = T.apply(s, policy(s))


# ---- the resampler's distribution on a small case, against brute force and the Python resampler --------
SMALL = T.rules("zwikken", variant="parlett", players=3, ranks="AKQ")


def _second_trick(seed):
    """The first position of trick 2 (no re-turned trump) of a random deal of SMALL."""
    s = T.deal(SMALL, seed)
    policy = T.random_policy(seed)
    while not T.is_over(s):
        if T.phase(s) == "play" and s.arr[L.S_TRICK] == 1 and s.arr[L.S_NPLAYED] == 0 and s.arr[L.S_NUP] == 1:
            return s
        s = T.apply(s, policy(s))
    raise AssertionError("no such position")


def _deal_key(state):
    return tuple(tuple(v for k, w, v in T.history(state) if k == L.H_DEAL and w == q) for q in range(SMALL.players))


def _consistent_deals(s, obs):
    """Every deal of the other seats consistent with ``obs``'s information (by brute force: deal
    the unseen cards every way, replay the actions through the checked API, compare strings)."""
    hist = T.history(s)
    info = T.information_state_string(s, obs)
    up = next(v for k, _, v in hist if k == L.H_UP)
    own = [v for k, w, v in hist if k == L.H_DEAL and w == obs]
    shown = {q: [v for k, w, v in hist if k == L.H_ACT and w == q and v < L.A_DISCARD] for q in range(3)}
    unseen = sorted(set(SMALL.deck) - set(own) - {up} - {c for cs in shown.values() for c in cs})
    acts = [v for k, _, v in hist if k == L.H_ACT]
    a, b = [q for q in range(3) if q != obs]
    out = set()
    for extra_a in itertools.combinations(unseen, 3 - len(shown[a])):
        rest = [c for c in unseen if c not in extra_a]
        for extra_b in itertools.combinations(rest, 3 - len(shown[b])):
            hands = {obs: own, a: sorted(shown[a] + list(extra_a)), b: sorted(shown[b] + list(extra_b))}
            st = T.scripted(SMALL, [C.format_cards(hands[q]).split() for q in range(3)], upcard=C.format_card(up))
            try:
                for x in acts:
                    st = T.apply(st, x)
            except ValueError:
                continue
            if T.information_state_string(st, obs) == info:
                out.add(_deal_key(st))
    return sorted(out)


def test_compiled_resampler_is_uniform_over_the_consistent_deals():
    s = _second_trick(15)
    obs = T.to_move(s)
    worlds = _consistent_deals(s, obs)
    assert 5 < len(worlds) < 90  # the plays ruled deals out (90 without information)
    rng = np.random.default_rng(0)
    fast = [_deal_key(resample_fast(s, obs, rng)) for _ in range(1200)]
    slow = [_deal_key(T.resample(s, obs, rng)) for _ in range(1200)]
    assert set(fast) == set(worlds) and set(slow) == set(worlds)
    counts_fast = np.array([fast.count(w) for w in worlds])
    counts_slow = np.array([slow.count(w) for w in worlds])
    assert stats.chisquare(counts_fast).pvalue > 1e-3
    assert stats.chi2_contingency(np.array([counts_fast, counts_slow])).pvalue > 1e-3


def test_python_and_compiled_resamplers_rule_out_an_unseen_ten_swap():
    # parlett: whoever holds the trump ten is offered the swap; nobody was, so nobody else holds it
    r = T.rules("zwikken", variant="parlett", players=3)
    s = T.scripted(r, [["AS", "KC", "QD"], ["KH", "QC", "JD"], ["AC", "KD", "JS"]], upcard="QH")
    for a in ["bid 1", "pass", "pass"]:
        s = T.apply(s, a)
    assert T.phase(s) == "play"
    rng = np.random.default_rng(1)
    ten = C.parse_card("TH")
    for _ in range(100):
        for w in (resample_fast(s, 0, rng), T.resample(s, 0, rng)):
            assert w.arr[L.S_LOC + ten] not in (L.L_HAND + 1, L.L_HAND + 2)


# ---- search --------------------------------------------------------------------------------------------
def _obvious_position():
    """parlett, trump hearts; seat 0 (gambler, one trick won) leads to trick 2 holding AC JC.
    AC wins the second trick and the pot; after JC every remaining card is forced and seat 0
    loses (KC takes the trick, QH the last one, the others' tricks hold more card points)."""
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    s = T.scripted(game.rules, [["AH", "AC", "JC"], ["KC", "KH", "QH"], ["QC", "JD", "QS"]], upcard="TH")
    for a in ["bid 1", "pass", "pass", "AH", "KH", "QS"]:
        s = T.apply(s, a)
    state = game.new_initial_state()
    for _, _, v in T.history(s):
        state.apply_action(v)
    return state


def test_obvious_position_is_as_claimed():
    state = _obvious_position()
    outcome = {}
    for a in state.legal_actions():
        st = state.child(a)
        while not st.is_terminal():
            assert len(st.legal_actions()) == 1  # forced to the end
            st.apply_action(st.legal_actions()[0])
        outcome[state.action_to_string(a)] = st.returns()[0]
    assert outcome == {"play AC": 3.0, "play JC": -3.0}


@pytest.mark.parametrize("rollout", ["random", "greedy"])
def test_search_finds_the_winning_play(rollout):
    state = _obvious_position()
    ac = C.parse_card("AC")
    for seed in range(3):
        rng = np.random.default_rng(seed)
        assert ismcts_decision(state, {**ISMCTS, "iters": 300, "rollout": rollout}, rng) == [ac]
        assert pimc_decision(state, {**PIMC, "worlds": 8, "iters": 60, "rollout": rollout}, rng) == [ac]


def _children(ti: np.ndarray, node: int) -> list[int]:
    out, c = [], int(ti[node, TS.T_FIRST])
    while c >= 0:
        out.append(c)
        c = int(ti[c, TS.T_NEXT])
    return out


def test_search_credits_each_node_with_the_reward_of_the_seat_that_moved():
    """Zwicken, two tricks, trump clubs, nobody exchanges: seat 0 holds 7H KH, seat 1 AH 8H. After
    seat 0 leads 7H, seat 1's clearly best reply is 8H (AH then wins the second trick too: +2
    chips, seat 0 -3), not AH (one trick each: +1, +1). On one fixed world (the PIMC search, all
    cards visible) the node of each reply holds that reply's own reward for seat 1, so the visits
    go to 8H; crediting seat 0's reward there would make the search pick AH for seat 1."""
    game = pyspiel.load_game("zwicken(players=2,tricks=2,hupf=false,ranks=AK87,suits=HC)")
    s = T.scripted(game.rules, [["7H", "KH"], ["AH", "8H"]], upcard="8C")
    for a in ["exchange 0", "exchange 0"]:
        s = T.apply(s, a)
    state = game.new_initial_state()
    for _, _, v in T.history(s):
        state.apply_action(v)
    lead = {state.action_to_string(a): a for a in state.legal_actions()}
    replies = {
        state.child(lead["play 7H"]).action_to_string(a): a for a in state.child(lead["play 7H"]).legal_actions()
    }
    assert set(lead) == {"play 7H", "play KH"} and set(replies) == {"play 8H", "play AH"}
    arr = state.array
    iters = 400
    tree = TS.new_tree(iters + 2)
    ti, tw = tree.fields, tree.reward
    TS.seed(5)
    done = TS.search(
        arr, state.rules.cfg, -1, 0, False, arr.copy(), tree, iters, TS.Settings(0.7, False, TS._scale(arr), 10)
    )
    assert done == iters
    node = next(c for c in _children(ti, 0) if ti[c, TS.T_KEY] == lead["play 7H"])
    by_reply = {int(ti[c, TS.T_KEY]): c for c in _children(ti, node)}
    assert set(by_reply) == set(replies.values()) and all(ti[c, TS.T_ACTOR] == 1 for c in by_reply.values())
    best, other = by_reply[replies["play 8H"]], by_reply[replies["play AH"]]
    assert ti[best, TS.T_N] >= 0.8 * ti[node, TS.T_N], (ti[best, TS.T_N], ti[node, TS.T_N])
    scale = TS._scale(arr)
    assert tw[best] == pytest.approx(2 / scale * ti[best, TS.T_N])  # seat 1 wins both tricks: +2 chips
    assert tw[other] == pytest.approx(1 / scale * ti[other, TS.T_N])  # one trick each: +1 chip


def test_search_cannot_peek():
    # the same information with other hidden cards: the same decision from the same seed
    game = pyspiel.load_game("zwikken(variant=modern,players=3)")
    state = deal(game, 11)
    p = state.current_player()
    other = game.new_initial_state()
    for _, _, v in T.history(resample_fast(state.trick_state(), p, np.random.default_rng(3))):
        other.apply_action(v)
    assert str(other) != str(state) and other.information_state_string(p) == state.information_state_string(p)
    for decide, params in ((ismcts_decision, ISMCTS), (pimc_decision, PIMC)):
        assert decide(state, params, np.random.default_rng(4)) == decide(other, params, np.random.default_rng(4))


def test_search_decisions_repeat_with_the_seed():
    game = pyspiel.load_game("zwicken(players=4)")
    state = deal(game, 2)
    for decide, params in ((ismcts_decision, ISMCTS), (pimc_decision, PIMC)):
        runs = {tuple(decide(state, params, np.random.default_rng(9))) for _ in range(2)}
        assert len(runs) == 1 and next(iter(runs))[0] in state.legal_actions()


def test_time_budget_and_bad_parameters():
    game = pyspiel.load_game("zwikken(players=3)")
    state = deal(game, 1)
    acts = ismcts_decision(state, {**ISMCTS, "iters": 0, "time": 0.05}, np.random.default_rng(0))
    assert acts[0] in state.legal_actions()
    with pytest.raises(ValueError, match="valid: random, greedy"):
        ismcts_decision(state, {**ISMCTS, "rollout": "smart"}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="iters"):
        ismcts_decision(state, {**ISMCTS, "iters": 0}, np.random.default_rng(0))
    with pytest.raises(ValueError, match="worlds"):
        pimc_decision(state, {"iters": 5, "c": 0.7, "rollout": "random"}, np.random.default_rng(0))


@pytest.mark.slow
def test_ismcts_beats_greedy_on_zwicken():
    # duplicate deals, the hero in every seat against a greedy field, compared with greedy in that seat
    from zwick_ai.stats import paired_diff_ci

    game = pyspiel.load_game("zwicken(players=4)")
    hero, base = [], []
    for d in range(60):
        field = play_game(game, [make_agent("greedy", game) for _ in range(4)], deal_seed=d, labels=False).returns
        chips = 0.0
        for seat in range(4):
            agents = [make_agent("ismcts:iters=1000,rollout=greedy" if q == seat else "greedy", game) for q in range(4)]
            chips += play_game(game, agents, deal_seed=d, labels=False).returns[seat]
        hero.append(chips / 4)  # one observation per deal
        base.append(sum(field) / 4)
    assert paired_diff_ci(hero, base).ci95[0] > 0
