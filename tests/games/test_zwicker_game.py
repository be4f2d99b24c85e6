"""The OpenSpiel ``zwicker`` game: registration, parameters, conformance, the sub-action codec,
observers, returns, serialization and the engine conversions.

Resampling is tested in ``test_zwicker_worlds.py``; OpenSpiel's algorithms on the game in
``test_zwicker_algorithms.py``.
"""

from __future__ import annotations

import pickle

import numpy as np
import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from tests.random_play import at_turn_start, random_states
from zwick_ai import zwicker
from zwick_ai.games import zwicker_bridge, zwicker_observer
from zwick_ai.zwicker import history as zwicker_history
from zwick_ai.zwicker import steps as zwicker_steps
from zwick_ai.zwicker.history import SS
from zwick_ai.zwicker.rules import PLAYER_COUNTS, VARIANTS

MICRO = "zwicker(variant=dithmarschen,players=2,ranks=A23,suits=CD,jokers=none,hand_size=1,table_size=2,stages=1)"


def play_random(game: pyspiel.Game, seed: int) -> pyspiel.State:
    rng = np.random.default_rng(seed)
    s = game.new_initial_state()
    while not s.is_terminal():
        if s.is_chance_node():
            ids, ps = zip(*s.chance_outcomes(), strict=True)
            s.apply_action(int(rng.choice(ids, p=ps)))
        else:
            la = s.legal_actions()
            s.apply_action(la[int(rng.integers(len(la)))])
    return s


# ------------------------------------------------------------------------------------------------
# Registration and parameters
# ------------------------------------------------------------------------------------------------
def test_load_by_string_and_dict():
    g = pyspiel.load_game("zwicker(variant=grossenwiehe,players=6)")
    assert g.num_players() == 6 and g.rules.variant == "grossenwiehe" and g.rules.sides == ((0, 2, 4), (1, 3, 5))
    g2 = pyspiel.load_game("zwicker", {"variant": "grossenwiehe", "players": 6, "team_size": 2})
    assert g2.rules.sides == ((0, 3), (1, 4), (2, 5))
    assert pyspiel.load_game("zwicker").num_players() == 4  # dithmarschen's default
    assert pyspiel.load_game("zwicker(variant=christiansen)").num_players() == 3
    # Options that OpenSpiel cannot spell directly: an all-digit rank set, joker lists.
    g3 = pyspiel.load_game("zwicker", {"variant": "dithmarschen", "players": 2, "ranks": "2345", "jokers": "15+25"})
    assert g3.rules.deck_size == 4 * 4 + 2
    assert "ranks=_2345" in str(g3) and "jokers=15_25" in str(g3)
    assert pyspiel.load_game(str(g3)).rules == g3.rules


@pytest.mark.parametrize(
    "spec, message",
    [
        ("zwicker(variant=skat)", "valid variants: classic, grupp, dithmarschen, grossenwiehe, christiansen"),
        ("zwicker(variant=dithmarschen,players=5)", "dithmarschen is played by 2, 3, 4 players"),
        ("zwicker(variant=grossenwiehe,players=5)", "grossenwiehe is played by 2, 3, 4, 6 players"),
        ("zwicker(variant=classic,magger=false)", "option magger applies only to grossenwiehe with teams"),
        ("zwicker(variant=classic,jokers=x15)", "option jokers applies only to the valued-joker variants"),
        ("zwicker(variant=dithmarschen,joker_capture=never)", "option joker_capture applies only to grupp"),
        ("zwicker(after_zwick=sometimes)", "valid values: next_trails, zwicker_trails, all_trail"),
        ("zwicker(utility=money)", "valid values: points, win_loss"),
        ("zwicker(forced_capture=maybe)", "valid values: auto, on, off"),
        ("zwicker(jokers=x16)", "valid: 15, 17, 20, 22, 25, 30"),
        ("zwicker(variant=classic,players=2,hand_size=30)", "the first deal needs"),
    ],
)
def test_invalid_parameters_name_what_is_valid(spec, message):
    with pytest.raises(Exception, match=message):  # ValueError, surfaced by pybind
        pyspiel.load_game(spec)


def test_unknown_parameter_rejected():
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("zwicker(colour=red)")


