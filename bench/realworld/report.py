"""The figures as markdown tables (one per task, dev and test side by side) and as JSON."""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from typing import Any

from bench.realworld.systems import REFERENCE

Rows = list[dict[str, Any]]


def _mean(xs: Iterable[float]) -> float | None:
    xs = list(xs)
    return statistics.fmean(xs) if xs else None


def _f(v: float | None, spec: str = ".3f") -> str:
    return "–" if v is None else format(v, spec)


def _groups(rows: Rows) -> dict[tuple[str, str], Rows]:
    out: dict[tuple[str, str], Rows] = {}
    for r in rows:
        out.setdefault((r["system"], r["part"]), []).append(r)
    return out


def summary(rows: Rows, keys: tuple[str, ...]) -> dict[str, dict[str, dict[str, Any]]]:
    """{system: {part: {n, cpu_per_item, errors, <key>: mean, low99: pages with recall < 0.99}}}"""
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for (system, part), rs in _groups(rows).items():
        s: dict[str, Any] = {"n": len(rs), "cpu_per_item": _mean(r["cpu"] for r in rs),
                             "errors": sum(1 for r in rs if r.get("error"))}
        for k in keys:
            s[k] = _mean(r[k] for r in rs)
        if "recall" in keys:
            s["low99"] = sum(1 for r in rs if r["recall"] < 0.99)
        out.setdefault(system, {})[part] = s
    return out


def _err(s: dict[str, Any]) -> str:
    return f" ({s['errors']} failed)" if s["errors"] else ""


def words_table(rows: Rows) -> list[str]:
    lines = ["| system | part | pages | word recall | pages < 99 % | recall vs pypdfium2 words | "
             "order sim. vs pdftotext (proxy) | order sim. vs pypdfium2 | CPU s/page |",
             "|---|---|---|---|---|---|---|---|---|"]
    for system, parts in summary(rows, ("recall", "recall_pdfium", "order", "order_pdfium")).items():
        label = f"{system} *(reference tool)*" if system == REFERENCE else system
        for part, s in sorted(parts.items()):
            lines.append(f"| {label} | {part} | {s['n']}{_err(s)} | {_f(s['recall'])} | {s['low99']} | "
                         f"{_f(s['recall_pdfium'])} | {_f(s['order'])} | {_f(s['order_pdfium'])} | "
                         f"{_f(s['cpu_per_item'], '.4f')} |")
    return lines


def producers_table(rows: Rows) -> list[str]:
    """Mean word recall per producer (both parts), and pages < 99 % in brackets."""
    prods = sorted({r["producer"] for r in rows})
    counts = {p: len({r["item"] for r in rows if r["producer"] == p}) for p in prods}
    lines = ["| system | " + " | ".join(f"{p} ({counts[p]})" for p in prods) + " |",
             "|---|" + "---|" * len(prods)]
    for system in dict.fromkeys(r["system"] for r in rows):
        cells = []
        for p in prods:
            rs = [r for r in rows if r["system"] == system and r["producer"] == p]
            low = sum(1 for r in rs if r["recall"] < 0.99)
            cells.append(f"{_f(_mean(r['recall'] for r in rs))} [{low}]")
        lines.append(f"| {system} | " + " | ".join(cells) + " |")
    return lines


def rtl_table(rows: Rows) -> list[str]:
    lines = ["| system | part | documents | word recall (ar) | word recall (he) | order sim. vs truth | "
             "CPU s/doc |", "|---|---|---|---|---|---|---|"]
    for (system, part), rs in _groups(rows).items():
        ar = _mean(r["recall"] for r in rs if r["lang"] == "ar")
        he = _mean(r["recall"] for r in rs if r["lang"] == "he")
        errors = sum(1 for r in rs if r.get("error"))
        lines.append(f"| {system} | {part} | {len(rs)}{f' ({errors} failed)' if errors else ''} | {_f(ar)} | "
                     f"{_f(he)} | {_f(_mean(r['order'] for r in rs))} | "
                     f"{_f(_mean(r['cpu'] for r in rs), '.3f')} |")
    return lines


def scans_table(rows: Rows) -> list[str]:
    rots = sorted({r["rotation"] for r in rows})
    lines = ["| system | part | scans | " + " | ".join(f"recall {r}°" for r in rots)
             + " | mean | CPU s/page |",
             "|---|---|---|" + "---|" * len(rots) + "---|---|"]
    for (system, part), rs in _groups(rows).items():
        by = [_f(_mean(r["recall"] for r in rs if r["rotation"] == rot)) for rot in rots]
        lines.append(f"| {system} | {part} | {len(rs)} | " + " | ".join(by) +
                     f" | {_f(_mean(r['recall'] for r in rs))} | {_f(_mean(r['cpu'] for r in rs), '.2f')} |")
    return lines


def tables_table(rows: Rows) -> list[str]:
    lines = ["| system | part | cases | mean cell accuracy | lattice cases | stream cases | adjacency F1 | "
             "found | token recall | CPU s/page |", "|---|---|---|---|---|---|---|---|---|---|"]
    for (system, part), rs in sorted(_groups(rows).items(), key=lambda kv: kv[0][1]):
        errors = sum(1 for r in rs if r.get("error"))
        lat = _mean(r["cell_acc"] for r in rs if r["method"] == "lattice")
        stm = _mean(r["cell_acc"] for r in rs if r["method"] == "stream")
        lines.append(f"| {system} | {part} | {len(rs)}{f' ({errors} failed)' if errors else ''} | "
                     f"{_f(_mean(r['cell_acc'] for r in rs))} | {_f(lat)} | {_f(stm)} | "
                     f"{_f(_mean(r.get('adjacency_f1', 0.0) for r in rs))} | "
                     f"{sum(1 for r in rs if r['token_recall'] >= 0.5)} | "
                     f"{_f(_mean(r['token_recall'] for r in rs))} | "
                     f"{_f(sum(r['cpu'] for r in rs) / max(1, len({r['page_key'] for r in rs})), '.3f')} |")
    return lines
