"""Move values on common worlds (zwick_ai.analysis.move_values) and ``zwick analyze``."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyspiel
import pytest

import zwick_ai.agents  # noqa: F401  (registers the agents)
import zwick_ai.games  # noqa: F401  (registers the games)
from tests.render.browser import chromium
from zwick_ai import cards, tricks, zwicker
from zwick_ai.agents import make_agent
from zwick_ai.agents.base import apply_decision, decision_label, legal_decisions
from zwick_ai.analysis.move_values import (
    agent_move_values,
    decision_values,
    draw_worlds,
    move_values,
    search_move_values,
)
from zwick_ai.cli import main
from zwick_ai.eval.match import GameRecord, chance_action, deal, play_game
from zwick_ai.eval.records import replay, write_records
from zwick_ai.games import zwicker_bridge

ZWICK = "X20=20 takes 2H+3H+X15 (zwick)"
GAME = "zwicker(variant=dithmarschen,players=4)"


def joker_zwick_deal() -> tuple[pyspiel.Game, list[int]]:
    """A Dithmarschen deal where seat 1 opens with 2H 3H X15 on the table and X20 in hand: the
    Zwick that takes the 15-joker is obviously best (5 + 6 points of jokers, a Zwick)."""
    game = pyspiel.load_game(GAME)
    order = list(game.rules.deck)
    # with the deck in id order and dealer 0, 5D 6D 7D go to the table and 2C 6C TC AC to seat 1
    for at, card in [
        ("5D", "X15"),
        ("6D", "2H"),
        ("7D", "3H"),
        ("2C", "X20"),
        ("6C", "9S"),
        ("TC", "4S"),
        ("AC", "8H"),
    ]:
        i, j = order.index(cards.parse_card(at)), order.index(cards.parse_card(card))
        order[i], order[j] = order[j], order[i]
    return game, zwicker_bridge.deal_actions(game, order, 0)


def joker_zwick_state() -> pyspiel.State:
    game, chance = joker_zwick_deal()
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    es = state.engine_state()
    assert state.current_player() == 1 and sorted(zwicker.table(es)) == ["2H", "3H", "X15"]
    return state


def test_obvious_best_move_ranked_first_with_a_clear_ci() -> None:
    state = joker_zwick_state()
    dv = decision_values(state, worlds=60, seed=3)
    assert ZWICK in dv.labels and len(dv.labels) >= 4
    best = dv.best()
    assert dv.labels[best] == ZWICK
    _, lo, _ = dv.mean_ci(best)
    others = [dv.mean_ci(i)[2] for i in range(len(dv.labels)) if i != best]
    assert lo > max(others)  # the CI of the best is clear of every other move's


def level_position() -> pyspiel.State:
    """Seat 1 to move with 9S, 9C, 8H and X20 against QD KH JS on the table: trailing 9S and
    trailing 9C are the same move up to the suit (equal), trailing the 20-joker hands it to the
    opponents (clearly worse)."""
    game = pyspiel.load_game(GAME)
    order = list(game.rules.deck)
    for at, card in [("5D", "KH"), ("6D", "QD"), ("7D", "JS"), ("2C", "9S"), ("6C", "9C"), ("TC", "X20"), ("AC", "8H")]:
        i, j = order.index(cards.parse_card(at)), order.index(cards.parse_card(card))
        order[i], order[j] = order[j], order[i]
    state = game.new_initial_state()
    for a in zwicker_bridge.deal_actions(game, order, 0):
        state.apply_action(a)
    assert state.current_player() == 1
    return state


def test_only_a_move_clearly_worse_than_the_best_is_a_mistake() -> None:
    """Two equal moves and one clearly worse: only the worse is called a mistake. The unpaired
    CIs of the moves overlap; the loss measured on the same worlds separates the worse move."""
    dv = decision_values(level_position(), worlds=100, seed=3)
    i9s, i9c, ix = (dv.labels.index(x) for x in ("9S trails", "9C trails", "X20 trails"))
    pair = np.mean(dv.values[:, i9s] - dv.values[:, i9c])
    assert abs(pair) < 0.5  # the two trails are the same move up to the suit
    assert dv.verdict(i9s) != "mistake" and dv.verdict(i9c) != "mistake"
    assert dv.verdict(ix) == "mistake" and dv.loss(ix).ci95[0] > 0
    assert [dv.labels[i] for i in range(len(dv.labels)) if dv.verdict(i) == "mistake"] == ["X20 trails"]


def test_every_move_is_measured_on_the_same_worlds() -> None:
    state = joker_zwick_state()
    dv = decision_values(state, worlds=12, rollout="random", seed=5)
    # each world keeps what the mover sees (own hand, table) and redeals what he does not
    es = state.engine_state()
    others = set()
    for world in dv.worlds:
        ws = zwicker.ZwickerState(state.rules, world[: len(es.arr)])
        assert zwicker.hand(ws, 1) == zwicker.hand(es, 1) and zwicker.table(ws) == zwicker.table(es)
        others.add(tuple(zwicker.hand(ws, 2)))
    assert len(others) > 1
    # a move's values come from those worlds alone: valued by itself, on the same worlds, it gets the
    # same numbers as among all moves, world by world (the same world and playout stream per move)
    for i, acts in enumerate(dv.actions):
        alone = move_values(state, dv.worlds, [acts], rollout="random", seed=5)
        assert np.array_equal(alone[:, 0], dv.values[:, i])
    # other worlds give other numbers
    fresh = draw_worlds(state, 12, seed=6)
    assert not np.array_equal(move_values(state, fresh, dv.actions, rollout="random", seed=5), dv.values)


def test_trick_game_values_on_common_worlds() -> None:
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    state = deal(game, 7)
    dv = decision_values(state, worlds=20, seed=1)
    p = state.current_player()
    for world in dv.worlds:  # the mover's hand is kept in every world
        assert tricks.hand(tricks.TrickState(state.rules, world), p) == tricks.hand(state.trick_state(), p)
    for i, acts in enumerate(dv.actions):
        assert np.array_equal(move_values(state, dv.worlds, [acts], seed=1)[:, 0], dv.values[:, i])
    assert dv.values.shape == (20, len(legal_decisions(state)))


def python_play_out(s: np.ndarray, cfg: np.ndarray, greedy: bool) -> None:
    """The trick games' play-out one kernel call a step from Python (the reference for the compiled
    one): the same policies and the same draws of numba's generator."""
    from zwick_ai.agents.tricks_greedy import greedy_action
    from zwick_ai.tricks import arrays as L
    from zwick_ai.tricks import kernels as K

    ids, probs = np.empty(L.NC, np.int32), np.empty(L.NC, np.float64)
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    while not L.is_over(s):
        if L.is_chance(s):
            K.apply_chance(s, cfg, K.sample_chance(s, cfg, ids, probs))
        elif greedy:
            K.apply_action(s, cfg, greedy_action(s, cfg))
        else:
            K.legal_mask(s, cfg, mask)
            K.apply_action(s, cfg, K.random_action(mask))


