"""Text-like formats (plain text, Markdown, HTML, CSV) → pages of fragments.

These formats have no physical pages. A form feed (``\\f``) starts a new page; a document
without one is a single page. Fragments carry reading order but no bounding box.
"""

from __future__ import annotations

import csv
import html as html_lib
import io
import re

from bs4 import BeautifulSoup, NavigableString, Tag

from pipelines.core.errors import CorruptDocument, describe
from pipelines.core.models import Fragment, PageResult
from pipelines.stages import detect, limits

_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_LIST = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_TABLE_ROW = re.compile(r"^\s*\|.*\|\s*$")
_TABLE_SEP = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$")


def decode(data: bytes) -> str:
    """Text from bytes: UTF-16 when it says so (a byte-order mark), else UTF-8, else Latin-1
    (which decodes any byte). NUL characters are dropped: they are not text, and neither the
    catalog nor most readers can hold them."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16").replace("\x00", "")
        except UnicodeDecodeError:
            pass
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return text.replace("\x00", "")


# ---------------------------------------------------------------- tables


def table_fragment(rows: list[list[str]], mode: str) -> Fragment:
    limits.check_columns(max((len(r) for r in rows), default=0))
    rows = [r for r in rows if any(c.strip() for c in r)]
    width = max((len(r) for r in rows), default=0)
    rows = [r + [""] * (width - len(r)) for r in rows]
    md = render_markdown_table(rows)
    html = render_html_table(rows)
    cells = [{"text": c, "row": i, "col": j} for i, r in enumerate(rows) for j, c in enumerate(r)]
    return Fragment(
        fragment_type="table",
        content={"content": md if mode == "markdown" else html, "markdown": md, "html": html,
                 "cells": [{"text": c["text"], "bounding_box": {}} for c in cells]},
    )


def render_markdown_table(rows: list[list[str]]) -> str:
    if not rows:
        return ""
    def line(r: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|").replace("\n", " ").strip() for c in r) + " |"
    out = [line(rows[0]), "|" + "|".join("---" for _ in rows[0]) + "|"]
    out += [line(r) for r in rows[1:]]
    return "\n".join(out)


def render_html_table(rows: list[list[str]]) -> str:
    if not rows:
        return "<table></table>"
    head = "".join(f"<th>{html_lib.escape(c.strip())}</th>" for c in rows[0])
    body = "".join(
        "<tr>" + "".join(f"<td>{html_lib.escape(c.strip())}</td>" for c in r) + "</tr>" for r in rows[1:]
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


# ---------------------------------------------------------------- plain text and markdown


def _text(kind: str, text: str, **extra: object) -> Fragment:
    return Fragment(fragment_type=kind, content={"content": text, **extra})  # type: ignore[arg-type]


def plain_fragments(text: str) -> list[Fragment]:
    blocks = [b.strip() for b in re.split(r"\n\s*\n", text)]
    return [_text("text", b) for b in blocks if b]


def markdown_fragments(text: str, table_mode: str) -> list[Fragment]:
    frags: list[Fragment] = []
    para: list[str] = []
    lines = text.splitlines()

    def flush() -> None:
        if para:
            frags.append(_text("text", "\n".join(para).strip()))
            para.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        if not line.strip():
            flush()
        elif m := _HEADING.match(line):
            flush()
            frags.append(_text("section_header", m.group(2), level=len(m.group(1))))
        elif _TABLE_ROW.match(line) and i + 1 < len(lines) and _TABLE_SEP.match(lines[i + 1]):
            flush()
            rows = [_split_row(line)]
            i += 2
            while i < len(lines) and _TABLE_ROW.match(lines[i]):
                rows.append(_split_row(lines[i]))
                i += 1
            frags.append(table_fragment(rows, table_mode))
            continue
        elif m := _LIST.match(line):
            flush()
            frags.append(_text("list_item", m.group(1).strip()))
        else:
            para.append(line)
        i += 1
    flush()
    return frags


def _split_row(line: str) -> list[str]:
    inner = line.strip()[1:-1]
    return [c.strip() for c in re.split(r"(?<!\\)\|", inner)]


# ---------------------------------------------------------------- HTML

_BLOCK_TEXT = {"p": "text", "blockquote": "text", "pre": "text", "address": "text",
               "figcaption": "figure_caption", "caption": "table_caption"}


MAX_HTML_DEPTH = 500
_TAG = re.compile(r"<(/?)([A-Za-z][A-Za-z0-9-]*)[^>]*?(/?)>")
_VOID = frozenset("area base br col embed hr img input link meta param source track wbr".split())


def _html_depth(text: str, limit: int) -> int:
    """How deep the tags nest (stops counting past ``limit``): one pass, no parse."""
    depth = deepest = 0
    for m in _TAG.finditer(text):
        closing, name, self_closing = m.group(1), m.group(2).lower(), m.group(3)
        if closing:
            depth = max(0, depth - 1)
        elif not self_closing and name not in _VOID:
            depth += 1
            deepest = max(deepest, depth)
            if deepest > limit:
                break
    return deepest


def html_fragments(text: str, table_mode: str) -> list[Fragment]:
    # The parser and the walk below recurse per level, and a parser's time grows with the square
    # of the depth: refuse what no real page needs before parsing it.
    if _html_depth(text, MAX_HTML_DEPTH) > MAX_HTML_DEPTH:
        raise CorruptDocument(f"the HTML nests tags more than {MAX_HTML_DEPTH} levels deep")
    soup = BeautifulSoup(text, "html.parser")
    for bad in soup(["script", "style", "noscript", "template", "head"]):
        if bad.name == "head":
            title = bad.find("title")
            bad.replace_with(title) if title else bad.decompose()
        else:
            bad.decompose()
    frags: list[Fragment] = []
    root = soup.body or soup
    _walk_html(root, frags, table_mode)
    return frags


def _walk_html(node: Tag, frags: list[Fragment], table_mode: str) -> None:
    loose: list[str] = []

    def flush() -> None:
        txt = " ".join(" ".join(loose).split())
        if txt:
            frags.append(_text("text", txt))
        loose.clear()

    for child in node.children:
        if isinstance(child, NavigableString):
            if child.strip():
                loose.append(str(child))
            continue
        if not isinstance(child, Tag):
            continue
        name = child.name.lower()
        txt = " ".join(child.get_text(" ").split())
        if name in ("h1", "h2", "h3", "h4", "h5", "h6"):
            flush()
            if txt:
                frags.append(_text("section_header", txt, level=int(name[1])))
        elif name == "title":
            flush()
            if txt:
                frags.append(_text("title", txt, level=0))
        elif name in ("header", "footer") and child.find_parent("article") is None:
            flush()
            if txt:
                frags.append(_text("page_header" if name == "header" else "page_footer", txt))
        elif name == "li":
            flush()
            if txt:
                frags.append(_text("list_item", txt))
            for sub in child.find_all(["ul", "ol"], recursive=False):
                _walk_html(sub, frags, table_mode)
        elif name == "table":
            flush()
            rows = [[" ".join(c.get_text(" ").split()) for c in tr.find_all(["td", "th"])]
                    for tr in child.find_all("tr")]
            caption = child.find("caption")
            if caption is not None and caption.get_text(strip=True):
                frags.append(_text("table_caption", " ".join(caption.get_text(" ").split())))
            if rows:
                frags.append(table_fragment(rows, table_mode))
        elif name in _BLOCK_TEXT:
            flush()
            if txt:
                frags.append(_text(_BLOCK_TEXT[name], txt))
        elif name in ("br",):
            loose.append("\n")
        elif name in ("img",):
            alt = child.get("alt") or ""
            flush()
            frags.append(Fragment(fragment_type="figure", content={"content": str(alt)}))
        elif name in ("a", "span", "strong", "em", "b", "i", "u", "code", "small", "sup", "sub",
                      "abbr", "label", "mark", "time", "s", "del", "ins", "q", "cite"):
            if txt:
                loose.append(txt)
        else:
            flush()
            _walk_html(child, frags, table_mode)
    flush()


# ---------------------------------------------------------------- CSV


def csv_fragments(text: str, table_mode: str) -> list[Fragment]:
    try:
        dialect = csv.Sniffer().sniff(text[:4096], delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    try:
        rows = list(csv.reader(io.StringIO(text), dialect))
    except csv.Error as exc:
        raise CorruptDocument(f"the CSV cannot be read: {describe(exc)}") from exc
    return [table_fragment(rows, table_mode)] if rows else []


# ---------------------------------------------------------------- entry point


def load_text_pages(data: bytes, mime: str, table_mode: str) -> list[PageResult]:
    """Split a text-like document into pages (form feeds) and fragment each page."""
    text = decode(data)
    limits.check_pages(text.count("\f") + 1, "pages (form feeds start pages)")
    pages: list[PageResult] = []
    for n, chunk in enumerate(text.split("\f"), start=1):
        if mime == detect.HTML:
            frags = html_fragments(chunk, table_mode)
        elif mime == detect.MARKDOWN:
            frags = markdown_fragments(chunk, table_mode)
        elif mime == detect.CSV:
            frags = csv_fragments(chunk, table_mode)
        else:
            frags = plain_fragments(chunk)
        for order, f in enumerate(frags):
            f.reading_order = order
        pages.append(PageResult(page_number=n, fragments=frags))
    return pages
