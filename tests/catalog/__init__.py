"""The SQL catalog, the object store, PostgreSQL and the Dagster definitions."""
