"""Extraction and page classification benchmark: docklake's stages beside naive baselines, in one
run, on the same parsed pages.

    python -m bench extract [--seed N]

Corpora: generated invoices (four layouts), forms, letters and table reports from
``tests/support/formgen.py`` (ground truth; seed 700 by default, never used while writing the
heuristics), and the 13 real manual pages in ``tests/realworld`` (classes by hand,
``formgen.REAL_TRUTH``).

* Extraction, fields equal to the truth / fields. docklake: ``stages.extract``. Baseline: for
  each schema field, the first line of the page text matching ``<field name words>: value``
  (regex, case-insensitive, no geometry, no embeddings), its value through the same type
  coercion, so the difference is the matching alone.
* Classification, pages given their true class / pages. docklake: ``stages.classify``
  (embeddings + keywords + layout caption, threshold). Baseline: keyword share only (the class's
  own words found on the page), best class, none when no word is found.
* Ablation: docklake's extraction with every embedding similarity set to 0 (geometry, types and
  exact/fuzzy name matches only), to show what the model adds.
* Seconds per page of each stage (the parse itself excluded), the model's load time and the
  resident memory it adds.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from pipelines.core.models import DocumentInput, PageResult  # noqa: E402
from pipelines.core.requests import PageClassConfig, StructuredExtractionOptions
from pipelines.engine.document import convert  # noqa: E402
from pipelines.stages import classify, embed, extract  # noqa: E402
from tests.support import formgen  # noqa: E402

REAL = Path(__file__).resolve().parent.parent / "tests" / "realworld"


def rss_mb() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return 0.0


def naive_extract(pages: list[PageResult], schema: dict) -> dict:
    text = "\n".join(classify.page_text(p) for p in pages)
    data = extract.skeleton(schema)
    for f in extract.fields_of(schema):
        words = r"[\s_-]*".join(re.escape(w) for w in f.name.split("_"))
        m = re.search(rf"^\s*{words}\s*:\s*(.+)$", text, re.I | re.M)
        if m is None:
            continue
        value = extract.coerce(m.group(1), f)
        if f.array and value is not None:
            value = [value]
        if value is not None:
            node = data
            for p in f.path[:-1]:
                node = node[p]
            node[f.path[-1]] = value
    return data


class _NoEmbeddings:
    """Stands in for ``stages.embed`` in the ablation: every similarity is 0, so only the
    geometry and exact/fuzzy name matches are left."""

    @staticmethod
    def embed(texts: list[str]):  # type: ignore[no-untyped-def]
        import numpy as np

        return np.zeros((len(texts), 384), dtype=np.float32)


def without_embeddings(pages: list[PageResult], opt: StructuredExtractionOptions) -> dict:
    from pipelines.stages.extract import matching

    real = matching.embed  # the module that asks the model (the package's __init__ does not)
    matching.embed = _NoEmbeddings  # type: ignore[assignment]
    try:
        return extract.extract_pages(pages, opt).data
    finally:
        matching.embed = real


def naive_classify(pages: list[PageResult], classes: list[PageClassConfig]) -> str | None:
    words = {w.lower() for w in classify.WORD.findall(classify.page_text(pages[0]))}
    shares = [classify.keyword_share(classify.class_words(c), words) for c in classes]
    best = max(range(len(classes)), key=lambda i: shares[i])
    return classes[best].name if shares[best] > 0 else None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench extract", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seed", type=int, default=700)
    args = ap.parse_args(argv)

    before = rss_mb()
    t0 = time.perf_counter()
    embed.embedder()
    load_s, model_mb = time.perf_counter() - t0, rss_mb() - before

    samples = formgen.corpus(n_invoices=12, n_forms=4, n_other=3, seed=args.seed)
    gen = [(s, convert(DocumentInput(data=s.data)).pages) for s in samples]
    real = [(f.stem, convert(DocumentInput(data=f.read_bytes())).pages) for f in sorted(REAL.glob("*.pdf"))]

    # extraction
    ours = base = ablation = total = 0
    t_ex = 0.0
    n_pages = 0
    for s, pages in gen:
        if not s.truth:
            continue
        schema = formgen.schema_for(s)
        t = time.perf_counter()
        sd = extract.extract_pages(pages, StructuredExtractionOptions(schema_name=s.kind, json_schema=schema,
                                                                      provide_citations=True))
        t_ex += time.perf_counter() - t
        n_pages += len(pages)
        good, n, _ = formgen.field_score(sd.data, s.truth)
        bgood, _, _ = formgen.field_score(naive_extract(pages, schema), s.truth)
        agood, _, _ = formgen.field_score(without_embeddings(pages, StructuredExtractionOptions(
            schema_name=s.kind, json_schema=schema)), s.truth)
        ours, base, ablation, total = ours + good, base + bgood, ablation + agood, total + n

    # scanned invoices: rendered, skewed and noised, read by OCR
    from tests.support import docgen

    s_ours = s_base = s_total = 0
    t_scan = 0.0
    for i in range(8):
        s = formgen.invoice_pdf(args.seed + 400 + i, i % 4)  # 1100–1107: not seen while tuning
        pdf = docgen.images_pdf([docgen.scanify(docgen.render_png(s.data), skew_deg=1.5, seed=i)])
        pages = convert(DocumentInput(data=pdf)).pages
        t = time.perf_counter()
        sd = extract.extract_pages(pages, StructuredExtractionOptions(schema_name="invoice",
                                                                      json_schema=formgen.INVOICE_SCHEMA))
        t_scan += time.perf_counter() - t
        good, n, _ = formgen.field_score(sd.data, s.truth)
        bgood, _, _ = formgen.field_score(naive_extract(pages, formgen.INVOICE_SCHEMA), s.truth)
        s_ours, s_base, s_total = s_ours + good, s_base + bgood, s_total + n

    # classification
    def run_classes(items: list[tuple[str, list[PageResult]]], classes: list[dict]) -> tuple[int, int, float]:
        cls = [PageClassConfig(**c) for c in classes]
        ok = bok = 0
        spent = 0.0
        for want, pages in items:
            t = time.perf_counter()
            got = classify.assign(pages, cls).get(pages[0].page_number, (None,))[0]
            spent += time.perf_counter() - t
            ok += got == want
            bok += naive_classify(pages, cls) == want
        return ok, bok, spent

    g_ok, g_base, g_t = run_classes([(s.kind, p) for s, p in gen], formgen.CLASSES)
    r_ok, r_base, r_t = run_classes([(formgen.REAL_TRUTH.get(n, formgen.REAL_DEFAULT), p) for n, p in real],
                                    formgen.REAL_CLASSES)
    n_gen, n_real = len(gen), len(real)

    print(f"model: all-MiniLM-L6-v2 int8 ONNX, load {load_s:.2f} s, +{model_mb:.0f} MB resident")
    print()
    print("| task | corpus | docklake | naive baseline | s/page (docklake) |")
    print("|---|---|---|---|---|")
    print(f"| extraction, fields correct | {sum(1 for s, _ in gen if s.truth)} generated invoices and forms "
          f"| {ours}/{total} ({ours / total:.0%}) | {base}/{total} ({base / total:.0%}) regex `name:` "
          f"| {t_ex / max(1, n_pages):.3f} |")
    print(f"| extraction, fields correct | 8 scanned invoices (OCR, 1.5° skew, noise) | {s_ours}/{s_total} "
          f"({s_ours / s_total:.0%}) | {s_base}/{s_total} ({s_base / s_total:.0%}) regex `name:` | {t_scan / 8:.3f} |")
    print(f"| (ablation) extraction without embeddings | same | {ablation}/{total} ({ablation / total:.0%}): "
          "geometry + exact/fuzzy names only | | |")
    print(f"| classification, pages right | {n_gen} generated pages, 4 classes | {g_ok}/{n_gen} | "
          f"{g_base}/{n_gen} keywords | {g_t / n_gen:.3f} |")
    print(f"| classification, pages right | {n_real} real manual pages, 3 classes | {r_ok}/{n_real} | "
          f"{r_base}/{n_real} keywords | {r_t / n_real:.3f} |")


if __name__ == "__main__":
    main()