def all_configs() -> list[str]:
    out = []
    for v in VARIANTS:
        for p in PLAYER_COUNTS[v][0]:
            out.append(f"zwicker(variant={v},players={p})")
    out.append("zwicker(variant=grossenwiehe,players=6,team_size=2)")
    return out


def test_num_distinct_actions_small():
    for spec in all_configs():
        g = pyspiel.load_game(spec)
        assert g.num_distinct_actions() <= 512, spec
    assert pyspiel.load_game("zwicker(variant=classic,players=12)").num_distinct_actions() == 344


# ------------------------------------------------------------------------------------------------
# OpenSpiel's conformance test: every variant x player count, every option value
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("spec", all_configs())
def test_random_sim_every_variant_and_player_count(spec):
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=1, serialize=True, verbose=False)


OPTION_CONFIGS = [
    "zwicker(variant=classic,players=3,forced_capture=off)",
    "zwicker(variant=dithmarschen,forced_capture=on)",
    "zwicker(variant=grupp,players=3,joker_capture=joker_only)",
    "zwicker(variant=grupp,players=2,joker_capture=lone_joker_only)",
    "zwicker(variant=grupp,players=4,joker_capture=never)",
    "zwicker(variant=grupp,players=3,joker_sweep_is_zwick=false,wild_jokers=3)",
    "zwicker(variant=grupp,players=2,wild_jokers=0)",
    "zwicker(variant=dithmarschen,joker_sum_capture=false)",
    "zwicker(variant=grossenwiehe,players=4,magger=false)",
    "zwicker(variant=grossenwiehe,players=6,team_size=3)",
    "zwicker(variant=dithmarschen,after_zwick=zwicker_trails)",
    "zwicker(variant=classic,players=3,after_zwick=all_trail)",
    "zwicker(variant=grossenwiehe,players=4,after_zwick=all_trail)",
    "zwicker(variant=christiansen,dietze_loose_builds=true)",
    "zwicker(variant=classic,players=2,dietze_loose_builds=true)",
    "zwicker(variant=dithmarschen,dietze_min_table=4)",
    "zwicker(variant=classic,players=3,dietze_min_table=4,stages=3)",
    "zwicker(variant=classic,players=4,first_dealer=low_cut)",
    "zwicker(variant=grossenwiehe,players=3,first_dealer=high_cut)",
    "zwicker(variant=christiansen,players=2,subtract=either)",
    "zwicker(variant=dithmarschen,capture_values=several)",
    "zwicker(variant=grupp,players=2,capture_values=several)",
    "zwicker(variant=christiansen,players=4,jokers=15_25)",
    "zwicker(variant=dithmarschen,players=3,jokers=none)",
    "zwicker(variant=grossenwiehe,players=2,utility=win_loss)",
    "zwicker(variant=christiansen,players=3,utility=win_loss)",
    "zwicker(variant=classic,players=2,ranks=A2345,suits=CD,hand_size=2,table_size=2,stages=1)",
    "zwicker(variant=classic,players=2,ranks=_2345,hand_size=3,table_size=0)",
    "zwicker(variant=dithmarschen,players=4,ranks=TJQKA,suits=CDH,hand_size=2,table_size=3,stages=2)",
    MICRO,
]


@pytest.mark.parametrize("spec", OPTION_CONFIGS)
def test_random_sim_every_option_value(spec):
    pyspiel.random_sim_test(pyspiel.load_game(spec), num_sims=2, serialize=True, verbose=False)


def test_option_values_all_covered():
    """Every value of every engine option appears in some config above."""
    from zwick_ai.zwicker.rules import AFTER_ZWICK, CAPTURE_VALUES, FIRST_DEALER, JOKER_CAPTURE, SUBTRACT

    text = " ".join(OPTION_CONFIGS)
    for name, values in [
        ("joker_capture", JOKER_CAPTURE[1:]),
        ("after_zwick", AFTER_ZWICK[1:]),
        ("first_dealer", FIRST_DEALER[1:]),
        ("subtract", SUBTRACT[1:]),
        ("capture_values", CAPTURE_VALUES[1:]),
        ("forced_capture", ("on", "off")),
        ("utility", ("win_loss",)),
        ("team_size", (3,)),
    ]:
        for v in values:
            assert f"{name}={v}" in text, (name, v)
    for name in ("joker_sweep_is_zwick=false", "joker_sum_capture=false", "magger=false", "team_size=2"):
        assert name in text or name in " ".join(all_configs()), name


