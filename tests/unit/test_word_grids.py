"""Grids of single words printed without rules, as HTML manuals' tables of keywords come out.

Bash's manual lists its reserved words in a table of six columns of one word each, in a
fixed-width font; LibreOffice Writer sets the paragraph after it as tight under the last row as
the rows are under each other, so the paragraph runs across the grid's gutters in one band with
it. The grid is a table and the paragraph text; three lines of short words lining up over a
justified paragraph are no table. The other way round, a paragraph of three lines with a table
of ports as tight under it: the table is read apart from the paragraph.
"""

from __future__ import annotations

from tests.support.drawn import drawn_pdf, fragments, tables

RESERVED = [["if", "then", "elif", "else", "fi", "time"], ["for", "in", "until", "while", "do", "done"],
            ["case", "esac", "coproc", "select", "function", ""], ["{", "}", "[[", "]]", "!", ""]]
AFTER = ["in is recognized as a reserved word if it is the third word of a case or select",
         "command. in and do are recognized as reserved words if they are the third word in a",
         "for command."]


def _grid_then_text(rows: list[list[str]]) -> bytes:
    def draw(c):  # type: ignore[no-untyped-def]
        c.setFont("Times-Roman", 10)
        c.drawString(57, 690, "The following words are recognized as reserved when unquoted and the first word")
        c.drawString(57, 676, "of a command (see below for exceptions):")
        c.setFont("Courier", 10)
        y = 640.0
        for row in rows:
            for x, word in zip((58, 113, 168, 223, 278, 344), row, strict=True):
                c.drawString(x, y, word)
            y -= 14
        c.setFont("Times-Roman", 10)
        for line in AFTER:
            c.drawString(57, y + 1.2, line)
            y -= 13.4
    return drawn_pdf(draw)


def test_a_grid_of_keywords_with_a_paragraph_tight_under_it_is_a_table_and_the_paragraph_text() -> None:
    data = _grid_then_text(RESERVED)
    assert tables(data) == [RESERVED]
    assert any(f.content.get("content", "").startswith("in is recognized") for f in fragments(data)
               if f.fragment_type == "text")


def test_three_rows_of_keywords_over_a_paragraph_stay_text() -> None:
    assert tables(_grid_then_text(RESERVED[:3])) == []


PORTS = [("IMAP", "143"), ("IMAP+SSL", "993"), ("POP3", "110"), ("POP3+SSL", "995")]
BEFORE = ["Make sure your services database contains the necessary service entries. If you cannot",
          "fix the services database, use the service option and give the numeric port address.",
          "Common port addresses are:"]


def _text_then_table(before: list[str]) -> bytes:
    """A paragraph, then a table of two columns a little more than a word space apart under a
    bold header, the header as tight under the paragraph as its lines are under each other
    (fetchmail's manual as a browser prints it)."""
    def draw(c):  # type: ignore[no-untyped-def]
        y = 740.0
        c.setFont("Helvetica", 11)
        for line in before:
            c.drawString(64, y, line)
            y -= 14
        c.setFont("Helvetica-Bold", 11)
        c.drawString(73, y, "service")
        c.drawString(126, y, "port")
        c.setFont("Helvetica", 11)
        for name, port in PORTS:
            y -= 17
            c.drawString(66, y, name)
            c.drawString(126, y, port)
    return drawn_pdf(draw)


def test_a_table_set_tight_under_a_paragraph_is_read_apart_from_it() -> None:
    assert tables(_text_then_table(BEFORE)) == [[["service", "port"], *[list(r) for r in PORTS]]]
    text = " ".join(f.content.get("content", "") for f in fragments(_text_then_table(BEFORE)) if f.fragment_type == "text")
    assert text.split() == " ".join(BEFORE).split()
