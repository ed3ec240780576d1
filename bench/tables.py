"""Real-world tables and text: docklake against pdfplumber and camelot, side by side, in one run.

    python -m bench tables [--manuals N] [--no-fetch] [--all]

Two sets, both from Debian bookworm's ``texlive-latex-recommended-doc`` 2022.20230122-3:

* the pages shipped in ``tests/realworld`` with hand-written ground truth (``truth.json``):
  mean cell accuracy over their tables (each reference table against a distinct table found on
  its page), word recall against each page's own text layer, CPU seconds per page;
* whole manuals of the same package (fetched with ``apt-get download`` at run time, version
  pinned, cached): word recall per page and pages per CPU-second. camelot reads tables only, so
  it has no page text to score and is timed on the first set alone.

Tools, none tuned per file: docklake ``convert`` (default options); pdfplumber
``extract_tables()`` for cells and ``extract_text()`` for text; camelot-py 2.0 ``read_pdf(...,
flavor="auto")`` (its own no-tuning mode: lattice with the combined engine on pages with ruled
lines, network on the others). Speed is CPU time of this process (≈ s/page on one core).
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import io  # noqa: E402
import shutil  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.core.models import DocumentInput  # noqa: E402
from pipelines.engine.document import convert  # noqa: E402
from pipelines.stages import coverage  # noqa: E402
from pipelines.stages.tables import table_rows  # noqa: E402
from tests.support.realworld_helpers import (  # noqa: E402
    REALWORLD,
    cases,
    fragment_texts,
    match_tables,
    text_layer,
    word_recall,
)

PACKAGE = "texlive-latex-recommended-doc"
VERSION = "2022.20230122-3"
DOCS = "usr/share/doc/texlive-doc/latex"
# slides, framed code listings, booktabs tables, landscape pages, colour tables, several languages
MANUALS = ["booktabs/booktabs.pdf", "ctable/ctable.pdf", "fancyvrb/fancyvrb-doc.pdf",
           "xcolor/xcolor.pdf", "pdflscape/pdflscape.pdf", "beamer/beamerexample-conference-talk.pdf",
           "fancybox/fancybox-doc.pdf", "listings/listings.pdf", "microtype/microtype.pdf",
           "fontspec/fontspec.pdf", "caption/caption.pdf", "polyglossia/polyglossia.pdf"]


def fetch(cache: Path) -> Path | None:
    """The package's files, downloaded once into ``cache`` (None when apt cannot get it)."""
    root = cache / f"{PACKAGE}_{VERSION}"
    if (root / DOCS).is_dir():
        return root
    if not shutil.which("apt-get") or not shutil.which("dpkg-deb"):
        return None
    with tempfile.TemporaryDirectory() as tmp:
        r = subprocess.run(["apt-get", "download", f"{PACKAGE}={VERSION}"], cwd=tmp,
                           capture_output=True, text=True, check=False)
        debs = list(Path(tmp).glob("*.deb"))
        if r.returncode != 0 or not debs:
            print(f"  could not download {PACKAGE}={VERSION}: {r.stderr.strip()[:200]}")
            return None
        root.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    return root


# ---------------------------------------------------------------- the tools


def docklake(data: bytes) -> tuple[list[list[list[list[str]]]], list[list[str]]]:
    """(tables per page, texts per page)."""
    r = convert(DocumentInput(data=data))
    tables = [[table_rows(f) for f in p.fragments if f.fragment_type == "table"] for p in r.pages]
    return tables, [fragment_texts(p.fragments) for p in r.pages]


def plumber(data: bytes, text: bool = True) -> tuple[list, list]:
    import pdfplumber

    tables, texts = [], []
    with pdfplumber.open(io.BytesIO(data)) as pdf:
        for page in pdf.pages:
            tables.append([[[c or "" for c in row] for row in t] for t in page.extract_tables()])
            texts.append([page.extract_text() or ""] if text else [])
            page.close()
    return tables, texts


def camelot_auto(data: bytes) -> tuple[list, list]:
    import camelot

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = camelot.read_pdf(io.BytesIO(data), pages="all", flavor="auto", suppress_stdout=True)
    pages: dict[int, list] = {}
    for t in found:
        pages.setdefault(int(t.page), []).append(t.df.values.tolist())
    n = len(text_layer(data))
    return [pages.get(i + 1, []) for i in range(n)], []


TOOLS = {"docklake": docklake, "pdfplumber": plumber, "camelot (auto)": camelot_auto}


def _timed(fn, data: bytes):  # noqa: ANN001, ANN202
    t0 = time.process_time()
    out = fn(data)
    return out, time.process_time() - t0


# ---------------------------------------------------------------- the runs


def truth_set() -> dict[str, dict]:
    rows: dict[str, dict] = {}
    for name, fn in TOOLS.items():
        fn((REALWORLD / cases()[0]["file"]).read_bytes())  # imports and first-call set-up, untimed
        cells, recalls, cpu, pages = [], [], 0.0, 0
        held: list[float] = []
        dev: list[float] = []
        by_class: dict[str, list[float]] = {}
        for case in cases():
            data = (REALWORLD / case["file"]).read_bytes()
            try:
                (tables, texts), dt = _timed(fn, data)
            except Exception as exc:  # noqa: BLE001 - a tool that fails scores 0 on the page
                print(f"  {name} failed on {case['file']}: {exc!r}"[:200])
                tables, texts, dt = [[]], [], 0.0
            cpu += dt
            pages += 1
            found = [t for page in tables for t in page]
            scores = match_tables(found, case["tables"])
            cells += scores
            (held if case.get("held_out") else dev).extend(scores)
            for cls in case["classes"]:
                by_class.setdefault(cls, []).extend(scores)
            if texts:
                ref = text_layer(data)
                recalls += [word_recall(ref[i], t)[0] for i, t in enumerate(texts)]
        rows[name] = {"cells": statistics.fmean(cells) if cells else 0.0, "n": len(cells),
                      "dev": statistics.fmean(dev) if dev else 0.0, "held": statistics.fmean(held) if held else 0.0,
                      "n_dev": len(dev), "n_held": len(held),
                      "recall": recalls, "s_page": cpu / max(1, pages)}
    return rows


