"""Dates as people give them to crparse: a day, a month or a year, as ISO writes them (2020-04-01,
2020-04, 2020). A month or a year is a period, not a day: compared as text with the releases'
dates, "2020" sorts before "2020-01-01" and `--at 2020` found no release in 2020.

Which end of the period counts depends on the question: the rules in force at a date (history
--at, diff by date, the rules date of examples) are those in force at its end, the newest of the
period; the rules citations were written against since a date (cite-check --since) are those in
force at its start.
"""

from __future__ import annotations

import datetime as _dt
import re

from crparse.errors import CrparseError, quoted

_DATE = re.compile(r"(\d{4})(?:-(\d\d)(?:-(\d\d))?)?", re.ASCII)  # not another script's digits
FORMS = "YYYY-MM-DD, or YYYY-MM, YYYY"


def period(text: str) -> tuple[str, str] | None:
    """The first and last day `text` names, as YYYY-MM-DD (a day: itself twice); None when it
    names none ("yesterday", "2020/1/1", "2021-02-29")."""
    m = _DATE.fullmatch(text)
    if m is None:
        return None
    year, month, day = (int(g) if g else None for g in m.groups())
    try:
        if day is not None:
            first = last = _dt.date(year, month, day)
        elif month is not None:
            first = _dt.date(year, month, 1)
            last = _dt.date(year, 12, 31) if month == 12 else _dt.date(year, month + 1, 1) - _dt.timedelta(days=1)
        else:
            first, last = _dt.date(year, 1, 1), _dt.date(year, 12, 31)
    except ValueError:  # month 13, day 31 of a short month, year 0
        return None
    return first.isoformat(), last.isoformat()


def first_day(text: str) -> str:
    return _named(text)[0]


def last_day(text: str) -> str:
    return _named(text)[1]


def _named(text: str) -> tuple[str, str]:
    days = period(text)
    if days is None:
        raise CrparseError(f"{quoted(text)} is not a date ({FORMS})")
    return days
