"""Prometheus metrics of the API process."""

from __future__ import annotations

from prometheus_client import CONTENT_TYPE_LATEST, Counter, Histogram, generate_latest

HTTP_REQUESTS = Counter("docklake_http_requests_total", "HTTP requests", ["method", "route", "status"])
HTTP_LATENCY = Histogram("docklake_http_request_seconds", "HTTP request latency", ["method", "route"],
                         buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10))
JOBS_SUBMITTED = Counter("docklake_jobs_submitted_total", "Document jobs submitted", ["kind"])


def render() -> tuple[bytes, str]:
    return generate_latest(), CONTENT_TYPE_LATEST
