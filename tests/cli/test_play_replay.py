"""``zwick play``, ``zwick replay``, ``zwick selfplay --records`` and the JSONL game records."""

from __future__ import annotations

import io
import json

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from zwick_ai import zwicker
from zwick_ai.agents.base import legal_decisions
from zwick_ai.cli import main
from zwick_ai.cli.play import HumanPlayer, split_agents
from zwick_ai.eval import selfplay as SP
from zwick_ai.eval.match import deal
from zwick_ai.eval.records import parse_lines, read_records, record_line, replay, zwicker_game
from zwick_ai.zwicker import kernels as K


def run(monkeypatch, capsys, argv: list[str], stdin: str = "") -> tuple[int, str, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(stdin))
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def human_turn_choices(rec, seat: int) -> list[tuple[list[int], list[list[int]]]]:
    """(chosen actions, legal decisions' actions) at each of ``seat``'s turns, by replaying."""
    steps = replay(rec)
    out = []
    for before, after in zip(steps, steps[1:], strict=False):
        if after.seat == seat:
            out.append((after.actions, [acts for _, acts in legal_decisions(before.state)]))
    return out


# ------------------------------------------------------------------------------------------------
# zwick play
# ------------------------------------------------------------------------------------------------
def expected_choices(rec, seat: int, script: list[str]) -> list[tuple[list[int], list[int]]]:
    """(chosen, expected) at each of ``seat``'s turns when a person answers with the numbers of
    ``script`` in turn, an out-of-range number being refused and the next one read."""
    out, at = [], 0
    for chosen, legal in human_turn_choices(rec, seat):
        while not 1 <= int(script[at]) <= len(legal):
            at += 1
        out.append((chosen, legal[int(script[at]) - 1]))
        at += 1
    return out


def test_scripted_zwicker_game_to_the_end_is_recorded_and_replays(monkeypatch, capsys, tmp_path):
    path = tmp_path / "games.jsonl"
    argv = ["play", "--game", "zwicker", "--variant", "classic", "--players", "2", "--agents", "greedy"]
    argv += ["--seed", "4", "--record", str(path)]
    script = ["3", "1", "2"] * 100
    code, out, err = run(monkeypatch, capsys, argv, stdin="\n".join(script) + "\n")
    assert code == 0, err
    assert "your legal moves:" in out and "seat 1 (greedy):" in out and "hand over" in out
    records, errors = read_records(path)
    assert errors == [] and len(records) == 1
    rec = records[0]
    assert rec.seats == ["human", "greedy"] and rec.deal_seed == 4
    assert out.count("\nyou: ") == sum(1 for seat, _, _ in rec.moves if seat == 0)
    pairs = expected_choices(rec, 0, script)
    assert len(pairs) > 5 and all(chosen == expected for chosen, expected in pairs)
    steps = replay(rec)
    assert steps[-1].state.returns() == rec.returns
    assert [step.label for step in steps[1:]] == [label for _, label, _ in rec.moves]
    assert f"result: seat 0 {rec.returns[0]:+g}, seat 1 {rec.returns[1]:+g}" in out


def test_out_of_range_number_is_refused_and_asked_again(monkeypatch, capsys):
    argv = ["play", "--variant", "classic", "--players", "2", "--agent", "random", "--seed", "1"]
    code, out, _ = run(monkeypatch, capsys, argv, stdin="999\n" + "1\n" * 100)
    assert code == 0
    assert "choose a number from 1 to" in out


@pytest.mark.parametrize("game", ["zwikken", "zwicken"])
def test_scripted_trick_game_to_the_end(monkeypatch, capsys, tmp_path, game):
    path = tmp_path / "t.jsonl"
    code, out, err = run(
        monkeypatch, capsys, ["play", "--game", game, "--seat", "1", "--agents", "random", "--seed", "2", "--record", str(path)],
        stdin="1\n" * 60,
    )  # fmt: skip
    assert code == 0, err
    rec = read_records(path)[0][0]
    assert rec.seats[1] == "human" and rec.game.startswith(game + "(")
    for chosen, legal in human_turn_choices(rec, 1):
        assert chosen == legal[0]
    assert replay(rec)[-1].state.returns() == rec.returns
    assert "deal over" in out


def test_human_types_move_text_or_a_unique_beginning():
    game = pyspiel.load_game("zwicker(variant=classic,players=2)")
    state = deal(game, 4)
    options = legal_decisions(state)
    label, actions = options[-1]
    out = io.StringIO()
    human = HumanPlayer(game, ["you", "x"], io.StringIO(f"no such move\n?\n{label.upper()}\n"), out)
    assert human.act(state) == actions
    assert "no legal move reads 'no such move'" in out.getvalue()
    labels = [lab for lab, _ in options]
    shared = next(lab[:2] for lab in labels if sum(o.startswith(lab[:2]) for o in labels) > 1)
    prefix, full = next(
        (lab[:n], lab) for lab in labels for n in range(1, len(lab)) if sum(o.startswith(lab[:n]) for o in labels) == 1
    )
    out = io.StringIO()
    human = HumanPlayer(game, ["you", "x"], io.StringIO(f"{shared}\n{prefix}\n"), out)
    assert human.act(state) == dict(options)[full]
    assert "that fits several moves" in out.getvalue()


