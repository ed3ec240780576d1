"""Document stages: plain functions over ``DocumentResult``.

No module in this package imports Prefect, Dagster or FastAPI (checked by import-linter); flows
and assets only wire these functions together.
"""
