"""Output paths checked before any work starts: a command that would fail only when it writes its
results (a file where a folder should be, a folder that cannot be made, a file that cannot be
written) is refused first, in one line, so no work is lost.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "f").write_text("x")
1
>>> check_out_folder(folder / "new" / "deeper", "--out")
>>> try:
...     check_out_folder(folder / "f", "--out")
... except ValueError as error:
...     print(str(error).endswith("is a file, not a folder"))
True
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["MAX_FILE_BYTES", "check_new_file", "check_out_folder", "check_record_file", "read_toml", "whole_number"]

#: the largest experiment or leaderboard file read (the real ones are a few kB)
MAX_FILE_BYTES = 1_000_000


def read_toml(path: str | Path, what: str) -> dict:
    """A TOML file ``what`` (``experiment``, ``leaderboard``) as a table; one ``ValueError`` for a
    missing, too large, unreadable, invalid or too deeply nested file."""
    import tomllib

    p = Path(path)
    if not p.is_file():
        raise ValueError(f"no such {what} file: {p}")
    if p.stat().st_size > MAX_FILE_BYTES:
        raise ValueError(f"{p} is larger than a {what} file can be ({MAX_FILE_BYTES} bytes)")
    try:
        return tomllib.loads(p.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise ValueError(f"{p} is not a text file") from None
    except tomllib.TOMLDecodeError as error:
        raise ValueError(f"{p} is not valid TOML: {error}") from None
    except RecursionError:
        raise ValueError(f"{p} is nested too deeply to be a {what} file") from None


def whole_number(value: object, name: str, low: int, high: int) -> int:
    """``value`` if it is a whole number from ``low`` to ``high`` (not ``true``/``false``, not
    ``1.0``), else a ``ValueError`` that says so.

    >>> whole_number(3, "deals", 1, 10)
    3
    >>> whole_number(True, "deals", 1, 10)
    Traceback (most recent call last):
    ...
    ValueError: deals must be a whole number from 1 to 10, not True
    """
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _nearest_existing(path: Path) -> Path:
    """``path`` or its nearest ancestor that exists."""
    path = Path(os.path.abspath(path))
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _writable_dir(path: Path, what: str, shown: Path) -> None:
    """``ValueError`` unless a folder can be made or written at ``path``."""
    base = _nearest_existing(path)
    if not base.is_dir():
        raise ValueError(f"{what} {shown}: {base} is a file, not a folder")
    if not os.access(base, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {shown}: {base} cannot be written (no permission)")


def check_out_folder(path: str | Path, what: str = "--out") -> None:
    """A results folder: absent (it will be made) or a folder, and writable."""
    if str(path) == "":
        raise ValueError(f"{what} needs a folder name")
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} {path} is a file, not a folder")
    _writable_dir(path, what, path)


def check_record_file(path: str | Path, what: str = "--record") -> None:
    """A file that records are added to: a JSONL file of records or absent, in a folder that can
    be written (:func:`zwick_ai.files.check_jsonl`: another file is never added to)."""
    from zwick_ai.files import check_jsonl

    if str(path) == "":
        raise ValueError(f"{what} needs a file name")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"{what} {path} is a folder, not a file")
    if path.exists():
        if not os.access(path, os.W_OK):
            raise ValueError(f"{what} {path} cannot be written (no permission)")
        check_jsonl(path, what)
        return
    folder = Path(os.path.abspath(path)).parent
    if not folder.is_dir():
        raise ValueError(f"{what} {path}: the folder {folder} does not exist")
    _writable_dir(folder, what, path)


def check_new_file(path: str | Path, what: str) -> None:
    """A file to be made: absent (nothing is overwritten) in a folder that can be written."""
    path = Path(path)
    if path.exists():
        raise ValueError(f"{what} {path} exists already; give a new file name (nothing was overwritten)")
    check_record_file(path, what)


def read_game_records(path: str | Path, command: str) -> list:
    """The readable game records of a JSONL file (damaged lines reported on stderr), or one clear
    ``ValueError``: a folder, a binary file or a file without a single record."""
    import sys

    from zwick_ai.eval.records import read_records

    p = Path(path)
    if p.is_dir():
        hint = " (a tournament's records are its games.jsonl)" if (p / "games.jsonl").exists() else ""
        raise ValueError(f"{p} is a folder; give a JSONL file of game records{hint}")
    if p.is_file():
        with open(p, "rb") as f:
            head = f.read(4096)
        if b"\0" in head and not p.name.endswith(".gz"):
            raise ValueError(f"{p} is a binary file, not a JSONL file of game records")
    records, errors = read_records(p)
    for error in errors[:5]:
        print(f"zwick {command}: {p}: {error} (skipped)", file=sys.stderr)
    if len(errors) > 5:
        print(f"zwick {command}: {p}: {len(errors) - 5} more damaged lines skipped", file=sys.stderr)
    if not records:
        raise ValueError(f"{p} holds no readable game records")
    return records
