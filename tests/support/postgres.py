"""A throwaway PostgreSQL cluster for the test session.

The fixture ``postgres_url`` runs ``initdb`` + ``pg_ctl`` from Debian's ``postgresql`` package
(``scripts/bootstrap.sh test`` installs it) in a temp dir: trust auth, 127.0.0.1 on a free port,
the unix socket inside the temp dir. As root the server runs as the ``postgres`` OS user (the
server refuses to run as root). Without the binaries the Postgres tests are skipped, unless ``CI``
is set: CI must run them, so there it is an error.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

DB_NAME = "docklake_test"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _unavailable(reason: str) -> None:
    if os.environ.get("CI"):
        pytest.fail(f"PostgreSQL tests must run in CI: {reason}", pytrace=False)
    pytest.skip(reason)


def find_pg_bin() -> Path | None:
    """The bin dir of the newest PostgreSQL under /usr/lib/postgresql with initdb and pg_ctl."""
    found = []
    for d in glob.glob("/usr/lib/postgresql/*/bin"):
        p = Path(d)
        if (p / "initdb").is_file() and (p / "pg_ctl").is_file():
            try:
                found.append((float(p.parent.name), p))
            except ValueError:
                found.append((0.0, p))
    return max(found)[1] if found else None


class Cluster:
    def __init__(self, bindir: Path) -> None:
        self.bindir = bindir
        self.as_postgres = os.geteuid() == 0
        self.root = Path(tempfile.mkdtemp(prefix="docklake-test-pg-"))
        self.data = self.root / "data"
        self.log = self.root / "server.log"
        self.port = 0
        if self.as_postgres:
            pw = pwd.getpwnam("postgres")
            os.chown(self.root, pw.pw_uid, pw.pw_gid)

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        cmd = [str(self.bindir / args[0]), *args[1:]]
        if self.as_postgres:
            cmd = ["runuser", "-u", "postgres", "--", *cmd]
        return subprocess.run(cmd, cwd=self.root, capture_output=True, text=True, timeout=120)

    def _check(self, res: subprocess.CompletedProcess[str], what: str) -> None:
        if res.returncode != 0:
            log = self.log.read_text(errors="replace")[-4000:] if self.log.exists() else ""
            raise RuntimeError(f"{what} failed ({res.returncode}):\n{res.stdout}\n{res.stderr}\n{log}")

    def start(self) -> None:
        self._check(self.run("initdb", "-D", str(self.data), "-U", "postgres", "-A", "trust",
                             "-E", "UTF8", "--no-locale", "--no-sync"), "initdb")
        for attempt in range(5):  # the free port may be taken between probing and binding
            self.port = _free_port()
            # fsync=off and full_page_writes=off only risk an operating-system crash; a commit is
            # still written out before it is acknowledged (synchronous_commit stays on), so
            # restart() loses no acknowledged commit, as on any real server
            opts = (f"-p {self.port} -k {self.root} -c listen_addresses=127.0.0.1 "
                    "-c fsync=off -c full_page_writes=off "
                    "-c max_connections=200")
            res = self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-o", opts,
                           "-w", "-t", "60", "start")
            if res.returncode == 0:
                return
            if attempt == 4:
                self._check(res, "pg_ctl start")

    def restart(self) -> None:
        """Stop the server as a crash would (``immediate``: recovery on start) and start it again
        on the same port."""
        self._check(self.run("pg_ctl", "-D", str(self.data), "-l", str(self.log), "-m", "immediate",
                             "-w", "-t", "60", "restart"), "pg_ctl restart")

    def stop(self) -> None:
        try:
            if self.data.exists():
                self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "-w", "stop")
        finally:
            shutil.rmtree(self.root, ignore_errors=True)

    def url(self, db: str) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{db}"


def admin_execute(url: str, *statements: str) -> None:
    """Run statements on an autocommit connection (CREATE/DROP DATABASE need one)."""
    import psycopg

    dsn = url.replace("postgresql+psycopg://", "postgresql://", 1)
    with psycopg.connect(dsn, autocommit=True) as conn:
        for s in statements:
            conn.execute(s)  # type: ignore[arg-type]


@pytest.fixture(scope="session")
def postgres_url() -> Iterator[str]:
    """``postgresql+psycopg://postgres@127.0.0.1:PORT/docklake_test`` on a fresh cluster."""
    bindir = find_pg_bin()
    if bindir is None:
        _unavailable("PostgreSQL server binaries (initdb, pg_ctl) not found under "
                     "/usr/lib/postgresql/*/bin; install the Debian package `postgresql` "
                     "(scripts/bootstrap.sh test does)")
    assert bindir is not None
    if os.geteuid() == 0:
        try:
            pwd.getpwnam("postgres")
        except KeyError:
            _unavailable("running as root but there is no `postgres` OS user to run the server")
        if shutil.which("runuser") is None:
            _unavailable("running as root but `runuser` is missing")
    cluster = Cluster(bindir)
    try:
        cluster.start()
        admin_execute(cluster.url("postgres"), f"CREATE DATABASE {DB_NAME}")
        RUNNING[cluster.port] = cluster
        yield cluster.url(DB_NAME)
    finally:
        RUNNING.pop(cluster.port, None)
        cluster.stop()


RUNNING: dict[int, Cluster] = {}  # the session's cluster by port, for tests that restart it


def restart_postgres(url: str) -> None:
    """Restart the cluster serving ``url`` (a ``postgres_url``), as an operator or a crash would."""
    from urllib.parse import urlsplit

    RUNNING[urlsplit(url.replace("postgresql+psycopg", "http")).port or 0].restart()
