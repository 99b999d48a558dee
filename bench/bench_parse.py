"""Parse benchmarks (not a test): run `python bench/bench_parse.py [--corpus DIR] [--json OUT]`.

Measures, in one process:
  1. the 2026-01-16 release parsed in-process, as a ratio to a bare scan of the same file in the
     same run (read, decode, split lines, one regex per line): the target is <= 5 (median);
     and against a regex extractor of the kind rules sites use (a handful of findall passes
     over the whole text: lossy, no line accounting), written here to stand for one;
  2. each pipeline stage on that release, and the JSON writer given the document and its
     references (target: no slower than the parse), the references themselves apart;
  3. `import crparse` in a fresh interpreter, and what it loads;
  4. all releases in txt/ parsed, and written as JSON with their references, one after another;
  5. peak memory: tracemalloc's peak for one parse, and the process's max RSS at the end;
  6. absurd inputs (a 5 MB single line), which must finish in a few seconds.
Timings are min and median of repeated runs after a warm-up, with time.perf_counter.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path

from common import ROOT, add_corpus_argument, interleaved_ms, timed_ms, txt_dir  # also puts the project on sys.path

import crparse
from crparse.blocks.regions import find_first_rule, find_regions, is_hard_wrapped
from crparse.blocks.tokenize import tokenize
from crparse.decode import decode
from crparse.readers import read
from crparse.tree.build import build
from crparse.tree.checks import check_numbering
from crparse.writers.json import dumps

RULE_LINE = re.compile(r"\s*\d{3}\.\d+[a-z]?\.?\s")

# A rules site's extractor: whole-text findall passes for rules, examples and glossary terms.
PEER_RULE = re.compile(r"^(\d{3}\.\d+[a-z]?)\.? (.*)$", re.MULTILINE)
PEER_EXAMPLE = re.compile(r"^Example: (.*)$", re.MULTILINE)
PEER_SECTION = re.compile(r"^(\d{3})\. (.*)$", re.MULTILINE)
PEER_GLOSSARY = re.compile(r"^([A-Z][^\n.]{0,60})\n(.+)$", re.MULTILINE)


def median_ms(fn, repeat: int) -> float:
    return timed_ms(fn, repeat)[1]


def bare_scan(path: Path) -> int:
    text = path.read_bytes().decode("utf-8-sig")
    count = 0
    for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        if RULE_LINE.match(line):
            count += 1
    return count


def peer_extract(path: Path) -> int:
    text = path.read_bytes().decode("utf-8-sig").replace("\r\n", "\n").replace("\r", "\n")
    body, _, glossary = text.partition("\nGlossary\n")
    rules = PEER_RULE.findall(body)
    examples = PEER_EXAMPLE.findall(body)
    sections = PEER_SECTION.findall(body)
    terms = PEER_GLOSSARY.findall(glossary)
    return len(rules) + len(examples) + len(sections) + len(terms)


def import_time_ms(repeat: int = 5) -> tuple[float, list[str]]:
    """`import crparse` in a fresh interpreter, less the interpreter's own start (min of runs),
    and the heavy libraries it loaded."""
    probe = ("import sys, time; t = time.perf_counter(); import crparse; t = time.perf_counter() - t; "
             "heavy = ['lark', 'networkx', 'docutils', 'bs4', 'docx', 'pypdfium2', 'markdown_it', 'striprtf']; "
             "print(t * 1000); print(','.join(m for m in heavy if m in sys.modules))")
    best, loaded = float("inf"), []
    for _ in range(repeat):
        out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, cwd=ROOT, check=True)
        ms, heavy = out.stdout.splitlines()
        best = min(best, float(ms))
        loaded = [m for m in heavy.split(",") if m]
    return best, loaded


def stages(path: Path, repeat: int) -> dict[str, float]:
    raw = path.read_bytes()
    lines = read(raw, str(path)).lines
    wrapped = is_hard_wrapped(lines)
    first = find_first_rule(lines, wrapped)
    regions = find_regions(lines, first, wrapped)
    tokens = tokenize(lines, regions)
    parts = build(tokens.blocks)
    doc = crparse.parse(raw)
    refs = crparse.references(doc)
    return {
        "decode": median_ms(lambda: decode(raw), repeat),
        "read (decode + plain-text reader)": median_ms(lambda: read(raw, str(path)), repeat),
        "regions": median_ms(lambda: find_regions(lines, first, is_hard_wrapped(lines)), repeat),
        "tokenize": median_ms(lambda: tokenize(lines, regions), repeat),
        "grammar+tree": median_ms(lambda: build(tokens.blocks), repeat),
        "checks": median_ms(lambda: check_numbering(parts.rules, fragment=False), repeat),
        "references": median_ms(lambda: crparse.references(doc), repeat),
        "json (writer, compact)": median_ms(lambda: dumps(doc, refs), repeat),
        "json (writer, indented)": median_ms(lambda: dumps(doc, refs, indent=2), repeat),
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    add_corpus_argument(ap)
    ap.add_argument("--release", default="2026-01-16")
    ap.add_argument("--repeat", type=int, default=31)
    ap.add_argument("--json", type=Path, help="also write the figures to this file")
    args = ap.parse_args()

    txt = txt_dir(args.corpus)
    if txt is None:
        return 2
    release = txt / f"{args.release}.txt"
    figures: dict = {"python": sys.version.split()[0], "cpus": os.cpu_count(), "release": args.release}

    # Bare scan, parse and the peer-style extractor in turn, round after round (see interleaved_ms).
    runs = interleaved_ms(
        {"bare": lambda: bare_scan(release), "parse": lambda: crparse.parse(release), "peer": lambda: peer_extract(release)},
        args.repeat,
    )
    (bare_min, bare_med), (full_min, full_med), (peer_min, peer_med) = runs["bare"], runs["parse"], runs["peer"]
    figures.update(
        bare_scan_ms=round(bare_min, 2), parse_ms=round(full_min, 2), ratio=round(full_min / bare_min, 2),
        bare_scan_median_ms=round(bare_med, 2), parse_median_ms=round(full_med, 2),
        ratio_median=round(full_med / bare_med, 2),
        peer_extract_ms=round(peer_min, 2), peer_extract_median_ms=round(peer_med, 2),
        parse_to_peer_median=round(full_med / peer_med, 2),
    )
    figures["stages_median_ms"] = {k: round(v, 2) for k, v in stages(release, args.repeat).items()}
    figures["import_ms"], figures["import_loads"] = import_time_ms()

    tracemalloc.start()
    crparse.parse(release)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    figures["parse_peak_mib"] = round(peak / 2**20, 1)
    figures["input_mib"] = round(release.stat().st_size / 2**20, 2)

    files = sorted(txt.glob("*.txt"))
    rules, parse_s, refs_s, json_s = 0, 0.0, 0.0, 0.0
    for path in files:
        start = time.perf_counter()
        doc = crparse.parse(path)
        mid = time.perf_counter()
        refs = crparse.references(doc)
        after = time.perf_counter()
        dumps(doc, refs)
        parse_s, refs_s, json_s = parse_s + mid - start, refs_s + after - mid, json_s + time.perf_counter() - after
        rules += len(doc.rules)
    figures["corpus_files"] = len(files)
    figures["corpus_s"] = round(parse_s, 2)
    figures["corpus_references_s"] = round(refs_s, 2)
    figures["corpus_json_s"] = round(json_s, 2)
    figures["corpus_numbered_units"] = rules

    absurd = {
        "5 MB single line (refused)": b"x" * 5_000_000,
        "5 MB single rule": b"100.1. " + b"word " * 1_000_000,
        "1M blank lines": b"\n" * 1_000_000 + b"100.1. A.\n100.2. B.\n",
    }
    figures["absurd_ms"] = {}
    for name, data in absurd.items():
        start = time.perf_counter()
        try:
            crparse.parse(data)
        except crparse.CrparseError:
            pass
        figures["absurd_ms"][name] = round((time.perf_counter() - start) * 1000, 1)
    figures["max_rss_mib"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)

    print(f"release {args.release} ({figures['input_mib']} MiB), min of {args.repeat}: parse {figures['parse_ms']} ms, "
          f"bare scan {figures['bare_scan_ms']} ms, ratio {figures['ratio']}")
    print(f"  medians: parse {figures['parse_median_ms']} ms, bare scan {figures['bare_scan_median_ms']} ms, "
          f"ratio {figures['ratio_median']} (target <= 5)")
    print(f"  peer-style regex extractor: {figures['peer_extract_median_ms']} ms median; parse / peer "
          f"{figures['parse_to_peer_median']}")
    print("  stages, median ms: " + ", ".join(f"{k} {v}" for k, v in figures["stages_median_ms"].items()))
    print(f"  import crparse: {figures['import_ms']:.1f} ms, heavy libraries loaded: {figures['import_loads'] or 'none'}")
    print(f"  peak traced memory of one parse: {figures['parse_peak_mib']} MiB")
    print(f"corpus: {figures['corpus_files']} releases parsed in {figures['corpus_s']} s (target < 15 s), "
          f"{figures['corpus_numbered_units']} numbered units; references {figures['corpus_references_s']} s; "
          f"JSON written in {figures['corpus_json_s']} s")
    print("absurd inputs (ms): " + ", ".join(f"{k}: {v}" for k, v in figures["absurd_ms"].items()))
    print(f"max RSS: {figures['max_rss_mib']} MiB")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(figures, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
