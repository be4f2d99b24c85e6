"""The leaderboard (zwick_ai.eval.leaderboard, zwick leaderboard): gauntlet pairs, agents that cannot
play a game are left out with the reason, a resumed board replays only missing games and gives the
same ratings, and the file is checked."""

from __future__ import annotations

import json

import pytest

from zwick_ai.eval import leaderboard
from zwick_ai.eval.experiment_files import parse_leaderboard

AGENTS = ["random", "greedy", "joker:policy=early", "mccfr:policy=/nonexistent/policy"]


def _play(out, seating="all"):
    """Three deals a pair, seed 5, no progress bar: how the small boards here are played."""
    return leaderboard.PairPlay(deals=3, seed=5, out=out, backend=None, progress=False, seating=seating)


def test_gauntlet_then_top_pairs_and_resume(tmp_path):
    board = leaderboard.make_board("zwicker", "classic", 2, {}, AGENTS)
    assert board.agents == AGENTS[:3] and "no policy file" in board.skipped[AGENTS[3]]
    first = leaderboard.run_board(board, ["greedy"], top=2, how=_play(tmp_path))
    assert first is not None
    played = {(p["a"], p["b"]) for p in first["pairs"]}
    gauntlet = {("random", "greedy"), ("joker:policy=early", "greedy")}
    assert gauntlet <= played and len(played) <= 3  # plus at most the pair of the top two
    assert sorted(r["agent"] for r in first["ratings"]) == sorted(board.agents)
    assert all(r["ci95"][0] <= r["rating"] <= r["ci95"][1] for r in first["ratings"])
    assert "load average" in first["machine"]  # the load at the start of the board's first pair
    # lose the last game of one pair, as an interrupted run would: only it is played again
    games = tmp_path / board.slug / "random--greedy" / "games.jsonl"
    lines = games.read_text().splitlines()
    games.write_text("\n".join(lines[:-1]) + "\n")
    again = leaderboard.run_board(board, ["greedy"], top=2, how=_play(tmp_path))
    # the same board; the machine line is the resumed run's (it played a game)
    assert again | {"machine": first["machine"]} == first and "load average" in again["machine"]
    assert games.read_text().splitlines()[:-1] == lines[:-1] and len(games.read_text().splitlines()) == len(lines)
    path = leaderboard.write([again], tmp_path, "test", "a test", "zwick leaderboard x.toml")
    text = path.read_text()
    assert "| `greedy` |" in text and "Left out: `mccfr:policy=/nonexistent/policy`" in text
    assert f"Machine at the start of its first pair: {again['machine']}." in text
    assert (tmp_path / "leaderboard.png").read_bytes()[:4] == b"\x89PNG"
    assert json.loads((tmp_path / "leaderboard.json").read_text())[0]["board"] == "zwicker classic 2p"


def test_the_file_is_checked():
    ok = parse_leaderboard({"agents": ["greedy", "random"], "deals": 2, "board": [{"game": "zwicken"}]}, "x")
    assert ok.boards[0].game == "zwicken" and ok.top == 3
    with pytest.raises(ValueError, match="unknown key 'colour'"):
        parse_leaderboard({"agents": ["greedy"], "deals": 2, "board": [], "colour": 1}, "x")
    with pytest.raises(ValueError, match="board 1: unknown key 'variants'"):
        parse_leaderboard({"agents": ["greedy"], "deals": 2, "board": [{"game": "zwicker", "variants": []}]}, "x")
    with pytest.raises(ValueError, match="deals must be a whole number from 1 to 1000000, not 0"):
        parse_leaderboard({"agents": ["greedy"], "deals": 0, "board": [{"game": "zwicken"}]}, "x")
    assert ok.seatings == "all"
    rotate = parse_leaderboard(
        {"agents": ["greedy"], "deals": 2, "seatings": "rotate", "board": [{"game": "zwicken"}]}, "x"
    )
    assert rotate.seatings == "rotate"
    with pytest.raises(ValueError, match='seatings must be "all" or "rotate"'):
        parse_leaderboard({"agents": ["greedy"], "deals": 2, "seatings": "half", "board": [{"game": "zwicken"}]}, "x")


