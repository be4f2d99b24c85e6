"""The numba cache of zwick_ai is keyed by the whole package's source (see zwick_ai/_jit_cache.py)."""

from __future__ import annotations

import os
import subprocess
import sys

from zwick_ai import _jit_cache
from zwick_ai.zwicker import kernels as K


def test_kernels_cache_under_the_package_source_hash():
    path = K.play_hands._cache._cache_path
    assert os.path.basename(path) == f"numba-{_jit_cache.source_hash()}"
    user_dir = os.environ.get("NUMBA_CACHE_DIR")
    if user_dir:  # numba's folder for the file inside NUMBA_CACHE_DIR, keyed the same way
        assert os.path.commonpath([path, os.path.abspath(user_dir)]) == os.path.abspath(user_dir)
    else:
        assert os.path.dirname(path) == os.path.join(os.path.dirname(K.__file__), "__pycache__")


def test_a_user_cache_dir_is_keyed_by_the_source_hash_too(tmp_path):
    """With NUMBA_CACHE_DIR set (a read-only package folder), a changed engine still compiles afresh."""
    code = (
        "from zwick_ai.zwicker import kernels as K; from zwick_ai import _jit_cache;"
        "print(K.play_hands._cache._cache_path); print(_jit_cache.source_hash())"
    )
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path), "ZWICK_COMPILE_NOTICE": "0"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-2000:]
    path, digest = out.stdout.split()
    assert path.startswith(str(tmp_path)) and os.path.basename(path) == f"numba-{digest}"


def _package(tmp_path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "kern.py").write_text("import numba\nfrom .sub import consts\n")
    (pkg / "sub" / "consts.py").write_text("from ..sub.deep import Z\nY = 2\n")
    (pkg / "sub" / "deep.py").write_text("Z = 1\n")
    (pkg / "cli.py").write_text("from pkg import kern\n")
    return pkg


def test_compiled_sources_are_numba_users_and_their_imports(tmp_path):
    pkg = _package(tmp_path)
    names = {str(p.relative_to(pkg)) for p in _jit_cache.compiled_sources(pkg)}
    assert names == {"kern.py", "__init__.py", "sub/__init__.py", "sub/consts.py", "sub/deep.py"}


def test_source_hash_follows_what_compiled_code_imports(tmp_path, monkeypatch):
    pkg = _package(tmp_path)
    monkeypatch.setattr(_jit_cache, "PACKAGE_DIR", pkg)
    _jit_cache.source_hash.cache_clear()
    try:
        first = _jit_cache.source_hash()
        (pkg / "cli.py").write_text("from pkg import kern  # no compiled code sees this\n")
        _jit_cache.source_hash.cache_clear()
        assert _jit_cache.source_hash() == first
        (pkg / "sub" / "deep.py").write_text("Z = 3\n")  # imported by an import of a numba user
        _jit_cache.source_hash.cache_clear()
        assert _jit_cache.source_hash() != first
    finally:
        _jit_cache.source_hash.cache_clear()


def test_only_stale_caches_of_older_sources_are_removed(tmp_path):
    """A process started before an engine change may still compile into its folder: a recent one stays."""
    now = 1_000_000_000.0
    keep, recent, stale = (tmp_path / name for name in ("numba-new", "numba-recent", "numba-stale"))
    for folder in (keep, recent, stale):
        folder.mkdir()
        (folder / "kernels.nbi").write_text("index")
    old = now - _jit_cache.STALE_CACHE_SECONDS - 60
    os.utime(stale / "kernels.nbi", (old, old))
    os.utime(stale, (old, old))
    os.utime(keep, (old, old))  # the current folder stays however old
    os.utime(keep / "kernels.nbi", (old, old))
    removed = _jit_cache.prune_stale_folders(tmp_path, keep="numba-new", now=now)
    assert removed == [stale]
    assert keep.exists() and recent.exists() and not stale.exists()
    # a file written lately keeps an old folder
    os.utime(recent, (old, old))
    assert _jit_cache.prune_stale_folders(tmp_path, keep="numba-new", now=now) == []