@pytest.mark.parametrize(
    "spec", ["zwikken(variant=parlett,players=3)", "zwicken", "zwikken(variant=historic,players=4)"]
)
@pytest.mark.parametrize("greedy", [True, False])
def test_compiled_trick_play_out_equals_the_python_one(spec: str, greedy: bool) -> None:
    from zwick_ai.agents.tricks_search import play_out
    from zwick_ai.tricks import arrays as L
    from zwick_ai.tricks import kernels as K
    from zwick_ai.tricks.worlds import seed

    state = deal(pyspiel.load_game(spec), 4)
    cfg = state.rules.cfg
    ids, probs = np.empty(L.NC, np.int32), np.empty(L.NC, np.float64)
    mask = np.zeros(L.NUM_ACTIONS, np.bool_)
    ends = set()
    for w, world in enumerate(draw_worlds(state, 4, seed=2)):
        for action in state.legal_actions():
            compiled, reference = world.copy(), world.copy()
            for s in (compiled, reference):
                K.apply_action(s, cfg, action)
            seed(10 * w + action)
            play_out(compiled, cfg, greedy, ids, probs, mask)
            seed(10 * w + action)
            python_play_out(reference, cfg, greedy)
            assert np.array_equal(compiled, reference)  # the whole final position, history included
            ends.add(compiled.tobytes())
    assert len(ends) > 1  # the play-outs differ: the equality says something


class Scripted:
    """Plays ``first`` at its first decision, then like ``greedy``."""

    def __init__(self, game: pyspiel.Game, first: str):
        self.greedy, self.first, self.done = make_agent("greedy", game, seed=0), first, False

    def act(self, state: pyspiel.State) -> list[int]:
        if not self.done:
            self.done = True
            return next(a for label, a in legal_decisions(state) if label == self.first)
        return self.greedy.act(state)