def test_a_rotating_board_plays_two_games_a_deal_and_says_so(tmp_path):
    board = leaderboard.make_board("zwikken", "parlett", 3, {}, ["greedy", "random"])
    r = leaderboard.run_board(board, ["greedy"], top=0, how=_play(tmp_path, seating="rotate"))
    assert r is not None and r["seating"] == "rotate" and r["pairs"][0]["deals"] == 3
    games = (tmp_path / board.slug / "random--greedy" / "games.jsonl").read_text().splitlines()
    assert len(games) == 6  # 3 deals x 2 seatings (every seating: 3 x 6)


def test_the_file_chooses_the_clock():
    base = {"agents": ["greedy"], "deals": 2, "board": [{"game": "zwicken"}]}
    assert parse_leaderboard(base, "x").clock == "wall"
    assert parse_leaderboard({**base, "clock": "cpu"}, "x").clock == "cpu"
    with pytest.raises(ValueError, match='clock must be "wall" or "cpu"'):
        parse_leaderboard({**base, "clock": "gpu"}, "x")


def test_references_play_the_anchors_outside_the_ratings_and_fill_the_ladder(tmp_path):
    board = leaderboard.make_board("zwicker", "classic", 2, {}, ["random", "greedy"], ["cheat-uct:iters=30"])
    assert board.references == ["cheat-uct:iters=30"]
    r = leaderboard.run_board(board, ["random", "greedy"], top=2, how=_play(tmp_path))
    assert r is not None
    assert "cheat-uct:iters=30" not in {x["agent"] for x in r["ratings"]}
    assert {(p["a"], p["b"]) for p in r["reference_pairs"]} == {
        ("cheat-uct:iters=30", "random"),
        ("cheat-uct:iters=30", "greedy"),
    }
    rows = {row["agent"]: row for row in r["ladder"]}
    played = {(p["a"], p["b"]): p["mean_diff"] for p in r["pairs"] + r["reference_pairs"]}
    # a margin read from the other side of a pair is the pair's difference negated
    assert rows["greedy"]["margins"]["random"][0] == -played[("random", "greedy")]
    assert rows["cheat-uct:iters=30"]["margins"]["greedy"][0] == played[("cheat-uct:iters=30", "greedy")]
    room = played[("cheat-uct:iters=30", "greedy")]
    if room > 0:
        assert rows["random"]["share"] == round(played[("random", "greedy")] / room, 4)
    text = leaderboard.markdown([r], "t", "d", "zwick leaderboard x.toml")
    assert "`cheat-uct:iters=30` (reference)" in text and "share of the room" in text
    overview = leaderboard.ladder_overview([r])
    assert overview[0] == "## The ladder: margin over `random`"
    greedy_row = next(line for line in overview if line.startswith("| `greedy` |"))
    assert f"{rows['greedy']['margins']['random'][0]:+.2f}" in greedy_row


def test_a_partial_run_keeps_the_other_boards(tmp_path):
    one = {"board": "zwicken 4p", "agents": ["greedy"], "ratings": [], "pairs": [], "skipped": {}, "deals": 1}
    two = {"board": "zwicker classic 2p", "agents": ["greedy"], "ratings": [], "pairs": [], "skipped": {}, "deals": 1}
    leaderboard.write([one, two], tmp_path, "t", "d", "c")
    again = dict(two, deals=2)
    boards = leaderboard.merged([again], tmp_path)
    assert [b["board"] for b in boards] == ["zwicken 4p", "zwicker classic 2p"] and boards[1]["deals"] == 2


def test_a_board_can_have_its_own_number_of_deals(tmp_path):
    """``deals`` in a ``[[board]]`` overrides the file's for that board (checked like the file's),
    and the command plays each board with its own."""
    from zwick_ai.cli import main

    spec = parse_leaderboard(
        {"agents": ["greedy"], "deals": 2, "board": [{"game": "zwicken"}, {"game": "zwicken", "deals": 3}]}, "x"
    )
    assert [b.deals for b in spec.boards] == [2, 3]
    with pytest.raises(ValueError, match="board 1: deals must be a whole number from 1 to 1000000"):
        parse_leaderboard({"agents": ["greedy"], "deals": 2, "board": [{"game": "zwicken", "deals": "many"}]}, "x")
    toml = tmp_path / "lb.toml"
    toml.write_text(
        'agents = ["random", "greedy"]\nanchors = ["greedy"]\ndeals = 2\ntop = 0\nseed = 1\n'
        f'out = "{tmp_path / "out"}"\n'
        '[[board]]\ngame = "zwikken"\nvariant = "parlett"\ndeals = 3\n'
        '[[board]]\ngame = "zwicken"\n'
    )
    assert main(["leaderboard", str(toml), "--quiet", "--workers", "1"]) == 0
    boards = {b["board"]: b for b in json.loads((tmp_path / "out" / "leaderboard.json").read_text())}
    assert {name: b["pairs"][0]["deals"] for name, b in boards.items()} == {"zwikken parlett 3p": 3, "zwicken 4p": 2}


