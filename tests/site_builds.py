"""What the tests of `crparse docs` share: the command in a child, its one-line refusal, and a
copy of a site to damage (the fixtures `two` and `clean`, a site of two small releases built once
per module, are in conftest.py)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from conftest import ROOT


def docs(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "crparse", "docs", *args], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False, env=dict(os.environ, **(env or {})))


def one_line_refusal(done: subprocess.CompletedProcess) -> str:
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1 and "Traceback" not in done.stderr, done.stderr
    return lines[0]


def copy(site: Path, to: Path) -> Path:
    shutil.copytree(site, to, symlinks=True)
    return to
