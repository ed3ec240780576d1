"""Sandboxes: lifecycle rules (fake backend and a real Docker engine), the runtime daemon, the image."""
