"""Benchmarks of issue 13 (`crparse docs`), each a whole process as a user runs it:

- the site of one release (2026-01-16), from nothing;
- the site of a seed fragment (corpus/002_*);
- the site of the whole text corpus from nothing (a site per release, change pages, histories);
- the same again with nothing changed;
- the corpus site after adding one release (the newest, left out of the first build);
- sites of generated releases of 100, 300 and 900 one-rule sections and of 900 sections of 20
  rules, one process each with --jobs 1: the build's work per page must not grow with the pages
  (each page once listed every page of the release again: 900 sections took 25 s of CPU).

Each figure is wall time, CPU time (user and system, the child and its workers) and the peak
resident memory of the child (and its workers: the largest one, wait4's rusage). On a shared
machine the CPU time is the fair figure. Run:
python bench/bench_docs.py [--corpus ../shared/corpus] [--jobs N] [--skip-corpus] [--skip-scale]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, ROOT, add_corpus_argument, txt_dir

SCALES = [(100, 1), (300, 1), (900, 1), (900, 20)]  # (sections, rules in each)


def run_docs(args: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds, peak MiB) of `crparse docs ARGS`, which must succeed."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "crparse", "docs", *args], cwd=ROOT, env=ENV,
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crparse docs {' '.join(args)}: {stderr.decode()[-800:]}")
    return elapsed, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def scaled_release(sections: int, rules: int) -> str:
    """A release of nine parts and `sections` sections (at most 900) of `rules` rules, the first
    citing a rule of another section: a page per section, every page linked to."""
    lines = ["Magic: The Gathering Comprehensive Rules", "", "These rules are effective as of January 1, 2020.", ""]
    for part in range(1, 10):
        lines += [f"{part}. Part {part}", ""]
        for s in range(100 * part, min(100 * part + 100, 100 + sections)):
            lines += [f"{s}. Section {s}", ""]
            lines += [f"{s}.1. Rule 1 of {s}, see rule {100 + (s * 7) % sections}.1.", ""]
            lines += [line for r in range(2, rules + 1) for line in (f"{s}.{r}. Rule {r} of {s}.", "")]
    lines += ["Glossary", "", "Ability", "Text.", "", "Credits", "", "Somebody"]
    return "\n".join(lines) + "\n"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    add_corpus_argument(ap)
    ap.add_argument("--jobs", type=int, help="CRPARSE_JOBS for the builds (default: the cores)")
    ap.add_argument("--skip-corpus", action="store_true", help="no corpus site")
    ap.add_argument("--skip-scale", action="store_true", help="no generated releases of many sections")
    args = ap.parse_args()
    txt = txt_dir(args.corpus)
    if txt is None:
        return 0
    if args.jobs:
        ENV["CRPARSE_JOBS"] = str(args.jobs)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "crparse")], env=ENV, check=True)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        rows.append(("site of 2026-01-16", *run_docs([str(txt / "2026-01-16.txt"), "-o", str(out / "one")])))
        seed = next((ROOT / "corpus").glob("002_*"))
        rows.append(("site of seed 002", *run_docs([str(seed), "-o", str(out / "seed")])))
        if not args.skip_scale:
            for sections, rules in SCALES:
                release = out / f"scale-{sections}x{rules}" / "2020-01-01.txt"
                release.parent.mkdir()
                release.write_text(scaled_release(sections, rules))
                rows.append((f"{sections} sections x {rules} rules, --jobs 1",
                             *run_docs([str(release), "-o", str(release.parent / "site"), "--jobs", "1"])))
        if not args.skip_corpus:
            releases = sorted(txt.glob("*.txt"))
            shutil.copytree(txt, out / "corpus", ignore=shutil.ignore_patterns(releases[-1].name))
            rows.append((f"corpus site, {len(releases) - 1} releases",
                         *run_docs([str(out / "corpus"), "-o", str(out / "all")])))
            rows.append(("corpus site, nothing changed", *run_docs([str(out / "corpus"), "-o", str(out / "all")])))
            shutil.copy(releases[-1], out / "corpus")
            rows.append(("corpus site, one release added", *run_docs([str(out / "corpus"), "-o", str(out / "all")])))
            size = sum(f.stat().st_size for f in (out / "all").rglob("*") if f.is_file() and ".crparse" not in f.parts)
            print(f"corpus site: {size / 2**20:.0f} MiB of pages")
    print(f"{'command':40} {'seconds':>8} {'CPU s':>8} {'peak MiB':>9}")
    for name, seconds, cpu, peak in rows:
        print(f"{name:40} {seconds:8.1f} {cpu:8.1f} {peak:9.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
