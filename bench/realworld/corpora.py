"""The corpora, built into the cache from Debian packages and ``shared/data`` (never the repo).

* ``words``: one-page PDFs cut (pypdfium2) from the PDFs that Debian documentation packages ship,
  grouped by the producer their metadata names (gropdf, Ghostscript, ReportLab, Prawn,
  LibreOffice, cairo, and the TeX engines as one). Per producer at most ``per_producer`` pages with at least
  ``MIN_WORDS`` words, spread over its documents (at most ``DOCS_PER_PRODUCER``) and over each
  document's pages. A page's references come from the same one-page PDF: ``pdftotext -layout``
  (words), ``pdftotext`` (poppler's reading order) and pypdfium2's text.
* ``rtl``: Arabic and Hebrew documents written by LibreOffice Writer (``soffice --convert-to pdf``)
  from the translators' sentences in Debian's message catalogues (debconf, apt, tasksel); the
  sentences in logical order are the ground truth. Arabic vowel marks and Hebrew points are
  dropped before writing, so the set measures order and shaping, not mark placement.
* ``scans``: text pages of the words corpus rendered at 200 dpi (grey), turned 0/90/180/270
  degrees, with mild noise, saved as PNG and as an image-only PDF; truth: the page's words.

The split: a producer's documents sorted by the sha256 of their names go to dev and test in
turn (a producer with one document has it in one part only); the RTL documents likewise per
language; a scan is in the part of the page it was made from.
"""

from __future__ import annotations

import hashlib
import html
import io
import json
import re
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from bench.realworld import fetch
from bench.realworld.systems import pdfium_text, pdftotext

MIN_WORDS = 40
DOCS_PER_PRODUCER = 6
TEX = "usr/share/doc/texlive-doc/latex"
SOURCES = [  # (package, glob under the package root)
    ("groff", "usr/share/doc/groff-base/examples/mom/*.pdf.gz"),
    ("groff", "usr/share/doc/groff-base/pdf/*.pdf.gz"),
    ("python-reportlab-doc", "usr/share/doc/python-reportlab-doc/*.pdf"),
    ("ruby-prawn-doc", "usr/share/doc/ruby-prawn/*.pdf.gz"),
    ("cups-filters", "usr/share/cups/data/form_*.pdf"),
    ("fonts-sil-andika", "usr/share/doc/fonts-sil-andika/documentation/pdf/*.pdf.gz"),
    *[("texlive-latex-recommended-doc", f"{TEX}/{m}") for m in
      ("booktabs/booktabs.pdf", "fontspec/fontspec.pdf", "microtype/microtype.pdf",
       "caption/caption.pdf", "xcolor/xcolor.pdf", "listings/listings.pdf")],
]
PARTS = ("dev", "test")
LAYOUT = 4  # bump when the way the corpora are built changes: the cached ones are rebuilt


def digest(name: str) -> str:
    return hashlib.sha256(name.encode()).hexdigest()


_TEX = re.compile(r"pdftex|xetex|xdvipdfmx|luatex|dvipdfm|miktex", re.I)


def producer_of(meta: dict[str, str]) -> str:
    """The producer named by the PDF's metadata, without versions, URLs or brackets; the TeX
    engines and drivers (pdfTeX, XeTeX's xdvipdfmx, LuaTeX, MiKTeX's builds) as one family."""
    text = meta.get("Producer") or meta.get("Creator") or ""
    if _TEX.search(text):
        return "TeX"
    text = re.sub(r"\(.*?\)|https?://\S+|www\.\S+|\S*\d\S*|\bversion\b", " ", text, flags=re.I)
    text = " ".join(text.replace(" - ", " ").split()).strip(" -")
    return text or "(no producer)"


def split(names: list[str], salt: str) -> dict[str, str]:
    """Names sorted by hash, to dev and test in turn (the first part chosen by ``salt``'s hash)."""
    first = int(digest(salt)[0], 16) % 2
    return {n: PARTS[(k + first) % 2] for k, n in enumerate(sorted(names, key=digest))}


def spread(pages: list[int], m: int) -> list[int]:
    """``m`` of ``pages``, evenly spaced (the middle of ``m`` equal runs)."""
    return [pages[int((k + 0.5) * len(pages) / m)] for k in range(m)] if m else []


def one_page(data: bytes, index: int) -> bytes:
    import pypdfium2 as pdfium

    src = pdfium.PdfDocument(data)
    new = pdfium.PdfDocument.new()
    try:
        new.import_pages(src, [index])
        buf = io.BytesIO()
        new.save(buf)
        return buf.getvalue()
    finally:
        new.close()
        src.close()


def _layout_pages(data: bytes) -> list[str]:
    with tempfile.NamedTemporaryFile(suffix=".pdf") as f:
        f.write(data)
        f.flush()
        return pdftotext(Path(f.name), layout=True).split("\f")


