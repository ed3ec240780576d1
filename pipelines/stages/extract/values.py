"""Text to the schema's types: numbers in the conventions of Western Europe and the US, dates,
booleans, enums, patterns and e-mail addresses; ``None`` when the text is not of the type."""

from __future__ import annotations

import re
from contextvars import ContextVar
from datetime import datetime
from typing import Any

from pipelines.stages.extract.postcodes import US_STATE
from pipelines.stages.extract.roles import DATE as PRINTED_DATE
from pipelines.stages.extract.roles import as_printed
from pipelines.stages.extract.schema import Field, _type

CURRENCY = re.compile(r"[$€£¥]|\b(?:USD|EUR|GBP|CHF|JPY|CAD|AUD|INR|SEK|NOK|DKK)\b", re.I)
DATE_FORMATS = ("%Y-%m-%d", "%d.%m.%Y", "%d/%m/%Y", "%m/%d/%Y", "%d-%m-%Y", "%B %d, %Y", "%b %d, %Y",
                "%d %B %Y", "%d %b %Y", "%B %d %Y", "%b %d %Y", "%Y/%m/%d", "%Y.%m.%d", "%d.%m.%y", "%b. %d, %Y",
                "%d/%m/%y", "%d-%b-%Y", "%d-%b-%y", "%d %b %y", "%d/%b/%Y", "%d %B %y")
_MONTH_FIRST_FORMATS = ("%m/%d/%Y", "%m-%d-%Y", "%m/%d/%y") + tuple(  # tried first where a document says so
    f for f in DATE_FORMATS if f not in ("%m/%d/%Y", "%m-%d-%Y", "%m/%d/%y"))
TRUE = {"yes", "y", "true", "paid", "checked", "x", "✓", "✔", "on", "1", "agree", "agreed", "active"}
FALSE = {"no", "n", "false", "unpaid", "unchecked", "off", "0", "none", "open", "due", "outstanding", "pending"}
QUANTITY_UNIT = re.compile(r"(?<=\d)\s*(?:units?|unit\(s\)|pcs|pieces?|stk|stück|st|liters?|liter\(s\)|litres?|kg|"
                           r"hours?|hrs?|days?|months?|m2|m²|kiste|karton|unités?|unité\(s\)|pièces?|heures?|jours?|"
                           r"stuks?|uur|uren|dagen)\.?\s*$", re.I)
EMAIL = re.compile(r"[^@\s]+@[^@\s]+\.[^@\s]+")


def parse_number(text: str) -> float | None:
    s = CURRENCY.sub("", text).replace("\u00a0", " ").strip()
    m = re.search(r"[-+(]?\d[\d.,'’ ]*\d|[-+]?\d", s)
    if not m:
        return None
    num = m.group(0).replace(" ", "").replace("'", "").replace("’", "")
    neg = num.startswith(("-", "("))
    num = num.lstrip("+-(")
    if "," in num and "." in num:  # the last separator is the decimal one
        num = num.replace(",", "") if num.rfind(".") > num.rfind(",") else num.replace(".", "").replace(",", ".")
    elif "," in num:
        head, _, tail = num.rpartition(",")
        num = num.replace(",", "") if len(tail) == 3 and head else head.replace(",", "") + "." + tail
    elif num.count(".") > 1:
        num = num.replace(".", "")
    try:
        v = float(num)
    except ValueError:
        return None
    return -v if neg else v


# month names and their usual abbreviations in German, French, Dutch, Spanish and Italian → the
# English abbreviation strptime reads ("3 mars 2024", "12. März 2024", "3 de marzo de 2024")
MONTHS = {
    1: "januar janvier januari enero gennaio jänner janv ene gen",
    2: "februar février fevrier februari febrero febbraio févr fevr feb",
    3: "märz maerz mars maart marzo mrt mär",
    4: "april avril abril aprile avr abr",
    5: "mai mei mayo maggio mag",
    6: "juni juin junio giugno juin giu",
    7: "juli juillet julio luglio juil lug",
    8: "august août aout augustus agosto ago aoû",
    9: "september septembre septiembre settembre sept sett set",
    10: "oktober octobre octubre ottobre okt ott",
    11: "november novembre noviembre",
    12: "dezember décembre decembre december diciembre dicembre dez déc dic",
}
_ABBR = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_MONTH_WORD = {w: _ABBR[m - 1] for m, words in MONTHS.items() for w in words.split()}
_MONTH_WORD.update({a.lower(): a for a in _ABBR})  # (so "31 oct. 2023" loses its dot)
_MONTH_RE = re.compile(r"(?<![a-zà-ÿ])(" + "|".join(sorted(map(re.escape, _MONTH_WORD), key=len, reverse=True))
                       + r")\.?(?![a-zà-ÿ])", re.I)


def _english_months(s: str) -> str:
    """Month names of the lexicon's languages as English abbreviations; "de"/"del"/"di" between
    day, month and year dropped ("3 de marzo de 2024" → "3 Mar 2024"); "12." → "12"."""
    s = _MONTH_RE.sub(lambda m: _MONTH_WORD[m.group(1).lower()], s)
    s = re.sub(r"\b(?:de|del|di)\s+", "", s, flags=re.I) if re.search(r"\b(?:de|del|di)\s", s, re.I) else s
    return re.sub(r"\b(\d{1,2})\.\s+(?=[A-Z])", r"\1 ", s)


