"""A tournament's output folder: ``config.json`` claimed or checked against the tournament
(:func:`claim_folder`), and the finished games read back from ``games.jsonl``, damaged or foreign
lines moved to ``games.rejected.jsonl`` (:func:`read_games`)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from zwick_ai.agents.base import registered
from zwick_ai.eval.folder_lock import older_version
from zwick_ai.eval.records import compressed
from zwick_ai.eval.tournament.definition import FORMAT, RESOLVED, Tournament, identity_difference
from zwick_ai.eval.tournament.games import check_record, compact, task_key
from zwick_ai.files import replacing, set_aside

#: where lines of games.jsonl that are not finished games of the tournament go (never deleted)
REJECTED = "games.rejected.jsonl"


def default_out(t: Tournament) -> Path:
    """``results/tournament-<variant>-<seed>`` (the game's name for a game without variants)."""
    return Path("results") / f"tournament-{t.variant}-{t.seed}"


#: the command named in the mark of a tournament's folder (:mod:`zwick_ai.eval.folder_lock`)
COMMAND = "zwick tournament"


def missing_fields(old: dict[str, Any], mine: dict[str, Any]) -> str | None:
    """What an older folder's identity ``old`` lacks that this version's identity ``mine`` records
    (None when nothing): the agents' resolved identities, or the digests of an agent's files."""
    if RESOLVED not in old:
        return "its config.json does not record what the agents resolve to"
    there = old[RESOLVED] if isinstance(old[RESOLVED], list) else []
    for was, now in zip(there, mine[RESOLVED], strict=False):
        if isinstance(was, dict) and "files" in now and "files" not in was and was.get("name") == now.get("name"):
            return f"its config.json does not record the digests of {now.get('name')}'s files"
    return None


def claim_folder(t: Tournament, out: Path) -> None:
    """Write ``config.json``, or check that the folder holds this same tournament (a folder of an
    earlier version, whose ``config.json`` lacks what this one records, is refused in one line:
    :func:`~zwick_ai.eval.folder_lock.older_version`)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / "config.json"
    mine = json.loads(json.dumps(t.identity()))
    if path.exists():
        try:
            theirs = json.loads(path.read_text())
        except json.JSONDecodeError:
            raise ValueError(f"{path} is damaged; use another --out folder or delete it") from None
        old = theirs.get("identity", {}) if isinstance(theirs, dict) else {}
        remake = (theirs.get("command") if isinstance(theirs, dict) else None) or COMMAND
        if isinstance(old, dict) and old and old.get("format") != FORMAT:
            format_text = f"tournament format {old.get('format')}; this one reads {FORMAT}"
            raise older_version(out, format_text, remake, reads=None)
        lacks = missing_fields(old, mine) if isinstance(old, dict) and old else None
        if lacks is not None:
            raise older_version(out, lacks, remake)
        want = dict(mine)
        if isinstance(old, dict):
            want[RESOLVED] = without_new_defaults(old.get(RESOLVED), mine[RESOLVED])
        if old != want:
            diff = [identity_difference(k, old.get(k), v) for k, v in want.items() if old.get(k) != v] if old else []
            raise ValueError(
                f"{out} holds a different tournament ({'; '.join(diff) or 'unreadable config'}); "
                "use another --out folder, or the same command to resume it"
            )
        return
    for games in (out / "games.jsonl", compressed(out / "games.jsonl")):
        if games.exists():
            raise ValueError(f"{out} has {games.name} but no config.json; use another --out folder")
    # made_by marks the folder as its .zwick-folder does, and is committed with it (folder_lock.MARKED_FILES)
    config = {"identity": mine, "params": t.params, "command": t.command, "made_by": COMMAND}
    path.write_text(json.dumps(config, indent=2) + "\n")


def without_new_defaults(there: Any, now: list[Any]) -> list[Any]:
    """``now`` (the agents' resolved identities) without the parameters that an agent gained
    after ``there`` was written and that keep their default: a parameter added with a default
    that plays as before leaves finished games valid. A changed default, or a new parameter set
    to another value, still differs."""
    if not isinstance(there, list) or len(there) != len(now):
        return now
    infos = {info.name: info for info in registered()}
    out = []
    for old, new in zip(there, now, strict=True):
        info = infos.get(str(new.get("name"))) if isinstance(new, dict) else None
        if info is None or not isinstance(old, dict) or not isinstance(old.get("params"), dict):
            out.append(new)
            continue
        defaults = {p.name: p.default for p in info.params}
        params = {
            k: v for k, v in new.get("params", {}).items()
            if k in old["params"] or k not in defaults or v != defaults[k]
        }  # fmt: skip
        out.append({**new, "params": params})
    return out


def stored_deals(path: Path) -> set[int]:
    """The deal indices of the ``games.jsonl`` lines (lines that do not parse are left to
    :func:`read_games`)."""
    deals: set[int] = set()
    if path.exists():
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    deal = json.loads(line).get("deal")
                except (json.JSONDecodeError, AttributeError, RecursionError):
                    continue
                if isinstance(deal, int) and not isinstance(deal, bool) and deal >= 0:
                    deals.add(deal)
    return deals


def read_games(
    path: Path,
    expected: Mapping[tuple, dict[str, Any]],
    game_string: str,
    warn: Callable[[str], None],
    repair: bool = True,
) -> dict[tuple, dict[str, Any]]:
    """The finished games in ``path``; damaged or foreign lines are reported with ``warn`` and,
    with ``repair`` (a run about to resume), moved to ``games.rejected.jsonl`` next to it (so
    their games are played again and nothing is deleted); without it the file is only read."""
    done: dict[tuple, dict[str, Any]] = {}
    if not path.exists():
        return done
    keep: list[str] = []
    rejected: list[str] = []
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
            why = check_record(record, expected, game_string)
        except json.JSONDecodeError as error:
            why = f"not valid JSON ({error.msg})"
        except RecursionError:
            why = "nested too deeply to be a game"
        if why is None and task_key(record) in done:
            why = "a second copy of a finished game"
        if why is not None:
            rejected.append(line)
            warn(f"{path}: line {number} moved to {REJECTED} ({why}); its game will be played again")
            continue
        done[task_key(record)] = compact(record)
        keep.append(line)
    if not repair:
        return done
    if rejected:
        set_aside(path, rejected)  # games.jsonl -> REJECTED
    if rejected or (lines and lines[-1] != ""):
        with replacing(path) as tmp:
            tmp.write_text("".join(x + "\n" for x in keep), encoding="utf-8")
    return done
