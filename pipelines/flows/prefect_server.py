"""The Prefect side of a docklake install: the environment Prefect needs, and a managed local
Prefect server (``prefect server start``) run as a supervised child process."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import httpx

from pipelines.core.children import Supervised
from pipelines.core.settings import Settings


def prefect_env(settings: Settings) -> dict[str, str]:
    """The ``PREFECT_*`` variables every docklake process that talks to Prefect runs with."""
    home = settings.data_dir / "prefect"
    return {
        "PREFECT_API_URL": settings.effective_prefect_api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_SHOW_PROMOTIONAL_CONTENT": "false",
        "PREFECT_API_DATABASE_CONNECTION_URL": settings.prefect.database_url or f"sqlite+aiosqlite:///{home / 'prefect.db'}",
        # each job's log lines go to the Prefect API (its task run's Logs tab); the console
        # shows only warnings, docklake's own log says the rest
        "PREFECT_LOGGING_LEVEL": "INFO",
        "PREFECT_LOGGING_TO_API_ENABLED": "true",
        "PREFECT_LOGGING_HANDLERS_CONSOLE_LEVEL": "WARNING",
        # delivered task runs have no flow run: docklake sends their job's lines itself
        "PREFECT_LOGGING_TO_API_WHEN_MISSING_FLOW": "ignore",
    }


SERVER_TUNING = {
    # Prefect's task-run recorder writes each task-run event on its own by default (batch size
    # 1): with one task run per document that was two thirds of the server's CPU, 44 ms per
    # trivial task run against 16 ms when it writes up to 100 at once. A task run then shows up
    # in the UI and API up to a second after its state changed (the flush interval; Prefect
    # rounds it down to whole seconds, and 0 would spin).
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_BATCH_SIZE": "100",
    "PREFECT_SERVER_SERVICES_TASK_RUN_RECORDER_FLUSH_INTERVAL": "1",
}


def wait_healthy(api_url: str, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            if httpx.get(api_url.rstrip("/") + "/health", timeout=2).status_code == 200:
                return True
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    return False


class ManagedPrefectServer:
    """``prefect server start`` on 127.0.0.1 with its database under the data dir."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        env = {**os.environ, **prefect_env(settings)}
        env.pop("PREFECT_API_URL")
        # the UI asks /ui-settings where its API is: this server, on its own port (Prefect would
        # say the default port), or the public address a proxy gives it
        env["PREFECT_UI_API_URL"] = settings.prefect_ui_url + "/api"
        env["PREFECT_UI_URL"] = settings.prefect_ui_url
        env.update(SERVER_TUNING)
        cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", settings.prefect.host,
               "--port", str(settings.prefect.port)]
        self.child = Supervised("prefect-server", cmd, env, settings.data_dir / "prefect-server.log",
                                grace_s=15.0)

    @property
    def api_url(self) -> str:
        return self.settings.effective_prefect_api_url

    @property
    def log_path(self) -> Path:
        return self.child.log_path

    def start(self, timeout_s: float = 120.0) -> None:
        if wait_healthy(self.api_url, 0.5):
            return  # one is already serving on that port (a previous docklake, or shared)
        Path(self.settings.data_dir / "prefect").mkdir(parents=True, exist_ok=True)
        self.child.start()
        if not wait_healthy(self.api_url, timeout_s):
            self.stop()
            raise RuntimeError(f"the Prefect server did not become healthy; see {self.log_path}")

    def alive(self) -> bool:
        return self.child.proc is None or self.child.alive()

    def stop(self) -> None:
        self.child.stop()
