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

__all__ = ["check_new_file", "check_out_folder", "check_record_file"]


def check_out_folder(path: str | Path, what: str = "--out") -> None:
    """A results folder: absent (it will be made) or a folder, and writable
    (:func:`zwick_ai.files.check_out_folder`, imported when called: ``zwick --help`` stays light)."""
    from zwick_ai.files import check_out_folder as check

    check(path, what)


def check_record_file(path: str | Path, what: str = "--record") -> None:
    """A file that records are added to: a JSONL file of records or absent, in a folder that can
    be written (:func:`zwick_ai.files.check_jsonl`: another file is never added to)."""
    from zwick_ai.files import check_jsonl, writable_folder

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
    writable_folder(folder, what, path)


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
