"""Helpers for tests: document generators, the browser driver, PostgreSQL, shared constants."""
