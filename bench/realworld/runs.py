"""The runs: every system over every item of a corpus, scored and timed, one record per item.

A record: ``{"system", "part", "item", "cpu", ...scores}``; a system that raises on an item is
recorded with ``error`` and scores 0 there (it still counts in the means).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bench.realworld import metrics
from bench.realworld.systems import timed


def _call(fn: Callable[..., Any], *args: Any) -> tuple[Any, float, str | None]:
    try:
        out, cpu = timed(fn, *args)
        return out, cpu, None
    except Exception as exc:  # noqa: BLE001 - one system failing must not stop the others
        return None, 0.0, f"{type(exc).__name__}: {exc}"[:300]


def _warm(fn: Callable[..., Any], *args: Any) -> None:
    """Imports and first-call set-up, untimed."""
    _call(fn, *args)


def words(pages: list[dict[str, Any]], folder: Path, systems: dict[str, Callable[[Path], str]]) -> list[dict]:
    out = []
    refs = [(metrics.tokens(p["ref_layout"]), metrics.tokens(p["ref_order"]), metrics.tokens(p["ref_pdfium"]))
            for p in pages]
    for name, fn in systems.items():
        if pages:
            _warm(fn, folder / pages[0]["file"])
        for p, (layout, order, pdfium) in zip(pages, refs):
            text, cpu, err = _call(fn, folder / p["file"])
            got = metrics.tokens(text or "")
            out.append({"system": name, "part": p["part"], "item": p["file"], "producer": p["producer"],
                        "cpu": cpu, "error": err, "words": len(layout),
                        "recall": metrics.word_recall(layout, got),
                        "recall_pdfium": metrics.word_recall(pdfium, got),
                        "order": metrics.order_similarity(order, got),
                        "order_pdfium": metrics.order_similarity(pdfium, got)})
        print(f"  words: {name} done", flush=True)
    return out


def rtl(docs: list[dict[str, Any]], folder: Path, systems: dict[str, Callable[[Path], str]]) -> list[dict]:
    out = []
    for name, fn in systems.items():
        for d in docs:
            text, cpu, err = _call(fn, folder / d["file"])
            truth, got = metrics.tokens(d["truth"]), metrics.tokens(text or "")
            out.append({"system": name, "part": d["part"], "item": d["file"], "lang": d["lang"], "cpu": cpu,
                        "error": err, "words": len(truth), "recall": metrics.word_recall(truth, got),
                        "order": metrics.order_similarity(truth, got)})
    return out


def scans(items: list[dict[str, Any]], folder: Path, systems: dict[str, Callable[[Path], str]]) -> list[dict]:
    out = []
    for name, fn in systems.items():
        if items:
            _warm(fn, folder / items[0]["file"])
        for s in items:
            text, cpu, err = _call(fn, folder / s["file"])
            truth = metrics.tokens(s["truth"])
            out.append({"system": name, "part": s["part"], "item": s["file"], "rotation": s["rotation"],
                        "cpu": cpu, "error": err, "words": len(truth),
                        "recall": metrics.word_recall(truth, metrics.tokens(text or ""))})
        print(f"  scans: {name} done", flush=True)
    return out


def tables(cases: list[dict[str, Any]], tables_dir: Path,
           systems: dict[str, Callable[[Path, int], list[list[list[str]]]]],
           scorer_dir: Path | None = None) -> list[dict]:
    """Each case scored with the tables-dev scorer (``score.py`` in ``scorer_dir``, else in
    ``tables_dir``) against the tables found on its whole page; CPU is counted once per page
    (several cases share a page) and spread over its cases. A case's paths may be absolute."""
    score = metrics.table_scorer(scorer_dir or tables_dir)
    out = []
    pages = sorted({(c["pdf"], int(c["page"])) for c in cases})
    for name, fn in systems.items():
        if pages:
            _warm(fn, tables_dir / pages[0][0], pages[0][1])
        found: dict[tuple[str, int], tuple[list, float, str | None]] = {}
        for pdf, page in pages:
            tabs, cpu, err = _call(fn, tables_dir / pdf, page)
            found[(pdf, page)] = (tabs or [], cpu, err)
        for c in cases:
            key = (c["pdf"], int(c["page"]))
            tabs, cpu, err = found[key]
            share = sum(1 for x in cases if (x["pdf"], int(x["page"])) == key)
            expected, predicted = score.load_expected(c, str(tables_dir)), score.as_tables(tabs)
            s = score.score_case(expected, predicted)
            out.append({"system": name, "part": c.get("part", "dev"), "item": c["id"], "method": c["method"],
                        "page_key": f"{key[0]}#{key[1]}", "cpu": cpu / share, "error": err,
                        "cell_acc": s["cell_acc"], "token_recall": s["token_recall"],
                        "adjacency_f1": metrics.adjacency_f1(expected, predicted, score.normalize),
                        "tables": s["n_tables"]})
        print(f"  tables: {name} done", flush=True)
    return out
