"""A ``DOCKLAKE_*`` variable that is not a setting stops the process instead of being ignored:
a renamed one names its new name, a misspelt one the closest setting; every real name passes."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from pydantic import BaseModel

from pipelines.core.setting_names import NOT_SETTINGS, RENAMED, UnknownSettingName
from pipelines.core.settings import Settings
from tests.support.helpers import free_port

ROOT = Path(__file__).resolve().parents[2]


def every_name(model: type[BaseModel] = Settings, prefix: str = "DOCKLAKE_") -> Iterator[str]:
    """Each field's variable, nested ones too, and each group's own name (it takes JSON whole)."""
    for name, field in model.model_fields.items():
        yield f"{prefix}{name.upper()}"
        ann = field.annotation
        if isinstance(ann, type) and issubclass(ann, BaseModel):
            yield from every_name(ann, f"{prefix}{name.upper()}__")


def test_a_renamed_flat_name_is_refused_naming_its_new_name(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKLAKE_PREFECT_PORT", "4999")
    with pytest.raises(UnknownSettingName) as caught:
        Settings()
    assert "DOCKLAKE_PREFECT_PORT" in str(caught.value) and "DOCKLAKE_PREFECT__PORT" in str(caught.value)
    assert isinstance(caught.value, ValueError)


@pytest.mark.parametrize("old", sorted(RENAMED))
def test_every_renamed_name_is_refused_and_points_at_a_real_setting(old: str, monkeypatch: pytest.MonkeyPatch) -> None:
    assert RENAMED[old] in set(every_name()) and old not in set(every_name())
    monkeypatch.setenv(old, "1")
    with pytest.raises(UnknownSettingName, match=RENAMED[old]):
        Settings()


def test_a_misspelt_name_is_refused_naming_the_closest(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKLAKE_WORKER__LEASE_SECS", "10")
    monkeypatch.setenv("DOCKLAKE_LIMTS__MAX_PAGES", "10")  # the group misspelt
    with pytest.raises(UnknownSettingName) as caught:
        Settings()
    message = str(caught.value)
    assert "DOCKLAKE_WORKER__LEASE_SECS" in message and "did you mean DOCKLAKE_WORKER__LEASE_S?" in message
    assert "DOCKLAKE_LIMTS__MAX_PAGES" in message and "did you mean DOCKLAKE_LIMITS__MAX_PAGES?" in message


@pytest.mark.parametrize("name", ["DOCKLAKE_DATA_DIR__X", "DOCKLAKE_WORKER___LEASE_S", "DOCKLAKE_NOPE",
                                  "docklake_prefect_port"])  # names are read in any case, so checked so
def test_other_names_no_setting_reads_are_refused(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(name, "1")
    with pytest.raises(UnknownSettingName, match=name):
        Settings()


def test_every_setting_name_is_accepted(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    parent = Settings(data_dir=tmp_path, worker={"lease_s": 7.5}, ocr={"tessdata_dir": tmp_path})
    env = parent.environment()  # every leaf setting, with a valid value
    names = set(every_name())
    leaves = {n for n in names if not any(m.startswith(f"{n}__") for m in names)}
    assert set(env) == leaves
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    assert Settings().worker.lease_s == 7.5
    for k in env:
        monkeypatch.delenv(k)
    # a group's own name takes it as JSON, beside its nested names; names in lower case are read too
    monkeypatch.setenv("DOCKLAKE_WORKER", '{"lease_s": 5, "count": 3}')
    monkeypatch.setenv("DOCKLAKE_WORKER__COUNT", "0")
    monkeypatch.setenv("docklake_limits__max_pages", "7")
    s = Settings()
    assert (s.worker.lease_s, s.worker.count, s.limits.max_pages) == (5, 0, 7)


def test_variables_of_other_tools_are_not_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """compose.yaml's own variables (DOCKLAKE_PORT, DOCKLAKE_WORKERS, …) and the sandbox daemon's token."""
    for name in ("DOCKLAKE_IMAGE", "DOCKLAKE_BASE_IMAGE", "DOCKLAKE_BUCKET", "DOCKLAKE_DELIVERY",
                 "DOCKLAKE_MAX_IN_FLIGHT", "DOCKLAKE_PORT", "DOCKLAKE_WORKERS", "DOCKLAKE_WORKER_MEMORY",
                 "DOCKLAKE_RUNTIME_TOKEN"):
        assert name in NOT_SETTINGS
        monkeypatch.setenv(name, "9")
    assert Settings().api.port == 8900


def test_keyword_arguments_are_not_checked(tmp_path: Path) -> None:
    """Tests (and the Dagster resource) build settings from arguments: only the environment is checked."""
    s = Settings(data_dir=tmp_path, prefect={"port": 4999}, not_a_setting=1)  # type: ignore[call-arg]
    assert s.prefect.port == 4999


def _listening(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def test_docklake_serve_with_a_renamed_name_stops_before_starting_anything(tmp_path: Path) -> None:
    api_port, prefect_port = free_port(), free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCKLAKE_", "PREFECT_"))}
    env.update(DOCKLAKE_DATA_DIR=str(tmp_path / "state"), DOCKLAKE_API__PORT=str(api_port),
               DOCKLAKE_WORKER__COUNT="0", DOCKLAKE_PREFECT_PORT=str(prefect_port))
    started = time.monotonic()
    proc = subprocess.Popen([sys.executable, "-m", "api.cli.main", "serve"], cwd=ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        pytest.fail("docklake serve did not stop on DOCKLAKE_PREFECT_PORT")
    assert proc.returncode == 2, (out, err)
    assert time.monotonic() - started < 30
    assert "DOCKLAKE_PREFECT_PORT" in err and "DOCKLAKE_PREFECT__PORT" in err and "Traceback" not in err
    assert not (tmp_path / "state").exists()  # no catalog, no key, no Prefect database
    assert not _listening(api_port) and not _listening(prefect_port)


def test_a_client_command_stops_on_a_misspelt_name_too() -> None:
    """``docklake jobs list`` builds no settings (it talks to a running docklake), yet a stale
    ``DOCKLAKE_*`` name in its environment stops it the same way, before any request."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("DOCKLAKE_", "PREFECT_"))}
    env.update(DOCKLAKE_WORKER__LEASE_SECS="5", TENSORLAKE_API_URL=f"http://127.0.0.1:{free_port()}")
    done = subprocess.run([sys.executable, "-m", "api.cli.main", "jobs", "list"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2, (done.stdout, done.stderr)
    assert "DOCKLAKE_WORKER__LEASE_SECS" in done.stderr and "DOCKLAKE_WORKER__LEASE_S" in done.stderr
    assert "Traceback" not in done.stderr
