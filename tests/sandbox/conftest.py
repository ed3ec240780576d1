"""The live API the tests/sandbox/test_sandboxes*.py modules share (``tests/support/live_sandboxes.py``):
one server per module, its sandboxes gone when the module is done. A module that needs other
settings (memory snapshots, the newest SDK) defines its own ``live``."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.services import Services
from tests.support.live_sandboxes import Live, serve, settings_for


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    settings = settings_for(tmp_path_factory.mktemp("sandboxes"))
    yield from serve(settings, Services.build(settings))
