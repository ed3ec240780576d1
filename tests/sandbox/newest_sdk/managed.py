"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): a managed process
with a restart policy, brought back after a crash and restarted on request. Prints one JSON
object of what the SDK saw; the test judges it.

Usage: python managed.py API_URL API_KEY
"""

import json
import sys
import time

from tensorlake.sandbox import Sandbox
from tensorlake.sandbox.models import RestartPolicy, RestartPolicyConfig

url, key = sys.argv[1], sys.argv[2]
seen: dict[str, object] = {}
sandbox = Sandbox.create(api_url=url, api_key=key)


def managed(ref: object) -> dict:
    info = sandbox.get_process(ref).value
    return {"pid": info.pid, "status": info.status.value, **info.managed.model_dump(mode="json")}


try:
    started = sandbox.start_process("sleep", ["300"], name="svc", restart=RestartPolicyConfig(
        policy=RestartPolicy.ALWAYS, max_restarts=5, initial_backoff_ms=50)).value
    seen["started"] = {"pid": started.pid, **started.managed.model_dump(mode="json")}
    sandbox.send_signal("svc", 9)
    deadline = time.monotonic() + 20
    while (now := managed("svc"))["pid"] == started.pid or now["status"] != "running":
        if time.monotonic() > deadline:
            break
        time.sleep(0.1)
    seen["after_crash"] = now
    again = sandbox.restart_process("svc").value
    seen["restarted"] = {"pid": again.pid, **again.managed.model_dump(mode="json")}
    sandbox.kill_process("svc")
    time.sleep(0.5)
    seen["killed"] = managed("svc")
finally:
    sandbox.terminate()
print(json.dumps(seen))
