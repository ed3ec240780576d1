"""Real-world documents nobody here wrote: docklake beside its peers, in one run, dev and test.

    python -m bench realworld [--part dev|test|both] [--max-pages N] [--per-producer N]
                              [--scan-pages N] [--only words,rtl,scans,tables] [--setup] [--cache DIR]

Four sets, built into the cache (``~/.cache/docklake-bench/realworld``) from Debian packages
(``apt-get download``) and ``../shared/data/tables-dev`` (see ``corpora``):

* text pages from PDFs that Debian documentation packages ship, made by several producers: word
  recall against ``pdftotext -layout``'s words, reading-order similarity against poppler's reading
  order (a proxy, not a human reading) and against pypdfium2's plain order;
* Arabic and Hebrew documents written by LibreOffice from Debian's translated messages: word
  recall and order similarity against the sentences themselves (true ground truth);
* rotated scans of text pages (0/90/180/270 degrees, 200 dpi, mild noise): word recall;
* tables-dev (17 tabula-java test tables; development only, no test part): cell accuracy with
  its own scorer. Its expected tables are tabula-java's output, which favours tabula-py.
* tables of Debian's HTML manuals printed by Chromium (``html_tables``; dev and test parts):
  cell accuracy with the same scorer against the HTML tables' own cells.

Results: markdown tables on stdout, and JSON (every item's scores) in the cache directory.
"""

from __future__ import annotations

import os

os.environ.setdefault("OMP_THREAD_LIMIT", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import datetime  # noqa: E402
import json  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.realworld import corpora, fetch, html_tables, report, runs, systems  # noqa: E402
from bench.realworld.corpora import digest  # noqa: E402
from pipelines.stages import coverage  # noqa: E402

TASKS = ("words", "rtl", "scans", "tables")


def _cache_default() -> str:
    return os.path.join(os.environ.get("XDG_CACHE_HOME", str(Path.home() / ".cache")), "docklake-bench")


def _pick(items: list[dict], parts: list[str], cap: int | None, key: str = "file") -> list[dict]:
    """The items of ``parts``; with ``cap``, the first ``cap`` of each part by hash of ``key``."""
    out = []
    for part in parts:
        mine = [i for i in items if i["part"] == part]
        if cap is not None:
            keep = {i[key] for i in sorted(mine, key=lambda i: digest(i[key]))[:cap]}
            mine = [i for i in mine if i[key] in keep]
        out += mine
    return out


def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    out = {}
    for dist in ("pypdfium2", "pdfplumber", "markitdown", "camelot-py", "tabula-py", "rapidfuzz"):
        try:
            out[dist] = version(dist)
        except PackageNotFoundError:
            pass
    return out


def _engine() -> str:
    """The commit the engine was read from, and whether ``pipelines/`` differs from it (read only)."""
    import subprocess

    def git(*a: str) -> str:
        r = subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True, text=True, check=False)
        return r.stdout.strip() if r.returncode == 0 else ""

    head = git("rev-parse", "--short", "HEAD") or "unknown"
    dirty = git("status", "--porcelain", "--", "pipelines")
    return head + (" + uncommitted changes in pipelines/" if dirty else "")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench realworld", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--part", choices=["dev", "test", "both", "held", "dev2", "dev3", "dev4", "dev5", "dev6", "dev7"], default="both",
                    help="held, dev2 … dev7: only the HTML tables of that part (other packages; see html_tables)")
    ap.add_argument("--max-pages", type=int, default=None, help="text pages per part (default: all built)")
    ap.add_argument("--per-producer", type=int, default=10, help="text pages per producer in the corpus")
    ap.add_argument("--scan-pages", type=int, default=1, help="pages per part turned into 4 rotated scans")
    ap.add_argument("--only", default=",".join(TASKS), help=f"comma-separated subset of {','.join(TASKS)}")
    ap.add_argument("--setup", action="store_true",
                    help="apt-get install what is missing: poppler-utils, LibreOffice and fonts, a JRE")
    ap.add_argument("--cache", default=_cache_default(), help="downloads and corpora (default %(default)s)")
    ap.add_argument("--systems", default=None,
                    help="comma-separated names (or name prefixes) of the systems to run (default: all)")
    ap.add_argument("--tables-dir", default=str(ROOT.parent / "shared" / "data" / "tables-dev"))
    args = ap.parse_args(argv)
    tasks = [t for t in args.only.split(",") if t]
    if set(tasks) - set(TASKS):
        ap.error(f"--only: unknown {sorted(set(tasks) - set(TASKS))}")
    parts = list(corpora.PARTS) if args.part == "both" else [args.part]
    if args.part in html_tables.EXTRA:
        tasks = ["tables"]
    debs, cache = Path(args.cache), Path(args.cache) / "realworld"
    cache.mkdir(parents=True, exist_ok=True)
    coverage.set_mode("recover")  # what a user gets
    have = fetch.ensure_tools(args.setup)
    started = time.time()
    results: dict = {"date": datetime.date.today().isoformat(), "machine": platform.platform(),
                     "cpus": os.cpu_count(), "engine": _engine(), "parts": parts, "args": vars(args),
                     "versions": _versions()}

    print("Building the corpora (cached after the first run)…", flush=True)
    all_pages = corpora.words_corpus(cache, debs, args.per_producer)
    results["corpus"] = {"words": [{k: p[k] for k in ("file", "doc", "version", "page", "producer",
                                                       "producer_raw", "part")} for p in all_pages]}
    out: list[str] = []
    if "words" in tasks:
        pages = _pick(all_pages, parts, args.max_pages)
        rows = runs.words(pages, cache / "words", _only(systems.text_systems(), args.systems))
        results["words"] = rows
        prods = sorted({p["producer"] for p in pages})
        n = {part: sum(1 for p in pages if p["part"] == part) for part in parts}
        out += [f"## Text pages: {' + '.join(f'{n[p]} {p}' for p in parts)} pages, {len(prods)} producers, "
                f"{len({p['doc'] for p in pages})} documents\n",
                "Word recall: share of the page's words (`pdftotext -layout`, whitespace-split, NFKC) found "
                "whole in the system's text. Order similarity: normalised word-level Levenshtein "
                "similarity to poppler's reading order (`pdftotext`, a heuristic: a proxy, not a human "
                "reading) and to pypdfium2's content-stream order.\n", *report.words_table(rows), "",
                "Word recall per producer (its pages), the parts run together; [pages < 99 %]:\n",
                *report.producers_table(rows), ""]
    if "rtl" in tasks:
        docs = _pick(corpora.rtl_corpus(cache, debs), parts, None) if have["soffice"] else []
        if docs:
            rows = runs.rtl(docs, cache / "rtl", _only(systems.text_systems(), args.systems))
            results["rtl"] = rows
            out += [f"## Right to left: {len(docs)} LibreOffice documents (Arabic, Hebrew), truth = the "
                    "sentences in logical order\n", *report.rtl_table(rows), ""]
        else:
            out += ["## Right to left: skipped (no soffice, or LibreOffice wrote no PDF; see --setup)\n"]
    if "scans" in tasks:
        items = corpora.scan_corpus(cache, cache / "words", all_pages, args.scan_pages)
        items = [i for i in items if i["part"] in parts]
        rows = runs.scans(items, cache / "scans", _only(systems.scan_systems(), args.systems))
        results["scans"] = rows
        out += [f"## Rotated scans: {len({i['source'] for i in items})} pages × 4 rotations, 200 dpi, "
                "noise; truth = the page's words\n", *report.scans_table(rows), ""]
    if "tables" in tasks:
        cases = corpora.table_cases(Path(args.tables_dir))
        if "dev" in parts and cases:
            rows = runs.tables(cases, Path(args.tables_dir), _only(systems.table_systems(), args.systems))
            results["tables"] = rows
            out += [f"## Tables: tables-dev, {len(cases)} cases (dev only; there is no test part), whole "
                    "pages, cell accuracy by its score.py (tabula-java made the expected tables)\n",
                    *report.tables_table(rows), ""]
        else:
            out += ["## Tables: skipped (tables-dev is a dev set only, or not found at --tables-dir)\n"]
        out += _html_tables(cache, debs, parts, Path(args.tables_dir), results, args.systems)
    results["seconds"] = round(time.time() - started, 1)
    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    for name in (f"results-{stamp}.json", "results-latest.json"):
        (cache / name).write_text(json.dumps(results, ensure_ascii=False, indent=1))
    print(f"\n# Real-world documents ({results['date']}, one run, {results['seconds']:.0f} s; "
          f"docklake at {results['engine']})\n")
    print("\n".join(out))
    print(f"JSON: {cache / f'results-{stamp}.json'}")
    return 0


