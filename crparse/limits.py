"""Resource limits on input, so that no input can take the machine down.

The largest official release is about 2.6 MB (an RTF), its text 1.3 MB; the default input limit is
half again as much. Raise it for a larger file with the environment variable CRPARSE_MAX_INPUT (bytes, or
with a K/M/G suffix) or the `max_size` argument of `crparse.parse`.

References are bounded too: the newest releases hold about 1,900 each, and every reference costs
a record in the output (~350 bytes of JSON), so a file of nothing but citations would make output
and memory ~100x its size. Past CRPARSE_MAX_REFERENCES (default 50,000) reading them is refused,
and so past twice as many rules cited in all (a range cites each rule in it), and past twice as
many places that read like a reference (each is read, whether a phrase follows or not).
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Mapping

from crparse.errors import SettingError

DEFAULT_MAX_INPUT = 4 * 2**20
DEFAULT_MAX_REFERENCES = 50_000
DEFAULT_MAX_PARAGRAPHS = 50_000
DEFAULT_MAX_RELEASES = 10_000
# The largest a setting can be: 256 TiB, no limit in practice. A larger one ("1e99", "inf", twenty
# nines and a G) counts as this: the limits are compared with sizes, multiplied by cost factors and
# passed to reads, and past ~2**63 Python refuses them as sizes (OverflowError).
MAX_SETTING = 2**48
_SUFFIXES = {"K": 2**10, "M": 2**20, "G": 2**30}
# Every environment variable crparse reads; TEST_SETTINGS are read by its tests and benchmarks.
SETTINGS = ("CRPARSE_MAX_INPUT", "CRPARSE_MAX_REFERENCES", "CRPARSE_MAX_PARAGRAPHS", "CRPARSE_MAX_RELEASES",
            "CRPARSE_MAX_INFLATED", "CRPARSE_MAX_PDF_STREAM", "CRPARSE_MAX_PDF_CONTENT", "CRPARSE_MAX_RST_WORK",
            "CRPARSE_MAX_XML_ELEMENTS", "CRPARSE_MAX_PDF_MEMORY", "CRPARSE_MAX_PDF_SECONDS", "CRPARSE_MAX_READ_SECONDS",
            "CRPARSE_MAX_READ_MEMORY",
            "CRPARSE_MAX_SITE_UNITS",
            "CRPARSE_JOBS")
TEST_SETTINGS = ("CRPARSE_CORPUS", "CRPARSE_ARTIFACTS", "CRPARSE_FUZZ_EXAMPLES")


def parse_size(text: str) -> int:
    """"16M" -> 16777216; a plain number is bytes; at most MAX_SETTING."""
    text = text.strip().upper().removesuffix("B").removesuffix("I")
    factor = _SUFFIXES.get(text[-1:], 1)
    number = text[:-1] if text[-1:] in _SUFFIXES else text
    try:
        value = float(number) * factor  # float: 5,000 digits are a number too (inf), not an int's ValueError
    except ValueError:  # "G", "abc"
        raise ValueError(f"not a size: {text!r}") from None
    if not value >= 1:  # NaN, negative, zero, a fraction of a byte
        raise ValueError(f"not a size: {text!r}")
    return int(min(value, MAX_SETTING))


def max_input() -> int:
    """The input size limit in force: CRPARSE_MAX_INPUT when set (and valid), else the default."""
    return setting("CRPARSE_MAX_INPUT", DEFAULT_MAX_INPUT)


def max_paragraphs() -> int:
    """How many paragraphs (rules, examples, glossary entries, headings, ...) one document may
    hold: CRPARSE_MAX_PARAGRAPHS when set (and valid), else the default, ten times the largest
    release (2026-01-16: 5,217). Each becomes a node with its own record in every output, so
    4 MB of one-word rules would cost ~20 s and ~100x its size in a graph."""
    return setting("CRPARSE_MAX_PARAGRAPHS", DEFAULT_MAX_PARAGRAPHS)


MAX_SITE_UNITS = 12_000  # rules, subrules, glossary entries and references of one release a site is built of


def max_site_units() -> int:
    """How many rules, subrules, glossary entries and references one release may hold for `docs`
    to build its pages: CRPARSE_MAX_SITE_UNITS, else 12,000 (the 2026 release: about 6,000).
    Sphinx's time grows with them (about 1 ms a reference), and a site's change and history pages
    with those of two releases: 45,000 rules took 27 s, two such releases 149 s and 1 GiB; 45,000
    references 43 s (sweeps 13 and 14)."""
    return setting("CRPARSE_MAX_SITE_UNITS", MAX_SITE_UNITS)


def too_many_paragraphs(limit: int) -> str:
    return (f"more than {limit:,} paragraphs (rules, examples, glossary entries; a release has about 5,200), "
            "the limit (CRPARSE_MAX_PARAGRAPHS): raise it to read them")


def max_releases() -> int:
    """How many releases a store may hold: CRPARSE_MAX_RELEASES when set (and valid), else
    10,000 (a corpus of every release in every format is about 600). Each costs a row in every
    list of the releases, and a lookup in some: a store of a million took 10 s a command."""
    return setting("CRPARSE_MAX_RELEASES", DEFAULT_MAX_RELEASES)


def max_store_value() -> int:
    """The longest value (in bytes) a store may hold: four times the input limit, since no text of a
    release is longer than its document, held to that limit, and UTF-8 takes at most four bytes
    a character. SQLite refuses a longer one as it reads the row, before it loads it (and takes
    no limit past 10^9 bytes)."""
    return min(4 * max_input(), 10**9)


def max_references() -> int:
    """How many references one document (or one file given to cite-check) may hold:
    CRPARSE_MAX_REFERENCES when set (and valid), else the default."""
    return setting("CRPARSE_MAX_REFERENCES", DEFAULT_MAX_REFERENCES)


def setting(name: str, default: int) -> int:
    """The limit the environment variable `name` sets (see parse_size), or `default` when it is
    unset or empty. A value that is not a size is refused (SettingError): taken for the default,
    a mistyped `CRPARSE_MAX_INPUT=32 MB` read the file the user meant to allow as too large."""
    value = os.environ.get(name)
    if not value:
        return default
    try:
        return parse_size(value)
    except ValueError:
        raise SettingError(not_a_setting(name, value)) from None


def not_a_setting(name: str, value: str) -> str:
    if name == "CRPARSE_JOBS":
        return f"the setting {name}={value!r} is not a number of processes (1 or more)"
    return (f"the setting {name}={value!r} is not a number (1 or more, of bytes where it is a size; "
            "a K, M or G suffix multiplies by 1024, 1024^2, 1024^3)")


def check_settings(environ: Mapping[str, str]) -> tuple[list[str], list[str]]:
    """The problems of the CRPARSE_* variables of `environ`: (errors, warnings). An error is a
    setting whose value is refused; a warning, a CRPARSE_ name crparse does not read (a typo
    would otherwise leave the limit the user meant to change as it was, silently)."""
    errors, warnings = [], []
    for name, value in sorted(environ.items()):
        if not name.startswith("CRPARSE_"):
            continue
        if name in SETTINGS:
            if value and not _valid(name, value):
                errors.append(not_a_setting(name, value))
        elif name not in TEST_SETTINGS:
            close = difflib.get_close_matches(name, SETTINGS, n=1)
            hint = f" (did you mean {close[0]}?)" if close else ""
            warnings.append(f"warning: {name} is not a setting crparse reads{hint}; it is ignored")
    return errors, warnings


def _valid(name: str, value: str) -> bool:
    if name == "CRPARSE_JOBS":
        return jobs_given(value) is not None
    try:
        parse_size(value)
    except ValueError:
        return False
    return True


def jobs_given(value: str) -> int | None:
    """The number of processes CRPARSE_JOBS=`value` asks for, or None if it is not one."""
    given = value.strip()
    digits = given.lstrip("0")
    if not (given.isdecimal() and digits):  # isdigit() takes "²", which int() refuses
        return None
    # Python converts no more than 4,300 digits; no machine runs a billion processes
    return int(digits) if len(digits) <= 9 else 10**9


def max_cited() -> int:
    """How many rules the references of one document may cite in all, a range citing every rule in
    it and a target that is missing counting one (the newest release: 2,170; `rules 100.1a-905.4z`
    alone cites 3,000): twice the reference limit."""
    return 2 * max_references()


def max_anchors() -> int:
    """How many places that read like the start of a reference (a keyword such as "rule", or a
    rule number) one document may hold, phrase or not (the newest release: about 3,000): twice
    the reference limit. Each costs a run of tokens read, so a flood of them is bounded too."""
    return 2 * max_references()


def too_many_anchors(limit: int) -> str:
    return (f"more than {limit:,} places that read like references (a release has about 3,000), the limit "
            "(twice CRPARSE_MAX_REFERENCES): raise it to read them")


def too_many_cited(limit: int) -> str:
    return (f"references citing more than {limit:,} rules or glossary terms in all (a range cites every rule in it; "
            "a release cites about 2,200), the limit (twice CRPARSE_MAX_REFERENCES): raise it to read them")


def too_many_references(limit: int) -> str:
    """The refusal's message, the same wherever references are counted."""
    return (f"more than {limit:,} references, the limit (CRPARSE_MAX_REFERENCES; a release holds about 2,000): "
            "raise it to read them")


def describe(size: int) -> str:
    return f"{size / 2**20:.1f} MiB" if size >= 2**20 else f"{size} bytes"
