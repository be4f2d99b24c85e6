"""Game records: one JSON object per line (JSONL) per deal, shared by tournaments, self-play,
``zwick play`` and ``zwick replay``.

A line is :meth:`zwick_ai.eval.match.GameRecord.as_dict` (format ``version`` 1):

=============  =================================================================================
key            meaning
=============  =================================================================================
version        format version (1)
game           the OpenSpiel game string, e.g. ``zwicker(...,variant=dithmarschen,...)``
deal_seed      the deal's seed (``eval.match.deal``; self-play: the compiled hand's seed)
seats          the agent spec at each seat (``human`` for a person)
moves          one ``[seat, label, [actions]]`` per whole decision (Zwicker: a whole move's
               sub-actions, labelled ``str(Move)``; trick games: one action)
returns        OpenSpiel returns per seat
points         Zwicker: points per side; otherwise ``null``
seconds        thinking time per seat, wall clock (may be empty)
cpu_seconds    thinking time per seat, CPU time of the deciding thread (may be absent: older
               records)
chance         every chance action in order; empty means "deal from ``deal_seed``" as
               :func:`zwick_ai.eval.match.play_game` does
=============  =================================================================================

Writers may add keys of their own (tournaments add ``agents``, ``deal``, ``seating`` and
``agent_seeds``); readers ignore them. A file may be stored gzip-compressed (``games.jsonl.gz``):
:func:`read_records` reads it, and :func:`unpack` gives a run that appends the plain file again. Reading reports each damaged line (line number, what is
wrong) and goes on with the next; :func:`replay` re-applies a record's actions on the real game
and says where it stops replaying.

>>> import io, pyspiel, zwick_ai.games, zwick_ai.agents
>>> from zwick_ai.agents import make_agent
>>> from zwick_ai.eval.match import play_game
>>> game = pyspiel.load_game("zwikken")
>>> rec = play_game(game, [make_agent("random", game, seed=s) for s in range(3)], deal_seed=4)
>>> f = io.StringIO(record_line(rec) + "\\n{oops\\n")
>>> records, errors = parse_lines(f)
>>> records[0] == rec, [str(e) for e in errors]
(True, ['line 2: not JSON (Expecting property name enclosed in double quotes: line 1 column 2 (char 1))'])
>>> steps = replay(records[0])
>>> len(steps) == len(rec.moves) + 1 and steps[-1].state.returns() == rec.returns
True
"""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import pyspiel

from zwick_ai.eval.match import RECORD_VERSION, GameRecord, chance_action, deal
from zwick_ai.files import JsonlAppender, check_jsonl, replacing
from zwick_ai.games.decisions import apply_decision, decision_label
from zwick_ai.zwicker.rules import Rules, format_jokers

__all__ = [
    "RECORD_VERSION",
    "GameRecord",
    "RecordError",
    "ReplayStep",
    "compressed",
    "open_text",
    "parse_lines",
    "read_records",
    "record_from_dict",
    "record_game",
    "read_record_keys",
    "record_key",
    "record_line",
    "replay",
    "unpack",
    "write_records",
    "zwicker_game",
]


# ------------------------------------------------------------------------------------------------
# Writing
# ------------------------------------------------------------------------------------------------
def record_line(rec: GameRecord) -> str:
    """The record as one JSON line (no newline)."""
    return json.dumps(rec.as_dict(), separators=(",", ":"))


def write_records(
    path: str | Path, records: Iterable[GameRecord], append: bool = False, what: str = "", skip_known: bool = False
) -> int:
    """Write ``records`` to ``path`` one whole line each as they come (a long run keeps what it
    finished; :class:`zwick_ai.files.JsonlAppender`: a file that is not JSONL of records is
    refused, a torn last line is set aside, a failed write raises ``OSError`` and keeps nothing of
    its record). ``append`` adds to an existing file, otherwise the file is written anew.
    ``skip_known`` leaves out records whose game, deal seed and seats are in the file already (a
    run repeated into the same file adds no deal twice). ``what`` names the file in messages
    (``--record``). Returns how many were written."""
    p = Path(path)
    if not append:
        check_jsonl(p, what)
        with replacing(p) as tmp:
            tmp.write_bytes(b"")
    known = read_record_keys(p) if skip_known else set()
    with JsonlAppender(p, what) as out:
        for rec in records:
            if skip_known and record_key(rec) in known:
                continue
            out.write(record_line(rec))
        return out.written


