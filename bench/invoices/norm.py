"""Shared text helpers of the invoice benchmark: amounts, dates, names and tokens.

Used by ``corpus`` (is an XML value printed on the page?), ``score`` (comparison rules) and
``baseline`` (reading amounts and dates out of page text). Nothing here knows any vendor.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata

# Month names (full and the usual abbreviations) in the benchmark's six languages.
MONTHS = {
    1: "january jan januar jänner janvier janv janvier januari enero ene gennaio gen",
    2: "february feb februar février fevrier févr fevr februari febrero febbraio",
    3: "march mar märz maerz mrz mars maart marzo",
    4: "april apr avril avr abril aprile",
    5: "may mai mei mayo maggio mag",
    6: "june jun juni juin junio giugno giu",
    7: "july jul juli juillet juil julio luglio lug",
    8: "august aug august août aout augustus ago agosto",
    9: "september sep sept septembre setiembre septiembre settembre set",
    10: "october oct oktober octobre okt oct octubre ottobre ott",
    11: "november nov novembre noviembre",
    12: "december dec dezember décembre decembre dez diciembre dic dicembre",
}
MONTH_OF = {w: n for n, words in MONTHS.items() for w in words.split()}
_MONTH_RE = "|".join(sorted(MONTH_OF, key=len, reverse=True))

CURRENCY_SYMBOLS = {"€": "EUR", "$": "USD", "£": "GBP", "₹": "INR", "rs": "INR", "rs.": "INR",
                    "fr.": "CHF", "sfr": "CHF", "euro": "EUR", "euros": "EUR"}

# An amount as printed: 1.234,56 / 1,234.56 / 1 234,56 / 1'234.56 / 1’234.56 / 1234.56 / 1234
AMOUNT_RE = re.compile(r"(?<![\w.,])-?\d{1,3}(?:[ .,'\u2019\u00a0\u202f]\d{3})*(?:[.,]\d{1,4})?(?![\d])|"
                       r"(?<![\w.,])-?\d+(?:[.,]\d{1,4})?(?![\d])")


def fold(text: str) -> str:
    """NFKC, lower case, whitespace collapsed."""
    return re.sub(r"\s+", " ", unicodedata.normalize("NFKC", text or "")).strip().lower()


def tokens(text: str) -> list[str]:
    """Word tokens (letters or digits), lower case."""
    return re.findall(r"\w+", fold(text))


def token_f1(a: str, b: str) -> float:
    """F1 of the two token multisets."""
    ta, tb = tokens(a), tokens(b)
    if not ta or not tb:
        return 0.0
    rest, common = list(tb), 0
    for t in ta:
        if t in rest:
            rest.remove(t)
            common += 1
    if not common:
        return 0.0
    p, r = common / len(ta), common / len(tb)
    return 2 * p * r / (p + r)


def name_key(name: str) -> str:
    """A party name with case, spacing and punctuation removed: 'G.m.b.H.' == 'GmbH'."""
    return "".join(tokens(name))


def parse_amount(value) -> float | None:
    """A number from a JSON number or a printed amount in either convention; None if none."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    s = re.sub(r"[^\d.,'\-]", "", str(value).replace("\u2212", "-").replace("\u2019", "'"))
    neg = s.startswith("-")
    s = s.replace("-", "").replace("'", "")
    if not re.search(r"\d", s):
        return None
    last = max(s.rfind("."), s.rfind(","))
    if last >= 0:
        head, tail = s[:last], s[last + 1:]
        both = "." in s and "," in s
        if not both and len(tail) == 3 and (s.count(s[last]) > 1 or len(head.replace(".", "").replace(",", "")) <= 3):
            head, tail = s, ""  # 1,500 or 1.234.567: thousands separators only
        s = re.sub(r"[.,]", "", head) + ("." + tail if tail else "")
    try:
        v = float(s)
    except ValueError:
        return None
    return -v if neg else v


_DATE_RES = [
    ("iso", re.compile(r"\b(\d{4})-(\d{1,2})-(\d{1,2})\b")),
    ("num", re.compile(r"\b(\d{1,2})[./-](\d{1,2})[./-](\d{4}|\d{2})\b")),
    ("dmy", re.compile(rf"\b(\d{{1,2}})(?:er|st|nd|rd|th)?\.?\s*(?:de\s+)?({_MONTH_RE})\.?\s*(?:de\s+)?(\d{{4}}|\d{{2}})\b")),
    ("mdy", re.compile(rf"\b({_MONTH_RE})\.?\s*(\d{{1,2}})(?:st|nd|rd|th)?\s*,?\s*(\d{{4}})\b")),
]


def find_dates(text: str, prefer_month_first: bool = False) -> list[tuple[int, dt.date]]:
    """Every date in ``text`` with its position (in the folded text), in order: ISO, d.m.y,
    d/m/y, d-m-y (two- or four-digit year) or with a month name in EN/DE/FR/NL/ES/IT.
    Numeric dates are day-first (month-first if asked) unless that gives an impossible date."""
    t = fold(text)
    out = []
    for kind, rx in _DATE_RES:
        for m in rx.finditer(t):
            if kind == "iso":
                d = _mk(int(m[1]), int(m[2]), int(m[3]))
            elif kind == "num":
                a, b, y = int(m[1]), int(m[2]), _year(m[3])
                day, mon = (b, a) if prefer_month_first else (a, b)
                d = _mk(y, mon, day) or _mk(y, day, mon)
            elif kind == "dmy":
                d = _mk(_year(m[3]), MONTH_OF[m[2]], int(m[1]))
            else:
                d = _mk(int(m[3]), MONTH_OF[m[1]], int(m[2]))
            if d:
                out.append((m.start(), d))
    return sorted(out, key=lambda x: x[0])


def parse_date(text: str, prefer_month_first: bool = False) -> dt.date | None:
    """The first date in ``text`` (see ``find_dates``), or None."""
    found = find_dates(text, prefer_month_first)
    return found[0][1] if found else None


def parse_iso(value) -> dt.date | None:
    """A date given as ISO 'YYYY-MM-DD' (a time part is ignored); None otherwise."""
    m = re.match(r"\s*(\d{4})-(\d{2})-(\d{2})", str(value or ""))
    return _mk(int(m[1]), int(m[2]), int(m[3])) if m else None


def _year(s: str) -> int:
    return int(s) + (2000 if len(s) == 2 else 0)


def _mk(y: int, m: int, d: int) -> dt.date | None:
    try:
        return dt.date(y, m, d)
    except ValueError:
        return None


def currency_code(value) -> str | None:
    """ISO code from a code or a symbol ('€' -> 'EUR')."""
    s = fold(str(value or ""))
    if not s:
        return None
    return CURRENCY_SYMBOLS.get(s, s.upper())


# --- is a value printed on the page? (used to keep only visible XML values as truth) ---

def page_numbers(text: str) -> list[float]:
    """Every amount printed in the text, parsed (thin/normal spaces in 1 234,56 joined)."""
    return [v for v in (parse_amount(m.group()) for m in AMOUNT_RE.finditer(text)) if v is not None]


def amount_visible(value: float, text: str) -> bool:
    v = abs(round(value, 2))
    return any(abs(abs(x) - v) < 0.005 for x in page_numbers(text))


def date_visible(day: dt.date, text: str) -> bool:
    return any(day == d for first in (False, True) for _, d in find_dates(text, first))


def string_visible(value: str, text: str) -> bool:
    """All of the value's tokens, in order, in the text's tokens (spacing/punctuation ignored)."""
    key, hay = "".join(tokens(value)), "".join(tokens(text))
    return bool(key) and key in hay


def share_visible(value: str, text: str) -> float:
    """Share of the value's tokens found among the text's tokens."""
    tv, tt = tokens(value), set(tokens(text))
    return sum(t in tt for t in tv) / len(tv) if tv else 0.0
