"""The systems side by side, each called the way a user would call it, none tuned per file.

Text (a page's words and their order): docklake's ``convert`` in-process (the page's fragments in
reading order; a table row by row; a list item's marker before its text; a figure's caption and
the words drawn inside it), pypdfium2's plain text (content-stream order), pdfplumber's
``extract_text()``, markitdown (pdfminer), pdftotext (poppler; the reference of the text pages,
so a peer only on the right-to-left set), and on scans plain tesseract (``--psm 3``) and tesseract
with its orientation detection (``--psm 1``).

Tables: docklake (table fragments' cells), pdfplumber ``extract_tables()``, camelot lattice and
stream, tabula-py lattice and stream (tabula-java in a JVM per call, as tabula-py runs it without
jpype). Every system gets the whole page.

CPU time is ``time.process_time()`` around each call plus the CPU of child processes it waited
for (``RUSAGE_CHILDREN``: pdftotext, tesseract, the JVM).
"""

from __future__ import annotations

import io
import os
import resource
import shutil
import subprocess
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages.tables import table_rows

Table = list[list[str]]


def timed(fn: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    """(result, CPU seconds of this process and of the children it waited for)."""
    c0 = time.process_time()
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = fn(*args)
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    child = (r1.ru_utime + r1.ru_stime) - (r0.ru_utime + r0.ru_stime)
    return out, time.process_time() - c0 + child


# ---------------------------------------------------------------- page text: path -> one string


def docklake_page_text(fragments: list[Any]) -> str:
    out: list[str] = []
    for f in sorted(fragments, key=lambda f: (f.reading_order is None, f.reading_order or 0)):
        c = f.content
        if f.fragment_type == "table":
            out += [" ".join(cell for cell in row if cell) for row in table_rows(f)]
        elif f.fragment_type != "key_value_region":
            text = str(c.get("content", ""))
            out.append(f"{c['marker']} {text}" if c.get("marker") else text)
            if f.fragment_type == "figure" and c.get("text") and c.get("text") != text:
                out.append(str(c["text"]))
    return "\n".join(out)


def docklake_text(path: Path) -> str:
    r = convert(DocumentInput(data=path.read_bytes(), file_name=path.name))
    return "\n\n".join(docklake_page_text(p.fragments) for p in r.pages)


def pdfium_text(path: Path) -> str:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(path)
    try:
        out = []
        for page in doc:
            tp = page.get_textpage()
            out.append(tp.get_text_range())
            tp.close()
            page.close()
        return "\n\n".join(out)
    finally:
        doc.close()


def plumber_text(path: Path) -> str:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return "\n\n".join(page.extract_text() or "" for page in pdf.pages)


def markitdown_text(path: Path) -> str:
    from markitdown import MarkItDown

    return MarkItDown().convert_stream(io.BytesIO(path.read_bytes()), file_extension=".pdf").text_content


def pdftotext(path: Path, layout: bool = False) -> str:
    args = ["pdftotext", "-enc", "UTF-8", *(["-layout"] if layout else []), str(path), "-"]
    return subprocess.run(args, capture_output=True, text=True, check=True).stdout


def tesseract(psm: int) -> Callable[[Path], str]:
    def run(path: Path) -> str:  # the scan's PNG beside its PDF
        png = path.with_suffix(".png")
        env = dict(os.environ, OMP_THREAD_LIMIT="1")
        return subprocess.run(["tesseract", str(png), "-", "--psm", str(psm), "-l", "eng"], env=env,
                              capture_output=True, text=True, check=True).stdout

    return run


TEXT_SYSTEMS: dict[str, Callable[[Path], str]] = {
    "docklake": docklake_text,
    "pypdfium2 (plain text)": pdfium_text,
    "pdfplumber extract_text": plumber_text,
    "markitdown": markitdown_text,
    "pdftotext (poppler)": pdftotext,
}
REFERENCE = "pdftotext (poppler)"  # the text pages' reference: not scored against itself
SCAN_SYSTEMS: dict[str, Callable[[Path], str]] = {
    "docklake": docklake_text,
    "tesseract --psm 3 (plain)": tesseract(3),
    "tesseract --psm 1 (orientation detection)": tesseract(1),
}


def text_systems() -> dict[str, Callable[[Path], str]]:
    out = dict(TEXT_SYSTEMS)
    try:
        import markitdown  # noqa: F401
    except ImportError:
        print("markitdown is not installed (pip install -e '.[bench]'): skipped")
        out.pop("markitdown")
    return out


def scan_systems() -> dict[str, Callable[[Path], str]]:
    if shutil.which("tesseract"):
        return dict(SCAN_SYSTEMS)
    return {"docklake": docklake_text}


# ---------------------------------------------------------------- tables: (path, page) -> tables


def docklake_tables(path: Path, page: int) -> list[Table]:
    r = convert(DocumentInput(data=path.read_bytes(), file_name=path.name, page_range=str(page)))
    return [table_rows(f) for p in r.pages for f in p.fragments if f.fragment_type == "table"]


def plumber_tables(path: Path, page: int) -> list[Table]:
    import pdfplumber

    with pdfplumber.open(path) as pdf:
        return [[[c or "" for c in row] for row in t] for t in pdf.pages[page - 1].extract_tables()]


def camelot_tables(flavor: str) -> Callable[[Path, int], list[Table]]:
    def run(path: Path, page: int) -> list[Table]:
        import camelot

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            found = camelot.read_pdf(str(path), pages=str(page), flavor=flavor, suppress_stdout=True)
        return [[[str(c) for c in row] for row in t.df.values.tolist()] for t in found]

    return run


def tabula_tables(mode: str) -> Callable[[Path, int], list[Table]]:
    def run(path: Path, page: int) -> list[Table]:
        import tabula

        found = tabula.read_pdf(str(path), pages=page, output_format="json", silent=True,
                                **{mode: True})
        return [[[cell.get("text", "") for cell in row] for row in t.get("data", [])] for t in found]

    return run


def table_systems() -> dict[str, Callable[[Path, int], list[Table]]]:
    out: dict[str, Callable[[Path, int], list[Table]]] = {
        "docklake": docklake_tables, "pdfplumber extract_tables": plumber_tables}
    try:
        import camelot  # noqa: F401

        out["camelot lattice"] = camelot_tables("lattice")
        out["camelot stream"] = camelot_tables("stream")
    except ImportError:
        print("camelot-py is not installed (pip install -e '.[bench]'): skipped")
    try:
        import tabula  # noqa: F401

        if shutil.which("java"):
            out["tabula-py lattice"] = tabula_tables("lattice")
            out["tabula-py stream"] = tabula_tables("stream")
        else:
            print("java is missing (apt-get install default-jre-headless): tabula-py skipped")
    except ImportError:
        print("tabula-py is not installed (pip install -e '.[bench]'): skipped")
    return out
