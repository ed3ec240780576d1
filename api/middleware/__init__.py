"""ASGI middleware of the API: request ids and access logs (``logging``), Prometheus metrics
(``metrics``) and the cap on request bodies (``limits``)."""
