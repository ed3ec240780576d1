"""Item rows in whole units whose thousands a space groups: "12  kg  2 650  31 800  5%  1 590  33 390".

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
