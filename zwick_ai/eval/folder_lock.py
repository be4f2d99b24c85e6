"""One writer per results folder: a lock file that names its owner's pid and host.

A run holds ``.zwick-lock`` in its folder while it writes there; a second run into the same folder
is refused with the owner named. A lock left by a process of this host that no longer exists (a
run killed with ``kill -9``, a crashed machine's restart) is taken over. The lock is made atomically
(written beside the folder's lock name, then hard-linked to it), so two runs never both hold it.

>>> import tempfile
>>> folder = Path(tempfile.mkdtemp())
>>> with hold_folder(folder):
...     try:
...         with hold_folder(folder):
...             pass
...     except ValueError as error:
...         print(str(error).split(" (")[0].endswith("is in use by another run"))
True
>>> (folder / LOCK_NAME).exists()
False

A results folder is also marked as made by the tool (``.zwick-folder``, naming the command that
made it): :func:`hold_results_folder` refuses a folder that holds anything else, unless it is
empty, so nothing a user keeps there is overwritten, and a folder of one command is not written by
another.

>>> other = Path(tempfile.mkdtemp())
>>> _ = (other / "report.md").write_text("my notes")
>>> try:
...     with hold_results_folder(other, "zwick selfplay"):
...         pass
... except ValueError as error:
...     print(str(error).split(" holds ")[1].split(":")[0])
... else:
...     print("written")
files that zwick did not write (report.md)
"""

from __future__ import annotations

import json
import os
import socket
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LOCK_NAME = ".zwick-lock"
#: the mark of a folder made by the tool: JSON ``{"made_by": "zwick tournament", ...}``
MARK_NAME = ".zwick-folder"
#: results files whose ``made_by`` field marks their folder as the mark file does: a committed
#: results folder keeps its mark there (``.zwick-folder`` files are not committed, to keep the
#: number of committed files down; the committed tournaments and joker studies have the field)
MARKED_FILES = ("config.json", "results.json")
#: the last version that resumes results of earlier formats (unmarked folders, tournaments without
#: their agents' file digests); this one refuses them in one line naming it and the command that
#: remakes them: their games may come from other defaults or files, so they are remade, not converted
OLDER_FORMATS_VERSION = "0.3.0"


def _alive(pid: int) -> bool:
    """Whether a process with this id exists on this host."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # exists, owned by another user
        return True
    return True


def _read(path: Path) -> dict[str, Any] | None:
    try:
        owner = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) else None


def _try_link(folder: Path, mine: dict[str, Any]) -> bool:
    """Make the lock atomically with ``mine`` as its content; False when one exists."""
    draft = folder / f"{LOCK_NAME}.{mine['host']}.{mine['pid']}"
    draft.write_text(json.dumps(mine) + "\n", encoding="utf-8")
    try:
        os.link(draft, folder / LOCK_NAME)
        return True
    except FileExistsError:
        return False
    finally:
        draft.unlink(missing_ok=True)


def _take_over(folder: Path, stale: dict[str, Any]) -> None:
    """Move a stale lock aside, unless another run replaced it meanwhile (then put that back)."""
    aside = folder / f"{LOCK_NAME}.stale.{os.getpid()}"
    try:
        os.rename(folder / LOCK_NAME, aside)
    except FileNotFoundError:
        return
    if _read(aside) != stale:  # a live run's lock, made since we read the stale one
        try:
            os.link(aside, folder / LOCK_NAME)
        except FileExistsError:
            pass
    aside.unlink(missing_ok=True)


def acquire(folder: Path) -> dict[str, Any]:
    """Take the folder's lock or raise ``ValueError`` naming the run that holds it."""
    mine = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.strftime("%Y-%m-%d %H:%M:%S")}
    for _ in range(5):
        if _try_link(folder, mine):
            return mine
        owner = _read(folder / LOCK_NAME)
        if owner is None:
            raise ValueError(f"{folder} has an unreadable {LOCK_NAME}; if no run writes there, delete it and run again")
        pid, host = owner.get("pid"), owner.get("host")
        if host == mine["host"] and isinstance(pid, int) and not _alive(pid):
            _take_over(folder, owner)
            continue
        raise ValueError(
            f"{folder} is in use by another run (pid {pid} on {host}, since {owner.get('since')}); "
            "wait for it to finish or use another --out folder"
        )
    raise ValueError(f"{folder}: could not take its lock; another run keeps claiming it")


