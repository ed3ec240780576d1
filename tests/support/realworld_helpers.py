"""What the real-world tests and ``bench/tables.py`` share: the page's own text layer as the
reference for "was every word kept?", word recall, and the table metric.

Word recall is measured as a user would: the words (whitespace-split, NFKC) of the page's text
layer as pypdfium2 reads it, against every word the result shows for that page (text, table
cells, figure text, headers and footers). A reference word that the result splits at a cell
boundary or glues to a bullet still counts when its characters are all there.
"""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium

from tests.support.docgen import normalize

REALWORLD = Path(__file__).resolve().parents[1] / "realworld"


def _norm(t: str) -> str:
    return unicodedata.normalize("NFKC", t).replace("\u00ad", "").replace("\ufffe", "")


def text_layer(data: bytes) -> list[str]:
    """Each page's text as pypdfium2 reads it (content-stream order)."""
    pdf = pdfium.PdfDocument(data)
    try:
        out = []
        for i in range(len(pdf)):
            page = pdf[i]
            tp = page.get_textpage()
            out.append(tp.get_text_range())
            tp.close()
            page.close()
        return out
    finally:
        pdf.close()


def fragment_texts(fragments: list[Any]) -> list[str]:
    """Every piece of text a page's fragments show a reader."""
    out: list[str] = []
    for f in fragments:
        c = f.content if hasattr(f, "content") else f["content"]
        kind = f.fragment_type if hasattr(f, "fragment_type") else f["fragment_type"]
        if kind == "table":
            out += [cell["text"] for cell in c.get("cells", [])]
        elif kind == "key_value_region":
            continue  # form values: not in the text layer
        else:
            out.append(str(c.get("content", "")))
            if c.get("marker"):
                out.append(c["marker"])
            if kind == "figure" and c.get("text") and c.get("text") != c.get("content"):
                out.append(c["text"])
    return out


def page_text(fragments: list[Any]) -> str:
    """The page as a reader goes through it: fragments in reading order, a table row by row."""
    out: list[str] = []
    for f in fragments:
        c = f.content
        if f.fragment_type == "table":
            n, m = int(c.get("rows", 0)), int(c.get("columns", 0))
            cells = [x["text"] for x in c.get("cells", [])]
            out += [" ".join(t for t in cells[i * m:(i + 1) * m] if t) for i in range(n)]
        elif f.fragment_type != "key_value_region":
            out.append(str(c.get("content", "")))
    return "\n".join(out)


def word_recall(reference: str, shown: list[str]) -> tuple[float, list[str]]:
    """(recall, missing words): reference words found in ``shown`` as a multiset; a word missing
    as a token but whose characters are all left over counts as found (split or glued)."""
    want = Counter(_norm(reference).split())
    if not want:
        return 1.0, []
    have = Counter(w for t in shown for w in _norm(t).split())
    spare = Counter(ch for t in shown for ch in _norm(t) if not ch.isspace())
    for tok, n in want.items():
        for ch in tok:
            spare[ch] -= min(n, have.get(tok, 0))
    lost: list[str] = []
    for tok, n in want.items():
        short = n - have.get(tok, 0)
        for _ in range(max(0, short)):
            need = Counter(tok)
            if all(spare[ch] >= k for ch, k in need.items()):
                spare.subtract(need)
            else:
                lost.append(tok)
    total = sum(want.values())
    return (total - len(lost)) / total, lost


def cell_accuracy(hyp: list[list[str]], ref: list[list[str]]) -> float:
    """Share of reference cells found at the same row and column (whitespace-normalised)."""
    total = sum(len(r) for r in ref)
    ok = sum(1 for i, row in enumerate(ref) for j, cell in enumerate(row)
             if i < len(hyp) and j < len(hyp[i]) and normalize(hyp[i][j]) == normalize(cell))
    return ok / max(1, total)


def best_table(found: list[list[list[str]]], ref: list[list[str]]) -> tuple[float, list[list[str]]]:
    """The found table that scores best against ``ref`` (0.0 when none is found)."""
    best: tuple[float, list[list[str]]] = (0.0, [])
    for t in found:
        best = max(best, (cell_accuracy(t, ref), t), key=lambda x: x[0])
    return best


def match_tables(found: list[list[list[str]]], refs: list[list[list[str]]]) -> list[float]:
    """Each reference table's cell accuracy against a distinct found table (pairs taken best
    first; a reference left without a found table scores 0)."""
    pairs = sorted(((cell_accuracy(t, r), i, j) for i, r in enumerate(refs) for j, t in enumerate(found)),
                   reverse=True)
    score = [0.0] * len(refs)
    used_r: set[int] = set()
    used_f: set[int] = set()
    for s, i, j in pairs:
        if i in used_r or j in used_f:
            continue
        score[i] = s
        used_r.add(i)
        used_f.add(j)
    return score


def cases() -> list[dict[str, Any]]:
    """The shipped pages and their ground truth (``tests/realworld/truth.json``)."""
    return json.loads((REALWORLD / "truth.json").read_text())["pages"]
