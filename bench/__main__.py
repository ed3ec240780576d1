"""``python -m bench [submit|list|parse|fairness|batch|tables|runtime|sandbox|sandbox-io|extract|scale|delivery|realworld|orientation] [--catalog-url URL] ...``: run the benchmarks."""

from __future__ import annotations

import argparse


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench", description=__doc__)
    ap.add_argument("which", nargs="*", choices=["submit", "list", "parse", "fairness", "batch", "tables", "runtime", "sandbox", "sandbox-io", "extract", "scale",
                                             "delivery", "realworld", "orientation", []],
                    default=[],
                    help="benchmarks to run (default: all)")
    ap.add_argument("--catalog-url", default="",
                    help="run against this catalog (e.g. postgresql+psycopg://…) instead of a fresh SQLite file")
    ap.add_argument("--submit-n", type=int, default=1000, help="POSTs to time (default 1000)")
    ap.add_argument("--rows", type=int, default=1_000_000, help="job rows to load for the list benchmark")
    ap.add_argument("--samples", type=int, default=200, help="timed requests per list query (default 200)")
    ap.add_argument("--tree", default="",
                    help="fairness: also measure docklake run from this checkout (e.g. an older commit)")
    ap.add_argument("--docs", type=int, default=200, help="batch: documents to generate (default 200)")
    ap.add_argument("--corpus", choices=["generated", "manuals", "scans"], default="generated",
                    help="batch: generated documents (default), the PDF manuals of at most 20 pages of "
                         "texlive-latex-recommended-doc, or scanned PDFs (OCR)")
    ap.add_argument("--by-reference", action="store_true",
                    help="batch: the service takes the documents by reference (docklake submit --by-reference, "
                         "DOCKLAKE_INGEST__ROOTS allowing their folder) instead of uploads")
    ap.add_argument("--prefect-postgres", action="store_true",
                    help="delivery: the Prefect server on a throwaway PostgreSQL cluster (as several hosts run "
                         "it) instead of its own SQLite file")
    ap.add_argument("--keep", action="store_true", help="keep the list benchmark's SQLite catalog")
    ap.add_argument("--truncate", action="store_true",
                    help="with --catalog-url: empty the jobs table before loading (otherwise it must be empty)")
    args, extra = ap.parse_known_args(argv)
    if extra and not {"tables", "extract", "realworld", "orientation"} & set(args.which):
        ap.error(f"unrecognized arguments: {' '.join(extra)}")
    which = args.which or ["submit", "list", "parse", "fairness", "batch", "tables", "runtime", "sandbox", "extract", "scale", "delivery"]
    if "submit" in which:
        from bench import submit
        submit.run(args.submit_n, args.catalog_url)
    if "list" in which:
        from bench import listing
        listing.run(rows=args.rows, samples=args.samples, catalog_url=args.catalog_url,
                    keep=args.keep, truncate=args.truncate)
    if "parse" in which:
        from bench import parse
        parse.main([])
    if "fairness" in which:
        from bench import fairness
        fairness.run(tree=args.tree)
    if "batch" in which:
        from bench import batch
        batch.run(docs=args.docs, which=args.corpus, by_reference=args.by_reference)
    if "tables" in which:
        from bench import tables
        tables.main(extra)  # its own options: --manuals N, --no-fetch, --all, --cache DIR
    if "runtime" in which:
        from bench import runtime
        runtime.run()
    if "sandbox" in which:
        from bench import sandbox
        sandbox.run()
    if "sandbox" in which or "sandbox-io" in which:
        from bench import sandbox_io
        sandbox_io.run()
    if "scale" in which:
        from bench import scale
        scale.run()
    if "delivery" in which:
        from bench import scale
        scale.deliveries(docs=min(args.docs, 100), prefect_postgres=args.prefect_postgres)
    if "extract" in which:
        from bench import extract
        extract.main(extra if "tables" not in args.which else [])  # its own option: --seed N
    if "realworld" in which:  # not in the default list: it downloads Debian packages
        from bench import realworld
        realworld.main(extra)  # its own options: --part, --max-pages, --only, --setup, … (-h)
    if "orientation" in which:  # not in the default list: about 5 minutes of OCR
        from bench import orientation
        orientation.main(extra)  # its own options: --pages, --as, --peer, --rapidocr, --only (-h)


if __name__ == "__main__":
    main()
