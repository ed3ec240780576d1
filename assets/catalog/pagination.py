"""Keyset pagination over ``(created_us, id)``, newest first, with opaque base64 cursors."""

from __future__ import annotations

import base64
import re
from typing import Any, Literal

from sqlalchemy import Select, tuple_

from pipelines.core.errors import InvalidQuery
from pipelines.core.records import Page

ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


def encode_cursor(created_us: int, row_id: str) -> str:
    return base64.urlsafe_b64encode(f"{created_us}:{row_id}".encode()).decode()


def decode_cursor(cursor: str) -> tuple[int, str]:
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        ts, _, row_id = raw.partition(":")
        created_us = int(ts)
    except (ValueError, UnicodeDecodeError) as exc:
        raise InvalidQuery("invalid cursor: pass a cursor returned by a previous page") from exc
    # Cursors are made from stored rows: a time outside 64 bits or an odd id was not one of them.
    if not 0 <= created_us < 2**63 or not ID.fullmatch(row_id):
        raise InvalidQuery("invalid cursor: pass a cursor returned by a previous page")
    return created_us, row_id


def in_page_order(query: Select, created_col: Any, id_col: Any, *, cursor: str | None,
                  direction: Literal["next", "prev"]) -> Select:
    """``query`` restricted to the rows after ``cursor`` in ``direction``, in that order."""
    key = tuple_(created_col, id_col)
    if cursor:
        at = decode_cursor(cursor)
        query = query.where(key < at) if direction == "next" else query.where(key > at)
    if direction == "next":
        return query.order_by(created_col.desc(), id_col.desc())
    return query.order_by(created_col.asc(), id_col.asc())


def paginate(conn: Any, query: Select, created_col: Any, id_col: Any, *, cursor: str | None,
             direction: Literal["next", "prev"], limit: int) -> Page:
    """Run ``query`` one page at a time; rows must expose ``created_us`` and ``id``."""
    query = in_page_order(query, created_col, id_col, cursor=cursor, direction=direction)
    if limit == 0:  # a page of nothing has no neighbours to point at
        return Page([], False, None, None)
    rows = list(conn.execute(query.limit(limit + 1)).mappings())
    more = len(rows) > limit
    rows = rows[:limit]
    if direction == "prev":
        rows.reverse()
    first = encode_cursor(rows[0]["created_us"], rows[0]["id"]) if rows else None
    last = encode_cursor(rows[-1]["created_us"], rows[-1]["id"]) if rows else None
    if direction == "next":
        return Page(rows, more, last if more else None, first if cursor else None)
    return Page(rows, more, last if cursor else None, first if more else None)