def record_key(rec: GameRecord) -> tuple[str, int, tuple[str, ...]]:
    """What makes two records the same deal played by the same seats."""
    return rec.game, rec.deal_seed, tuple(rec.seats)


def read_record_keys(path: str | Path) -> set[tuple[str, int, tuple[str, ...]]]:
    """The :func:`record_key` of every readable record of ``path`` (none if it is absent)."""
    path = Path(path)
    if not path.is_file():
        return set()
    check_jsonl(path)
    with open_text(path) as f:
        records, _ = parse_lines(f)
    return {record_key(r) for r in records}


# ------------------------------------------------------------------------------------------------
# Reading
# ------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class RecordError:
    """A damaged line: its number (from 1) and what is wrong with it."""

    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}"


def _is_int(x: object) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def _is_num(x: object) -> bool:
    return (_is_int(x) or isinstance(x, float)) and math.isfinite(x)  # type: ignore[arg-type]


def _is_move(m: Any, seats: int) -> bool:
    """Whether ``m`` is a move as a record stores it: ``[seat in 0..seats-1, label, [actions >= 0]]``."""
    if not isinstance(m, list) or len(m) != 3:
        return False
    seat, label, actions = m
    return (
        _is_int(seat)
        and 0 <= seat < seats
        and isinstance(label, str)
        and isinstance(actions, list)
        and len(actions) > 0
        and all(_is_int(a) and a >= 0 for a in actions)
    )


def record_from_dict(obj: object) -> GameRecord:
    """A :class:`GameRecord` from a parsed line, checking every field; ``ValueError`` says what
    is wrong. Other keys (a tournament's ``agents``, ``deal``, ``seating``...) are ignored."""
    if not isinstance(obj, dict):
        raise ValueError(f"a record is a JSON object, not {type(obj).__name__}")
    version = obj.get("version", RECORD_VERSION)
    if not _is_int(version) or version != RECORD_VERSION:
        raise ValueError(f"format version {version!r} is not supported (this reader knows {RECORD_VERSION})")
    for key in ("game", "deal_seed", "seats", "moves", "returns"):
        if key not in obj:
            raise ValueError(f"missing key {key!r}")
    game, seed, seats, moves = obj["game"], obj["deal_seed"], obj["seats"], obj["moves"]
    if not isinstance(game, str) or not game:
        raise ValueError("game must be an OpenSpiel game string such as 'zwikken(players=3)'")
    if not _is_int(seed) or seed < 0:
        raise ValueError(f"deal_seed must be a whole number >= 0, not {seed!r}")
    if not isinstance(seats, list) or not seats or not all(isinstance(s, str) for s in seats):
        raise ValueError("seats must be a non-empty list of agent specs (strings)")
    if not isinstance(moves, list):
        raise ValueError("moves must be a list of [seat, label, [actions]]")
    for i, m in enumerate(moves):
        if not _is_move(m, len(seats)):
            raise ValueError(f"move {i + 1} is not [seat in 0..{len(seats) - 1}, label, [actions >= 0]]: {m!r}")
    returns = obj["returns"]
    if not isinstance(returns, list) or len(returns) != len(seats) or not all(_is_num(x) for x in returns):
        raise ValueError(f"returns must be {len(seats)} numbers, one per seat")
    points = obj.get("points")
    if points is not None and (not isinstance(points, list) or not all(_is_int(x) for x in points)):
        raise ValueError("points must be null or whole numbers, one per side")
    seconds = obj.get("seconds", [])
    if not isinstance(seconds, list) or not all(_is_num(x) for x in seconds):
        raise ValueError("seconds must be a list of numbers")
    cpu_seconds = obj.get("cpu_seconds", [])
    if not isinstance(cpu_seconds, list) or not all(_is_num(x) for x in cpu_seconds):
        raise ValueError("cpu_seconds must be a list of numbers")
    chance = obj.get("chance", [])
    if not isinstance(chance, list) or not all(_is_int(a) and a >= 0 for a in chance):
        raise ValueError("chance must be a list of chance actions (whole numbers >= 0)")
    return GameRecord(
        deal_seed=seed,
        seats=list(seats),
        moves=[[seat, label, list(actions)] for seat, label, actions in moves],
        returns=[float(x) for x in returns],
        points=None if points is None else list(points),
        seconds=[float(x) for x in seconds],
        game=game,
        chance=list(chance),
        version=RECORD_VERSION,
        cpu_seconds=[float(x) for x in cpu_seconds],
    )


