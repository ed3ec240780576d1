"""Page classification on a real mixed packet: invoices, receipts and manual pages, one run.

    python -m bench.packets [--receipts-pages DIR]

The packet: the first page of each real invoice of ``bench/invoices`` (24, four languages), 30
scanned receipts of ``shared/data/receipts-dev`` (test part, 140-199 every other one; their
parsed pages are reused from ``python -m bench.receipts --pages DIR`` when given, else parsed
here), and the 13 real LaTeX-manual pages of ``tests/realworld``. The classes are what a user
would write, never tuned on these pages:

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
RECEIPTS = range(140, 200, 2)


def packet(data: Path, receipt_pages: Path | None) -> list[tuple[str, str, PageResult]]:
    from bench.invoices import corpus

    out = []
    for c in corpus.load():
        pages = convert(DocumentInput(data=Path(c["path"]).read_bytes())).pages
        out.append((c["id"], "invoice", pages[0]))
    for i in RECEIPTS:
        cached = receipt_pages / f"{i:03d}.pkl" if receipt_pages else None
        if cached is not None and cached.exists():
            pages = pickle.loads(cached.read_bytes())
        else:
            pages = convert(DocumentInput(data=(data / "img" / f"{i:03d}.jpg").read_bytes())).pages
        out.append((f"receipt-{i:03d}", "receipt", pages[0]))
    for f in sorted((ROOT / "tests" / "realworld").glob("*.pdf")):
        out.append((f.stem, "manual", convert(DocumentInput(data=f.read_bytes())).pages[0]))
    return out


def baseline(page: PageResult) -> str | None:
    words = set(classify.WORD.findall(classify.page_text(page).lower()))
    shares = {c.name: classify.keyword_share(classify.class_words(c), words) for c in CLASSES}
    best = max(shares, key=lambda k: shares[k])
    return best if shares[best] > 0 else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.packets", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "receipts-dev"))
    ap.add_argument("--receipts-pages", default="", help="parsed receipt pages from bench.receipts --pages")
    args = ap.parse_args(argv)
    pages = packet(Path(args.data), Path(args.receipts_pages) if args.receipts_pages else None)
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
    print("| class | pages | docklake | keyword baseline |\n|---|---|---|---|")
    print("\n".join(rows))
    print(f"| **all** | {total} | **{ours}/{total} ({ours / total:.2f})** | {base}/{total} ({base / total:.2f}) |")
    print(f"pages docklake left without a class: {none}")
    for i, (pid, want, _) in enumerate(pages):
        if got.get(i + 1) != want:
            print(f"  {pid}: want {want}, got {got.get(i + 1)}")


if __name__ == "__main__":
    main()