def release(folder: Path, mine: dict[str, Any]) -> None:
    """Remove the lock if it is still ``mine``."""
    if _read(folder / LOCK_NAME) == mine:
        (folder / LOCK_NAME).unlink(missing_ok=True)


@contextmanager
def hold_folder(folder: str | Path) -> Iterator[Path]:
    """Hold ``folder``'s lock (made if missing) for the ``with`` block."""
    path = Path(folder)
    path.mkdir(parents=True, exist_ok=True)
    mine = acquire(path)
    try:
        yield path
    finally:
        release(path, mine)


def made_by(folder: Path) -> str | None:
    """The command named by ``folder``'s mark, or else by the ``made_by`` field of its results file
    (:data:`MARKED_FILES`); None without either."""
    for name in (MARK_NAME, *MARKED_FILES):
        mark = _read(folder / name)
        if mark and isinstance(mark.get("made_by"), str):
            return str(mark["made_by"])
    return None


def mark_folder(folder: Path, command: str) -> None:
    """Mark ``folder`` as made by ``command`` (:data:`MARK_NAME`)."""
    mark = {"made_by": command, "since": time.strftime("%Y-%m-%d %H:%M:%S")}
    (folder / MARK_NAME).write_text(json.dumps(mark) + "\n", encoding="utf-8")


def _ours(name: str) -> bool:
    return name == MARK_NAME or name.startswith(LOCK_NAME)


def older_version(folder: str | Path, why: str, remake: str, reads: str | None = OLDER_FORMATS_VERSION) -> ValueError:
    """The one-line refusal of results written by an earlier zwick_ai (``why``: what they lack),
    naming the version that reads them (``reads``, when known) and the command ``remake`` that
    makes them again."""
    read = f"read it with zwick_ai {reads}, or " if reads else ""
    return ValueError(
        f"{folder} was made by an earlier zwick_ai ({why}); this version does not resume it: "
        f"{read}remake it in a new folder: {remake}"
    )


def check_results_folder(folder: str | Path, command: str, what: str = "--out") -> None:
    """``ValueError`` unless ``folder`` may receive ``command``'s results: absent, empty or marked
    as made by ``command``. An unmarked folder that holds anything is refused: a user's own files,
    or the results of a version before folders were marked, which this one does not read (the
    message says which version does and which command remakes them)."""
    path = Path(folder)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} {path} is a file, not a folder")
    if not path.exists():
        return
    owner = made_by(path)
    if owner is not None:
        if owner != command:
            raise ValueError(f"{path} holds the results of `{owner}`, not `{command}`; use another {what} folder")
        return
    entries = sorted(e.name for e in path.iterdir() if not _ours(e.name))
    if entries:
        shown = ", ".join(entries[:4]) + (", ..." if len(entries) > 4 else "")
        raise ValueError(
            f"{path} holds files that zwick did not write ({shown}): your own, or an earlier zwick_ai's "
            f"(read them with zwick_ai {OLDER_FORMATS_VERSION}, or remake them with `{command}`); "
            f"use a new or empty {what} folder (nothing was changed)"
        )


@contextmanager
def hold_results_folder(folder: str | Path, command: str, what: str = "--out") -> Iterator[Path]:
    """:func:`check_results_folder`, then hold the folder's lock (:func:`hold_folder`) and mark it
    as made by ``command``, for the ``with`` block. A block that ends with an error (a refusal, an
    interrupt) before anything was written there takes its mark back, and the folder if it made
    it: a refused command leaves nothing behind."""
    check_results_folder(folder, command, what)
    existed = Path(folder).exists()
    marked = False
    try:
        with hold_folder(folder) as path:
            if made_by(path) is None:
                mark_folder(path, command)
                marked = True
            yield path
    except BaseException:
        if marked:
            _unmark_if_empty(Path(folder), remove=not existed)
        raise


def _unmark_if_empty(path: Path, remove: bool) -> None:
    """Take back the mark of a folder that holds nothing else (and, with ``remove``, the folder)."""
    try:
        if any(not _ours(e.name) for e in path.iterdir()):
            return
        (path / MARK_NAME).unlink(missing_ok=True)
        if remove:
            path.rmdir()
    except OSError:  # another run's lock meanwhile, a file system that refuses: the mark stays, harmless
        pass


__all__ = [
    "LOCK_NAME",
    "MARKED_FILES",
    "MARK_NAME",
    "OLDER_FORMATS_VERSION",
    "acquire",
    "check_results_folder",
    "hold_folder",
    "hold_results_folder",
    "made_by",
    "mark_folder",
    "older_version",
    "release",
]
