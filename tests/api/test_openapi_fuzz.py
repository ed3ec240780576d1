"""Schemathesis against docklake's own OpenAPI document: no input makes a 5xx, and every response
matches what the document declares (status code, content type, body schema)."""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
    unsupported_method,
)

from api.app import create_app
from api.services import Services
from pipelines.core.settings import Settings
from tests.support.helpers import API_KEYS, A, no_docker_engine, remove_sandboxes_of

# Built when the module is collected: schemathesis makes one test per operation from the schema.
_DATA = Path(tempfile.mkdtemp(prefix="docklake-fuzz-"))
atexit.register(shutil.rmtree, _DATA, True)
# the session's Prefect server (tests/conftest.py starts it; /readyz checks it)
SERVICES = Services.build(Settings(data_dir=_DATA, api_keys=API_KEYS, prefect={"api_url": os.environ["PREFECT_API_URL"]}))
schema = schemathesis.openapi.from_asgi("/openapi.json", create_app(services=SERVICES))
# schema-valid and schema-invalid input both (invalid input is where server errors hide); NUL
# bytes too; a fixed seed so a failure reproduces
schema.config.generation.update(modes=[GenerationMode.POSITIVE, GenerationMode.NEGATIVE], allow_x00=True,
                                deterministic=True)


@pytest.fixture(scope="module", autouse=True)
def _remove_sandboxes() -> Iterator[None]:
    """The sandboxes the fuzzer creates are real containers: removed when the module is done."""
    yield
    SERVICES.close()
    if not no_docker_engine():
        remove_sandboxes_of(SERVICES.sandboxes.containers.owner)


# What this test holds the API to. Not "schema-valid input is accepted": a forged cursor or an
# unknown file id is schema-valid and rightly refused (tests/api/test_hostile_input.py covers those).
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_headers_conformance,
          response_schema_conformance, unsupported_method]


@schema.parametrize()
@settings(max_examples=30, deadline=None, suppress_health_check=list(HealthCheck))
def test_no_input_makes_a_server_error_or_breaks_the_documented_shape(case: schemathesis.Case,
                                                                      prefect_api: str) -> None:
    if case.operation.tags and {"sandboxes", "file systems"} & set(case.operation.tags) and \
            (reason := no_docker_engine()):
        pytest.skip(f"sandbox routes need a Docker engine: {reason}")
    # a copy: the call adds its client's default headers to the dict it is given, and A is shared
    # by the whole suite (with a second Connection header in it, a WebSocket upgrade is refused)
    case.call_and_validate(headers=dict(A), checks=CHECKS)
