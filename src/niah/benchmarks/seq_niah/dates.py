"""Dates as Sequential-NIAH writes them, and as answers write them back.

``find_dates(text)`` returns every date mention in a text with its span and the calendar days it can mean.
A mention can mean more than one day only when it is ambiguous as written (``03/04/2010``: March 4 or
April 3); a mention without a year (``November 6``) leaves the year open. Two mentions are the same date when
their sets of possible days meet (:func:`same_date`).

Forms read: ISO and numeric with ``-``, ``/`` or ``.`` in either order (``2010-11-06``, ``2010/11/6``,
``06.11.2010``, ``11/06/2010``), month names and abbreviations in every order the builder and models write
(``November 6, 2010``, ``November 6th, 2010``, ``Nov. 6 2010``, ``November-06-2010``, ``6 November 2010``,
``6th of November, 2010``, ``In November 2010, on the 6th``), an optional weekday before any of these
(``Saturday, November 6, 2010``), and Chinese dates with Arabic or Chinese numerals (``2010年11月6日``,
``2010年11月06号``, ``二〇一〇年十一月六日``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date

MONTHS: dict[str, int] = {}
for _i, _names in enumerate((
    ("january", "jan"), ("february", "feb"), ("march", "mar"), ("april", "apr"), ("may",), ("june", "jun"),
    ("july", "jul"), ("august", "aug"), ("september", "sep", "sept"), ("october", "oct"),
    ("november", "nov"), ("december", "dec"),
), start=1):
    for _n in _names:
        MONTHS[_n] = _i

MONTH_NAMES = ("January", "February", "March", "April", "May", "June", "July", "August", "September",
               "October", "November", "December")

_MON = r"(?P<mon>january|february|march|april|may|june|july|august|september|october|november|december|" \
       r"jan|feb|mar|apr|jun|jul|aug|sept|sep|oct|nov|dec)\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>\d{4})"
_WEEKDAY = r"(?:(?:mon|tues|wednes|thurs|fri|satur|sun)day|mon|tue|tues|wed|thu|thur|thurs|fri|sat|sun)\.?,?\s+"
_SEP = r"[\s,\-/.]*"

_CN_DIGITS = {"〇": 0, "零": 0, "○": 0, "Ｏ": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6,
              "七": 7, "八": 8, "九": 9}

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # 2010年11月6日 / 2010年11月06号 / 二〇一〇年十一月六日
    ("zh", re.compile(r"(?P<year>[0-9０-９〇零○一二三四五六七八九]{4})\s*年\s*(?P<mon>[0-9０-９一二三四五六七八九十]{1,3})\s*月"
                      r"\s*(?P<day>[0-9０-９一二三四五六七八九十]{1,3})\s*[日号號]")),
    # In November 2010, on the 6th
    ("en_mdy_split", re.compile(r"\b" + _MON + r"\s+" + _YEAR + r",?\s+on\s+the\s+" + _DAY + r"\b", re.I)),
    # 6th of November, 2010 / 6 November 2010 / 6-November-2010
    ("en_dmy", re.compile(r"\b(?:" + _WEEKDAY + r")?(?:the\s+)?" + _DAY + r"(?:\s+of)?" + _SEP + _MON + _SEP
                          + _YEAR + r"\b", re.I)),
    # November 6th, 2010 / Nov. 6 2010 / November-06-2010
    ("en_mdy", re.compile(r"\b(?:" + _WEEKDAY + r")?" + _MON + _SEP + r"(?:the\s+)?" + _DAY + r"(?:st|nd|rd|th)?"
                          + r"(?:\s*,\s*|" + _SEP + r")" + _YEAR + r"\b", re.I)),
    # 2010-11-06 / 2010/11/6 / 2010.11.06
    ("ymd", re.compile(r"(?<![\d.])(?P<year>\d{4})\s?[-/.]\s?(?P<mon>\d{1,2})\s?[-/.]\s?(?P<day>\d{1,2})(?![\d])")),
    # 06.11.2010 / 11/06/2010 (either order when both parts are <= 12)
    ("num_dmy", re.compile(r"(?<![\d.])(?P<a>\d{1,2})\s?[-/.]\s?(?P<b>\d{1,2})\s?[-/.]\s?(?P<year>\d{4})(?![\d])")),
    # year-less: November 6 / 6 November (only when no full date covers the span)
    ("en_md", re.compile(r"\b(?:" + _WEEKDAY + r")?" + _MON + r"\s+" + _DAY + r"\b(?![,\s]*\d{4})", re.I)),
    ("en_dm", re.compile(r"\b" + _DAY + r"(?:\s+of)?\s+" + _MON + r"\b(?![,\s]*\d{4})", re.I)),
    ("zh_md", re.compile(r"(?<![年\d])(?P<mon>[0-9]{1,2}|[一二三四五六七八九十]{1,3})\s*月\s*(?P<day>[0-9]{1,2}|[一二三四五六七八九十]{1,3})"
                         r"\s*[日号號]")),
]


def _cn_number(text: str) -> int:
    """Arabic, full-width or Chinese numerals (一 .. 三十一, and digit-by-digit years such as 二〇一〇)."""
    text = text.translate(str.maketrans("０１２３４５６７８９", "0123456789"))
    if text.isdigit():
        return int(text)
    if "十" in text:
        tens, _, ones = text.partition("十")
        return (_CN_DIGITS.get(tens, 1) if tens else 1) * 10 + (_CN_DIGITS.get(ones, 0) if ones else 0)
    value = 0
    for ch in text:
        if ch not in _CN_DIGITS:
            raise ValueError(text)
        value = value * 10 + _CN_DIGITS[ch]
    return value


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date as written: its character span and the (year or None, month, day) triples it can mean."""

    start: int
    end: int
    days: frozenset[tuple[int | None, int, int]]