def words_corpus(cache: Path, debs: Path, per_producer: int) -> list[dict[str, Any]]:
    """The text pages (built once; ``cache/words/manifest.json``)."""
    import pypdfium2 as pdfium

    spec = {"layout": LAYOUT, "sources": SOURCES, "per_producer": per_producer, "min_words": MIN_WORDS,
            "docs_per_producer": DOCS_PER_PRODUCER, "packages": fetch.PACKAGES}
    folder = cache / "words"
    manifest = folder / "manifest.json"
    if manifest.exists():
        built = json.loads(manifest.read_text())
        if built.get("spec") == json.loads(json.dumps(spec)):
            return built["pages"]
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    docs: dict[str, list[dict[str, Any]]] = {}  # producer -> documents
    seen: set[str] = set()
    for pkg, pattern in SOURCES:
        root = fetch.package(pkg, debs)
        if root is None:
            print(f"  {pkg}: could not be downloaded, its documents are left out")
            continue
        for path in sorted(root.glob(pattern)):
            if path.is_symlink() or path.stat().st_size < 1024:
                continue
            data = fetch.read_pdf(path)
            sha = hashlib.sha256(data).hexdigest()
            if sha in seen:
                continue
            seen.add(sha)
            pdf = pdfium.PdfDocument(data)
            meta = pdf.get_metadata_dict()
            pdf.close()
            counts = [len(t.split()) for t in _layout_pages(data)]
            ok = [i for i, n in enumerate(counts) if n >= MIN_WORDS]
            if ok:
                name = f"{root.name.split('_')[0]}/{path.name.removesuffix('.gz')}"
                docs.setdefault(producer_of(meta), []).append(
                    {"name": name, "version": root.name.split("_", 1)[1], "data": data, "ok": ok,
                     "producer_raw": meta.get("Producer", "")})
    pages: list[dict[str, Any]] = []
    for producer, group in sorted(docs.items()):
        group = sorted(group, key=lambda d: digest(d["name"]))[:DOCS_PER_PRODUCER]
        parts = split([d["name"] for d in group], producer)
        take = [0] * len(group)
        budget = per_producer
        while budget > 0 and any(t < len(d["ok"]) for t, d in zip(take, group)):
            for k, d in enumerate(group):
                if budget > 0 and take[k] < len(d["ok"]):
                    take[k] += 1
                    budget -= 1
        for d, m in zip(group, take):
            for index in spread(d["ok"], m):
                file = folder / f"{d['name'].replace('/', '__').removesuffix('.pdf')}__p{index + 1:03d}.pdf"
                file.write_bytes(one_page(d["data"], index))
                pages.append({"file": file.name, "doc": d["name"], "version": d["version"], "page": index + 1,
                              "producer": producer, "producer_raw": d["producer_raw"],
                              "part": parts[d["name"]], "ref_layout": pdftotext(file, layout=True),
                              "ref_order": pdftotext(file), "ref_pdfium": pdfium_text(file)})
    manifest.write_text(json.dumps({"spec": spec, "pages": pages}, ensure_ascii=False, indent=0))
    return pages


# ---------------------------------------------------------------- right to left

RTL = {  # language -> (script range, catalogues (package, domain), fonts: one per document)
    "ar": ((0x0600, 0x06FF), [("debconf-i18n", "debconf"), ("apt", "apt"), ("tasksel-data", "debian-tasks")],
           ["Noto Naskh Arabic", "Furat"]),
    "he": ((0x0590, 0x05FF), [("debconf-i18n", "debconf"), ("tasksel-data", "debian-tasks")],
           ["David CLM", "Frank Ruehl CLM"]),
}
_MARKS = re.compile("[\u064b-\u065f\u0670\u05b0-\u05c7]")


def mo_strings(path: Path) -> list[str]:
    """The translations of a GNU gettext .mo file (first plural form), in the file's order."""
    b = path.read_bytes()
    order = "<" if b[:4] == b"\xde\x12\x04\x95" else ">"
    _, _, n, _, table = struct.unpack(order + "5I", b[:20])
    out = []
    for i in range(n):
        length, offset = struct.unpack(order + "2I", b[table + 8 * i:table + 8 * i + 8])
        out.append(b[offset:offset + length].decode("utf-8", "replace").split("\0")[0])
    return out


