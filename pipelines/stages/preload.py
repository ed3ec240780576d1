"""Imported once by the fork server that starts the conversion processes
(``pipelines.isolation``): what the readers import lazily, so that every child inherits it from the
fork instead of importing it again (python-docx, python-pptx and openpyxl cost a child 40–80 ms
each; the API process, which never converts, still does not import them).

Nothing here may start a thread or open a file a child would share: the fork server forks.
"""

from __future__ import annotations

import importlib

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


preload()
