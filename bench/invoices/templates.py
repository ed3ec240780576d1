"""Invoices made from other people's invoice generators, filled with fake data: a second, larger set.

    python -m bench.invoices.templates [--cache DIR] [--part dev|test] [--rebuild]

Why: the real-invoice set (``corpus.py``) has 42 documents, and the extractor has been tuned on
them. This set gives layouts that nobody here designed or tuned on: invoice generator libraries
published on PyPI and npm by other people, used as their authors ship them. We supply only the
data: Faker (fixed seed) in en_US, en_GB, de_DE, fr_FR, nl_NL, es_ES and it_IT (since 2026-11-29 also
de_CH, en_CH and cs_CZ), with labels in the locale's language where a generator takes its labels as
parameters. The truth is known by construction, then checked against the page text (pypdfium2): a
value that is not printed is dropped (``dropped``, not scored); a field that the generator never
prints is ``null``.

The packages are fetched at build time, pinned by version and checked by sha256, into
``~/.cache/docklake-bench/invoice-templates/`` (``site/`` for the Python ones and their pinned
dependencies, ``node/`` for the npm ones); the project's venv is not touched. The glue scripts are in
``templates/``: ``make.py`` (Faker data, the Python generators, payloads for node) runs with
``site/`` on its path, ``more.py`` prints the Python generators added later (in a process of its own;
those of 2026-11-28, later have their payloads and truth in ``more2.py``, those of 2026-11-29 in
``more3.py``),
``render.mjs`` runs the npm generators (the HTML one through headless Chromium, Debian's ``chromium``).
Parts: split by generator (``GENERATORS``).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.invoices.corpus import HEADER, counts, filter_visible, pdf_info  # noqa: E402
from bench.invoices.norm import amount_visible  # noqa: E402

HERE = Path(__file__).resolve().parent / "templates"

# PyPI files we use directly: (project==version, file name, sha256, licence as the package states it)
PYPI = [
    ("Faker==40.63.0", "faker-40.63.0-py3-none-any.whl",
     "36627c20b575b4138f54b6c21f8703e9ab122fd487aca11319beec2aa6ca7232", "MIT"),
    ("InvoiceGenerator==1.2.0", "InvoiceGenerator-1.2.0-py3-none-any.whl",
     "2eab5a02f6c975c03c554d0f214e5ed2c9b70956c0d1558a05cc24ed3a6173dc", "BSD"),
    ("PyInvoice==0.1.7", "PyInvoice-0.1.7.tar.gz",
     "be741d165099c58c7bdd186759ca49a4b38fb5a20135b8275fccf74ad36dc22a", "MIT"),
    ("invoice-generator==0.0.2", "invoice_generator-0.0.2.tar.gz",
     "7fcaa3caa13b6b4e339a52dc6378bdc9785c7a21e650c19cd03002ad1119aff1", "none stated (UNKNOWN)"),
    ("invoice-pdfgen==1.2.3", "invoice_pdfgen-1.2.3-py3-none-any.whl",
     "a57eec905d946acde4b036db753338c4e2de0c1d0bfc67b32c85b6b1688cf51c", "MIT"),
    # added 2026-11-28 (templates/more.py)
    ("dinbrief==0.5.2", "dinbrief-0.5.2-py3-none-any.whl",
     "f86320d4d1951e272d98a632d3cb892fa6a4cbb841046e59f4a7290716406b30", "BSD-2-Clause OR MIT OR Apache-2.0"),
    ("larzpdf==0.1.0", "larzpdf-0.1.0-py3-none-any.whl",
     "ec46d005f600701ad59aefff61ca56aa37d2818aa464874d64dffd48039c35bb", "MIT"),
    ("erechnung==0.3.0", "erechnung-0.3.0-py3-none-any.whl",
     "c6e867e7baee9f6c209f05cceb652bd70e0cb5b06294c7e154750fa812593960", "MIT"),
    ("yinv==0.2.0", "yinv-0.2.0-py3-none-any.whl",
     "87b9c2f3e25a507fb2d75b5ca71321cba471bbe2e637bc98e7e71dc2a9b2cf62", "MIT"),
    ("zugferd-pdf==0.1.2", "zugferd_pdf-0.1.2-py3-none-any.whl",
     "6c9362f72e95314cc4a44f523ffc4cf8410e3cd1e9365e63f77a4a0d4294909d", "MIT"),
    # added 2026-11-28 (templates/more2.py)
    ("pybill==1.2.0", "pybill-1.2.0.tar.gz",
     "f3bfc6e555ae5b95b96e20b48fb4aeb458b2d0c4fe0adf332f5a6d7fa7090273", "LGPL"),
    # added 2026-11-29 (templates/more3.py)
    ("billwright==0.4.0", "billwright-0.4.0-py3-none-any.whl",
     "c1b81a5c3f44e2d01fdbc8fbfa27028995a4ed99f4181e67eed5795f78adc843", "Apache-2.0"),
    ("billingyard==1.2.0", "billingyard-1.2.0-py3-none-any.whl",
     "8bf4a0a14d38e076a1995b7e64009b255fb27598642b7d06d1f4e35d2367ebf4", "MIT"),
]
# their dependencies, pinned by version (installed with --no-deps: this list is complete)
PYPI_DEPS = ("Django==3.2.25 asgiref==3.13.0 sqlparse==0.6.1 babel==2.19.0 qrplatba==1.2.0 qrcode==8.2 "
             "reportlab==5.1.0 charset_normalizer==3.5.3 pillow==13.0.0 weasyprint==70.0 pydyf==0.13.0 "
             "cffi==2.1.1 pycparser==3.12 tinycss2==1.5.1 cssselect2==0.10.1 tinyhtml5==2.1.0 pyphen==0.18.1 "
             "fonttools==4.68.0 brotli==1.2.1 zopfli==0.4.3 webencodings==0.6.1 fpdf==1.7.2 pandas==3.1.1 "
             "numpy==2.4.6 python_dateutil==4.0.0 tzdata==2026.6 openpyxl==3.1.5 et_xmlfile==2.0.0 "
             # for the generators added 2026-11-28
             "jinja2==3.1.6 markupsafe==3.0.4 pyyaml==6.0.4 factur-x==7.8 iso4217==1.16.20260101 "
             "python-stdnum==2.2 requests==2.34.2 certifi==2026.10.19.post1 idna==3.20 urllib3==2.8.0 "
             "pikepdf==10.18.0 lxml==6.1.3 pypdf==7.1.1 packaging==26.4 "
             # for the generators added 2026-11-28 (pybill: logilab.common.xmlutils only)
             "logilab-common==2.1.0 "
             # for the generators added 2026-11-29 (billwright: pydantic, qrbill; billingyard: click, and
             # WeasyPrint 70 although it asks for <64: it renders with it)
             "pydantic==2.14.4 pydantic_core==2.50.5 annotated_types==0.8.0 typing_extensions==4.16.0 "
             "typing_inspection==0.4.5 qrbill==1.2.0 svgwrite==1.4.3 iso3166==3.0.0 click==8.5.1").split()
# npm tarballs: (name@version, tarball, sha256, licence); their dependencies as npm resolves them
NPM = [
    ("jspdf-invoice-template-nodejs@1.4.40", "jspdf-invoice-template-nodejs-1.4.40.tgz",
     "fc77637386a96e71eaf89a78e35db1bdadb86eff8ea52dc9af3e7927664c42e8", "ISC"),
    ("@h1dd3nsn1p3r/pdf-invoice@1.0.12", "h1dd3nsn1p3r-pdf-invoice-1.0.12.tgz",
     "2a330da7ee4b07becda29da891eb7d10c9f1647caf1b718b18c476f96374e4c5", "MIT"),
    ("@htmlbricks/hb-page-invoice@0.76.5", "htmlbricks-hb-page-invoice-0.76.5.tgz",
     "fe6ba7286b8409fd6677e6e8601e20473b7cbc69ae2ecb0ea0c9b72ff05d5c5e", "Apache-2.0"),
    ("@htmlbricks/hb-table@0.76.5", "htmlbricks-hb-table-0.76.5.tgz",  # loaded by hb-page-invoice
     "1b31e6f5e10cc0aeb8ca55cf5ba303210ea25d053b1c2b5ad3c0f2f9b6cdd8fb", "Apache-2.0"),
    # added 2026-11-28, later
    ("microinvoice@1.0.6", "microinvoice-1.0.6.tgz",
     "1d8aac8a6ed3766386e2076e41f0f5b488b357418fb4c60991660e4800a67706", "MIT"),
]

# generator (as in make.py's PLAN) -> (package, licence, what draws the PDF, part)
GENERATORS = {
    "invoicegenerator": ("InvoiceGenerator==1.2.0", "BSD", "reportlab", "dev"),
    "pyinvoice": ("PyInvoice==0.1.7", "MIT", "reportlab (platypus)", "dev"),
    "jspdf-invoice-template": ("jspdf-invoice-template-nodejs@1.4.40", "ISC", "jsPDF 2.5", "dev"),
    "invoice-pdfgen": ("invoice-pdfgen==1.2.3", "MIT", "PyFPDF 1.7.2", "dev"),
    "invoice-generator": ("invoice-generator==0.0.2", "none stated", "Django template + WeasyPrint", "test"),
    "pdf-invoice": ("@h1dd3nsn1p3r/pdf-invoice@1.0.12", "MIT", "pdfmake 0.2", "test"),
    # added 2026-11-28
    "dinbrief": ("dinbrief==0.5.2", "BSD-2-Clause OR MIT OR Apache-2.0", "reportlab (platypus)", "dev"),
    "larzpdf": ("larzpdf==0.1.0", "MIT", "its own PDF writer", "dev"),
    "erechnung": ("erechnung==0.3.0", "MIT", "reportlab (canvas)", "test"),
    "yinv": ("yinv==0.2.0", "MIT", "Jinja template + WeasyPrint", "test"),
    "zugferd-pdf": ("zugferd-pdf==0.1.2", "MIT", "reportlab (platypus)", "test"),
    "hb-page-invoice": ("@htmlbricks/hb-page-invoice@0.76.5", "Apache-2.0", "Svelte web component + Chromium",
                        "test"),
    # added 2026-11-28 (templates/more2.py)
    "microinvoice": ("microinvoice@1.0.6", "MIT", "PDFKit 0.12", "dev"),
    "pybill": ("pybill==1.2.0", "LGPL", "reportlab (platypus)", "dev"),
    # added 2026-11-29 (templates/more3.py)
    "billwright": ("billwright==0.4.0", "Apache-2.0", "Jinja template + WeasyPrint (Swiss QR bill)", "dev"),
    "billingyard": ("billingyard==1.2.0", "MIT", "Jinja template + WeasyPrint", "dev"),
}
# labels are English whatever the data's locale (the generator has no other language)
ENGLISH_ONLY = {"invoicegenerator", "pyinvoice", "invoice-pdfgen", "larzpdf", "yinv", "zugferd-pdf"}


def cache_default() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))
    return Path(base) / "docklake-bench" / "invoice-templates"


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def run(cmd: list[str], **kw) -> None:
    subprocess.run(cmd, check=True, **kw)


def fetch(cache: Path) -> None:
    """Download the pinned packages (pip download / npm pack), check their sha256, install them
    into ``site/`` and ``node/`` of the cache (once: ``.installed`` records what was installed)."""
    dl = cache / "downloads"
    dl.mkdir(parents=True, exist_ok=True)
    stamp = json.dumps([PYPI, PYPI_DEPS, NPM])
    marker = cache / ".installed"
    if marker.exists() and marker.read_text() == stamp:
        return
    for req, fname, _sha, _ in PYPI:
        if not (dl / fname).exists():
            run([sys.executable, "-m", "pip", "download", "-q", "--no-deps", "--no-binary", ":none:",
                 "-d", str(dl), req])
    for spec, fname, _sha, _ in NPM:
        if not (dl / fname).exists():
            run(["npm", "pack", "-q", "--pack-destination", str(dl), spec], stdout=subprocess.DEVNULL)
    for _, fname, sha, _ in PYPI + NPM:
        if sha256(dl / fname) != sha:
            raise RuntimeError(f"{fname}: sha256 differs from the pinned one")
    run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--upgrade", "--target", str(cache / "site"),
         *[str(dl / f) for _, f, _, _ in PYPI], *PYPI_DEPS])
    run(["npm", "install", "-q", "--no-audit", "--no-fund", "--prefix", str(cache / "node"),
         *[str(dl / f) for _, f, _, _ in NPM]])
    marker.write_text(stamp)


def check(made: dict) -> tuple[dict, list[str]]:
    """Keep the truth values printed on the page; ``None`` (never printed by the generator) stays null.
    A line amount given as a list (a line printed net and gross) is checked on its first value that the
    page shows, and kept whole (``corpus.visible`` takes one number)."""
    text = pdf_info(Path(made["path"]).read_bytes())[0]
    nulls = [f for f in HEADER if f in made["fields"] and made["fields"][f] is None]
    items, alts = [], {}
    for n, it in enumerate(made["line_items"]):
        if isinstance(it["amount"], list):
            alts[n] = it["amount"]
            it = {**it, "amount": next((a for a in alts[n] if amount_visible(a, text)), alts[n][0])}
        items.append(it)
    kept, dropped = filter_visible({**made["fields"], "line_items": items}, text)
    for n, it in enumerate(kept.get("line_items", [])):  # all lines kept: the indices are the same
        it["amount"] = alts.get(n, it["amount"])
    return {**kept, **dict.fromkeys(nulls)}, dropped


def build(cache: Path | None = None, seed: int | None = None) -> list[dict]:
    """Make the cases into ``cache``; ``seed``: other fake data in the same layouts (a check that
    what was learnt on the set holds for other names, numbers and amounts)."""
    cache = Path(cache or cache_default())
    fetch(cache)
    env = {**os.environ, "PYTHONPATH": str(cache / "site"), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONHASHSEED": "0", "INVOICE_SEED": str(seed or "")}  # Faker's it_IT cities come from a set
    run([sys.executable, str(HERE / "make.py"), str(cache)], env=env)
    run([sys.executable, str(HERE / "more.py"), str(cache)], env=env)
    run(["node", str(HERE / "render.mjs"), str(cache)], stdout=subprocess.DEVNULL)
    cases = []
    for m in json.loads((cache / "made.json").read_text()):
        package, licence, drawn_by, part = GENERATORS[m["generator"]]
        truth, dropped = check(m)
        info = pdf_info(Path(m["path"]).read_bytes())[1]
        cases.append({"id": m["id"], "generator": m["generator"], "package": package, "licence": licence,
                      "drawn_by": drawn_by, "producer": info.get("Producer", ""), "pages": info["pages"],
                      "locale": m["locale"], "language": "en" if m["generator"] in ENGLISH_ONLY else m["locale"][:2],
                      "part": part, "path": m["path"], "sha256": sha256(Path(m["path"])),
                      "truth": truth, "dropped": dropped})
    (cache / "cases.json").write_text(json.dumps(cases, indent=1, ensure_ascii=False))
    return cases


def load(part: str | None = None, cache: Path | None = None, rebuild: bool = False, seed: int | None = None) -> list[dict]:
    """The cases (built on first use), optionally one part only; the shape of ``corpus.load``.
    With a ``seed``, in a cache of their own (``…/invoice-templates-seed-N``)."""
    cache = Path(cache or cache_default())
    if seed:
        base, cache = cache, cache.with_name(f"{cache.name}-seed-{seed}")
        cache.mkdir(parents=True, exist_ok=True)
        for name in ("downloads", "site", "node", ".installed"):  # the packages, installed once
            if (base / name).exists() and not (cache / name).exists():
                (cache / name).symlink_to(base / name)
    manifest = cache / "cases.json"
    cases = None
    if manifest.exists() and not rebuild:
        cases = json.loads(manifest.read_text())
        stale = any(not Path(c["path"]).exists() for c in cases) or any(
            os.path.getmtime(p) > os.path.getmtime(manifest) for p in [Path(__file__), *HERE.iterdir()])
        cases = None if stale else cases
    cases = cases or build(cache, seed)
    return [c for c in cases if part in (None, c["part"])]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cache", default=str(cache_default()))
    ap.add_argument("--part", choices=("dev", "test"))
    ap.add_argument("--rebuild", action="store_true", help="make the invoices again even if present")
    ap.add_argument("--seed", type=int, help="other fake data in the same layouts, in a cache of its own")
    args = ap.parse_args(argv)
    cases = load(args.part, Path(args.cache), args.rebuild, args.seed)
    print(f"{'id':30} {'part':4} {'lang':4} {'locale':6} {'fields':6} {'null':4} {'lines':5} {'dropped':24} package")
    for c in cases:
        t = c["truth"]
        nf = sum(1 for f in HEADER if t.get(f) is not None)
        nn = sum(1 for f in HEADER if f in t and t[f] is None)
        nl = len(t.get("line_items") or [])
        print(f"{c['id']:30} {c['part']:4} {c['language']:4} {c['locale']:6} {nf:6} {nn:4} {nl:5} "
              f"{','.join(c['dropped'])[:24]:24} {c['package']}")
    print("\ncases per part and language:", json.dumps(counts(cases)))


if __name__ == "__main__":
    main()