#: the longest line a records file may hold (a long Zwicker game's record is some 30,000 characters)
MAX_LINE = 10_000_000


def parse_lines(lines: Iterable[str]) -> tuple[list[GameRecord], list[RecordError]]:
    """Parse JSONL text: the good records, and one :class:`RecordError` per damaged line (blank
    lines are skipped)."""
    records: list[GameRecord] = []
    errors: list[RecordError] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        if len(line.rstrip("\n")) > MAX_LINE:
            errors.append(RecordError(number, f"longer than a record can be ({MAX_LINE} characters)"))
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as e:
            errors.append(RecordError(number, f"not JSON ({e})"))
            continue
        except RecursionError:
            errors.append(RecordError(number, "nested too deeply to be a record"))
            continue
        try:
            records.append(record_from_dict(obj))
        except ValueError as e:
            errors.append(RecordError(number, str(e)))
    return records, errors


#: the suffix of a gzip-compressed records file (``games.jsonl.gz``)
GZIP = ".gz"


def compressed(path: str | Path) -> Path:
    """The compressed twin of a plain records file: ``games.jsonl`` -> ``games.jsonl.gz``."""
    p = Path(path)
    return p.with_name(p.name + GZIP)


def open_text(path: str | Path) -> IO[str]:
    """A records file opened to read text, decompressed on the fly when its name ends in ``.gz``."""
    p = Path(path)
    if p.name.endswith(GZIP):
        return gzip.open(p, "rt", encoding="utf-8", errors="replace")
    return open(p, encoding="utf-8", errors="replace")


def unpack(path: str | Path) -> bool:
    """Before a run appends to the plain file ``path``: when only its compressed twin exists
    (``games.jsonl.gz``, as results are stored), write ``path`` from it, keeping the ``.gz``.
    Returns True when it did. A damaged ``.gz`` raises ``ValueError`` and writes nothing."""
    p = Path(path)
    packed = compressed(p)
    if p.exists() or not packed.is_file():
        return False
    tmp = p.with_name(p.name + ".unpacking")
    try:
        with gzip.open(packed, "rb") as src, open(tmp, "wb") as dst:
            shutil.copyfileobj(src, dst)
    except (OSError, EOFError) as e:
        tmp.unlink(missing_ok=True)
        raise ValueError(f"{packed} is not a readable gzip file ({e}); move it away or repair it") from None
    os.replace(tmp, p)
    return True


def _skip_to_next_line(lines: IO[str]) -> None:
    """Read past the rest of the current line, :data:`MAX_LINE` characters at a time."""
    rest = lines.readline(MAX_LINE)
    while rest and not rest.endswith("\n"):
        rest = lines.readline(MAX_LINE)


def _until_unreadable(lines: IO[str], damage: list[RecordError]) -> Iterator[str]:
    """The lines of a text file up to where it cannot be read any more (a truncated or corrupt
    gzip stream); that place goes to ``damage``. A line longer than :data:`MAX_LINE` is never held
    whole: its first part stands for it (and is refused), the rest is skipped."""
    number = 0
    try:
        while line := lines.readline(MAX_LINE + 1):
            number += 1
            if len(line) > MAX_LINE and not line.endswith("\n"):
                _skip_to_next_line(lines)
            yield line
    except (OSError, EOFError) as e:
        damage.append(RecordError(number + 1, f"the file cannot be read from here on ({e})"))


def read_records(path: str | Path) -> tuple[list[GameRecord], list[RecordError]]:
    """The records of a JSONL file (plain, or gzip-compressed when named ``*.gz``) and the errors
    of its damaged lines (see :func:`parse_lines`). A plain name that is missing falls back to its
    ``.gz`` twin, so ``games.jsonl`` reads a stored ``games.jsonl.gz``."""
    p = Path(path)
    if not p.is_file() and compressed(p).is_file():
        p = compressed(p)
    if not p.is_file():
        raise ValueError(f"no such records file: {p}")
    damage: list[RecordError] = []
    with open_text(p) as f:
        records, errors = parse_lines(_until_unreadable(f, damage))
    return records, errors + damage


