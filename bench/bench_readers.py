"""Per-reader benchmark: parse time (min and median of N runs) and peak traced memory for one
document of each format in ../shared/corpus/ (or $CRPARSE_CORPUS), and the seeds.

    python bench/bench_readers.py [--runs 3] [--json OUT]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import crparse  # noqa: E402


def cases(corpus: Path) -> list[tuple[str, Path]]:
    found = [
        ("text", corpus / "txt" / "2026-01-16.txt"),
        ("docx", corpus / "docx" / "2026-01-16.docx"),
        ("pdf", corpus / "pdf" / "2026-01-16.pdf"),
        ("rtf", corpus / "rtf" / "2012-10-01.rtf"),
        ("rst (14 files)", corpus / "rst" / "2011-07-15" / "index.rst"),
    ]
    seeds = sorted((ROOT / "corpus").iterdir())
    found += [(f"seed {p.name[:3]}", p) for p in seeds]
    found.append(("html (fixture)", ROOT / "tests" / "format_fixtures" / "rules.html"))
    return [(name, path) for name, path in found if path.exists()]


def measure(path: Path, runs: int) -> dict:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        doc = crparse.parse(path)
        times.append(time.perf_counter() - start)
    tracemalloc.start()
    crparse.parse(path)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return {
        "format": doc.source.format,
        "size": doc.source.size,
        "rules": len(doc.rules),
        "min_ms": round(min(times) * 1000, 1),
        "median_ms": round(statistics.median(times) * 1000, 1),
        "peak_mib": round(peak / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--json")
    args = parser.parse_args()
    corpus = Path(os.environ.get("CRPARSE_CORPUS", ROOT.parent / "shared" / "corpus"))
    if not corpus.is_dir():
        print(f"corpus not found at {corpus}: only the seeds are measured", file=sys.stderr)
    results = {}
    print(f"{'input':<16} {'format':<9} {'bytes':>9} {'nodes':>6} {'min ms':>8} {'median':>8} {'peak MiB':>9}")
    for name, path in cases(corpus):
        r = measure(path, args.runs)
        results[name] = r
        print(f"{name:<16} {r['format']:<9} {r['size']:>9} {r['rules']:>6} {r['min_ms']:>8} {r['median_ms']:>8} {r['peak_mib']:>9}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