# ------------------------------------------------------------------------------------------------
# The sub-action codec: every legal whole move has exactly one sequence, and nothing else is reachable
# ------------------------------------------------------------------------------------------------
def check_bijection(state: pyspiel.State, api: bool = True) -> int:
    """Enumerate every complete sub-action sequence from ``state`` (a turn start) and compare the
    whole moves they make with the engine's legal moves: a bijection, and each sequence has exactly
    the engine move's effect. ``api=True`` walks through the OpenSpiel API (clone, legal_actions,
    apply_action); ``api=False`` walks the same state arrays through the game's kernels directly
    (what ``_legal_actions``/``_apply_action`` call), which is several times faster. Returns the
    number of moves."""
    es = zwicker_bridge.engine_state(state)
    rows = zwicker.legal_rows(es)
    engine = {tuple(int(x) for x in r[:7]): r for r in rows}
    assert len(engine) == len(rows)
    base = state.num_plies()
    player = state.current_player()
    t = state.tables
    seen: dict[tuple, tuple] = {}

    def finish(arr: np.ndarray, log_row: np.ndarray, seq: tuple) -> None:
        key = tuple(int(x) for x in log_row[:7])
        assert key not in seen, f"two sequences for one move: {seen.get(key)} and {seq}"
        seen[key] = seq
        assert key in engine, f"sequence {seq} makes a move the engine does not allow"
        after = es.copy()
        zwicker.apply_row(after, engine[key])
        assert np.array_equal(after.arr, arr[:SS]), "the move's effect differs from the engine's"

    if api:
        stack = [(state, ())]
        while stack:
            s, seq = stack.pop()
            legal = s.legal_actions()
            assert legal, "a partial move must be completable"
            assert legal == sorted(set(legal))
            for a in legal:
                c = s.clone()
                c.apply_action(a)
                if c.num_plies() == base:  # nothing happens before the move is complete
                    assert c.current_player() == player
                    assert np.array_equal(c.array[:SS], es.arr)
                    stack.append((c, (*seq, a)))
                else:
                    finish(c.array, c.logged_row(base), (*seq, a))
    else:
        m0 = zwicker_steps.turn_k(t.game_table, state.array, t.workspace)
        kstack = [(state.array.copy(), np.arange(len(m0)), zwicker_steps.legal_k(state.array, m0).tolist(), ())]
        while kstack:
            arr, sel, legal, seq = kstack.pop()
            assert legal and legal == sorted(set(legal))
            for a in legal:
                arr2 = arr.copy()
                m2, sel2, la, cur = zwicker_steps.step_k(t.game_table, arr2, m0, sel, a, t.workspace)
                assert cur != zwicker_steps.ILLEGAL
                if arr2[zwicker_history.XB + zwicker_history.X_NPLY] == base:
                    assert cur == player and np.array_equal(arr2[:SS], es.arr) and m2 is m0
                    kstack.append((arr2, sel2, la.tolist(), (*seq, a)))
                else:
                    e = zwicker_history.XB + zwicker_history.X_LOG + base * zwicker_history.LOGW
                    x = arr2[e : e + zwicker_history.LOGW].tolist()
                    mask = (x[zwicker_history.L_MASKHI] << 32) | (x[zwicker_history.L_MASKLO] & 0xFFFFFFFF)
                    row = [
                        x[zwicker_history.L_KIND],
                        x[zwicker_history.L_CARD],
                        x[zwicker_history.L_VALUE],
                        mask,
                        x[zwicker_history.L_TARGET],
                        x[zwicker_history.L_OWNER],
                        x[zwicker_history.L_ZWICK],
                    ]
                    finish(arr2, np.array(row), (*seq, a))
    assert set(seen) == set(engine), "some legal move has no sequence"
    return len(seen)


BIJECTION_CONFIGS = [
    ("zwicker(variant=classic,players=4)", 3000),
    ("zwicker(variant=grupp,players=4)", 3000),
    ("zwicker(variant=dithmarschen,players=4)", 3000),
    ("zwicker(variant=grossenwiehe,players=4)", 1500),
    ("zwicker(variant=grossenwiehe,players=6)", 1000),
    ("zwicker(variant=christiansen,players=3)", 1500),
    ("zwicker(variant=classic,players=4,forced_capture=off)", 300),
    ("zwicker(variant=grupp,players=3,capture_values=several,joker_capture=lone_joker_only)", 300),
    ("zwicker(variant=christiansen,players=4,subtract=either)", 300),
    ("zwicker(variant=dithmarschen,dietze_loose_builds=true)", 100),
    ("zwicker(variant=dithmarschen,capture_values=several,after_zwick=all_trail,dietze_min_table=4)", 300),
]


