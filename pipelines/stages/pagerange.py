"""Page ranges such as ``"1-5,8,10"``, kept as spans and never expanded."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pipelines.errors import InvalidPageRange

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

    def pages(self, total: int) -> Iterator[int]:
        """The selected pages that exist in a document of ``total`` pages, in order."""
        for lo, hi in self.spans:
            if lo > total:
                return
            yield from range(lo, min(hi, total) + 1)


def select_pages(page_range: str | None, total: int) -> list[int]:
    pr = PageRange.parse(page_range)
    if pr is None:
        return list(range(1, total + 1))
    return list(pr.pages(total))
