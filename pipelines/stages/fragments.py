"""Blocks → wire fragments, and the passes that need every page at once.

* ``repeated_margins``: a block that opens (or closes) the body of several pages with the same
  text, digits aside, at the same height, is a running header (footer) even outside the margin
  band; it moves out of the body.
* ``to_fragments``: one ``Fragment`` per block, in reading order: page header first, body, then
  footer and page number. Content is always an object (wire §2.3).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from pipelines.core.models import Fragment
from pipelines.stages import tables
from pipelines.stages.geometry import bbox_dict
from pipelines.stages.layout import BULLETS, PAGE_NUMBER, Block

_DIGITS = re.compile(r"\d+")
_MARGIN_KINDS = ("page_header", "page_footer", "page_number")


def _key(b: Block) -> str:
    return _DIGITS.sub("#", " ".join(b.text.lower().split()))


def repeated_margins(pages: list[list[Block]]) -> None:
    """Turn body blocks repeated at the top/bottom of ≥ 2 pages into page headers/footers."""
    if len(pages) < 2:
        return
    for kind, pick in (("page_header", 0), ("page_footer", -1)):
        seen: Counter[tuple[str, int]] = Counter()
        ends: list[Block | None] = []
        for blocks in pages:
            body = [b for b in blocks if b.kind in ("text", "section_header")]
            end = body[pick] if body else None
            ends.append(end)
            if end is not None and len(end.text) <= 120:
                seen[(_key(end), round(end.box[1] / 6))] += 1
        for blocks, end in zip(pages, ends):
            if end is None or seen[(_key(end), round(end.box[1] / 6))] < 2:
                continue
            end.kind = "page_number" if PAGE_NUMBER.match(end.text.strip()) else kind
            blocks.remove(end)
            if pick == 0:
                blocks.insert(0, end)
            else:
                blocks.append(end)


def _content(b: Block, mode: str) -> dict[str, Any]:
    text = b.text.strip()
    marker = ""
    if b.kind == "list_item":
        head, _, rest = text.partition(" ")
        if rest and head in BULLETS:
            text, marker = rest, head
    out: dict[str, Any] = {"content": text}
    if b.kind == "section_header":
        out = {"content": " ".join(text.split()), "level": int(b.data.get("level", 1))}
    if marker:
        out["marker"] = marker  # the bullet glyph, kept: it is part of the page's text
    if b.data.get("recovered"):
        out["recovered"] = True  # words the layout missed, added back as plain text
    return out


def to_fragments(blocks: list[Block], mode: str, with_words: bool = False) -> list[Fragment]:
    """Fragments in reading order (header, body, footer) with bboxes in page units; with
    ``with_words`` (OCR'd pages) text fragments also list their words with boxes."""
    head = [b for b in blocks if b.kind == "page_header"]
    foot = [b for b in blocks if b.kind in ("page_footer", "page_number")]
    body = [b for b in blocks if b.kind not in _MARGIN_KINDS]
    out: list[Fragment] = []
    for b in [*head, *body, *foot]:
        frag = _fragment(b, mode)
        if frag is None:
            continue
        frag.reading_order = len(out)
        frag.bbox = bbox_dict(b.box)
        if with_words and b.words and "words" not in frag.content and frag.fragment_type not in (
                "table", "figure", "barcode", "signature"):
            frag.content["words"] = [{"text": w.text, "bbox": bbox_dict((w.x1, w.y1, w.x2, w.y2))}
                                     for w in b.words]
        out.append(frag)
    return out


def _fragment(b: Block, mode: str) -> Fragment | None:
    if b.kind in ("table", "text_table"):
        rows = b.data.get("rows") or []
        if not rows:
            return None
        frag = tables.fragment(rows, mode)
        frag.content["ruled"] = bool(b.data.get("ruled"))
        return frag
    if b.kind == "figure":
        content: dict[str, Any] = {"content": b.data.get("caption") or b.data.get("text", "")}
        if b.data.get("text"):
            content["text"] = b.data["text"]  # words drawn inside the figure (labels, legends)
        if b.data.get("image_base64"):  # include_images (see drafts.seal)
            content["image_base64"] = b.data["image_base64"]
            content["image_mime_type"] = "image/png"
        return Fragment(fragment_type="figure", content=content)
    if b.kind == "barcode":
        return Fragment(fragment_type="barcode",
                        content={"content": b.data["value"], "value": b.data["value"],
                                 "format": b.data["format"]})
    if b.kind == "key_value_region":
        key, value = b.data.get("key", ""), b.data.get("value", "")
        return Fragment(fragment_type="key_value_region",
                        content={"content": f"{key}: {value}", "key": key, "value": value})
    if b.kind == "signature":
        return Fragment(fragment_type="signature", content={"content": "signature"})
    if b.kind == "strikethrough":
        return Fragment(fragment_type="strikethrough",
                        content={"content": b.text or b.data.get("text", "")})
    if not b.text.strip():
        return None
    return Fragment(fragment_type=b.kind, content=_content(b, mode))  # type: ignore[arg-type]


def attach_captions(blocks: list[Block]) -> None:
    """Copy a figure caption's text into the figure next to it (wire figure ``content``)."""
    for i, b in enumerate(blocks):
        if b.kind != "figure_caption":
            continue
        for j in (i - 1, i + 1):
            if 0 <= j < len(blocks) and blocks[j].kind == "figure" and not blocks[j].data.get("caption"):
                blocks[j].data["caption"] = " ".join(b.text.split())
                break