@pytest.mark.parametrize("spec, n", BIJECTION_CONFIGS)
def test_each_legal_move_has_exactly_one_sequence(spec, n):
    """Thousands of random turn starts per variant through the kernels, a tenth through the API."""
    game = pyspiel.load_game(spec)
    states = random_states(game, n, seed=11, keep=0.35, accept=at_turn_start)
    moves = sum(check_bijection(s, api=i % 10 == 0) for i, s in enumerate(states))
    assert moves >= len(states)


@pytest.mark.slow
@pytest.mark.parametrize("spec", [s for s, _ in BIJECTION_CONFIGS])
def test_each_legal_move_has_exactly_one_sequence_many(spec):
    game = pyspiel.load_game(spec)
    for s in random_states(game, 2000, seed=12, keep=0.5, accept=at_turn_start):
        check_bijection(s, api=True)


def test_action_strings_are_readable():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    c = game.codec
    qs = c.index(zwick_ai.cards.parse_card("QS"))
    assert c.action_string(qs) == "QS"
    assert c.action_string(c.as_value + 13) == "as 13"
    assert c.action_string(c.take + c.index(zwick_ai.cards.parse_card("9C"))) == "take 9C"
    assert c.action_string(c.on + c.index(zwick_ai.cards.parse_card("9C"))) == "on 9C"
    assert [c.action_string(a) for a in (c.done, c.trail, c.new, c.build + 10, c.for_partner)] == [
        "done",
        "trail",
        "new build",
        "build 11",
        "for partner +2",
    ]
    for a in range(game.num_distinct_actions()):
        assert c.parse(c.action_string(a)) == a
    g6 = pyspiel.load_game("zwicker(variant=grossenwiehe,players=6)")
    assert g6.codec.action_string(g6.codec.ask + 30 + 12) == "ask partner +4 for 13"
    g12 = pyspiel.load_game("zwicker(variant=classic,players=12)")
    names = {g12.codec.action_string(a) for a in range(g12.num_distinct_actions())}
    assert len(names) == g12.num_distinct_actions() and "TD'" in names
    gg = pyspiel.load_game("zwicker(variant=grupp)")
    assert "take XW3" in {gg.codec.action_string(a) for a in range(gg.num_distinct_actions())}


def test_a_capture_through_its_sub_actions():
    """The largest capture of some deal, played as ``card, as v, take ..., done``."""
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    for seed in range(200):
        s = zwicker_bridge.state_from_seed(game, seed)
        caps = [m for m in zwicker.legal_moves(zwicker_bridge.engine_state(s)) if m.kind == "capture"]
        if caps:
            break
    m = max(caps, key=lambda m: len(m.taken))
    texts = zwicker_bridge.move_tokens_text(s, m)
    assert texts[0] == m.card and texts[1] == f"as {m.value}" and texts[-1] == "done"
    assert all(t.startswith("take ") for t in texts[2:-1]) and len(texts) - 3 == len(m.units)
    before = zwicker_bridge.engine_state(s)
    zwicker_bridge.apply_move(s, m)
    assert zwicker_bridge.same_position(s, zwicker.apply(before, m))


# ------------------------------------------------------------------------------------------------
# Returns
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "spec",
    [
        "zwicker(variant=dithmarschen,players=4)",
        "zwicker(variant=christiansen,players=3)",
        "zwicker(variant=grossenwiehe,players=6,team_size=2)",
        "zwicker(variant=classic,players=5)",
    ],
)
def test_returns_exactly_zero_sum_and_in_bounds(spec):
    for utility in ("points", "win_loss"):
        game = pyspiel.load_game(spec.replace(")", f",utility={utility})"))
        r = game.rules
        for seed in range(8):
            s = play_random(game, seed)
            ret = s.returns()
            assert sum(ret) == 0.0
            assert all(x == int(x) for x in ret)
            assert all(game.min_utility() <= x <= game.max_utility() for x in ret)
            score = zwicker.score(zwicker_bridge.engine_state(s))
            ns = r.num_sides
            for p in range(r.players):
                assert ret[p] == ret[r.sides[r.side_of(p)][0]]  # partners get equal returns
                if utility == "points":
                    assert ret[p] == ns * score[r.side_of(p)] - sum(score)
                else:
                    top = sum(1 for x in score if x == max(score))
                    assert ret[p] == (ns - top if score[r.side_of(p)] == max(score) else -top)