def _only(found: dict, names: str | None) -> dict:
    """The systems whose names start with one of ``names`` (comma-separated); all without."""
    if not names:
        return found
    keep = [n.strip() for n in names.split(",") if n.strip()]
    return {k: v for k, v in found.items() if any(k.startswith(n) for n in keep)}


def _html_tables(cache: Path, debs: Path, parts: list[str], scorer_dir: Path, results: dict,
                 only: str | None) -> list[str]:
    """The HTML manuals' tables printed by Chromium (``html_tables``): dev and test parts."""
    if not (shutil.which("chromium") and shutil.which("chromedriver")) and not (
            cache / "html-tables" / "cases.json").exists():
        return ["## Tables of HTML manuals: skipped (needs Debian's chromium and chromium-driver)\n"]
    if not (scorer_dir / "score.py").exists():
        return ["## Tables of HTML manuals: skipped (the tables-dev scorer is not at --tables-dir)\n"]
    extra = parts[0] if parts[0] in html_tables.EXTRA else ""
    cases = [c for c in html_tables.html_table_cases(cache, debs, extra) if c["part"] in parts]
    rows = runs.tables(cases, cache / (f"html-tables-{extra}" if extra else "html-tables"),
                       _only(systems.table_systems(), only), scorer_dir)
    results["html_tables"] = rows
    out = []
    for printer, mine in (("Chromium", lambda i: not i.endswith("-lo")), ("LibreOffice Writer", lambda i: i.endswith("-lo"))):
        chosen = [c for c in cases if mine(c["id"])]
        if not chosen:
            continue
        n = {p: sum(1 for c in chosen if c["part"] == p) for p in parts}
        out += [f"## Tables of HTML manuals printed by {printer}: {' + '.join(f'{n[p]} {p}' for p in parts)} "
                f"tables from {len({c['producer'] for c in chosen})} Debian documentation packages; truth = "
                "the HTML table's cells; cell accuracy by the tables-dev score.py\n",
                *report.tables_table([r for r in rows if mine(r["item"])]), ""]
    return out


if __name__ == "__main__":
    raise SystemExit(main())
