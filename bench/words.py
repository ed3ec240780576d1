"""Whole words: does every word of a page's text layer come out whole, not cut in two or glued?

    python -m bench.words [--max-pages 20] [--docs N] [--package NAME=VERSION ...] [--show K]

Why: a word cut by an inserted space ("i nput fi le") still has all its characters, so a
character count (or a recall that forgives splits) does not see it; a reader, a search index
and an embedding do. This counts a reference word as kept only when the output holds it as a
whole whitespace-separated word (a multiset: "the" twice needs two).

Corpus: the PDF manuals of at most ``--max-pages`` pages of Debian's
``texlive-latex-recommended-doc`` (``bench.batch_corpus.real_manuals``: ``apt-get download``, cached),
plus the manuals of any other ``--package`` (fetched the same way). Reference: each page's
text as pypdfium2 reads it (``get_text_range``), split on whitespace, words normalised as the
coverage invariant does (NFKC, soft hyphens out, PDFium's line-end hyphen U+FFFE as "-" ending
its word). docklake:
``convert`` with default options, every text its fragments show (text, cells, figure text,
headers and footers). pypdfium2: its own page text, the reference itself (so 100 % by
definition: the column is there for its CPU time). CPU time is this process's.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
import unicodedata
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import pypdfium2 as pdfium  # noqa: E402

from bench.batch_corpus import REAL_MAX_PAGES, real_manuals  # noqa: E402
from bench.harness import print_table  # noqa: E402
from pipelines.core.models import DocumentInput  # noqa: E402
from pipelines.engine.document import convert  # noqa: E402
from tests.support.realworld_helpers import fragment_texts, text_layer  # noqa: E402

CACHE = Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "docklake-bench"
THRESHOLD = 0.99


_INVISIBLE = str.maketrans("", "", "\u00ad\u200b\ufeff\u2060")
_BREAKS = str.maketrans({"\x00": " ", "\uffff": " ", "\ufffe": "- "})


def words(text: str) -> Counter[str]:
    """Whitespace-split words, NFKC, soft hyphens out, PDFium's line-end hyphen (U+FFFE) as "-"
    ending its word: the same form as the coverage invariant's (``coverage.tokens``), written out
    here so that the measure does not depend on the code it measures."""
    return Counter(unicodedata.normalize("NFKC", text).translate(_INVISIBLE).translate(_BREAKS).split())


def kept(ref: Counter[str], out: Counter[str]) -> float:
    total = sum(ref.values())
    return 1.0 if not total else sum((ref & out).values()) / total


def other_package(spec: str, folder: Path, max_pages: int) -> list[Path]:
    """The PDFs of at most ``max_pages`` pages of Debian package ``NAME[=VERSION]``."""
    root = CACHE / spec.replace("=", "_")
    if not root.is_dir():
        with tempfile.TemporaryDirectory() as tmp:
            r = subprocess.run(["apt-get", "download", spec], cwd=tmp, capture_output=True, text=True)
            debs = list(Path(tmp).glob("*.deb"))
            if r.returncode != 0 or not debs:
                raise SystemExit(f"bench.words: could not download {spec}: {r.stderr.strip()[:200]}")
            root.mkdir(parents=True)
            subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(root)], check=True)
    out = []
    for src in sorted(root.rglob("*.pdf")):
        try:
            if len(pdfium.PdfDocument(str(src))) > max_pages:
                continue
        except pdfium.PdfiumError:
            continue
        dst = folder / f"{spec.split('=')[0]}-{src.name}"
        shutil.copyfile(src, dst)
        out.append(dst)
    return out


def reference(data: bytes) -> tuple[list[str], float]:
    """(each page's text as pypdfium2 reads it, CPU seconds it took)."""
    t0 = time.process_time()
    texts = text_layer(data)
    return texts, time.process_time() - t0


def run(paths: list[Path], show: int = 10) -> dict[str, float]:
    rows = []  # (file, page, recall, missing sample)
    cpu_dl = cpu_ref = 0.0
    for p in paths:
        data = p.read_bytes()
        try:
            ref, cpu = reference(data)
        except pdfium.PdfiumError:
            continue
        cpu_ref += cpu
        t0 = time.process_time()
        result = convert(DocumentInput(data=data, file_name=p.name))
        cpu_dl += time.process_time() - t0
        shown = {pg.page_number: fragment_texts(pg.fragments) for pg in result.pages}
        for k, text in enumerate(ref, 1):
            want = words(text)
            if not want:
                continue
            have = words("\n".join(shown.get(k, [])))
            lost = want - have
            rows.append((p.name, k, kept(want, have), list(lost.elements())[:8]))
    n = len(rows)
    bad = [r for r in rows if r[2] < THRESHOLD]
    mean = sum(r[2] for r in rows) / max(1, n)
    print_table(f"{len(paths)} manuals, {n} pages with text: words kept whole (≥ {THRESHOLD:.0%} per page)",
                ["", "pages checked", f"pages < {THRESHOLD:.0%}", "mean recall", "CPU s/page"],
                [["docklake", n, len(bad), f"{mean:.4f}", f"{cpu_dl / max(1, n):.4f}"],
                 ["pypdfium2 (the reference)", n, 0, "1.0000", f"{cpu_ref / max(1, n):.4f}"]])
    for name, k, rec, lost in sorted(bad, key=lambda r: r[2])[:show]:
        print(f"  {name} p. {k}: {rec:.3f}  lost {' '.join(lost)}")
    return {"pages": n, "bad": len(bad), "mean": mean, "cpu": cpu_dl / max(1, n)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.words", description=__doc__.split("\n\n")[1])
    ap.add_argument("--max-pages", type=int, default=REAL_MAX_PAGES, help="manuals of at most this many pages")
    ap.add_argument("--docs", type=int, default=0, help="only the first N manuals (default: all)")
    ap.add_argument("--package", action="append", default=[],
                    help="also the manuals of this Debian package, NAME[=VERSION] (repeatable)")
    ap.add_argument("--show", type=int, default=10, help="list the K worst pages")
    args = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="docklake-bench-words-") as tmp:
        folder = Path(tmp)
        paths = real_manuals(folder, args.max_pages)
        for spec in args.package:
            paths += other_package(spec, folder, args.max_pages)
        if args.docs:
            paths = paths[: args.docs]
        run(paths, args.show)


if __name__ == "__main__":
    main()
