"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): files written in every
writable place of a sandbox (/workspace, /tmp, /dev/shm), read back after each step that keeps a
sandbox as the SDK takes it: suspend and resume, a checkpoint restored into a new sandbox, a
copy. Prints one JSON object of what the SDK saw; the test judges it.

Usage: python keep.py API_URL API_KEY
"""

import json
import sys

from tensorlake.sandbox import Sandbox

url, key = sys.argv[1], sys.argv[2]
PLACES = ("/workspace/kept.txt", "/tmp/kept.txt", "/dev/shm/kept.txt")
seen: dict[str, object] = {}
made: list[Sandbox] = []


def read_all(sandbox: Sandbox) -> list[str]:
    out = []
    for place in PLACES:
        try:
            out.append(sandbox.read_file(place).value.decode())
        except Exception as exc:  # noqa: BLE001 - the test reads what was missing
            out.append(f"missing: {type(exc).__name__}")
    return out


sandbox = Sandbox.create(api_url=url, api_key=key, name="sdk-keeps")
made.append(sandbox)
try:
    for place in PLACES:
        sandbox.write_file(place, place.encode())
    seen["written"] = read_all(sandbox)
    sandbox.suspend()
    sandbox.resume()
    seen["suspend_resume"] = read_all(sandbox)
    snap = sandbox.checkpoint()
    restored = Sandbox.create(api_url=url, api_key=key, snapshot_id=snap.snapshot_id)
    made.append(restored)
    seen["checkpoint_restored"] = read_all(restored)
    copies = sandbox.copy().value
    copy = Sandbox.connect(copies.sandboxes[0].sandbox_id, api_url=url, api_key=key)
    made.append(copy)
    seen["copy"] = read_all(copy)
finally:
    for sb in made:
        try:
            sb.terminate()
        except Exception:  # noqa: BLE001, S110 - cleanup
            pass
print(json.dumps(seen))
