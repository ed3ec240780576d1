"""The Prefect and Dagster UIs in headless Chromium, as a person sees them."""
