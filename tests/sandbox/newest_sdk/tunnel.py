"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): a TCP tunnel to an HTTP
server in the sandbox, a large file fetched through two connections at once, then the tunnel
closed. Prints one JSON object of what the SDK saw; the test judges it.

Usage: python tunnel.py API_URL API_KEY SIZE_BYTES
"""

import concurrent.futures
import hashlib
import json
import sys
import time
import urllib.request

from tensorlake.sandbox import Sandbox

url, key, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
seen: dict[str, object] = {}
sandbox = Sandbox.create(api_url=url, api_key=key)
try:
    sandbox.run("sh", ["-c", f"head -c {size} /dev/urandom > /workspace/big.bin"])
    seen["want"] = sandbox.run("sha256sum", ["/workspace/big.bin"]).stdout.split()[0]
    sandbox.start_process("python3", ["-m", "http.server", "8000", "--directory", "/workspace", "--bind", "127.0.0.1"],
                          name="web", health_check={"type": "tcp", "port": 8000, "initial_delay_ms": 0,
                                                    "interval_ms": 100, "failure_threshold": 100})
    deadline = time.monotonic() + 20
    while sandbox.get_process("web").value.managed.health_status.value != "healthy" and time.monotonic() < deadline:
        time.sleep(0.1)
    tunnel = sandbox.create_tunnel(8000, local_port=0)

    def fetch(_: int) -> dict:
        t0 = time.monotonic()
        with urllib.request.urlopen(f"http://127.0.0.1:{tunnel.local_port}/big.bin", timeout=120) as r:
            data = r.read()
        took = time.monotonic() - t0
        return {"sha256": hashlib.sha256(data).hexdigest(), "bytes": len(data), "mb_s": len(data) / took / 1e6}

    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        seen["fetches"] = list(pool.map(fetch, range(2)))
    tunnel.close()
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{tunnel.local_port}/big.bin", timeout=5).read()
        seen["after_close"] = "answered"
    except OSError as exc:
        seen["after_close"] = type(exc).__name__
finally:
    sandbox.terminate()
print(json.dumps(seen))
