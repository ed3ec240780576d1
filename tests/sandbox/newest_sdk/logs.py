"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): a sandbox's logs as
the SDK reads them (``get_logs``, ``list_log_processes``), before and after a suspend. Prints one
JSON object of what the SDK saw; the test judges it.

Usage: python logs.py API_URL API_KEY
"""

import json
import sys
import time

from tensorlake.sandbox import Sandbox
from tensorlake.sandbox.exceptions import SandboxNotFoundError

url, key = sys.argv[1], sys.argv[2]
seen: dict[str, object] = {}
sandbox = Sandbox.create(api_url=url, api_key=key, name="sdk-logs")
try:
    sandbox.run("sh", ["-c", "echo first; echo warned >&2; echo last"])
    ticker = sandbox.start_process("sh", ["-c", "for i in 1 2 3; do echo tick $i; done"]).value
    time.sleep(1)

    def bodies(**query: object) -> list[str]:
        return [line.body for line in sandbox.get_logs(**query).logs]

    seen["tail"] = bodies(tail=200)
    seen["last_two"] = bodies(tail=2)
    seen["errors"] = bodies(levels=["error"])
    seen["levels"] = sorted({line.level for line in sandbox.get_logs().logs})
    processes = sandbox.list_log_processes().processes
    seen["processes"] = [{"pid": p.process_pid, "command": p.process_command, "count": p.log_count}
                         for p in processes]
    seen["ticker_pid"] = ticker.pid
    by_process = [p.process_id for p in processes if p.process_pid == str(ticker.pid)]
    seen["ticker_only"] = bodies(process_ids=by_process)
    sandbox.suspend()
    seen["suspended"] = bodies()
    sandbox.resume()
    sandbox.run("sh", ["-c", "echo resumed"])
    seen["resumed"] = bodies()
    try:
        Sandbox.connect("sbnosuchsandbox", api_url=url, api_key=key).get_logs()
        seen["unknown"] = None
    except SandboxNotFoundError as exc:
        seen["unknown"] = f"{type(exc).__name__}: {exc}"
    except Exception as exc:  # noqa: BLE001 - the test reads what the SDK raised
        seen["unknown"] = f"{type(exc).__name__}: {exc}"
finally:
    sandbox.terminate()
print(json.dumps(seen))
