"""What the real-world benchmark measures: words kept whole, reading order, table cells.

* ``tokens``: a text's words: Unicode NFKC, soft hyphens, tatweel, zero-width and bidi control
  characters, other control characters, combining marks and private-use characters (the pieces
  of TeX's big delimiters) removed, then split on whitespace. Nothing else is changed
  (punctuation and case stay), so a word counts only when it comes out whole.
* ``word_recall``: the share of the reference words (a multiset) found among the system's words.
  A reference word that ends a line with a hyphen ("infor-" then "mation") also counts, with the
  next word, when the system joined them ("information" or "infor-mation").
* ``order_similarity``: normalised Levenshtein similarity of the two word sequences (rapidfuzz,
  tokens compared whole): 1.0 when the words come in the same order, lower for each word moved,
  missing or extra.
* table cell accuracy: the scorer of ``shared/data/tables-dev/score.py``, imported, not copied.
* ``adjacency_f1``: the table competitions' adjacency relations: each non-empty cell with the
  next non-empty cell to its right and the next one below it, as (text, text, direction), the
  texts normalised as the cell scorer does; precision and recall of the predicted table's
  relations against the expected one's (multisets), the best predicted table on the page counting.
"""

from __future__ import annotations

import importlib.util
import re
import unicodedata
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

from rapidfuzz.distance import Levenshtein

_DROP = re.compile("[\u00ad\u0640\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff\ufffe]")


def _keep(ch: str) -> str:
    cat = unicodedata.category(ch)
    if cat == "Cc":
        return " " if ch.isspace() else ""
    return "" if cat in ("Mn", "Co", "Cs") else ch


def normalize(text: str) -> str:
    text = _DROP.sub("", unicodedata.normalize("NFKC", text or ""))
    return "".join(_keep(ch) for ch in text)


def tokens(text: str) -> list[str]:
    return normalize(text).split()


def word_recall(reference: list[str], shown: list[str]) -> float:
    """Share of ``reference`` words found whole in ``shown`` (both token lists); 1.0 when the
    reference is empty."""
    if not reference:
        return 1.0
    have = Counter(shown)
    found, i = 0, 0
    while i < len(reference):
        w = reference[i]
        if have[w] > 0:
            have[w] -= 1
            found += 1
            i += 1
            continue
        if len(w) > 1 and w.endswith("-") and i + 1 < len(reference):
            nxt = reference[i + 1]
            joined = next((j for j in (w[:-1] + nxt, w + nxt) if have[j] > 0), None)
            if joined is not None:
                have[joined] -= 1
                found += 2
                i += 2
                continue
        i += 1
    return found / len(reference)


def order_similarity(reference: list[str], shown: list[str]) -> float:
    """Normalised Levenshtein similarity over the word sequences (1.0: same words, same order)."""
    if not reference and not shown:
        return 1.0
    return float(Levenshtein.normalized_similarity(reference, shown))


def table_scorer(tables_dir: Path) -> ModuleType:
    """The tables-dev scorer (``score.py`` beside ``cases.json``), imported from where it lies."""
    spec = importlib.util.spec_from_file_location("tables_dev_score", tables_dir / "score.py")
    if spec is None or spec.loader is None:
        raise FileNotFoundError(tables_dir / "score.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _relations(table: list[list[str]], norm: Callable[[str], str]) -> Counter:
    rows = [[norm(c) for c in r] for r in table]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    out: Counter = Counter()
    for y, row in enumerate(rows):
        for x, cell in enumerate(row):
            if not cell:
                continue
            right = next((c for c in row[x + 1:] if c), None)
            below = next((r[x] for r in rows[y + 1:] if r[x]), None)
            if right is not None:
                out[(cell, right, "h")] += 1
            if below is not None:
                out[(cell, below, "v")] += 1
    return out


def adjacency_f1(expected: list[list[str]], predicted: list[list[list[str]]],
                 norm: Callable[[str], str]) -> float:
    """F1 of the adjacency relations of the best predicted table against the expected table's."""
    truth = _relations(expected, norm)
    best = 0.0
    for table in predicted:
        found = _relations(table, norm)
        hit = sum((truth & found).values())
        if hit:
            p, r = hit / sum(found.values()), hit / sum(truth.values())
            best = max(best, 2 * p * r / (p + r))
    return best
