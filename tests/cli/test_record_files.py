"""Record files under hostile conditions: a file that is not ours is never added to, a torn last
line is set aside before the next record, a write that a full disk cuts short keeps nothing and is
never reported as done, and a run repeated into the same file adds no deal twice."""

from __future__ import annotations

import errno
import io
import json
import os

import pytest

from zwick_ai.cli import main
from zwick_ai.files import JsonlAppender, replacing

PLAY = ["play", "--variant", "classic", "--players", "2", "--agents", "greedy", "--seed", "1"]
SELFPLAY = ["selfplay", "--variant", "classic", "--players", "2", "--games", "4", "--policies", "greedy", "--quiet"]


def _one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2, argv
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip() and "compiling the numba" not in line]
    assert len(err) == 1 and "Traceback" not in err[0], err
    return err[0]


@pytest.mark.parametrize("content", [b"my notes\nsecond line\n", bytes(range(256)) * 4, b"[1, 2]\n"])
def test_a_file_that_is_not_jsonl_of_records_is_never_added_to(tmp_path, capsys, content):
    path = tmp_path / "notes.txt"
    path.write_bytes(content)
    for argv in ([*PLAY, "--record", str(path)], [*SELFPLAY, "--records", str(path)]):
        err = _one_line_error(capsys, argv)
        assert str(path) in err and ("not a JSONL file" in err or "binary" in err)
        assert path.read_bytes() == content


def test_a_torn_last_line_is_set_aside_and_the_next_record_starts_its_own_line(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    assert main([*SELFPLAY, "--records", str(path)]) == 0
    whole = path.read_text()
    path.write_text(whole[:-40])  # the last record cut short, as by an interrupted write
    torn = whole.splitlines()[-1][:-39]
    assert main([*SELFPLAY, "--records", str(path)]) == 0  # the cut hand is recorded again
    lines = path.read_text().splitlines()
    assert [json.loads(line)["deal_seed"] for line in lines] == [json.loads(x)["deal_seed"] for x in whole.splitlines()]
    assert (tmp_path / "r.rejected.jsonl").read_text() == torn + "\n"
    assert "cut short" in capsys.readouterr().err


def test_the_same_selfplay_records_twice_add_no_deal_twice(tmp_path, capsys):
    path = tmp_path / "r.jsonl"
    assert main([*SELFPLAY, "--records", str(path)]) == 0
    first = path.read_text()
    assert main([*SELFPLAY, "--records", str(path)]) == 0
    assert path.read_text() == first
    assert "added 0 game records" in capsys.readouterr().out
    assert main([*SELFPLAY, "--games", "6", "--records", str(path)]) == 0  # two more hands: only those added
    assert path.read_text().startswith(first) and len(path.read_text().splitlines()) == 6


def _full_disk(monkeypatch, after: int = 0) -> None:
    """``os.write`` as on a full disk: ``after`` bytes are written, then ENOSPC."""
    real = os.write

    def write(fd: int, data: bytes) -> int:
        if len(data) > after:
            if after:
                real(fd, data[:after])
                return after
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(fd, data)

    monkeypatch.setattr(os, "write", write)


@pytest.mark.parametrize("after", [0, 100])
def test_play_on_a_full_disk_keeps_nothing_and_never_says_added(tmp_path, capsys, monkeypatch, after):
    path = tmp_path / "keep.jsonl"
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 100))
    assert main([*PLAY, "--record", str(path)]) == 0
    before = path.read_bytes()
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 100))
    _full_disk(monkeypatch, after)
    assert main([*PLAY, "--record", str(path)]) == 2
    out, err = capsys.readouterr()
    assert "game added" not in out and "No space left on device" in err and str(path) in err
    monkeypatch.undo()
    assert path.read_bytes() == before  # the cut write was undone: no partial line
    monkeypatch.setattr("sys.stdin", io.StringIO("1\n" * 100))
    assert main([*PLAY, "--record", str(path)]) == 0  # space again: the next game is a whole line
    assert all(json.loads(line) for line in path.read_text().splitlines()) and len(path.read_text().splitlines()) == 2


def test_a_failed_whole_file_write_leaves_no_temporary_file(tmp_path):
    target = tmp_path / "summary.json"
    with pytest.raises(OSError), replacing(target) as tmp:
        tmp.write_text("half")
        raise OSError(errno.ENOSPC, "No space left on device")
    assert list(tmp_path.iterdir()) == []


def test_the_appender_writes_each_record_as_one_line(tmp_path):
    path = tmp_path / "r.jsonl"
    with JsonlAppender(path) as out:
        out.write({"a": 1})
        out.write('{"b":2}')
        with pytest.raises(ValueError):
            out.write('{"c":\n3}')
    assert path.read_text() == '{"a":1}\n{"b":2}\n'


def test_an_analysis_whose_only_line_was_cut_short_starts_again(tmp_path, capsys):
    games = tmp_path / "r.jsonl"
    assert main([*SELFPLAY, "--games", "1", "--records", str(games)]) == 0
    argv = ["analyze", str(games), "--game-index", "0", "--seat", "0", "--agent", "ismcts:iters=20", "--quiet"]
    out = tmp_path / "an"
    assert main([*argv, "--out", str(out)]) == 0
    whole = json.loads((out / "analysis.json").read_text())
    again = tmp_path / "again"
    again.mkdir()
    (again / ".zwick-folder").write_text(json.dumps({"made_by": "zwick analyze"}))
    head = (out / "decisions.jsonl").read_text().splitlines()[0]
    (again / "decisions.jsonl").write_text(head[:-40])  # the identity line cut short
    assert main([*argv, "--out", str(again)]) == 0
    assert json.loads((again / "analysis.json").read_text())["decisions"] == whole["decisions"]
    assert (again / "decisions.rejected.jsonl").read_text() == head[:-40] + "\n"
