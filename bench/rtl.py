"""Right-to-left and bidirectional text: does docklake read Arabic, Hebrew and mixed lines in
logical order (the order typed)?

    python -m bench.rtl [--cache DIR]

Corpus: a few Arabic, Hebrew, mixed Arabic–English / Hebrew–English and (as a control) English
pages written here as HTML and turned into PDF by LibreOffice (``soffice --headless``; real
shaping, ligatures, right-aligned paragraphs), built into a cache directory, not the repo.
Reference: the text written, in logical order. Score: word-level similarity
(``rapidfuzz.distance.Levenshtein.normalized_similarity`` on the token lists, NFKC) of
docklake's output (``convert``, every text its fragments show, in reading order) and of
pypdfium2's ``get_text_range()``. Needs LibreOffice and fonts-noto-core (or any Arabic and
Hebrew font fontconfig finds).
"""

from __future__ import annotations

import argparse
import html
import os
import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path

import pypdfium2 as pdfium
from rapidfuzz.distance import Levenshtein

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert

ARABIC = [
    "مرحبا بكم في نظام معالجة المستندات الجديد",
    "هذا النص مكتوب باللغة العربية ويجب أن يقرأ من اليمين إلى اليسار بشكل صحيح في كل سطر من "
    "الأسطر الطويلة التي تلتف على عدة أسطر في الصفحة",
    "تم إرسال الفاتورة إلى العميل على العنوان المسجل لدى الشركة",
]
HEBREW = [
    "שלום עולם זהו מסמך בעברית לבדיקה",
    "המערכת קוראת את המסמכים ושומרת את הטקסט בסדר הנכון מימין לשמאל גם כאשר השורות ארוכות "
    "ועוברות לשורה הבאה בעמוד",
]
MIXED_AR = [
    "Invoice رقم 12345 بتاريخ 2024-03-12",
    "تم الدفع عبر Bank Transfer بمبلغ 1500 دولار",
    "اسم الشركة Acme Corporation وعنوانها في دبي",
]
MIXED_HE = [
    "החשבונית מספר 4521 עבור חברת Acme Corp נשלחה היום",
    "הקובץ report.pdf נשמר בתיקייה הראשית",
]
ENGLISH = [
    "The quick brown fox jumps over the lazy dog near the river bank.",
    "Invoice number 12345 dated 2024-03-12 was paid in full by Acme Corporation.",
]
DOCS = {"arabic": (ARABIC, "rtl"), "hebrew": (HEBREW, "rtl"), "mixed-arabic": (MIXED_AR, "rtl"),
        "mixed-hebrew": (MIXED_HE, "rtl"), "english": (ENGLISH, "ltr"),
        "english-with-arabic": (["The customer wrote مرحبا بكم on the form and signed it.",
                                 "Reference 2024 was checked twice."], "ltr")}


def build(cache: Path) -> dict[str, Path]:
    """The PDFs, made once (LibreOffice, its own profile in the cache)."""
    cache.mkdir(parents=True, exist_ok=True)
    out = {name: cache / f"{name}.pdf" for name in DOCS}
    todo = [name for name, p in out.items() if not p.exists()]
    if not todo:
        return out
    soffice = shutil.which("soffice")
    if soffice is None:
        raise SystemExit("bench.rtl needs LibreOffice (soffice)")
    with tempfile.TemporaryDirectory() as tmp:
        srcs = []
        for name in todo:
            paras, direction = DOCS[name]
            body = "".join(f"<p>{html.escape(p)}</p>" for p in paras)
            src = Path(tmp) / f"{name}.html"
            src.write_text(f'<html dir="{direction}"><head><meta charset="utf-8"></head>'
                           f'<body dir="{direction}">{body}</body></html>', encoding="utf-8")
            srcs.append(str(src))
        subprocess.run([soffice, f"-env:UserInstallation=file://{cache}/profile", "--headless",
                        "--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export",
                        "--outdir", str(cache), *srcs], check=True, capture_output=True, timeout=300)
    return out


def tokens(text: str) -> list[str]:
    return unicodedata.normalize("NFKC", text).split()


def docklake_text(data: bytes) -> str:
    r = convert(DocumentInput(data=data, file_name="rtl.pdf"))
    out = []
    for p in r.pages:
        for f in sorted(p.fragments, key=lambda f: f.reading_order or 0):
            out.append(str(f.content.get("content", "")))
    return "\n".join(out)


def pdfium_text(data: bytes) -> str:
    doc = pdfium.PdfDocument(data)
    try:
        return "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()


def score(truth: str, got: str) -> float:
    return Levenshtein.normalized_similarity(tokens(truth), tokens(got))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--cache", type=Path,
                    default=Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "docklake-bench" / "rtl")
    ap.add_argument("--show", action="store_true", help="print docklake's text")
    args = ap.parse_args()
    pdfs = build(args.cache)
    print(f"{'document':22} {'docklake':>9} {'pypdfium2':>9}")
    for name, path in pdfs.items():
        data = path.read_bytes()
        truth = "\n".join(DOCS[name][0])
        got = docklake_text(data)
        print(f"{name:22} {score(truth, got):9.3f} {score(truth, pdfium_text(data)):9.3f}")
        if args.show:
            print("   ", got.replace("\n", " | "))


if __name__ == "__main__":
    main()