def test_quit_and_ended_input(monkeypatch, capsys, tmp_path):
    path = tmp_path / "q.jsonl"
    argv = ["play", "--variant", "classic", "--players", "2", "--seed", "1", "--record", str(path)]
    code, out, _ = run(monkeypatch, capsys, argv, stdin="q\n")
    assert code == 1 and "game abandoned" in out and not path.exists()
    code, _, err = run(monkeypatch, capsys, argv, stdin="")
    assert code == 2 and "input ended" in err


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--agents", "nosuch"], "unknown agent 'nosuch'; registered agents:"),
        (["--agents", "random:iters=5"], "agent 'random' has no parameter 'iters'"),
        (["--agents", "greedy,random"], "give one agent spec for every other seat (3) or one for all, not 2"),
        (["--variant", "foo"], "valid variants: classic, grupp, dithmarschen, grossenwiehe, christiansen"),
        (["--game", "zwikken", "--variant", "foo"], "valid variants: historic, parlett, modern"),
        (["--game", "zwicken", "--variant", "x"], "zwicken has no variants"),
        (["--game", "chess"], "valid games: zwicker, zwikken, zwicken"),
        (["-o", "colour=red"], "unknown option 'colour' for zwicker; valid options: after_zwick"),
        (["--seat", "7"], "--seat must be in 0..3"),
    ],
)
def test_bad_play_arguments_exit_2_with_what_is_valid(monkeypatch, capsys, argv, message):
    code, _, err = run(monkeypatch, capsys, ["play", *argv], stdin="1\n" * 5)
    assert code == 2
    assert message in err


def test_split_agents_keeps_parameters_with_their_spec():
    assert split_agents("ismcts:iters=20,c=0.5,greedy, random") == ["ismcts:iters=20,c=0.5", "greedy", "random"]


# ------------------------------------------------------------------------------------------------
# selfplay records
# ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("variant", "players", "options"),
    [("dithmarschen", 4, {}), ("grupp", 3, {"joker_capture": "joker_only"}), ("grossenwiehe", 4, {})],
)
def test_compiled_move_log_is_the_fast_paths_hand(variant, players, options):
    r = zwicker.rules(variant, players, **options)
    seeds = SP.hand_seeds(11, 6)
    for names in (["random"] * players, ["greedy"] + ["random"] * (players - 1)):
        pol = np.array([SP.POLICIES[n] for n in names], np.int64)
        scores, _, _, _, plies = K.play_hands(r.array(), seeds, pol)
        for h, s in enumerate(seeds):
            rows = SP.play_hand_log(r.array(), s, pol)
            es = zwicker.deal(r, int(s))
            for row in rows:
                zwicker.apply_row(es, row)
            assert len(rows) == plies[h] and zwicker.is_over(es)
            assert list(zwicker.score(es)) == scores[h].tolist()


def test_selfplay_records_replay_to_the_compiled_scores(monkeypatch, capsys, tmp_path):
    path = tmp_path / "sp.jsonl"
    argv = ["selfplay", "--variant", "dithmarschen", "--games", "30", "--policies", "greedy,random,greedy,random"]
    argv += ["--seed", "5", "--quiet", "--records", str(path), "--record-hands", "8"]
    code, out, err = run(monkeypatch, capsys, argv)
    assert code == 0, err
    records, errors = read_records(path)
    assert errors == [] and len(records) == 8
    result = SP.run_selfplay(zwicker.rules("dithmarschen"), 8, "greedy,random,greedy,random", seed=5)
    for i, rec in enumerate(records):
        assert rec.seats == ["greedy", "random", "greedy", "random"]
        assert rec.points == result.scores[i].tolist()
        steps = replay(rec)  # replay also checks the points
        assert steps[-1].state.returns() == rec.returns
        assert [step.label for step in steps[1:]] == [label for _, label, _ in rec.moves]


def test_zwicker_game_names_the_same_rules():
    for r in (
        zwicker.rules("grupp", 3, joker_capture="joker_only", forced_capture=True),
        zwicker.rules("dithmarschen", 2, jokers=(15, 25), ranks="2345", suits="CD", hand_size=2, stages=1),
        zwicker.rules("christiansen"),
    ):
        game = zwicker_game(r)
        assert game.rules == r and pyspiel.load_game(str(game)).rules == r


# ------------------------------------------------------------------------------------------------
# zwick replay and damaged records
# ------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def two_records(tmp_path_factory) -> str:
    """A file with a zwicker and a zwikken record played by agents."""
    from zwick_ai.agents import make_agent
    from zwick_ai.eval.match import play_game

    lines = []
    for name, seed in (("zwicker(variant=classic,players=2)", 3), ("zwikken", 5)):
        game = pyspiel.load_game(name)
        agents = [make_agent("random", game, seed=p) for p in range(game.num_players())]
        lines.append(record_line(play_game(game, agents, deal_seed=seed)))
    path = tmp_path_factory.mktemp("rec") / "two.jsonl"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_replay_steps_forward_back_and_quits(monkeypatch, capsys, two_records):
    code, out, _ = run(monkeypatch, capsys, ["replay", two_records], stdin="\n\nb\nzz\nq\n")
    assert code == 0
    assert out.index("after the deal") < out.index("move 1/") < out.index("move 2/") < out.rindex("move 1/")
    assert "press Enter for the next move" in out and "result:" not in out


