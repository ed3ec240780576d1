"""The documents ``bench batch`` and its kin send: generated ones of every kind, real PDF manuals
from a Debian package, and generated scans (see ``bench.batch`` for how each is used)."""

from __future__ import annotations

import os
import random
from pathlib import Path


def corpus(n: int, folder: Path) -> list[Path]:
    from tests.support import docgen

    rng = random.Random(7)
    makers = [
        ("pdf", lambda i: docgen.text_pdf(seed=i, pages=rng.randint(1, 12)).data),
        ("pdf", lambda i: docgen.two_column_pdf(seed=i, pages=rng.randint(1, 4)).data),
        ("pdf", lambda i: docgen.tables_pdf(seed=i).data),
        ("pdf", lambda i: docgen.structured_pdf(seed=i).data),
        ("docx", lambda i: docgen.docx_doc(seed=i).data),
        ("pptx", lambda i: docgen.pptx_doc(seed=i).data),
        ("xlsx", lambda i: docgen.xlsx_doc(seed=i).data),
        ("md", lambda i: f"# Note {i}\n\n{docgen.paragraph(rng, 5)}\n\n## Details\n\n- {docgen.sentence(rng, 8)}\n".encode()),
        ("txt", lambda i: "\n\n".join(docgen.paragraph(rng, 4) for _ in range(3)).encode()),
        ("csv", lambda i: "\n".join(",".join(r) for r in docgen.table_rows(rng, 20, 5)).encode()),
    ]
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        ext, make = makers[i % len(makers)]
        p = folder / f"doc-{i:04d}.{ext}"
        p.write_bytes(make(i))
        paths.append(p)
    return paths


REAL_MAX_PAGES = 20


def real_manuals(folder: Path, max_pages: int = REAL_MAX_PAGES) -> list[Path]:
    """The package's PDF manuals of at most ``max_pages`` pages, copied into ``folder``."""
    import pypdfium2 as pdfium

    from bench.tables import DOCS, PACKAGE, VERSION, fetch

    root = fetch(Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "docklake-bench")
    if root is None:
        raise SystemExit(f"bench batch --real: could not fetch {PACKAGE}={VERSION} with apt-get download")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for src in sorted((root / DOCS).rglob("*.pdf")):
        try:
            pages = len(pdfium.PdfDocument(str(src)))
        except pdfium.PdfiumError:
            continue
        if pages <= max_pages:
            dst = folder / "-".join(src.relative_to(root / DOCS).parts)
            dst.write_bytes(src.read_bytes())
            paths.append(dst)
    return paths


def scans(n: int, folder: Path) -> list[Path]:
    from tests.support import docgen

    rng = random.Random(11)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(n):
        n_pages = rng.randint(1, 3)
        src = docgen.text_pdf(seed=100 + i, pages=n_pages).data
        pages = [docgen.scanify(docgen.render_png(src, k, dpi=150), rng.uniform(-1.5, 1.5), seed=i)
                 for k in range(n_pages)]
        p = folder / f"scan-{i:04d}.pdf"
        p.write_bytes(docgen.images_pdf(pages, dpi=150))
        paths.append(p)
    return paths
