"""Every ``DOCKLAKE_*`` variable is documented, read from the environment, and has its effect."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from PIL import Image

from api.app import create_app
from api.services import Services
from assets.catalog import keys as keys_repo
from assets.catalog.db import open_catalog
from pipelines.core.setting_names import documented_variables
from pipelines.core.settings import Settings
from pipelines.engine import isolation
from tests.support.docgen import image_bytes
from tests.support.helpers import A

ROOT = Path(__file__).resolve().parents[2]
VARIABLES = documented_variables()


def documented_table() -> dict[str, str]:
    """``DOCKLAKE_*`` names in the settings table of docs/configuration.md, with their default column."""
    text = (ROOT / "docs" / "configuration.md").read_text()
    table = text.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    found: dict[str, str] = {}
    for line in table.splitlines():
        m = re.match(r"\|\s*`(DOCKLAKE_[A-Z0-9_]+)`\s*\|\s*([^|]*)\|", line)
        if m:
            found[m.group(1)] = m.group(2).strip()
    return found


def test_the_docs_list_exactly_the_variables_there_are() -> None:
    documented = documented_table()
    assert set(documented) == set(VARIABLES), (
        f"missing from docs/configuration.md: {sorted(set(VARIABLES) - set(documented))}; "
        f"in docs/configuration.md but not a setting: {sorted(set(documented) - set(VARIABLES))}")


def _other_value(name: str, default: object, tmp_path: Path) -> tuple[str, object]:
    """A value for the variable that differs from its default, as text and as parsed."""
    if isinstance(default, bool):
        return str(not default).lower(), not default
    if isinstance(default, int):
        return str(default + 7), default + 7
    if isinstance(default, float):
        return str(default + 1.5), default + 1.5
    if isinstance(default, list):  # JSON
        return '["s3://elsewhere/", "/srv/scans"]', ["s3://elsewhere/", "/srv/scans"]
    if name.endswith(("_DIR", "TESSDATA_DIR")):
        return str(tmp_path / "elsewhere"), (tmp_path / "elsewhere").resolve()
    if name == "DOCKLAKE_API_KEYS":
        return "tok=org/proj", "tok=org/proj"
    if name == "DOCKLAKE_STORAGE__URL":
        return "memory://elsewhere", "memory://elsewhere"
    if name == "DOCKLAKE_STORAGE__CATALOG_URL":
        return f"sqlite:///{tmp_path}/other.db", f"sqlite:///{tmp_path}/other.db"
    if name == "DOCKLAKE_WORKER__DELIVERY":
        return "prefect", "prefect"
    if name == "DOCKLAKE_PREFECT__API_URL":
        return "http://prefect.internal:4200/api", "http://prefect.internal:4200/api"
    return "WARNING", "WARNING"


@pytest.mark.parametrize("name", sorted(VARIABLES))
def test_each_variable_is_read_from_the_environment(name: str, tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    default, _ = VARIABLES[name]
    raw, expected = _other_value(name, default, tmp_path)
    monkeypatch.setenv(name, raw)
    s = Settings()
    group, _, field = name.removeprefix("DOCKLAKE_").lower().partition("__")
    value = getattr(getattr(s, group), field) if field else getattr(s, group)
    if isinstance(value, Path):
        value = value.resolve()
    assert value == expected, f"{name}={raw} gave {value!r}"


def test_settings_survive_the_trip_to_a_child_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``docklake serve`` hands its workers every setting, command-line overrides included."""
    parent = Settings(data_dir=tmp_path, worker={"lease_s": 7.5, "count": 0}, limits={"allow_private_urls": True},
                      ocr={"tessdata_dir": tmp_path}, ingest={"roots": ["s3://inbox/", str(tmp_path)]})
    parent.api.port = 9123  # as `--port` does
    for k, v in parent.environment().items():
        monkeypatch.setenv(k, v)
    child = Settings()
    # the children talk to the parent's Prefect server rather than start one of their own
    assert child.prefect.api_url == "http://127.0.0.1:4200/api" and not child.managed_prefect
    child.prefect.api_url = ""
    assert child == parent


def test_an_unknown_nested_variable_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKLAKE_WORKER__LEASE", "5")  # a typo of LEASE_S must not pass silently
    with pytest.raises(ValueError, match="lease"):
        Settings()


# ------------------------------------------------------------------ the settings take effect


