"""Generated hostile documents: bombs, truncations, corruptions, odd encodings, extreme shapes.

``corpus()`` returns ``(name, bytes, expected)`` triples; ``expected`` is ``"ok"`` for files that
must parse, ``"fail"`` for files that must end ``failure`` with a clear message, and ``"any"``
where either is right (a truncated file may still hold whole pages).
"""

from __future__ import annotations

import io
import random
import struct
import zipfile
import zlib

from PIL import Image

from tests.support.docgen import docx_doc, pptx_doc, raw_pdf, text_pdf, xlsx_doc

Doc = tuple[str, bytes, str]


def _pdf_with_stream(stream: bytes, filters: str = "/FlateDecode") -> bytes:
    """A one-page PDF whose content stream is ``stream`` (already encoded)."""
    return raw_pdf([
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R >>",
        b"<< /Length %d /Filter %s >>\nstream\n" % (len(stream), filters.encode()) + stream + b"\nendstream",
    ])


def _zip(entries: dict[str, bytes], deflate: bool = True) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED if deflate else zipfile.ZIP_STORED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buf.getvalue()


def _office_bomb(kind: str, size: int) -> bytes:
    """A DOCX/XLSX whose main part inflates to ``size`` bytes of whitespace."""
    ct = (b'<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">'
          b'<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>'
          b'<Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.'
          b'wordprocessingml.document.main+xml"/></Types>')
    rels = (b'<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/'
            b'relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/'
            b'relationships/officeDocument" Target="word/document.xml"/></Relationships>')
    body = b'<?xml version="1.0"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">' \
        + b" " * size + b"<w:body/></w:document>"
    return _zip({"[Content_Types].xml": ct, "_rels/.rels": rels, "word/document.xml": body})


def _billion_laughs() -> bytes:
    ents = '<!ENTITY lol "lol">' + "".join(
        f'<!ENTITY lol{i} "{("&lol" + (str(i - 1) if i > 1 else "") + ";") * 10}">' for i in range(1, 10))
    xml = f'<?xml version="1.0"?><!DOCTYPE w [{ents}]><w:document xmlns:w="x"><w:body>&lol9;</w:body></w:document>'
    return _zip({"[Content_Types].xml": b"<Types/>", "word/document.xml": xml.encode()})


def _png_bomb(side: int) -> bytes:
    buf = io.BytesIO()
    Image.new("1", (side, side)).save(buf, "PNG")
    return buf.getvalue()


