"""OpenSpiel games ``zwikken`` and ``zwicken``: conformance, observers, resampling, sessions, solvers."""

import subprocess
import sys
import textwrap

import pyspiel
import pytest

import zwick_ai.games  # noqa: F401  (registers the games)
from tests.random_play import random_states
from zwick_ai import tricks
from zwick_ai.games import tricks_game
from zwick_ai.tricks import kernels as tricks_kernels
from zwick_ai.tricks import layout as tricks_layout

# every rule set x player count, and every option once
CONFIGS = (
    [f"zwikken(variant=historic,players={n})" for n in range(3, 7)]
    + [f"zwikken(variant={v},players={n})" for v in ("parlett", "modern") for n in range(3, 6)]
    + [f"zwicken(players={n})" for n in range(2, 6)]
    + [
        "zwikken(variant=historic,players=3,pack=piquet)",
        "zwikken(variant=historic,forced_rounds=true)",
        "zwikken(variant=historic,zwik=suit)",
        "zwikken(variant=historic,upcard_pair=true)",
        "zwikken(variant=parlett,part_pot_bids=true)",
        "zwikken(variant=parlett,max_bid_levels=2)",
        "zwikken(variant=parlett,three_trumps=true)",
        "zwikken(variant=modern,lubbers=true)",
        "zwikken(variant=modern,part_pot_bids=true,three_trumps=true)",
        "zwikken(variant=modern,max_bid_levels=4,pot=12)",
        "zwicken(hupf=false)",
        "zwicken(seven_jump=next_but_one)",
        "zwicken(anbieten=true)",
        "zwikken(variant=parlett,tricks=1,ranks=AKQ,suits=CD)",
        "zwicken(players=2,tricks=2,hupf=false,ranks=AK7,suits=DH)",
        "zwicken(players=2,ranks=KQJT98,suits=CH)",
        "zwikken(variant=historic,dealer=0,pot=7)",
    ]
)


@pytest.mark.parametrize("spec", CONFIGS)
def test_random_sim_test(spec):
    game = pyspiel.load_game(spec)
    pyspiel.random_sim_test(game, 3, serialize=True, verbose=False)


@pytest.mark.slow
@pytest.mark.parametrize("spec", CONFIGS)
def test_random_sim_test_long(spec):
    pyspiel.random_sim_test(pyspiel.load_game(spec), 100, serialize=True, verbose=False)


def test_game_type_and_info():
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    gt = game.get_type()
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert gt.dynamics == pyspiel.GameType.Dynamics.SEQUENTIAL
    assert gt.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert game.num_players() == 3 and pyspiel.load_game("zwikken(variant=historic)").num_players() == 4
    assert pyspiel.load_game("zwicken").num_players() == 4
    assert str(pyspiel.load_game(str(game))) == str(game)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("zwikken(variant=oldest)", "valid variants: historic, parlett, modern"),
        ("zwikken(variant=parlett,players=6)", "3 to 5 players"),
        ("zwikken(variant=parlett,lubbers=true)", "applies only to zwikken variant modern"),
        ("zwicken(players=7)", "2 to 5 players"),
        ("zwicken(seven_jump=far)", "valid values: rearhand, next_but_one"),
        ("zwikken(ranks=AKZ)", "distinct letters"),
        ("zwikken(variant=parlett,ranks=AK)", "too small"),
    ],
)
def test_invalid_parameters_raise_clear_errors(spec, message):
    with pytest.raises(Exception, match=message):
        pyspiel.load_game(spec)


def test_unknown_option_is_rejected():
    with pytest.raises(Exception):  # noqa: B017  (OpenSpiel's own check of parameter names)
        pyspiel.load_game("zwikken(colour=red)")
    with pytest.raises(ValueError, match="valid options"):
        tricks.rules("zwikken", colour="red")


@pytest.mark.parametrize("spec", [c for c in CONFIGS if "players=3)" in c or "tricks" in c])
def test_returns_within_declared_bounds(spec):
    game = pyspiel.load_game(spec)
    r = game.rules
    out = tricks_kernels.random_deals(r.cfg, 3000, 2)[:, 1 : 1 + r.players]
    assert out.min() >= game.min_utility() and out.max() <= game.max_utility()


KEEP = 0.15  # of the decision states met in random play: states from many deals and depths


@pytest.mark.parametrize(
    "spec",
    [
        "zwikken(variant=historic,players=4)",
        "zwikken(variant=parlett,players=3)",
        "zwikken(variant=modern,players=4)",
        "zwicken(players=4)",
        "zwicken(players=2,ranks=KQJT98,suits=CH)",
    ],
)
def test_resample_keeps_information_state(spec):
    varied = 0
    for st in random_states(pyspiel.load_game(spec), 30, seed=3, keep=KEEP):
        p = st.current_player()
        for k in range(3):
            new = st.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(k, k + 1))
            assert new.current_player() == p
            assert new.information_state_string(p) == st.information_state_string(p)
            assert new.information_state_tensor(p) == st.information_state_tensor(p)
            assert new.legal_actions() == st.legal_actions()
            assert str(new) == str(new.clone())
            varied += str(new) != str(st)
    assert varied > 0  # hidden cards really are redrawn


