"""Benchmark of issue 12 (executable examples), whole processes as a user runs them:

- `pytest --cr-examples DIR` over every text release (each example a test item);
- `crparse examples` of the newest release;
- the library (crparse.examples.run_examples) over every release, parses included.

Each figure is the minimum of --repeat runs (wall time).
Run: python bench/bench_examples.py [--corpus ../shared/corpus] [--repeat 1]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

from common import ROOT, add_corpus_argument, txt_dir

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"} | {"PYTHONPATH": str(ROOT)}

LIBRARY = """
import glob, sys
from crparse.parallel import parse_all
from crparse.examples import run_examples
paths = sorted(glob.glob(sys.argv[1] + "/*.txt"))
n = 0
for doc in parse_all(paths):
    if not isinstance(doc, Exception) and doc.effective_date:
        n += len(run_examples(doc, rules_date=doc.effective_date))
print(n)
"""


def run(command: list[str], repeat: int) -> tuple[float, str]:
    """(minimum wall seconds of `repeat` runs, the last line the command printed)."""
    best, out = float("inf"), ""
    for _ in range(repeat):
        start = time.perf_counter()
        done = subprocess.run(command, cwd="/tmp", env=ENV, capture_output=True, text=True)
        best = min(best, time.perf_counter() - start)
        lines = (done.stdout.strip() or done.stderr.strip()).splitlines()
        out = lines[-1] if lines else ""
    return best, out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_argument(ap)
    ap.add_argument("--repeat", type=int, default=1)
    args = ap.parse_args()
    txt = txt_dir(args.corpus)
    if txt is None:
        return 0
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "crparse")], env=ENV, check=True)
    rows = [
        ("pytest --cr-examples (112 releases)", *run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                                                     "--cr-examples", str(txt)], args.repeat), 60.0),
        ("crparse examples 2026-01-16", *run([sys.executable, "-m", "crparse", "examples", str(txt / "2026-01-16.txt")],
                                             args.repeat), None),
        ("library, every example of 112 releases", *run([sys.executable, "-c", LIBRARY, str(txt)], args.repeat), None),
    ]
    print(f"{'run':42} {'seconds':>8} {'target':>7}  output")
    for name, seconds, out, target in rows:
        print(f"{name:42} {seconds:8.1f} {target if target is not None else '':>7}  {out[:60]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
