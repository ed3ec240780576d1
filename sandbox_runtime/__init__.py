"""The in-sandbox runtime daemon (defined once here; imports nothing else from the repo)."""
