"""Item rows read by their own arithmetic: whole units whose thousands a space groups, and counts
and prices the decimal readers do not take for amounts.

``regrouped``: "12  kg  2 650  31 800  5%  1 590  33 390".

Invoices in currencies without minor units (forints, yen, krónur) print no decimals and group
thousands with a space, so a row's figures run together: "2 650 31 800" is 2,650 and 31,800, or
2 / 650 / 31,800, or …; nothing in the text says which. The row's own arithmetic does: the
grouping in which the count times a price makes a later figure (12 × 2,650 = 31,800) is the one
printed. ``regrouped`` returns the row with those figures joined and given decimals (so the
decimal readers take them as amounts), and what each stood for as printed.
"""

from __future__ import annotations

import itertools
import re

from pipelines.stages.extract.values import parse_number

# a unit printed after a count (or a currency before the price: "20 € 3,50")
UNIT = re.compile(r"^(?:x|stk\.?|st\.?|stück|pcs?\.?|pc|pce|ea\.?|h|hrs?|std\.?|kg|m|m2|m²|qm|lfm|l|ltr|set|pkg|"
                  r"pausch\.?|psch\.?|pauschal|unit[ée]?s?|u\.?|[€$£]|eur|usd|gbp|chf)$", re.I)
COUNT = re.compile(r"^\d{1,6}(?:[.,]\d{1,3})?$")
LEAD, GROUP = re.compile(r"^\d{1,3}$"), re.compile(r"^\d{3}$")
MAX_RUN = 8  # figures in one run, beyond which the row is no item row


def _groupings(run: list[str]) -> list[list[list[str]]]:
    """Every way to read a run of figure tokens as numbers (each a lead of one to three figures
    and then groups of three), the ones that join the most first."""
    if not run:
        return [[]]
    out = []
    for k in range(len(run), 0, -1):
        head = run[:k]
        if LEAD.match(head[0]) and all(GROUP.match(t) for t in head[1:]):
            out += [[head, *rest] for rest in _groupings(run[k:])]
    return out


def regrouped(text: str) -> tuple[str, dict[str, str]] | None:
    """``text`` with its whole amounts joined and written with decimals where a count before a
    price makes a later figure, and the printed form of each; None where none does."""
    tokens = text.split()
    runs: list[tuple[int, int]] = []  # [start, end) of each run of bare figures
    k = 0
    while k < len(tokens):
        if LEAD.match(tokens[k]):
            end = k
            while end < len(tokens) and LEAD.match(tokens[end]):
                end += 1
            runs.append((k, end))
            k = end
        else:
            k += 1
    if not runs or any(b - a > MAX_RUN for a, b in runs):
        return None
    counts = [(k, float(t.replace(",", "."))) for k, t in enumerate(tokens) if COUNT.match(t)]
    for choice in itertools.islice(itertools.product(*[_groupings(tokens[a:b]) for a, b in runs]), 512):
        numbers: list[tuple[int, int, float]] = []  # token start, end, value (in the row's order)
        for (a, _), parts in zip(runs, choice):
            at = a
            for part in parts:
                numbers.append((at, at + len(part), float("".join(part))))
                at += len(part)
        for (ca, cv), (pa, pb, pv), (aa, _, av) in itertools.product(counts, numbers, numbers):
            if ca < pa and pb <= aa and cv > 0 and pv >= 1 and av >= 10 and abs(cv * pv - av) <= 0.5:
                # the figures after the count, joined; everything before it as printed
                printed: dict[str, str] = {}
                out = tokens[:pa]
                at = pa
                for s, e, v in numbers:
                    if s < pa:
                        continue
                    while at < s:
                        out.append(tokens[at])
                        at += 1
                    joined = f"{int(v)},00"
                    printed[joined] = " ".join(tokens[s:e])
                    out.append(joined)
                    at = e
                out += tokens[at:]
                return "  ".join(out), printed
    return None


CENTS = re.compile(r"\d+[.,]\d{2}")  # a price's usual form
# a figure that may be a count or a price: up to four decimals ("10000,0000 KWh", "0,0520")
FIGURE = re.compile(r"(?<![\w.,])\d{1,7}(?:[.,]\d{1,4})?(?![\w.,]|[.,]\d)")


def _readings(text: str) -> list[float]:
    """What a figure may stand for: "5,000" is five thousand or five (three decimals)."""
    value = parse_number(text)
    out = [] if value is None else [value]
    if re.fullmatch(r"\d{1,3}[.,]\d{3}", text):
        out += [float(text.replace(",", ".")), float(text.replace(",", "").replace(".", ""))]
    return list(dict.fromkeys(out))


def count_and_price(head: str, amount: float) -> tuple[str, str, str] | None:
    """In ``head`` (a row's text before its amount), the count and the price whose product is
    ``amount`` ("10000,0000 KWh 1 0,0520" before 520,00; "5,000 kg 5,50" before 27,50), the pair
    nearest the amount: the description (before the count, else between it and the price), and
    both as numbers a reader cannot take otherwise; None where no pair makes the amount."""
    figures = list(FIGURE.finditer(head))
    for i in range(len(figures) - 1, -1, -1):
        for p in figures[:i:-1]:
            c = figures[i]
            for cv, pv in itertools.product(_readings(c.group(0)), _readings(p.group(0))):
                if cv > 0 and pv > 0 and abs(cv * pv - amount) <= 0.011 * max(1.0, abs(amount)):
                    desc = head[:c.start()]
                    if sum(ch.isalpha() for ch in desc) < 2:  # the count leads the row, its unit after it
                        words = head[c.end():p.start()].split()
                        desc = " ".join(words[1:] if words and UNIT.match(words[0]) else words)
                    if CENTS.fullmatch(c.group(0)) and not CENTS.fullmatch(p.group(0)):
                        (c, cv), (p, pv) = (p, pv), (c, cv)  # "Einzelpreis  Menge": 12,00 then 10 Stk
                    return " ".join(desc.strip(" -:|").split()), _plain(c.group(0), cv), _plain(p.group(0), pv)
    return None


def _plain(text: str, value: float) -> str:
    """``text`` where it reads as ``value``, else the value written plainly."""
    return text if parse_number(text) == value else f"{value:g}"
