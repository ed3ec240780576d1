"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): a live resize as a user
of the SDK does it. Prints one JSON object of what the SDK saw; the test judges it.

Usage: python resize.py API_URL API_KEY MORE_CPUS_THAN_THE_HOST_HAS
"""

import json
import sys

from tensorlake.sandbox import Sandbox

url, key, too_many = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen: dict[str, object] = {}
sandbox = Sandbox.create(api_url=url, api_key=key)
try:
    seen["sandbox_id"] = sandbox.sandbox_id
    info = sandbox.update(cpus=2, memory_mb=1536)  # waits for the resize to be applied
    seen["waited"] = {"resources": info.resources.model_dump(mode="json"),
                      "resize": info.resource_resize.model_dump(mode="json")}
    admitted = sandbox.update(memory_mb=1024, wait=False)
    done = sandbox.wait_for_resource_resize(admitted.resource_resize.generation)
    seen["second"] = {"generation": admitted.resource_resize.generation,
                      "resources": done.resources.model_dump(mode="json")}
    refused = {}
    for name, wanted in (("too_many_cpus", {"cpus": too_many}), ("smaller_disk", {"disk_mb": 100})):
        try:
            sandbox.update(**wanted)
            refused[name] = None
        except Exception as exc:  # noqa: BLE001 - the test reads what the SDK raised
            refused[name] = f"{type(exc).__name__}: {exc}"
    seen["refused"] = refused
    seen["after"] = sandbox.info().resources.model_dump(mode="json")
finally:
    sandbox.terminate()
print(json.dumps(seen))
