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


__all__ = ["LOCK_NAME", "acquire", "hold_folder", "release"]
