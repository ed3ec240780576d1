"""Page classification, zero-shot, with the service's own embedding model (no LLM).

Each page's text (up to ``WINDOWS`` windows of ``WINDOW_WORDS`` words, embeddings averaged) is
compared by cosine similarity with ``"name: description"`` of every class in the request's
``page_classifications``. A cheap keyword feature is added: the share of the class's own words
(name and description, stop words left out) found on the page, times ``KEYWORD_WEIGHT``. A page
goes to the class with the highest score when it reaches ``MIN_SCORE``, or ``CLEAR_SCORE`` with a
``CLEAR_MARGIN`` over every other class; otherwise to no class (a page that resembles none of
the descriptions stays unclassified rather than being forced into the least bad one). Words
that name the kind of document or label in German, French, Dutch, Spanish or Italian are glossed
in English first (``extract.lexicon``), and a page far taller than wide is captioned as a slip.

A layout caption is scored the same way, times ``LAYOUT_WEIGHT``: the page's layout in words
("a landscape slide", "mostly tables", "short labelled fields"), so that descriptions speaking
of layout can match pages whose words do not.

``MIN_SCORE`` = 0.33, measured on the test corpora (30 pages: generated invoices, forms,
letters, table reports, and the real manual pages): the right class scored 0.34–0.94; classes
describing something else entirely (a recipe, a contract, a medical record) scored 0.04–0.32.
The margin is thin: a class description close to a page's words can pass it.
"""

from __future__ import annotations

import re

import numpy as np

from pipelines.core.models import DocumentResult, PageClass, PageResult
from pipelines.core.requests import PageClassConfig
from pipelines.stages import embed
from pipelines.stages.extract.lexicon import CHANGE_GIVEN, COUNTER_PAYMENT, glosses_in

WINDOW_WORDS = 120
WINDOWS = 3
KEYWORD_WEIGHT = 0.25
LAYOUT_WEIGHT = 0.5
MIN_SCORE = 0.33
# ... or a lower score that stands clearly above every other class's: real pages in a language or
# register far from the description (a LaTeX manual page for "technical documentation") score
# 0.18-0.3 for their class and well under it for the others
CLEAR_SCORE = 0.18
CLEAR_MARGIN = 0.05

STOP = set("""a an and are as at be by for from in into is it its of on or that the this to with
without page pages any some such their there these those which who whom what when where will""".split())
WORD = re.compile(r"[A-Za-z][A-Za-z'-]+")
# a word that is code: a backslash command, a brace, an option (``--width``), a call (``f(x)``),
# a snake_case name, a method call, a tag
CODE = re.compile(r"\\[A-Za-z@]+|[{}]|^--?[a-z][\w-]+$|[A-Za-z_]\w*\([^)]*\)|^[a-z]+_[a-z_]+$|\w\.\w+\(|^</?[a-z]+>$")
# share of such words from which a page reads as technical text (real receipts and invoices, OCR
# noise included: at most 0.05; LaTeX manual pages: half of them above 0.06)
CODE_SHARE = 0.06
# a till roll's text (the dev receipts: extent 0.34-0.79 of its height, most under 0.6; the dev
# invoices 0.55-1.42, with longer lines)
SLIP_RATIO = 0.62
# a slide's lines: 4-7 % of its height (beamer's 11 pt on a 96 mm page); a manual's 10 pt on A4: 1.3 %
LARGE_TYPE = 0.025
SLIP = "a long narrow slip of paper, like a till receipt"
SLIP_WEIGHT = 1.0
PROSE = "a page of a book or article: dense running text in paragraphs"
SLIP_CHARS = 45
# ... and prints prices on three lines at least (an item, the total, the payment: the dev receipts
# 3-23 such lines; a narrow column of a manual page, 65 dev pages of 165: at most 2)
SLIP_PRICES = 3
PRICE = re.compile(r"\d[.,]\d{2}(?!\d)")


def _fragment_text(f) -> str:  # type: ignore[no-untyped-def]
    if f.fragment_type == "table" and isinstance(f.content.get("cells"), list):
        return " ".join(str(c.get("text") or "") for c in f.content["cells"] if isinstance(c, dict))
    c = f.content.get("content")
    return c if isinstance(c, str) else ""


def page_text(page: PageResult) -> str:
    return "\n".join(t for f in page.fragments if (t := _fragment_text(f)))