def _png_lying_header(w: int, h: int) -> bytes:
    """A PNG whose header claims ``w`` × ``h`` but whose data is one row."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", zlib.compress(b"\0" * 10)) + chunk(b"IEND", b"")


def _tiff(frames: int, size: int = 64) -> bytes:
    img = Image.new("L", (size, size), 255)
    buf = io.BytesIO()
    img.save(buf, "TIFF", save_all=True, append_images=[img] * (frames - 1))
    return buf.getvalue()


def corpus(seed: int = 7) -> list[Doc]:
    rng = random.Random(seed)
    pdf = text_pdf(seed=31, pages=3).data
    docx, pptx, xlsx = docx_doc().data, pptx_doc().data, xlsx_doc().data
    png = io.BytesIO()
    Image.new("RGB", (120, 80), "white").save(png, "PNG")
    jpeg = io.BytesIO()
    Image.new("RGB", (120, 80), "white").save(jpeg, "JPEG")
    docs: list[Doc] = []

    # truncations of every format at many points
    for name, data in (("pdf", pdf), ("docx", docx), ("pptx", pptx), ("xlsx", xlsx), ("png", png.getvalue()),
                       ("jpg", jpeg.getvalue())):
        for frac in (0.02, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99):
            docs.append((f"truncated-{int(frac * 100)}.{name}", data[: max(1, int(len(data) * frac))], "any"))
    # flipped bytes in the middle of every format
    for name, data in (("pdf", pdf), ("docx", docx), ("xlsx", xlsx), ("png", png.getvalue())):
        for i in range(5):
            b = bytearray(data)
            for _ in range(20):
                b[rng.randrange(len(b) // 4, len(b))] ^= 0xFF
            docs.append((f"flipped-{i}.{name}", bytes(b), "any"))
    # random bytes, empty and near-empty files, magic numbers with nothing behind them
    for n in (0, 1, 7, 100, 4096, 200_000):  # one byte may well be a letter
        docs.append((f"random-{n}.bin", rng.randbytes(n), "any" if n in (1, 7) else "fail"))
    for magic, ext in ((b"%PDF-1.7\n", "pdf"), (b"PK\x03\x04", "docx"), (b"\x89PNG\r\n\x1a\n", "png"),
                       (b"\xff\xd8\xff", "jpg"), (b"GIF89a", "gif"), (b"RIFF\0\0\0\0WEBP", "webp")):
        docs.append((f"magic-only.{ext}", magic, "fail"))
    # bombs
    docs.append(("flate-bomb.pdf", _pdf_with_stream(zlib.compress(b"0 0 m " * 30_000_000, 9)), "any"))
    docs.append(("flate-bomb-nested.pdf", _pdf_with_stream(zlib.compress(zlib.compress(b"\0" * 200_000_000, 9), 9),
                                                           "[/FlateDecode /FlateDecode]"), "any"))
    docs.append(("pixel-bomb.png", _png_bomb(30_000), "fail"))
    docs.append(("pixel-bomb-1.2x.png", _png_bomb(10_954), "fail"))
    docs.append(("lying-header.png", _png_lying_header(60_000, 60_000), "fail"))
    docs.append(("lying-header-small.png", _png_lying_header(500, 500), "any"))
    docs.append(("many-frames.tiff", _tiff(400), "fail"))  # over the test's page limit
    docs.append(("docx-zip-bomb.docx", _office_bomb("docx", 600_000_000), "fail"))
    docs.append(("billion-laughs.docx", _billion_laughs(), "fail"))
    docs.append(("zip-traversal.docx", _zip({"../../etc/passwd": b"x", "word/document.xml": b"<x/>"}), "fail"))
    docs.append(("empty.zip", _zip({}), "fail"))
    # text with extreme shapes and encodings
    docs.append(("form-feeds.txt", b"x\f" * 1_000_000, "fail"))
    docs.append(("wide.csv", (",".join(["a"] * 2_000_000) + "\n").encode(), "fail"))
    docs.append(("huge-field.csv", b'"' + b"x" * 300_000 + b'"\n', "any"))
    docs.append(("one-line.txt", b"word " * 2_000_000, "any"))
    docs.append(("utf16.txt", "hello wörld\nsecond line\n".encode("utf-16"), "ok"))
    docs.append(("utf16-be.txt", b"\xfe\xff" + "big endian text\n".encode("utf-16-be"), "ok"))
    docs.append(("nul-in-text.txt", b"hello\x00 world, this is text\n", "ok"))
    docs.append(("latin1.txt", "caf\u00e9 cr\u00e8me br\u00fbl\u00e9e\n".encode("latin-1"), "ok"))
    docs.append(("invalid-utf8.txt", b"valid start \xc3\x28 then \xff\xfe bad\n", "ok"))
    docs.append(("nested.html", b"<div>" * 100_000 + b"deep" + b"</div>" * 100_000, "any"))
    docs.append(("nested.md", b"> " * 50_000 + b"quote\n", "any"))
    docs.append(("many-lists.md", b"".join(b"  " * i + b"- item\n" for i in range(2000)), "any"))
    docs.append(("table-pipes.md", b"|" + b"a|" * 5000 + b"\n|" + b"---|" * 5000 + b"\n", "fail"))
    docs.append(("nested-html.html", b"<html><body>" + b"<div>" * 600 + b"x" + b"</div>" * 600, "fail"))
    docs.append(("control-chars.txt", bytes(range(1, 32)) * 100 + b"text\n", "any"))
    # generated good documents, so the corpus also shows nothing good is refused
    docs += [("fine.pdf", pdf, "ok"), ("fine.docx", docx, "ok"), ("fine.xlsx", xlsx, "ok"), ("fine.pptx", pptx, "ok")]
    return docs
