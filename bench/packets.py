"""Page classification on real mixed packets: invoices, receipts and manual pages, one run.

    python -m bench.packets [--part dev|dev2|dev3|test] [--receipts-pages DIR]

Packets, each with pages of the three kinds:

* ``test`` (never tuned on): the first page of each real invoice of the test part of
  ``bench/invoices``; 30 scanned receipts of ``shared/data/receipts-dev`` (its test part,
  140-199 every other one); the 13 real LaTeX-manual pages of ``tests/realworld``.
* ``dev`` (to develop on): the first page of each dev-part invoice; 28 receipts of the
  receipts' dev part (0-139, every fifth); one page from the middle of each of 20 Debian
  LaTeX manuals (``texlive-latex-recommended-doc``) of other packages than ``tests/realworld``'s.
* ``dev2``: other producers' manuals (DocBook, Texinfo, Sphinx, groff, …), the made invoices of
  ``bench.invoices``' templates set and 28 other dev receipts.
* ``dev3``: two pages of each of 40 CTAN packages' own manuals from ``texlive-latex-extra-doc``
  (another Debian package; slides, listings and prose among them), the dev invoices and 28 other
  dev receipts.

Receipt pages are reused from ``python -m bench.receipts --pages DIR`` when given (that bench
parses both parts into one folder per part: pass the folder of the part asked for), else parsed
here. Before session 17 (2026-11-26) one packet of 74 pages held every invoice, dev and test alike (0.81).
The classes are what a user would write, never tuned on these pages:

* ``invoice`` — "An invoice or bill from a supplier: invoice number, billing address, amounts,
  VAT and the total due."
* ``receipt`` — "A shop receipt or till slip: items bought, total paid, cash and change."
* ``manual`` — "A page of technical documentation: explanations, commands, options and examples."

docklake: ``stages.classify`` (embeddings + keywords + layout, a page that fits none gets none).
Baseline: the share of each class's own words on the page, best class. Accuracy per class and
overall, and how many pages got no class.
"""

from __future__ import annotations

import argparse
import pickle
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipelines.core.models import DocumentInput, DocumentResult, PageResult  # noqa: E402
from pipelines.core.requests import PageClassConfig  # noqa: E402
from pipelines.engine.document import convert  # noqa: E402
from pipelines.stages import classify  # noqa: E402

CLASSES = [
    PageClassConfig(name="invoice", description="An invoice or bill from a supplier: invoice number, billing "
                                                "address, amounts, VAT and the total due."),
    PageClassConfig(name="receipt", description="A shop receipt or till slip: items bought, total paid, cash and "
                                                "change."),
    PageClassConfig(name="manual", description="A page of technical documentation: explanations, commands, "
                                               "options and examples."),
]
RECEIPTS = {"test": range(140, 200, 2), "dev": range(0, 140, 5), "dev2": range(2, 140, 5), "dev3": range(4, 140, 5)}
# dev2's manuals: other producers than LaTeX (DocBook, Texinfo, Sphinx, groff, Doxygen, Erlang's
# own), each a Debian package pinned by version, two pages of each from its middle
OTHER_MANUALS = [
    ("graphviz-doc", "2.42.2-7+deb12u1", "usr/share/doc/graphviz/pdf/dotguide.pdf.gz"),
    ("erlang-doc", "1:25.2.3+dfsg-1+deb12u4", "usr/share/doc/erlang-doc/erts-13.1.5/doc/pdf/erts-13.1.5.pdf"),
    ("installation-guide-amd64", "20230508+deb12u1", "usr/share/doc/installation-guide-amd64/de/install.de.pdf.gz"),
    ("gnucash-docs", "4.13-1", "usr/share/doc/gnucash-docs/gnucash-help-en.pdf.gz"),
    ("octave-doc", "7.3.0-2", "usr/share/doc/octave/octave.pdf"),
    ("bash-doc", "5.2.15-2", "usr/share/doc/bash/bashref.pdf"),
    ("debian-policy", "4.6.2.0", "usr/share/doc/debian-policy/policy.pdf.gz"),
    ("debian-faq", "11.1", "usr/share/doc/debian/FAQ/debian-faq.en.pdf.gz"),
    ("autoconf-doc", "2.71-3", "usr/share/doc/autoconf/autoconf.pdf.gz"),
    ("zsh-doc", "5.9-4", "usr/share/doc/zsh-common/zsh.pdf"),
    ("maxima-doc", "5.46.0-11", "usr/share/doc/maxima-doc/maximabook-19-Sept-2004.pdf.gz"),
    ("gnuplot-doc", "5.4.4+dfsg1-2", "usr/share/doc/gnuplot/gnuplot.pdf"),
    ("flex-doc", "2.6.4-8.2", "usr/share/doc/flex-doc/flex.pdf.gz"),
    ("doxygen-doc", "1.9.4-4", "usr/share/doc/doxygen/doxygen_manual.pdf"),
    ("developers-reference", "12.18", "usr/share/developers-reference/developers-reference.pdf"),
    ("debian-reference-en", "2.100", "usr/share/debian-reference/debian-reference.en.pdf"),
    ("groff", "1.22.4-10", "usr/share/doc/groff-base/pdf/mom-pdf.pdf.gz"),
]
# the packages whose manual pages are the test packet's (tests/realworld): not in the dev packet
TEST_MANUALS = ("beamer", "booktabs", "ctable", "fontspec", "listings", "memman", "memoir", "microtype",
                "xcolor")