def _printed_lines(page: PageResult) -> list[str]:
    """The page's lines as printed: a table's rows each a line (its cells left to right)."""
    out: list[str] = []
    for f in page.fragments:
        if f.fragment_type == "table" and isinstance(f.content.get("cells"), list):
            rows: dict[int, list[str]] = {}
            for c in sorted((c for c in f.content["cells"] if isinstance(c, dict)),
                            key=lambda c: (c.get("row") or 0, c.get("column") or 0)):
                rows.setdefault(c.get("row") or 0, []).append(str(c.get("text") or ""))
            out += [" ".join(t for t in row if t) for row in rows.values()]
        else:
            out += _fragment_text(f).splitlines()
    return [ln for ln in out if ln.strip()]


def _area(f) -> float:  # type: ignore[no-untyped-def]
    b = f.bbox
    return max(0.0, (b["x2"] - b["x1"]) * (b["y2"] - b["y1"])) if b else 0.0


def _slip(page: PageResult, lines: list[str]) -> bool:
    """Text set like a till roll's, wherever it lies on the page (a receipt photographed or
    scanned on a bigger sheet): its extent narrower than ``SLIP_RATIO`` of its height, nine
    lines in ten at most ``SLIP_CHARS`` characters (thermal printers print 32-48 a line) and
    prices on ``SLIP_PRICES`` lines."""
    boxes = [f.bbox for f in page.fragments if f.bbox]
    if len(lines) < 8 or not boxes:
        return False
    width = max(b["x2"] for b in boxes) - min(b["x1"] for b in boxes)
    height = max(b["y2"] for b in boxes) - min(b["y1"] for b in boxes)
    lengths = sorted(len(ln) for ln in lines)
    return width < SLIP_RATIO * height and lengths[int(0.9 * (len(lengths) - 1))] <= SLIP_CHARS \
        and sum(1 for ln in lines if PRICE.search(ln)) >= SLIP_PRICES


