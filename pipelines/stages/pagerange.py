"""Page ranges such as ``"1-5,8,10"``, kept as spans and never expanded."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pipelines.core.errors import InvalidPageRange
from pipelines.stages import limits

MAX_PAGE = 1_000_000_000


@dataclass(frozen=True)
class PageRange:
    spans: tuple[tuple[int, int], ...]  # inclusive, 1-based, sorted and merged

    @classmethod
    def parse(cls, text: str | None) -> PageRange | None:
        if text is None or not text.strip():
            return None
        spans: list[tuple[int, int]] = []
        for part in text.split(","):
            part = part.strip()
            if not part:
                raise InvalidPageRange(f"invalid page_range {text!r}: empty item")
            lo_s, dash, hi_s = part.partition("-")
            try:
                lo = int(lo_s)
                hi = (int(hi_s) if hi_s.strip() else MAX_PAGE) if dash else lo
            except ValueError:
                raise InvalidPageRange(
                    f"invalid page_range {text!r}: use page numbers and ranges like '1-5,8,10'"
                ) from None
            if lo < 1 or hi < lo or hi > MAX_PAGE:
                raise InvalidPageRange(f"invalid page_range {text!r}: {part!r} is not a valid range")
            spans.append((lo, hi))
        spans.sort()
        merged: list[tuple[int, int]] = []
        for lo, hi in spans:
            if merged and lo <= merged[-1][1] + 1:
                merged[-1] = (merged[-1][0], max(hi, merged[-1][1]))
            else:
                merged.append((lo, hi))
        return cls(tuple(merged))

    def __contains__(self, page: int) -> bool:
        return any(lo <= page <= hi for lo, hi in self.spans)

    def within(self, total: int) -> list[tuple[int, int]]:
        """The spans cut to a document of ``total`` pages."""
        return [(lo, min(hi, total)) for lo, hi in self.spans if lo <= total]

    def pages(self, total: int) -> Iterator[int]:
        """The selected pages that exist in a document of ``total`` pages, in order."""
        for lo, hi in self.within(total):
            yield from range(lo, hi + 1)


def selected_pages(page_range: str | None, total: int) -> Iterable[int]:
    """The pages of a ``total``-page document to read, lazily (spans are never expanded); a range
    that selects none of the document's pages is an error, not an empty result."""
    pr = PageRange.parse(page_range)
    if pr is None:
        limits.check_pages(total)
        return range(1, total + 1)
    if pr.spans[0][0] > total:
        raise InvalidPageRange(f"page_range {page_range!r} selects no page of this "
                               f"{total}-page document")
    limits.check_pages(sum(hi - lo + 1 for lo, hi in pr.within(total)), "pages selected")
    return pr.pages(total)
