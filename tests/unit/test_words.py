"""Whole words: every word of a PDF's text layer comes out whole, and the coverage invariant
fails on a word cut in two or glued to another.

Why: a cut word ("i nput fi le") keeps all its characters, so only a word-level check sees it.
The PDFs here reproduce what cut words on real manuals: tight letter and word spacing, TJ
kerning, ligature glyphs (one glyph, two characters), a unit-size font scaled by the text matrix
(as Type 3 fonts are), and glyphs PDFium leaves out of its page text (control codes), which
shifted the page text off the character boxes.
"""

from __future__ import annotations

import os
from collections import Counter

import pypdfium2 as pdfium
import pytest
import reportlab
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.ttfonts import TTFont
from reportlab.pdfgen import canvas

from pipelines.core.models import DocumentInput
from pipelines.engine.document import convert
from pipelines.stages import coverage, layout, pdf_text
from pipelines.stages.geometry import Word
from pipelines.stages.layout import Block
from tests.support.drawn import drawn_pdf
from tests.support.realworld_helpers import fragment_texts, text_layer

SENTENCE = "the input file of a float should have its specifier kept whole by every reader"


def _out_words(data: bytes) -> Counter[str]:
    result = convert(DocumentInput(data=data, file_name="words.pdf"))
    assert result.status.value == "success", result.errors  # the invariant raises in the suite
    return coverage.tokens(t for p in result.pages for t in fragment_texts(p.fragments))


def _ref_words(data: bytes) -> Counter[str]:
    return coverage.tokens(text_layer(data))


# ---------------------------------------------------------------- PDFs that cut words


def test_tight_letter_and_word_spacing_keeps_words_whole() -> None:
    def draw(c: canvas.Canvas) -> None:
        y = 740
        for font in ("Helvetica", "Times-Roman", "Courier"):
            for size, tc, tw in ((11, -0.9, -1.5), (9, -0.6, 0.2), (14, -1.4, -2.5)):
                t = c.beginText(40, y)
                t.setFont(font, size)
                t.setCharSpace(tc)
                t.setWordSpace(tw)
                t.textLine(SENTENCE)
                c.drawText(t)
                y -= 40
    data = drawn_pdf(draw)
    want = coverage.tokens([SENTENCE] * 9)
    assert _ref_words(data) == want
    assert _out_words(data) == want


@pytest.mark.parametrize("size,scale", [(11, 1), (1, 11)], ids=["sized-font", "unit-font-scaled-by-Tm"])
def test_tj_kerning_inside_and_between_words(size: float, scale: float) -> None:
    """Words set as TJ arrays without space characters: kerning inside words (tight or loose,
    both under PDFium's space threshold) and word gaps of 0.25 to 0.4 em."""
    tj = ("[(i) 90 (nput) -250 (fi) 40 (le) -330 (fl) -90 (o) -90 (a) -90 (t) -400 "
          "(ha) 60 (v) 80 (e) -280 (spe) -70 (ci) -70 (fi) -70 (er)] TJ")

    def draw(c: canvas.Canvas) -> None:
        for k, y in enumerate((700, 600, 500)):
            t = c.beginText(40, y)
            t.setFont(("Helvetica", "Times-Roman", "Courier")[k], size)
            if scale != 1:
                t.setTextTransform(scale, 0, 0, scale, 40, y)
            t._code.append(tj)  # a raw TJ array: reportlab has no call for one
            c.drawText(t)
    data = drawn_pdf(draw)
    want = coverage.tokens(["input file float have specifier"] * 3)
    assert _ref_words(data) == want
    assert _out_words(data) == want


def test_ligature_glyphs_are_their_letters() -> None:
    pdfmetrics.registerFont(TTFont("VeraWords", os.path.join(os.path.dirname(reportlab.__file__),
                                                             "fonts", "Vera.ttf")))

    def draw(c: canvas.Canvas) -> None:
        t = c.beginText(40, 700)
        t.setFont("VeraWords", 12)
        t.setCharSpace(-0.5)
        t.textLine("the \ufb01le and the \ufb02oat are de\ufb01ned in\ufb02uential \ufb01\ufb02ows")
        c.drawText(t)
    data = drawn_pdf(draw)
    out = _out_words(data)
    assert out == _ref_words(data)
    assert {"file", "float", "defined", "influential", "fiflows"} <= set(out)


