"""What the benchmark scripts share: the corpus argument and the timing loop."""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def add_corpus_argument(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--corpus", type=Path, default=Path(os.environ.get("CRPARSE_CORPUS", ROOT.parent / "shared" / "corpus")))


def txt_dir(corpus: Path) -> Path | None:
    """The corpus's text releases, or None (said on stderr) when the corpus is not there."""
    txt = corpus / "txt"
    if not txt.is_dir():
        print(f"corpus not found at {corpus}: set --corpus or CRPARSE_CORPUS", file=sys.stderr)
        return None
    return txt


def timed_ms(fn, repeat: int) -> tuple[float, float]:
    """(minimum, median) of `repeat` runs after a warm-up. The minimum is the stable figure on
    a shared virtual machine; the median shows what a typical run sees."""
    fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times) * 1000, statistics.median(times) * 1000


def interleaved_ms(fns: dict, repeat: int) -> dict[str, tuple[float, float]]:
    """(minimum, median) of each function, the functions run in turn within each round, so that
    a slow moment of a shared machine falls on all of them alike: ratios between them are then
    fair even where the absolute figures drift."""
    for fn in fns.values():
        fn()
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - start)
    return {name: (min(t) * 1000, statistics.median(t) * 1000) for name, t in times.items()}


# As installed for a user: Python caches compiled modules (__pycache__). Some machines set
# PYTHONDONTWRITEBYTECODE, which makes every process compile crparse again (~50 ms).
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(ROOT)}


def run_crparse(args: list[str], repeat: int = 1, ok: tuple[int, ...] = (0, 1)) -> tuple[float, float]:
    """(minimum seconds, peak MiB) of `crparse ARGS` run `repeat` times: wall time, and the peak
    resident memory of the child and the workers it waited for (wait4's rusage)."""
    best, peak = float("inf"), 0.0
    for _ in range(repeat):
        start = time.perf_counter()
        child = subprocess.Popen([sys.executable, "-m", "crparse", *args], cwd=ROOT, env=ENV,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        stderr = child.stderr.read()
        _, status, usage = os.wait4(child.pid, 0)
        elapsed = time.perf_counter() - start
        code = os.waitstatus_to_exitcode(status)
        if code not in ok:
            raise SystemExit(f"crparse {' '.join(args)}: exit {code}: {stderr.decode()[-800:]}")
        best = min(best, elapsed)
        peak = max(peak, usage.ru_maxrss / 1024)
    return best, peak
