"""``python -m regrapht_server``: the language server over stdio (or TCP, for debugging).

Over stdio, standard output is the JSON-RPC channel, and one stray byte on it breaks the
session. Python code logs to stderr, but native libraries (llama.cpp, CUDA) may print to
file descriptor 1 directly; so the channel gets a private copy of that descriptor and
descriptor 1 itself is pointed at stderr before anything else runs.

The process ends when the client says ``exit`` or closes its side: with 0 after
``shutdown``, else 1 (the LSP specification), within :data:`EXIT_GRACE_S` even while a
job's worker is in the middle of a candidate (the job was cancelled by ``exit``; what
it was compiling is abandoned rather than waited for).
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import threading
import time
from pathlib import Path
from typing import BinaryIO, NoReturn

__all__ = ["EXIT_GRACE_S", "main"]

EXIT_GRACE_S = 0.5
"""How long threads still running at exit (a job's worker) get to finish."""


def _private_stdout() -> BinaryIO:
    sys.stdout.flush()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return channel


def _leave(code: int) -> NoReturn:
    """Exit without waiting on worker threads past the grace period: Python would join
    them at exit, and a job's worker may be minutes into a search or compiling."""
    deadline = time.monotonic() + EXIT_GRACE_S
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    from regrapht_core import api  # loaded long before, with the server

    api.release_children()  # os._exit runs no atexit: a compile cut short leaves nothing
    logging.shutdown()
    sys.stderr.flush()
    os._exit(code)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m regrapht_server", description="ReGraphT language server"
    )
    parser.add_argument("--tcp", action="store_true", help="serve on TCP instead of stdio")
    parser.add_argument("--host", default="127.0.0.1", help="TCP host (default: %(default)s)")
    parser.add_argument("--port", type=int, default=2087, help="TCP port (default: %(default)s)")
    parser.add_argument("--log-file", type=Path, help="log here instead of stderr")
    parser.add_argument(
        "--log-level",
        default="WARNING",
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="default: %(default)s",
    )
    args = parser.parse_args(argv)
    logging.basicConfig(
        filename=args.log_file,
        level=args.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    # pygls logs every message body at INFO: megabytes per search.
    logging.getLogger("pygls").setLevel(max(logging.WARNING, logging.getLogger().level))
    channel = None if args.tcp else _private_stdout()

    from regrapht_server import wire
    from regrapht_server.jobs import stop_on_signals
    from regrapht_server.server import server

    stop_on_signals(server.engine)

    where = f"tcp {args.host}:{args.port}" if channel is None else "stdio"
    logging.getLogger(__name__).info("ReGraphT language server %s on %s", server.version, where)
    if channel is None:
        code = wire.run_tcp(server.endpoint, args.host, args.port)
    else:
        code = wire.run_stdio(server.endpoint, sys.stdin.fileno(), channel)
    _leave(code)


if __name__ == "__main__":
    main()