def test_a_hyphen_breaking_a_word_at_a_line_end_stays_with_its_half() -> None:
    def draw(c: canvas.Canvas) -> None:
        t = c.beginText(40, 700)
        t.setFont("Helvetica", 11)
        t.textLine("a line that ends with a hyphenated docu-")
        t.textLine("ment and goes on")
        c.drawText(t)
    data = drawn_pdf(draw)
    assert "docu\ufffement" in text_layer(data)[0]  # PDFium's mark: the word goes on below
    out = _out_words(data)
    assert out["docu-"] == 1 and out["ment"] == 1 and out == _ref_words(data)


# a Type 3 font by hand (reportlab writes none): glyphs a-z, "!" is the fi ligature (one glyph,
# two characters), '"' a bracket piece mapped to U+0002, which PDFium leaves out of its text, and
# "#" the maths bold A (U+1D400: outside the BMP, two UTF-16 units, two character indices)


def _raw_pdf(objects: list[bytes]) -> bytes:
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for k, o in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % k + o + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _stream(data: bytes) -> bytes:
    return b"<< /Length %d >>\nstream\n" % len(data) + data + b"\nendstream"


def _type3_pdf(tj: bytes) -> bytes:
    codes = [0x21, 0x22, 0x23, *range(0x61, 0x7B)]
    widths = " ".join("500" if c in codes else "0" for c in range(0x21, 0x7B))
    font = ("<< /Type /Font /Subtype /Type3 /FontBBox [0 -200 500 800] /FontMatrix [0.001 0 0 0.001 0 0] "
            f"/CharProcs << {' '.join(f'/g{c} 7 0 R' for c in codes)} >> /Encoding << /Type /Encoding "
            f"/Differences [{' '.join(f'{c} /g{c}' for c in codes)}] >> /FirstChar 33 /LastChar 122 "
            f"/Widths [{widths}] /Resources << >> /ToUnicode 6 0 R >>").encode()
    cmap = (b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /T3 def\n"
            b"1 begincodespacerange <00> <FF> endcodespacerange\n"
            b"3 beginbfchar <21> <00660069> <22> <0002> <23> <D835DC00> endbfchar\n"
            b"1 beginbfrange <61> <7A> <0061> endbfrange\n"
            b"endcmap CMapName currentdict /CMap defineresource pop end end")
    content = b"BT /F1 1 Tf 10 0 0 10 20 150 Tm " + tj + b" TJ ET"
    return _raw_pdf([b"<< /Type /Catalog /Pages 2 0 R >>", b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
                     b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R "
                     b"/Resources << /Font << /F1 5 0 R >> >> >>",
                     _stream(content), font, _stream(cmap), _stream(b"500 0 40 0 460 700 d1 40 0 420 700 re f")])


TYPE3 = _type3_pdf(b'[(") -350 (the) -350 (!les) -350 (a) -80 (r) -80 (e) -350 (kept) (") -350 (whole) '
                   b'(""") -350 (and) -350 (sound)]')


def test_type3_unit_size_font_with_glyphs_left_out_of_the_text() -> None:
    assert len(pdfium.PdfDocument(TYPE3)[0].get_textpage().get_text_range()) < 40  # the text is shorter
    want = coverage.tokens(["the files are kept whole and sound"])
    assert _ref_words(TYPE3) == want
    assert _out_words(TYPE3) == want
    # and each word's box holds its own glyphs, not its neighbours'
    doc = pdf_text.open_pdf(TYPE3)
    page = pdf_text.read_page(doc, 0)
    tp = pdfium.PdfDocument(TYPE3)[0].get_textpage()
    for w in page.words:
        assert w.text in tp.get_text_bounded(w.x1 + 1, page.height - w.y2 + 1, w.x2 - 1, page.height - w.y1 - 1)
    assert page.meta["text_layer"] == tp.get_text_range()


