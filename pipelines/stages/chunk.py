"""Fragments → chunks, per ``chunking_strategy`` (none, page, section, fragment)."""

from __future__ import annotations

from pipelines.core.models import Chunk, DocumentResult, Fragment


def render_fragment(f: Fragment, table_mode: str = "html") -> str:
    """Markdown for one fragment."""
    c = f.content
    text = str(c.get("content", ""))
    if f.fragment_type in ("section_header", "title"):
        level = int(c.get("level") or 1)
        return "#" * max(1, min(level, 6)) + " " + text
    if f.fragment_type == "list_item":
        return "- " + text
    if f.fragment_type == "table":
        return str(c.get(table_mode) or text)
    return text


def chunk(result: DocumentResult) -> DocumentResult:
    strategy = result.input.parsing.chunking_strategy
    mode = result.input.parsing.table_output_mode
    chunks: list[Chunk] = []
    pieces = [(p.page_number, f) for p in result.pages for f in p.fragments]

    if strategy == "fragment":
        chunks = [Chunk(page_number=n, content=render_fragment(f, mode)) for n, f in pieces]
    elif strategy == "page":
        chunks = [
            Chunk(page_number=p.page_number,
                  content="\n\n".join(render_fragment(f, mode) for f in p.fragments))
            for p in result.pages
        ]
    elif strategy == "section":
        current: list[str] = []
        start = pieces[0][0] if pieces else 1
        for n, f in pieces:
            if f.fragment_type in ("section_header", "title") and current:
                chunks.append(Chunk(page_number=start, content="\n\n".join(current)))
                current, start = [], n
            if not current:
                start = n
            current.append(render_fragment(f, mode))
        if current:
            chunks.append(Chunk(page_number=start, content="\n\n".join(current)))
    else:  # none: the whole document as one chunk
        if result.pages:
            body = "\n\n".join(render_fragment(f, mode) for _, f in pieces)
            chunks = [Chunk(page_number=result.pages[0].page_number, content=body)]
    result.chunks = chunks
    return result
