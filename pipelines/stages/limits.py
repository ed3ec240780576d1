"""The limits of the document being converted, for the stages that enforce them.

``pipelines.engine.document.convert`` sets them from the input for the duration of one conversion (a
context variable: per thread and task, so conversions side by side never see each other's).
A stage outside a conversion sees the defaults.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from pipelines.core.errors import DocumentTooLarge
from pipelines.core.models import EngineLimits

_DEFAULT = EngineLimits()
_active: ContextVar[EngineLimits | None] = ContextVar("docklake_engine_limits", default=None)


def current() -> EngineLimits:
    return _active.get() or _DEFAULT


@contextmanager
def applied(limits: EngineLimits) -> Iterator[None]:
    """Make ``limits`` the current ones inside the block."""
    token = _active.set(limits)
    try:
        yield
    finally:
        _active.reset(token)


def check_pages(count: int, what: str = "pages to read") -> None:
    limit = current().max_pages
    if count > limit:
        raise DocumentTooLarge(f"the document has {count:,} {what}; the limit is {limit:,} "
                               "(DOCKLAKE_LIMITS__MAX_PAGES; a page_range can select fewer)")


def check_columns(count: int) -> None:
    limit = current().max_table_columns
    if count > limit:
        raise DocumentTooLarge(f"a table has {count:,} columns; the limit is {limit:,} "
                               "(DOCKLAKE_LIMITS__MAX_TABLE_COLUMNS)")
