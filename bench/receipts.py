"""Key fields of real scanned receipts: docklake's extraction beside a simple baseline, one run.

    python -m bench.receipts [--data ../shared/data/receipts-dev] [--part dev|test|both] [--pages DIR]

Data: ``shared/data/receipts-dev`` (200 SROIE receipts, their keys, schema and scorer; never copied
into the repo). Parts: **dev** = receipts 000–139 (the only ones looked at while writing the
extraction rules), **test** = 140–199 (run, never inspected). Both are reported.

* docklake: the receipt image through the engine (``convert``: OCR, layout) and then
  ``stages.extract`` with the set's own ``schema.json`` — exactly what
  ``POST /documents/v2/extract`` does with that schema.
* baseline, on the same OCR text: company = the first line, address = the next two lines, date =
  the first thing shaped like a date, total = the last amount on a line that says "total" and
  not "sub". No geometry, no schema words.
* Scores: the set's ``score.py`` (SROIE task-3 counting: case-insensitive, whitespace collapsed),
  per field and micro F1; seconds per receipt of the parse and of extraction alone. SROIE
  repeats shops, so the dev part is also scored on the receipts of shops it holds only once:
  rules read off a shop's receipts flatter the whole dev part, not that subset.

``--pages DIR`` keeps each receipt's parsed pages there (pickle) and reuses them, to iterate on
extraction without OCR again; delete the folder after changing the parser.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import pickle
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from pipelines.core.models import DocumentInput, PageResult  # noqa: E402
from pipelines.core.requests import StructuredExtractionOptions  # noqa: E402
from pipelines.engine.document import convert  # noqa: E402
from pipelines.stages import classify, extract  # noqa: E402

PARTS = {"dev": range(0, 140), "test": range(140, 200)}
DATE = re.compile(r"\b\d{1,2}[/.-]\d{1,2}[/.-]\d{2,4}\b|\b\d{1,2} ?[A-Za-z]{3,9},? ?\d{2,4}\b|\b\d{4}-\d{2}-\d{2}\b")
AMOUNT = re.compile(r"\d[\d,]*\.\d{2}\b")


def scorer(data: Path) -> Any:
    spec = importlib.util.spec_from_file_location("receipts_score", data / "score.py")
    assert spec and spec.loader
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def baseline(pages: list[PageResult]) -> dict[str, str | None]:
    lines = [ln.strip() for p in pages for ln in classify.page_text(p).splitlines() if ln.strip()]
    date = next((m.group(0) for ln in lines if (m := DATE.search(ln))), None)
    total = None
    for ln in lines:
        low = ln.lower()
        if "total" in low and "sub" not in low and (amounts := AMOUNT.findall(ln)):
            total = amounts[-1]
    return {"company": lines[0] if lines else None, "address": " ".join(lines[1:3]) or None,
            "date": date, "total": total}


def parse(img: Path, cache: Path | None) -> tuple[list[PageResult], float]:
    hit = cache / f"{img.stem}.pkl" if cache else None
    if hit is not None and hit.exists():
        return pickle.loads(hit.read_bytes()), 0.0
    t = time.process_time()
    pages = convert(DocumentInput(data=img.read_bytes(), file_name=img.name)).pages
    spent = time.process_time() - t
    if hit is not None:
        hit.write_bytes(pickle.dumps(pages))
    return pages, spent


def run(data: Path, parts: list[str], cache: Path | None, errors: bool, every: int = 1) -> None:
    mod = scorer(data)
    schema = json.loads((data / "schema.json").read_text())
    opt = StructuredExtractionOptions(schema_name="receipt", json_schema=schema)
    if cache:
        cache.mkdir(parents=True, exist_ok=True)
    for part in parts:
        ids = [f"{i:03d}" for i in PARTS[part][::every] if (data / "img" / f"{i:03d}.jpg").exists()]
        keys = {i: json.loads((data / "key" / f"{i}.json").read_text()) for i in ids}
        ours: dict[str, dict] = {}
        base: dict[str, dict] = {}
        parse_s = extract_s = 0.0
        for i in ids:
            pages, spent = parse(data / "img" / f"{i}.jpg", cache)
            parse_s += spent
            t = time.process_time()
            ours[i] = extract.extract_pages(pages, opt).data
            extract_s += time.process_time() - t
            base[i] = baseline(pages)
        for name, preds in (("docklake", ours), ("baseline", base)):
            figures = figures_of(mod, keys, preds)
            print(f"{part:4s} {name:9s} " + " ".join(f"{k}={v:.3f}" for k, v in figures.items()))
        if part == "dev":  # SROIE repeats shops: the dev receipts of shops seen only once show
            once = single_shops(mod, keys)  # how the rules do on shops they were not written on
            for name, preds in (("docklake", ours), ("baseline", base)):
                figures = figures_of(mod, {i: keys[i] for i in once}, preds)
                print(f"dev, {len(once)} shops seen once, {name:9s} " + " ".join(f"{k}={v:.3f}" for k, v in figures.items()))
        n = max(1, len(ids))
        print(f"{part:4s} CPU s/receipt: parse {parse_s / n:.3f}{' (cached)' if cache and not parse_s else ''}"
              f", extraction {extract_s / n:.4f}  ({len(ids)} receipts)")
        if errors:
            for i in ids:
                for k, want in keys[i].items():
                    got = ours[i].get(k)
                    if " ".join(str(got or "").split()).casefold() != " ".join(want.split()).casefold():
                        print(f"  {i} {k:8s} want {want!r}\n  {'':3s} {'':8s} got  {got!r}")


def single_shops(mod: Any, keys: dict) -> list[str]:
    """The receipts whose shop (the key's company) no other receipt of ``keys`` has."""
    shops = Counter(mod.norm(k.get("company") or "") for k in keys.values())
    return [i for i, k in keys.items() if shops[mod.norm(k.get("company") or "")] == 1]


def figures_of(mod: Any, keys: dict, preds: dict) -> dict[str, float]:
    """Per-field and micro F1 through the set's scorer (its counting, not a copy of it)."""
    out: dict[str, float] = {}
    total = {"tp": 0, "pred": 0, "exp": 0}
    for field in mod.FIELDS:
        tp = pred = exp = 0
        for i, key in keys.items():
            want = mod.norm(key.get(field) or "")
            got = mod.norm(mod.value((preds.get(i) or {}).get(field)))
            exp += bool(want)
            pred += bool(got)
            tp += bool(want) and got == want
        p, r = tp / max(1, pred), tp / max(1, exp)
        out[field] = 2 * p * r / max(1e-9, p + r)
        total = {"tp": total["tp"] + tp, "pred": total["pred"] + pred, "exp": total["exp"] + exp}
    p, r = total["tp"] / max(1, total["pred"]), total["tp"] / max(1, total["exp"])
    out["field_f1"] = 2 * p * r / max(1e-9, p + r)
    out["precision"], out["recall"] = p, r
    return out


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.receipts", description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "receipts-dev"))
    ap.add_argument("--part", choices=["dev", "test", "both"], default="both")
    ap.add_argument("--pages", default="", help="cache parsed pages here (reused on the next run)")
    ap.add_argument("--errors", action="store_true", help="list docklake's wrong values")
    ap.add_argument("--every", type=int, default=1, help="only every n-th receipt of each part (quicker)")
    args = ap.parse_args(argv)
    data = Path(args.data)
    if not (data / "score.py").exists():
        sys.exit(f"no receipts set at {data} (see shared/data/README.md)")
    parts = ["dev", "test"] if args.part == "both" else [args.part]
    run(data, parts, Path(args.pages) if args.pages else None, args.errors, args.every)


if __name__ == "__main__":
    main()
