"""Run by tests/sandbox/test_newest_sdk.py in .venv-sdk (the newest SDK): a PTY session through
the proxy (create_pty, input, resize, exit code), two at once. Prints one JSON object of what the
SDK saw; the test judges it.

Usage: python pty.py API_URL API_KEY
"""

import json
import sys
import threading
import time

from tensorlake.sandbox import Sandbox

url, key = sys.argv[1], sys.argv[2]
seen: dict[str, object] = {}
sandbox = Sandbox.create(api_url=url, api_key=key)


class Screen:
    def __init__(self) -> None:
        self.out = bytearray()
        self.changed = threading.Condition()

    def on_data(self, data: bytes) -> None:
        with self.changed:
            self.out.extend(data)
            self.changed.notify_all()

    def wait_for(self, marker: bytes, timeout: float = 15) -> float:
        t0 = time.monotonic()
        with self.changed:
            self.changed.wait_for(lambda: marker in self.out, timeout)
        return time.monotonic() - t0


try:
    a, b = Screen(), Screen()
    first = sandbox.create_pty("sh", rows=30, cols=100, env={"WHO": "first"}, on_data=a.on_data)
    second = sandbox.create_pty("sh", on_data=b.on_data)
    first.send_input("stty size; echo $WHO-$((6*7))\n")
    second.send_input("echo second-$((2+3))\n")
    a.wait_for(b"first-42")
    b.wait_for(b"second-5")
    first.resize(132, 43)
    first.send_input("stty size; echo R$((1+1))\n")
    a.wait_for(b"R2")
    # keystroke to echo: one character typed, the terminal's echo of it back
    latencies = []
    for ch in "abcdefghij":
        mark = len(a.out)
        t0 = time.monotonic()
        first.send_input(ch)
        with a.changed:
            a.changed.wait_for(lambda ch=ch, mark=mark: ch.encode() in a.out[mark:], 5)
        latencies.append((time.monotonic() - t0) * 1000)
    first.send_input("\x15")  # ^U: forget the typed line
    first.send_input("exit 7\n")
    second.send_input("exit 3\n")
    seen["first_exit"], seen["second_exit"] = first.wait(15), second.wait(15)
    text = a.out.decode("utf-8", "replace")
    seen["sizes"] = [line.strip() for line in text.splitlines() if line.strip() in ("30 100", "43 132")]
    seen["first_saw"] = "first-42" in text and "R2" in text
    seen["second_saw"] = "second-5" in b.out.decode("utf-8", "replace") and "first-42" not in b.out.decode()
    seen["echo_ms"] = sorted(latencies)
finally:
    sandbox.terminate()
print(json.dumps(seen))