DEV_MANUALS = 20
NOT_MANUALS = ("test", "example", "sample", "outline")  # the packages' test and example prints


def _other_manual_pages() -> list[tuple[str, PageResult]]:
    import io
    import os

    import pypdfium2 as pdfium

    from bench.realworld import fetch

    root = Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "docklake-bench"
    out = []
    for name, version, rel in OTHER_MANUALS:
        folder = fetch.package(name, root, version)
        if folder is None or not (folder / rel).exists():
            print(f"  missing: {name} {rel}")
            continue
        src = pdfium.PdfDocument(fetch.read_pdf(folder / rel))
        for at in (0.4, 0.6):
            one = pdfium.PdfDocument.new()
            one.import_pages(src, [int(len(src) * at)])
            buf = io.BytesIO()
            one.save(buf)
            out.append((f"{name}-p{int(len(src) * at) + 1}", convert(DocumentInput(data=buf.getvalue())).pages[0]))
    return out


# dev3's manuals: CTAN packages' own manuals (``latex/NAME/NAME.pdf``) from another Debian package
# than dev's, every n-th of them by name, two pages each; none of the test packet's packages, and
# no invoice class (their example invoices are bench.invoices')
EXTRA_DOC = ("texlive-latex-extra-doc", "2022.20230122-4", "usr/share/doc/texlive-doc/latex")
EXTRA_MANUALS = 40
NOT_EXTRA = (*TEST_MANUALS, "invoice", "factur", "rechnung", "bill")