def test_replay_all_shows_every_move_and_the_result(monkeypatch, capsys, two_records):
    rec = read_records(two_records)[0][1]
    code, out, _ = run(monkeypatch, capsys, ["replay", two_records, "--game-index", "1", "--all"])
    assert code == 0
    assert out.count("\nmove ") == len(rec.moves)
    assert f"move {len(rec.moves)}/{len(rec.moves)}" in out and "result: seat 0 (random)" in out


def test_damaged_lines_are_reported_and_skipped(monkeypatch, capsys, two_records, tmp_path):
    good = open(two_records).read().splitlines()
    d = json.loads(good[0])
    missing = {k: v for k, v in d.items() if k != "returns"}
    bad_move = dict(d, moves=[[0, "x", "not actions"]] + d["moves"][1:])
    bad_version = dict(d, version=99)
    lines = [good[0], "{oops", json.dumps(missing), json.dumps(bad_move), "", json.dumps(bad_version), good[1]]
    path = tmp_path / "damaged.jsonl"
    path.write_text("\n".join(lines) + "\n")
    records, errors = read_records(path)
    assert len(records) == 2
    assert [(e.line, e.message.split(" ")[0]) for e in errors] == [
        (2, "not"),
        (3, "missing"),
        (4, "move"),
        (6, "format"),
    ]
    assert "missing key 'returns'" in str(errors[1]) and "move 1 is not [seat" in str(errors[2])
    code, out, err = run(monkeypatch, capsys, ["replay", str(path), "--list"])
    assert code == 0 and out.count("\n") == 2
    assert f"{path}: line 2: not JSON" in err and "line 6: format version 99 is not supported" in err


def test_records_that_do_not_replay_give_a_clear_error(monkeypatch, capsys, two_records, tmp_path):
    d = json.loads(open(two_records).read().splitlines()[0])
    wrong_seat = json.loads(json.dumps(d))
    wrong_seat["moves"][0][0] = 1 - wrong_seat["moves"][0][0]
    illegal = json.loads(json.dumps(d))
    illegal["moves"][2][2] = [illegal["moves"][2][2][0] + 1000]
    short = dict(d, moves=d["moves"][:-1])
    wrong_result = dict(d, returns=[r + 1 for r in d["returns"]])
    cases = [
        (wrong_seat, "move 1/"),
        (illegal, "move 3/"),
        (short, "the game is not over after"),
        (wrong_result, "the replay ends with returns"),
    ]
    for obj, message in cases:
        rec = parse_lines([json.dumps(obj)])[0][0]
        with pytest.raises(ValueError, match=message):
            replay(rec)
    path = tmp_path / "bad.jsonl"
    path.write_text(json.dumps(illegal) + "\n")
    code, _, err = run(monkeypatch, capsys, ["replay", str(path), "--all"])
    assert code == 2 and f"game 0 of {path}: move 3/" in err and "does not replay" in err


def test_bad_replay_arguments(monkeypatch, capsys, two_records, tmp_path):
    code, _, err = run(monkeypatch, capsys, ["replay", str(tmp_path / "none.jsonl")])
    assert code == 2 and "no such records file" in err
    code, _, err = run(monkeypatch, capsys, ["replay", two_records, "--game-index", "5"])
    assert code == 2 and "--game-index must be in 0..1" in err


def test_writers_extra_keys_are_ignored(two_records):
    """A tournament adds its own keys to each line; the record still reads and replays."""
    d = json.loads(open(two_records).read().splitlines()[1])
    d |= {"agents": ["random", "greedy"], "deal": 3, "seating": 1, "agent_seeds": [1, 2, 3]}
    records, errors = parse_lines([json.dumps(d)])
    assert errors == [] and replay(records[0])[-1].state.returns() == d["returns"]


def test_decision_labels_name_the_moves_listed():
    """Labels of played decisions (records, replay, play) equal the listed legal moves' names."""
    from zwick_ai.agents.base import decision_label

    game = pyspiel.load_game("zwicker(variant=grossenwiehe,players=4)")
    rng = np.random.default_rng(2)
    state = deal(game, 8)
    checked = 0
    while not state.is_terminal() and checked < 400:
        options = legal_decisions(state)
        for label, actions in options:
            assert decision_label(state, actions) == label
        checked += len(options)
        for a in options[int(rng.integers(len(options)))][1]:
            state.apply_action(a)
    assert checked >= 100


def test_records_without_chance_actions_deal_from_the_seed(two_records):
    for line in open(two_records).read().splitlines():
        d = json.loads(line)
        del d["chance"]
        records, errors = parse_lines([json.dumps(d)])
        assert errors == [] and records[0].chance == []
        assert replay(records[0])[-1].state.returns() == d["returns"]
