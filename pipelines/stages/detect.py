"""Detect a document's MIME type from its content (the file name is only a hint for text)."""

from __future__ import annotations

import io
import zipfile
from collections.abc import Callable
from typing import IO

import filetype

PDF = "application/pdf"
TXT = "text/plain"
MARKDOWN = "text/markdown"
HTML = "text/html"
CSV = "text/csv"
XML = "text/xml"
DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document"
PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation"
XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
OCTET = "application/octet-stream"

TEXT_TYPES = frozenset({TXT, MARKDOWN, HTML, CSV, XML})

_ALIASES = {
    "text/x-markdown": MARKDOWN,
    "application/xhtml+xml": HTML,
    "application/xml": XML,
    "application/csv": CSV,
}

_EXT_TEXT = {".md": MARKDOWN, ".markdown": MARKDOWN, ".csv": CSV, ".htm": HTML, ".html": HTML,
             ".xml": XML, ".txt": TXT}

_ZIP_MARKERS = (("word/", DOCX), ("ppt/", PPTX), ("xl/", XLSX))


def normalize_mime(mime: str | None) -> str | None:
    if not mime:
        return None
    base = mime.split(";", 1)[0].strip().lower()
    return _ALIASES.get(base, base)


MAX_ZIP_ENTRIES = 10_000  # office files hold dozens to hundreds


def _zip_entries(source: str | IO[bytes]) -> int | None:
    """The entry count from the end-of-central-directory record, read without parsing the
    directory (``None`` if there is no such record)."""
    fh = open(source, "rb") if isinstance(source, str) else source  # noqa: SIM115
    try:
        fh.seek(0, io.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 65_557))
        tail = fh.read()
        at = tail.rfind(b"PK\x05\x06")
        if at < 0 or at + 12 > len(tail):
            return None
        return int.from_bytes(tail[at + 10:at + 12], "little")
    finally:
        if isinstance(source, str):
            fh.close()
        else:
            fh.seek(0)


def _office_type(source: str | IO[bytes]) -> str | None:
    entries = _zip_entries(source)
    if entries is None or entries > MAX_ZIP_ENTRIES or entries == 0xFFFF:  # 0xFFFF: ZIP64, huge
        return None
    try:
        with zipfile.ZipFile(source) as zf:
            names = zf.namelist()
    except (zipfile.BadZipFile, ValueError, OSError, NotImplementedError, EOFError):
        # NotImplementedError: an entry claims a ZIP version zipfile does not know (a damaged or
        # hostile file); the content decides nothing then
        return None
    for prefix, mime in _ZIP_MARKERS:
        if any(n.startswith(prefix) for n in names):
            return mime
    return None


def _looks_textual(head: bytes) -> bool:
    if not head:
        return True
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):  # UTF-16 with its byte-order mark
        try:
            head[: len(head) & ~1].decode("utf-16")
            return True
        except UnicodeDecodeError:
            return False
    if b"\x00" in head:
        # a stray NUL or two in UTF-8 text is still text (they are dropped when it is read)
        if head.count(b"\x00") > max(2, len(head) // 100):
            return False
        head = head.replace(b"\x00", b"")
        if any(b < 0x20 and b not in _TEXT_CONTROLS for b in head):
            return False  # NULs beside other control bytes: binary
    try:
        head.decode("utf-8")
    except UnicodeDecodeError as exc:
        # A multi-byte character cut at the end of the sample is still text; and so is a legacy
        # 8-bit encoding (Latin-1, Windows-1252): bytes over 0x7f without the control bytes and
        # NULs that binary formats are full of.
        if exc.start < len(head) - 4 and any(b < 0x20 and b not in _TEXT_CONTROLS for b in head):
            return False
    return True


_TEXT_CONTROLS = b"\t\n\r\f\x0b\x1b"


def _text_type(head: bytes, file_name: str | None) -> str:
    ext = ""
    if file_name and "." in file_name:
        ext = "." + file_name.rsplit(".", 1)[1].lower()
    sniff = head.lstrip()[:512].lower()
    if sniff.startswith((b"<!doctype html", b"<html")) or b"<body" in sniff:
        return HTML
    if ext in _EXT_TEXT:
        return _EXT_TEXT[ext]
    if sniff.startswith(b"<?xml"):
        return XML
    return TXT


def detect_mime(data: bytes, file_name: str | None = None) -> str:
    """Return the MIME type of ``data``; ``application/octet-stream`` when unknown."""
    return _detect(data[:8192], file_name, lambda: _office_type(io.BytesIO(data)))


def detect_file(path: str, file_name: str | None = None) -> str:
    """Like ``detect_mime`` for a file on local disk, without reading all of it."""
    with open(path, "rb") as fh:
        head = fh.read(8192)
    return _detect(head, file_name, lambda: _office_type(path))


def _detect(head: bytes, file_name: str | None, office: Callable[[], str | None]) -> str:
    if head.startswith(b"%PDF-"):
        return PDF
    if head.startswith(b"PK\x03\x04"):
        return office() or "application/zip"
    kind = filetype.guess(head)
    if kind is not None:
        return kind.mime
    if _looks_textual(head):
        if head.startswith((b"\xff\xfe", b"\xfe\xff")):
            head = head[: len(head) & ~1].decode("utf-16", "replace").encode("utf-8")
        return _text_type(head, file_name)
    return OCTET


# What a file name promises, for telling a damaged file of a known type from an unknown one.
_EXT_NAMES = {".pdf": "PDF", ".docx": "DOCX", ".pptx": "PPTX", ".xlsx": "XLSX", ".png": "PNG",
              ".jpg": "JPEG", ".jpeg": "JPEG", ".tif": "TIFF", ".tiff": "TIFF", ".webp": "WebP",
              ".gif": "GIF", ".bmp": "BMP"}


def named_format(file_name: str | None) -> str | None:
    """The format a file's name says it is (``"PDF"`` for ``report.pdf``), if a known one."""
    if not file_name or "." not in file_name:
        return None
    return _EXT_NAMES.get("." + file_name.rsplit(".", 1)[1].lower())