# a document's way of writing numeric dates: True when it writes the month first (03/05/2026 is
# 5 March), set for the document being read (``month_first``); day first otherwise
MONTH_FIRST: ContextVar[bool] = ContextVar("month_first", default=False)
_NUMERIC_DATE = re.compile(r"(?<![\d/.-])(\d{1,2})([/-])(\d{1,2})\2(?:\d{4}|\d{2})(?![\d/])")
_US_ADDRESS = re.compile(rf"(?:\b{US_STATE},? |, {US_STATE}\n)\d{{5}}(?:-\d{{4}})?\b")  # ("City, ST" / "12345" wrapped)


def month_first(text: str) -> bool:
    """Does a document write numeric dates month first? Its own unambiguous dates say so
    (13/05/2026 is day first, 05/13/2026 month first); when none does, an address with a US
    state and ZIP code does (a US document writes 03/05/2026 for 5 March)."""
    day = month = 0
    for m in _NUMERIC_DATE.finditer(text):
        a, b = int(m.group(1)), int(m.group(3))
        day += a > 12 >= b
        month += b > 12 >= a and b <= 31
    if day != month:
        return month > day
    return bool(_US_ADDRESS.search(text))


def parse_date(text: str) -> str | None:
    s = re.sub(r"\s+", " ", text.strip().rstrip("."))
    s = re.sub(r"(\d)(st|nd|rd|th|er|º|°)\b", r"\1", s)
    s = re.sub(r"\b(\d{1,2})\. (\d{1,2})\. (\d{4})\b", r"\1.\2.\3", s)  # "12. 3. 2024" (Czech, Slovak)
    s = _english_months(s)
    candidates = [s] + re.findall(r"\d{4}[./-]\d{1,2}[./-]\d{1,2}(?!\d)|(?<!\d)\d{1,2}[./-]\d{1,2}[./-]\d{2,4}|"
                                  r"[A-Za-z]{3,9}\.? \d{1,2},? \d{4}|\d{1,2}[ /-][A-Za-z]{3,9}\.?[ /-]\d{2,4}", s)
    formats = _MONTH_FIRST_FORMATS if MONTH_FIRST.get() else DATE_FORMATS
    for cand in candidates:
        for fmt in formats:
            try:
                return datetime.strptime(cand, fmt).date().isoformat()
            except ValueError:
                continue
    return None


def coerce(value: str, f: Field) -> Any:
    """``value`` as the field's type, or ``None`` when it is not one (then the candidate does
    not fit the field)."""
    s = f.schema
    t = _type(s)
    v = value.strip()
    if not v or set(v) <= set("_ .-"):
        return None
    if "enum" in s and isinstance(s["enum"], list):
        low = v.lower()
        for opt in s["enum"]:
            if str(opt).lower() == low:
                return opt
        for opt in s["enum"]:
            if re.search(rf"(?<!\w){re.escape(str(opt).lower())}(?!\w)", low):
                return opt
        return None
    if t in ("number", "integer"):
        if len(re.findall(r"\d[\d.,'’]*[.,]\d{2}(?![\d])", v)) >= 2:
            return None  # several amounts ("11,00 60,00 27,00"), not one
        n = parse_number(v)
        bare = QUANTITY_UNIT.sub("", v)  # "20 Unit(s)", "25 Liter(s)", "1.00 kg": a count and its unit
        if n is None or (len(re.sub(r"[\d.,\s$€£¥+()-]", "", CURRENCY.sub("", bare))) > 3):
            return None
        if t == "integer":
            return int(n) if n == int(n) else None
        return n
    if t == "boolean":
        low = re.sub(r"[^\w✓✔ ]", "", v.lower()).strip()
        if low in TRUE:
            return True
        if low in FALSE:
            return False
        return None
    fmt = s.get("format")
    if fmt is None and re.search(r"(^|_)(date|dob|birth)(_|$)", f.name) and as_printed(f):
        m = PRINTED_DATE.search(v)  # a date as printed: the date in the text, nothing else
        if m is None:
            return None
        v = m.group(0)
    elif fmt == "date" or (fmt is None and re.search(r"(^|_)(date|dob|birth)(_|$)", f.name)):
        d = parse_date(v)
        if d is None and fmt == "date":
            return None
        v = d or v
    elif fmt == "date-time":
        d = parse_date(v)
        v = d or v
    if fmt == "email" or re.search(r"(^|_)e?mail$", f.name):
        m = EMAIL.search(re.sub(r"\s*@\s*", "@", v))  # OCR puts spaces around the @
        if m is None:
            return None
        v = m.group(0)
    if isinstance(s.get("pattern"), str):
        try:
            pat = re.compile(s["pattern"])
        except re.error:
            pat = None
        if pat is not None and not pat.search(v):
            tok = next((t for t in v.split() if pat.search(t)), None)
            if tok is None:
                return None
            v = tok
    return v