def test_auth_cache_s_bounds_how_long_a_revoked_key_still_works(services: Services) -> None:
    token = keys_repo.create_key(services.engine, "org-c", "proj-c")
    h = {"Authorization": f"Bearer {token}"}
    with TestClient(create_app(services=services)) as c:
        services.settings.api.auth_cache_s = 3600.0
        assert c.get("/documents/v2/files", headers=h).status_code == 200
        keys_repo.revoke(services.engine, token)
        assert c.get("/documents/v2/files", headers=h).status_code == 200  # still cached
        services._auth_cache.clear()
        services.settings.api.auth_cache_s = 0.0
        assert c.get("/documents/v2/files", headers=A).status_code == 200
        other = keys_repo.create_key(services.engine, "org-c", "proj-c")
        oh = {"Authorization": f"Bearer {other}"}
        assert c.get("/documents/v2/files", headers=oh).status_code == 200
        keys_repo.revoke(services.engine, other)
        assert c.get("/documents/v2/files", headers=oh).status_code == 401  # no cache: refused at once


def _span(seconds: float) -> tuple[float, float]:
    start = time.time()
    time.sleep(seconds)
    return start, time.time()


def _spans(n: int) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    threads = [threading.Thread(target=lambda: out.append(
        isolation.run_isolated(_span, 0.6, timeout_s=30, memory_mb=0))) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sorted(out)


def test_max_children_bounds_the_conversions_running_at_once() -> None:
    try:
        isolation.configure(1)
        one = _spans(2)
        assert one[0][1] <= one[1][0], "with one slot the second child starts after the first ends"
        isolation.configure(2)
        two = _spans(2)
        assert two[1][0] < two[0][1], "with two slots both children run at once"
    finally:
        isolation.configure(0)


def _png_job(client: TestClient, size: int) -> str:
    img = Image.new("RGB", (size, size), "white")
    fid = client.put("/documents/v2/files", files={"file": ("page.png", image_bytes(img))},
                     headers=A).json()["file_id"]
    return client.post("/documents/v2/parse", json={"file_id": fid}, headers=A).json()["parse_id"]


def test_max_page_pixels_refuses_larger_images(client: TestClient, services: Services, run_jobs) -> None:
    services.settings.limits.max_page_pixels = 250_000
    big, small = _png_job(client, 600), _png_job(client, 400)
    run_jobs()
    bad = client.get(f"/documents/v2/parse/{big}", headers=A).json()
    assert bad["status"] == "failure"
    assert "0.25 MP" in bad["error"] and "DOCKLAKE_LIMITS__MAX_PAGE_PIXELS" in bad["error"]
    assert client.get(f"/documents/v2/parse/{small}", headers=A).json()["status"] == "successful"


def test_tessdata_dir_is_where_ocr_reads_its_language_data(client: TestClient, services: Services,
                                                           run_jobs, tmp_path: Path) -> None:
    services.settings.ocr.tessdata_dir = tmp_path / "no-tessdata"
    pid = _png_job(client, 300)
    run_jobs()
    res = client.get(f"/documents/v2/parse/{pid}", headers=A).json()
    assert res["status"] == "failure"
    assert str(tmp_path / "no-tessdata") in res["error"] and "DOCKLAKE_OCR__TESSDATA_DIR" in res["error"]


@pytest.mark.postgres
def test_catalog_pool_sizes_apply_to_postgres(postgres_url: str) -> None:
    s = Settings(storage={"catalog_url": postgres_url, "catalog_pool_size": 3, "catalog_max_overflow": 4})
    engine = open_catalog(s.storage, migrated=False)
    try:
        assert (engine.pool.size(), engine.pool._max_overflow) == (3, 4)  # type: ignore[attr-defined]
    finally:
        engine.dispose()


def test_the_prefect_ui_is_told_its_own_api_address(prefect_api: str) -> None:
    """The managed server runs on a random port in the tests: its UI must not look for :4200."""
    import httpx

    ui = httpx.get(prefect_api.removesuffix("/api") + "/ui-settings", timeout=10).json()
    assert ui["api_url"] == prefect_api


def test_a_public_prefect_address_reaches_the_ui(tmp_path: Path) -> None:
    from pipelines.flows.prefect_server import ManagedPrefectServer

    s = Settings(data_dir=tmp_path, prefect={"port": 4311, "host": "0.0.0.0",
                                             "public_url": "https://ops.example.org/prefect/"})
    assert s.prefect_ui_url == "https://ops.example.org/prefect"
    assert s.effective_prefect_api_url == "http://127.0.0.1:4311/api"  # docklake's own processes
    env = ManagedPrefectServer(s).child.env
    assert env["PREFECT_UI_API_URL"] == "https://ops.example.org/prefect/api"
    assert ManagedPrefectServer(s).child.cmd[-4:] == ["--host", "0.0.0.0", "--port", "4311"]
