"""The sandbox base image that scripts/bootstrap.sh builds (scripts/build-sandbox-image.sh), run
on the real Docker engine with the hardening sandboxes get."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import docker
import pytest
from docker.errors import DockerException, ImageNotFound

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "build-sandbox-image.sh"
# The tag is defined once, at the top of the build script.
IMAGE = re.search(r'^image="([^"]+)"$', SCRIPT.read_text(), re.M).group(1)  # type: ignore[union-attr]
LABELS = {"docklake.test": "1"}
HARDENED = {
    "cap_drop": ["ALL"],
    "security_opt": ["no-new-privileges"],
    "network_mode": "none",
    "read_only": True,
    "tmpfs": {"/tmp": "size=16m", "/workspace": "size=16m,uid=1000,gid=1000,mode=0755"},
    "pids_limit": 64,
    "mem_limit": "128m",
}


def _client() -> docker.DockerClient | None:
    try:
        c = docker.from_env(timeout=60)
        c.ping()
        return c
    except DockerException:
        return None


CLIENT = _client()
pytestmark = pytest.mark.docker  # skipped where no engine answers (tests/conftest.py)

Run = Callable[..., tuple[int, str]]


@pytest.fixture
def run() -> Iterator[Run]:
    """Runs a command in a new container of the image (hardened unless told otherwise); returns
    its exit code and output. Every container is labelled docklake.test=1 and removed."""
    assert CLIENT is not None
    created = []

    def go(command: list[str], hardened: bool = True, **options: object) -> tuple[int, str]:
        kwargs = {**(HARDENED if hardened else {}), **options}
        c = CLIENT.containers.run(IMAGE, command, detach=True, labels=LABELS, **kwargs)
        created.append(c)
        code = c.wait(timeout=60)["StatusCode"]
        return code, c.logs(stdout=True, stderr=True).decode()

    try:
        yield go
    finally:
        for c in created:
            c.remove(force=True)


def test_image_exists_after_bootstrap() -> None:
    assert CLIENT is not None
    try:
        image = CLIENT.images.get(IMAGE)
    except ImageNotFound:
        pytest.fail(f"{IMAGE} is missing: scripts/bootstrap.sh builds it (scripts/build-sandbox-image.sh)")
    assert image.labels.get("docklake.image") == "base"
    assert image.attrs["Config"]["WorkingDir"] == "/workspace"


def test_python_runs_hardened(run: Run) -> None:
    code, out = run(["python3", "-c", "import ssl, sqlite3, asyncio, subprocess, json, http.server, sys; "
                     "ssl.create_default_context(); print('ok', sys.version_info[:2])"])
    assert (code, out.strip()) == (0, "ok (3, 11)")


def test_no_capabilities_and_only_loopback(run: Run) -> None:
    code, out = run(["sh", "-c", "grep CapEff /proc/self/status; ls /sys/class/net"])
    assert code == 0, out
    lines = out.split()
    assert lines[:2] == ["CapEff:", "0000000000000000"]
    assert lines[2:] == ["lo"]


def test_seccomp_filter_when_the_engine_has_it(run: Run) -> None:
    assert CLIENT is not None
    options = CLIENT.info().get("SecurityOptions") or []
    if not any("seccomp" in o for o in options):
        pytest.skip(f"the engine reports no seccomp support (SecurityOptions {options})")
    code, out = run(["grep", "Seccomp:", "/proc/self/status"])
    assert (code, out.split()) == (0, ["Seccomp:", "2"])  # 2 = filter mode


def test_root_is_read_only_tmp_and_workspace_are_writable(run: Run) -> None:
    # As user 1000, who owns /workspace: root without CAP_DAC_OVERRIDE (cap_drop ALL) could not
    # write a directory of 1000's with mode 0755.
    code, out = run(["sh", "-c", "touch /x || echo root-ro; touch /usr/x || echo usr-ro; "
                     "echo a > /tmp/a && cat /tmp/a; echo b > /workspace/b && cat /workspace/b"],
                    user="1000:1000")
    assert code == 0, out
    assert "Read-only file system" in out
    assert [ln for ln in out.splitlines() if "Read-only" not in ln] == ["root-ro", "usr-ro", "a", "b"]


def test_unprivileged_user_and_shell_tools(run: Run) -> None:
    code, out = run(["sh", "-c", "id; cd /workspace && echo hi > f && wc -c < f && ls / | head -3"],
                    user="1000:1000")
    assert code == 0, out
    lines = out.splitlines()
    assert lines[0] == "uid=1000(user) gid=1000(user) groups=1000(user)"
    assert lines[1].strip() == "3"
    assert lines[2:] == ["bin", "dev", "etc"]


def test_module_from_a_read_only_bind_mount(run: Run, tmp_path: Path) -> None:
    """How the runtime daemon gets in: a package directory mounted read-only, on PYTHONPATH."""
    tmp_path.chmod(0o755)  # pytest makes it 0700; the container runs as user 1000
    pkg = tmp_path / "probe_pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "__main__.py").write_text(
        "import os, sys\n"
        "print('probe', os.getcwd(), sys.argv[1:])\n"
        "try:\n"
        "    open(os.path.join(os.path.dirname(__file__), 'w'), 'w')\n"
        "except OSError as e:\n"
        "    print('ro', e.errno)\n")
    code, out = run(["python3", "-m", "probe_pkg", "x"], user="1000:1000",
                    volumes={str(tmp_path): {"bind": "/opt/docklake", "mode": "ro"}},
                    environment={"PYTHONPATH": "/opt/docklake", "PYTHONDONTWRITEBYTECODE": "1"})
    assert code == 0, out
    assert out.splitlines() == ["probe /workspace ['x']", "ro 30"]  # EROFS


def test_runs_without_hardening_too(run: Run) -> None:
    code, out = run(["sh", "-c", "id -u; python3 -c 'print(1)'"], hardened=False, network_mode="none")
    assert (code, out.split()) == (0, ["0", "1"])
