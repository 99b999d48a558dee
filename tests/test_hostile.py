"""The hostile-input regression corpus (tests/hostile_inputs.py), each case run through the CLI in
a child process under the limits every input must respect: 15 s and 1 GiB."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hostile_inputs import build
from limits import run_limited

import crparse

# The case names, listed here so that collecting the tests builds nothing (some inputs take a
# second or two to write); the fixture checks that the list is the generator's.
NAMES = [
    "rtf-lone-surrogate", "rtf-lone-surrogate-text", "rtf-bad-escapes", "control-char-heading-graphml",
    "control-char-heading-json", "non-utf8-file-name", "non-utf8-file-name-c-locale", "newline-in-file-name",
    "batch-with-bad-files", "many-references-one-line", "glossary-pointer-to-end-of-line", "glossary-pointer-80k",
    "html-nested-divs", "html-sibling-blocks", "html-br-every-line", "html-million-br",
    "html-million-br-ebcdic", "html-br-utf7", "markdown-pathological-inline", "fifo-in-directory", "fifo-named", "toctree-fifo-and-dev-zero", "docx-zip-bomb",
    "pdf-flate-bomb", "unclosed-quote-5mb-line", "digits-5mb-line", "dots-5mb-line", "rules-over-the-size-limit",
    "toctree-escapes", "toctree-escapes-dir", "toctree-dot-slash-link-dir", "docutils-messages",
    "markdown-with-inline-html", "text-with-inline-html", "cite-check-digits", "wide-ranges-json",
    "wide-ranges-graphml", "markdown-bracket-flood", "markdown-cr-line-ends", "nfc-combining-run", "max-input-infinite",
    "cite-check-over-the-size-limit", "glossary-reference-flood", "cite-check-citation-flood",
    "rtf-field-starts", "rtf-font-table", "rtf-bin-without-length", "html-punycode-charset", "html-idna-charset",
    "html-utf16-page", "nfc-tibetan-run", "pdf-many-catalogs", "rst-code-tokens", "rst-code-number-lines",
    "rst-code-ending-the-file", "markdown-long-character-reference", "path-past-path-max", "examples-of-many-long-sentences",
    "rtf-field-then-words", "html-idna-alias-charset", "nfc-marks-by-decomposition", "rst-substitution-copies",
    "rst-line-past-docutils-limit", "rtf-font-entries-without-semicolons", "rtf-upper-case-field-start",
    "rst-substitution-markup-chain", "pdf-bomb-behind-a-keyword-no-end", "pdf-bomb-behind-a-keyword-string",
    "pdf-bomb-behind-a-keyword-comment", "pdf-bomb-behind-a-comment-after-a-string", "pdf-comment-lines-before-a-keyword",
    "pdf-streams-under-one-header", "docx-long-namespace-uri",
    "docx-namespace-uri-at-the-limit", "docx-attributes-in-many-namespaces", "markdown-deep-list-line",
    "markdown-deep-list-lines", "html-unclosed-then-paragraphs", "pdf-bomb-with-stream-in-its-dictionary-name",
    "pdf-bomb-with-stream-in-its-dictionary-string",
]


@pytest.fixture(scope="session")
def hostile(tmp_path_factory):
    cases = {case.name: case for case in build(tmp_path_factory.mktemp("hostile"))}
    assert list(cases) == NAMES, "tests/test_hostile.py NAMES is not the generator's list"
    return cases


@pytest.mark.hostile
@pytest.mark.parametrize("name", NAMES)
def test_hostile_input(name, hostile):
    case = hostile[name]
    result = run_limited(case.args, env=case.env)
    assert not result.timed_out, f"{name}: still running after 15 s"
    assert not result.out_of_memory, f"{name}: out of memory (1 GiB): {result.stderr[-300:]!r}"
    assert not result.traceback, f"{name}: traceback:\n{result.stderr.decode('utf-8', 'replace')[-1500:]}"
    assert result.returncode in case.expect, f"{name}: exit {result.returncode}: {result.stderr[-500:]!r}"
    result.stdout.decode("utf-8")  # stdout is always valid UTF-8
    result.stderr.decode("utf-8")
    for marker in case.must_not_print:
        assert marker.encode() not in result.stdout, f"{name}: printed {marker!r}"
    if case.not_in_text:
        doc = json.loads(result.stdout)
        texts = [r["text"] for r in doc["rules"]] + [e["text"] for r in doc["rules"] for e in r["examples"]]
        texts += [g["text"] for g in doc["glossary"]]
        for marker in case.not_in_text:
            assert not any(marker in t for t in texts), f"{name}: {marker!r} in the text"
        assert any(d["code"] == "rst-markup" for d in doc["diagnostics"]), f"{name}: no diagnostic"
    if case.one_line_refusal and result.returncode == 2 and len(case.args) <= 3:
        refusals = [line for line in result.stderr.splitlines() if line.startswith(b"crparse: ")]
        assert len(refusals) == len(result.stderr.splitlines()), f"{name}: stray stderr lines: {result.stderr[-500:]!r}"


# -- settings: every CRPARSE_* variable, out of range ----------------------------------------------

SETTINGS = ["CRPARSE_MAX_INPUT", "CRPARSE_MAX_REFERENCES", "CRPARSE_MAX_PARAGRAPHS", "CRPARSE_MAX_INFLATED",
            "CRPARSE_MAX_PDF_STREAM", "CRPARSE_MAX_PDF_CONTENT", "CRPARSE_MAX_XML_ELEMENTS", "CRPARSE_MAX_RST_WORK",
            "CRPARSE_MAX_PDF_SECONDS", "CRPARSE_MAX_READ_SECONDS", "CRPARSE_MAX_READ_MEMORY"]


@pytest.mark.hostile
@pytest.mark.parametrize("value", ["1e99", "99999999999999999999G", "9" * 5_000], ids=["1e99", "huge-G", "5000-digits"])
@pytest.mark.parametrize("kind", ["txt", "pdf", "docx", "html"])
def test_settings_out_of_range_count_as_the_largest(tmp_path, kind, value):
    """A sweep: CRPARSE_MAX_INPUT=1e99 was an internal error (OverflowError: the limit was passed
    to a read); 100G a MemoryError (the read allocated it)."""
    from builders import make_docx, make_pdf
    from hostile_inputs import CR

    lines = [line for line in CR.splitlines() if line]
    data = {
        "txt": CR.encode(), "docx": make_docx(lines), "html": ("<html><body>" + "".join(f"<p>{line}</p>" for line in lines)).encode(),
        "pdf": make_pdf([[(72, 740 - 14 * i, line) for i, line in enumerate(lines)]]),
    }[kind]
    path = tmp_path / f"cr.{kind}"
    path.write_bytes(data)
    result = run_limited(["parse", "--json", str(path)], env=dict.fromkeys(SETTINGS, value))
    assert result.ok_within_limits and result.returncode == 0, (result.returncode, result.stderr[-300:])
    assert {"100.1", "100.1a", "100.2"} <= {r["number"] for r in json.loads(result.stdout)["rules"]}


def test_parse_size_bounds(monkeypatch):
    from crparse.limits import MAX_SETTING, max_input, parse_size
    from crparse.parallel import jobs

    assert [parse_size(v) for v in ("16M", "1e99", "inf", "99999999999999999999G", "9" * 5_000)] == [16 << 20] + [MAX_SETTING] * 4
    for value in ("nan", "-5", "0", "0.5", "G", "abc"):
        with pytest.raises(ValueError):
            parse_size(value)
    monkeypatch.setenv("CRPARSE_MAX_INPUT", "nan")
    with pytest.raises(crparse.SettingError, match="CRPARSE_MAX_INPUT='nan' is not a number"):
        max_input()  # not the default: a mistyped setting would leave the limit as it was, unsaid
    monkeypatch.setenv("CRPARSE_MAX_INPUT", "")
    assert max_input() == 4 << 20  # empty: unset
    for value, expected in [("9" * 5_000, 10**9), ("007", 7), (" 3 ", 3)]:
        monkeypatch.setenv("CRPARSE_JOBS", value)
        assert jobs() == expected, value
    for value in ("\u00b2", "0", "-2", "two", "1.5"):
        monkeypatch.setenv("CRPARSE_JOBS", value)
        with pytest.raises(crparse.SettingError, match="CRPARSE_JOBS"):
            jobs()


def test_every_setting_read_is_known_to_the_check():
    """check_settings (the CLI's first step) knows every variable the library reads: a setting
    added without it would be refused file by file instead of once, and its typos go unwarned."""
    from crparse.limits import SETTINGS

    root = Path(crparse.__file__).parent
    read = set()
    for path in root.rglob("*.py"):
        read |= set(re.findall(r'(?:setting|environ\.get)\("(CRPARSE_[A-Z_]+)"', path.read_text(encoding="utf-8")))
    assert read and read == set(SETTINGS)


@pytest.mark.parametrize("env, message", [
    ({"CRPARSE_MAX_INPUT": "32 MB or so"}, "the setting CRPARSE_MAX_INPUT='32 MB or so' is not a number"),
    ({"CRPARSE_MAX_REFERENCES": "-1"}, "the setting CRPARSE_MAX_REFERENCES='-1' is not a number"),
    ({"CRPARSE_JOBS": "all"}, "the setting CRPARSE_JOBS='all' is not a number of processes"),
])
def test_a_setting_that_is_not_a_number_is_refused_once_before_any_file(tmp_path, env, message):
    from hostile_inputs import CR

    paths = []
    for name in ("a.txt", "b.txt"):
        paths.append(tmp_path / name)
        paths[-1].write_text(CR, encoding="utf-8")
    result = run_limited(["parse", *map(str, paths)], env=env)
    stderr = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b""
    assert len(stderr.splitlines()) == 1 and stderr.startswith(f"crparse: {message}")
    assert "a.txt" not in stderr


def test_a_mistyped_setting_name_is_warned_of(tmp_path):
    from hostile_inputs import CR

    path = tmp_path / "a.txt"
    path.write_text(CR, encoding="utf-8")
    result = run_limited(["parse", str(path)], env={"CRPARSE_MAX_INPTU": "32M", "CRPARSE_CORPUS": "/nowhere"})
    assert result.returncode == 0
    assert result.stderr.decode().splitlines() == [
        "crparse: warning: CRPARSE_MAX_INPTU is not a setting crparse reads (did you mean CRPARSE_MAX_INPUT?); it is ignored"]


def test_the_harness_stops_a_busy_child_and_a_blocked_one():
    """CPU time bounds a computing child (the test stays right on a busy machine); the wall-clock
    backstop, one that waits without computing."""
    busy = run_limited([], code="while True: pass", seconds=1)
    assert busy.timed_out and busy.seconds < 10
    blocked = run_limited([], code="import time; time.sleep(60)", seconds=1, wall=2)
    assert blocked.timed_out and blocked.seconds < 10
    quick = run_limited([], code="sum(range(10**6))")
    assert not quick.timed_out and quick.returncode == 0 and 0 < quick.cpu_seconds < 5



@pytest.mark.parametrize("argv, shown", [
    (["parse", ""], "PATH"),
    (["diff", "", "x.txt"], "OLD"),
    (["history", "100.1", "--db", ""], "--db"),
    (["index", "corpus", "--db", ""], "--db"),
    (["cite-check", "README.md", "--cr", ""], "--cr"),
    (["examples", "corpus", "--emit-pytest", ""], "--emit-pytest"),
    (["docs", "corpus", "-o", ""], "--output"),
    (["docs", "--db", "", "-o", "site"], "--db"),
])
def test_an_empty_path_is_refused_not_read_as_the_current_directory(tmp_path, argv, shown):
    # found by a sweep: `index --db ""` wrote the default store, `history --db ""` said ".: not a
    # crparse store", `examples --emit-pytest ""` wrote nothing and said nothing
    result = run_limited(argv, env={"HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)})
    stderr = result.stderr.decode()
    assert result.returncode == 2 and result.stdout == b"", stderr
    assert stderr == f"crparse: {argv[0]}: {shown} is empty: it names no file (see --help)\n"
    assert list(tmp_path.iterdir()) == []  # no default store made
