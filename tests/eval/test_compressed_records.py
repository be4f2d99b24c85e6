"""Game records stored compressed (``games.jsonl.gz``): read as the plain file is, by the records
reader, ``zwick replay`` and ``zwick analyze``; a tournament or a strong-play joker study resumed
from a folder that holds only the ``.gz`` extends it without replaying a game."""

import gzip
import json
import shutil
from pathlib import Path

import pytest

from zwick_ai.analysis.joker import strong_play
from zwick_ai.cli import main
from zwick_ai.eval import tournament
from zwick_ai.eval.records import compressed, read_records, unpack

PARAMS = {"variant": "classic", "players": 2}


def tiny(deals: int) -> tournament.Tournament:
    return tournament.Tournament(["greedy", "random"], game="zwicker", params=PARAMS, deals=deals, seed=3)


def pack(path: Path) -> Path:
    """Store ``path`` as ``path.gz`` the way results are committed (``gzip games.jsonl``)."""
    packed = compressed(path)
    with open(path, "rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)
    path.unlink()
    return packed


@pytest.fixture(scope="module")
def played(tmp_path_factory) -> tuple[Path, bytes]:
    """A finished two-deal tournament folder and its games.jsonl as written."""
    out = tmp_path_factory.mktemp("packed") / "t"
    tournament.run_tournament(tiny(2), out, progress=False)
    return out, (out / "games.jsonl").read_bytes()


def test_a_compressed_file_reads_as_the_plain_one(played, tmp_path):
    out, text = played
    plain = tmp_path / "games.jsonl"
    plain.write_bytes(text)
    records, errors = read_records(plain)
    packed = pack(plain)
    assert read_records(packed) == (records, errors) and len(records) == 4 and errors == []
    assert read_records(plain) == (records, errors)  # the plain name falls back to its .gz twin
    # a truncated .gz: the records before the damage, and one error saying where it stops
    data = packed.read_bytes()
    packed.write_bytes(data[: len(data) // 2])
    some, damage = read_records(packed)
    assert len(some) < 4 and some == records[: len(some)]
    assert len(damage) == 1 and "cannot be read from here on" in str(damage[0])


def test_unpack_writes_the_plain_file_once_and_keeps_the_gz(played, tmp_path):
    _, text = played
    plain = tmp_path / "games.jsonl"
    plain.write_bytes(text)
    packed = pack(plain)
    stored = packed.read_bytes()
    assert unpack(plain) and plain.read_bytes() == text and packed.read_bytes() == stored
    plain.write_bytes(text + b"{}\n")  # the plain file is the record from now on
    assert not unpack(plain) and plain.read_bytes() == text + b"{}\n"
    plain.unlink()
    packed.write_bytes(b"not gzip")
    with pytest.raises(ValueError, match="not a readable gzip file"):
        unpack(plain)
    assert not plain.exists() and not list(tmp_path.glob("*.unpacking"))


def test_a_tournament_resumes_and_extends_a_folder_of_gz_games(played, tmp_path, capsys):
    out, text = played
    folder = tmp_path / "stored"
    folder.mkdir()
    for name in ("config.json", ".zwick-folder"):
        (folder / name).write_bytes((out / name).read_bytes())
    (folder / "games.jsonl").write_bytes(text)
    packed = pack(folder / "games.jsonl")
    stored = packed.read_bytes()
    summary = tournament.run_tournament(tiny(3), folder, progress=False)
    assert "games.jsonl.gz: its games copied to games.jsonl" in capsys.readouterr().err
    games = (folder / "games.jsonl").read_bytes()
    assert games.startswith(text) and len(games.splitlines()) == 6  # the 4 stored games kept, 2 added
    assert packed.read_bytes() == stored  # the stored file untouched
    fresh = tournament.run_tournament(tiny(3), tmp_path / "fresh", progress=False)

    def stable(s: dict) -> dict:
        return {k: v for k, v in s.items() if k not in ("timing", "machine")}

    assert stable(summary) == stable(fresh)
    # a folder holding games but no config is refused, compressed or not
    bare = tmp_path / "bare"
    bare.mkdir()
    (bare / "games.jsonl.gz").write_bytes(stored)
    with pytest.raises(ValueError, match=r"holds files that zwick did not write \(games.jsonl.gz\)"):
        tournament.run_tournament(tiny(2), bare, progress=False)
    assert sorted(p.name for p in bare.iterdir()) == ["games.jsonl.gz"]  # nothing changed


def test_replay_and_analyze_read_a_gz_file(played, tmp_path, capsys):
    _, text = played
    plain = tmp_path / "games.jsonl"
    plain.write_bytes(text)
    packed = pack(plain)
    assert main(["replay", str(packed), "--list"]) == 0
    listed = capsys.readouterr().out.splitlines()
    assert len(listed) == 4 and listed[0].startswith("0: zwicker deal")
    assert main(["replay", str(packed), "--game-index", "1", "--all"]) == 0
    assert "seats: random, greedy" in capsys.readouterr().out
    out = tmp_path / "analysis"
    argv = ["analyze", str(packed), "--game-index", "0", "--seat", "0", "--agent", "rollouts:worlds=4"]
    assert main([*argv, "--out", str(out)]) == 0
    decisions = json.loads((out / "analysis.json").read_text())["decisions"]
    assert decisions and all(d["seat"] == 0 for d in decisions)
    capsys.readouterr()


def test_a_strong_play_run_resumes_from_its_gz_lines(tmp_path, monkeypatch):
    monkeypatch.setattr(strong_play, "NET_BLOCK", 2)
    cfg = strong_play.StrongConfig("dithmarschen", agent="net", deals=2, cv_samples=2)
    path, lines = strong_play.run_strong(cfg, tmp_path)
    first = path.read_bytes()
    pack(path)
    cfg.deals = 3
    again, more = strong_play.run_strong(cfg, tmp_path)
    assert again == path and sorted(more) == [0, 1, 2]
    assert path.read_bytes().startswith(first) and all(more[d] == lines[d] for d in lines)
