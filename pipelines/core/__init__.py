"""The core: what every layer shares and nothing else owns.

Typed records of the catalog (``records``, ``sandbox_records``), the document model that flows
through the stages and the wire's request options (``models``), the exception tree (``errors``),
the one settings object (``settings``), structured logs and supervised child processes. The core
imports no other docklake package, and nothing here knows SQL, Prefect, Dagster, FastAPI or Docker.
"""
