"""``python -m regrapht_server``: the language server over stdio (or TCP, for debugging).

Over stdio, standard output is the JSON-RPC channel, and one stray byte on it breaks the
session. Python code logs to stderr, but native libraries (llama.cpp, CUDA) may print to
file descriptor 1 directly; so the channel gets a private copy of that descriptor and
descriptor 1 itself is pointed at stderr before anything else runs.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
from pathlib import Path
from typing import BinaryIO

__all__ = ["main"]


def _private_stdout() -> BinaryIO:
    sys.stdout.flush()
    channel = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())
    return channel


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

    from regrapht_server.server import server

    where = f"tcp {args.host}:{args.port}" if channel is None else "stdio"
    logging.getLogger(__name__).info("ReGraphT language server %s on %s", server.version, where)
    if channel is None:
        server.start_tcp(args.host, args.port)
    else:
        server.start_io(sys.stdin.buffer, channel)


if __name__ == "__main__":
    main()
