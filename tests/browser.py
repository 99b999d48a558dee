"""Helpers for real-browser tests: a static HTTP server, a headless Chromium driven by Selenium,
and screenshots kept as artifacts. Not a test module; tests import it and skip with
``available()``'s reason where the browser is missing.

The browser comes from Debian (``apt-get install chromium chromium-driver``): this machine can
reach package registries only, so browsers that download themselves cannot be used."""

from __future__ import annotations

import contextlib
import functools
import http.server
import importlib.util
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from selenium.webdriver import Chrome

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[1]

# Belt and braces: given the driver's path, Selenium never runs Selenium Manager; were it ever run,
# it would otherwise try to download driver metadata and send usage stats, which this machine refuses.
os.environ.setdefault("SE_OFFLINE", "true")

# Without the background-networking flags Chromium keeps trying connections that are refused here.
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",  # we run as root, where the sandbox cannot start
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--window-size=1280,900",
)


def available() -> str | None:
    """None when a browser test can run, else why not (for pytest.skip)."""
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.access(p, os.X_OK)]
    if importlib.util.find_spec("selenium") is None:
        missing.append("the selenium package")
    if missing:
        return (
            f"browser tests need {', '.join(missing)} "
            "(apt-get install chromium chromium-driver; pip install selenium)"
        )
    return None


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass  # one stderr line per request would drown pytest's output


@contextlib.contextmanager
def serve(directory: str | os.PathLike) -> Iterator[str]:
    """Serve `directory` on 127.0.0.1 (a free port) and yield its base URL, ending in '/'."""
    handler = functools.partial(_QuietHandler, directory=os.fspath(directory))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, name="browser-test-http", daemon=True)
    thread.start()
    try:
        host, port = server.server_address[:2]
        yield f"http://{host}:{port}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


@contextlib.contextmanager
def chromium() -> Iterator[Chrome]:
    """A headless Chromium with a fresh profile, quit (and the profile removed) on exit."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    # Chromium may still be writing to its profile as it quits; a leftover temp dir is no failure.
    with tempfile.TemporaryDirectory(prefix="crparse-chromium-", ignore_cleanup_errors=True) as profile:
        options = webdriver.ChromeOptions()
        options.binary_location = CHROMIUM
        for flag in CHROMIUM_FLAGS:
            options.add_argument(flag)
        options.add_argument(f"--user-data-dir={profile}")
        driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
        try:
            driver.set_page_load_timeout(30)
            yield driver
        finally:
            driver.quit()


def artifacts_dir() -> Path:
    path = Path(os.environ.get("CRPARSE_ARTIFACTS") or ROOT / "build" / "artifacts" / "browser")
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshot(driver: Chrome, name: str) -> Path:
    """Save the current viewport as <artifacts>/<name>.png and return its path."""
    path = artifacts_dir() / (name if name.endswith(".png") else f"{name}.png")
    if not driver.save_screenshot(os.fspath(path)):
        raise RuntimeError(f"Chromium could not write a screenshot to {path}")
    return path
