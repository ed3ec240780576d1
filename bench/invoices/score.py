"""Scores invoice extraction against the corpus truth: header fields and line items.

    python -m bench.invoices.score PREDICTIONS.json [--part dev|test] [--cache DIR] [--json]

``PREDICTIONS.json``: ``{case_id: {"invoice_number": ..., ..., "line_items": [{...}, ...]}}``,
the fields of ``schema.json``. As a module: ``score(truth, predictions) -> dict`` where
``truth`` is ``{case_id: truth_dict}`` (``corpus.load()`` gives each case's ``truth``).

Header fields, per field and micro over all fields. For each case and field that the truth
knows (absent = not scored; ``null`` = known not printed; a list = any of these values):
a prediction equal to the truth is a true positive; a wrong prediction is a false positive
and a false negative; no prediction is a false negative; a prediction for a ``null`` field
is a false positive. Equality:
* invoice_number: letters and digits only, case-insensitive ('# BLR-1' == 'blr1');
* seller_name, buyer_name: case, spacing and punctuation removed and legal-suffix words
  shortened ('Pvt. Ltd.' == 'Private Limited', 'G.m.b.H.' == 'GmbH');
* seller_address, buyer_address: token F1 >= 0.7 (word order, commas, an extra country
  name or a missing one do not matter);
* invoice_date, due_date: the same calendar day; predictions must be ISO 'YYYY-MM-DD';
* currency: ISO code, a symbol counts for its code ('€' == 'EUR', '$' == 'USD');
* subtotal, tax_amount, total_amount: numbers within 0.01, sign ignored (credit notes print
  either way); strings are parsed in both conventions ('1.234,56' == '1,234.56').

Line items (cases whose truth has ``line_items``): a predicted item matches a true item when
its amount matches (within 0.01, sign ignored) and its description has token F1 >= 0.5 with
the truth's; pairs are taken greedily by description F1, one to one. Precision, recall and
F1 over all matched / predicted / true items; on matched pairs, the share whose quantity and
unit_price (where the truth has them) also match.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from bench.invoices import norm  # noqa: E402

FIELDS = ("invoice_number", "invoice_date", "due_date", "seller_name", "seller_address", "buyer_name",
          "buyer_address", "currency", "subtotal", "tax_amount", "total_amount")
SUFFIX = {"limited": "ltd", "private": "pvt", "incorporated": "inc", "corporation": "corp", "company": "co"}


def _empty(v) -> bool:
    return v is None or (isinstance(v, str) and not v.strip()) or v == []


def _name(v) -> str:
    return "".join(SUFFIX.get(t, t) for t in norm.tokens(str(v)))


def _same_number(a, b) -> bool:
    x, y = norm.parse_amount(a), norm.parse_amount(b)
    return x is not None and y is not None and abs(abs(x) - abs(y)) <= 0.01 + 1e-9


def same(field: str, truth, pred) -> bool:
    """Does ``pred`` equal one truth value (``truth`` may be a list of alternatives)?"""
    if isinstance(truth, list):
        return any(same(field, t, pred) for t in truth)
    if _empty(pred) or truth is None:
        return False
    if field == "invoice_number":
        return "".join(norm.tokens(str(pred))) == "".join(norm.tokens(str(truth)))
    if field.endswith("_name"):
        return _name(pred) == _name(truth)
    if field.endswith("_address"):
        return norm.token_f1(str(pred), str(truth)) >= 0.7
    if field.endswith("_date"):
        d = norm.parse_iso(pred)
        return d is not None and d == norm.parse_iso(truth)
    if field == "currency":
        return norm.currency_code(pred) == norm.currency_code(truth)
    return _same_number(truth, pred)


def _prf(tp: int, fp: int, fn: int) -> dict:
    p = tp / (tp + fp) if tp + fp else 0.0
    r = tp / (tp + fn) if tp + fn else 0.0
    return {"precision": round(p, 4), "recall": round(r, 4), "f1": round(2 * p * r / (p + r), 4) if p + r else 0.0,
            "tp": tp, "fp": fp, "fn": fn}


def match_items(truth: list[dict], pred: list[dict]) -> list[tuple[int, int]]:
    """Greedy one-to-one (truth index, prediction index) pairs, best description F1 first."""
    cands = []
    for i, t in enumerate(truth):
        for j, p in enumerate(pred):
            if not isinstance(p, dict) or not same("amount", t.get("amount"), p.get("amount")):
                continue
            f1 = norm.token_f1(str(p.get("description") or ""), str(t.get("description") or ""))
            if f1 >= 0.5:
                cands.append((-f1, i, j))
    used_t, used_p, pairs = set(), set(), []
    for _, i, j in sorted(cands):
        if i not in used_t and j not in used_p:
            used_t.add(i)
            used_p.add(j)
            pairs.append((i, j))
    return pairs


def score(truth: dict, predictions: dict) -> dict:
    """Per-field and micro precision/recall/F1 of the header fields, line-item P/R/F1, and for
    each case the fields it got wrong or missed."""
    counts = {f: [0, 0, 0] for f in FIELDS}
    items = [0, 0, 0]
    extra = {"quantity": [0, 0], "unit_price": [0, 0]}
    cases = {}
    for cid, t in truth.items():
        p = predictions.get(cid) or {}
        wrong = []
        for f in FIELDS:
            if f not in t:
                continue
            c, got = counts[f], p.get(f)
            if t[f] is None:
                c[1] += 0 if _empty(got) else 1
                if not _empty(got):
                    wrong.append(f)
            elif _empty(got):
                c[2] += 1
                wrong.append(f)
            elif same(f, t[f], got):
                c[0] += 1
            else:
                c[1] += 1
                c[2] += 1
                wrong.append(f)
        case = {"wrong_or_missing": wrong}
        if "line_items" in t:
            ti, pi = t["line_items"] or [], [x for x in (p.get("line_items") or []) if isinstance(x, dict)]
            pairs = match_items(ti, pi)
            items[0] += len(pairs)
            items[1] += len(pi) - len(pairs)
            items[2] += len(ti) - len(pairs)
            for i, j in pairs:
                for k in extra:
                    if ti[i].get(k) is not None:
                        extra[k][1] += 1
                        extra[k][0] += same(k, ti[i][k], pi[j].get(k))
            case["line_items"] = {"true": len(ti), "predicted": len(pi), "matched": len(pairs)}
        cases[cid] = case
    per_field = {f: _prf(*c) for f, c in counts.items()}
    micro = _prf(*(sum(c[k] for c in counts.values()) for k in range(3)))
    li = _prf(*items)
    li.update({f"{k}_accuracy_on_matched": round(a / n, 4) if n else None for k, (a, n) in extra.items()})
    return {"cases": len(truth), "fields": per_field, "micro": micro, "line_items": li, "per_case": cases}


def table(res: dict, title: str = "") -> str:
    """The scores as a markdown table."""
    rows = [f"**{title}** ({res['cases']} cases)" if title else f"({res['cases']} cases)", "",
            "| field | P | R | F1 | tp | fp | fn |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for name, s in list(res["fields"].items()) + [("**micro (header)**", res["micro"]),
                                                  ("**line items**", res["line_items"])]:
        rows.append(f"| {name} | {s['precision']:.2f} | {s['recall']:.2f} | {s['f1']:.2f} | {s['tp']} | {s['fp']} "
                    f"| {s['fn']} |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> None:
    from bench.invoices import corpus

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("predictions", help="JSON {case_id: {field: value, ..., line_items: [...]}}")
    ap.add_argument("--part", choices=("dev", "test"), help="score one part only (default: both, apart)")
    ap.add_argument("--cache", default=str(corpus.cache_default()))
    ap.add_argument("--json", action="store_true", help="print the full result as JSON")
    args = ap.parse_args(argv)
    preds = json.loads(Path(args.predictions).read_text())
    cases = corpus.load(Path(args.cache))
    known = {c["id"] for c in cases}
    print(f"predictions for {len(known & set(preds))} of {len(known)} cases", file=sys.stderr)
    out = {}
    for part in [args.part] if args.part else ["dev", "test"]:
        out[part] = score({c["id"]: c["truth"] for c in cases if c["part"] == part}, preds)
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print("\n\n".join(table(r, part) for part, r in out.items()))


if __name__ == "__main__":
    main()