def _large_type(page: PageResult) -> bool:
    """Is the page's text set large for the page, as on a slide: its lines (a text fragment's
    height over its lines, the median) at least ``LARGE_TYPE`` of the page's height?"""
    heights = sorted((f.bbox["y2"] - f.bbox["y1"]) / max(1, len(t.splitlines()))
                     for f in page.fragments if f.bbox and f.fragment_type == "text" and (t := _fragment_text(f).strip()))
    return bool(heights and page.height and heights[len(heights) // 2] >= LARGE_TYPE * page.height)


def layout_caption(page: PageResult) -> str:
    """The page's layout in words, so that class descriptions that speak of layout ("a slide",
    "a page of tables", "a form to fill in") can match it: orientation, amount of text, share of
    tables, short label-like lines, digits."""
    text = page_text(page)
    words = text.split()
    lines = [ln for ln in text.splitlines() if ln.strip()]
    body = sum(_area(f) for f in page.fragments) or 1.0
    tables = sum(_area(f) for f in page.fragments if f.fragment_type == "table") / body
    digits = sum(ch.isdigit() for ch in text) / max(1, len(text))
    short = sum(1 for ln in lines if len(ln.split()) <= 4) / max(1, len(lines))
    code = sum(1 for w in words if CODE.search(w)) >= CODE_SHARE * max(1, len(words))
    parts = []
    if page.width and page.height and page.width > page.height:
        parts.append("a landscape slide")
    elif page.width and page.height and page.width < 0.6 * page.height or _slip(page, _printed_lines(page)) and not code:
        parts.append(SLIP)  # thermal paper rolls
    elif len(words) < 120:
        parts.append("few words in large type, bullet points" if _large_type(page) else "a short page of text")
    elif len(words) > 350:
        # (as books and articles are set: descriptions say what such a page is, "documentation",
        # "a chapter", "terms and conditions", more often than how it is set)
        parts.append(PROSE)
    if tables > 0.45:
        parts.append("mostly tables: rows and columns of figures")
    elif tables > 0.2:
        parts.append("a table")
    # a code listing's short lines and line numbers are code, not labelled fields and amounts
    if digits > 0.12 and not code:
        parts.append("many numbers and amounts")
    if code:
        parts.append("technical text with code, commands and options")
    elif short > 0.6 and len(lines) >= 6:
        parts.append("short labelled fields")
    return "; ".join(parts) or "a page of text"


def class_words(c: PageClassConfig) -> set[str]:
    return {w.lower() for w in WORD.findall(c.name.replace("_", " ") + " " + c.description)
            if w.lower() not in STOP and len(w) > 2}


def keyword_share(words: set[str], page_words: set[str]) -> float:
    """The share of ``words`` on the page (a word counts if a page word starts with it or it with
    a page word of 5+ letters: invoice/invoices, tables/table)."""
    if not words:
        return 0.0
    hit = 0
    for w in words:
        if w in page_words or any(len(p) >= 5 and (p.startswith(w) or w.startswith(p)) for p in page_words):
            hit += 1
    return hit / len(words)


def page_vectors(texts: list[str]) -> np.ndarray:
    """One vector per page: the mean of its first ``WINDOWS`` windows' embeddings."""
    windows: list[str] = []
    owner: list[int] = []
    for i, text in enumerate(texts):
        words = text.split()
        chunks = [" ".join(words[k:k + WINDOW_WORDS]) for k in range(0, len(words), WINDOW_WORDS)][:WINDOWS]
        for chunk in chunks or [""]:
            windows.append(chunk)
            owner.append(i)
    vecs = embed.embed(windows)
    out = np.zeros((len(texts), vecs.shape[1]), dtype=np.float32)
    for v, i in zip(vecs, owner):
        out[i] += v
    norms = np.linalg.norm(out, axis=1, keepdims=True)
    return out / np.clip(norms, 1e-12, None)


# a payment taken at the counter: a line that is the change given back (with its amount or
# not), and a line that says how it was paid. A shop's till slip that calls itself a "tax
# invoice" (as GST receipts must) is still a receipt.
CHANGE_LINE = re.compile(rf"^\W*(?:(?:cash|card|tunai)\s+)?(?:{CHANGE_GIVEN})\b[^A-Za-z\n]{{0,20}}$", re.I | re.M)
PAID_LINE = re.compile(rf"^\W*(?:{COUNTER_PAYMENT}|paid|payment(?: mode)?)\b", re.I | re.M)


def glossed(text: str) -> str:
    """The page's text with English words for the kinds of document and label it names in another
    language (``lexicon.glosses_in``), so an English model and English class descriptions see
    that ``Rechnung`` and ``Gesamtbetrag`` make an invoice; and "receipt" where the page shows
    a payment taken at the counter (``CHANGE_LINE`` and ``PAID_LINE``)."""
    extra = glosses_in(text)
    if CHANGE_LINE.search(text) and PAID_LINE.search(text):
        extra.append("receipt: paid in cash, change given")
    return f"{' '.join(extra)}\n{text}" if extra else text


def scores(texts: list[str], classes: list[PageClassConfig], captions: list[str] | None = None) -> np.ndarray:
    """pages × classes: cosine similarity of the text, plus that of the layout caption times
    ``LAYOUT_WEIGHT``, plus the keyword feature."""
    texts = [glossed(t) for t in texts]
    pv = page_vectors(texts)
    cv = embed.embed([f"{c.name.replace('_', ' ')}: {c.description}".strip(": ") for c in classes])
    sim = pv @ cv.T
    if captions is not None:  # (a till roll's shape says more than a page's words can: weighed twice)
        weight = np.array([[SLIP_WEIGHT if c.startswith(SLIP) else LAYOUT_WEIGHT] for c in captions], dtype=np.float32)
        sim = sim + weight * (embed.embed(captions) @ cv.T)
    kw = np.array([[keyword_share(class_words(c), {w.lower() for w in WORD.findall(t)}) for c in classes]
                   for t in texts], dtype=np.float32).reshape(sim.shape)
    return sim + KEYWORD_WEIGHT * kw


def assign(pages: list[PageResult], classes: list[PageClassConfig]) -> dict[int, tuple[str, float]]:
    """Page number → (class name, score) for the pages that pass ``MIN_SCORE``."""
    if not pages or not classes:
        return {}
    s = scores([page_text(p) for p in pages], classes, [layout_caption(p) for p in pages])
    out: dict[int, tuple[str, float]] = {}
    for page, row in zip(pages, s):
        best = int(np.argmax(row))
        # the margin needs other classes to stand above: one class alone must reach MIN_SCORE
        clear = len(row) > 1 and row[best] >= CLEAR_SCORE and row[best] - np.partition(row, -2)[-2] >= CLEAR_MARGIN
        if row[best] >= MIN_SCORE or clear:
            out[page.page_number] = (classes[best].name, float(row[best]))
    return out


def classify(result: DocumentResult) -> DocumentResult:
    """Set ``result.page_classes`` from ``input.classification`` (classes in the request's order;
    a class no page fits is listed with no pages)."""
    classes = result.input.classification
    if not classes:
        return result
    found = assign(result.pages, classes)
    out = []
    for c in classes:
        mine = sorted(n for n, (name, _) in found.items() if name == c.name)
        out.append(PageClass(page_class=c.name, page_numbers=mine,
                             reasons={n: f"similarity {found[n][1]:.2f} to '{c.name}'" for n in mine}))
    result.page_classes = out
    return result