def test_one_deal_on_every_board_writes_unbounded_intervals(tmp_path):
    """With one deal per pair a rating's bootstrap interval has no bounds: the tables say so
    (``[-∞, ∞]``) instead of failing after every game was played."""
    from zwick_ai.cli import main

    toml = tmp_path / "lb.toml"
    toml.write_text(
        f'agents = ["random", "greedy"]\nanchors = ["greedy"]\ndeals = 1\ntop = 0\nout = "{tmp_path / "out"}"\n'
        '[[board]]\ngame = "zwikken"\nvariant = "parlett"\n[[board]]\ngame = "zwicken"\n'
    )
    assert main(["leaderboard", str(toml), "--quiet", "--workers", "1"]) == 0
    boards = json.loads((tmp_path / "out" / "leaderboard.json").read_text())
    assert [b["deals"] for b in boards] == [1, 1]
    assert leaderboard._rating_cell({"rating": 3.2, "ci95": [None, float("inf")]}) == "3 [-∞, ∞]"
    assert "| `greedy` |" in (tmp_path / "out" / "headline.md").read_text()


def test_the_headline_groups_the_games_and_shares_the_trained_policy_row(tmp_path):
    """``headline``: Zwicker boards in one table and trick games in another, agents in the file's
    order, the leader of each board in bold, every board's ``mccfr:policy=PATH`` in one row; ``write``
    saves it as headline.md."""

    def board(name, game, ratings):
        agents = [a for a, _ in ratings]
        rated = [{"agent": a, "rating": r, "ci95": [r - 10, r + 10]} for a, r in ratings]
        return {"board": name, "game": game, "agents": agents, "ratings": rated, "pairs": [], "skipped": {}, "deals": 1}

    boards = [
        board("zwicker classic 4p", "zwicker", [("greedy", -5.0), ("expert", 5.0)]),
        board("zwicker classic 2p", "zwicker", [("greedy", 7.0), ("mccfr:policy=a,fallback=greedy", -7.0)]),
        board("zwicken 4p", "zwicken", [("greedy", 3.0), ("mccfr:policy=b,min_visits=9", -3.0)]),
    ]
    lines = leaderboard.headline(boards)
    assert lines[0] == "| agent | classic 4p | classic 2p |"
    assert "| `greedy` | -5 [-15, 5] | **7 [-3, 17]** |" in lines
    assert "| `expert` | **5 [-5, 15]** | — |" in lines
    assert "| `mccfr:policy=…` | — | -7 [-17, 3] |" in lines
    second = lines.index("") + 1
    assert lines[second] == "| agent | zwicken 4p |" and "| `mccfr:policy=…` | -3 [-13, 7] |" in lines[second:]
    leaderboard.write(boards, tmp_path, "t", "d", "c")
    assert (tmp_path / "headline.md").read_text() == "\n".join(lines) + "\n"


def test_the_ladder_overview_shares_the_trained_policy_row():
    """Two boards' own ``mccfr:policy=PATH`` rows become one ``mccfr:policy=…`` row of the ladder."""

    def board(name, policy, margin):
        ladder = [
            {"agent": "greedy", "margins": {}, "share": None},
            {"agent": policy, "margins": {"greedy": [margin, margin - 1, margin + 1]}, "share": None},
        ]
        return {"board": name, "anchors": ["greedy"], "ladder": ladder, "references": []}

    lines = leaderboard.ladder_overview([board("one", "mccfr:policy=a", 2.0), board("two", "mccfr:policy=b", -3.0)])
    rows = [line for line in lines if line.startswith("| `mccfr")]
    assert rows == ["| `mccfr:policy=…` | +2.00 [+1.00, +3.00] | -3.00 [-4.00, -2.00] |"]