def manuals(root: Path, limit: int) -> dict[str, dict]:
    files = [root / DOCS / m for m in MANUALS[:limit] if (root / DOCS / m).exists()]
    out: dict[str, dict] = {}
    for name, fn in (("docklake", docklake), ("pdfplumber", plumber)):
        recalls: list[float] = []
        cpu, pages, worst = 0.0, 0, ("", 0, 1.0)
        slowest = 0.0
        for f in files:
            data = f.read_bytes()
            (_, texts), dt = _timed(fn, data)
            ref = text_layer(data)
            cpu += dt
            pages += len(texts)
            slowest = max(slowest, dt / max(1, len(texts)))
            for i, t in enumerate(texts):
                rec = word_recall(ref[i], t)[0]
                recalls.append(rec)
                if rec < worst[2]:
                    worst = (f.name, i + 1, rec)
        out[name] = {"recall": recalls, "pages": pages, "files": len(files), "cpu": cpu,
                     "worst": worst, "slowest_doc_s_page": slowest}
    # docklake's slowest single page: each page converted alone (page_range), CPU time
    per_page = []
    for f in files:
        data = f.read_bytes()
        for i in range(len(text_layer(data))):
            t0 = time.process_time()
            convert(DocumentInput(data=data, page_range=str(i + 1)))
            per_page.append((time.process_time() - t0, f.name, i + 1))
    if per_page:
        out["docklake"]["slowest_page"] = max(per_page)
    return out


def whole_package(root: Path) -> None:
    """docklake alone over every PDF of the package: recall, speed, pages it had to rescue."""
    files = sorted((root / "usr/share/doc").rglob("*.pdf"))
    recalls: list[float] = []
    cpu, pages, rescued, failed = 0.0, 0, 0, 0
    for f in files:
        data = f.read_bytes()
        t0 = time.process_time()
        r = convert(DocumentInput(data=data))
        cpu += time.process_time() - t0
        failed += r.status.value != "success"
        ref = text_layer(data)
        for p in r.pages:
            pages += 1
            rescued += bool(p.warnings)
            recalls.append(word_recall(ref[p.page_number - 1], fragment_texts(p.fragments))[0])
    print(f"\n## docklake over the whole package: {len(files)} PDFs, {pages} pages\n")
    print(f"word recall per page {_recall(recalls)}; pages where the coverage check put words back: "
          f"{rescued}; documents not converted in full: {failed}; {pages / max(cpu, 1e-9):.1f} pages/CPU-s")


def _recall(r: list[float]) -> str:
    if not r:
        return "n/a (tables only)"
    low = sum(1 for x in r if x < 0.99)
    return f"{statistics.fmean(r):.3f} (min {min(r):.2f}; {low} of {len(r)} pages < 0.99)"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench tables", description=__doc__)
    ap.add_argument("--manuals", type=int, default=len(MANUALS), help="whole manuals to run (0: none)")
    ap.add_argument("--no-fetch", action="store_true", help="only the shipped pages, no apt-get download")
    ap.add_argument("--all", action="store_true",
                    help="also run docklake alone over every PDF of the package (about 6,000 pages)")
    ap.add_argument("--cache", default=os.path.join(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")),
                                                    "docklake-bench"))
    args = ap.parse_args(argv)
    coverage.set_mode("recover")  # measure what a user gets; warnings are counted as they come
    print(f"## Real-world tables: {len(cases())} pages of {PACKAGE} {VERSION}, hand-written truth\n")
    rows = truth_set()
    first = next(iter(rows.values()))
    print(f"| tool | mean cell accuracy ({first['n']} tables) | developed on ({first['n_dev']}) | "
          f"held out ({first['n_held']}) | page-text recall | CPU s/page |")
    print("|---|---|---|---|---|---|")
    for name, r in rows.items():
        print(f"| {name} | {r['cells']:.3f} | {r['dev']:.3f} | {r['held']:.3f} | {_recall(r['recall'])} | "
              f"{r['s_page']:.3f} |")
    if args.no_fetch or args.manuals <= 0:
        return
    root = fetch(Path(args.cache))
    if root is None:
        print("\n(whole manuals skipped: the Debian package could not be fetched)")
        return
    print(f"\n## Whole manuals of the same package ({min(args.manuals, len(MANUALS))} files)\n")
    print("| tool | pages | word recall per page | pages / CPU-s | slowest document, s/page | worst page |")
    print("|---|---|---|---|---|---|")
    m_all = manuals(root, args.manuals)
    for name, m in m_all.items():
        worst = f"{m['worst'][0]} p{m['worst'][1]}: {m['worst'][2]:.2f}" if m["worst"][0] else "-"
        print(f"| {name} | {m['pages']} | {_recall(m['recall'])} | {m['pages'] / max(m['cpu'], 1e-9):.1f} | "
              f"{m['slowest_doc_s_page']:.3f} | {worst} |")
    if "slowest_page" in m_all.get("docklake", {}):
        s, f, n = m_all["docklake"]["slowest_page"]
        print(f"\ndocklake's slowest page, converted alone: {f} p{n}, {s:.3f} CPU-s")
    if args.all:
        whole_package(root)


if __name__ == "__main__":
    main()