def test_letter_spacing_keeps_a_word_whole_and_a_lone_gap_is_a_recorded_cut() -> None:
    """Character spacing (Tc) is the one gap PDFium puts no space in. A tracked word keeps its
    letters together (its gaps are its spacing); two glyphs 3 em apart are two words, cut by
    the reader on purpose: it records the cut, and the invariant takes the parts for the word."""
    def draw(c: canvas.Canvas) -> None:
        for y, tc, s in ((700, 12, "WIDE"), (670, 6, "TRACKED"), (640, 30, "AB")):
            t = c.beginText(40, y)
            t.setFont("Helvetica", 10)
            t.setCharSpace(tc)
            t.textLine(s)
            c.drawText(t)
    data = drawn_pdf(draw)
    assert _ref_words(data) == Counter({"WIDE": 1, "TRACKED": 1, "AB": 1})
    page = pdf_text.read_page(pdf_text.open_pdf(data), 0)
    assert [w.text for w in page.words] == ["WIDE", "TRACKED", "A", "B"]
    assert page.meta["split_words"] == [("AB", ["A", "B"])]
    assert _out_words(data) == Counter({"WIDE": 1, "TRACKED": 1, "A": 1, "B": 1})


def test_words_set_without_a_space_character_are_parted_at_their_word_gaps() -> None:
    """Ghostscript (printing groff) sets some word spaces as character spacing: the last letter
    of a word and the first of the next drawn as one string with Tc of a word space ("(et)" in
    "resolv|et|his"), no space character, and PDFium adds none: "resolvethis". A gap of a word
    space between two letters of one token is a word break; a letter's own spacing is not."""
    words = SENTENCE.split()

    def draw(c: canvas.Canvas) -> None:
        y = 700
        for font, size in (("Times-Roman", 11), ("Helvetica", 9)):
            space = pdfmetrics.stringWidth(" ", font, size) + 0.05 * size
            x, k = 40.0, 0
            chunks: list[tuple[str, float]] = []  # (text, character spacing), each placed where the last ended
            while k < len(words):
                if k % 2 and k + 1 < len(words):  # this word's last letter and the next's first, Tc apart
                    chunks += [(words[k][:-1], 0.0), (words[k][-1] + words[k + 1][0], space),
                               (words[k + 1][1:] + " ", 0.0)]
                    k += 2
                else:
                    chunks.append((words[k] + " ", 0.0))
                    k += 1
            for text, tc in chunks:
                t = c.beginText(x, y)
                t.setFont(font, size)
                t.setCharSpace(tc)
                t.textOut(text)
                c.drawText(t)
                x += pdfmetrics.stringWidth(text, font, size) + tc * (len(text) - 1)
            y -= 30
    data = drawn_pdf(draw)
    assert _ref_words(data) != Counter({w: 2 * n for w, n in Counter(words).items()})  # the layer glues them
    assert _out_words(data) == Counter({w: 2 * n for w, n in Counter(words).items()})


@pytest.mark.parametrize("left_out", [b"", b'(") '], ids=["aligned", "with-a-glyph-left-out"])
def test_characters_outside_the_bmp_keep_their_place(left_out: bytes) -> None:
    data = _type3_pdf(b"[" + left_out + b"(let) -350 (#) -350 (be) -350 (a#b) -350 (matrix)]")
    want = coverage.tokens(["let \U0001d400 be a\U0001d400b matrix"])
    assert _ref_words(data) == want
    assert _out_words(data) == want


# ---------------------------------------------------------------- the invariant counts words


def _w(text: str, x: float, y: float = 10) -> Word:
    return Word(text, x, y, x + 6 * len(text), y + 10)


LAYER = "the input file"
WORDS = [_w("the", 10), _w("input", 40), _w("file", 80)]