def joker_record(first_move: str) -> GameRecord:
    """The joker deal played out: seat 1 opens with ``first_move``, everybody else greedy."""
    game, chance = joker_zwick_deal()
    state = game.new_initial_state()
    for a in chance:
        state.apply_action(a)
    agents = [make_agent("greedy", game, seed=p) for p in range(4)]
    agents[1] = Scripted(game, first_move)  # type: ignore[call-overload]
    rec = GameRecord(0, ["greedy", "scripted", "greedy", "greedy"], game=str(game), chance=list(chance))
    while not state.is_terminal():
        if state.is_chance_node():
            a = chance_action(state, 0)
            rec.chance.append(a)
            state.apply_action(a)
            continue
        p = state.current_player()
        acts = agents[p].act(state)
        rec.moves.append([p, decision_label(state, acts), acts])
        apply_decision(state, acts)
    rec.returns = [float(x) for x in state.returns()]
    rec.points = [int(x) for x in zwicker.score(state.engine_state())]
    return rec


def test_analyze_command_schema_and_mistake(tmp_path: Path) -> None:
    records = tmp_path / "games.jsonl"
    write_records(records, [joker_record(ZWICK), joker_record("X20 trails")])
    out = tmp_path / "mistake"
    argv = ["analyze", str(records), "--game-index", "1", "--seat", "1", "--agent", "rollouts:worlds=40", "--out"]
    assert main([*argv, str(out)]) == 0
    data = json.loads((out / "analysis.json").read_text())
    assert set(data) == {"game", "agent", "decisions"} and data["game"] == str(pyspiel.load_game(GAME))
    assert data["agent"] == "rollouts:worlds=40,policy=greedy,playouts=1,seed=0"
    first = data["decisions"][0]
    assert set(first) == {"move_index", "seat", "played", "loss", "loss_ci95", "verdict", "moves"}
    assert first["move_index"] == 0 and first["seat"] == 1 and first["played"] == "X20 trails"
    for d in data["decisions"]:
        assert d["seat"] == 1
        for m in d["moves"]:
            assert set(m) == {"move", "mean", "ci95", "loss", "loss_ci95", "verdict", "to_separate"}
            assert m["ci95"][0] <= m["mean"] <= m["ci95"][1]
            assert m["verdict"] == "best" or (m["verdict"] == "mistake") == (m["loss_ci95"][0] > 0)
        means = [m["mean"] for m in d["moves"]]
        assert means == sorted(means, reverse=True)  # best first, as both tables show them
        assert d["loss"] == pytest.approx(
            means[0] - next(m["mean"] for m in d["moves"] if m["move"] == d["played"]), abs=1e-3
        )
    best = first["moves"][0]
    assert best["move"] == ZWICK and first["loss"] > 10 and first["verdict"] == "mistake"  # two jokers and a Zwick
    md = (out / "analysis.md").read_text()
    assert "## Mistakes" in md and "`X20 trails`" in md.split("## Every decision")[0]
    html = (out / "analysis.html").read_text()
    assert html.count("data-move-index=") == len(joker_record("X20 trails").moves)
    # a rerun never overwrites finished work: the same command finds it done, another evaluator is refused
    before = {f.name: f.read_bytes() for f in out.iterdir()}
    assert main([*argv, str(out)]) == 0
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    other = ["analyze", str(records), "--game-index", "1", "--seat", "1", "--agent", "rollouts:worlds=30"]
    assert main([*other, "--out", str(out)]) == 2
    assert {f.name: f.read_bytes() for f in out.iterdir()} == before
    # the good game: the move played is the best, no loss
    good = tmp_path / "good"
    assert main(["analyze", str(records), "--seat", "1", "--agent", "rollouts:worlds=40", "--out", str(good)]) == 0
    assert json.loads((good / "analysis.json").read_text())["decisions"][0]["loss"] == 0
    with chromium() as driver:  # the values are shown beside the position of the decision
        from selenium.webdriver.common.by import By
        from selenium.webdriver.support.ui import WebDriverWait

        driver.get((out / "analysis.html").resolve().as_uri())
        WebDriverWait(driver, 30).until(lambda d: d.find_elements(By.CSS_SELECTOR, "#values tr.played"))
        rows = driver.find_elements(By.CSS_SELECTOR, "#values tr")
        assert len(rows) == len(first["moves"]) + 1
        # the page's table lists the moves in the order of analysis.md, with the paired loss and verdict
        assert [r.text.split(" ")[0] for r in rows[1:]] == [m["move"].split(" ")[0] for m in first["moves"]]
        assert driver.find_element(By.CSS_SELECTOR, "#values tr.played").text.endswith("mistake")
        played = driver.find_element(By.CSS_SELECTOR, "#values tr.played").text
        assert played.startswith("X20 trails")
        assert driver.find_element(By.CSS_SELECTOR, "#values tr.best").text.startswith(ZWICK)