def test_two_sides_return_is_the_point_difference():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    s = play_random(game, 5)
    a, b = zwicker.score(zwicker_bridge.engine_state(s))
    assert s.returns() == [a - b, b - a, a - b, b - a]


# ------------------------------------------------------------------------------------------------
# Chance model
# ------------------------------------------------------------------------------------------------
def test_chance_deals_every_group_uniformly():
    """Exact probabilities: every deal (dealer, hands, table) of a micro game is equally likely."""
    game = pyspiel.load_game(MICRO)
    probs: dict[str, float] = {}

    def walk(s, p):
        if not s.is_chance_node():
            key = str(zwicker.snapshot(zwicker_bridge.engine_state(s)).canonical())
            probs[key] = probs.get(key, 0.0) + p
            return
        outs = s.chance_outcomes()
        assert abs(sum(q for _, q in outs) - 1.0) < 1e-12
        for a, q in outs:
            walk(s.child(a), p * q)

    walk(game.new_initial_state(), 1.0)
    values = np.array(list(probs.values()))
    assert len(values) == 2 * 6 * 5 * 6  # dealers x seat 0 x seat 1 x C(4, 2) table sets
    assert np.allclose(values, 1 / len(values))


def test_cut_for_the_deal_matches_the_engine():
    for spec in (
        "zwicker(variant=classic,players=3,first_dealer=low_cut)",
        "zwicker(variant=grupp,first_dealer=high_cut)",
    ):
        game = pyspiel.load_game(spec)
        for seed in range(20):
            s = zwicker_bridge.state_from_seed(game, seed)
            assert zwicker_bridge.same_position(s, zwicker.deal(game.rules, seed))


@pytest.mark.parametrize(
    "spec",
    [
        "zwicker(variant=dithmarschen,players=4)",
        "zwicker(variant=dithmarschen,players=2)",
        "zwicker(variant=grossenwiehe,players=6)",
        "zwicker(variant=classic,players=7)",
        "zwicker(variant=grupp,players=5)",
        "zwicker(variant=christiansen,players=4,dietze_min_table=4)",
        "zwicker(variant=classic,players=2,ranks=A2345,suits=CD,hand_size=2,table_size=2,stages=1)",
    ],
)
def test_same_deals_as_the_engine(spec):
    """``state_from_seed`` deals what ``zwicker.deal`` deals, and the whole hand plays the same."""
    game = pyspiel.load_game(spec)
    for seed in range(6):
        s = zwicker_bridge.state_from_seed(game, seed)
        es = zwicker.deal(game.rules, seed)
        assert zwicker_bridge.same_position(s, es)
        rng = np.random.default_rng(seed)
        while not s.is_terminal():
            moves = zwicker.legal_moves(es)
            m = moves[int(rng.integers(len(moves)))]
            zwicker_bridge.apply_move(s, m)
            es = zwicker.apply(es, m)
            assert zwicker_bridge.same_position(s, es)
        assert zwicker.is_over(es)
        assert tuple(zwicker.score(zwicker_bridge.engine_state(s))) == tuple(zwicker.score(es))


def test_convert_round_trips():
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    for s in random_states(game, 12, seed=3, keep=0.25, accept=at_turn_start):
        for m, seq in zwicker_bridge.legal_moves(s):
            assert zwicker_bridge.actions_move(s, seq).key == m.key
            assert zwicker_bridge.move_actions(s, m.key) == seq
            assert zwicker_bridge.move_actions(s, str(m)) == seq


