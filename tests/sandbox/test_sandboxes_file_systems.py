"""File systems on the real Docker engine: made, mounted when a sandbox is created and while it
runs, kept through suspend and resume, snapshotted and pinned read-only, detached, and the rules
that refuse a bad mount before anything changes. Apart from test_sandboxes.py because a file
system outlives the sandboxes it is mounted in."""

from __future__ import annotations

import pytest

from sandbox_runtime.contract import RuntimeApiError
from tests.support.helpers import B
from tests.support.live_sandboxes import Live, wait_for

pytestmark = pytest.mark.docker


def test_file_systems_mount_at_creation_and_while_running(live: Live) -> None:
    r = live.http.post("/file-systems", json={"name": "shared"})
    assert r.status_code == 200 and r.json()["file_system_id"] == "shared"
    assert live.http.post("/file-systems", json={"name": "shared"}).status_code == 409
    assert live.http.post("/file-systems", json={"name": "Bad_Name"}).status_code == 400
    assert live.http.get("/file-systems/shared", headers=B).status_code == 404  # another tenant's
    assert "shared" in [f["name"] for f in live.http.get("/file-systems").json()["file_systems"]]

    # mounted at creation, kept across suspend and resume
    a = live.create(name="fs-user", file_systems=[{"file_system_id": "shared", "mount_path": "/mnt/shared"}])
    assert a["file_systems"] == [{"file_system_id": "shared", "mount_path": "/mnt/shared", "read_only": False,
                                  "snapshot_id": None, "status": "mounted", "error": None}]
    live.runtime(a).write_file("/mnt/shared/a.txt", b"on the file system")
    assert live.http.post("/sandboxes/fs-user/suspend?wait_ms=30000").json()["status"] == "suspended"
    assert live.http.post("/sandboxes/fs-user/resume?wait_ms=30000").json()["status"] == "running"
    a = live.get("fs-user")
    assert live.runtime(a).read_file("/mnt/shared/a.txt") == b"on the file system"
    unknown = live.http.post("/sandboxes", json={"file_systems": [{"file_system_id": "nope", "mount_path": "/x"}]})
    assert unknown.status_code == 400 and "does not exist" in unknown.text

    # attached to a running sandbox: 200 once recorded, mounted right after
    b = live.create()
    sid = b["sandbox_id"]
    r = live.http.post(f"/sandboxes/{sid}/file_systems", json={"file_system_id": "shared", "mount_path": "/mnt/data"})
    assert r.status_code == 200 and [m["mount_path"] for m in r.json()["file_systems"]] == ["/mnt/data"]
    rt = live.runtime(b)

    def readable() -> bool:
        try:
            return rt.read_file("/mnt/data/a.txt") == b"on the file system"
        except RuntimeApiError:
            return False

    wait_for("the attached file system shows in the sandbox", readable)
    assert live.get(sid)["file_systems"][0]["status"] == "mounted"
    # a permanent snapshot, pinned read-only
    snap = live.http.post("/file-systems/shared/snapshots").json()
    assert snap["status"] == "completed" and snap["size_bytes"] == len(b"on the file system")
    rt.write_file("/mnt/data/later.txt", b"after the snapshot")
    pin = {"file_system_id": "shared", "mount_path": "/mnt/pinned", "read_only": True, "snapshot_id": snap["snapshot_id"]}
    assert live.http.post(f"/sandboxes/{sid}/file_systems", json=pin).status_code == 200
    wait_for("the pinned snapshot shows", lambda: live.run(b, "ls /mnt/pinned")[1] == "a.txt")
    code, out = live.run(b, "echo x > /mnt/pinned/b.txt")
    assert code != 0 and "Read-only" in out

    # rule 3 and 4
    bad = [({**pin, "read_only": False, "mount_path": "/mnt/p2"}, 400), ({**pin, "mount_path": "relative"}, 400),
           ({"file_system_id": "shared", "mount_path": "/srv/data"}, 400),  # not under /mnt on a read-only root
           ({"file_system_id": "shared", "mount_path": "/mnt/data"}, 409)]
    for body, status in bad:
        r = live.http.post(f"/sandboxes/{sid}/file_systems", json=body)
        assert (r.status_code, r.headers["content-type"].split(";")[0]) == (status, "text/plain"), (body, r.text)
    r = live.http.request("DELETE", f"/sandboxes/{sid}/file_systems", json={"mount_path": "/nothing"})
    assert r.status_code == 404
    r = live.http.request("DELETE", f"/sandboxes/{sid}/file_systems", json={"mount_path": "/mnt/data"})
    assert r.status_code == 200 and [m["mount_path"] for m in r.json()["file_systems"]] == ["/mnt/pinned"]
    wait_for("the detached file system is gone", lambda: not readable())
    assert live.http.delete("/file-systems/shared").status_code == 409  # still mounted

    # a file system that does not exist is refused before anything changes: the sandbox runs on
    c = live.create()
    r = live.http.post(f"/sandboxes/{c['sandbox_id']}/file_systems",
                       json={"file_system_id": "ghost", "mount_path": "/mnt/ghost"})
    assert r.status_code == 400 and "does not exist" in r.text
    kept = live.http.get(f"/sandboxes/{c['sandbox_id']}").json()
    assert kept["status"] == "running" and kept["file_systems"] == []
    assert live.run(c, "echo alive")[1].strip() == "alive"

    for sb in (a, b, c):
        live.http.delete(f"/sandboxes/{sb['sandbox_id']}")
    assert live.http.delete("/file-systems/shared").status_code == 204
    assert live.http.get("/file-systems/shared").status_code == 404
