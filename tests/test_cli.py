"""The command line, run as users run it (python -m crparse), exit codes included."""

from __future__ import annotations

import json
import subprocess
import sys

from conftest import FIXTURES, ROOT


def run(*args: str, input: bytes | None = None):
    return subprocess.run([sys.executable, "-m", "crparse", *args], capture_output=True, cwd=ROOT, input=input, timeout=120)


def test_summary():
    result = run("parse", str(FIXTURES / "modern.txt"))
    assert result.returncode == 0, result.stderr
    out = result.stdout.decode()
    assert "effective date: 2026-01-16" in out
    assert "2 parts, 3 sections, 8 rules, 6 subrules, 2 examples" in out


def test_json_single_and_lines_for_several(tmp_path):
    single = run("parse", "--json", str(FIXTURES / "modern.txt"))
    assert json.loads(single.stdout)["title"] == "Magic: The Gathering Comprehensive Rules"
    several = run("parse", "--json", str(FIXTURES))
    lines = several.stdout.decode().strip().split("\n")
    assert len(lines) == len(list(FIXTURES.iterdir()))
    assert [json.loads(line)["source"]["path"] for line in lines] == sorted(str(p) for p in FIXTURES.iterdir())


def test_refusal_is_one_line_and_exit_2(tmp_path):
    not_cr = tmp_path / "summary.txt"
    not_cr.write_text("A.1 - General Rulings on Abilities\nThese rulings are updated monthly.\n")
    result = run("parse", str(not_cr))
    assert result.returncode == 2
    err = result.stderr.decode().strip()
    assert err.count("\n") == 0 and str(not_cr) in err and "not a Comprehensive Rules document" in err
    assert "Traceback" not in err


def test_missing_binary_and_empty_files(tmp_path):
    empty = tmp_path / "empty.txt"
    empty.write_bytes(b"")
    binary = tmp_path / "blob.bin"
    binary.write_bytes(bytes(range(256)) * 64)
    pdf = tmp_path / "rules.pdf"
    pdf.write_bytes(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    for path in (empty, binary, pdf, tmp_path / "missing.txt"):
        result = run("parse", str(path))
        err = result.stderr.decode()
        assert result.returncode == 2, err
        assert str(path) in err and "Traceback" not in err


def test_good_and_bad_inputs_together_exit_2_but_parse_the_good(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("nothing here\n")
    result = run("parse", str(FIXTURES / "modern.txt"), str(bad))
    assert result.returncode == 2
    assert "effective date: 2026-01-16" in result.stdout.decode()


def test_schema_command():
    result = run("schema")
    assert json.loads(result.stdout)["title"] == "crparse document"


def test_bundled_corpus_main_job():
    result = run("parse", "corpus")
    assert result.returncode == 0, result.stderr
    assert result.stdout.decode().count("fragment: sections") == 5
