"""Use cases: what docklake does for a caller, one module per capability, called by the thin API
routes and by the worker alike. They take the ``Runtime`` (settings, catalog, storage) and typed
records, raise the ``pipelines.core.errors`` tree, and know nothing of HTTP or of the wire format.

- ``documents``: document jobs (parse, read): submit, get, list, delete, and their execution;
- ``files``: uploaded files: store, get, list, delete.
"""
