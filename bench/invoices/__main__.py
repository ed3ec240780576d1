"""docklake's extraction beside the regex baseline on the real invoices, one run, both parts.

    python -m bench.invoices [--part dev|test] [--errors] [--set real|templates [--seed N]]

docklake: each PDF through the engine (``convert``) with ``schema.json`` as the extraction
schema — what ``POST /documents/v2/extract`` does. Baseline: ``baseline.py`` on the PDF's text.
Scores: ``score.py`` (header-field and line-item F1). CPU seconds per page: the parse, and
extraction alone (``stages.extract`` on the parsed pages), after the embedding model is loaded
(once per process, shown on its own: a conversion process keeps it for the jobs it serves).
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from bench.invoices import baseline, corpus, score
from pipelines.core.models import DocumentInput
from pipelines.core.requests import StructuredExtractionOptions
from pipelines.engine.document import convert
from pipelines.stages import embed, extract

SCHEMA = json.loads((Path(__file__).parent / "schema.json").read_text())


def docklake(cases: list[dict]) -> tuple[dict, float, float, int]:
    t = time.process_time()
    embed.embedder()
    print(f"embedding model loaded in {time.process_time() - t:.2f} CPU-s (once per process; not in the figures below)")
    opt = StructuredExtractionOptions(schema_name="invoice", json_schema=SCHEMA)
    preds: dict = {}
    parse_s = extract_s = 0.0
    pages_n = 0
    for c in cases:
        t = time.process_time()
        pages = convert(DocumentInput(data=Path(c["path"]).read_bytes(), file_name=Path(c["path"]).name)).pages
        parse_s += time.process_time() - t
        t = time.process_time()
        preds[c["id"]] = extract.extract_pages(pages, opt).data
        extract_s += time.process_time() - t
        pages_n += len(pages)
    return preds, parse_s, extract_s, pages_n


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench.invoices", description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("dev", "test"))
    ap.add_argument("--cache", default=str(corpus.cache_default()))
    ap.add_argument("--errors", action="store_true", help="what docklake got wrong, per case")
    ap.add_argument("--set", choices=("real", "templates"), default="real",
                    help="templates: the generated invoices of bench/invoices/templates.py (its own cache)")
    ap.add_argument("--seed", type=int, help="with --set templates: other fake data in the same layouts")
    args = ap.parse_args(argv)
    if args.set == "templates":
        from bench.invoices import templates

        cases = templates.load(args.part, seed=args.seed)
    else:
        cases = corpus.load(Path(args.cache), args.part)
    ours, parse_s, extract_s, pages_n = docklake(cases)
    base = baseline.predict(cases)
    for part in [args.part] if args.part else ["dev", "test"]:
        truth = {c["id"]: c["truth"] for c in cases if c["part"] == part}
        mine = score.score(truth, ours)
        print(score.table(mine, f"docklake, {part}") + "\n")
        print(score.table(score.score(truth, base), f"regex baseline, {part}") + "\n")
        if args.errors:
            for cid, case in mine.get("per_case", {}).items():
                for f in case.get("wrong_or_missing", []):
                    print(f"  {cid} {f}: want {truth[cid].get(f)!r} got {ours[cid].get(f)!r}")
    n = max(1, pages_n)
    print(f"docklake CPU s/page: parse {parse_s / n:.3f}, extraction {extract_s / n:.4f} ({pages_n} pages)")


if __name__ == "__main__":
    main()