# ------------------------------------------------------------------------------------------------
# Observers
# ------------------------------------------------------------------------------------------------
def test_tensor_pieces_in_order_and_sizes():
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    d, p, ns, a = game.codec.deck_size, 4, 2, game.num_distinct_actions()
    for recall in (False, True):
        obs = game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=recall))
        names = list(obs.dict)
        assert names[:3] == ["player", "current", "dealer"]
        assert obs.dict["table"].shape == (d, 2) and obs.dict["won"].shape == (d, ns)
        assert obs.dict["move"].shape == (a,) and obs.dict["asked"].shape == (game.codec.num_ask_offsets + 2,)
        at = 0
        for arr in obs.dict.values():
            assert np.shares_memory(arr, obs.tensor)
            at += arr.size
        assert at == obs.tensor.size
        if recall:
            assert names[-1] == "captured_at" and obs.dict["played_by"].shape == (d, p)
        else:
            assert "cut" not in names
    assert game.information_state_tensor_size() == len(
        game.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True)).tensor
    )


def test_observation_hides_other_hands_and_stock():
    game = pyspiel.load_game("zwicker(variant=dithmarschen,players=4)")
    s = zwicker_bridge.state_from_seed(game, 1)
    es = zwicker_bridge.engine_state(s)
    hidden = set(zwicker.stock(es))
    for p in range(4):
        words = set(s.observation_string(p).split()) | set(s.information_state_string(p).split())
        for q in range(4):
            assert set(zwicker.hand(es, q)) <= words if q == p else not set(zwicker.hand(es, q)) & words
        assert not hidden & words
        hand = np.zeros(game.codec.deck_size)
        for card in zwicker.hand(es, p):
            hand[game.codec.index(zwick_ai.cards.parse_card(card))] = 1
        o = game.make_py_observer()
        o.set_from(s, p)
        assert np.array_equal(o.dict["hand"], hand)
        assert np.array_equal(np.asarray(o.tensor), np.array(s.observation_tensor(p)))


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_observed_score_is_the_engine_score(variant):
    """The observation sums the won cards' points in its own pass over the deck; they, the most
    cards bonus and the Zwicks must give the engine's score (``zwicker.score``), from every seat."""
    players = PLAYER_COUNTS[variant][1]  # the variant's default count
    game = pyspiel.load_game(f"zwicker(variant={variant},players={players})")
    obs = game.make_py_observer()
    scored = 0
    for s in random_states(game, 120, seed=3, keep=0.5):
        es = zwicker_bridge.engine_state(s)
        score = zwicker.score(es)
        for p in range(players):
            obs.set_from(s, p)
            assert obs.dict["score"].tolist() == [float(x) for x in score]
        scored += any(score)
    assert scored > 20  # most kept states come after captures


def test_public_observer_has_no_private_pieces():
    game = pyspiel.load_game("zwicker")
    pub = game.make_py_observer(
        pyspiel.IIGObservationType(perfect_recall=False, public_info=True, private_info=pyspiel.PrivateInfoType.NONE)
    )
    assert "hand" not in pub.dict
    s = zwicker_bridge.state_from_seed(game, 4)
    texts = {pub.string_from(s, p) for p in range(4)}
    assert all("hand:" not in t for t in texts)


def test_information_state_is_perfect_recall():
    from open_spiel.integration_tests import api_test

    for spec in (
        MICRO,
        "zwicker(variant=classic,players=2,ranks=A23,suits=CD,hand_size=1,table_size=2,stages=1)",
    ):
        api_test._assert_is_perfect_recall(pyspiel.load_game(spec))


def test_information_state_is_perfect_recall_sampled_team_game():
    """The exhaustive check above on a team game with partner builds and Magger questions is too
    big (744,697 states with four cards), so sample: whenever two random trajectories reach the
    same (information state, player), the player's earlier information states (strings and
    tensors) and actions must agree."""
    game = pyspiel.load_game(
        "zwicker(variant=grossenwiehe,players=4,ranks=A2,suits=CD,jokers=none,hand_size=1,table_size=0,stages=1)"
    )
    rng = np.random.default_rng(0)
    seen: dict = {}
    collisions = asks = 0
    for _ in range(1500):
        s = game.new_initial_state()
        past: list = []
        while not s.is_terminal():
            if s.is_chance_node():
                ids, ps = zip(*s.chance_outcomes(), strict=True)
                s.apply_action(int(rng.choice(ids, p=ps)))
                continue
            p = s.current_player()
            key = (s.information_state_string(p), p)
            tensor = tuple(s.information_state_tensor(p))
            mine = tuple((i, t, a) for q, i, t, a in past if q == p)
            if key in seen:
                collisions += 1
                assert seen[key] == (tensor, mine)
            else:
                seen[key] = (tensor, mine)
            la = s.legal_actions()
            a = la[int(rng.integers(len(la)))]
            asks += s.action_to_string(a).startswith("ask")
            past.append((p, key[0], tensor, a))
            s.apply_action(a)
    assert collisions > 1000 and asks > 100


