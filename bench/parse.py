"""Parsing benchmark: one generated corpus, every engine side by side, in one run.

    python -m bench.parse [--scans N] [--repeat N]

Engines: pypdfium2 plain text (content-stream order: the speed limit), pdfplumber
(``extract_text`` + ``extract_tables``), markitdown (if installed), and docklake's ``convert``
(default, and with ``disable_layout_detection``). Scanned pages are read by docklake only (the
others have no OCR).

Speed is pages per CPU-second of this process (≈ pages/s/core; OCR threads are limited to one
with ``OMP_THREAD_LIMIT=1``), with wall-clock pages/s beside it. Quality: CER in reading order
(page text vs the generator's reference, NFKC + whitespace collapsed) on the text and two-column
pages, and table cell accuracy on the table page. The corpus comes from ``tests/support/docgen.py``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import io  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections.abc import Callable  # noqa: E402
from dataclasses import dataclass, field  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.core.models import DocumentInput  # noqa: E402
from pipelines.core.requests import ParsingOptions
from pipelines.engine.document import convert  # noqa: E402
from pipelines.stages.tables import table_rows  # noqa: E402
from tests.support import docgen  # noqa: E402


@dataclass
class Item:
    name: str
    data: bytes
    pages: list[str]  # reference text per page ("" = no text reference)
    tables: list[list[list[str]]] = field(default_factory=list)
    two_column: bool = False


@dataclass
class Score:
    pages: int = 0
    cpu: float = 0.0
    wall: float = 0.0
    cers: list[float] = field(default_factory=list)
    two_col: list[float] = field(default_factory=list)
    cells: list[float] = field(default_factory=list)
    per_page: list[float] = field(default_factory=list)  # CPU-s per page, per document run


def corpus() -> list[Item]:
    two = docgen.two_column_pdf(seed=101, pages=4)
    txt = docgen.text_pdf(seed=102, pages=4)
    tab = docgen.tables_pdf(seed=103)
    agr = docgen.structured_pdf(seed=104)
    return [Item("two_column", two.data, two.pages, two_column=True), Item("text", txt.data, txt.pages),
            Item("tables", tab.data, [""], tab.tables), Item("agreement", agr.data, ["", ""])]


def scans(n: int) -> list[Item]:
    txt = docgen.text_pdf(seed=105, pages=max(1, n - 1))
    two = docgen.two_column_pdf(seed=106, pages=1)
    out = []
    for i in range(n):
        src, idx = (two, 0) if i == n - 1 and n > 1 else (txt, i)
        img = docgen.scanify(docgen.render_png(src.data, idx), [2.5, -3.0, 1.5, -2.0][i % 4], seed=i)
        out.append(Item(f"scan{i + 1}", docgen.images_pdf([img]), [src.pages[idx]],
                        two_column=src is two))
    return out


def best_cells(found: list[list[list[str]]], refs: list[list[list[str]]]) -> list[float]:
    return [max((docgen.cell_accuracy(f, ref) for f in found), default=0.0) for ref in refs]


# ---------------------------------------------------------------- engines: doc → (page texts, tables)

Result = tuple[list[str], list[list[list[str]]]]


def pdfium_text(data: bytes) -> Result:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(data)
    texts = []
    for page in doc:
        tp = page.get_textpage()
        texts.append(tp.get_text_range())
        tp.close()
        page.close()
    doc.close()
    return texts, []


def plumber(data: bytes) -> Result:
    import pdfplumber

    texts, tabs = [], []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            texts.append(page.extract_text() or "")
            tabs += [[[c or "" for c in row] for row in t] for t in page.extract_tables()]
    return texts, tabs


def markitdown_text(data: bytes) -> Result:
    from markitdown import MarkItDown

    md = MarkItDown()
    text = md.convert_stream(io.BytesIO(data), file_extension=".pdf").text_content
    return [text], []


def docklake(**opts: object) -> Callable[[bytes], Result]:
    def run(data: bytes) -> Result:
        r = convert(DocumentInput(data=data, parsing=ParsingOptions(**opts)))
        texts = ["\n".join(str(f.content.get("content", "")) for f in p.fragments
                           if f.fragment_type != "table") for p in r.pages]
        tabs = [table_rows(f) for p in r.pages for f in p.fragments if f.fragment_type == "table"]
        return texts, tabs

    return run


def measure(engine: Callable[[bytes], Result], items: list[Item], repeat: int, whole_doc: bool) -> Score:
    s = Score()
    for item in items:
        for k in range(repeat):
            c0, w0 = time.process_time(), time.perf_counter()
            texts, tabs = engine(item.data)
            cpu = time.process_time() - c0
            s.cpu += cpu
            s.wall += time.perf_counter() - w0
            s.pages += len(item.pages)
            s.per_page.append(cpu / len(item.pages))
            if k:
                continue
            if whole_doc:
                refs = [p for p in item.pages if p]
                if refs and len(refs) == len(item.pages):
                    c = docgen.cer(texts[0], "\n".join(refs))
                    s.cers.append(c)
                    if item.two_column:
                        s.two_col.append(c)
            else:
                for text, ref in zip(texts, item.pages):
                    if ref:
                        c = docgen.cer(text, ref)
                        s.cers.append(c)
                        if item.two_column:
                            s.two_col.append(c)
            if item.tables:
                s.cells += best_cells(tabs, item.tables)
    return s


def fmt(v: float | None, spec: str = ".3f") -> str:
    return "n/a" if v is None else format(v, spec)


def row(name: str, s: Score) -> str:
    med = statistics.median(s.cers) if s.cers else None
    two = statistics.mean(s.two_col) if s.two_col else None
    cells = statistics.mean(s.cells) if s.cells else None
    return (f"| {name} | {s.pages} | {fmt(s.pages / s.cpu if s.cpu else None, '.1f')} | "
            f"{fmt(s.pages / s.wall if s.wall else None, '.1f')} | "
            f"{fmt(statistics.median(s.per_page) if s.per_page else None)} | "
            f"{fmt(med, '.4f')} | {fmt(two, '.4f')} | {fmt(cells, '.2f')} |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="timing repetitions of the digital corpus")
    ap.add_argument("--scans", type=int, default=6, help="scanned pages (docklake OCR)")
    args = ap.parse_args(argv)

    digital = corpus()
    engines: list[tuple[str, Callable[[bytes], Result], bool]] = [
        ("pypdfium2 plain text", pdfium_text, False),
        ("pdfplumber", plumber, False),
    ]
    try:
        import markitdown  # noqa: F401

        engines.append(("markitdown", markitdown_text, True))
    except ImportError:
        print("markitdown not installed: skipped", file=sys.stderr)
    engines += [("docklake (default)", docklake(), False),
                ("docklake (disable_layout_detection)", docklake(disable_layout_detection=True), False),
                ("docklake (barcodes, signatures, strike-through, images)",
                 docklake(barcode_detection=True, signature_detection=True,
                          remove_strikethrough_lines=True, include_images=True), False)]
    docklake()(digital[0].data)  # warm up imports

    pages = sum(len(i.pages) for i in digital)
    print(f"Digital corpus: {len(digital)} PDFs, {pages} pages (two-column, text, tables, "
          f"agreement), ×{args.repeat} for timing\n")
    header = ("| engine | pages | pages/CPU-s | pages/s wall | median CPU-s/page | median CER | "
              "two-column CER | table cell acc. |\n|---|---|---|---|---|---|---|---|")
    print(header)
    for name, eng, whole in engines:
        try:
            print(row(name, measure(eng, digital, args.repeat, whole)), flush=True)
        except Exception as exc:  # noqa: BLE001 - one engine failing must not stop the others
            print(f"| {name} | failed: {type(exc).__name__}: {exc} |||||||")
    if args.scans:
        sc = scans(args.scans)
        print(f"\nScanned corpus: {len(sc)} pages at 200 dpi, 1.5–3° skew, noise "
              f"(the last page is two-column, about 3× the words of the others)\n")
        print(header)
        print(row("docklake OCR (tesseract)", measure(docklake(), sc, 1, False)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