def _extra_manual_pages() -> list[tuple[str, PageResult]]:
    import io
    import os

    import pypdfium2 as pdfium

    from bench.realworld import fetch

    name, version, rel = EXTRA_DOC
    folder = fetch.package(name, Path(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache"))) / "docklake-bench",
                           version)
    if folder is None:
        print(f"  missing: {name}")
        return []
    manuals = sorted(p for p in (folder / rel).glob("*/*.pdf")
                     if p.stem == p.parent.name and not any(w in p.stem.lower() for w in NOT_EXTRA))
    out = []
    for path in manuals[::max(1, len(manuals) // EXTRA_MANUALS)][:EXTRA_MANUALS]:
        src = pdfium.PdfDocument(str(path))
        for at in sorted({int(len(src) * 0.3), int(len(src) * 0.7)}):
            one = pdfium.PdfDocument.new()
            one.import_pages(src, [at])
            buf = io.BytesIO()
            one.save(buf)
            out.append((f"{path.stem}-p{at + 1}", convert(DocumentInput(data=buf.getvalue())).pages[0]))
    return out


def _manual_pages(part: str) -> list[tuple[str, PageResult]]:
    if part == "dev2":
        return _other_manual_pages()
    if part == "dev3":
        return _extra_manual_pages()
    if part == "test":
        return [(f.stem, convert(DocumentInput(data=f.read_bytes())).pages[0])
                for f in sorted((ROOT / "tests" / "realworld").glob("*.pdf"))]
    import io
    import tempfile

    import pypdfium2 as pdfium

    from bench.batch_corpus import real_manuals

    out = []
    with tempfile.TemporaryDirectory() as tmp:
        paths = [p for p in real_manuals(Path(tmp)) if not any(t in p.name.lower() for t in TEST_MANUALS)
                 and not any(w in p.stem.lower() for w in NOT_MANUALS)]
        step = max(1, len(paths) // DEV_MANUALS)
        for path in paths[::step][:DEV_MANUALS]:
            src = pdfium.PdfDocument(str(path))
            one = pdfium.PdfDocument.new()
            one.import_pages(src, [len(src) // 2])
            buf = io.BytesIO()
            one.save(buf)
            out.append((f"{path.stem}-p{len(src) // 2 + 1}", convert(DocumentInput(data=buf.getvalue())).pages[0]))
    return out


def packet(part: str, data: Path, receipt_pages: Path | None) -> list[tuple[str, str, PageResult]]:
    from bench.invoices import corpus

    out = []
    if part == "dev2":  # the made invoices of bench.invoices' second set, from other people's generators
        from bench.invoices import templates
        invoices = templates.load("dev")
    else:
        invoices = corpus.load(part="dev" if part == "dev3" else part)
    for c in invoices:
        pages = convert(DocumentInput(data=Path(c["path"]).read_bytes())).pages
        out.append((c["id"], "invoice", pages[0]))
    for i in RECEIPTS[part]:
        cached = receipt_pages / f"{i:03d}.pkl" if receipt_pages else None
        if cached is not None and cached.exists():
            pages = pickle.loads(cached.read_bytes())
        else:
            pages = convert(DocumentInput(data=(data / "img" / f"{i:03d}.jpg").read_bytes())).pages
        out.append((f"receipt-{i:03d}", "receipt", pages[0]))
    out += [(name, "manual", page) for name, page in _manual_pages(part)]
    return out


def baseline(page: PageResult) -> str | None:
    words = set(classify.WORD.findall(classify.page_text(page).lower()))
    shares = {c.name: classify.keyword_share(classify.class_words(c), words) for c in CLASSES}
    best = max(shares, key=lambda k: shares[k])
    return best if shares[best] > 0 else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.packets", description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("dev", "dev2", "dev3", "test"), default="test")
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "receipts-dev"))
    ap.add_argument("--receipts-pages", default="", help="parsed receipt pages from bench.receipts --pages")
    args = ap.parse_args(argv)
    pages = packet(args.part, Path(args.data), Path(args.receipts_pages) if args.receipts_pages else None)
    doc = DocumentResult(input=DocumentInput(classification=CLASSES),
                         pages=[p.model_copy(update={"page_number": i + 1}) for i, (_, _, p) in enumerate(pages)])
    got = {n: pc.page_class for pc in classify.classify(doc).page_classes or [] for n in pc.page_numbers}
    rows = []
    for name in [c.name for c in CLASSES]:
        idx = [i for i, (_, want, _) in enumerate(pages) if want == name]
        ours = sum(got.get(i + 1) == name for i in idx)
        base = sum(baseline(pages[i][2]) == name for i in idx)
        rows.append(f"| {name} | {len(idx)} | {ours}/{len(idx)} | {base}/{len(idx)} |")
    total = len(pages)
    ours = sum(got.get(i + 1) == want for i, (_, want, _) in enumerate(pages))
    base = sum(baseline(p) == want for _, want, p in pages)
    none = sum(got.get(i + 1) is None for i in range(total))
    print(f"{args.part} packet\n")
    print("| class | pages | docklake | keyword baseline |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"| **all** | {total} | **{ours}/{total} ({ours / total:.2f})** | {base}/{total} ({base / total:.2f}) |")
    print(f"pages docklake left without a class: {none}")
    for i, (pid, want, _) in enumerate(pages):
        if got.get(i + 1) != want:
            print(f"  {pid}: want {want}, got {got.get(i + 1)}")


if __name__ == "__main__":
    main()
