"""Run crparse in a child process under hard limits, for the hostile-input tests.

    result = run_limited(["parse", "--json", str(path)])       # the CLI, as a user runs it
    assert result.ok_within_limits and result.returncode == 2

The child gets an address-space limit (RLIMIT_AS) and the parent a wall-clock timeout, so a test
of a memory blow-up or a hang fails by itself instead of taking the machine down. Figures a test
may report: `seconds`, `peak_mib` (the child's max RSS).
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
MEMORY_LIMIT = 1 << 30  # 1 GiB, the bound for every hostile input
TIME_LIMIT = 15.0


@dataclass
class Limited:
    returncode: int | None  # None: killed at the time limit
    stdout: bytes
    stderr: bytes
    seconds: float
    peak_mib: float

    @property
    def timed_out(self) -> bool:
        return self.returncode is None

    @property
    def traceback(self) -> bool:
        return b"Traceback (most recent call last)" in self.stderr

    @property
    def out_of_memory(self) -> bool:
        return b"MemoryError" in self.stderr or self.returncode in (-9, 137)

    @property
    def ok_within_limits(self) -> bool:
        """Finished in time, no traceback, no memory error, exit status 0-3."""
        return not self.timed_out and not self.traceback and not self.out_of_memory and self.returncode in (0, 1, 2, 3)


# The child reports its own peak (ru_maxrss of RUSAGE_SELF) on stderr as it exits; the marker is
# taken out of the stderr the test sees.
_MARKER = b"\n__crparse_peak_kib="
# VmHWM, not ru_maxrss: after a fork ru_maxrss starts from the parent's size, which exec does not
# reset; the address space exec builds, and its high-water mark, are the child's own.
_WRAPPER = """
import atexit, os, resource, sys
def _peak():
    try:
        with open("/proc/self/status", "rb") as f:
            return int(next(l for l in f if l.startswith(b"VmHWM:")).split()[1])
    except (OSError, StopIteration, ValueError):
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
atexit.register(lambda: os.write(2, b"\\n__crparse_peak_kib=%d\\n" % _peak()))
{body}
"""
_CLI = "from crparse.cli.main import main\nsys.argv[0] = 'crparse'\nsys.exit(main())"


def _limit(memory: int):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    return apply


def run_limited(
    args: list[str],
    *,
    memory: int = MEMORY_LIMIT,
    seconds: float = TIME_LIMIT,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    code: str | None = None,
) -> Limited:
    """`crparse ARGS` (or `python -c CODE ARGS` when `code` is given) in a child under limits."""
    command = [sys.executable, "-c", _WRAPPER.format(body=code or _CLI), *args]
    child_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env,
        preexec_fn=_limit(memory), cwd=ROOT,
    )
    try:
        out, err = proc.communicate(stdin, timeout=seconds)
        code_ = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code_ = None
    elapsed = time.perf_counter() - start
    peak = 0.0
    at = err.rfind(_MARKER)
    if at >= 0:
        peak = int(err[at + len(_MARKER) :].split(b"\n")[0] or 0) / 1024
        err = err[:at]
    return Limited(code_, out, err, elapsed, peak)