def test_analyze_trick_game_and_bad_input(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    game = pyspiel.load_game("zwicken(players=3)")
    rec = play_game(game, [make_agent("greedy", game, seed=p) for p in range(3)], deal_seed=2)
    records = tmp_path / "g.jsonl"
    write_records(records, [rec])
    out = tmp_path / "a"
    assert main(["analyze", str(records), "--agent", "rollouts:worlds=10,policy=random", "--out", str(out)]) == 0
    data = json.loads((out / "analysis.json").read_text())
    assert {d["seat"] for d in data["decisions"]} <= {0, 1, 2} and data["decisions"]
    for bad, message in [
        (["--agent", "expert"], "agent 'expert' plays zwicker, not zwicken"),
        (["--agent", "rollouts:worlds=x"], "whole number"),
        (["--agent", "rollouts:depth=3"], "valid keys"),
        (["--seat", "5"], "--seat must be in 0..2"),
        (["--game-index", "3"], "--game-index must be in 0..0"),
    ]:
        assert main(["analyze", str(records), *bad, "--out", str(tmp_path / "b")]) == 2
        assert message in capsys.readouterr().err


def test_an_agent_playing_on_values_moves_on_common_worlds() -> None:
    """``agent=SPEC``: the deal is played on by that agent at every seat, in the same worlds."""
    state = joker_zwick_state()
    dv = decision_values(state, worlds=40, seed=2, agent="greedy")
    best = dv.best()
    assert dv.labels[best] == ZWICK
    assert dv.mean_ci(best)[1] > max(dv.mean_ci(i)[2] for i in range(len(dv.labels)) if i != best)
    seen = state.information_state_string(1)
    for world in dv.worlds:  # OpenSpiel states with the mover's information
        assert isinstance(world, pyspiel.State) and world.information_state_string(1) == seen
    small = decision_values(state, worlds=3, seed=4, agent="ismcts:iters=20")
    for i, acts in enumerate(small.actions):
        alone = agent_move_values(state, small.worlds, [acts], "ismcts:iters=20", seed=4)
        assert np.array_equal(alone[:, 0], small.values[:, i])


def test_analyze_with_an_agent_spec(tmp_path: Path) -> None:
    game = pyspiel.load_game("zwikken(variant=parlett,players=3)")
    rec = play_game(game, [make_agent("greedy", game, seed=p) for p in range(3)], deal_seed=5)
    records = tmp_path / "g.jsonl"
    write_records(records, [rec])
    out = tmp_path / "a"
    assert main(["analyze", str(records), "--agent", "ismcts:iters=30;worlds=4", "--out", str(out)]) == 0
    data = json.loads((out / "analysis.json").read_text())
    assert data["agent"] == "ismcts:iters=30;worlds=4,seed=0"
    assert "playing on" in (out / "analysis.md").read_text()
    assert main(["analyze", str(records), "--agent", "ismcts:depth=3", "--out", str(tmp_path / "b")]) == 2


def _last_decision_with_a_choice(game: pyspiel.Game) -> pyspiel.State:
    """The last move of a greedy game when it is a choice: every other hand and the stock are
    empty then, so the mover knows the whole position and each move's return is certain."""
    for seed in range(200):
        rec = play_game(game, [make_agent("greedy", game, seed=p) for p in range(game.num_players())], deal_seed=seed)
        steps = replay(rec)
        last = steps[-2].state
        if len(legal_decisions(last)) > 1:
            return last
    raise AssertionError("no game ends with a choice")


@pytest.mark.parametrize("game_string", [GAME, "zwicker(variant=classic,players=2)"])
def test_search_values_are_in_return_units(game_string: str) -> None:
    """``searches=N``: the agent's root statistics rescaled to the game's return. At a last move
    that is a choice every iteration sees the same, known outcome, so each value is exact."""
    state = _last_decision_with_a_choice(pyspiel.load_game(game_string))
    p = state.current_player()
    moves = [acts for _, acts in legal_decisions(state)]
    values = search_move_values(state, moves, "ismcts:iters=50", searches=3, seed=1)
    for i, acts in enumerate(moves):
        after = state.clone()
        apply_decision(after, acts)
        assert after.is_terminal()
        assert values[:, i] == pytest.approx([after.returns()[p]] * 3, abs=1e-9)


def test_search_values_value_the_obvious_move_best_and_refuse_what_cannot() -> None:
    state = joker_zwick_state()
    dv = decision_values(state, seed=3, agent="ismcts:iters=400", searches=4)
    assert dv.values.shape == (4, len(dv.labels)) and dv.labels[dv.best()] == ZWICK
    assert dv == decision_values(state, seed=3, agent="ismcts:iters=400", searches=4)  # seeded
    with pytest.raises(ValueError, match="cannot value zwicker moves by its own searches"):
        decision_values(state, agent="greedy", searches=4)
    with pytest.raises(ValueError, match="cannot try each of the"):
        decision_values(state, agent="ismcts:iters=2", searches=4)
