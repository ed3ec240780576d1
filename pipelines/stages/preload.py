"""Imported once by the fork server that starts the conversion processes
(``pipelines.engine.isolation``): what the readers import lazily, so that every child inherits it from the
fork instead of importing it again (python-docx, python-pptx and openpyxl cost a child 40–80 ms
each; the API process, which never converts, still does not import them).

It is the last module the fork server imports: it then freezes the objects the fork server holds
(``gc.freeze``), so that a collection in a child never walks them, which would touch, and so copy,
most of the fork server's memory.

Nothing here may start a thread or open a file a child would share: the fork server forks.
"""

from __future__ import annotations

import gc
import importlib
import io

MODULES = (
    # stages.office
    "docx", "docx.table", "docx.text.paragraph", "pptx", "openpyxl", "PIL.ImageFont",
    "xml.etree.ElementTree",
    # reading the input and writing the result through fsspec's local file system
    "fsspec.implementations.local",
    "encodings.utf_16_le", "encodings.utf_8_sig", "encodings.cp437",
)


def preload() -> None:
    for name in MODULES:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional reader not installed: its documents say so when met
            pass


def warm_result_writing() -> None:
    """Once what a child does first when it writes a result (a table of nested columns built from
    rows, written as Parquet into memory, and fsspec's local file system made): pyarrow and
    fsspec set up their conversion paths and caches lazily, which cost every child 2-3 ms."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from fsspec.core import url_to_fs

    schema = pa.schema([("text", pa.string()), ("n", pa.int32()), ("x", pa.float64()),
                        ("numbers", pa.list_(pa.int32())),
                        ("items", pa.list_(pa.struct([("name", pa.string()), ("x", pa.float64())])))])
    table = pa.Table.from_pylist([{"text": "a", "n": 1, "x": 1.0, "numbers": [1],
                                   "items": [{"name": "b", "x": 2.0}]}], schema=schema)
    pq.write_table(table, io.BytesIO(), compression="snappy", use_dictionary=False, write_statistics=["n"])
    url_to_fs("file:///")


def warm_embedding() -> None:
    """The embedding model's file checked and its tokenizer loaded, for the children of jobs with
    extraction or classification (not the model itself: see ``embed.prepare``)."""
    from pipelines.stages import embed

    try:
        embed.prepare()
    except embed.ModelUnavailable:  # not installed: the jobs that need it say so
        pass


preload()
warm_result_writing()
warm_embedding()
gc.freeze()
