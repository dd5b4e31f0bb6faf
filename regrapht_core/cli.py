"""The ``regrapht`` command: one group per area, errors users must act on shown plainly.

Every ``ReGraphTError``, file-system error and undecodable input is translated here, once,
into one line on stderr and exit code 2, so no command needs its own error handling and no
traceback reaches a user for a problem they can fix (a missing snapshot, an unreadable
file); ``--debug`` shows the traceback for a bug report. A bug of ReGraphT's own is one
line too, exit code 3, naming ``--debug``.
"""

from __future__ import annotations

import ipaddress
import logging
import socket
from typing import Any

import click
from rich.console import Console

from regrapht_core.bench.cli import bench, mine_command
from regrapht_core.errors import ReGraphTError
from regrapht_core.graph.cli import graph
from regrapht_core.model.cli import model
from regrapht_core.optimize.cli import optimize
from regrapht_core.tasks.generate.cli import tasks

__all__ = ["EXIT_BUG", "EXIT_USER_ERROR", "main"]

EXIT_USER_ERROR = 2
EXIT_BUG = 3
"""A bug of ReGraphT's own: one line that says so, and how to get the traceback."""
_USER_ERRORS = (ReGraphTError, OSError, UnicodeError)


def _one_line(err: BaseException) -> str:
    if isinstance(err, OSError) and err.strerror:
        where = f"{err.filename}: " if err.filename else ""
        return f"{where}{err.strerror}"
    return str(err) or type(err).__name__


class _Main(click.Group):
    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except _USER_ERRORS as err:
            if ctx.meta.get("regrapht.debug"):
                raise
            Console(stderr=True, soft_wrap=True).print(
                f"error: {_one_line(err)}", markup=False, highlight=False
            )
            raise click.exceptions.Exit(EXIT_USER_ERROR) from err
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise  # usage errors and exits: click reports them itself
        except Exception as err:
            if ctx.meta.get("regrapht.debug"):
                raise
            Console(stderr=True, soft_wrap=True).print(
                f"error: a bug in ReGraphT ({type(err).__name__}: {_one_line(err)}); "
                "run again with --debug for the traceback to report",
                markup=False,
                highlight=False,
            )
            raise click.exceptions.Exit(EXIT_BUG) from err


@click.group(cls=_Main)
@click.version_option(package_name="regrapht", prog_name="regrapht")
@click.option("-v", "--verbose", count=True, help="Log more (-v info, -vv debug) to stderr.")
@click.option("--debug", is_flag=True, help="Show the traceback of an error.")
@click.pass_context
def main(ctx: click.Context, verbose: int, debug: bool) -> None:
    """ReGraphT: a local CUDA optimizer driven by a graph of optimization techniques."""
    ctx.meta["regrapht.debug"] = debug
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose + 2 * debug, 2)]
    logging.basicConfig(level=level, format="%(levelname)s %(name)s: %(message)s")


def _loopback(value: str | None) -> tuple[str, int] | None:
    """``HOST:PORT`` with HOST resolving to loopback only (the server has no authentication)."""
    if value is None:
        return None
    host, _, port = value.rpartition(":")
    host = host.strip("[]") or "127.0.0.1"
    if not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(f"{value!r}: expected HOST:PORT", param_hint="--tcp")
    try:
        infos = socket.getaddrinfo(host, int(port), 0, socket.SOCK_STREAM)
        found = {str(info[4][0]) for info in infos}
    except OSError as err:
        raise click.BadParameter(f"cannot resolve {host!r}: {err}", param_hint="--tcp") from err
    remote = sorted(a for a in found if not ipaddress.ip_address(a.split("%")[0]).is_loopback)
    if remote:
        raise click.BadParameter(
            f"{host!r} resolves to {', '.join(remote)}: only loopback is served",
            param_hint="--tcp",
        )
    return sorted(found)[0], int(port)


@click.command()
@click.option(
    "--tcp",
    metavar="HOST:PORT",
    help="Serve on TCP at a loopback address (for debugging) instead of stdio.",
)
def lsp(tcp: str | None) -> None:
    """Start the language server on stdio (what an editor runs)."""
    # The command line is the distribution's entry point and ships with the server; the
    # library itself never imports it (docs/architecture.md).
    from regrapht_server.__main__ import main as serve

    address = _loopback(tcp)
    level = logging.getLevelName(logging.getLogger().getEffectiveLevel())
    argv = ["--log-level", level]
    if address is not None:
        argv += ["--tcp", "--host", address[0], "--port", str(address[1])]
    serve(argv)


main.add_command(bench)
graph.add_command(mine_command)
main.add_command(graph)
main.add_command(lsp)
main.add_command(model)
main.add_command(optimize)
main.add_command(tasks)