@pytest.mark.parametrize("shown", ["the i nput file", "the input fi le", "the inputfile", "the input"])
def test_a_cut_glued_or_missing_word_fails_the_check(shown: str) -> None:
    assert coverage.MODE == "raise"
    with pytest.raises(coverage.TextLost):
        coverage.claim(WORDS, [Block("text", (10, 10, 110, 20), shown, words=WORDS)], 10.0, text_layer=LAYER)


def test_a_word_cut_with_no_word_to_put_back_fails_too() -> None:
    with pytest.raises(coverage.TextLost, match="input"):
        coverage.claim([], [Block("text", (10, 10, 110, 20), "the inp ut file")], 10.0, text_layer=LAYER)


def test_whole_words_pass_in_any_normal_form() -> None:
    blocks = [Block("text", (10, 10, 200, 20), "the office of\nthe input file docu-\nment cooperate")]
    layer = "the o\ufb03ce of\r\nthe input ﬁle docu\ufffement co\u00adoperate"
    assert coverage.claim([], blocks, 10.0, text_layer=layer) == []


def test_cuts_the_engine_makes_on_purpose_count_as_whole() -> None:
    table = Block("table", (10, 10, 100, 40), data={"rows": [[("Total", None), ("13.", None), ("65", None)]]})
    assert coverage.claim([], [table], 10.0, text_layer="Total 13.65") == []
    text = Block("text", (10, 50, 100, 60), "Name Value")
    assert coverage.claim([], [text], 10.0, text_layer="NameValue", split_words=[("NameValue", ["Name", "Value"])]) == []
    with pytest.raises(coverage.TextLost):
        coverage.claim([], [text], 10.0, text_layer="NameValue")


def test_recover_mode_puts_lost_words_back_and_names_cut_ones() -> None:
    words = [*WORDS, _w("lost", 10, 40)]
    blocks = [Block("text", (10, 10, 110, 20), "the i nput file", words=WORDS)]
    old = coverage.set_mode("recover")
    try:
        warnings = coverage.claim(words, blocks, 10.0, text_layer=LAYER + "\r\nlost")
    finally:
        coverage.set_mode(old)
    assert [b.text for b in blocks] == ["the i nput file", "lost"] and blocks[1].data["recovered"]
    assert len(warnings) == 2
    assert "1 word of the text layer was not placed" in warnings[0] and warnings[0].endswith("lost")
    assert "not whole in the output (cut or glued): input" in warnings[1]


def test_the_suite_fails_when_the_engine_cuts_words(monkeypatch: pytest.MonkeyPatch) -> None:
    data = drawn_pdf(lambda c: c.drawString(40, 700, SENTENCE))
    assert _out_words(data) == coverage.tokens([SENTENCE])
    real = layout.line_text
    monkeypatch.setattr(layout, "line_text", lambda line: real(line).replace("input", "in put"))
    result = convert(DocumentInput(data=data, file_name="cut.pdf"))
    assert result.status.value == "failure"
    assert "not placed whole" in result.errors[0].message and "input" in result.errors[0].message


def test_the_suite_fails_when_the_reader_loses_its_place(monkeypatch: pytest.MonkeyPatch) -> None:
    """The old bug: characters read one index off their boxes."""
    real = pdf_text._page_text

    def shifted(tp, n):  # noqa: ANN001, ANN202
        chars, whole = real(tp, n)
        return [*list(chars)[1:], ""], whole

    monkeypatch.setattr(pdf_text, "_page_text", shifted)
    result = convert(DocumentInput(data=drawn_pdf(lambda c: c.drawString(40, 700, SENTENCE)), file_name="shift.pdf"))
    assert result.status.value == "failure" and "not placed whole" in result.errors[0].message


def test_superscripts_and_ordinals_are_kept_as_printed_and_ligatures_expanded() -> None:
    from pipelines.stages.word_gaps import token

    assert token("m²") == "m²" and token("3º") == "3º" and token("½") == "½"  # not m2, 3o, 1⁄2
    assert token("ﬁle") == "file" and token("Ａ") == "A" and token("cafe\u0301") == "café"