def test_the_headline_keeps_the_file_order_when_the_first_board_lacks_an_agent():
    """An agent the first board cannot play (``net`` in 4-player classic) takes its place from the
    file's order in the later boards, not the last row; a rating of -0.4 reads 0."""

    def board(name, agents):
        ratings = [{"agent": a, "rating": -0.4 if a == "greedy" else 1.0, "ci95": [-9.0, 9.0]} for a in agents]
        return {"board": name, "game": "zwicker", "agents": agents, "ratings": ratings}

    lines = leaderboard.headline(
        [
            board("zwicker classic 4p", ["random", "greedy", "ismcts"]),
            board("zwicker grupp 4p", ["random", "greedy", "net", "ismcts"]),
        ]
    )
    assert [line.split(" | ")[0] for line in lines[2:]] == ["| `random`", "| `greedy`", "| `net`", "| `ismcts`"]
    assert lines[3].startswith("| `greedy` | 0 [-9, 9] |")


def test_a_named_search_measures_the_room_from_margins_over_one_anchor(tmp_path):
    """With ``search`` an agent and not an anchor, every agent plays only the anchor and the share
    is (the agent's margin - the search's) / (the reference's margin - the search's)."""
    assert parse_leaderboard({"agents": ["greedy"], "deals": 1, "board": [{"game": "zwicken"}]}, "x").search is None
    spec = parse_leaderboard(
        {"agents": ["greedy"], "deals": 1, "search": "random", "board": [{"game": "zwicken"}]}, "x"
    )
    assert spec.search == "random"
    agents = ["greedy", "random", "joker:policy=early"]
    board = leaderboard.make_board("zwicker", "classic", 2, {}, agents, ["cheat-uct:iters=30"])
    r = leaderboard.run_board(board, ["greedy"], top=0, how=_play(tmp_path), search="random")
    assert r is not None and r["search"] == "random"
    assert {(p["a"], p["b"]) for p in r["pairs"]} == {("random", "greedy"), ("joker:policy=early", "greedy")}
    over = {p["a"]: p["mean_diff"] for p in r["pairs"] + r["reference_pairs"]}
    rows = {row["agent"]: row for row in r["ladder"]}
    room = over["cheat-uct:iters=30"] - over["random"]
    assert room > 0  # cheat-uct beats greedy by more than random does on any deals
    assert rows["joker:policy=early"]["share"] == round((over["joker:policy=early"] - over["random"]) / room, 4)
    assert rows["cheat-uct:iters=30"]["share"] == 1.0
    assert rows["random"]["share"] is None and rows["greedy"]["share"] is None
    text = leaderboard.markdown([r], "t", "d", "c")
    assert "share of the room (`random` → `cheat-uct:iters=30`)" in text and "− `random` (through `greedy`)" in text
    # the lead over the search through greedy, deal by deal, and its mean is the margins' difference
    lead = rows["joker:policy=early"]["over_search"]
    assert lead[0] == pytest.approx(over["joker:policy=early"] - over["random"])
    assert lead[1] <= lead[0] <= lead[2] and rows["random"].get("over_search") is None


def test_the_ladder_turns_a_reversed_pairs_interval_the_right_way_round():
    """A pair stored as (anchor, agent) gives the agent's margin as minus the pair's: its interval
    is [-hi, -lo], lower bound first, around the margin."""
    pairs = [{"a": "g", "b": "x", "mean_diff": 2.0, "ci95": [1.0, 3.5]},
             {"a": "y", "b": "g", "mean_diff": 1.0, "ci95": [0.5, 1.5]},
             {"a": "g", "b": "z", "mean_diff": 0.5, "ci95": [None, None]}]  # fmt: skip
    rows = {r["agent"]: r["margins"] for r in leaderboard.ladder(["g", "x", "y", "z"], ["g"], pairs, [])}
    assert rows["x"]["g"] == [-2.0, -3.5, -1.0]
    assert rows["y"]["g"] == [1.0, 0.5, 1.5]
    assert rows["z"]["g"] == [-0.5, None, None]
    for margins in rows.values():
        for mean, lo, hi in margins.values():
            assert lo is None or lo <= mean <= hi
