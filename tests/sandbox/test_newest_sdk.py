"""Sandboxes driven by the newest Tensorlake SDK (``tests/newest-sdk.txt``), the one with live
resize, PTY sessions and tunnels, beside the pinned one that tests/sandbox/test_sandboxes.py
drives. The newest SDK has no Document AI, so it lives in an environment of its own
(``.venv-sdk``, made by ``scripts/bootstrap.sh test``); each test runs a script of
``newest_sdk/`` there against a live API and judges the JSON it prints.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.services import Services
from tests.support.helpers import KEY_A
from tests.support.live_sandboxes import Live, serve, settings_for

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
PYTHON = ROOT / ".venv-sdk" / "bin" / "python"


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Live]:
    settings = settings_for(tmp_path_factory.mktemp("newest-sdk"))
    yield from serve(settings, Services.build(settings))


def sdk(live: Live, script: str, *args: str, timeout: float = 300) -> dict:
    """What ``newest_sdk/<script>`` printed, run by the newest SDK against ``live``."""
    assert PYTHON.exists(), "no .venv-sdk: `bash scripts/bootstrap.sh test` makes it"
    done = subprocess.run([str(PYTHON), str(Path(__file__).parent / "newest_sdk" / script), live.url, KEY_A, *args],
                          capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_the_newest_sdk_resizes_a_running_sandbox(live: Live) -> None:
    seen = sdk(live, "resize.py", str((os.cpu_count() or 1) + 1))
    assert seen["waited"]["resize"]["status"] == "succeeded" and seen["waited"]["resize"]["generation"] == 1
    assert (seen["waited"]["resources"]["cpus"], seen["waited"]["resources"]["memory_mb"]) == (2.0, 1536)
    assert seen["second"]["generation"] == 2 and seen["second"]["resources"]["memory_mb"] == 1024
    assert "400" in seen["refused"]["too_many_cpus"] and "this host has" in seen["refused"]["too_many_cpus"]
    assert "only grow" in seen["refused"]["smaller_disk"]
    assert (seen["after"]["cpus"], seen["after"]["memory_mb"]) == (2.0, 1024)


def test_the_newest_sdk_reads_a_sandboxs_logs_through_a_suspend(live: Live) -> None:
    seen = sdk(live, "logs.py")
    first = ["first", "last", "warned"]  # stdout and stderr lines of one millisecond may swap
    assert sorted(seen["tail"][:3]) == first and seen["tail"][3:] == ["tick 1", "tick 2", "tick 3"]
    assert seen["last_two"] == ["tick 2", "tick 3"]
    assert seen["errors"] == ["warned"] and seen["levels"] == [3, 5]  # stdout info, stderr error
    assert [(p["pid"], p["count"]) for p in seen["processes"]][1] == (str(seen["ticker_pid"]), 3)
    assert seen["processes"][0]["command"] == "sh -c echo first; echo warned >&2; echo last"
    assert seen["ticker_only"] == ["tick 1", "tick 2", "tick 3"]
    assert sorted(seen["suspended"]) == sorted(seen["tail"])  # the container went, the lines stayed
    assert seen["resumed"][-1] == "resumed" and len(seen["resumed"]) == 7
    assert seen["unknown"].startswith("SandboxNotFoundError")


def test_the_newest_sdk_runs_a_managed_process_that_comes_back(live: Live) -> None:
    seen = sdk(live, "managed.py")
    started, crashed, restarted, killed = seen["started"], seen["after_crash"], seen["restarted"], seen["killed"]
    assert started["id"] == "svc" and started["restart"]["policy"] == "always" and started["restart_count"] == 0
    assert crashed["pid"] != started["pid"] and crashed["status"] == "running" and crashed["restart_count"] == 1
    assert crashed["last_exit"]["signal"] == 9
    assert restarted["pid"] not in (started["pid"], crashed["pid"]) and restarted["restart_count"] == 2
    assert killed["pid"] == restarted["pid"] and killed["status"] == "stopped"  # killed through the API: stays down


def test_the_newest_sdk_drives_two_pty_sessions_through_the_proxy(live: Live) -> None:
    seen = sdk(live, "pty.py")
    assert (seen["first_exit"], seen["second_exit"]) == (7, 3)
    assert seen["sizes"] == ["30 100", "43 132"]  # created at 30x100, resized to 43x132
    assert seen["first_saw"] and seen["second_saw"]  # each session its own terminal
    assert len(seen["echo_ms"]) == 10 and max(seen["echo_ms"]) < 5000


def test_the_newest_sdk_fetches_a_large_file_through_a_tunnel_on_two_connections(live: Live) -> None:
    seen = sdk(live, "tunnel.py", str(64 << 20))
    assert [f["bytes"] for f in seen["fetches"]] == [64 << 20, 64 << 20]
    assert all(f["sha256"] == seen["want"] for f in seen["fetches"])
    assert seen["after_close"] in ("URLError", "ConnectionRefusedError")  # the listener is gone


def test_the_newest_sdk_finds_every_written_file_after_each_step_that_keeps_a_sandbox(live: Live) -> None:
    seen = sdk(live, "keep.py")
    places = ["/workspace/kept.txt", "/tmp/kept.txt", "/dev/shm/kept.txt"]
    for step in ("written", "suspend_resume", "checkpoint_restored", "copy"):
        assert seen[step] == places, (step, seen[step])
