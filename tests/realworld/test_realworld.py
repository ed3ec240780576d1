"""Real pages from Debian's LaTeX manuals (tests/realworld, see SOURCES.md): no word of a page's
text layer is lost, tables come out cell by cell as a person reads them, text keeps its order.

The suite runs with the coverage check in "raise" mode (tests/__init__.py): any page of any
document the tests parse that loses a word fails its conversion.
"""

from __future__ import annotations

import statistics

import pytest

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages import coverage, grid
from pipelines.stages.coverage import tokens
from pipelines.stages.geometry import Word
from pipelines.stages.layout import Block
from pipelines.stages.tables import table_rows
from tests.support.docgen import normalize, tables_pdf
from tests.support.realworld_helpers import (
    REALWORLD,
    cases,
    fragment_texts,
    match_tables,
    page_text,
    text_layer,
    word_recall,
)

CASES = cases()


def parse(name: str):
    return convert(DocumentInput(data=(REALWORLD / name).read_bytes(), file_name=name))


def test_the_suite_runs_the_invariant_strictly() -> None:
    assert coverage.MODE == "raise"


def test_shipped_pages_stay_small() -> None:
    total = sum(p.stat().st_size for p in REALWORLD.iterdir())
    assert total < 2 * 2**20


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_every_word_of_the_text_layer_is_kept(case: dict) -> None:
    data = (REALWORLD / case["file"]).read_bytes()
    result = parse(case["file"])
    assert result.status.value == "success", result.errors
    reference = text_layer(data)
    for page in result.pages:
        recall, lost = word_recall(reference[page.page_number - 1], fragment_texts(page.fragments))
        assert recall == 1.0, lost[:20]
        assert page.warnings == []  # nothing had to be rescued


@pytest.mark.parametrize("case", CASES, ids=[c["file"] for c in CASES])
def test_text_reads_in_order(case: dict) -> None:
    page = parse(case["file"]).pages[0]
    text = normalize(page_text(page.fragments))
    for excerpt in case["excerpts"]:
        assert normalize(excerpt) in text
    for label, value in case.get("pairs", []):
        assert normalize(f"{label} {value}") in text  # the label stays with its value


def test_real_tables_cell_accuracy() -> None:
    scores = []
    for case in CASES:
        result = parse(case["file"])
        found = [table_rows(f) for p in result.pages for f in p.fragments if f.fragment_type == "table"]
        scores += match_tables(found, case["tables"])
        for ref in case["tables"]:
            # every table is found as a table: one table fragment holds all of its cells' words
            want = tokens(c for row in ref for c in row)
            assert any(not (want - tokens(c for row in t for c in row)) for t in found), case["file"]
    assert len(scores) >= 12
    assert statistics.fmean(scores) >= 0.85


def test_booktabs_table_is_read_with_its_spanning_header() -> None:
    result = parse("booktabs-p2.pdf")
    found = [table_rows(f) for f in result.pages[0].fragments if f.fragment_type == "table"]
    assert len(found) == 3
    ruled, booktabs, hline = found
    assert booktabs[0][0] == "Item" and booktabs[1] == ["Animal", "Description", "Price ($)"]
    assert ruled[1] == ["", "each", ".01"]  # a row of the ruled grid without its first cell
    assert hline == booktabs


def test_rotated_page_reads_like_the_upright_one() -> None:
    upright = parse("booktabs-p2.pdf").pages[0]
    turned = parse("booktabs-p2-rotated.pdf").pages[0]
    assert (turned.width, turned.height) == (upright.height, upright.width)
    rows = [[table_rows(f) for f in p.fragments if f.fragment_type == "table"] for p in (upright, turned)]
    assert rows[0] == rows[1]
    a = next(f.bbox for f in upright.fragments if f.fragment_type == "table")
    b = next(f.bbox for f in turned.fragments if f.fragment_type == "table")
    # /Rotate 90: the page turns clockwise, so a box's top becomes its right side
    assert b["x1"] == pytest.approx(upright.height - a["y2"], abs=1)
    assert b["y1"] == pytest.approx(a["x1"], abs=1)


def test_shaded_rows_are_not_a_grid() -> None:
    page = parse("xcolor-p36.pdf").pages[0]
    found = [f for f in page.fragments if f.fragment_type == "table"]
    assert found and all(f.content["columns"] == 2 for f in found)
    assert all(f.fragment_type != "figure" or "row" not in f.content.get("text", "") for f in page.fragments)


def test_framed_listing_text_is_text_not_a_figure() -> None:
    page = parse("microtype-p9.pdf").pages[0]
    assert not [f for f in page.fragments if f.fragment_type == "figure"]
    assert any("\\DeclareMicrotypeSet{basictext}" in f.content.get("content", "") for f in page.fragments)


# ---------------------------------------------------------------- the invariant itself


def _w(text: str, x: float, y: float) -> Word:
    return Word(text, x, y, x + 6 * len(text), y + 10)


def test_lost_words_come_back_as_text_with_a_warning() -> None:
    words = [_w("Kept", 10, 10), _w("words", 50, 10), _w("lost", 10, 40), _w("here", 50, 40)]
    blocks = [Block("text", (10, 10, 80, 20), "Kept words", words=words[:2])]
    old = coverage.set_mode("recover")
    try:
        warnings = coverage.claim(words, blocks, 10.0)
    finally:
        coverage.set_mode(old)
    assert len(warnings) == 1 and "2 words" in warnings[0]
    assert [b.text for b in blocks] == ["Kept words", "lost here"]
    assert blocks[1].data["recovered"] is True
    with pytest.raises(coverage.TextLost):
        coverage.claim(words, [Block("text", (10, 10, 80, 20), "Kept words")], 10.0)


def test_split_and_glued_words_count_as_kept() -> None:
    words = [_w("•", 10, 10), _w("Budget", 20, 10), _w("13.65", 10, 30)]
    blocks = [Block("list_item", (10, 10, 80, 20), "• Budget"),
              Block("table", (10, 30, 60, 40), data={"rows": [[("13.", None), ("65", None)]]})]
    assert coverage.claim(words, blocks, 10.0) == []


def test_a_table_reader_that_drops_words_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    """A ruled table whose reader returns fewer cells than the region's words is read by the
    next reader, or as text: never with words missing."""
    def lossy(region, rules, words, unit):  # noqa: ANN001, ANN202
        return [[("only", None), ("this", None)], [("and", None), ("that", None)]]

    monkeypatch.setattr(grid, "rule_grid", lossy)
    doc = tables_pdf(seed=21)
    result = convert(DocumentInput(data=doc.data))
    assert result.status.value == "success"
    recall, lost = word_recall(text_layer(doc.data)[0], fragment_texts(result.pages[0].fragments))
    assert recall == 1.0, lost
    for row in doc.tables[0]:
        assert all(normalize(c) in normalize(page_text(result.pages[0].fragments)) for c in row)