def test_information_state_tensor_matches_string():
    """Equal information-state strings have equal tensors and different ones different tensors."""
    seen = {}
    for st in random_states(pyspiel.load_game("zwikken(variant=historic,players=3)"), 200, seed=9, keep=KEEP):
        for p in range(3):
            key = st.information_state_string(p)
            tensor = tuple(st.information_state_tensor(p))
            assert seen.setdefault(key, tensor) == tensor
    assert len(set(seen.values())) == len(seen)


def test_face_down_cards_stay_hidden_in_observations():
    game = pyspiel.load_game("zwikken(variant=historic,players=3)")
    for st in random_states(game, 100, seed=4, keep=KEEP):
        ts = st.trick_state()
        for q, c in tricks.current_trick(ts):
            for p in range(3):
                if c == "??" and p != q:
                    obs = st.observation_string(p)
                    assert f"{q}:??" in obs
    assert game.observation_tensor_size() > 0


def test_perfect_recall_on_a_reduced_pack():
    from open_spiel.integration_tests import api_test  # noqa: PLC0415

    api_test._assert_is_perfect_recall(pyspiel.load_game("zwicken(players=2,tricks=1,hupf=false,ranks=AK7,suits=DH)"))


def test_session_carries_the_pot_and_conserves_chips():
    for game, params in [("zwikken", {"variant": "parlett"}), ("zwicken", {}), ("zwikken", {"variant": "modern"})]:
        n = tricks.rules(game, **params).players
        bots = [pyspiel.make_uniform_random_bot(p, 10 + p) for p in range(n)]
        out = tricks_game.play_session(game, params, bots, deals=30, seed=1)
        assert sum(out.chips) + out.final_pot - out.start_pot == 0
        assert len(out.pots) == 30
        native = tricks.play_session(
            tricks.rules(game, **params), [tricks.random_policy(p) for p in range(n)], 30, seed=1
        )
        assert sum(native.chips) + native.final_pot == 0


def _run_in_subprocess(code: str, timeout: int = 300) -> str:
    proc = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, timeout=timeout
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def test_external_sampling_mccfr_runs_on_full_games():
    out = _run_in_subprocess(
        """
        import pyspiel, zwick_ai.games
        for spec in ("zwikken(variant=parlett,players=3)", "zwicken"):
            game = pyspiel.load_game(spec)
            solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
            for _ in range(3):
                solver.run_iteration()
            policy = solver.average_policy()
            state = game.new_initial_state()
            while state.is_chance_node():
                state.apply_action(state.chance_outcomes()[0][0])
            probs = policy.get_state_policy(state)
            print(spec, len(probs), round(sum(p for _, p in probs), 6))
        """
    )
    assert "zwikken(variant=parlett,players=3) " in out and "zwicken " in out
    for line in out.splitlines():
        assert line.endswith(" 1.0")


@pytest.mark.slow
def test_nash_conv_falls_with_mccfr_on_reduced_packs():
    out = _run_in_subprocess(
        """
        import pyspiel, zwick_ai.games
        for spec in ("zwicken(players=2,tricks=2,hupf=false,ranks=AK7,suits=DH)",
                     "zwikken(variant=parlett,players=3,tricks=1,ranks=AKQ,suits=CD,max_bid_levels=1)"):
            game = pyspiel.load_game(spec)
            solver = pyspiel.ExternalSamplingMCCFRSolver(game, seed=1)
            before = pyspiel.nash_conv(game, solver.average_policy(), True)
            for _ in range(1000):
                solver.run_iteration()
            after = pyspiel.nash_conv(game, solver.average_policy(), True)
            print(before, after)
        """,
        timeout=1200,
    )
    for line in out.splitlines():
        before, after = map(float, line.split())
        assert after < 0.5 * before


@pytest.mark.parametrize(
    "spec", ["zwikken(variant=parlett,players=3)", "zwikken(variant=historic,players=4)", "zwicken(players=3)"]
)
def test_decision_view_is_the_states_own_position(spec):
    """``state.decision()``: the state's own arrays (no copy), the player to act and the legal
    actions as OpenSpiel gives them, at decisions, at a chance node and at the end."""
    game = pyspiel.load_game(spec)
    for state in random_states(game, 40, seed=3):
        d = state.decision()
        assert d.position is state.array and (d.config == state.rules.cfg).all()
        assert d.player == state.current_player() and d.legal_actions() == state.legal_actions()
        copy = d.trick_state()
        assert copy == state.trick_state() and copy.arr is not d.position
    start = game.new_initial_state()
    assert start.is_chance_node() and start.decision().legal_actions() == []
    assert start.decision().player == tricks_layout.CUR_CHANCE
    end = random_states(game, 1, seed=4)[0]
    while not end.is_terminal():
        end.apply_action(end.legal_actions()[0] if not end.is_chance_node() else end.chance_outcomes()[0][0])
    assert end.decision().player == tricks_layout.CUR_OVER and end.decision().legal_actions() == []
