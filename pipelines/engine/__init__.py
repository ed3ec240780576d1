"""The document engine: runs one document through the stages, safely.

``document`` picks the reader and runs the stages, ``split`` cuts a large PDF into page ranges and
merges their results, ``isolation`` runs that work in a child process with time and memory limits,
``fetch`` downloads a ``file_url`` without reaching private addresses. It imports the stages and the
core only: no catalog, no orchestrator, no web framework.
"""