# ------------------------------------------------------------------------------------------------
# Replaying
# ------------------------------------------------------------------------------------------------
def zwicker_game(rules: Rules) -> pyspiel.Game:
    """The OpenSpiel ``zwicker`` game of engine ``rules`` (variant, players and options), so that
    records of engine-level play name a loadable game string."""
    import zwick_ai.games  # noqa: F401  (registers the games)

    params: dict[str, object] = {"variant": rules.variant, "players": rules.players}
    for name, value in rules.options:
        if name == "forced_capture":
            value = "on" if value else "off"
        elif name == "jokers":
            value = format_jokers(value)  # type: ignore[arg-type]
        elif name == "ranks" and str(value).isdigit():
            value = "_" + str(value)
        params[name] = value
    game = pyspiel.load_game("zwicker", params)
    if game.rules != rules:
        raise ValueError(f"no OpenSpiel zwicker game has the rules {rules.describe()}")
    return game


def record_game(rec: GameRecord) -> pyspiel.Game:
    """The loaded game of a record (``ValueError`` if its game string does not load)."""
    import zwick_ai.games  # noqa: F401  (registers the games)

    try:
        game = pyspiel.load_game(rec.game)
    except (RuntimeError, ValueError, pyspiel.SpielError) as e:
        raise ValueError(f"the record's game {rec.game!r} does not load: {e}") from None
    if game.num_players() != len(rec.seats):
        raise ValueError(f"{rec.game} has {game.num_players()} players but the record {len(rec.seats)} seats")
    return game


@dataclass
class ReplayStep:
    """The position after move ``index`` of a record (``index`` -1: after the deal, no move yet)."""

    index: int
    seat: int
    label: str
    actions: list[int]
    state: pyspiel.State


def _chance_source(game: pyspiel.Game, rec: GameRecord) -> tuple[pyspiel.State, Iterator[int] | None]:
    """The state after the opening chance events and the iterator of later chance actions
    (None: drawn from the deal seed as in ``eval.match``)."""
    if not rec.chance:
        return deal(game, rec.deal_seed), None
    state = game.new_initial_state()
    it = iter(rec.chance)
    _apply_chance(state, it)
    return state, it


def _apply_chance(state: pyspiel.State, it: Iterator[int]) -> None:
    while state.is_chance_node():
        a = next(it, None)
        if a is None:
            raise ValueError("the record's chance actions end before the deal does")
        if a not in [x for x, _ in state.chance_outcomes()]:
            raise ValueError(f"chance action {a} is not a possible outcome here")
        state.apply_action(a)


def replay(rec: GameRecord) -> list[ReplayStep]:
    """Re-apply every recorded decision on the real game, checking seats, legality, the end of
    the game and the recorded returns and points. Returns the position after the deal and after
    each move (labels recomputed from the game); ``ValueError`` says where the record stops
    replaying."""
    game = record_game(rec)
    state, chance = _chance_source(game, rec)
    steps = [ReplayStep(-1, -1, "", [], state.clone())]
    for i, (seat, recorded, actions) in enumerate(rec.moves):
        where = f"move {i + 1}/{len(rec.moves)} (seat {seat}, {recorded!r})"
        if state.is_terminal():
            raise ValueError(f"{where}: the game is already over after {i} moves")
        if state.current_player() != seat:
            raise ValueError(f"{where}: it is seat {state.current_player()}'s turn, not seat {seat}'s")
        try:
            label = decision_label(state, actions)
            apply_decision(state, actions)
        except ValueError as e:
            raise ValueError(f"{where} does not replay: {e}") from None
        if chance is None:
            while state.is_chance_node():
                state.apply_action(chance_action(state, rec.deal_seed))
        else:
            try:
                _apply_chance(state, chance)
            except ValueError as e:
                raise ValueError(f"after {where}: {e}") from None
        steps.append(ReplayStep(i, seat, label, actions, state.clone()))
    if not state.is_terminal():
        raise ValueError(f"the game is not over after the record's {len(rec.moves)} moves")
    if chance is not None and next(chance, None) is not None:
        raise ValueError("the record has more chance actions than the game used")
    got = [float(x) for x in state.returns()]
    if rec.returns and any(abs(a - b) > 1e-9 for a, b in zip(got, rec.returns, strict=True)):
        raise ValueError(f"the replay ends with returns {got}, the record says {rec.returns}")
    if rec.points is not None and hasattr(state, "engine_state"):
        from zwick_ai import zwicker

        points = [int(x) for x in zwicker.score(state.engine_state())]
        if points != rec.points:
            raise ValueError(f"the replay ends with points {points}, the record says {rec.points}")
    return steps