def test_information_state_distinguishes_histories():
    """Different public histories (or own deals) give different strings and tensors."""
    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    seen: dict = {}
    for s in random_states(game, 300, seed=8, keep=0.25):
        p = s.current_player()
        key = s.information_state_string(p)
        tensor = tuple(s.information_state_tensor(p))
        hist = (p, tuple(zwicker_observer.history_lines(s, p)), tuple(s.move_prefix()))
        assert seen.setdefault(tensor, hist) == hist
        del key


def test_tensor_at_chance_nodes_and_terminal():
    game = pyspiel.load_game("zwicker(variant=classic,players=3,first_dealer=low_cut)")
    s = game.new_initial_state()
    assert len(s.information_state_tensor(0)) == game.information_state_tensor_size()
    assert len(s.observation_tensor(2)) == game.observation_tensor_size()
    t = play_random(game, 2)
    assert "over" in t.observation_string(0)
    assert len(t.information_state_tensor(1)) == game.information_state_tensor_size()


# ------------------------------------------------------------------------------------------------
# Clone, pickling, serialization
# ------------------------------------------------------------------------------------------------
def test_pickle_and_serialize_round_trip():
    for spec in ("zwicker(variant=grossenwiehe,players=6)", MICRO, "zwicker(variant=classic,first_dealer=low_cut)"):
        game = pyspiel.load_game(spec)
        g2 = pickle.loads(pickle.dumps(game))
        assert str(g2) == str(game)
        for s in random_states(game, 5, seed=1, keep=0.25) + [game.new_initial_state(), play_random(game, 1)]:
            s2 = pickle.loads(pickle.dumps(s))
            assert str(s2) == str(s) and s2.history() == s.history()
            text = pyspiel.serialize_game_and_state(game, s)
            g3, s3 = pyspiel.deserialize_game_and_state(text)
            assert str(s3) == str(s) and s3.history() == s.history()
            if not s.is_terminal() and not s.is_chance_node():
                assert s3.legal_actions() == s.legal_actions()
                p = s.current_player()
                assert s3.information_state_string(p) == s.information_state_string(p)


def test_clone_is_independent():
    game = pyspiel.load_game("zwicker")
    s = random_states(game, 1, seed=2, keep=0.25)[0]
    c = s.clone()
    before = str(s)
    c.apply_action(c.legal_actions()[0])
    assert str(s) == before and str(c) != before


def test_player_ids_are_openspiels():
    """The kernels' copies of OpenSpiel's player ids (they run without pyspiel) are OpenSpiel's."""
    assert zwicker_steps.CHANCE == int(pyspiel.PlayerId.CHANCE)
    assert zwicker_steps.TERMINAL == int(pyspiel.PlayerId.TERMINAL)
    assert zwicker_steps.ILLEGAL not in (zwicker_steps.CHANCE, zwicker_steps.TERMINAL, int(pyspiel.PlayerId.INVALID))


@pytest.mark.parametrize("spec", ["zwicker(variant=dithmarschen,players=4)", "zwicker(variant=grossenwiehe,players=4)"])
def test_decision_view_holds_the_states_arrays(spec):
    """``state.decision()`` hands searches the state's own arrays: the candidates are the legal whole
    moves (the engine's, in the game's order), the position is the engine state's, and applying a
    candidate through its sub-actions is the engine's apply."""
    game = pyspiel.load_game(spec)
    for state in random_states(game, 25, 3, accept=at_turn_start):
        d = state.decision()
        assert d.player == state.current_player()
        assert d.record is state.array and d.game_table is game.tables.game_table
        assert np.array_equal(d.position, state.engine_state().arr)
        assert np.array_equal(d.rules_array, game.rules.array())
        engine_moves = zwicker.legal_moves(state.engine_state())
        assert sorted(m.key for m in d.moves()) == sorted(m.key for m in engine_moves)
        assert len(d.candidates) == len(engine_moves)
        move = d.moves()[-1]
        child = state.clone()
        zwicker_bridge.apply_move(child, d.candidates[-1])
        assert zwicker_bridge.same_position(child, zwicker.apply(d.engine_state(), move))
