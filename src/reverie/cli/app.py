"""The ``reverie`` command group: global options, command registration, and the error boundary.

The error boundary is the one place a failure becomes output: a ``ReverieError`` prints
``error[<code>]: <message>`` on stderr and exits 2 (the request was wrong) or 1 (it could not be
done); anything else is reported as ``error[internal]``. Tracebacks appear only with ``--debug``,
so bad input never shows one.
"""

from __future__ import annotations

import io
import os
import sys
from typing import Any

import click

from reverie import ReverieError, __version__
from reverie.cli import agenda, conversation, metacog, migrate, not_conflict, ops, read, slices, vault, write
from reverie.cli.state import EXIT_FAILED, CliError, CliUsageError, State

_EPILOG = """\b
Exit codes: 0 ok; 1 could not be done (not found, conflict, read_only, doctor not ok, I/O);
2 bad usage or input (also port_in_use: pass another --port). Errors print `error[<code>]: <message>` on stderr.
Environment: REVERIE_DB, REVERIE_SCOPE, REVERIE_EMBEDDER (options win over them).
"""


class ReverieGroup(click.Group):
    """A click group that turns every failure into ``error[code]`` and an exit code.

    ``make_context`` covers errors in the global options, ``invoke`` everything after them
    (a subcommand's options are parsed inside the group's ``invoke``).
    """

    def make_context(
        self, info_name: str | None, args: list[str], parent: click.Context | None = None, **extra: Any
    ) -> click.Context:
        try:
            return super().make_context(info_name, args, parent, **extra)
        except (CliError, click.exceptions.NoArgsIsHelpError):
            raise  # bare `reverie` prints the help itself
        except click.UsageError as err:
            raise CliUsageError.from_click(err, "--json" in args) from err

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except CliError:
            raise
        except click.UsageError as err:
            st = ctx.find_object(State)
            raise CliUsageError.from_click(err, st is not None and st.json) from err
        except (click.ClickException, click.exceptions.Exit, click.Abort):
            raise  # click's other exits already carry their exit codes
        except BrokenPipeError:
            _silence_stdout()  # `reverie export | head`: the reader left; no error, no traceback
            raise click.exceptions.Exit(EXIT_FAILED) from None
        except Exception as err:
            st = ctx.find_object(State)
            if st is not None and st.debug:
                raise
            raise _as_cli_error(err, st is not None and st.json, st.scope if st is not None else None) from err


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot raise EPIPE again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass  # not a real file descriptor (e.g. under CliRunner): nothing to flush


def _as_cli_error(err: Exception, as_json: bool, scope: str | None = None) -> CliError:
    if isinstance(err, ReverieError):
        return CliError.from_reverie(err, as_json, scope)
    if isinstance(err, OSError):
        return CliError("io", f"{err.strerror or err}: {err.filename}" if err.filename else str(err), as_json)
    return CliError("internal", f"{type(err).__name__}: {err} (rerun with --debug for the traceback)", as_json)


@click.group(
    cls=ReverieGroup,
    epilog=_EPILOG,
    context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100},
)
@click.option(
    "--db",
    default="./reverie.db",
    envvar="REVERIE_DB",
    show_default=True,
    show_envvar=True,
    metavar="PATH",
    help="The store file (created by remember, import, slice import, vault index, vault claims --remember, "
    "pause, resume; by any other command, serve and mcp included, only with --create).",
)
@click.option(
    "--create",
    is_flag=True,
    help="Let this command create the store if --db names no file (else only the commands above do; "
    "a mistyped --db is refused with not_found).",
)
@click.option(
    "--read-only",
    is_flag=True,
    help="Open the store for inspection: reads work (recall records no use), every write is refused.",
)
@click.option("--scope", envvar="REVERIE_SCOPE", show_envvar=True, metavar="SCOPE", help="Scope for scoped commands.")
@click.option(
    "--embedder",
    type=click.Choice(["minilm", "hash"]),
    default=None,
    envvar="REVERIE_EMBEDDER",
    show_envvar=True,
    help="Embedding model: the local MiniLM, or the model-free hash embedder "
    "[default: the one the store records; minilm for a new store].",
)
@click.option(
    "--principal",
    envvar="REVERIE_PRINCIPAL",
    show_envvar=True,
    metavar="PRINCIPAL",
    help="Read as this principal: only claims visible to it (default: the store's owner, who sees all).",
)
@click.option(
    "--conflict-reader",
    type=click.Choice(["nli"]),
    default=None,
    envvar="REVERIE_CONFLICT_READER",
    show_envvar=True,
    help="Also have an NLI model (pip install 'reverie[nli]') read pairs the contradiction rules cannot name, "
    "in dream passes (serve --dream-every too) [default: rules only].",
)
@click.option(
    "--busy-timeout",
    "busy_timeout_ms",
    type=click.IntRange(min=0),
    default=None,
    envvar="REVERIE_BUSY_TIMEOUT_MS",
    show_envvar=True,
    metavar="MS",
    help="How long a write (and a recall's use at exit) waits for another process's write lock before "
    "error[storage]; 0 fails at once [default: 30000].",
)
@click.option("--json", "as_json", is_flag=True, help="Machine output: one JSON document on stdout.")
@click.option("--debug", is_flag=True, help="Show tracebacks.")
@click.version_option(__version__, prog_name="reverie")
@click.pass_context
def cli(
    ctx: click.Context,
    db: str,
    create: bool,
    read_only: bool,
    scope: str | None,
    embedder: str | None,
    principal: str | None,
    conflict_reader: str | None,
    busy_timeout_ms: int | None,
    as_json: bool,
    debug: bool,
) -> None:
    """reverie: a belief-state memory for AI agents, on one SQLite file."""
    given = ctx.obj if isinstance(ctx.obj, State) else State()  # only its limits: the options set the rest
    ctx.obj = State(
        db=db,
        create=create,
        embedder=embedder,
        scope=scope or None,
        read_only=read_only,
        principal=principal or None,
        conflict_reader=conflict_reader,
        busy_timeout_ms=busy_timeout_ms,
        json=as_json,
        debug=debug,
        limits=given.limits,
    )


_GROUPS = (write, read, not_conflict, ops, slices, metacog, agenda, migrate, vault, conversation)
for _command in (command for group in _GROUPS for command in group.COMMANDS):
    cli.add_command(_command)


def main() -> None:
    """Console entry point (``reverie = "reverie.cli:main"``)."""
    cli(prog_name="reverie")
