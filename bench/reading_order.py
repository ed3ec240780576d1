"""Reading order on real PDFs: docklake's page text against a reference reading and the text layer.

Why: re-ordering blocks from geometry alone did worse than the content stream's own order on most
real documents; this measures it. ``python -m bench.reading_order [--pages N]``.

Corpus (cached under ``~/.cache/docklake-bench/``, never in the repo): Debian documentation PDFs
from several producers (pdfTeX/LuaLaTeX two-column papers of ``texlive-publishers-doc``, groff,
ReportLab, Prawn, LaTeX manuals), fetched with ``apt-get download`` (``bench.tables.fetch``),
plus the PDFs in ``tests/realworld/``. The first ``--pages`` pages of each.

Reference: poppler's ``pdftotext`` (non-layout mode), a PROXY for a careful reading, not a human
one. Also shown: pypdfium2's plain text (the text layer's own order). Metric: rapidfuzz
``Levenshtein.normalized_similarity`` over whitespace token lists, per page, mean per document;
tokens of every reader are normalised alike first (``normalised``: NFKC, line-end hyphens joined).
"before" is docklake with the XY-cut's order alone (``xycut.settle`` switched off), "after" as is.
Documents are split into dev and test halves by a hash of the file name; tune on dev only.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import os
import statistics
import subprocess
import unicodedata
import warnings
from pathlib import Path

import pypdfium2 as pdfium
from rapidfuzz.distance import Levenshtein

from bench.harness import ROOT, note, print_table
from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages import xycut
from tests.support.realworld_helpers import fragment_texts

CACHE = Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "docklake-bench"
PUBLISHERS = ("texlive-publishers-doc", "2022.20230122-4", "usr/share/doc/texlive-doc/latex")
PICKS = {  # package folder in the cache → PDFs (relative to it)
    "texlive-publishers-doc_2022.20230122-4": [
        f"usr/share/doc/texlive-doc/latex/{p}" for p in (
            "acmart/samples/sample-sigconf.pdf", "acmart/samples/sample-sigplan.pdf",
            "acmart/samples/sample-acmtog.pdf", "acmart/samples/sample-acmsmall.pdf",
            "revtex4-1/sample/aps/apssamp.pdf", "revtex4-1/sample/aip/aipsamp.pdf",
            "quantumarticle/quantum-template.pdf", "llncs/llncsdoc.pdf", "ieeepes/ieeepes_doc.pdf",
            "ieeetran/testflow_doc.pdf", "active-conf/active-conf.pdf", "apa7/samples/shortsample.pdf",
            "jourcl/jourcl.pdf", "oup-authoring-template/oup-authoring-template.pdf")],
    "groff_1.22.4-10": ["usr/share/doc/groff-base/examples/mom/sample_docs.pdf.gz",
                        "usr/share/doc/groff-base/examples/mom/typesetting.pdf.gz",
                        "usr/share/doc/groff-base/pdf/automake.pdf.gz"],
    "python-reportlab-doc_3.6.12-1+deb12u1": ["usr/share/doc/python-reportlab-doc/reportlab-userguide.pdf"],
    "cups-filters_1.28.17-3+deb12u2": ["usr/share/cups/data/default-testpage.pdf"],
}


def fetch_publishers() -> None:
    from bench import tables

    old = (tables.PACKAGE, tables.VERSION, tables.DOCS)
    tables.PACKAGE, tables.VERSION, tables.DOCS = PUBLISHERS
    try:
        tables.fetch(CACHE)
    finally:
        tables.PACKAGE, tables.VERSION, tables.DOCS = old


def corpus() -> list[tuple[str, bytes]]:
    fetch_publishers()
    docs = []
    for pkg, rels in PICKS.items():
        for rel in rels:
            p = CACHE / pkg / rel
            if not p.exists():
                note(f"  missing: {p}")
                continue
            data = gzip.decompress(p.read_bytes()) if p.suffix == ".gz" else p.read_bytes()
            docs.append((f"{pkg.split('_')[0]}/{p.name.removesuffix('.gz')}", data))
    for p in sorted((ROOT / "tests" / "realworld").glob("*.pdf")):
        docs.append((f"realworld/{p.name}", p.read_bytes()))
    return docs


def cut(data: bytes, pages: int) -> bytes:
    src = pdfium.PdfDocument(data)
    if len(src) <= pages:
        return data
    dst = pdfium.PdfDocument.new()
    dst.import_pages(src, list(range(pages)))
    import io
    buf = io.BytesIO()
    dst.save(buf)
    return buf.getvalue()


def poppler(data: bytes) -> list[list[str]]:
    r = subprocess.run(["pdftotext", "-enc", "UTF-8", "-", "-"], input=data, capture_output=True, check=True)
    return [p.split() for p in r.stdout.decode("utf-8", "replace").split("\f")]


def pdfium_text(data: bytes) -> list[list[str]]:
    doc = pdfium.PdfDocument(data)
    out = []
    for page in doc:
        tp = page.get_textpage()
        out.append(tp.get_text_range().split())
        tp.close()
    return out


def docklake(data: bytes, stream_order: bool) -> list[list[str]]:
    saved = xycut.settle
    if not stream_order:
        xycut.settle = lambda leaves, stream, unit, paths=None: leaves  # type: ignore[assignment]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = convert(DocumentInput(data=data))
    finally:
        xycut.settle = saved
    return [" ".join(fragment_texts(p.fragments)).split() for p in r.pages]


def normalised(pages: list[list[str]]) -> list[list[str]]:
    """The same for every reader: NFKC (a ligature "ﬁ" is "fi") and a word broken at a line-end
    hyphen joined ("docu-" "ment" is "document"), so the measure sees order, not spelling."""
    out = []
    for tokens in pages:
        toks = [unicodedata.normalize("NFKC", t) for t in tokens]
        joined: list[str] = []
        for t in toks:
            if joined and len(joined[-1]) > 1 and joined[-1].endswith("-") and t[:1].islower():
                joined[-1] = joined[-1][:-1] + t
            else:
                joined.append(t)
        out.append(joined)
    return out


def similarity(a: list[list[str]], ref: list[list[str]]) -> float:
    n = len([p for p in ref if p]) or 1
    return sum(Levenshtein.normalized_similarity(x, y) for x, y in zip(a, ref) if y) / n


def half(name: str) -> str:
    return "dev" if hashlib.sha1(name.encode()).digest()[0] % 2 == 0 else "test"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--pages", type=int, default=6)
    ap.add_argument("--only", default="", help="run only the documents whose name contains this")
    args = ap.parse_args()
    rows: dict[str, list[list]] = {"dev": [], "test": []}
    for name, data in corpus():
        if args.only not in name:
            continue
        data = cut(data, args.pages)
        ref = normalised(poppler(data))
        own = normalised(pdfium_text(data))
        before, after = normalised(docklake(data, False)), normalised(docklake(data, True))
        row = [name, similarity(before, ref), similarity(after, ref), similarity(own, ref),
               similarity(after, own)]
        rows[half(name)].append(row)
        note(f"  {name}: " + " ".join(f"{v:.3f}" for v in row[1:]))
    print("Reference: pdftotext (poppler, non-layout) as a PROXY for a careful reading.")
    for which, rs in rows.items():
        if not rs:
            continue
        worse = [r[0] for r in rs if r[2] < r[3] - 0.02]
        table = [[r[0], *(f"{v:.3f}" for v in r[1:])] for r in rs]
        table.append(["MEAN", *(f"{statistics.fmean(r[k] for r in rs):.3f}" for k in range(1, 5))])
        print_table(f"{which} half ({len(rs)} documents): similarity to pdftotext",
                    ["document", "before", "after", "pypdfium2", "after vs pypdfium2"], table)
        print(f"{which}: docklake after < pypdfium2 - 0.02 on {len(worse)} of {len(rs)}: {', '.join(worse)}")


if __name__ == "__main__":
    main()
