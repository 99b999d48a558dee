"""`crparse index` as the number of releases grows: N tiny synthetic releases (~1 KB, one a day
from 1990-01-01, each rewording a rule of the one before, every seventh inserting a rule that
pushes the others up) indexed from nothing, then a few more added between stored ones. The CPU
seconds (this process's children: the command and its workers, from wait4) are the figure to
compare on a shared machine; a run linear in the releases takes about the same per release at
every N.

    python bench/bench_store.py [--releases 1000 4000] [--json OUT]
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import ENV, ROOT

sys.path.insert(0, str(ROOT / "tests"))
from small_releases import release_of  # noqa: E402  (the tests' small release, dated any day)

RULES = {
    "100.1": "These Magic rules apply to any Magic game with two or more players.",
    "100.2": "To play, each player needs their own deck of traditional Magic cards.",
    "100.3": "Some formats and casual variants allow players to use supplemental rules.",
    "101.1": "Whenever a card's text directly contradicts these rules, the card takes precedence.",
    "101.2": "When a rule or effect allows something to happen, and another effect states that it can't happen, "
             "the can't effect takes precedence.",
    "101.3": "Any part of an instruction that's impossible to perform is ignored (see rule 100.3).",
}
START = datetime.date(1990, 1, 1)


def write_releases(folder: Path, days: range) -> None:
    """One release for each day of `days` (counted from START); a day's text depends on the days
    before it only, so that the releases written later fall between those written first."""
    folder.mkdir(parents=True, exist_ok=True)
    rules = dict(RULES)
    for i in range(days.stop):
        key = sorted(rules)[i % len(rules)]
        rules[key] = rules[key].rstrip(".") + f" (v{i})."
        if i % 7 == 3:
            moved = [text for number, text in rules.items() if number.startswith("100.")][:6]
            rules = {"100.1": f"Inserted rule {i}."} | {f"100.{j + 2}": text for j, text in enumerate(moved)} | {
                number: text for number, text in rules.items() if not number.startswith("100.")}
        if i in days:
            day = START + datetime.timedelta(days=i)
            (folder / f"{day}.txt").write_text(release_of(rules, day), encoding="utf-8")


def index_cpu(folder: Path, db: Path) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of `crparse index FOLDER --db DB`."""
    start = time.perf_counter()
    child = subprocess.Popen([sys.executable, "-m", "crparse", "index", str(folder), "--db", str(db)], cwd=ROOT,
                             env=ENV, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    stderr = child.stderr.read()
    _, status, usage = os.wait4(child.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"crparse index {folder}: exit {os.waitstatus_to_exitcode(status)}: {stderr.decode()[-800:]}")
    return usage.ru_utime + usage.ru_stime, time.perf_counter() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--releases", type=int, nargs="+", default=[1000, 4000])
    ap.add_argument("--added", type=int, default=5, help="releases added to the built store, between stored ones")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "crparse")], env=ENV, check=True)
    results = []
    print(f"{'releases':>8} {'from nothing CPU s':>19} {'ms/release':>11} {'wall s':>7} {f'+{args.added} CPU s':>10}")
    for count in args.releases:
        with tempfile.TemporaryDirectory() as tmp:
            folder, db = Path(tmp) / "releases", Path(tmp) / "store.sqlite"
            # every other day first; the rest of the last few days later, between stored releases
            write_releases(folder, range(0, 2 * count, 2))
            cpu, wall = index_cpu(folder, db)
            write_releases(folder, range(2 * count - 2 * args.added + 1, 2 * count, 2))
            more, _ = index_cpu(folder, db)
        results.append({"releases": count, "cpu_s": round(cpu, 2), "wall_s": round(wall, 2), "ms_per_release":
                        round(1000 * cpu / count, 2), "added": args.added, "added_cpu_s": round(more, 2)})
        print(f"{count:8} {cpu:19.1f} {1000 * cpu / count:11.2f} {wall:7.1f} {more:10.2f}")
    if args.json:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
