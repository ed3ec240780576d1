"""The Prefect side of a docklake install: the environment Prefect needs, and a managed local
Prefect server (``prefect server start``) run as a supervised child process."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import httpx

from pipelines.children import die_with_parent
from pipelines.settings import Settings


def prefect_env(settings: Settings) -> dict[str, str]:
    home = settings.data_dir / "prefect"
    return {
        "PREFECT_API_URL": settings.effective_prefect_api_url,
        "PREFECT_HOME": str(home),
        "PREFECT_SERVER_ANALYTICS_ENABLED": "false",
        "PREFECT_SERVER_UI_SHOW_PROMOTIONAL_CONTENT": "false",
        "PREFECT_API_DATABASE_CONNECTION_URL": f"sqlite+aiosqlite:///{home / 'prefect.db'}",
        "PREFECT_LOGGING_LEVEL": "WARNING",
        "PREFECT_LOGGING_TO_API_ENABLED": "false",
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
        self.proc: subprocess.Popen[bytes] | None = None
        self.log_path = settings.data_dir / "prefect-server.log"

    @property
    def api_url(self) -> str:
        return self.settings.effective_prefect_api_url

    def start(self, timeout_s: float = 120.0) -> None:
        if wait_healthy(self.api_url, 0.5):
            return  # one is already serving on that port (a previous docklake, or shared)
        Path(self.settings.data_dir / "prefect").mkdir(parents=True, exist_ok=True)
        env = {**os.environ, **prefect_env(self.settings)}
        env.pop("PREFECT_API_URL")
        cmd = [sys.executable, "-m", "prefect", "server", "start", "--host", "127.0.0.1",
               "--port", str(self.settings.prefect_port)]
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=die_with_parent)
        if not wait_healthy(self.api_url, timeout_s):
            self.stop()
            raise RuntimeError(f"the Prefect server did not become healthy; see {self.log_path}")

    def alive(self) -> bool:
        return self.proc is None or self.proc.poll() is None

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(15)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
