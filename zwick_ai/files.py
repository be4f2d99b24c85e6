"""Writing files so that nothing is lost or half written: one appender for every JSONL record
file, and whole-file replacement through a temporary file.

**Record files** (a tournament's ``games.jsonl``, ``analyze``'s decisions, ``play --record``,
``selfplay --records``, the joker study's lines) are appended to with :class:`JsonlAppender`:

* a file that is not JSONL of ours (its first line is not a JSON object: ``notes.txt``, a binary
  file) is refused before anything is written (:func:`check_jsonl`);
* a last line cut short by an interrupted write is moved to ``<stem>.rejected.jsonl`` beside the
  file (nothing is deleted) and the file ends with its last whole line again, so the next record
  starts a line of its own;
* each record is one line written with one ``write`` of the whole line to a file opened for
  appending; a write that fails (a full disk) is undone (the file is cut back to where it was) and
  raises ``OSError`` naming the file, so no caller reports a record it did not keep;
* the file is flushed to disk (``fsync``) when the appender closes.

**Run files** are read with :func:`read_json` and :func:`load_npz`: a damaged or truncated file
is one ``ValueError`` that names it, never a traceback from the parser.

**Whole files** are written with :func:`replacing`: to a temporary file beside the target, which
replaces the target only once complete and is removed when writing fails (a full disk leaves no
temporary file behind).

>>> import json, tempfile
>>> from pathlib import Path
>>> folder = Path(tempfile.mkdtemp())
>>> (folder / "r.jsonl").write_text('{"a": 1}\\n{"a": 2, "b"')  # an interrupted write
21
>>> with JsonlAppender(folder / "r.jsonl") as out:
...     out.write({"a": 3})
>>> (folder / "r.jsonl").read_text().splitlines()
['{"a": 1}', '{"a":3}']
>>> (folder / "r.rejected.jsonl").read_text()
'{"a": 2, "b"\\n'
>>> (folder / "notes.txt").write_text("my notes\\n")
9
>>> try:
...     JsonlAppender(folder / "notes.txt")
... except ValueError as error:
...     print(str(error).split(":")[1].strip())
not a JSONL file of records (its first line is not a JSON object); give another file (nothing was written)
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

__all__ = [
    "MAX_FILE_BYTES",
    "JsonlAppender",
    "check_jsonl",
    "check_out_folder",
    "load_npz",
    "load_torch_tensors",
    "read_json",
    "read_toml",
    "rejected_path",
    "replacing",
    "set_aside",
    "whole_number",
    "writable_folder",
]

#: how much of a file :func:`check_jsonl` reads to find its first line
_HEAD = 1 << 20


def rejected_path(path: str | Path) -> Path:
    """Where lines taken out of a record file go: ``games.jsonl`` -> ``games.rejected.jsonl``."""
    p = Path(path)
    stem = p.name[: -len(".jsonl")] if p.name.endswith(".jsonl") else p.name
    return p.with_name(f"{stem}.rejected.jsonl")


def check_jsonl(path: str | Path, what: str = "") -> None:
    """``ValueError`` unless ``path`` is absent, empty, or a file of JSON lines whose first line
    is a JSON object (a first line cut short by an interrupted write counts as one)."""
    p = Path(path)
    shown = f"{what} {p}" if what else str(p)
    if not p.exists():
        return
    if p.is_dir():
        raise ValueError(f"{shown} is a folder, not a file")
    with open(p, "rb") as f:
        head = f.read(_HEAD)
    first = next((line for line in head.split(b"\n") if line.strip()), b"")
    if not first:
        return
    if b"\0" in head:
        raise ValueError(
            f"{shown}: a binary file, not a JSONL file of records; give another file (nothing was written)"
        )
    complete = b"\n" in head[head.index(first) :] or len(head) == _HEAD
    try:
        ok = isinstance(json.loads(first), dict)
    except (json.JSONDecodeError, UnicodeDecodeError):
        ok = not complete and first.lstrip().startswith(b"{")  # the only line, cut short: ours
    if not ok:
        raise ValueError(
            f"{shown}: not a JSONL file of records (its first line is not a JSON object); "
            "give another file (nothing was written)"
        )


class JsonlAppender:
    """Appends records (dicts, or lines already made) to a JSONL file: the module docstring says
    how. ``what`` names the file in messages (``--record``); ``warn`` reports a repaired last
    line (default: a line on stderr)."""

    def __init__(self, path: str | Path, what: str = "", warn: Any = None):
        self.path = Path(path)
        self.what = what
        check_jsonl(self.path, what)
        self._fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
        try:
            self._repair(warn or (lambda text: print(f"warning: {text}", file=sys.stderr)))
        except BaseException:
            os.close(self._fd)
            raise
        self.written = 0

    def _repair(self, warn: Any) -> None:
        """Move a last line without its newline to :func:`rejected_path` and cut it off."""
        size = os.fstat(self._fd).st_size
        if size == 0:
            return
        with open(self.path, "rb") as f:
            back = min(size, 1 << 16)
            f.seek(size - back)
            tail = f.read(back)
            while b"\n" not in tail and back < size:  # a very long torn line: read further back
                back = min(size, back * 2)
                f.seek(size - back)
                tail = f.read(back)
        if tail.endswith(b"\n"):
            return
        cut = size - back + tail.rfind(b"\n") + 1 if b"\n" in tail else 0
        with open(self.path, "rb") as f:
            f.seek(cut)
            torn = f.read()
        rejected = set_aside(self.path, [torn])
        os.ftruncate(self._fd, cut)
        warn(f"{self.path}: its last line was cut short (an interrupted write); moved to {rejected.name}")

    def write(self, record: dict[str, Any] | str) -> None:
        """Append one record as one whole line (``OSError`` naming the file if it cannot be kept)."""
        line = record if isinstance(record, str) else json.dumps(record, separators=(",", ":"))
        if "\n" in line:
            raise ValueError("a JSONL record is one line")
        _write_all(self._fd, (line + "\n").encode("utf-8"), self.path)
        self.written += 1

    def close(self) -> None:
        """Flush to disk and close (idempotent)."""
        if self._fd < 0:
            return
        fd, self._fd = self._fd, -1
        try:
            os.fsync(fd)
        except OSError:  # a file system that cannot sync (a pipe, some network mounts): written is written
            pass
        finally:
            os.close(fd)

    def __enter__(self) -> JsonlAppender:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def set_aside(path: str | Path, lines: list[bytes] | list[str]) -> Path:
    """Append ``lines`` (taken out of the record file ``path``; damaged ones too) to its
    :func:`rejected_path`, which is returned."""
    rejected = rejected_path(path)
    data = b"".join((x if isinstance(x, bytes) else x.encode("utf-8")).rstrip(b"\n") + b"\n" for x in lines)
    with _appending(rejected) as fd:
        _write_all(fd, data, rejected)
    return rejected


@contextlib.contextmanager
def _appending(path: Path) -> Iterator[int]:
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        yield fd
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes, path: Path) -> None:
    """Append ``data`` with one ``write``; if it is not all kept, cut the file back and raise."""
    start = os.fstat(fd).st_size
    try:
        done = os.write(fd, data)
        if done != len(data):
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    except OSError as error:
        with contextlib.suppress(OSError):
            os.ftruncate(fd, start)
        reason = error.strerror or str(error)
        raise OSError(error.errno, f"cannot write to {path}: {reason}; nothing of this record was kept") from None


@contextlib.contextmanager
def replacing(path: str | Path, suffix: str = ".tmp") -> Iterator[Path]:
    """A temporary path beside ``path`` (``path`` + ``suffix``) to write the whole new file to;
    it replaces ``path`` when the block ends normally and is removed when it does not."""
    target = Path(path)
    tmp = target.with_name(target.name + suffix)
    try:
        yield tmp
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def read_json(path: str | Path) -> Any:
    """The JSON value in ``path``; ``ValueError`` naming the file when it is not JSON."""
    p = Path(path)
    try:
        return json.loads(p.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError is a ValueError
        raise ValueError(f"{p} is damaged or not ours (not JSON: {error}); move it away or restore it") from None


def load_npz(path: str | Path, names: tuple[str, ...] | None = None) -> dict[str, Any]:
    """The arrays of the ``.npz`` file ``path`` (all, or ``names``), read without pickles;
    ``ValueError`` naming the file when it is truncated, damaged or lacks an array."""
    import zipfile

    import numpy as np

    p = Path(path)
    try:
        with np.load(p, allow_pickle=False) as z:
            return {name: z[name] for name in (names if names is not None else z.files)}
    except FileNotFoundError:
        raise ValueError(f"{p} does not exist") from None
    except (OSError, EOFError, ValueError, KeyError, zipfile.BadZipFile) as error:
        first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise ValueError(f"{p} is damaged or not ours ({first}); move it away or restore it") from None


def load_torch_tensors(data: bytes, what: str) -> dict[str, Any]:
    """The tensors of a PyTorch file (its bytes ``data``; ``what`` names it in errors) as float32
    numpy arrays by name, read with ``torch.load(weights_only=True)``: plain tensors only, never a
    pickled object. ``ValueError`` naming ``what`` for anything else; ``ImportError`` without torch."""
    import io

    import numpy as np
    import torch

    try:
        state = torch.load(io.BytesIO(data), map_location="cpu", weights_only=True)
    except (OSError, EOFError, RuntimeError, ValueError) as error:
        raise ValueError(f"{what} is not a readable PyTorch file ({error})") from None
    except Exception as error:  # torch's weights-only unpickler refuses pickled code with its own errors
        raise ValueError(f"{what} holds pickled objects, not plain weights ({type(error).__name__})") from None
    if not isinstance(state, dict) or not all(isinstance(t, torch.Tensor) for t in state.values()):
        raise ValueError(f"{what} holds no plain tensors")
    return {str(k): t.detach().numpy().astype(np.float32) for k, t in state.items()}


# Paths and numbers checked before any work starts (a command refuses them in one line).

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


def writable_folder(path: Path, what: str, shown: Path) -> None:
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
    writable_folder(path, what, path)
