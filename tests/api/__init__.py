"""The REST API through its ASGI app, on a real SQLite catalog and storage."""
