"""A finished leaderboard board kept in two files instead of one folder per pair.

A board of the leaderboard plays each pair as an ordinary tournament in its own folder
(``BOARD/<a>--<b>/``: ``config.json``, ``games.jsonl``, ``summary.json``). A board with dozens of
agents makes hundreds of such files; packed (:func:`pack_board`), the board keeps:

* ``BOARD/games.jsonl.gz``: every pair's games, pair after pair, in the order of ``pairs.json``;
  ordinary game records, which every reader of games takes as they are (``zwick replay``,
  ``zwick analyze``, :func:`zwick_ai.eval.records.read_records`);
* ``BOARD/pairs.json``: for each pair folder's name its ``config.json``, how many lines of the
  games file are its games and the machine its games were played on (its ``summary.json``'s
  ``machine``), and the games file's sha256 (a games file that does not match is
  refused in one line, never read as another pair's games).

A packed pair is played on, reported or extended as before: :func:`restore_pair` first writes its
folder back from the two files (the run then resumes it as any tournament folder), and the next
:func:`pack_board` packs it again. A pair folder always wins over the packed copy of the same pair
(it is the newer). Packing removes only what a tournament writes in a pair folder, after both
files are in place; anything else there (``games.rejected.jsonl``, a user's notes) stays.

>>> import tempfile
>>> board = Path(tempfile.mkdtemp())
>>> pair = board / "random--greedy"
>>> pair.mkdir()
>>> _ = (pair / "config.json").write_text('{"identity": {"deals": 1}}')
>>> _ = (pair / "games.jsonl").write_text('{"deal": 0, "seating": 0}\\n{"deal": 0, "seating": 1}\\n')
>>> pack_board(board, ["random--greedy"])
>>> sorted(p.name for p in board.iterdir())
['games.jsonl.gz', 'pairs.json']
>>> restore_pair(board, "random--greedy", pair)
True
>>> (pair / "games.jsonl").read_text().count("deal")
2
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import os
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from zwick_ai.deferred_signals import deferred_signals
from zwick_ai.eval.folder_lock import MARK_NAME, hold_folder, mark_folder
from zwick_ai.eval.tournament.report import REWRITTEN
from zwick_ai.files import read_json

__all__ = ["GAMES", "PAIRS", "pack_board", "packed_machine", "packed_pairs", "pair_folders", "restore_pair"]

#: the packed board's games, every pair's records (gzip, one JSON record a line)
GAMES = "games.jsonl.gz"
#: the packed board's index: ``{"games_sha256": ..., "pairs": {folder name: {"config": ..., "games": n}}}``
PAIRS = "pairs.json"
#: the files a tournament writes in a pair folder, removed once the pair is packed
PAIR_FILES = (
    "config.json",
    "games.jsonl",
    "games.jsonl.gz",
    "summary.json",
    "summary.csv",
    "ratings.csv",
    "report.md",
    "ratings.png",
    "pairs.png",
    MARK_NAME,
)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def packed_pairs(board: str | Path) -> dict[str, tuple[dict[str, Any], list[str]]]:
    """The packed pairs of ``board``: folder name -> (its ``config.json``, its game lines); empty
    when the board is not packed. ``ValueError`` naming the file when the two files do not belong
    together or cannot be read."""
    folder = Path(board)
    index_path, games_path = folder / PAIRS, folder / GAMES
    if not index_path.is_file():
        return {}
    index = read_json(index_path)
    pairs = index.get("pairs") if isinstance(index, dict) else None
    if not isinstance(pairs, dict) or not games_path.is_file():
        raise ValueError(f"{index_path} is not a packed board's index (or {GAMES} is missing); move it away")
    if _sha256(games_path) != index.get("games_sha256"):
        raise ValueError(f"{games_path} is not the games file {index_path} lists (another sha256); move one away")
    try:
        with gzip.open(games_path, "rt", encoding="utf-8") as f:
            lines = [line for line in f.read().split("\n") if line.strip()]
    except (OSError, EOFError) as error:
        raise ValueError(f"{games_path} is not a readable gzip file ({error}); move it away") from None
    out: dict[str, tuple[dict[str, Any], list[str]]] = {}
    start = 0
    for name, entry in pairs.items():
        count = entry.get("games") if isinstance(entry, dict) else None
        if not isinstance(count, int) or count < 0 or start + count > len(lines):
            raise ValueError(f"{index_path}: the entry of {name!r} does not fit {GAMES}; move both away")
        out[name] = (entry.get("config", {}), lines[start : start + count])
        start += count
    if start != len(lines):
        raise ValueError(f"{index_path} lists {start} games but {GAMES} has {len(lines)}; move both away")
    return out


def packed_machine(board: str | Path, name: str) -> str | None:
    """The machine the packed pair ``name`` of ``board`` played its games on, as its
    ``summary.json`` said when it was packed; None when the pack does not know it."""
    return _packed_machines(Path(board)).get(name)


def _packed_machines(board: Path) -> dict[str, str]:
    """Every packed pair's machine of play that ``board``'s index knows, read once."""
    index_path = board / PAIRS
    pairs = read_json(index_path).get("pairs") if index_path.is_file() else None
    if not isinstance(pairs, dict):
        return {}
    found = {name: entry.get("machine") for name, entry in pairs.items() if isinstance(entry, dict)}
    return {name: m for name, m in found.items() if isinstance(m, str)}


def _played_machine(folder: Path, before: str | None) -> str | None:
    """A pair folder's machine of play: its ``summary.json``'s, unless that summary was only
    written again from games played earlier (then ``before``, the packed one)."""
    try:
        machine = json.loads((folder / "summary.json").read_text()).get("machine")
    except (OSError, ValueError, AttributeError):
        machine = None
    if not isinstance(machine, str) or machine.startswith(REWRITTEN):
        return before
    return machine


def restore_pair(board: str | Path, name: str, folder: str | Path) -> bool:
    """Write the pair folder ``folder`` (``config.json``, ``games.jsonl`` and the mark of a
    tournament's folder) from ``board``'s packed copy of pair ``name``; True when it did. A folder
    that exists already is left as it is."""
    from zwick_ai.eval.tournament.folder import COMMAND  # (imports the game engines)

    target = Path(folder)
    if target.exists():
        return False
    packed = packed_pairs(board).get(name)
    if packed is None:
        return False
    config, lines = packed
    target.mkdir(parents=True)
    (target / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    (target / "games.jsonl").write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    mark_folder(target, COMMAND)  # the tool wrote it: the pair's tournament resumes it
    return True


def _folder_pair(folder: Path) -> tuple[dict[str, Any], list[str]] | None:
    """A pair folder's config and game lines (the plain file, else its ``.gz``), or None."""
    config_path = folder / "config.json"
    if not config_path.is_file():
        return None
    plain, packed = folder / "games.jsonl", folder / "games.jsonl.gz"
    text = ""
    if plain.is_file():
        text = plain.read_text(encoding="utf-8")
    elif packed.is_file():
        try:
            with gzip.open(packed, "rt", encoding="utf-8") as f:
                text = f.read()
        except (OSError, EOFError) as error:
            raise ValueError(f"{packed} is not a readable gzip file ({error}); move it away") from None
    return read_json(config_path), [line for line in text.split("\n") if line.strip()]


def _holds(path: Path, data: bytes) -> bool:
    """Whether the gzip file ``path`` exists and holds exactly ``data``: packing the same games
    again keeps that file's bytes, however it was compressed (a committed board's games may be
    compressed harder than gzip's default), so a rerun leaves a committed board unchanged."""
    if not path.is_file():
        return False
    try:
        with gzip.open(path, "rb") as f:
            return f.read() == data
    except (OSError, EOFError):
        return False


def pair_folders(board: str | Path) -> list[str]:
    """The names of ``board``'s pair folders (those with a ``config.json``), sorted."""
    folder = Path(board)
    return sorted(p.name for p in folder.iterdir() if (p / "config.json").is_file()) if folder.is_dir() else []


def pack_board(board: str | Path, names: Sequence[str], only: Collection[str] | None = None) -> None:
    """Pack the pair folders ``names`` of ``board`` (with the pairs packed there before that have
    no folder) into :data:`GAMES` and :data:`PAIRS`, then remove what the tournaments wrote in
    those folders (module docstring). Holds the board's and the pairs' folder locks meanwhile: a
    pair another run is playing is refused in one line.

    ``only``: when given, only the pairs it names are packed or stay packed; the others' packed
    games leave the two files (an agent taken off a board takes its games with it), and their
    folders, if any, are left as they are."""
    folder = Path(board)
    with contextlib.ExitStack() as held:
        held.enter_context(hold_folder(folder))
        pairs = packed_pairs(folder)
        if only is not None:
            pairs = {name: pair for name, pair in pairs.items() if name in only}
        machines: dict[str, str | None] = dict(_packed_machines(folder))
        packed_now: list[Path] = []
        for name in names:
            if not (folder / name / "config.json").is_file() or (only is not None and name not in only):
                continue
            held.enter_context(hold_folder(folder / name))
            found = _folder_pair(folder / name)
            if found is not None:
                pairs[name] = found
                machines[name] = _played_machine(folder / name, machines.get(name))
                packed_now.append(folder / name)
        index: dict[str, dict[str, Any]] = {}
        for name, (config, lines) in pairs.items():
            index[name] = {"config": config, "games": len(lines)}
            if machines.get(name) is not None:
                index[name]["machine"] = machines[name]
        games_tmp, index_tmp = folder / (GAMES + ".tmp"), folder / (PAIRS + ".tmp")
        data = "".join(line + "\n" for _, lines in pairs.values() for line in lines).encode()
        keep = _holds(folder / GAMES, data)
        try:
            if not keep:
                with gzip.GzipFile(games_tmp, "wb", mtime=0) as f:  # mtime 0: the same games, the same bytes
                    f.write(data)
            sha = _sha256(folder / GAMES if keep else games_tmp)
            index_tmp.write_text(json.dumps({"games_sha256": sha, "pairs": index}, indent=1) + "\n")
            with deferred_signals():  # both files or neither: a stop signal waits for the two renames
                if not keep:
                    os.replace(games_tmp, folder / GAMES)
                os.replace(index_tmp, folder / PAIRS)
        finally:
            games_tmp.unlink(missing_ok=True)
            index_tmp.unlink(missing_ok=True)
        for pair in packed_now:
            for file in PAIR_FILES:
                (pair / file).unlink(missing_ok=True)
    for pair in packed_now:  # the locks are released: remove the folders that hold nothing else
        if not any(pair.iterdir()):
            pair.rmdir()
