"""``python3 -m sandbox_runtime [--host H] [--port P] [--token-file F] [--files-root DIR] [-- CMD ...]``

Serves the runtime API; a command after ``--`` (the sandbox's own entrypoint) is started as a
process like any other: listed, its output kept. The daemon keeps serving after it ends. On
SIGTERM or SIGINT every process it started is stopped (SIGTERM, then SIGKILL after 2 s).
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import threading

from sandbox_runtime.contract import PORT, TOKEN_ENV, CommandSpec, RuntimeApiError
from sandbox_runtime.daemon import RuntimeServer


def parse_args(argv: list[str]) -> argparse.Namespace:
    entrypoint: list[str] = []
    if "--" in argv:
        at = argv.index("--")
        argv, entrypoint = argv[:at], argv[at + 1:]
    p = argparse.ArgumentParser(prog="python3 -m sandbox_runtime", description=__doc__.split("\n\n")[1])
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=PORT)
    p.add_argument("--token-file", help=f"file holding the bearer token every request must carry "
                                        f"(else the {TOKEN_ENV} variable; neither: no auth)")
    p.add_argument("--files-root", default="/",
                   help="the /files endpoints reach only paths inside this directory (default /)")
    p.add_argument("--quiet", action="store_true", help="no per-request log lines")
    args = p.parse_args(argv)
    args.entrypoint = entrypoint
    return args


def read_token(token_file: str | None) -> str | None:
    """The token from ``token_file``, else from the environment; the variable is removed either
    way so that the processes the daemon starts never see it."""
    from_env = os.environ.pop(TOKEN_ENV, None)
    if token_file:
        with open(token_file, encoding="utf-8") as f:
            token = f.read().strip()
        if not token:
            raise SystemExit(f"sandbox_runtime: the token file {token_file} is empty")
        return token
    return from_env or None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    token = read_token(args.token_file)
    server = RuntimeServer((args.host, args.port), token=token, files_root=args.files_root, quiet=args.quiet,
                          token_file=args.token_file)

    def stop(signum: int, frame: object) -> None:
        threading.Thread(target=server.shutdown, daemon=True).start()

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    if args.entrypoint:
        try:
            proc = server.table.start(CommandSpec(command=args.entrypoint[0], args=args.entrypoint[1:]))
            sys.stderr.write(f"runtime: entrypoint {args.entrypoint[0]} started, pid {proc.pid}\n")
        except RuntimeApiError as e:
            sys.stderr.write(f"runtime: entrypoint not started: {e.message}\n")
    host, port = server.server_address[:2]
    sys.stderr.write(f"runtime: listening on {host}:{port} (auth {'on' if token else 'off'})\n")
    sys.stderr.flush()
    try:
        server.serve_forever(poll_interval=0.5)
    finally:
        for session in server.ptys.all():
            session.kill()
        server.table.stop_all()
        server.server_close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
