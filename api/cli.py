"""The ``docklake`` command: ``serve``, ``worker`` and ``keys create``."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from pipelines.children import die_with_parent
from pipelines.settings import Settings

app = typer.Typer(help="docklake: self-hosted document ingestion and sandboxes.", no_args_is_help=True)
keys_app = typer.Typer(help="Manage API keys.", no_args_is_help=True)
app.add_typer(keys_app, name="keys")
console = Console(stderr=True)

DataDir = Annotated[Path | None, typer.Option("--data-dir", help="State directory (DOCKLAKE_DATA_DIR).")]


def _settings(data_dir: Path | None, **overrides: object) -> Settings:
    values = {k: v for k, v in overrides.items() if v is not None}
    if data_dir is not None:
        values["data_dir"] = data_dir
    return Settings(**values)  # type: ignore[arg-type]


def _child_env(settings: Settings) -> dict[str, str]:
    from pipelines.prefect_server import prefect_env

    env = {**os.environ, **prefect_env(settings)}
    env.update({
        "DOCKLAKE_DATA_DIR": str(settings.data_dir),
        "DOCKLAKE_STORAGE_URL": settings.storage_url,
        "DOCKLAKE_CATALOG_URL": settings.catalog_url,
        "DOCKLAKE_PREFECT_API_URL": settings.effective_prefect_api_url,
    })
    return env


def _ensure_first_key(settings: Settings) -> None:
    from assets import keys as keys_repo
    from assets.catalog import make_engine, migrate

    engine = make_engine(settings.catalog_url)
    migrate(engine)
    keys_repo.sync_configured(engine, settings.configured_keys)
    if keys_repo.count_keys(engine) == 0:
        token = keys_repo.create_key(engine, "default", "default")
        console.print(f"[bold green]API key[/] (organization 'default', project 'default'; shown once, "
                      f"only its hash is stored):\n{token}")
        (settings.data_dir / "FIRST_API_KEY_SHOWN").touch()
    engine.dispose()


class Child:
    """A supervised child process, restarted if it dies."""

    def __init__(self, name: str, cmd: list[str], env: dict[str, str], log_path: Path) -> None:
        self.name, self.cmd, self.env, self.log_path = name, cmd, env, log_path
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        with open(self.log_path, "ab") as log:  # the child keeps its own copy of the descriptor
            self.proc = subprocess.Popen(self.cmd, env=self.env, stdout=log, stderr=subprocess.STDOUT,
                                         start_new_session=True, preexec_fn=die_with_parent)

    def check(self) -> None:
        if self.proc is not None and self.proc.poll() is not None:
            console.print(f"[yellow]{self.name} exited ({self.proc.returncode}); restarting[/]")
            self.start()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


@app.command()
def serve(
    host: Annotated[str | None, typer.Option(help="Bind address (DOCKLAKE_HOST).")] = None,
    port: Annotated[int | None, typer.Option(help="API port (DOCKLAKE_PORT).")] = None,
    data_dir: DataDir = None,
    workers: Annotated[int | None, typer.Option(help="Worker processes (DOCKLAKE_WORKERS).")] = None,
) -> None:
    """Run the API, the job workers and (unless DOCKLAKE_PREFECT_API_URL is set) a Prefect server."""
    import uvicorn

    from api.app import create_app
    from api.logging import configure_logging
    from pipelines.prefect_server import ManagedPrefectServer

    settings = _settings(data_dir, host=host, port=port, workers=workers)
    settings.data_dir.mkdir(parents=True, exist_ok=True)
    configure_logging(settings.log_level, settings.log_json)
    _ensure_first_key(settings)

    prefect = None
    if settings.managed_prefect:
        console.print(f"starting the Prefect server on {settings.effective_prefect_api_url} …")
        prefect = ManagedPrefectServer(settings)
        prefect.start()
    env = _child_env(settings)
    children = [
        Child(f"worker-{i}", [sys.executable, "-m", "api.cli", "worker"], env,
              settings.data_dir / f"worker-{i}.log")
        for i in range(max(1, settings.workers))
    ]
    for c in children:
        c.start()

    stop = threading.Event()

    def supervise() -> None:
        while not stop.wait(2.0):
            for c in children:
                c.check()
            if prefect is not None and not prefect.alive():
                console.print("[yellow]the Prefect server exited; restarting[/]")
                prefect.start()

    threading.Thread(target=supervise, daemon=True).start()
    def on_term(signum: int, _frame: object) -> None:
        # uvicorn re-raises the signal it caught once it has shut down; ending here (instead of
        # dying by the signal) lets the finally below stop the workers and the Prefect server.
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, on_term)
    base = f"http://{settings.host}:{settings.port}"
    console.print(f"[bold]docklake[/] API on {base}  (docs {base}/docs)")
    if settings.managed_prefect:
        console.print(f"Prefect UI on {settings.effective_prefect_api_url.removesuffix('/api')}")
    try:
        uvicorn.run(create_app(settings), host=settings.host, port=settings.port, log_config=None,
                    access_log=False)
    finally:
        stop.set()
        for c in children:
            c.stop()
        if prefect is not None:
            prefect.stop()


@app.command()
def worker(data_dir: DataDir = None) -> None:
    """Claim pending jobs and run them as Prefect flow runs (DOCKLAKE_PREFECT_API_URL)."""
    settings = _settings(data_dir)
    from pipelines import isolation
    from pipelines.prefect_server import prefect_env

    isolation.start()  # the fork server for document children, before any thread exists

    # Prefect reads its settings when first imported: this is the composition root.
    for k, v in prefect_env(settings).items():
        os.environ.setdefault(k, v)
    from api.logging import configure_logging

    configure_logging(settings.log_level, settings.log_json)
    from pipelines.dispatcher import Dispatcher
    from pipelines.runtime import Runtime, install

    rt = Runtime.build(settings)
    install(rt)
    dispatcher = Dispatcher(rt)

    async def main() -> None:
        loop = asyncio.get_running_loop()
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.add_signal_handler(sig, dispatcher.stop)
        await dispatcher.run_forever()

    asyncio.run(main())


@keys_app.command("create")
def keys_create(
    org: Annotated[str, typer.Option("--org", help="Organization id.")],
    project: Annotated[str, typer.Option("--project", help="Project id.")],
    data_dir: DataDir = None,
) -> None:
    """Create an API key for ORG/PROJECT and print it (only its hash is stored)."""
    from assets import keys as keys_repo
    from assets.catalog import make_engine, migrate

    settings = _settings(data_dir)
    engine = make_engine(settings.catalog_url)
    migrate(engine)
    print(keys_repo.create_key(engine, org, project))


@keys_app.command("revoke")
def keys_revoke(
    token: Annotated[str, typer.Argument(help="The API key to revoke.")],
    data_dir: DataDir = None,
) -> None:
    """Revoke an API key (a running service stops accepting it within 30 s)."""
    from assets import keys as keys_repo
    from assets.catalog import make_engine, migrate

    settings = _settings(data_dir)
    engine = make_engine(settings.catalog_url)
    migrate(engine)
    if not keys_repo.revoke(engine, token):
        console.print("[red]no such key[/]")
        raise typer.Exit(1)
    console.print("revoked")


def main() -> None:
    app()


if __name__ == "__main__":
    main()
