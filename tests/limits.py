"""Run crparse in a child process under hard limits, for the hostile-input tests.

    result = run_limited(["parse", "--json", str(path)])       # the CLI, as a user runs it
    assert result.ok_within_limits and result.returncode == 2

The child gets an address-space limit (RLIMIT_AS) and a CPU-time limit (RLIMIT_CPU: `seconds`),
and the parent a wall-clock backstop (four times as long, at least a minute) for a child that
blocks without computing (a FIFO read), so a test of a memory blow-up or a hang fails by itself
instead of taking the machine down. The limit is on CPU time, not wall time: on a machine busy
with other work, wall time doubles and triples and a linear case would fail as a hang. Figures a
test may report: `seconds` (wall), `cpu_seconds` (the child's own, and its children's),
`peak_mib` (its max RSS).
"""

from __future__ import annotations

import math
import os
import resource
import signal
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
    returncode: int | None  # None: killed at the wall-clock backstop
    stdout: bytes
    stderr: bytes
    seconds: float
    peak_mib: float
    cpu_seconds: float = 0.0  # 0.0 when the child did not exit by itself

    @property
    def timed_out(self) -> bool:
        return self.returncode is None or self.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU)

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
    # and its children's: a PDF is read in a forked child (crparse/readers/pdf/confine.py)
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    try:
        with open("/proc/self/status", "rb") as f:
            return max(children, int(next(l for l in f if l.startswith(b"VmHWM:")).split()[1]))
    except (OSError, StopIteration, ValueError):
        return max(children, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
def _cpu():
    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime
atexit.register(lambda: os.write(2, b"\\n__crparse_peak_kib=%d cpu=%.3f\\n" % (_peak(), _cpu())))
{body}
"""
_CLI = "from crparse.cli.main import main\nsys.argv[0] = 'crparse'\nsys.exit(main())"


def _limit(memory: int, seconds: float):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        cpu = math.ceil(seconds)
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))

    return apply


def run_limited(
    args: list[str],
    *,
    memory: int = MEMORY_LIMIT,
    seconds: float = TIME_LIMIT,
    stdin: bytes | None = None,
    env: dict[str, str] | None = None,
    code: str | None = None,
    wall: float | None = None,
) -> Limited:
    """`crparse ARGS` (or `python -c CODE ARGS` when `code` is given) in a child under limits:
    `seconds` of CPU time, `wall` seconds in all (by default four times `seconds`, at least 60)."""
    command = [sys.executable, "-c", _WRAPPER.format(body=code or _CLI), *args]
    child_env = dict(os.environ, PYTHONPATH=str(ROOT), **(env or {}))
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env,
        preexec_fn=_limit(memory, seconds), cwd=ROOT,
    )
    try:
        out, err = proc.communicate(stdin, timeout=wall or max(4 * seconds, 60.0))
        code_ = proc.returncode
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        code_ = None
    elapsed = time.perf_counter() - start
    peak = cpu = 0.0
    at = err.rfind(_MARKER)
    if at >= 0:
        fields = err[at + len(_MARKER) :].split(b"\n")[0].split(b" cpu=")
        peak = int(fields[0] or 0) / 1024
        cpu = float(fields[1]) if len(fields) > 1 else 0.0
        err = err[:at]
    return Limited(code_, out, err, elapsed, peak, cpu)
