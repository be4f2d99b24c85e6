"""A packed leaderboard board (zwick_ai.eval.packed_pairs): two files instead of a folder per pair,
read by every reader of games, played on without replaying a game, extended with more deals, and
refused in one line when its two files do not belong together."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from zwick_ai.backends import LocalBackend
from zwick_ai.cli import main
from zwick_ai.eval import leaderboard
from zwick_ai.eval.packed_pairs import GAMES, PAIRS, pack_board, packed_machine, packed_pairs, pair_folders
from zwick_ai.eval.records import read_records

AGENTS = ["random", "greedy", "joker:policy=early"]


class NoGames(LocalBackend):
    """A backend that fails the test if any game is played."""

    def map_unordered(self, fn, tasks, chunksize=0):
        raise AssertionError(f"{len(tasks)} games played again")


def _board(tmp_path, deals=2, backend=None):
    board = leaderboard.make_board("zwicker", "classic", 2, {}, AGENTS)
    how = leaderboard.PairPlay(deals=deals, seed=5, out=tmp_path, backend=backend, progress=False)
    result = leaderboard.run_board(board, ["greedy"], top=2, how=how)
    return board, result


def _lines(path):
    with gzip.open(path, "rt") as f:
        return f.read().splitlines()


def test_a_packed_board_keeps_every_game_in_two_files_and_plays_on_without_replaying(tmp_path, capsys):
    board, first = _board(tmp_path)
    folder = tmp_path / board.slug
    names = pair_folders(folder)
    before = {name: (folder / name / "games.jsonl").read_text().splitlines() for name in names}
    leaderboard.pack(board, tmp_path)
    assert sorted(p.name for p in folder.iterdir()) == sorted([GAMES, PAIRS, "ratings.csv"])
    packed = packed_pairs(folder)
    assert {name: lines for name, (_, lines) in packed.items()} == before
    # each pair keeps the machine its games were played on (the board's line reads it back)
    machines = [packed_machine(folder, name) for name in names]
    assert all(isinstance(m, str) and "load average" in m and "written" not in m for m in machines)
    assert first["machine"] in machines
    # every reader of games takes the packed file: one record per game, every pair's
    records, errors = read_records(folder / GAMES)
    assert not errors and len(records) == sum(map(len, before.values()))
    assert main(["replay", str(folder / GAMES), "--game-index", "3", "--all"]) == 0
    capsys.readouterr()
    # the same board again: the pairs come back from the pack, no game is played, same result
    how = leaderboard.PairPlay(deals=2, seed=5, out=tmp_path, backend=NoGames(1), progress=False)
    again = leaderboard.run_board(board, ["greedy"], top=2, how=how)
    assert again == first
    packed_bytes = (folder / GAMES).read_bytes()
    leaderboard.pack(board, tmp_path)
    assert (folder / GAMES).read_bytes() == packed_bytes  # the same games give the same bytes


def test_packing_the_same_games_again_keeps_a_file_compressed_another_way(tmp_path):
    board, first = _board(tmp_path)
    leaderboard.pack(board, tmp_path)
    folder = tmp_path / board.slug
    # recompress the games as a committed board's are (other bytes, the same lines), as a user might
    lines = (folder / GAMES).read_bytes()
    with gzip.open(folder / GAMES, "rb") as f:
        data = f.read()
    other = gzip.compress(data, compresslevel=1, mtime=0)
    assert other != lines
    (folder / GAMES).write_bytes(other)
    index = json.loads((folder / PAIRS).read_text())
    index["games_sha256"] = hashlib.sha256(other).hexdigest()
    (folder / PAIRS).write_text(json.dumps(index, indent=1) + "\n")
    how = leaderboard.PairPlay(deals=2, seed=5, out=tmp_path, backend=NoGames(1), progress=False)
    assert leaderboard.run_board(board, ["greedy"], top=2, how=how) == first
    leaderboard.pack(board, tmp_path)
    assert (folder / GAMES).read_bytes() == other  # kept, not rewritten with gzip's default
    assert json.loads((folder / PAIRS).read_text())["games_sha256"] == index["games_sha256"]
    # new games do replace it
    _board(tmp_path, deals=3)
    leaderboard.pack(board, tmp_path)
    assert (folder / GAMES).read_bytes() != other
    assert sum(len(v) for _, v in packed_pairs(folder).values()) == len(data.splitlines()) * 3 // 2


def test_an_agent_taken_off_a_board_takes_its_packed_games_with_it(tmp_path):
    board, first = _board(tmp_path)
    leaderboard.pack(board, tmp_path)
    folder = tmp_path / board.slug
    old = {name: lines for name, (_, lines) in packed_pairs(folder).items()}
    assert any(name.startswith("random--") for name in old)
    # the file's board without `random`: its other pairs come back from the pack, none is played
    fewer = leaderboard.make_board("zwicker", "classic", 2, {}, AGENTS[1:])
    how = leaderboard.PairPlay(deals=2, seed=5, out=tmp_path, backend=NoGames(1), progress=False)
    again = leaderboard.run_board(fewer, ["greedy"], top=2, how=how)
    assert again is not None and {(p["a"], p["b"]) for p in again["pairs"]} == {("joker:policy=early", "greedy")}
    mine = next(p for p in first["pairs"] if (p["a"], p["b"]) == ("joker:policy=early", "greedy"))
    assert again["pairs"] == [mine]  # the same games, the same numbers
    leaderboard.pack(fewer, tmp_path)
    new = {name: lines for name, (_, lines) in packed_pairs(folder).items()}
    assert new == {name: lines for name, lines in old.items() if not name.startswith("random--")}
    assert sorted(p.name for p in folder.iterdir()) == sorted([GAMES, PAIRS, "ratings.csv"])
    assert leaderboard.board_pairs(fewer) >= set(new) and not leaderboard.board_pairs(fewer) >= set(old)


def test_a_packed_board_is_extended_with_more_deals_and_keeps_its_games(tmp_path):
    board, _ = _board(tmp_path, deals=2)
    leaderboard.pack(board, tmp_path)
    folder = tmp_path / board.slug
    old = {name: lines for name, (_, lines) in packed_pairs(folder).items()}
    _, more = _board(tmp_path, deals=3)
    assert more is not None and all(p["deals"] == 3 for p in more["pairs"])
    leaderboard.pack(board, tmp_path)
    new = {name: lines for name, (_, lines) in packed_pairs(folder).items()}
    for name, lines in old.items():
        assert new[name][: len(lines)] == lines and len(new[name]) == len(lines) * 3 // 2


def test_the_two_files_must_belong_together(tmp_path):
    board, _ = _board(tmp_path)
    leaderboard.pack(board, tmp_path)
    folder = tmp_path / board.slug
    kept = (folder / GAMES).read_bytes()
    lines = _lines(folder / GAMES)
    with gzip.open(folder / GAMES, "wt") as f:
        f.write("\n".join(lines[:-1]) + "\n")  # a game lost: the file no longer matches the index
    with pytest.raises(ValueError, match="is not the games file .* lists") as error:
        _board(tmp_path)
    assert "\n" not in str(error.value)
    (folder / GAMES).write_bytes(kept)
    index = json.loads((folder / PAIRS).read_text())
    first = next(iter(index["pairs"]))
    index["pairs"][first]["games"] -= 1
    (folder / PAIRS).write_text(json.dumps(index))
    with pytest.raises(ValueError, match="lists .* games but"):
        packed_pairs(folder)


def test_packing_keeps_files_that_are_not_the_tournaments(tmp_path):
    board, _ = _board(tmp_path)
    folder = tmp_path / board.slug
    name = pair_folders(folder)[0]
    (folder / name / "games.rejected.jsonl").write_text('{"cut": \n')
    pack_board(folder, pair_folders(folder))
    assert [p.name for p in (folder / name).iterdir()] == ["games.rejected.jsonl"]
    assert name in packed_pairs(folder)


def test_the_file_says_whether_to_pack():
    from zwick_ai.eval.experiment_files import parse_leaderboard

    base = {"agents": ["greedy"], "deals": 2, "board": [{"game": "zwicken"}]}
    assert parse_leaderboard(base, "x").pack is False
    assert parse_leaderboard({**base, "pack": True}, "x").pack is True
    with pytest.raises(ValueError, match="pack must be true or false"):
        parse_leaderboard({**base, "pack": "yes"}, "x")


def test_every_committed_packed_board_reads():
    """The committed leaderboard and ladder boards: each games file is the one its index lists and
    holds every pair's games (a recompressed games file needs its new sha256 in pairs.json)."""
    results = Path(__file__).parents[2] / "experiments" / "results"
    boards = sorted(p.parent for p in results.glob("*/*/pairs.json"))
    assert boards
    for board in boards:
        assert packed_pairs(board), board