def _valid(year: int | None, month: int, day: int) -> bool:
    try:
        date(year if year is not None else 2000, month, day)  # 2000 is a leap year: Feb 29 stays possible
    except ValueError:
        return False
    return year is None or 1000 <= year <= 2999


def _days(kind: str, m: re.Match[str]) -> set[tuple[int | None, int, int]]:
    g = m.groupdict()
    try:
        if kind == "num_dmy":
            a, b, y = int(g["a"]), int(g["b"]), int(g["year"])
            return {t for t in ((y, b, a), (y, a, b)) if _valid(*t)}
        year: int | None = _cn_number(g["year"]) if g.get("year") else None
        mon_text = g["mon"].lower().rstrip(".")
        month = MONTHS[mon_text] if mon_text in MONTHS else _cn_number(mon_text)
        day = _cn_number(g["day"])
    except (ValueError, KeyError):
        return set()
    return {(year, month, day)} if _valid(year, month, day) else set()


def find_dates(text: str) -> list[DateMention]:
    """Every date mention in ``text``, left to right, none overlapping (full dates win over year-less ones)."""
    taken: list[tuple[int, int]] = []
    found: list[DateMention] = []
    for kind, pattern in _PATTERNS:
        for m in pattern.finditer(text):
            s, e = m.span()
            if any(s < te and ts < e for ts, te in taken):
                continue
            days = _days(kind, m)
            if not days:
                continue
            taken.append((s, e))
            found.append(DateMention(s, e, frozenset(days)))
    found.sort(key=lambda d: d.start)
    return found


def same_date(a: frozenset[tuple[int | None, int, int]], b: frozenset[tuple[int | None, int, int]]) -> bool:
    """True when two mentions can mean the same day (an open year matches any year)."""
    for ya, ma, da in a:
        for yb, mb, db in b:
            if ma == mb and da == db and (ya is None or yb is None or ya == yb):
                return True
    return False


# --- writing dates (the builder's formats) -------------------------------------------------------------------

def format_date(d: date, style: str) -> str:
    """A date in one of the formats the official needles use (see ``DATE_STYLES``)."""
    month = MONTH_NAMES[d.month - 1]
    if style == "iso":
        return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"
    if style == "slash":
        return f"{d.year:04d}/{d.month:02d}/{d.day:02d}"
    if style == "month-dash":
        return f"{month}-{d.day:02d}-{d.year}"
    if style == "day-month":
        return f"{d.day} {month} {d.year}"
    if style == "month-day":
        return f"{month} {d.day}, {d.year}"
    if style == "zh":
        return f"{d.year}年{d.month:02d}月{d.day:02d}日"
    raise ValueError(f"unknown date style {style!r}")


#: The date formats seen in the official needles: 2010-11-06, 2010/11/09, November-11-2010, 19 November 2010,
#: November 6, 2010 and 2006年02月04日.
DATE_STYLES = ("iso", "slash", "month-dash", "day-month", "month-day", "zh")


def answer_date(d: date, lang: str) -> str:
    """The date as the official gold answers write it: ``November 6, 2010`` (EN), ``2006年02月01日`` (ZH)."""
    return format_date(d, "zh" if lang == "zh" else "month-day")
