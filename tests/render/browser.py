"""A headless Chromium for the page tests: Debian's ``chromium`` and ``chromium-driver`` driven by
Selenium (no browser download). :func:`chromium` skips the test with the reason when any piece is
missing; ``.ci/run`` installs chromium where it is not."""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
# the flags that work on these machines (closed network, root, no screen)
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1400,1000",
]


def _missing() -> str | None:
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not Path(path).exists() and shutil.which(Path(path).name) is None:
            return f"{path} not found (apt-get install -y {package}; .ci/run installs it)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install selenium; it is in the dev extra)"
    return None


@contextmanager
def chromium() -> Iterator[Any]:
    """A Selenium WebDriver on headless Chromium with a fresh profile; skips if none can be had."""
    reason = _missing()
    if reason:
        pytest.skip(f"no headless Chromium: {reason}")
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="zwick-chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM if Path(CHROMIUM).exists() else str(shutil.which("chromium"))
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        options.add_argument(flag)
    driver_path = CHROMEDRIVER if Path(CHROMEDRIVER).exists() else str(shutil.which("chromedriver"))
    driver = webdriver.Chrome(service=Service(executable_path=driver_path), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)