def sentences(lang: str, debs: Path) -> list[str]:
    (lo, hi), catalogues, _ = RTL[lang]
    out: list[str] = []
    for pkg, domain in catalogues:
        root = fetch.package(pkg, debs)
        mo = root / f"usr/share/locale/{lang}/LC_MESSAGES/{domain}.mo" if root else None
        if mo is None or not mo.exists():
            continue
        for s in mo_strings(mo):
            s = " ".join(_MARKS.sub("", s).split())
            letters = [c for c in s if c.isalpha()]
            if (len(s.split()) < 4 or re.search(r"[%$\\{}<>\t_|]|--", s) or s in out
                    or sum(lo <= ord(c) <= hi for c in letters) < 0.75 * len(letters)):
                continue
            out.append(s)
    return out


def rtl_corpus(cache: Path, debs: Path) -> list[dict[str, Any]]:
    """Two documents per language (sentences dealt alternately), written by LibreOffice."""
    folder = cache / "rtl"
    manifest = folder / "manifest.json"
    if manifest.exists():
        built = json.loads(manifest.read_text())
        if isinstance(built, dict) and built.get("layout") == LAYOUT:
            return built["docs"]
    if not shutil.which("soffice"):
        return []
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(parents=True)
    docs = []
    for lang, (_, _, fonts) in RTL.items():
        found = sentences(lang, debs)
        names = [f"{lang}-{k + 1}" for k in range(len(fonts))]
        parts = split(names, lang)
        for k, (name, font) in enumerate(zip(names, fonts)):
            text = found[k::len(fonts)]
            if not text:
                continue
            body = "\n".join(f'<p dir="rtl" style="text-align:right">{html.escape(s)}</p>' for s in text)
            (folder / f"{name}.html").write_text(
                f'<!DOCTYPE html><html dir="rtl" lang="{lang}"><head><meta charset="utf-8"><style>'
                f'body{{font-family:"{font}";font-size:13pt}}</style></head><body>\n{body}\n</body></html>\n',
                encoding="utf-8")
            docs.append({"file": f"{name}.pdf", "lang": lang, "font": font, "part": parts[name],
                         "truth": "\n".join(text)})
    with tempfile.TemporaryDirectory() as home:  # a profile of its own, thrown away
        r = subprocess.run(["soffice", "--headless", f"-env:UserInstallation=file://{home}",
                            "--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export",
                            "--outdir", str(folder), *[str(folder / d["file"].replace(".pdf", ".html"))
                                                       for d in docs]],
                           capture_output=True, text=True, check=False, timeout=300)
    docs = [d for d in docs if (folder / d["file"]).exists()]
    if not docs:
        print(f"  soffice wrote no PDF: {r.stderr.strip()[:300]}")
        return []
    manifest.write_text(json.dumps({"layout": LAYOUT, "docs": docs}, ensure_ascii=False, indent=0))
    return docs


# ---------------------------------------------------------------- rotated scans

ROTATIONS = (0, 90, 180, 270)


def scan_corpus(cache: Path, words_dir: Path, pages: list[dict[str, Any]],
                per_part: int) -> list[dict[str, Any]]:
    """``per_part`` text pages of each part (100-500 words, distinct producers, by hash), each turned
    four ways."""
    import numpy as np
    import pypdfium2 as pdfium
    from PIL import Image

    folder = cache / "scans"
    folder.mkdir(parents=True, exist_ok=True)
    out: list[dict[str, Any]] = []
    for part in PARTS:
        chosen: list[dict[str, Any]] = []
        for p in sorted((p for p in pages if p["part"] == part), key=lambda p: digest(p["file"])):
            if len(chosen) < per_part and 100 <= len(p["ref_layout"].split()) <= 500 \
                    and p["producer"] not in {c["producer"] for c in chosen}:
                chosen.append(p)
        for p in chosen:
            doc = pdfium.PdfDocument(words_dir / p["file"])
            img = doc[0].render(scale=200 / 72, grayscale=True).to_pil().convert("L")
            doc.close()
            for rot in ROTATIONS:
                stem = f"{Path(p['file']).stem}__r{rot:03d}"
                if not (folder / f"{stem}.pdf").exists():
                    rng = np.random.default_rng(int(digest(stem)[:8], 16))
                    a = np.asarray(img.rotate(rot, expand=True, fillcolor=255), dtype=np.float32)
                    a = a + rng.normal(0, 10, a.shape)
                    specks = rng.random(a.shape)
                    a[specks < 0.0005] = 0
                    a[specks > 0.9995] = 255
                    noisy = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8), "L")
                    noisy.save(folder / f"{stem}.png", dpi=(200, 200))
                    noisy.save(folder / f"{stem}.pdf", "PDF", resolution=200.0)
                out.append({"file": f"{stem}.pdf", "source": p["file"], "producer": p["producer"],
                            "rotation": rot, "part": part, "truth": p["ref_layout"]})
    return out


def table_cases(tables_dir: Path) -> list[dict[str, Any]]:
    cases = tables_dir / "cases.json"
    return json.loads(cases.read_text()) if cases.exists() else []
